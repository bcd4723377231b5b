/* One `read` request's phases (request-internal.h): the expansion, the measure and the read,
 * each one function per file on a lane and on a blocking job, consulting the request's policy
 * (policy.h); the settle phase is settle.c's. */
#include "daemon/request/request.h"

#include <stdatomic.h>
#include <string.h>

#include <glib.h>

#include "basic/macro.h"
#include "daemon/readers/reader.h"
#include "daemon/request/continuation.h"
#include "daemon/request/request-internal.h"

/* See request-internal.h. */
void request_pieces_free(GString **pieces, size_t n) {
  for (size_t i = 0; pieces != NULL && i < n; i++)
    g_string_free(pieces[i], TRUE);
  g_free(pieces);
}

/* See request-internal.h. */
GString *request_format_file(const Request *req, size_t i, int64_t image_index) {
  return format_file_piece(req->fmt, &req->result.files[i], i, image_index, &req->fopt);
}

/* File i was read: its piece is formatted now, in parallel with the others, while it is hot
 * in the cache. Only a file with images must wait: its image index depends on the files
 * before it. A file past the answer's cap (past_cap) is not formatted at all: settle_answer()
 * sums it up in the cap's summary, which it writes itself. */
static void file_done(Request *req, size_t i, bool past_cap) {
  FileResult *f = &req->result.files[i];

  if (req->expansion.items != NULL)
    expansion_apply(&req->expansion, i, f);
  request_count_tokens(req, f);
  policy_file_read(&req->policy, i, f);

  /* A file the budget left out may end in its summary: it is formatted at assembly, when
   * that is known. */
  if (!req->keep && !past_cap && (f->code != NULL || f->n_images == 0) &&
      g_strcmp0(f->omitted, OMITTED_BUDGET) != 0) {
    req->frags[i] = request_format_file(req, i, 0);
    /* The text now lives in the fragment. */
    g_clear_pointer(&f->content, g_free);
    if (req->frags[i] != NULL)
      atomic_fetch_add(&req->formatted, req->frags[i]->len);
  }
  /* The last file read settles the answer right here, on the pool: every other file's slot
   * was written before its own decrement. */
  if (atomic_fetch_sub_explicit(&req->unread, 1, memory_order_acq_rel) == 1)
    settle_answer(req);
}

/* The reader's options for file i, from the request's params and the path's own. */
static ReaderOptions reader_options(const Request *req, size_t i) {
  const ReadParams *p = &req->params;
  const PathSpec *spec = &p->paths[i];
  int64_t offset, column, tail;

  read_params_window(p, i, &offset, &column, &tail);
  return (ReaderOptions){
      .path = spec->path,
      .base = p->cwd,
      .offset = offset,
      .column = column,
      .tail = tail,
      .limit = spec->limit > 0 ? spec->limit : p->limit,
      .line_numbers = p->line_numbers,
      .pages = spec->pages,
      .password = spec->password,
      .render = spec->render,
      .max_dimension = p->max_dimension,
      .max_image_bytes = p->max_total_image_bytes,
      .client_etag = read_params_if_none_match(p, spec->path),
      .tile = p->image_tile == READ_IMAGE_TILE_NEVER    ? IMAGE_TILE_NEVER
              : p->image_tile == READ_IMAGE_TILE_ALWAYS ? IMAGE_TILE_ALWAYS
                                                        : IMAGE_TILE_AUTO,
      .tile_target = tokens_tile_target(&req->pricing),
      .max_tokens = policy_max_tokens(&req->policy, i),
      .expanded = req->expansion.items != NULL && req->expansion.items[i].expanded,
      .encoding = spec->encoding != NULL ? spec->encoding : p->encoding,
      .probe = req->expansion.items != NULL && req->expansion.items[i].probed
                   ? &req->expansion.items[i].probe
                   : NULL,
  };
}

/* expansion_answer(). Its refusal of a file (a pattern that matched nothing, the fence) is also
 * what the file gets past the answer's cap; a binary file it lists is given its stat there. */
static bool answer_expanded(Request *req, size_t i, FileResult *f) {
  if (!expansion_answer(&req->expansion, i, f))
    return false;
  req->stat_only[i] = f->code != NULL;
  return true;
}

