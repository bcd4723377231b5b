#include "daemon/rpc.h"

#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/read-queue.h"
#include "daemon/reply.h"
#include "daemon/request/request.h"
#include "daemon/rpc-vision.h"
#include "daemon/readers/workspace.h"
#include "daemon/workspace-job.h"
#include "ipc/initialize-params.h"
#include "ipc/initialize-result.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-params.h"

/* An initialize whose workspace is being built on the pool: the lines after it wait. */
typedef struct {
  Conn *conn;
  JsonNode *id, *params; /* copies */
  WorkspaceJob *job;
} Initializing;

typedef struct {
  Workspace *ws; /* from initialize; NULL until then */
  Initializing *init;
  ReplyParse *parsing; /* a long line being parsed on the pool: the lines after it wait */
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

static void initializing_free(Initializing *in) {
  if (in == NULL)
    return;
  json_node_unref(in->id);
  if (in->params != NULL)
    json_node_unref(in->params);
  g_free(in);
}

static void rpc_free_state(void *state) {
  Rpc *r = state;

  if (r->init != NULL) {
    workspace_job_detach(r->init->job);
    initializing_free(r->init);
  }
  reply_parse_detach(r->parsing);
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

/* Busy while a line is parsed or an initialize is under way: a read sent right after an
 * initialize must meet its workspace, and requests are taken in order. */
static bool rpc_busy(Conn *c) {
  Rpc *r = rpc_of(c);

  return r->parsing != NULL || r->init != NULL || read_queue_busy(r->reads);
}

static bool rpc_idle(Conn *c) {
  Rpc *r = rpc_of(c);

  return r->parsing == NULL && r->init == NULL && read_queue_idle(r->reads) &&
         rpc_vision_idle(r->vision);
}

/* The workspace is built: the settings of readImages are taken with it, or neither is. */
static void initialize_done_cb(void *data, Workspace *ws, char *error, char **warnings) {
  Initializing *in = data;
  Conn *c = in->conn;
  Rpc *r = rpc_of(c);
  g_autofree char *err = error, *result = NULL;

  g_strfreev(warnings); /* only MCP's fences warn */
  r->init = NULL;
  if (ws == NULL || rpc_vision_initialize(r->vision, in->params, &err) < 0) {
    workspace_unref(ws);
    reply_error(c, in->id, JSONRPC_INVALID_PARAMS, err);
  } else {
    /* Requests already running keep the workspace they started with. */
    workspace_unref(r->ws);
    r->ws = ws;
    result = initialize_result_json();
    reply_result(c, in->id, result);
  }
  initializing_free(in);
  conn_progress(c);
}

/* Checks the parameters on the loop; the root is resolved on the pool (workspace-job.h). */
static void handle_initialize(Conn *c, const JsonrpcMessage *msg) {
  g_autofree char *err = NULL;
  Rpc *r = rpc_of(c);
  InitializeParams p;
  Initializing *in;

  if (initialize_params_parse(msg->params, &p, &err) < 0) {
    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS, err);
    return;
  }
  in = g_new0(Initializing, 1);
  in->conn = c;
  in->id = json_node_copy(msg->id);
  in->params = msg->params != NULL ? json_node_copy(msg->params) : NULL;
  r->init = in;
  in->job = workspace_job_root(conn_loop(c), p.root_path, p.confine,
                               (const char *const *)p.exclude, initialize_done_cb, in);
  initialize_params_clear(&p);
}

/* Queues a read (len: its message's length), and starts it when the connection may. */
static void handle_read(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *err = NULL;
  Rpc *r = rpc_of(c);
  ReadParams params;

  read_params_init(&params);
  if ((msg->params_text != NULL
           ? read_params_parse_json(msg->params_text, msg->params_len, &params, &err)
           : read_params_parse(msg->params, &params, &err)) < 0) {
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
    /* A read's paths are taken from the line itself (handle_read). */
    .parse_flags = JSONRPC_PARSE_READ_TEXT,
};

static void rpc_parsed(Conn *c) {
  rpc_of(c)->parsing = NULL;
}

static void rpc_line(Conn *c, const char *line, size_t len) {
  rpc_of(c)->parsing = reply_dispatch_line(c, line, len, &rpc_dispatch, rpc_parsed);
}

/* Requests in flight go on on the pool; they are detached, so that they free themselves. */
static void rpc_closing(Conn *c) {
  Rpc *r = rpc_of(c);

  read_queue_close(r->reads);
  rpc_vision_close(r->vision);
  reply_parse_detach(g_steal_pointer(&r->parsing));
  if (r->init != NULL) {
    workspace_job_detach(r->init->job);
    initializing_free(g_steal_pointer(&r->init));
  }
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
