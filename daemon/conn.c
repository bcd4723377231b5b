#include "daemon/conn.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/log.h"
#include "daemon/macro.h"
#include "daemon/request.h"
#include "daemon/readers/workspace.h"
#include "ipc/frame.h"
#include "ipc/initialize-params.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-params.h"

#define CONN_READ_BUF ((size_t)64 * 1024)
/* What one connection may hold (docs/protocol.md, "Memory per connection", has the bound they
 * give). A read starts only while fewer than CONN_MAX_RUNNING of the connection's reads run and
 * its unsent output is below CONN_MAX_UNSENT; the others wait, parsed, in a queue. Reading the
 * socket pauses while the queue is full (CONN_MAX_WAITING reads or CONN_MAX_WAITING_COST bytes)
 * or the unsent output is at CONN_MAX_UNSENT: a client that never reads its answers holds at
 * most the answers of the reads that had started. */
#define CONN_MAX_RUNNING 4
#define CONN_MAX_UNSENT ((size_t)8 * 1024 * 1024)
#define CONN_MAX_WAITING 64
#define CONN_MAX_WAITING_COST ((size_t)16 * 1024 * 1024)
/* What a waiting read's parsed params cost beyond its message text, per path. */
#define CONN_PATH_COST 128

typedef union {
  uv_handle_t handle;
  uv_stream_t stream;
  uv_pipe_t pipe;
  uv_tty_t tty;
} StreamHandle;

/* A read of this connection: waiting (req NULL, params held) or running. */
typedef struct {
  Conn *conn; /* NULL once the connection closed: the request is then only freed */
  JsonNode *id;
  char *key;
  Request *req;
  ReadParams params; /* while waiting; request_start() takes them */
  size_t cost;       /* while waiting: message bytes plus CONN_PATH_COST per path */
} Call;

/* One uv_write: a line of its own, or a result sent as its envelope and pieces. Everything
 * here is owned and freed when the write completes. */
typedef struct {
  uv_write_t req;
  Conn *conn;
  char *line;       /* a whole line, or the envelope's head */
  GString **pieces; /* a result's pieces, or NULL */
  size_t n_pieces;
  uv_buf_t *bufs;
  unsigned int n_bufs;
} WriteReq;

struct Conn {
  uv_loop_t *loop;
  StreamHandle in;
  StreamHandle out; /* stdio mode only; otherwise `in` is used both ways */
  uv_stream_t *out_stream;
  bool stdio;
  int handles_open;

  Framer *framer;
  Workspace *ws;       /* from initialize; NULL until then */
  GPtrArray *calls;    /* Call*, running */
  GQueue waiting;      /* Call*, parsed and not started, in order of arrival */
  size_t waiting_cost; /* sum of the waiting calls' cost */
  size_t writes;       /* uv_write requests not yet completed */

  bool reading;
  bool eof;
  bool closing;
  bool shutdown_received;
  bool exit_received;
  bool output_failed; /* a write of an answer failed */

  ConnClosedCb closed_cb;
  void *data;
  char rbuf[CONN_READ_BUF];
};

static void conn_finish(Conn *c);
static void write_req_free(WriteReq *wr);
static void conn_progress(Conn *c);
static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  Conn *c = h->data;

  buf->base = c->rbuf;
  buf->len = sizeof(c->rbuf);
}

static void conn_free(Conn *c) {
  if (c->closed_cb != NULL)
    c->closed_cb(c, c->data);
  framer_free(c->framer);
  g_ptr_array_free(c->calls, TRUE);
  workspace_unref(c->ws);
  g_free(c);
}

static void close_cb(uv_handle_t *h) {
  Conn *c = h->data;

  if (--c->handles_open == 0)
    conn_free(c);
}

