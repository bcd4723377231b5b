/* Documents a PDF worker keeps open between reads, so that reading a long PDF window after
 * window (each `continue with pages=` notice a new request) pays for its pages only, not for
 * opening the document again. Keyed by the file's identity (pdf-file-id.h) as the worker's own
 * fstat of the descriptor it was given confirms it, never by what the request says alone. A
 * document that needed a password is served only to a request with the same password (kept as
 * a SHA-256 digest, not in clear). Bounded: at most `max_docs` documents, and the oldest go
 * while the worker's heap is over `max_heap` bytes after a read. Runs only in the worker
 * process; not thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <poppler.h>

#include "daemon/worker/pdf-file-id.h"

#define PDF_DOC_CACHE_MAX_DOCS 3                           /* documents kept per worker */
#define PDF_DOC_CACHE_MAX_HEAP ((size_t)256 * 1024 * 1024) /* heap in use, kept documents held */

typedef struct PdfDocCache PdfDocCache;

/* A new, empty cache of at most max_docs (at least 1) documents and max_heap bytes of heap
 * (see pdf_doc_cache_trim). Free it with pdf_doc_cache_free. */
PdfDocCache *pdf_doc_cache_new(size_t max_docs, size_t max_heap);

/* Releases every document and the cache. NULL is fine. */
void pdf_doc_cache_free(PdfDocCache *c);

/* The document kept for the file `id` that `password` may see: one opened without a password,
 * or with this very password (NULL: none). Returns a new reference (g_object_unref it), and
 * marks the entry the most recently used; NULL when none. */
PopplerDocument *pdf_doc_cache_get(PdfDocCache *c, const PdfFileId *id, const char *password);

/* Keeps doc (a reference of its own) for the file `id`. password is the one doc needed to
 * open, or NULL when it opened without one. An entry for an earlier version of the same inode
 * is dropped; past max_docs, the least recently used goes. */
void pdf_doc_cache_put(PdfDocCache *c, const PdfFileId *id, const char *password,
                       PopplerDocument *doc);

/* Drops the least recently used documents while heap_used() (bytes of heap in use, asked
 * again after each drop) is over max_heap. Returns how many were dropped. */
size_t pdf_doc_cache_trim(PdfDocCache *c, size_t (*heap_used)(void));

/* The number of documents kept. */
size_t pdf_doc_cache_len(const PdfDocCache *c);

/* Bytes of heap the process has in use (malloc'd and mmapped blocks): mallinfo2. */
size_t pdf_doc_cache_heap_used(void);
