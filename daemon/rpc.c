#include "daemon/rpc.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/request.h"
#include "daemon/readers/workspace.h"
#include "ipc/frame.h"
#include "ipc/initialize-params.h"
#include "ipc/initialize-result.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-params.h"

/* A read of this connection: waiting (req NULL, params held) or running. */
typedef struct {
  Conn *conn; /* NULL once the connection closed: the request is then only freed */
  JsonNode *id;
  char *key;
  Request *req;
  ReadParams params; /* while waiting; request_start() takes them */
  size_t cost;       /* while waiting: message bytes plus RPC_PATH_COST per path */
} Call;

typedef struct {
  Workspace *ws;       /* from initialize; NULL until then */
  GPtrArray *calls;    /* Call*, running */
  GQueue waiting;      /* Call*, parsed and not started, in order of arrival */
  size_t waiting_cost; /* sum of the waiting calls' cost */
  bool shutdown_received;
} Rpc;

static Rpc *rpc_of(const Conn *c) {
  return conn_state(c);
}

static void *rpc_new_state(Conn *c) {
  Rpc *r = g_new0(Rpc, 1);

  r->calls = g_ptr_array_new();
  g_queue_init(&r->waiting);
  return r;
}

static void rpc_free_state(void *state) {
  Rpc *r = state;

  g_ptr_array_free(r->calls, TRUE);
  workspace_unref(r->ws);
  g_free(r);
}

static void send_error(Conn *c, JsonNode *id, int code, const char *message) {
  size_t len;
  char *line = jsonrpc_format_error(id, code, message, &len);

  conn_send_line(c, line, len);
}

static void send_result(Conn *c, JsonNode *id, const char *result, size_t result_len) {
  size_t len;
  char *line = jsonrpc_format_result(id, result, result_len, &len);

  conn_send_line(c, line, len);
}

/* Sends a request's result without copying it: the envelope's head, the result's pieces as
 * they were formatted on the pool, the envelope's tail, in one vectored write. */
static void send_request_result(Conn *c, JsonNode *id, Request *req) {
  static const char tail[] = JSONRPC_RESULT_TAIL;
  size_t head_len, n;
  GString **pieces = request_take_output(req, &n);
  char *head;

  if (pieces == NULL) {
    send_error(c, id, JSONRPC_INTERNAL_ERROR, "formatting the result failed");
    return;
  }
  head = jsonrpc_format_result_head(id, &head_len);
  conn_send_pieces(c, head, head_len, pieces, n, tail, sizeof(tail) - 1);
}

static void call_free(Call *call) {
  if (call->id != NULL)
    json_node_unref(call->id);
  g_free(call->key);
  read_params_clear(&call->params);
  g_free(call);
}

static void call_done_cb(Request *req, int status) {
  Call *call = request_get_data(req);
  Conn *c = call->conn;

  if (c != NULL) {
    g_ptr_array_remove_fast(rpc_of(c)->calls, call);
    if (status == 0)
      send_request_result(c, call->id, req);
    else
      send_error(c, call->id, JSONRPC_REQUEST_CANCELLED, "request cancelled");
  }
  request_free(req);
  call_free(call);
  if (c != NULL)
    conn_progress(c);
}

/* Starts waiting reads, in order, while the connection may run more. */
static void rpc_progress(Conn *c) {
  Rpc *r = rpc_of(c);

  while (!conn_is_closing(c) && r->waiting.length > 0 && r->calls->len < RPC_MAX_RUNNING &&
         conn_unsent(c) < CONN_MAX_UNSENT) {
    Call *call = g_queue_pop_head(&r->waiting);

    r->waiting_cost -= call->cost;
    call->cost = 0;
    g_ptr_array_add(r->calls, call);
    call->req = request_start(conn_loop(c), &call->params, r->ws, REQUEST_OUTPUT_RESULT_JSON,
                              call_done_cb, call);
  }
}

static bool rpc_busy(Conn *c) {
  Rpc *r = rpc_of(c);

  return r->waiting.length >= RPC_MAX_WAITING || r->waiting_cost >= RPC_MAX_WAITING_COST;
}

static bool rpc_idle(Conn *c) {
  Rpc *r = rpc_of(c);

  return r->calls->len == 0 && r->waiting.length == 0;
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
      workspace_new(p.root_path, p.confine, (const char *const *)p.exclude, &ws, &err) < 0) {
    send_error(c, msg->id, JSONRPC_INVALID_PARAMS, err);
    initialize_params_clear(&p);
    return;
  }
  initialize_params_clear(&p);
  /* Requests already running keep the workspace they started with. */
  workspace_unref(r->ws);
  r->ws = ws;
  result = initialize_result_json();
  send_result(c, msg->id, result, strlen(result));
}

