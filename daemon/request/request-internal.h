/* A request's insides, shared by its phases: request.c (expand, measure, read) and settle.c
 * (the answer settled and assembled). Private to daemon/request/. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <uv.h>

#include "basic/content-hash.h"
#include "daemon/request/expand.h"
#include "daemon/request/policy.h"
#include "daemon/request/request.h"
#include "daemon/request/scheduler.h"
#include "formatters/format.h"
#include "formatters/result.h"

/* One of a request's lanes: a pool task that claims files one after another, for a short slice
 * of time, then hands back to the loop, which starts it again when the scheduler gives it a
 * slot. A task per file would cost two thread switches per file; a lane that never gave back
 * would hold its thread while other requests wait. A lane reads text only: a file that needs
 * blocking work is left to a job of its own. */
typedef struct {
  uv_work_t work; /* embedded: container_of gives the lane back */
  Request *req;   /* set while the lane is queued or running */
  size_t read;    /* files this slice read to the end */
  size_t deferred[REQUEST_SLICE_FILES * REQUEST_SLICES_ALONE]; /* files left to blocking jobs */
  size_t n_deferred;
  bool past_cap; /* the file claimed last is certainly past the answer's cap (request_past_cap) */
} Lane;

/* One file that needs blocking work (a picture, a PDF, an SVG render; at the measure, a document
 * read whole to be priced), on its own. */
typedef struct {
  uv_work_t work;
  Request *req;
  size_t index;
  bool read; /* the file went through the phase */
} Job;

/* A request's phases, in order. Each goes through the files one function per file, on a lane or
 * a blocking job; the policy (policy.h: plain, or the budget's) is what they consult, not a
 * branch of their own. */
typedef enum {
  PHASE_EXPAND,  /* folders and globs become files (daemon/request/expand.h), on the pool */
  PHASE_MEASURE, /* when the policy measures: each file's stat and head (measure_one) */
  PHASE_READ,    /* each file read, cut by the policy, formatted (read_one); the thread that
                    reads the last one settles the answer (settle.c) */
} Phase;

struct Request {
  uv_loop_t *loop;
  ReadParams params;
  Workspace *ws;
  const Formatter *fmt;  /* the request's format (params.format) */
  TokensPricing pricing; /* how it prices what it writes */
  FormatOptions fopt;
  RequestDoneCb done_cb;
  RequestProgressCb progress_cb;
  void *data;
  SchedulerTask task; /* embedded: container_of gives the request back */
  Policy policy;      /* what the phases consult: plain, or a budget and plan (policy.h) */

  ReadResult result; /* files[i] written only by the lane or job that has i, until it is read */
  GString **frags;   /* frags[i]: file i's piece of the answer, formatted by its lane */
  bool *stat_only;   /* stat_only[i]: file i's entry is already what a file past the answer's
                        cap gets (its stat, taken past the cap; an expansion's refusal); written
                        by the lane that has i */
  Lane lanes[REQUEST_MAX_IN_FLIGHT];
  uv_work_t cancel_work; /* brings a cancelled request that has nothing running to its end */
  atomic_size_t next;    /* next file to claim; may run past the end */
  atomic_size_t formatted; /* bytes of the pieces of the files read so far, in any order */
  size_t *blocking;      /* files left to blocking jobs, not started yet (a queue) */
  size_t blocking_head, blocking_len;
  size_t in_flight; /* lanes and jobs queued or running */
  size_t completed; /* files read to the end, summed as lanes and jobs come back */
  atomic_bool cancelled;
  bool finished; /* done_cb was called */
  bool keep;     /* REQUEST_OUTPUT_NONE: nothing formatted, the files kept */

  /* The expansion phase (daemon/request/expand.h): paths[] becomes the files of folders and
   * globs. */
  uv_work_t expand_work;
  ExpandProbes *probes; /* the expansion's lookups when helpers share them, else NULL */
  Expansion expansion; /* its items, indexed like files[], until each file is done */
  Phase phase;         /* written on the loop thread between phases, while no lane runs */
  int expand_status;
  /* A continuation (continuation.h): the paths before expand_first made skip_before entries,
   * which the expansion does not look at; 0 and 0 otherwise. */
  ContentHash cont_key; /* the request's key there, when it expands */
  size_t expand_first, skip_before;
  size_t lead; /* entries of the first entry's path that skip left out just before it */

  atomic_size_t unread; /* files not read yet; the thread that brings it to 0 settles */
  GString **output;     /* the answer in pieces, NULL until assembled */
  size_t output_n;
  size_t failed;
};

/* Frees n pieces and the array; NULL is fine. */
void request_pieces_free(GString **pieces, size_t n);

/* File i's piece of the answer in the request's format, or NULL when formatting failed. */
GString *request_format_file(const Request *req, size_t i, int64_t image_index);

/* File i's entry replaced by what a file taken past the answer's cap gets, whatever was read of
 * it: what a stat alone says (path, size, time, etag, or the stat's own refusal), or an
 * expansion's refusal as it is; the expansion's `from` and notices stay. On the thread that
 * settles, once every file is read. */
void request_answer_from_stat(Request *req, size_t i);

/* f's tokens as the request's format prices them. */
static inline void request_count_tokens(const Request *req, FileResult *f) {
  file_result_count_tokens(f, &req->pricing);
}

/* The settle phase, once every file is read, on the thread that read the last one: the policy
 * keeps the whole answer within what it allows, then the answer is assembled from the files'
 * pieces in request order, within the answer's byte cap, into req->output (nothing for
 * REQUEST_OUTPUT_NONE: the files are kept). */
void settle_answer(Request *req);