/* File i is left to a blocking job of its own, started by the scheduler. */
static size_t defer(Lane *lane, size_t i) {
  lane->deferred[lane->n_deferred++] = i;
  return 1;
}

/* The measure phase of file i, on a lane: an expansion's binary file or empty pattern is
 * answered as it is, any other file measured by the policy, or left to a job when it must be
 * read whole to be priced. Returns 1 when that read its head, 0 when it cost a stat or nothing. */
static size_t measure_one(Request *req, Lane *lane, size_t i) {
  ReaderOptions o = reader_options(req, i);
  FileResult *f = &req->result.files[i];
  PolicyMeasured m;

  if (answer_expanded(req, i, f)) {
    policy_answered(&req->policy, i, f);
    lane->read++;
    return 0;
  }
  m = policy_measure(&req->policy, i, &o, req->ws, &req->cancelled, f);
  if (m == POLICY_MEASURE_JOB)
    return defer(lane, i);
  lane->read++;
  return m == POLICY_MEASURED_HEAD ? 1 : 0;
}

/* The measure phase of file i, on a blocking job: read whole to be priced. */
static void measure_job(Request *req, size_t i) {
  ReaderOptions o = reader_options(req, i);

  policy_measure_job(&req->policy, i, &o, req->ws, &req->cancelled, &req->result.files[i]);
}

/* True when every file claimed from now on is past the answer's cap: the pieces of files read
 * already, all claimed before, reach it, so any piece after them passes it. Only when nothing
 * changes a piece once formatted (no measure: no budget that binds, no plan) and pieces are
 * formatted at all. Before a claim. */
static bool request_past_cap(const Request *req) {
  return req->phase == PHASE_READ && !req->policy.ops->measures && !req->keep &&
         atomic_load(&req->formatted) >= req->params.max_answer_bytes;
}

/* File i, past the answer's cap, is summed up in its summary without being read: what the
 * summary says of it (its size) comes from a stat; nothing is opened for reading, and no
 * blocking job reads it. */
static void stat_past_cap(Request *req, const ReaderOptions *o, size_t i) {
  FileResult *f = &req->result.files[i];
  ReaderSample s;

  if (reader_measure(o, req->ws, &req->cancelled, 0, f, &s))
    f->lines = -1;
  req->stat_only[i] = true;
  file_done(req, i, true);
}

/* See request-internal.h. */
void request_answer_from_stat(Request *req, size_t i) {
  FileResult *f = &req->result.files[i], fresh = {0};
  ReaderOptions o = reader_options(req, i);
  ReaderSample s;

  if (req->stat_only[i])
    return;
  if (reader_measure(&o, req->ws, &req->cancelled, 0, &fresh, &s))
    fresh.lines = -1;
  /* Where it came from in paths[] and the notices after it are the expansion's, not the
   * read's: they stay. */
  fresh.expanded = f->expanded;
  fresh.from = f->from;
  fresh.notices = g_steal_pointer(&f->notices);
  fresh.n_notices = f->n_notices;
  f->n_notices = 0;
  file_result_clear(f);
  *f = fresh;
  req->stat_only[i] = true;
}

/* The read phase of file i, on a lane: a file the policy settled after the measure is done; one
 * it lists is counted from its head; any other is read when it is text, else left to a blocking
 * job. Returns 1 for a file read or counted or deferred, 0 for one settled. */
static size_t read_one(Request *req, Lane *lane, size_t i) {
  ReaderOptions o = reader_options(req, i);
  FileResult *f = &req->result.files[i];
  PolicyRead step = policy_read_step(&req->policy, i);
  bool counted =
      step == POLICY_COUNT && policy_count(&req->policy, i, &o, req->ws, &req->cancelled, f);

  if (step == POLICY_SETTLED) {
    file_done(req, i, false);
    lane->read++;
    return 0;
  }
  if (lane->past_cap && step == POLICY_READ) {
    if (answer_expanded(req, i, f))
      file_done(req, i, true);
    else
      stat_past_cap(req, &o, i);
    lane->read++;
    return 0;
  }
  if (counted || answer_expanded(req, i, f) || reader_read_text(&o, req->ws, &req->cancelled, f)) {
    file_done(req, i, false);
    lane->read++;
    return 1;
  }
  return defer(lane, i);
}

