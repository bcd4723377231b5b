/* One `read` request fanned out over libuv's thread pool: its text files read by lanes that
 * claim files for a short slice each, its pictures, PDFs and SVG renders by blocking jobs of
 * their own, both started by the loop's fair scheduler (scheduler.h) as slots free; each file
 * formatted where it was read; the answer assembled in request order by whichever thread reads
 * the last file. Only the loop thread calls these functions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <uv.h>

#include "daemon/readers/workspace.h"
#include "ipc/read-params.h"

typedef enum {
  REQUEST_OUTPUT_RESULT_JSON, /* the result object of the request's format (params.format) */
  REQUEST_OUTPUT_BARE,        /* the format's shape alone (the one-shot CLI): for xml, the XML */
  REQUEST_OUTPUT_NONE,        /* nothing formatted: the files are kept for request_take_result()
                                 (readImages sends the pictures elsewhere) */
} RequestOutput;

typedef struct Request Request;

/* Called once on the loop thread when the request has finished. status is 0 with the
 * formatted output available through request_take_output(), or UV_ECANCELED when it was
 * cancelled before every file was read. The callback must eventually call request_free(). */
typedef void (*RequestDoneCb)(Request *req, int status);

/* Starts reading. Takes ownership of *params (which is reset); takes a reference on ws (the
 * connection's workspace, may be NULL).
 * Never fails. */
Request *request_start(uv_loop_t *loop, ReadParams *params, Workspace *ws, RequestOutput output,
                       RequestDoneCb done_cb, void *data);

/* Called on the loop thread as files are read: `done` of `total` read so far, increasing,
 * never after the done callback. */
typedef void (*RequestProgressCb)(Request *req, size_t done, size_t total);

/* Asks for progress reports (NULL: none). */
void request_on_progress(Request *req, RequestProgressCb progress_cb);

/* Stops starting new files; files being read stop at their next chunk. Safe to call more than
 * once and after the request finished (it then does nothing). */
void request_cancel(Request *req);

/* The workspace the request reads in (the one request_start() was given). */
Workspace *request_workspace(const Request *req);

/* Takes the formatted answer: *ret_n pieces to send in order, so that a large answer is
 * never copied into one buffer (free each with g_string_free(p, TRUE), then the array with
 * g_free). NULL (and *ret_n 0) after the first call, when cancelled, or when formatting failed. */
GString **request_take_output(Request *req, size_t *ret_n);

/* Takes the files read, once, for a request started with REQUEST_OUTPUT_NONE that finished
 * with status 0: *ret gets them (the request's image budget already applied); clear it with
 * read_result_clear(). Otherwise *ret is zeroed. */
void request_take_result(Request *req, ReadResult *ret);

/* Number of files that ended with a per-file error. */
size_t request_failed_count(const Request *req);

/* The `data` given to request_start(). */
void *request_get_data(const Request *req);

/* Frees a finished request (from the done callback or later). NULL is fine. */
void request_free(Request *req);

/* How many lanes one request may have at once (the scheduler decides how many it gets); each
 * reads files one after another for a slice of at most REQUEST_SLICE_US microseconds or
 * REQUEST_SLICE_FILES files, then gives its slot back. */
#define REQUEST_MAX_IN_FLIGHT 8
#define REQUEST_SLICE_US 2000
#define REQUEST_SLICE_FILES 64
/* Without company (scheduler_company()) a lane goes on past its slice, up to this many slices:
 * handing the slot back and being queued again costs a turn of the loop and a wake-up each
 * time, about an eighth of a large read alone. Progress is still reported at least this often. */
#define REQUEST_SLICES_ALONE 4
/* Threads at most that help the expansion's thread look up a long list of paths
 * (expand-probe.h), besides it: one a CPU beyond the first. */
#define REQUEST_PROBE_HELPERS 3
