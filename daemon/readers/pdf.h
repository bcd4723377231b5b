/* The PDF reader: a PDF page by page, with pictures of pages where text is not enough.
 * Runs on a worker thread; the poppler work itself runs in a worker process (pdf-worker.h),
 * watched against a time budget, so that a hostile PDF costs one file's error at most. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "formatters/result.h"

#define PDF_MAX_FILE_BYTES ((int64_t)100 * 1024 * 1024) /* larger PDFs are FILE_TOO_LARGE */
#define PDF_DEFAULT_BUDGET_MS 20000 /* per-file time budget; READERD_PDF_TIMEOUT_MS overrides */
#define PDF_MAX_RANGES 1000         /* items of a page selection, once sorted and merged */

typedef struct {
  const char *pages;            /* selection ("3", "2-5", "1,28-"); NULL: the first pages */
  const char *password;         /* NULL: none */
  bool render;                  /* render every page shown */
  int max_dimension;            /* long edge of rendered pages, pixels */
  int64_t max_image_bytes;      /* base64 of all this PDF's pictures at most (cut to 20 MiB);
                                 * 0: no pictures; negative: 20 MiB */
  const atomic_bool *cancelled; /* may be NULL */
} PdfOptions;

/* Reads the PDF open at fd (size from st) into res: type, pages, title, author, outline,
 * page_out, images (one per rendered page, `page` set), truncated, notice; or a per-file code.
 * fd is not closed and its offset may move. Returns 0 when the PDF was read, else a negative
 * errno-style value (the code is in res). */
int pdf_read(int fd, const struct stat *st, const PdfOptions *opt, FileResult *res);

/* Sets the executable started as the worker (readerd-worker, for PDFs and image conversions
 * alike): readerd's main() sets the one worker_path_find() names; tests set the built one.
 * Without one (NULL, the default, so that other programs linking the readers never start
 * themselves as a worker) PDFs, and pictures that need converting, are CONVERSION_FAILED.
 * Not thread-safe: call it before reading. */
void pdf_set_worker_path(const char *path);

/* The executable pdf_set_worker_path() set, or NULL; image conversions use the same workers
 * (image-remote.h). */
const char *pdf_worker_path(void);
