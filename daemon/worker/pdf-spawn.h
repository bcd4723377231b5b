/* Worker processes (pdf-worker.h) for the PDF reader and for image conversion
 * (image-remote.h), started with posix_spawn and kept for reuse: a worker gets each
 * request's descriptor (the PDF, or the picture's bytes) with the request over its socket
 * (SCM_RIGHTS), serves it, and can then wait for another. A request that went well gives its
 * worker back, so the next one does not pay a process start (most of it the dynamic linking
 * of poppler, cairo and gdk-pixbuf) and finds poppler's font caches and the image decoders warm; one that
 * failed in any way ends its worker, and a worker serves at most PDF_SPAWN_MAX_READS
 * requests. Thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "daemon/worker/pdf-file-id.h"

#define PDF_SPAWN_MAX_IDLE 4   /* idle workers kept: as many as the pool reads at once */
#define PDF_SPAWN_MAX_READS 32 /* requests one worker serves before it is retired */
/* Files a worker is remembered to have read last: as many as it keeps open (pdf-doc-cache.h). */
#define PDF_SPAWN_RECENT 3

typedef struct {
  pid_t pid;
  int sock;                           /* readerd's end of the worker's socket */
  int reads;                          /* requests it was given so far */
  PdfFileId recent[PDF_SPAWN_RECENT]; /* the files it was last given, the latest last */
  size_t n_recent;
} PdfWorker;

/* Gives a worker running the executable `path` (readerd-worker, worker-path.h): an idle one
 * started from that path when there is one, else a new one. The caller owns it until it hands it to
 * pdf_spawn_give() or pdf_spawn_end(). Returns 0, or a negative errno when no worker could be
 * started. */
int pdf_spawn_take(const char *path, PdfWorker *ret);

/* Like pdf_spawn_take, for a read of the file `id` (NULL: any): an idle worker that was given
 * that file among its last PDF_SPAWN_RECENT reads comes first, since it may still hold the
 * document open; the worker handed out then remembers id. */
int pdf_spawn_take_for(const char *path, const PdfFileId *id, PdfWorker *ret);

/* Sends one request (records ending with PDF_REQ_END) to the worker with pdf_fd (the PDF, or
 * the picture to convert) attached, and counts it. Returns 0, or a negative errno (a dead
 * worker: EPIPE). */
int pdf_spawn_send(PdfWorker *w, int pdf_fd, const void *req, size_t len);

/* Gives back a worker whose request went well (it sent PDF_RES_END and no error) and that
 * waits for its next request: kept idle when there is room and it has requests left, else
 * ended. */
void pdf_spawn_give(PdfWorker *w, const char *path);

/* Ends a worker: kills it unless it has exited already (kill_now false: it is given until the
 * monotonic time `deadline`, in microseconds, to exit by itself), closes its socket and waits
 * for it. Returns its wait status. */
int pdf_spawn_end(PdfWorker *w, bool kill_now, int64_t deadline);

/* Ends the idle workers. For tests and orderly exits; without it they die with the thread
 * that started them (PR_SET_PDEATHSIG) or when their socket closes. */
void pdf_spawn_cleanup(void);