static void write_cb(uv_write_t *w, int status) {
  WriteReq *wr = container_of(w, WriteReq, req);
  Conn *c = wr->conn;

  write_req_free(wr);
  c->writes--;
  if (status < 0 && status != UV_ECANCELED && !c->closing) {
    log_debug("write failed: %s", uv_strerror(status));
    c->output_failed = true;
    conn_close(c);
    return;
  }
  if (!c->closing)
    conn_progress(c);
}

static void write_req_free(WriteReq *wr) {
  g_free(wr->line);
  for (size_t i = 0; i < wr->n_pieces; i++)
    g_string_free(wr->pieces[i], TRUE);
  g_free(wr->pieces);
  g_free(wr->bufs);
  g_free(wr);
}

/* Queues a write of wr's buffers; on failure frees wr and closes the connection. */
static void conn_write_req(Conn *c, WriteReq *wr) {
  int r =
      c->closing ? UV_ECANCELED : uv_write(&wr->req, c->out_stream, wr->bufs, wr->n_bufs, write_cb);

  if (r < 0) {
    if (r != UV_ECANCELED) {
      log_debug("write failed: %s", uv_strerror(r));
      c->output_failed = true;
    }
    write_req_free(wr);
    conn_close(c);
    return;
  }
  c->writes++;
}

/* Queues one response line; takes ownership of buf, even on failure. */
static void conn_write(Conn *c, char *buf, size_t len) {
  WriteReq *wr = g_new0(WriteReq, 1);

  wr->conn = c;
  wr->line = buf;
  wr->bufs = g_new(uv_buf_t, 1);
  wr->n_bufs = 1;
  /* Set directly: uv_buf_init takes an unsigned int. */
  wr->bufs[0].base = buf;
  wr->bufs[0].len = len;
  conn_write_req(c, wr);
}

static void send_error(Conn *c, JsonNode *id, int code, const char *message) {
  size_t len;
  char *line = jsonrpc_format_error(id, code, message, &len);

  conn_write(c, line, len);
}

static void send_result(Conn *c, JsonNode *id, const char *result, size_t result_len) {
  size_t len;
  char *line = jsonrpc_format_result(id, result, result_len, &len);

  conn_write(c, line, len);
}

/* Sends a request's result without copying it: the envelope's head, the result's pieces as
 * they were formatted on the pool, the envelope's tail, in one vectored write. */
static void send_request_result(Conn *c, JsonNode *id, Request *req) {
  static char tail[] = JSONRPC_RESULT_TAIL;
  WriteReq *wr;
  size_t head_len, n;
  GString **pieces = request_take_output(req, &n);

  if (pieces == NULL) {
    send_error(c, id, JSONRPC_INTERNAL_ERROR, "formatting the result failed");
    return;
  }
  wr = g_new0(WriteReq, 1);
  wr->conn = c;
  wr->line = jsonrpc_format_result_head(id, &head_len);
  wr->pieces = pieces;
  wr->n_pieces = n;
  wr->bufs = g_new(uv_buf_t, n + 2);
  wr->bufs[0].base = wr->line;
  wr->bufs[0].len = head_len;
  for (size_t i = 0; i < n; i++) {
    wr->bufs[i + 1].base = pieces[i]->str;
    wr->bufs[i + 1].len = pieces[i]->len;
  }
  wr->bufs[n + 1].base = tail;
  wr->bufs[n + 1].len = sizeof(tail) - 1;
  wr->n_bufs = (unsigned int)(n + 2);
  conn_write_req(c, wr);
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
    g_ptr_array_remove_fast(c->calls, call);
    if (status == 0) {
      send_request_result(c, call->id, req);
    } else {
      send_error(c, call->id, JSONRPC_REQUEST_CANCELLED, "request cancelled");
    }
  }
  request_free(req);
  call_free(call);
  if (c != NULL && !c->closing)
    conn_progress(c);
}

static size_t unsent(const Conn *c) {
  return c->out_stream->write_queue_size;
}

