/* One file, start to finish, on a worker thread: open safely, classify, read. */
#pragma once

#include <sys/stat.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/image-tiles.h"
#include "daemon/readers/detect.h"
#include "daemon/readers/kinds.h"
#include "daemon/readers/workspace.h"
#include "formatters/result.h"

/* What to read of one file and how, built by the request from its params: the readers know
 * nothing of the protocol. Strings are borrowed for the call. */
typedef struct ReaderOptions {
  const char *path;            /* as the client gave it */
  const char *base;            /* folder of a relative path; NULL: the workspace's root, else the
                                  process's working directory */
  int64_t offset;              /* 1-based first line shown (text); first cell, slide, row, line
                                  or tile for the kinds cut into those */
  int64_t limit;               /* text: lines shown */
  bool line_numbers;           /* text: cat -n numbering */
  int64_t column;              /* text: first character shown of line `offset` (1-based) */
  int64_t tail;                /* text: > 0, the last `tail` lines instead of offset and limit */
  const char *pages;           /* PDF page selection, NULL for the default window */
  const char *password;        /* PDF password, or NULL */
  bool render;                 /* PDF pages as pictures; an SVG rendered instead of read as text */
  int max_dimension;           /* long edge of pictures sent */
  int64_t max_image_bytes;     /* base64 of a PDF's pictures at most (the request's image budget) */
  const char *client_etag;     /* ifNoneMatch's etag of this path, or NULL: when the opened file
                                  still has it, res->unchanged is set and nothing is read */
  ImageTileMode tile;          /* tall or wide pictures as tiles */
  ImageTileTarget tile_target; /* the provider the tiles are sized for */
  int64_t max_tokens;          /* text: estimated tokens shown at most (budget); 0: no cap */
  bool expanded;               /* found by a folder walk: refused inside a .git folder
                                  (workspace_allows_expanded) */
  const char *encoding;        /* text: the client's encoding, decoded without detection; NULL:
                                  detected */
  const struct stat *probe;    /* a regular file's lstat from the expansion, which found no
                                  symlink on its way (expand.h): not walked again to be judged
                                  or measured; NULL: walked here */
} ReaderOptions;

/* Reads o->path into res (which must be zeroed): resolved against o->base, else the
 * workspace's root, else the working directory; the workspace (may be NULL) also decides what
 * may be read at all (workspace_allows). A regular file opened gets its bytes, modified time
 * and etag from fstat() of the descriptor; one whose etag equals o->client_etag is answered
 * unchanged, unread. Never fails as a whole: every problem is a per-file
 * code in res. `cancelled` may be NULL. */
void reader_read(const ReaderOptions *o, const Workspace *ws, const atomic_bool *cancelled,
                 FileResult *res);

/* Reads o->path as reader_read() does when it is text, or fails before its kind is known;
 * never waits on a decoder or a worker process. Returns false, with res zeroed, when the file
 * is a picture, a PDF or an SVG to render: the caller then reads it with reader_read() where
 * blocking is allowed. */
bool reader_read_text(const ReaderOptions *o, const Workspace *ws, const atomic_bool *cancelled,
                      FileResult *res);

/* Bytes of a file's head the measure phase reads at most: as a read does, enough to tell its
 * kind and a picture's size, and the whole of most source files (the cost of a longer one is
 * extrapolated from them). A plan reads READER_SAMPLE_SMALL: a quarter of the I/O and of the
 * pricing, for estimates of the longer files. */
#define READER_SAMPLE_SIZE ((size_t)64 * 1024)
#define READER_SAMPLE_SMALL ((size_t)16 * 1024)

/* What the measure phase learns of a file from its stat and its head, without reading it. */
typedef struct {
  DetectKind kind;     /* its signature; DETECT_UNKNOWN: text, a notebook or an SVG */
  const Kind *row;     /* its row in the table of kinds */
  bool svg_render;     /* an SVG that `render` asks to draw: a picture */
  const uint8_t *head; /* the file's first head_len bytes: the calling thread's buffer, valid
                          until its next reader call */
  size_t head_len;
  bool eof;             /* head is the whole file */
  const char *encoding; /* text: how it would be decoded (static) */
  bool head_refused;    /* refused for what its head holds (a binary file) or a failed read of
                           it: a measure without a head would have passed it */
} ReaderSample;

/* Measures o->path: res gets what reader_read() would say of it without content (path, bytes,
 * modified, its type, or a per-file failure: not found, refused, binary), *ret its first
 * `sample` bytes (at most READER_SAMPLE_SIZE). With `sample` 0 the file is opened as a path
 * only (O_PATH), checked against the fence and described by fstat: res gets its size, time and
 * etag, nothing is read (res->type stays unknown). Returns true when the file could be opened
 * (and sampled) with res->code NULL, false when res holds a failure. Never blocks on a decoder
 * or a worker process. */
bool reader_measure(const ReaderOptions *o, const Workspace *ws, const atomic_bool *cancelled,
                    size_t sample, FileResult *res, ReaderSample *ret);
