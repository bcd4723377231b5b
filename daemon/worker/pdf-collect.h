/* Waiting for a worker process's records, for the readers that hand it work (pdf.c, and
 * image-remote.c for conversions): read them as they come, with a deadline and the request's
 * cancel flag looked at every PDF_COLLECT_SLICE_MS, and say how it ended. Thread-safe. */
#pragma once

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "daemon/worker/pdf-wire.h"

#define PDF_COLLECT_SLICE_MS 50 /* how often a waiting reader looks at the cancel flag */

typedef enum {
  PDF_COLLECT_ENDED,     /* the worker said everything */
  PDF_COLLECT_DIED,      /* it stopped without saying so: crashed, or killed by its CPU limit */
  PDF_COLLECT_TIMEOUT,   /* the deadline passed: the caller stops it */
  PDF_COLLECT_CANCELLED, /* the request was cancelled */
  PDF_COLLECT_BROKEN,    /* it sent something that is not the protocol, or too much */
} PdfCollectOutcome;

/* Applies one record (pdf-wire.h). Returns 1 when the worker has said everything, 0 when more
 * is to come, or a negative errno when the record breaks the protocol. */
typedef int (*PdfCollectFn)(const PdfRecord *rec, void *data);

/* Reads the worker's socket and hands each complete record to consume(), until it says the
 * worker has said everything, the worker closes the socket, a record is broken, more than
 * max_pending bytes wait for the rest of a record, the
 * monotonic time `deadline` (microseconds) passes, or *cancelled (may be NULL) is set. */
PdfCollectOutcome pdf_collect(int sock, int64_t deadline, const atomic_bool *cancelled,
                              size_t max_pending, PdfCollectFn consume, void *data);

/* How a worker ended (a wait status), in words for messages: "killed by signal 11,
 * Segmentation fault". g_free the result. */
char *pdf_collect_death_reason(int status);

/* A time budget in milliseconds from the environment variable `var` (READERD_PDF_TIMEOUT_MS,
 * READERD_IMAGE_TIMEOUT_MS): a whole number from 1 to one hour, else `fallback`. */
int pdf_collect_budget_ms(const char *var, int fallback);

/* A time budget in words: "20 s", or "250 ms" when it is not whole seconds. g_free it. */
char *pdf_collect_budget_text(int ms);
