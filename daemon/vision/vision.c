#include "daemon/vision/vision.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "basic/macro.h"
#include "daemon/request/request.h"
#include "daemon/vision/http.h"
#include "daemon/vision/vision-result.h"
#include "formatters/result.h"

/* One read of the call: the first, of every file (index SIZE_MAX), or a second one of a file
 * whose pictures must shrink further (high's short side). */
typedef struct {
  VisionCall *call;
  size_t index;
  Request *req;
} VisionRead;

struct VisionCall {
  uv_loop_t *loop;
  ReadImagesParams params;
  VisionTarget target;
  Workspace *ws;
  VisionDoneCb done_cb;
  void *data;

  GPtrArray *reads; /* VisionRead *: the reads running */
  HttpTransfer *transfer;
  uv_work_t body_work; /* the request body, built on the pool */
  GArray *images;      /* VisionImage, borrowing result's pictures, while the body is built */
  char *body;
  size_t body_len;
  bool building;
  ReadResult result;
  char **details; /* the detail of each picture sent, in order; NULL-terminated */
  VisionAnswer answer;
  int status;
  char *error;
  long http_status;
  bool cancelled;
  bool finished;
};

/* The endpoint's address for messages: without user name, password or query. */
static char *safe_url(const VisionCall *call) {
  g_autofree char *url = vision_endpoint_url(call->target.provider, call->target.base_url);
  g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
  char *s;

  if (uri == NULL)
    return g_strdup("(an unparsable URL)");
  s = g_uri_to_string_partial(uri, G_URI_HIDE_USERINFO | G_URI_HIDE_QUERY | G_URI_HIDE_FRAGMENT);
  return s;
}

/* *text with the key replaced by "[redacted]"; NULL stays NULL. */
static void redact_in_place(char **text, const char *key) {
  char *clean = vision_redact(*text, key);

  g_free(*text);
  *text = clean;
}

static void finish(VisionCall *call, int status, long http_status, char *error) {
  call->status = status;
  call->http_status = http_status;
  /* An endpoint may quote the key it was sent. */
  call->error = vision_redact(error, call->target.api_key);
  g_free(error);
  call->finished = true;
  call->done_cb(call, call->data);
}

/* The detail of a picture sent: low and high as asked; auto by what is sent. */
static const char *detail_of(const VisionCall *call, const ImageOut *img) {
  switch (call->params.detail) {
  case READ_IMAGE_DETAIL_LOW:
    return "low";
  case READ_IMAGE_DETAIL_HIGH:
    return "high";
  default:
    return MAX(img->width, img->height) <= VISION_LOW_MAX_EDGE ? "low" : "high";
  }
}

static void http_done_cb(HttpTransfer *t, const HttpResult *res, void *data);

/* True when url's host is under azure.com (Azure OpenAI). */
static bool is_azure(const char *url) {
  g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, NULL);
  const char *host = uri != NULL ? g_uri_get_host(uri) : NULL;

  return host != NULL && g_str_has_suffix(host, ".azure.com");
}

/* Sends the body built on the pool (taken) to the endpoint. */
static void send_body(VisionCall *call, char *body, size_t body_len) {
  g_autoptr(GPtrArray) headers = g_ptr_array_new_with_free_func(g_free);
  g_autofree char *url = vision_endpoint_url(call->target.provider, call->target.base_url);
  HttpSpec spec = {.url = url, .body = body, .body_len = body_len};
  int r;

  g_ptr_array_add(headers, g_strdup("Content-Type: application/json"));
  g_ptr_array_add(headers, g_strdup("Accept: application/json"));
  if (call->target.provider == VISION_PROVIDER_ANTHROPIC) {
    g_ptr_array_add(headers, g_strdup("anthropic-version: " VISION_ANTHROPIC_VERSION));
    if (call->target.api_key != NULL)
      g_ptr_array_add(headers, g_strconcat("x-api-key: ", call->target.api_key, NULL));
  } else if (call->target.api_key != NULL && is_azure(call->target.base_url)) {
    /* Azure OpenAI reads a resource key from api-key (Authorization carries Entra tokens). */
    g_ptr_array_add(headers, g_strconcat("api-key: ", call->target.api_key, NULL));
  } else if (call->target.api_key != NULL) {
    g_ptr_array_add(headers, g_strconcat("Authorization: Bearer ", call->target.api_key, NULL));
  }
  g_ptr_array_add(headers, NULL);
  spec.headers = (const char *const *)headers->pdata;
  spec.connect_timeout_ms = call->target.connect_timeout_ms;
  spec.timeout_ms = call->target.timeout_ms;
  r = http_transfer_start(call->loop, &spec, http_done_cb, call, &call->transfer);
  /* The headers held the key: overwrite them. */
  for (guint i = 0; i + 1 < headers->len; i++)
    explicit_bzero(headers->pdata[i], strlen(headers->pdata[i]));
  if (r < 0) {
    g_autofree char *where = safe_url(call);

    finish(call, VISION_ERROR_ENDPOINT, 0,
           g_strdup_printf("cannot send to the vision endpoint at %s: %s", where,
                           r == -ELIBACC ? http_global_error() : g_strerror(-r)));
  }
}

