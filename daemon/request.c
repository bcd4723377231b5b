#include "daemon/request.h"

#include <stdatomic.h>
#include <string.h>

#include <glib.h>

#include "daemon/image.h"
#include "daemon/macro.h"
#include "daemon/reader.h"
#include "formatters/format.h"
#include "formatters/result.h"

typedef struct {
  uv_work_t work; /* embedded: container_of gives the task back */
  Request *req;
  size_t index;
  GString *frag; /* the file's piece of the answer in the request's format; NULL until formatted */
} FileTask;

struct Request {
  uv_loop_t *loop;
  ReadParams params;
  Workspace *ws;
  const Formatter *fmt; /* the request's format (params.format) */
  FormatOptions fopt;
  RequestDoneCb done_cb;
  void *data;

  ReadResult result; /* files[i] written only by the task for i until it completes */
  FileTask *tasks;
  size_t n_tasks;
  size_t next; /* next file to start */
  size_t in_flight;
  size_t completed; /* tasks that ran (not dropped by uv_cancel) */
  atomic_bool cancelled;
  bool finished; /* done_cb was called */

  atomic_size_t unread; /* files whose task has not run; the task that brings it to 0 assembles */
  GString **output;     /* the answer in pieces, NULL until assembled */
  size_t output_n;
  size_t failed;
};

static void pump(Request *req);

static void pieces_free(GString **pieces, size_t n) {
  for (size_t i = 0; pieces != NULL && i < n; i++)
    g_string_free(pieces[i], TRUE);
  g_free(pieces);
}

static void assemble(Request *req);

/* File i's piece of the answer in the request's format, or NULL when formatting failed. */
static GString *format_file(const Request *req, size_t i, int64_t image_index) {
  return format_file_piece(req->fmt, &req->result.files[i], i, image_index, &req->fopt);
}

static void file_work_cb(uv_work_t *w) {
  FileTask *t = container_of(w, FileTask, work);
  Request *req = t->req;
  FileResult *f = &req->result.files[t->index];

  reader_read(&req->params, t->index, req->ws, &req->cancelled, f);
  /* Format the file here, in parallel with the others, while it is hot in the cache. Only a
   * file with images must wait: its image index depends on the files before it. */
  if (f->code != NULL || f->n_images == 0) {
    t->frag = format_file(req, t->index, 0);
    /* The text now lives in the fragment. */
    g_clear_pointer(&f->content, g_free);
  }
  /* The last file read assembles the answer right here, on the pool: every other task wrote
   * its slot before its own decrement. */
  if (atomic_fetch_sub_explicit(&req->unread, 1, memory_order_acq_rel) == 1)
    assemble(req);
}

/* Assembles the answer from the files' fragments, as pieces to send in order: nothing is
 * copied again. */
static void assemble(Request *req) {
  size_t n = req->result.n_files, k = 0;
  GString **parts = g_new0(GString *, n + 2);
  int64_t image_index = 0;
  bool ok = true;

  /* The request's image limits need every file read; files with images are formatted below. */
  image_request_budget(&req->result, req->params.max_total_image_bytes, &req->cancelled);
  parts[k] = g_string_new(NULL);
  req->fmt->head(parts[k++], &req->result, &req->fopt);
  for (size_t i = 0; i < n; i++, k++) {
    FileResult *f = &req->result.files[i];

    if (f->code != NULL)
      req->failed++;
    parts[k] = g_steal_pointer(&req->tasks[i].frag);
    if (parts[k] == NULL)
      parts[k] = format_file(req, i, image_index);
    if (parts[k] == NULL) {
      parts[k] = g_string_new(NULL);
      ok = false;
    }
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
    /* Unless the tail writes the pictures, their base64 is now in the piece (or not sent at
     * all, in text): it need not be held twice. */
    for (size_t j = 0; !req->fmt->tail_uses_image_data && j < f->n_images; j++)
      g_clear_pointer(&f->images[j].data, g_free);
  }
  parts[k] = g_string_new(NULL);
  req->fmt->tail(parts[k++], &req->result, &req->fopt);
  if (!ok) {
    pieces_free(parts, k);
    return;
  }
  req->output = parts;
  req->output_n = k;
}