/* The read phase of file i, on a blocking job. */
static void read_job(Request *req, size_t i) {
  ReaderOptions o = reader_options(req, i);

  reader_read(&o, req->ws, &req->cancelled, &req->result.files[i]);
  file_done(req, i, false);
}

/* Each per-file phase's two functions: on a lane (returning what the file cost the lane's
 * slice), and on a blocking job. */
typedef struct {
  size_t (*lane)(Request *req, Lane *lane, size_t i);
  void (*job)(Request *req, size_t i);
} PhaseFiles;

static const PhaseFiles phase_files[] = {
    [PHASE_MEASURE] = {measure_one, measure_job},
    [PHASE_READ] = {read_one, read_job},
};

static void lane_work_cb(uv_work_t *w) {
  Lane *lane = container_of(w, Lane, work);
  Request *req = lane->req;
  gint64 until = g_get_monotonic_time() + REQUEST_SLICE_US;
  size_t cap = REQUEST_SLICE_FILES, slices = 1;

  /* n counts the files this slice read; a file a budget settled, or measured by a stat alone,
   * costs next to nothing and does not count (the time limit still holds). */
  for (size_t n = 0; !atomic_load(&req->cancelled);) {
    size_t i;

    /* The slice is over: without company the lane goes on for another one. */
    if (n >= cap || g_get_monotonic_time() >= until) {
      if (slices >= REQUEST_SLICES_ALONE || scheduler_company())
        break;
      slices++;
      cap = n + REQUEST_SLICE_FILES;
      until = g_get_monotonic_time() + REQUEST_SLICE_US;
    }
    /* Before the claim: the files whose pieces pass the cap were all claimed before this
     * one. */
    lane->past_cap = request_past_cap(req);
    i = atomic_fetch_add(&req->next, 1);
    if (i >= req->result.n_files)
      break;
    n += phase_files[req->phase].lane(req, lane, i);
  }
}

static void job_work_cb(uv_work_t *w) {
  Job *job = container_of(w, Job, work);
  Request *req = job->req;

  phase_files[req->phase].job(req, job->index);
  job->read = true;
}

static bool request_wants(SchedulerTask *t, SchedulerClass cls) {
  Request *req = container_of(t, Request, task);

  if (atomic_load(&req->cancelled))
    return false;
  if (cls == SCHEDULER_BLOCKING)
    return req->blocking_head < req->blocking_len;
  return t->running[SCHEDULER_LANE] < REQUEST_MAX_IN_FLIGHT &&
         atomic_load(&req->next) < req->result.n_files;
}

static void lane_after_cb(uv_work_t *w, int status);
static void job_after_cb(uv_work_t *w, int status);

static void request_start_unit(SchedulerTask *t, SchedulerClass cls) {
  Request *req = container_of(t, Request, task);

  req->in_flight++;
  if (cls == SCHEDULER_BLOCKING) {
    Job *job = g_new0(Job, 1);

    job->req = req;
    job->index = req->blocking[req->blocking_head++];
    uv_queue_work(req->loop, &job->work, job_work_cb, job_after_cb);
    return;
  }
  for (size_t k = 0; k < REQUEST_MAX_IN_FLIGHT; k++) {
    Lane *lane = &req->lanes[k];

    if (lane->req != NULL)
      continue;
    lane->req = req;
    uv_queue_work(req->loop, &lane->work, lane_work_cb, lane_after_cb);
    return;
  }
  g_assert_not_reached();
}

static const SchedulerOps request_scheduler_ops = {
    .wants = request_wants,
    .start = request_start_unit,
};

/* True when every file was read to the end (a cancelled file was not). */
static bool all_read(const Request *req) {
  /* Cancelled while expanding or measuring: nothing was read. */
  if (req->phase != PHASE_READ)
    return false;
  if (req->completed < req->result.n_files)
    return false;
  if (!atomic_load(&req->cancelled))
    return true;
  for (size_t i = 0; i < req->result.n_files; i++)
    if (g_strcmp0(req->result.files[i].code, CODE_CANCELLED) == 0)
      return false;
  return true;
}

