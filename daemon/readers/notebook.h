/* The notebook reader: a Jupyter notebook (.ipynb, nbformat 4) as its cells in order, each
 * with its source and its outputs (stream text, text/plain results, error tracebacks without
 * their ANSI escape codes) and its pictures (image/png, image/jpeg) sent as images.
 *
 * notebook_parse() is pure (json-glib, no I/O): pictures go to a hook, so that the daemon can
 * pass them through the image pipeline while a fuzzer lists them only. notebook_read() reads the
 * file first. Both run on a worker thread. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "formatters/result.h"

#define NOTEBOOK_MAX_FILE_BYTES ((int64_t)32 * 1024 * 1024) /* larger notebooks are refused */
#define NOTEBOOK_MAX_DEPTH 256                    /* JSON nesting, checked before parsing */
#define NOTEBOOK_MAX_OUTPUT ((size_t)16 * 1024)   /* bytes of text shown of one output */
#define NOTEBOOK_MAX_CONTENT ((size_t)256 * 1024) /* bytes of text shown of one notebook */
#define NOTEBOOK_MAX_IMAGES 20                    /* pictures sent of one notebook per read */

/* Turns one picture output into an image of res: appends it to res->images (within the
 * image pipeline's limits) and returns 0, or returns a negative errno with *ret_error
 * (g_malloc'd) saying why it is not sent; res's code must stay NULL either way. */
typedef int (*NotebookImageFn)(void *ctx, const char *media_type, const uint8_t *data, size_t len,
                               FileResult *res, char **ret_error);

typedef struct {
  int64_t offset;               /* 1-based first cell shown (>= 1) */
  int64_t limit;                /* cells shown at most (>= 1) */
  int64_t max_image_bytes;      /* base64 of the notebook's pictures at most */
  NotebookImageFn image;        /* NULL: pictures are listed, not sent */
  void *image_ctx;              /* passed to image */
  const atomic_bool *cancelled; /* may be NULL; checked between cells */
} NotebookOptions;

/* True when the head of a file is a notebook by its content: a JSON object naming both
 * "cells" and "nbformat" in its first n bytes. */
bool notebook_sniff(const uint8_t *head, size_t n);

/* Parses the notebook in data[0, len) into res: type, language, sections (the count of
 * cells), section_out, images, truncated, shown_*, notice. A file that is not a notebook's JSON
 * is CORRUPTED_FILE, an nbformat before 4 UNSUPPORTED_FORMAT; both with a message saying why.
 * Returns 0, or a negative errno-style value when res holds a failure. */
int notebook_parse(const char *data, size_t len, const NotebookOptions *o, FileResult *res);

/* Reads the notebook open at fd (size from st; `head` holds its first head_len bytes, already
 * read, and fd is positioned after them) and parses it with notebook_parse(). A file over
 * NOTEBOOK_MAX_FILE_BYTES is FILE_TOO_LARGE. Returns as notebook_parse() does. */
int notebook_read(int fd, const struct stat *st, const uint8_t *head, size_t head_len,
                  const NotebookOptions *o, FileResult *res);

/* A notebook's cells as written, guessed from its JSON head: the estimate of the JSON without its
 * pictures' base64 (the read prices the pictures themselves), scaled to the file's size, times
 * 0.6 (its keys and escapes cost more than the cells' tags: the written cells are 0.55 to 0.65
 * of the JSON's o200k count on real notebooks). Pure; a
 * KindGuessFn (kinds.h). */
int64_t notebook_guess(const uint8_t *head, size_t n, bool eof, int64_t bytes);