static void finish(Request *req, int status) {
  req->finished = true;
  req->done_cb(req, status);
}

static void file_after_cb(uv_work_t *w, int status) {
  FileTask *t = container_of(w, FileTask, work);
  Request *req = t->req;

  req->in_flight--;
  if (status == 0)
    req->completed++;
  pump(req);
}

/* True when every file was read to the end (a cancelled file was not). */
static bool all_read(const Request *req) {
  if (req->completed < req->result.n_files)
    return false;
  if (!atomic_load(&req->cancelled))
    return true;
  for (size_t i = 0; i < req->result.n_files; i++)
    if (g_strcmp0(req->result.files[i].code, CODE_CANCELLED) == 0)
      return false;
  return true;
}

/* Starts files while there is room, and finishes the request when nothing is left. */
static void pump(Request *req) {
  bool cancelled = atomic_load(&req->cancelled), ok;

  while (!cancelled && req->in_flight < REQUEST_MAX_IN_FLIGHT && req->next < req->result.n_files) {
    FileTask *t = &req->tasks[req->next];

    t->req = req;
    t->index = req->next++;
    req->in_flight++;
    uv_queue_work(req->loop, &t->work, file_work_cb, file_after_cb);
  }
  if (req->in_flight > 0)
    return;
  /* The answer was assembled on the pool by the last file's task; the per-file data is no
   * longer needed. */
  ok = all_read(req);
  read_result_clear(&req->result);
  if (!ok) {
    pieces_free(g_steal_pointer(&req->output), req->output_n);
    finish(req, UV_ECANCELED);
    return;
  }
  finish(req, 0);
}

Request *request_start(uv_loop_t *loop, ReadParams *params, Workspace *ws, RequestOutput output,
                       RequestDoneCb done_cb, void *data) {
  Request *req = g_new0(Request, 1);

  req->loop = loop;
  req->params = *params;
  read_params_init(params);
  req->ws = workspace_ref(ws);
  req->fmt = format_get(read_format_name(req->params.format));
  g_assert(req->fmt != NULL);
  req->fopt.bare = output == REQUEST_OUTPUT_BARE;
  req->fopt.detail = read_image_detail_name(req->params.image_detail);
  req->done_cb = done_cb;
  req->data = data;
  atomic_init(&req->cancelled, false);
  req->result.n_files = req->params.n_paths;
  req->result.files = g_new0(FileResult, req->result.n_files);
  req->n_tasks = req->result.n_files;
  atomic_init(&req->unread, req->n_tasks);
  req->tasks = g_new0(FileTask, req->n_tasks);
  pump(req);
  return req;
}

void request_cancel(Request *req) {
  if (req->finished || atomic_load(&req->cancelled))
    return;
  atomic_store(&req->cancelled, true);
  /* Tasks still queued behind other requests' work can be dropped at once. */
  for (size_t i = 0; i < req->next; i++)
    uv_cancel((uv_req_t *)&req->tasks[i].work);
}

GString **request_take_output(Request *req, size_t *ret_n) {
  *ret_n = req->output_n;
  req->output_n = 0;
  return g_steal_pointer(&req->output);
}

size_t request_failed_count(const Request *req) {
  return req->failed;
}

void *request_get_data(const Request *req) {
  return req->data;
}

void request_set_data(Request *req, void *data) {
  req->data = data;
}

void request_free(Request *req) {
  if (req == NULL)
    return;
  g_assert(req->finished);
  read_result_clear(&req->result);
  read_params_clear(&req->params);
  workspace_unref(req->ws);
  for (size_t i = 0; req->tasks != NULL && i < req->n_tasks; i++)
    if (req->tasks[i].frag != NULL)
      g_string_free(req->tasks[i].frag, TRUE);
  g_free(req->tasks);
  pieces_free(req->output, req->output_n);
  g_free(req);
}