/* Tells the progress callback, when there is one, how many files are read. */
static void report_progress(Request *req, size_t before) {
  /* The measure phase counts files too, but nothing is read yet. */
  if (req->phase != PHASE_READ)
    return;
  if (req->progress_cb != NULL && req->completed > before && !atomic_load(&req->cancelled))
    req->progress_cb(req, req->completed, req->result.n_files);
}

/* An answer that names a skip: where that entry lies in the request's paths, for the
 * continuation (continuation.h). Only an expansion's entries need it: without one, skip counts
 * the paths themselves. */
static void remember_continuation(const Request *req) {
  const ReadResult *r = &req->result;
  const ExpandItem *items = req->expansion.items;
  size_t cut = 0, from, n = 0;

  if (items == NULL)
    return;
  while (cut < r->n_files && r->files[cut].summary == NULL)
    cut++;
  if (cut == r->n_files || r->files[cut].summary->skip != req->params.skip + (int64_t)cut)
    return;
  /* Entries of one path are next to each other: those of the cut's path before it. */
  from = items[cut].from;
  while (n < cut && items[cut - n - 1].from == from)
    n++;
  if (n == cut)
    n += req->lead;
  continuation_remember(req->cont_key, r->files[cut].summary->skip, from,
                        (size_t)r->files[cut].summary->skip - n);
}

/* Finishes the request once nothing of it runs and nothing is left to start. Until then, the
 * scheduler starts its lanes and jobs as slots free. */
static void maybe_finish(Request *req) {
  bool ok;

  if (req->finished || req->in_flight > 0)
    return;
  if (!atomic_load(&req->cancelled) && req->completed < req->result.n_files)
    return;
  /* Every file measured: the policy decides, then the read starts from the first file. */
  if (req->phase == PHASE_MEASURE && !atomic_load(&req->cancelled)) {
    policy_decide(&req->policy, &req->result);
    req->phase = PHASE_READ;
    req->completed = 0;
    req->blocking_head = req->blocking_len = 0;
    atomic_store(&req->next, 0);
    scheduler_kick(&req->task);
    return;
  }
  scheduler_leave(&req->task);
  /* The answer was assembled on the pool by the last file's thread; the per-file data is no
   * longer needed. */
  ok = all_read(req);
  if (ok)
    remember_continuation(req);
  if (!req->keep || !ok)
    read_result_clear(&req->result);
  if (!ok)
    request_pieces_free(g_steal_pointer(&req->output), req->output_n);
  req->finished = true;
  req->done_cb(req, ok ? 0 : UV_ECANCELED);
}

static void lane_after_cb(uv_work_t *w, int status) {
  Lane *lane = container_of(w, Lane, work);
  Request *req = lane->req;
  size_t before = req->completed;

  req->in_flight--;
  req->completed += lane->read;
  for (size_t k = 0; k < lane->n_deferred; k++)
    req->blocking[req->blocking_len++] = lane->deferred[k];
  lane->read = 0;
  lane->n_deferred = 0;
  lane->req = NULL;
  scheduler_done(&req->task, SCHEDULER_LANE);
  report_progress(req, before);
  maybe_finish(req);
}

static void job_after_cb(uv_work_t *w, int status) {
  Job *job = container_of(w, Job, work);
  Request *req = job->req;
  size_t before = req->completed;

  req->in_flight--;
  req->completed += job->read ? 1 : 0;
  g_free(job);
  scheduler_done(&req->task, SCHEDULER_BLOCKING);
  report_progress(req, before);
  maybe_finish(req);
}

/* params.skip: the first entries of paths[] (expanded) are not answered; the continuation of
 * a budget's summary, which names this number. */
static void skip_paths(Request *req) {
  ReadParams *p = &req->params;
  /* A continuation's expansion began past the entries it remembered. */
  size_t k = MIN((size_t)p->skip - req->skip_before, p->n_paths);
  const ExpandItem *items = req->expansion.items;

  if (k == 0)
    return;
  /* The remembered place of a later cut counts the entries of its path left out here. */
  for (req->lead = 0; items != NULL && k < p->n_paths && req->lead < k &&
                      items[k - req->lead - 1].from == items[k].from;)
    req->lead++;
  for (size_t i = 0; i < k; i++) {
    g_free(p->paths[i].path);
    g_free(p->paths[i].pages);
    g_free(p->paths[i].password);
  }
  memmove(p->paths, p->paths + k, (p->n_paths - k) * sizeof *p->paths);
  p->n_paths -= k;
  if (req->expansion.items != NULL)
    expansion_drop_first(&req->expansion, k);
}