/* Starts waiting reads, in order, while the connection may run more. */
static void start_waiting(Conn *c) {
  while (!c->closing && c->waiting.length > 0 && c->calls->len < CONN_MAX_RUNNING &&
         unsent(c) < CONN_MAX_UNSENT) {
    Call *call = g_queue_pop_head(&c->waiting);

    c->waiting_cost -= call->cost;
    call->cost = 0;
    g_ptr_array_add(c->calls, call);
    call->req = request_start(c->loop, &call->params, c->ws, REQUEST_OUTPUT_RESULT_JSON,
                              call_done_cb, call);
  }
}

static bool queue_full(const Conn *c) {
  return c->waiting.length >= CONN_MAX_WAITING || c->waiting_cost >= CONN_MAX_WAITING_COST;
}

static char *initialize_result(void) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "serverInfo");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "version");
  json_builder_add_string_value(b, READERD_VERSION);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "capabilities");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "read");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "types");
  json_builder_begin_array(b);
  json_builder_add_string_value(b, "text");
  json_builder_add_string_value(b, "image");
  json_builder_add_string_value(b, "pdf");
  json_builder_end_array(b);
  json_builder_set_member_name(b, "maxPaths");
  json_builder_add_int_value(b, READ_MAX_PATHS);
  json_builder_set_member_name(b, "defaultLimit");
  json_builder_add_int_value(b, READ_DEFAULT_LIMIT);
  json_builder_set_member_name(b, "formats");
  json_builder_begin_array(b);
  for (int f = READ_FORMAT_XML; f <= READ_FORMAT_TEXT; f++)
    json_builder_add_string_value(b, read_format_name((ReadFormat)f));
  json_builder_end_array(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "cancelRequest");
  json_builder_add_boolean_value(b, TRUE);
  json_builder_end_object(b);
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
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
  workspace_unref(c->ws);
  c->ws = ws;
  result = initialize_result();
  send_result(c, msg->id, result, strlen(result));
}

/* Queues a read (len: its message's length), and starts it when the connection may. */
static void handle_read(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *err = NULL;
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
  call->cost = len + call->params.n_paths * CONN_PATH_COST;
  c->waiting_cost += call->cost;
  g_queue_push_tail(&c->waiting, call);
  start_waiting(c);
}

static void handle_cancel(Conn *c, const JsonrpcMessage *msg) {
  JsonNode *id;
  g_autofree char *key = NULL;

  if (msg->params == NULL || !JSON_NODE_HOLDS_OBJECT(msg->params))
    return;
  id = json_object_get_member(json_node_get_object(msg->params), "id");
  key = id != NULL ? jsonrpc_id_key(id) : NULL;
  if (key == NULL)
    return;
  for (size_t i = 0; i < c->calls->len; i++) {
    Call *call = g_ptr_array_index(c->calls, i);

    if (strcmp(call->key, key) == 0)
      request_cancel(call->req);
  }
  /* A read that has not started is answered at once. */
  for (GList *l = c->waiting.head, *next; l != NULL; l = next) {
    Call *call = l->data;

    next = l->next;
    if (strcmp(call->key, key) != 0)
      continue;
    g_queue_delete_link(&c->waiting, l);
    c->waiting_cost -= call->cost;
    send_error(c, call->id, JSONRPC_REQUEST_CANCELLED, "request cancelled");
    call_free(call);
  }
}

static void handle_request(Conn *c, const JsonrpcMessage *msg, size_t len) {
  const char *m = msg->method;

  if (strcmp(m, "initialize") == 0) {
    handle_initialize(c, msg);
  } else if (strcmp(m, "read") == 0) {
    if (c->shutdown_received)
      send_error(c, msg->id, JSONRPC_INVALID_REQUEST, "the client asked for shutdown");
    else
      handle_read(c, msg, len);
  } else if (strcmp(m, "shutdown") == 0) {
    c->shutdown_received = true;
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
    c->exit_received = true;
    conn_finish(c);
  }
  /* Other notifications are never answered. */
}

