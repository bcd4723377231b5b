#include "daemon/request.h"

#include <stdatomic.h>

#include <glib.h>

#include "daemon/macro.h"
#include "daemon/reader.h"
#include "formatters/result-json.h"
#include "formatters/result.h"
#include "formatters/xml.h"

typedef struct {
  uv_work_t work; /* embedded: container_of gives the task back */
  Request *req;
  size_t index;
} FileTask;

struct Request {
  uv_loop_t *loop;
  ReadParams params;
  char *root;
  RequestOutput output_kind;
  RequestDoneCb done_cb;
  void *data;

  ReadResult result;   /* files[i] written only by the task for i until it completes */
  FileTask *tasks;
  size_t next;         /* next file to start */
  size_t in_flight;
  size_t completed;    /* tasks that ran (not dropped by uv_cancel) */
  atomic_bool cancelled;
  bool finished;       /* done_cb was called */

  uv_work_t format_work;
  char *output;
  size_t output_len;
  size_t failed;
};

static void pump(Request *req);

static void file_work_cb(uv_work_t *w) {
  FileTask *t = container_of(w, FileTask, work);
  Request *req = t->req;

  reader_read(&req->params, t->index, req->root, &req->cancelled, &req->result.files[t->index]);
}

static void format_work_cb(uv_work_t *w) {
  Request *req = container_of(w, Request, format_work);
  size_t xml_len = 0;
  char *xml = xml_format(&req->result, &xml_len);

  for (size_t i = 0; i < req->result.n_files; i++)
    if (req->result.files[i].code != NULL)
      req->failed++;
  if (req->output_kind == REQUEST_OUTPUT_XML) {
    req->output = xml;
    req->output_len = xml_len;
    return;
  }
  req->output = result_json_format(&req->result, xml != NULL ? xml : "", &req->output_len);
  g_free(xml);
}

static void finish(Request *req, int status) {
  req->finished = true;
  req->done_cb(req, status);
}

static void format_after_cb(uv_work_t *w, int status) {
  Request *req = container_of(w, Request, format_work);

  /* The result is formatted; the per-file data is no longer needed. */
  read_result_clear(&req->result);
  finish(req, status);
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
  bool cancelled = atomic_load(&req->cancelled);

  while (!cancelled && req->in_flight < REQUEST_MAX_IN_FLIGHT && req->next < req->result.n_files) {
    FileTask *t = &req->tasks[req->next];

    t->req = req;
    t->index = req->next++;
    req->in_flight++;
    uv_queue_work(req->loop, &t->work, file_work_cb, file_after_cb);
  }
  if (req->in_flight > 0)
    return;
  if (!all_read(req)) {
    /* Cancelled before every file was read: nothing to format. */
    read_result_clear(&req->result);
    finish(req, UV_ECANCELED);
    return;
  }
  /* Formatting megabytes of XML and JSON is work too: keep it off the loop thread. */
  uv_queue_work(req->loop, &req->format_work, format_work_cb, format_after_cb);
}

Request *request_start(uv_loop_t *loop, ReadParams *params, const char *root, RequestOutput output,
                       RequestDoneCb done_cb, void *data) {
  Request *req = g_new0(Request, 1);

  req->loop = loop;
  req->params = *params;
  read_params_init(params);
  req->root = g_strdup(root);
  req->output_kind = output;
  req->done_cb = done_cb;
  req->data = data;
  atomic_init(&req->cancelled, false);
  req->result.n_files = req->params.n_paths;
  req->result.files = g_new0(FileResult, req->result.n_files);
  req->tasks = g_new0(FileTask, req->result.n_files);
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

char *request_take_output(Request *req, size_t *ret_len) {
  char *out = req->output;

  if (ret_len != NULL)
    *ret_len = req->output_len;
  req->output = NULL;
  req->output_len = 0;
  return out;
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
  g_free(req->root);
  g_free(req->tasks);
  g_free(req->output);
  g_free(req);
}