/* The body holds every picture's base64 (up to the image budget, 20 MiB): built on the pool,
 * never on the loop. It touches only the call's images, which nothing else touches until it
 * is back. */
static void body_work_cb(uv_work_t *w) {
  VisionCall *call = container_of(w, VisionCall, body_work);
  VisionAsk q = {call->target.provider,
                 call->target.model,
                 call->params.query,
                 call->params.max_tokens,
                 (const VisionImage *)call->images->data,
                 call->images->len};

  call->body = vision_body_build(&q, &call->body_len);
  /* libcurl is loaded here, off the loop, on the first call; a failure is told when the body
   * is sent. */
  http_global_init();
}

static void body_after_cb(uv_work_t *w, int status) {
  VisionCall *call = container_of(w, VisionCall, body_work);
  char *body = g_steal_pointer(&call->body);

  g_clear_pointer(&call->images, g_array_unref);
  call->building = false;
  if (status < 0 || call->cancelled) {
    g_free(body);
    finish(call, -ECANCELED, 0, NULL);
    return;
  }
  send_body(call, body, call->body_len);
}

/* Gathers the pictures read, and has the request built. */
static void ask(VisionCall *call) {
  g_autoptr(GPtrArray) details = g_ptr_array_new();

  call->images = g_array_new(FALSE, TRUE, sizeof(VisionImage));
  for (size_t i = 0; i < call->result.n_files; i++) {
    const FileResult *f = &call->result.files[i];

    for (size_t j = 0; f->code == NULL && j < f->n_images; j++) {
      const ImageOut *img = &f->images[j];
      VisionImage vi = {img->media_type, img->data, img->data_len, detail_of(call, img)};

      g_array_append_val(call->images, vi);
      g_ptr_array_add(details, g_strdup(vi.detail));
    }
  }
  g_ptr_array_add(details, NULL);
  call->details = (char **)g_ptr_array_free(g_steal_pointer(&details), FALSE);
  if (call->images->len == 0) {
    g_clear_pointer(&call->images, g_array_unref);
    finish(call, VISION_ERROR_NO_IMAGE, 0,
           g_strdup("no image could be read from the files given: nothing was asked"));
    return;
  }
  call->building = true;
  uv_queue_work(call->loop, &call->body_work, body_work_cb, body_after_cb);
}

/* Why a transfer failed, in words, for an answer that never came. */
static char *transport_error(const VisionCall *call, const HttpResult *res) {
  g_autofree char *where = safe_url(call);

  switch (res->err) {
  case -ETIMEDOUT:
    return g_strdup_printf("the vision endpoint at %s did not answer in time (%s)", where,
                           res->message);
  case -ECONNREFUSED:
    return g_strdup_printf("cannot connect to the vision endpoint at %s (%s)", where, res->message);
  case -ECONNRESET:
    return g_strdup_printf("the vision endpoint at %s closed the connection without an answer "
                           "(%s)",
                           where, res->message);
  case -EFBIG:
    return g_strdup_printf("the vision endpoint at %s answered more than %zu MiB: refused", where,
                           HTTP_DEFAULT_MAX_RESPONSE / (1024 * 1024));
  default:
    return g_strdup_printf("the vision endpoint at %s failed: %s", where, res->message);
  }
}

