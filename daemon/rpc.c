#include "daemon/rpc.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/read-queue.h"
#include "daemon/reply.h"
#include "daemon/request.h"
#include "daemon/rpc-vision.h"
#include "daemon/readers/workspace.h"
#include "ipc/initialize-params.h"
#include "ipc/initialize-result.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-params.h"

typedef struct {
  Workspace *ws; /* from initialize; NULL until then */
  ReadQueue *reads;
  RpcVision *vision; /* readImages */
  bool shutdown_received;
} Rpc;

static Rpc *rpc_of(const Conn *c) {
  return conn_state(c);
}

static void read_done_cb(Conn *c, ReadCall *call, Request *req, int status);

static void *rpc_new_state(Conn *c) {
  Rpc *r = g_new0(Rpc, 1);

  r->reads = read_queue_new(c, REQUEST_OUTPUT_RESULT_JSON, read_done_cb, NULL, NULL);
  r->vision = rpc_vision_new(c, NULL);
  return r;
}

static void rpc_free_state(void *state) {
  Rpc *r = state;

  read_queue_free(r->reads);
  rpc_vision_free(r->vision);
  workspace_unref(r->ws);
  g_free(r);
}

/* Sends a request's result without copying it: the envelope's head, the result's pieces as
 * they were formatted on the pool, the envelope's tail, in one vectored write. */
static void send_request_result(Conn *c, JsonNode *id, Request *req) {
  static const char tail[] = JSONRPC_RESULT_TAIL;
  size_t head_len, n;
  GString **pieces = request_take_output(req, &n);
  char *head;

  if (pieces == NULL) {
    reply_error(c, id, JSONRPC_INTERNAL_ERROR, "formatting the result failed");
    return;
  }
  head = jsonrpc_format_result_head(id, &head_len);
  conn_send_pieces(c, head, head_len, pieces, n, tail, sizeof(tail) - 1);
}

static void read_done_cb(Conn *c, ReadCall *call, Request *req, int status) {
  if (status == 0)
    send_request_result(c, call->id, req);
  else
    reply_error(c, call->id, JSONRPC_REQUEST_CANCELLED, "request cancelled");
}

static void rpc_progress(Conn *c) {
  Rpc *r = rpc_of(c);

  read_queue_start(r->reads, r->ws);
}

static bool rpc_busy(Conn *c) {
  return read_queue_busy(rpc_of(c)->reads);
}

static bool rpc_idle(Conn *c) {
  return read_queue_idle(rpc_of(c)->reads) && rpc_vision_idle(rpc_of(c)->vision);
}

/* A rootPath must be an existing folder, fence or not: relative paths would otherwise
 * resolve against nothing. One stat(2) on the loop, as a path given once per connection. */
static int root_path_check(const char *root, char **ret_error) {
  struct stat st;

  if (root == NULL || (stat(root, &st) == 0 && S_ISDIR(st.st_mode)))
    return 0;
  *ret_error = g_strdup_printf("rootPath %s is not a folder", root);
  return -EINVAL;
}

static void handle_initialize(Conn *c, const JsonrpcMessage *msg) {
  g_autofree char *result = NULL, *err = NULL;
  Rpc *r = rpc_of(c);
  InitializeParams p;
  Workspace *ws = NULL;

  if (initialize_params_parse(msg->params, &p, &err) < 0 ||
      root_path_check(p.root_path, &err) < 0 ||
      workspace_new(p.root_path, p.confine, (const char *const *)p.exclude, &ws, &err) < 0 ||
      rpc_vision_initialize(r->vision, msg->params, &err) < 0) {
    workspace_unref(ws);
    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS, err);
    initialize_params_clear(&p);
    return;
  }
  initialize_params_clear(&p);
  /* Requests already running keep the workspace they started with. */
  workspace_unref(r->ws);
  r->ws = ws;
  result = initialize_result_json();
  reply_result(c, msg->id, result);
}

/* Queues a read (len: its message's length), and starts it when the connection may. */
static void handle_read(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *err = NULL;
  Rpc *r = rpc_of(c);
  ReadParams params;

  read_params_init(&params);
  if (read_params_parse(msg->params, &params, &err) < 0) {
    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS, err);
    return;
  }
  read_queue_add(r->reads, msg->id, &params, len, NULL);
  read_queue_start(r->reads, r->ws);
}

static void handle_cancel(Conn *c, const JsonrpcMessage *msg) {
  g_autofree char *key = NULL;
  JsonNode *id;

  if (msg->params == NULL || !JSON_NODE_HOLDS_OBJECT(msg->params))
    return;
  id = json_object_get_member(json_node_get_object(msg->params), "id");
  key = id != NULL ? jsonrpc_id_key(id) : NULL;
  if (key != NULL) {
    read_queue_cancel(rpc_of(c)->reads, key);
    rpc_vision_cancel(rpc_of(c)->vision, key);
  }
}

static void handle_request(Conn *c, const JsonrpcMessage *msg, size_t len) {
  Rpc *r = rpc_of(c);
  const char *m = msg->method;

  if (strcmp(m, "initialize") == 0) {
    handle_initialize(c, msg);
  } else if (strcmp(m, "read") == 0) {
    if (r->shutdown_received)
      reply_error(c, msg->id, JSONRPC_INVALID_REQUEST, "the client asked for shutdown");
    else
      handle_read(c, msg, len);
  } else if (strcmp(m, "readImages") == 0) {
    if (r->shutdown_received)
      reply_error(c, msg->id, JSONRPC_INVALID_REQUEST, "the client asked for shutdown");
    else
      rpc_vision_request(r->vision, msg, r->ws);
  } else if (strcmp(m, "shutdown") == 0) {
    r->shutdown_received = true;
    reply_result(c, msg->id, "null");
  } else if (strcmp(m, "$/cancelRequest") == 0) {
    handle_cancel(c, msg);
    reply_result(c, msg->id, "null");
  } else {
    g_autofree char *text = g_strdup_printf("unknown method: %s", m);

    reply_error(c, msg->id, JSONRPC_METHOD_NOT_FOUND, text);
  }
}

static void handle_notification(Conn *c, const JsonrpcMessage *msg) {
  if (strcmp(msg->method, "$/cancelRequest") == 0) {
    handle_cancel(c, msg);
  } else if (strcmp(msg->method, "exit") == 0) {
    /* As in LSP: exit without shutdown first is a failure; end of input is not. */
    conn_set_exit_status(c, rpc_of(c)->shutdown_received ? 0 : 1);
    conn_end(c);
  }
  /* Other notifications are never answered. */
}

static const ReplyDispatch rpc_dispatch = {
    .request = handle_request,
    .notification = handle_notification,
};

static void rpc_line(Conn *c, const char *line, size_t len) {
  reply_dispatch(c, line, len, &rpc_dispatch);
}

/* Requests in flight go on on the pool; they are detached, so that they free themselves. */
static void rpc_closing(Conn *c) {
  read_queue_close(rpc_of(c)->reads);
  rpc_vision_close(rpc_of(c)->vision);
}

const ConnHandler rpc_handler = {
    .new_state = rpc_new_state,
    .free_state = rpc_free_state,
    .line = rpc_line,
    .oversized = reply_oversized,
    .busy = rpc_busy,
    .progress = rpc_progress,
    .idle = rpc_idle,
    .closing = rpc_closing,
};