static void handle_line(Conn *c, const char *line, size_t len) {
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

static void drain_lines(Conn *c) {
  const char *line;
  size_t len;
  int r;

  /* Lines stay in the framer while the queue is full: reading is paused then, so they are
   * at most one read's worth. */
  while (!c->closing && !c->exit_received && !queue_full(c) &&
         (r = framer_next(c->framer, &line, &len)) != 0) {
    if (r == -E2BIG) {
      send_error(c, NULL, JSONRPC_INVALID_REQUEST, "message line exceeds 16 MiB");
      continue;
    }
    /* Empty lines, and lines of only spaces, tabs and CRs, are ignored. */
    if (frame_line_has_content(line, len))
      handle_line(c, line, len);
  }
}

/* Reading pauses while the queue is full or the client has not taken its answers. */
static bool overloaded(const Conn *c) {
  return queue_full(c) || unsent(c) >= CONN_MAX_UNSENT;
}

static void pause_reading(Conn *c) {
  if (c->reading) {
    uv_read_stop(&c->in.stream);
    c->reading = false;
  }
}

/* Moves the connection on after anything changed (a line read, an answer written, a read
 * finished): starts the reads it may, handles the lines it held back, then closes when done
 * (after end of input or exit) or reads on unless overloaded. */
static void conn_progress(Conn *c) {
  start_waiting(c);
  drain_lines(c);
  if (c->closing)
    return;
  if (c->eof || c->exit_received) {
    conn_finish(c);
  } else if (overloaded(c)) {
    pause_reading(c);
  } else if (!c->reading && uv_read_start(&c->in.stream, alloc_cb, read_cb) == 0) {
    c->reading = true;
  }
}

/* True when the peer of a socket closed both ways (not only its writing side): then
 * nobody would read the answers. */
static bool peer_gone(Conn *c) {
  struct pollfd p = {.events = POLLOUT};

  if (uv_fileno(&c->in.handle, &p.fd) < 0)
    return true;
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)) != 0;
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  Conn *c = s->data;

  if (nread > 0) {
    framer_feed(c->framer, buf->base, (size_t)nread);
    conn_progress(c);
    return;
  }
  if (nread == 0)
    return;
  if (nread != UV_EOF)
    log_debug("read failed: %s", uv_strerror((int)nread));
  pause_reading(c);
  if (nread == UV_EOF && (c->stdio || !peer_gone(c))) {
    /* A client that stops writing (stdin closed, or a socket shut down for writing) still
     * gets the answers to what it asked, a last line without its newline included. */
    c->eof = true;
    framer_end(c->framer);
    conn_progress(c);
  } else {
    /* Nobody is left to answer: the work is cancelled. */
    conn_close(c);
  }
}

/* Closes once nothing is left to answer or to write. After exit, or at the end of input
 * (stdin closed, a socket shut down for writing), requests already received, waiting ones
 * included, are still answered: a client that wants them dropped disconnects instead. */
static void conn_finish(Conn *c) {
  pause_reading(c);
  if (c->closing)
    return;
  /* With lines held back by a full queue, those reads are still to come. */
  if (c->calls->len == 0 && c->waiting.length == 0 && c->writes == 0 &&
      (c->exit_received || framer_pending(c->framer) == 0))
    conn_close(c);
}

void conn_close(Conn *c) {
  if (c->closing)
    return;
  c->closing = true;
  pause_reading(c);
  /* Requests in flight go on on the pool; detach them so they free themselves. */
  for (size_t i = 0; i < c->calls->len; i++) {
    Call *call = g_ptr_array_index(c->calls, i);

    call->conn = NULL;
    request_cancel(call->req);
  }
  g_ptr_array_set_size(c->calls, 0);
  g_queue_clear_full(&c->waiting, (GDestroyNotify)call_free);
  c->waiting_cost = 0;
  uv_close(&c->in.handle, close_cb);
  if (c->stdio)
    uv_close(&c->out.handle, close_cb);
}