static void http_done_cb(HttpTransfer *t, const HttpResult *res, void *data) {
  VisionCall *call = data;
  g_autofree char *where = NULL;
  char *err = NULL;
  int r;

  call->transfer = NULL;
  if (res->err == -ECANCELED) {
    finish(call, -ECANCELED, 0, NULL);
    return;
  }
  if (res->err != 0) {
    finish(call, VISION_ERROR_ENDPOINT, res->status, transport_error(call, res));
    return;
  }
  r = vision_response_parse(call->target.provider, res->status, res->body->str, res->body->len,
                            &call->answer, &err);
  if (r == 0) {
    /* An endpoint may quote the key it was sent in its answer, as in its errors. */
    redact_in_place(&call->answer.answer, call->target.api_key);
    redact_in_place(&call->answer.model, call->target.api_key);
    finish(call, 0, res->status, NULL);
    return;
  }
  where = safe_url(call);
  if (r == -EREMOTEIO)
    finish(call, VISION_ERROR_ENDPOINT, res->status,
           g_strdup_printf("the vision endpoint at %s answered HTTP %ld%s: %s", where, res->status,
                           res->attempts > 1 ? " (after one retry)" : "", err));
  else
    finish(call, VISION_ERROR_ENDPOINT, res->status,
           g_strdup_printf("the vision endpoint at %s answered HTTP %ld with no usable answer: %s",
                           where, res->status, err));
  g_free(err);
}

static void read_done_cb(Request *req, int status);

/* Starts a read of the call's paths (index SIZE_MAX), or of path `index` alone, sized to
 * max_dimension. */
static void start_read(VisionCall *call, size_t index, int max_dimension) {
  VisionRead *vr = g_new0(VisionRead, 1);
  size_t first = index == SIZE_MAX ? 0 : index;
  ReadParams rp;

  read_params_init(&rp);
  rp.n_paths = index == SIZE_MAX ? call->params.n_paths : 1;
  rp.paths = g_new0(PathSpec, rp.n_paths);
  for (size_t i = 0; i < rp.n_paths; i++) {
    rp.paths[i].path = g_strdup(call->params.paths[first + i]);
    rp.paths[i].pages = g_strdup(call->params.pages);
    rp.paths[i].render = true;
  }
  rp.cwd = g_strdup(call->params.cwd);
  rp.max_dimension = max_dimension;
  /* One picture per image file: a model asked about a figure wants all of it at once. */
  rp.image_tile = READ_IMAGE_TILE_NEVER;
  vr->call = call;
  vr->index = index;
  g_ptr_array_add(call->reads, vr);
  vr->req = request_start(call->loop, &rp, call->ws, REQUEST_OUTPUT_NONE, read_done_cb, vr);
}

/* The long edge that brings file f's pictures within high's short side, or 0 when they are. */
static int shrink_edge(const FileResult *f) {
  int edge = 0;

  for (size_t j = 0; f->code == NULL && j < f->n_images; j++) {
    int w = f->images[j].width, h = f->images[j].height, lo = MIN(w, h), hi = MAX(w, h);

    if (lo > VISION_HIGH_MAX_SHORT) {
      int e = MAX(READ_MIN_MAX_DIMENSION, (int)((int64_t)hi * VISION_HIGH_MAX_SHORT / lo));

      edge = edge == 0 ? e : MIN(edge, e);
    }
  }
  return edge;
}

/* The first read is in: what is not a picture is said so; high and auto pictures whose short
 * side passes VISION_HIGH_MAX_SHORT are read again smaller. */
static void first_read_done(VisionCall *call) {
  for (size_t i = 0; i < call->result.n_files; i++) {
    FileResult *f = &call->result.files[i];
    int edge;

    if (f->code != NULL)
      continue;
    if (f->type == FILE_TYPE_TEXT) {
      file_result_fail(f, CODE_UNSUPPORTED_FORMAT,
                       "a text file: readImages asks about images "
                       "and PDF pages; use read for text");
      continue;
    }
    if (f->n_images == 0) {
      file_result_fail(f, CODE_CONVERSION_FAILED, "no page of this PDF could be rendered");
      continue;
    }
    edge = call->params.detail == READ_IMAGE_DETAIL_LOW ? 0 : shrink_edge(f);
    if (edge > 0)
      start_read(call, i, edge);
  }
  if (call->reads->len == 0)
    ask(call);
}

