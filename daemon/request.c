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

  atomic_size_t unread; /* files whose task has not run; the task that brings it to 0 assembles */
  GString **output;   /* the answer in pieces, NULL until assembled */
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
  /* The last file read assembles the answer right here, on the pool: every other task wrote
   * its slot before its own decrement. */
  if (atomic_fetch_sub_explicit(&req->unread, 1, memory_order_acq_rel) == 1)
    assemble(req);
}

/* Assembles the answer from the files' fragments, as pieces to send in order: nothing is
 * copied again. */
static void assemble(Request *req) {
  size_t n = req->result.n_files, k = 0;
  bool json = req->output_kind == REQUEST_OUTPUT_RESULT_JSON;
  GString **parts = g_new0(GString *, n + 4);
  int64_t bytes, lines, image_index = 0;
  bool ok = true;

  read_result_totals(&req->result, &bytes, &lines);
  if (json)
    parts[k++] = g_string_new(RESULT_JSON_HEAD);
  parts[k] = g_string_new(NULL);
  xml_format_open(parts[k], bytes, lines);
  parts[k] = output_piece(req, parts[k]);
  k++;
  for (size_t i = 0; i < n; i++, k++) {
    const FileResult *f = &req->result.files[i];

    if (f->code != NULL)
      req->failed++;
    parts[k] = g_steal_pointer(&req->tasks[i].frag);
    if (parts[k] == NULL)
      parts[k] = format_file(req, f, image_index);
    if (parts[k] == NULL) {
      parts[k] = g_string_new(NULL);
      ok = false;
    }
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  parts[k++] = output_piece(req, g_string_new(XML_RESULTS_CLOSE));
  if (json) {
    parts[k] = g_string_new(NULL);
    result_json_format_rest(parts[k++], &req->result);
  }
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
  g_free(req->root);
  for (size_t i = 0; req->tasks != NULL && i < req->n_tasks; i++)
    if (req->tasks[i].frag != NULL)
      g_string_free(req->tasks[i].frag, TRUE);
  g_free(req->tasks);
  pieces_free(req->output, req->output_n);
  g_free(req);
}
