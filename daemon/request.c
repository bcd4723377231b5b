#include "daemon/request.h"

#include <stdatomic.h>
#include <string.h>

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
  GString *frag;  /* the file's <Content>, JSON-escaped for RESULT_JSON; NULL until formatted */
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
  size_t n_tasks;
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

/* Converts an XML piece to what the output needs: itself, or its JSON-escaped form. */
static GString *output_piece(const Request *req, GString *xml) {
  GString *j;

  if (req->output_kind == REQUEST_OUTPUT_XML)
    return xml;
  j = g_string_sized_new(xml->len + xml->len / 16 + 16);
  result_json_escape(j, xml->str, xml->len);
  g_string_free(xml, TRUE);
  return j;
}

/* f's <Content> ready for the output, or NULL when libxml2 failed. */
static GString *format_file(const Request *req, const FileResult *f, int64_t image_index) {
  GString *xml = g_string_sized_new(f->content_len + f->content_len / 32 + 512);

  if (xml_format_content(xml, f, image_index) < 0) {
    g_string_free(xml, TRUE);
    return NULL;
  }
  return output_piece(req, xml);
}

static void file_work_cb(uv_work_t *w) {
  FileTask *t = container_of(w, FileTask, work);
  Request *req = t->req;
  FileResult *f = &req->result.files[t->index];

  reader_read(&req->params, t->index, req->root, &req->cancelled, f);
  /* Format the file here, in parallel with the others, while it is hot in the cache. Only a
   * file with images must wait: its image index depends on the files before it. */
  if (f->code != NULL || f->n_images == 0) {
    t->frag = format_file(req, f, 0);
    /* The text now lives in the fragment. */
    g_clear_pointer(&f->content, g_free);
  }
}

/* Concatenates pieces into one NUL-terminated buffer. */
static char *concat(GString **parts, size_t n, size_t *ret_len) {
  size_t len = 0;
  char *out, *o;

  for (size_t i = 0; i < n; i++)
    len += parts[i]->len;
  out = o = g_malloc(len + 1);
  for (size_t i = 0; i < n; i++) {
    memcpy(o, parts[i]->str, parts[i]->len);
    o += parts[i]->len;
  }
  *o = '\0';
  *ret_len = len;
  return out;
}

/* Assembles the answer from the files' fragments: the copies are the only work left. */
static void format_work_cb(uv_work_t *w) {
  Request *req = container_of(w, Request, format_work);
  size_t n = req->result.n_files;
  GString **parts = g_new0(GString *, n + 2);
  int64_t bytes, lines, image_index = 0;
  bool ok = true;

  read_result_totals(&req->result, &bytes, &lines);
  parts[0] = g_string_new(NULL);
  xml_format_open(parts[0], bytes, lines);
  parts[0] = output_piece(req, parts[0]);
  for (size_t i = 0; i < n; i++) {
    const FileResult *f = &req->result.files[i];

    if (f->code != NULL)
      req->failed++;
    parts[i + 1] = g_steal_pointer(&req->tasks[i].frag);
    if (parts[i + 1] == NULL)
      parts[i + 1] = format_file(req, f, image_index);
    if (parts[i + 1] == NULL) {
      parts[i + 1] = g_string_new(NULL);
      ok = false;
    }
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  parts[n + 1] = output_piece(req, g_string_new(XML_RESULTS_CLOSE));
  if (!ok)
    req->output = NULL;
  else if (req->output_kind == REQUEST_OUTPUT_XML)
    req->output = concat(parts, n + 2, &req->output_len);
  else
    req->output = result_json_format_escaped(&req->result, (const GString *const *)parts, n + 2,
                                             &req->output_len);
  for (size_t i = 0; i < n + 2; i++)
    g_string_free(parts[i], TRUE);
  g_free(parts);
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
  req->n_tasks = req->result.n_files;
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
  for (size_t i = 0; req->tasks != NULL && i < req->n_tasks; i++)
    if (req->tasks[i].frag != NULL)
      g_string_free(req->tasks[i].frag, TRUE);
  g_free(req->tasks);
  g_free(req->output);
  g_free(req);
}