int conn_exit_status(const Conn *c) {
  if (c->stdio && c->output_failed)
    return CONN_EXIT_OUTPUT;
  /* As in LSP: exit without shutdown first is a failure; end of input is not. */
  if (c->exit_received)
    return c->shutdown_received ? 0 : 1;
  return 0;
}

static Conn *conn_new(uv_loop_t *loop, ConnClosedCb closed_cb, void *data) {
  Conn *c = g_new0(Conn, 1);

  c->loop = loop;
  c->framer = framer_new(FRAME_MAX_LINE);
  c->calls = g_ptr_array_new();
  g_queue_init(&c->waiting);
  c->closed_cb = closed_cb;
  c->data = data;
  c->in.handle.data = c;
  c->out.handle.data = c;
  c->out_stream = &c->in.stream;
  return c;
}

static int conn_start(Conn *c) {
  int r = uv_read_start(&c->in.stream, alloc_cb, read_cb);

  if (r == 0)
    c->reading = true;
  return r;
}

/* Starts reading a socket connection whose handle was just set up (r: how that went). */
static Conn *conn_socket_start(Conn *c, int r, int *ret_err) {
  if (r == 0)
    r = conn_start(c);
  if (r < 0) {
    c->closed_cb = NULL;
    conn_close(c);
    *ret_err = r;
    return NULL;
  }
  return c;
}

Conn *conn_accept(uv_loop_t *loop, uv_stream_t *server, ConnClosedCb closed_cb, void *data,
                  int *ret_err) {
  Conn *c = conn_new(loop, closed_cb, data);

  uv_pipe_init(loop, &c->in.pipe, 0);
  c->in.handle.data = c;
  c->handles_open = 1;
  return conn_socket_start(c, uv_accept(server, &c->in.stream), ret_err);
}

Conn *conn_open_fd(uv_loop_t *loop, int fd, ConnClosedCb closed_cb, void *data, int *ret_err) {
  Conn *c = conn_new(loop, closed_cb, data);

  uv_pipe_init(loop, &c->in.pipe, 0);
  c->in.handle.data = c;
  c->handles_open = 1;
  return conn_socket_start(c, uv_pipe_open(&c->in.pipe, fd), ret_err);
}

/* Opens fd as a libuv stream: a pipe or socket, or a terminal. *ret_inited tells whether the
 * handle was initialized (and so must be closed), even when opening failed. */
static int open_stream(uv_loop_t *loop, StreamHandle *h, int fd, bool readable, bool *ret_inited) {
  int r;

  *ret_inited = false;
  switch (uv_guess_handle(fd)) {
  case UV_NAMED_PIPE:
    uv_pipe_init(loop, &h->pipe, 0);
    *ret_inited = true;
    return uv_pipe_open(&h->pipe, fd);
  case UV_TTY:
    r = uv_tty_init(loop, &h->tty, fd, readable);
    *ret_inited = r == 0;
    return r;
  default:
    return UV_EINVAL;
  }
}

Conn *conn_open_stdio(uv_loop_t *loop, int in_fd, int out_fd, ConnClosedCb closed_cb, void *data,
                      int *ret_err) {
  Conn *c = conn_new(loop, closed_cb, data);
  bool in_inited = false, out_inited = false;
  int r;

  c->stdio = true;
  r = open_stream(loop, &c->in, in_fd, true, &in_inited);
  if (r == 0)
    r = open_stream(loop, &c->out, out_fd, false, &out_inited);
  c->handles_open = (int)in_inited + (int)out_inited;
  c->in.handle.data = c;
  c->out.handle.data = c;
  c->out_stream = &c->out.stream;
  if (r == 0)
    r = conn_start(c);
  if (r == 0)
    return c;
  *ret_err = r;
  c->closed_cb = NULL;
  c->closing = true;
  if (c->handles_open == 0) {
    conn_free(c);
    return NULL;
  }
  if (in_inited)
    uv_close(&c->in.handle, close_cb);
  if (out_inited)
    uv_close(&c->out.handle, close_cb);
  return NULL;
}
