/* The table of kinds: every kind of file readerd reads, one row each, holding how it is told
 * (signature, content check, name), how it is read, what its pieces are called, what it costs
 * before it is read and how a read of it is cut to a share (kind-cut.h). The reader dispatches
 * through it; the budget prices and cuts through it. A new kind is a reader file and a row.
 * Pure lookups: the rows are static and never change. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "daemon/readers/detect.h"
#include "formatters/result.h"

typedef struct ReaderOptions ReaderOptions;
typedef struct KindCut KindCut;

/* The open file a kind's reader gets: its descriptor (positioned after the head), its stat and
 * its head, already read. */
typedef struct {
  int fd;
  const struct stat *st;
  const uint8_t *head;
  size_t head_len;
  bool eof;         /* head is the whole file */
  DetectKind magic; /* its signature */
  size_t size;      /* st's size when it ends the file (a regular file with blocks), else 0 */
} KindFile;

/* Reads the open file into res (zeroed): every problem is a per-file code in res. */
typedef void (*KindReadFn)(const ReaderOptions *o, const KindFile *file,
                           const atomic_bool *cancelled, FileResult *res);

/* True when a file without a known signature is of this kind, by its head (and, for some
 * kinds, its name, or whether `render` asks for a picture). */
typedef bool (*KindMatchFn)(const ReaderOptions *o, const uint8_t *head, size_t n);

/* Estimated tokens of what a read would write of a file of `bytes` bytes, from its head (the
 * whole file when eof). Pure. */
typedef int64_t (*KindGuessFn)(const uint8_t *head, size_t n, bool eof, int64_t bytes);

typedef struct {
  const char *name;       /* "text", "png", "pdf", "notebook", "docx"... */
  FileType type;          /* the type its result states */
  const char *format;     /* documents: the FileResult's format ("docx"); NULL otherwise */
  DetectKind magic;       /* its signature; DETECT_UNKNOWN: told by `match`, or text */
  const char *media_type; /* of the file as it is, NULL when none is stated */
  KindMatchFn match;      /* for a kind without a signature; NULL otherwise */
  KindReadFn read;
  bool blocking;      /* waits on a decoder or a worker, or parses the whole file: never on
                         a text lane */
  bool web;           /* a picture a model takes as it is (PNG, JPEG, GIF, WebP) */
  const char *piece;  /* what one piece of it is called ("page", "cell") */
  const char *pieces; /* ... and many ("pages", "cells") */
  const KindCut *cut; /* how a read of it is cut to a share; NULL: never cut once read
                         (text is cut by the line engine as it reads) */
  KindGuessFn guess;  /* its cost before it is read, when a read decides it and the read
                         is cut to the share (a PDF, a notebook, a document); NULL: the
                         budget prices it from its head (text, pictures) or takes the level */
} Kind;

/* The kind of a file from its signature and head: the row of `magic`, else the first row whose
 * `match` says so, else text. Never NULL. */
const Kind *kinds_detect(const ReaderOptions *o, DetectKind magic, const uint8_t *head, size_t n);

/* The row of a signature, NULL for DETECT_UNKNOWN (which many kinds share). */
const Kind *kinds_by_magic(DetectKind magic);

/* The row a read result comes from, by its type and format: for pictures, the first picture
 * row (they share their cut). NULL for FILE_TYPE_UNKNOWN. */
const Kind *kinds_of_result(const FileResult *f);

/* The rows, for the tests: *ret_n of them. */
const Kind *kinds_table(size_t *ret_n);