static void cancel_work_cb(uv_work_t *w);
static void cancel_after_cb(uv_work_t *w, int status);

/* The files' slots, once paths[] is final. */
static void request_setup_files(Request *req) {
  skip_paths(req);
  req->result.n_files = req->params.n_paths;
  req->result.files = g_new0(FileResult, req->result.n_files);
  req->result.budget = req->params.budget_tokens;
  req->result.plan = req->params.plan;
  /* After the expansion: the budget shares what it found. */
  policy_init(&req->policy, &req->params, req->fmt, &req->pricing,
              format_states_answer_tokens(req->fmt, &req->fopt));
  req->phase = req->policy.ops->measures ? PHASE_MEASURE : PHASE_READ;
  req->frags = g_new0(GString *, req->result.n_files);
  req->stat_only = g_new0(bool, req->result.n_files);
  req->blocking = g_new(size_t, req->result.n_files);
  atomic_init(&req->next, 0);
  atomic_init(&req->formatted, 0);
  atomic_init(&req->unread, req->result.n_files);
  /* skip past the last entry: an answer with none, which no file's thread assembles. It is
   * finished from the loop, as a request cancelled while waiting is. */
  if (req->result.n_files == 0) {
    settle_answer(req);
    policy_clear(&req->policy);
    req->phase = PHASE_READ;
    req->in_flight++;
    uv_queue_work(req->loop, &req->cancel_work, cancel_work_cb, cancel_after_cb);
  }
}

static void expand_work_cb(uv_work_t *w) {
  Request *req = container_of(w, Request, expand_work);

  req->expand_status = expand_paths(&req->params, req->expand_first, req->skip_before, req->ws,
                                    &req->cancelled, req->probes, &req->expansion);
}

/* A helper of the expansion's lookups: it holds the lookups, never the request, which goes on
 * without waiting for it to start. */
typedef struct {
  uv_work_t work;
  ExpandProbes *probes;
} ProbeHelper;

static void probe_work_cb(uv_work_t *w) {
  expand_probes_help(container_of(w, ProbeHelper, work)->probes);
}

static void probe_after_cb(uv_work_t *w, int status) {
  ProbeHelper *h = container_of(w, ProbeHelper, work);

  expand_probes_unref(h->probes);
  g_free(h);
}

/* Queues helpers for the lookups of a long list of paths: one a CPU besides the expansion's
 * own thread. */
static void request_share_probes(Request *req) {
  unsigned helpers = MIN(MAX(uv_available_parallelism(), 1) - 1, REQUEST_PROBE_HELPERS);

  if (helpers == 0 || !expand_probes_shared(&req->params, req->expand_first))
    return;
  req->probes = expand_probes_new(&req->params, req->expand_first, req->ws, &req->cancelled);
  for (unsigned k = 0; k < helpers; k++) {
    ProbeHelper *h = g_new0(ProbeHelper, 1);

    h->probes = expand_probes_ref(req->probes);
    uv_queue_work(req->loop, &h->work, probe_work_cb, probe_after_cb);
  }
}

static void expand_after_cb(uv_work_t *w, int status) {
  Request *req = container_of(w, Request, expand_work);

  req->in_flight--;
  if (status == 0 && req->expand_status == 0 && !atomic_load(&req->cancelled)) {
    expansion_take_paths(&req->expansion, &req->params);
    request_setup_files(req);
    scheduler_kick(&req->task);
  } else {
    atomic_store(&req->cancelled, true);
  }
  maybe_finish(req);
}

/* A request that expands: its key, and where its skip starts when an answer named it lately. */
static void find_continuation(Request *req) {
  const ReadParams *p = &req->params;
  size_t first, before;

  req->cont_key = continuation_key(p, req->ws);
  if (p->skip > 0 && continuation_find(req->cont_key, p->skip, &first, &before) &&
      first < p->n_paths && before <= (size_t)p->skip &&
      before + (p->n_paths - first) <= READ_MAX_PATHS) {
    req->expand_first = first;
    req->skip_before = before;
  }
}