static void read_done_cb(Request *req, int status) {
  VisionRead *vr = request_get_data(req);
  VisionCall *call = vr->call;
  bool first = vr->index == SIZE_MAX;
  ReadResult r = {0};

  g_ptr_array_remove_fast(call->reads, vr);
  if (status == 0)
    request_take_result(req, &r);
  request_free(req);
  if (first) {
    call->result = r;
  } else {
    /* The smaller pictures replace the first ones; should the second read fail, the first
     * ones go. */
    if (r.n_files == 1 && r.files[0].code == NULL && r.files[0].n_images > 0) {
      file_result_clear(&call->result.files[vr->index]);
      call->result.files[vr->index] = r.files[0];
      r.files[0] = (FileResult){0};
    }
    read_result_clear(&r);
  }
  g_free(vr);
  /* A read ends without its files only when it was cancelled. */
  if (status != 0)
    call->cancelled = true;
  if (call->reads->len > 0)
    return;
  if (call->cancelled)
    finish(call, -ECANCELED, 0, NULL);
  else if (first)
    first_read_done(call);
  else
    ask(call);
}

VisionCall *vision_call_start(uv_loop_t *loop, ReadImagesParams *params, VisionTarget *target,
                              Workspace *ws, VisionDoneCb done_cb, void *data) {
  VisionCall *call = g_new0(VisionCall, 1);

  call->loop = loop;
  call->params = *params;
  memset(params, 0, sizeof(*params));
  call->target = *target;
  memset(target, 0, sizeof(*target));
  call->ws = workspace_ref(ws);
  call->done_cb = done_cb;
  call->data = data;
  call->reads = g_ptr_array_new();
  start_read(call, SIZE_MAX,
             call->params.detail == READ_IMAGE_DETAIL_LOW ? VISION_LOW_MAX_EDGE
                                                          : VISION_HIGH_MAX_EDGE);
  return call;
}

void vision_call_cancel(VisionCall *call) {
  if (call == NULL || call->finished || call->cancelled)
    return;
  call->cancelled = true;
  for (guint i = 0; i < call->reads->len; i++)
    request_cancel(((VisionRead *)call->reads->pdata[i])->req);
  if (call->transfer != NULL)
    http_transfer_cancel(call->transfer);
  if (call->building)
    uv_cancel((uv_req_t *)&call->body_work);
}

int vision_call_status(const VisionCall *call) {
  return call->status;
}

static VisionReport report_of(const VisionCall *call) {
  return (VisionReport){
      .files = &call->result,
      .details = (const char *const *)call->details,
      .provider = call->target.provider,
      .answer = call->status == 0 ? &call->answer : NULL,
  };
}

char *vision_call_result_json(const VisionCall *call, size_t *ret_len) {
  VisionReport rep = report_of(call);

  return vision_result_json(&rep, ret_len);
}

char *vision_call_result_xml(const VisionCall *call) {
  VisionReport rep = report_of(call);

  return vision_result_xml(&rep);
}

const char *vision_call_answer(const VisionCall *call) {
  return call->answer.answer;
}

const char *vision_call_error(const VisionCall *call) {
  return call->error != NULL ? call->error : "cancelled";
}

char *vision_call_error_data(const VisionCall *call) {
  VisionReport rep = report_of(call);

  return vision_error_data_json(&rep, call->http_status);
}

const ReadResult *vision_call_files(const VisionCall *call) {
  return &call->result;
}

void *vision_call_get_data(const VisionCall *call) {
  return call->data;
}

void vision_call_free(VisionCall *call) {
  if (call == NULL)
    return;
  g_assert(call->finished);
  read_images_params_clear(&call->params);
  vision_target_clear(&call->target);
  workspace_unref(call->ws);
  g_ptr_array_free(call->reads, TRUE);
  read_result_clear(&call->result);
  g_strfreev(call->details);
  vision_answer_clear(&call->answer);
  g_free(call->error);
  g_free(call);
}
