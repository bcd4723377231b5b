#include "daemon/request.h"

#include <stdatomic.h>
#include <string.h>

#include <glib.h>
#include <libxml/parser.h>

#include "daemon/image.h"
#include "daemon/macro.h"
#include "daemon/reader.h"
#include "formatters/format.h"
#include "formatters/result.h"

/* One of a request's lanes: a pool task that claims files one after another, for a short slice
 * of time, then hands back to the loop, which queues it again while files are left. A task per
 * file would cost two thread switches per file; a lane that never gave back would hold its
 * thread while other requests wait. */
typedef struct {
  uv_work_t work; /* embedded: container_of gives the lane back */
  Request *req;   /* set while the lane is queued or running */
  size_t read;    /* files this slice read to the end */
} Lane;

struct Request {
  uv_loop_t *loop;
  ReadParams params;
  Workspace *ws;
  const Formatter *fmt; /* the request's format (params.format) */
  FormatOptions fopt;
  RequestDoneCb done_cb;
  void *data;

  ReadResult result; /* files[i] written only by the lane that claimed i, until it is read */
  GString **frags;   /* frags[i]: file i's piece of the answer, formatted by its lane */
  Lane lanes[REQUEST_MAX_IN_FLIGHT];
  size_t n_lanes;
  atomic_size_t next; /* next file to claim; may run past the end */
  size_t in_flight;   /* lanes queued or running */
  size_t completed;   /* files read to the end, summed as lanes come back */
  atomic_bool cancelled;
  bool finished; /* done_cb was called */

  atomic_size_t unread; /* files not read yet; the lane that brings it to 0 assembles */
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

/* Reads file i and formats its piece, in parallel with the others, while it is hot in the
 * cache. Only a file with images must wait: its image index depends on the files before it. */
static void read_one(Request *req, size_t i) {
  FileResult *f = &req->result.files[i];

  reader_read(&req->params, i, req->ws, &req->cancelled, f);
  if (f->code != NULL || f->n_images == 0) {
    req->frags[i] = format_file(req, i, 0);
    /* The text now lives in the fragment. */
    g_clear_pointer(&f->content, g_free);
  }
  /* The last file read assembles the answer right here, on the pool: every other file's slot
   * was written before its own decrement. */
  if (atomic_fetch_sub_explicit(&req->unread, 1, memory_order_acq_rel) == 1)
    assemble(req);
}

static void lane_work_cb(uv_work_t *w) {
  Lane *lane = container_of(w, Lane, work);
  Request *req = lane->req;
  gint64 until = g_get_monotonic_time() + REQUEST_SLICE_US;

  for (size_t n = 0; n < REQUEST_SLICE_FILES && !atomic_load(&req->cancelled); n++) {
    size_t i = atomic_fetch_add(&req->next, 1);

    if (i >= req->result.n_files)
      break;
    read_one(req, i);
    lane->read++;
    if (g_get_monotonic_time() >= until)
      break;
  }
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
    parts[k] = g_steal_pointer(&req->frags[i]);
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

static void lane_after_cb(uv_work_t *w, int status) {
  Lane *lane = container_of(w, Lane, work);
  Request *req = lane->req;

  req->in_flight--;
  req->completed += lane->read;
  lane->read = 0;
  lane->req = NULL;
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

/* Queues the lanes that are idle while files are left, and finishes the request when nothing
 * is. Lanes go to the back of the pool's queue, behind other requests' work. */
static void pump(Request *req) {
  bool cancelled = atomic_load(&req->cancelled), ok;

  for (size_t k = 0; k < req->n_lanes && !cancelled; k++) {
    Lane *lane = &req->lanes[k];

    if (lane->req != NULL || atomic_load(&req->next) >= req->result.n_files)
      continue;
    lane->req = req;
    req->in_flight++;
    uv_queue_work(req->loop, &lane->work, lane_work_cb, lane_after_cb);
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
  static gsize xml_ready = 0;
  Request *req = g_new0(Request, 1);

  /* libxml2 sets up its global state lazily, and not safely from several threads at once: do
   * it here, before any lane formats, whoever calls (the daemon, the CLI, a test, a fuzzer). */
  if (g_once_init_enter(&xml_ready)) {
    xmlInitParser();
    g_once_init_leave(&xml_ready, 1);
  }

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
  req->frags = g_new0(GString *, req->result.n_files);
  req->n_lanes = MIN(req->result.n_files, (size_t)REQUEST_MAX_IN_FLIGHT);
  atomic_init(&req->next, 0);
  atomic_init(&req->unread, req->result.n_files);
  pump(req);
  return req;
}

void request_cancel(Request *req) {
  if (req->finished || atomic_load(&req->cancelled))
    return;
  atomic_store(&req->cancelled, true);
  /* Lanes still queued behind other requests' work can be dropped at once. */
  for (size_t k = 0; k < req->n_lanes; k++)
    if (req->lanes[k].req != NULL)
      uv_cancel((uv_req_t *)&req->lanes[k].work);
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
  read_result_clear(&req->result);
  read_params_clear(&req->params);
  workspace_unref(req->ws);
  pieces_free(req->output, req->output_n);
  g_free(req);
}