Request *request_start(uv_loop_t *loop, ReadParams *params, Workspace *ws, RequestOutput output,
                       RequestDoneCb done_cb, void *data) {
  Request *req = g_new0(Request, 1);

  /* Before any lane formats, whoever starts the request (the daemon, the CLI, a test, a
   * fuzzer). */
  format_init();

  req->loop = loop;
  req->params = *params;
  read_params_init(params);
  req->ws = workspace_ref(ws);
  req->fmt = format_get(req->params.format);
  g_assert(req->fmt != NULL);
  req->pricing = format_pricing(req->fmt, req->params.image_detail == READ_IMAGE_DETAIL_LOW);
  req->fopt.bare = output == REQUEST_OUTPUT_BARE;
  req->keep = output == REQUEST_OUTPUT_NONE;
  req->fopt.detail = read_image_detail_name(req->params.image_detail);
  req->done_cb = done_cb;
  req->data = data;
  atomic_init(&req->cancelled, false);
  /* Folders and globs first, on the pool: the files' slots are known after. */
  if (expand_wanted(&req->params)) {
    req->phase = PHASE_EXPAND;
    find_continuation(req);
    /* Before the expansion is queued: it may start at once, and must find the lookups it
     * shares. */
    request_share_probes(req);
    req->in_flight++;
    uv_queue_work(loop, &req->expand_work, expand_work_cb, expand_after_cb);
  } else {
    request_setup_files(req);
  }
  scheduler_join(loop, &req->task, &request_scheduler_ops);
  return req;
}

static void cancel_work_cb(uv_work_t *w) {
}

static void cancel_after_cb(uv_work_t *w, int status) {
  Request *req = container_of(w, Request, cancel_work);

  req->in_flight--;
  maybe_finish(req);
}

void request_cancel(Request *req) {
  if (req->finished || atomic_load(&req->cancelled))
    return;
  atomic_store(&req->cancelled, true);
  /* Waiting for a slot, nothing of it runs that would come back: end it from the loop, never
   * from here (the caller may be walking its list of requests). */
  if (req->in_flight == 0) {
    req->in_flight++;
    uv_queue_work(req->loop, &req->cancel_work, cancel_work_cb, cancel_after_cb);
    return;
  }
  /* Lanes still queued behind other work can be dropped at once; jobs not started never
   * will be, and a running one stops at its next chunk. */
  for (size_t k = 0; k < REQUEST_MAX_IN_FLIGHT; k++)
    if (req->lanes[k].req != NULL)
      uv_cancel((uv_req_t *)&req->lanes[k].work);
}

Workspace *request_workspace(const Request *req) {
  return req->ws;
}

GString **request_take_output(Request *req, size_t *ret_n) {
  *ret_n = req->output_n;
  req->output_n = 0;
  return g_steal_pointer(&req->output);
}

void request_take_result(Request *req, ReadResult *ret) {
  *ret = req->result;
  req->result = (ReadResult){0};
}

void request_on_progress(Request *req, RequestProgressCb progress_cb) {
  req->progress_cb = progress_cb;
}

size_t request_failed_count(const Request *req) {
  return req->failed;
}

void *request_get_data(const Request *req) {
  return req->data;
}

void request_free(Request *req) {
  if (req == NULL)
    return;
  g_assert(req->finished);
  /* The fragments first: their count is params.n_paths, which read_params_clear() zeroes (the
   * result's own count is already 0 once the request finished). */
  for (size_t i = 0; req->frags != NULL && i < req->params.n_paths; i++)
    if (req->frags[i] != NULL)
      g_string_free(req->frags[i], TRUE);
  g_free(req->frags);
  g_free(req->stat_only);
  g_free(req->blocking);
  expansion_clear(&req->expansion);
  expand_probes_unref(req->probes);
  policy_clear(&req->policy);
  read_result_clear(&req->result);
  read_params_clear(&req->params);
  workspace_unref(req->ws);
  request_pieces_free(req->output, req->output_n);
  g_free(req);
}