/* Queues a read (len: its message's length), and starts it when the connection may. */
static void handle_read(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *err = NULL;
  Rpc *r = rpc_of(c);
  Call *call = g_new0(Call, 1);

  read_params_init(&call->params);
  if (read_params_parse(msg->params, &call->params, &err) < 0) {
    send_error(c, msg->id, JSONRPC_INVALID_PARAMS, err);
    call_free(call);
    return;
  }
  call->conn = c;
  call->id = json_node_copy(msg->id);
  call->key = jsonrpc_id_key(msg->id);
  call->cost = len + call->params.n_paths * RPC_PATH_COST;
  r->waiting_cost += call->cost;
  g_queue_push_tail(&r->waiting, call);
  rpc_progress(c);
}

static void handle_cancel(Conn *c, const JsonrpcMessage *msg) {
  Rpc *r = rpc_of(c);
  g_autofree char *key = NULL;
  JsonNode *id;

  if (msg->params == NULL || !JSON_NODE_HOLDS_OBJECT(msg->params))
    return;
  id = json_object_get_member(json_node_get_object(msg->params), "id");
  key = id != NULL ? jsonrpc_id_key(id) : NULL;
  if (key == NULL)
    return;
  for (size_t i = 0; i < r->calls->len; i++) {
    Call *call = g_ptr_array_index(r->calls, i);

    if (strcmp(call->key, key) == 0)
      request_cancel(call->req);
  }
  /* A read that has not started is answered at once. */
  for (GList *l = r->waiting.head, *next; l != NULL; l = next) {
    Call *call = l->data;

    next = l->next;
    if (strcmp(call->key, key) != 0)
      continue;
    g_queue_delete_link(&r->waiting, l);
    r->waiting_cost -= call->cost;
    send_error(c, call->id, JSONRPC_REQUEST_CANCELLED, "request cancelled");
    call_free(call);
  }
}

static void handle_request(Conn *c, const JsonrpcMessage *msg, size_t len) {
  Rpc *r = rpc_of(c);
  const char *m = msg->method;

  if (strcmp(m, "initialize") == 0) {
    handle_initialize(c, msg);
  } else if (strcmp(m, "read") == 0) {
    if (r->shutdown_received)
      send_error(c, msg->id, JSONRPC_INVALID_REQUEST, "the client asked for shutdown");
    else
      handle_read(c, msg, len);
  } else if (strcmp(m, "shutdown") == 0) {
    r->shutdown_received = true;
    send_result(c, msg->id, "null", 4);
  } else if (strcmp(m, "$/cancelRequest") == 0) {
    handle_cancel(c, msg);
    send_result(c, msg->id, "null", 4);
  } else {
    g_autofree char *text = g_strdup_printf("unknown method: %s", m);

    send_error(c, msg->id, JSONRPC_METHOD_NOT_FOUND, text);
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

static void rpc_line(Conn *c, const char *line, size_t len) {
  JsonrpcMessage msg = {0};
  JsonNode *id = NULL;
  g_autofree char *err = NULL;
  int r = jsonrpc_parse(line, len, &msg, &id, &err);

  if (r < 0) {
    send_error(c, id, r, err);
    if (id != NULL)
      json_node_unref(id);
    return;
  }
  if (msg.kind == JSONRPC_KIND_REQUEST)
    handle_request(c, &msg, len);
  else if (msg.kind == JSONRPC_KIND_NOTIFICATION)
    handle_notification(c, &msg);
  jsonrpc_message_clear(&msg);
}

static void rpc_oversized(Conn *c) {
  g_autofree char *text =
      g_strdup_printf("message line exceeds %zu MiB", (size_t)FRAME_MAX_LINE / (1024 * 1024));

  send_error(c, NULL, JSONRPC_INVALID_REQUEST, text);
}

/* Requests in flight go on on the pool; they are detached, so that they free themselves. */
static void rpc_closing(Conn *c) {
  Rpc *r = rpc_of(c);

  for (size_t i = 0; i < r->calls->len; i++) {
    Call *call = g_ptr_array_index(r->calls, i);

    call->conn = NULL;
    request_cancel(call->req);
  }
  g_ptr_array_set_size(r->calls, 0);
  g_queue_clear_full(&r->waiting, (GDestroyNotify)call_free);
  r->waiting_cost = 0;
}

const ConnHandler rpc_handler = {
    .new_state = rpc_new_state,
    .free_state = rpc_free_state,
    .line = rpc_line,
    .oversized = rpc_oversized,
    .busy = rpc_busy,
    .progress = rpc_progress,
    .idle = rpc_idle,
    .closing = rpc_closing,
};
