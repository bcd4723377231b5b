#include "daemon/rpc-vision.h"

#include <errno.h>
#include <string.h>

#include <glib.h>

#include "daemon/log.h"
#include "daemon/reply.h"
#include "daemon/vision/vision.h"
#include "ipc/read-images-params.h"

/* One call in flight. */
typedef struct {
  RpcVision *rv; /* NULL once detached: the call frees itself when it ends */
  JsonNode *id;  /* owned */
  char *key;
  VisionCall *call;
} Entry;

struct RpcVision {
  Conn *conn;
  RpcVisionAnswerFn answer;
  VisionSettings settings; /* initialize's */
  GPtrArray *calls;        /* Entry * */
};

RpcVision *rpc_vision_new(Conn *c, RpcVisionAnswerFn answer) {
  RpcVision *rv = g_new0(RpcVision, 1);

  rv->conn = c;
  rv->answer = answer;
  rv->calls = g_ptr_array_new();
  return rv;
}

static void entry_free(Entry *e) {
  vision_call_free(e->call);
  json_node_unref(e->id);
  g_free(e->key);
  g_free(e);
}

void rpc_vision_close(RpcVision *rv) {
  /* Cancelling answers later, from the loop: the list is not walked while it changes. */
  for (guint i = 0; i < rv->calls->len; i++) {
    Entry *e = rv->calls->pdata[i];

    e->rv = NULL;
    vision_call_cancel(e->call);
  }
  g_ptr_array_set_size(rv->calls, 0);
}

void rpc_vision_free(RpcVision *rv) {
  if (rv == NULL)
    return;
  rpc_vision_close(rv);
  g_ptr_array_free(rv->calls, TRUE);
  vision_settings_clear(&rv->settings);
  g_free(rv);
}

int rpc_vision_initialize(RpcVision *rv, JsonNode *params, char **ret_error) {
  VisionSettings s;

  if (vision_settings_parse(params, &s, ret_error) < 0)
    return -EINVAL;
  vision_settings_clear(&rv->settings);
  rv->settings = s;
  return 0;
}

static void send_answer(RpcVision *rv, Entry *e) {
  Conn *c = rv->conn;
  int status = vision_call_status(e->call);
  size_t len;
  char *line;

  if (status != 0 && status != -ECANCELED)
    log_info("readImages: %s", vision_call_error(e->call));
  if (rv->answer != NULL) {
    if (status != -ECANCELED)
      rv->answer(c, e->id, e->call);
    return;
  }
  if (status == 0) {
    g_autofree char *result = vision_call_result_json(e->call, &len);

    line = jsonrpc_format_result(e->id, result, len, &len);
  } else if (status == -ECANCELED) {
    line = jsonrpc_format_error(e->id, JSONRPC_REQUEST_CANCELLED, "request cancelled", &len);
  } else {
    g_autofree char *data = vision_call_error_data(e->call);

    line = jsonrpc_format_error_data(e->id, status, vision_call_error(e->call), data, &len);
  }
  conn_send_line(c, line, len);
}

static void call_done_cb(VisionCall *call, void *data) {
  Entry *e = data;
  RpcVision *rv = e->rv;

  if (rv != NULL) {
    g_ptr_array_remove(rv->calls, e);
    if (!conn_is_closing(rv->conn)) {
      send_answer(rv, e);
      conn_progress(rv->conn);
    }
  }
  entry_free(e);
}

int rpc_vision_start(RpcVision *rv, JsonNode *id, ReadImagesParams *params, Workspace *ws,
                     char **ret_error) {
  VisionTarget target;
  Entry *e;

  if (rv->calls->len >= RPC_VISION_MAX_CALLS) {
    read_images_params_clear(params);
    *ret_error = g_strdup_printf("at most %d readImages requests run at once on a connection",
                                 RPC_VISION_MAX_CALLS);
    return -EBUSY;
  }
  if (vision_target_resolve(&rv->settings, &params->call, &target, ret_error) < 0) {
    read_images_params_clear(params);
    return -EINVAL;
  }
  log_debug("readImages: %zu file(s) for model %s (%s)", params->n_paths, target.model,
            vision_provider_name(target.provider));
  e = g_new0(Entry, 1);
  e->rv = rv;
  e->id = json_node_copy(id);
  e->key = jsonrpc_id_key(id);
  g_ptr_array_add(rv->calls, e);
  e->call = vision_call_start(conn_loop(rv->conn), params, &target, ws, call_done_cb, e);
  return 0;
}

void rpc_vision_request(RpcVision *rv, const JsonrpcMessage *msg, Workspace *ws) {
  g_autofree char *err = NULL;
  ReadImagesParams params;
  int r;

  if (read_images_params_parse(msg->params, &params, &err) < 0) {
    reply_error(rv->conn, msg->id, JSONRPC_INVALID_PARAMS, err);
    return;
  }
  r = rpc_vision_start(rv, msg->id, &params, ws, &err);
  if (r < 0)
    reply_error(rv->conn, msg->id, r == -EBUSY ? JSONRPC_INVALID_REQUEST : JSONRPC_INVALID_PARAMS,
                err);
}

void rpc_vision_cancel(RpcVision *rv, const char *key) {
  for (guint i = 0; i < rv->calls->len; i++) {
    Entry *e = rv->calls->pdata[i];

    if (g_strcmp0(e->key, key) == 0)
      vision_call_cancel(e->call);
  }
}

bool rpc_vision_idle(const RpcVision *rv) {
  return rv->calls->len == 0;
}
