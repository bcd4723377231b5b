#include "daemon/reply.h"

#include <string.h>

#include <glib.h>

#include "daemon/request/pool-gate.h"
#include "ipc/frame.h"

void reply_error(Conn *c, JsonNode *id, int code, const char *message) {
  size_t len;
  char *line = jsonrpc_format_error(id, code, message, &len);

  conn_send_line(c, line, len);
}

void reply_result(Conn *c, JsonNode *id, const char *result_json) {
  size_t len;
  char *line = jsonrpc_format_result(id, result_json, strlen(result_json), &len);

  conn_send_line(c, line, len);
}

void reply_oversized(Conn *c) {
  g_autofree char *text =
      g_strdup_printf("message line exceeds %zu MiB", (size_t)FRAME_MAX_LINE / (1024 * 1024));

  reply_error(c, NULL, JSONRPC_INVALID_REQUEST, text);
}

/* Hands a parsed line (r from jsonrpc_parse) to d, or answers its error. */
static void dispatch(Conn *c, int r, const JsonrpcMessage *msg, JsonNode *id, const char *err,
                     size_t len, const ReplyDispatch *d) {
  if (r < 0)
    reply_error(c, id, r, err);
  else if (msg->kind == JSONRPC_KIND_REQUEST)
    d->request(c, msg, len);
  else if (msg->kind == JSONRPC_KIND_NOTIFICATION)
    d->notification(c, msg);
  else if (d->response != NULL)
    d->response(c, msg);
}

void reply_dispatch(Conn *c, const char *line, size_t len, const ReplyDispatch *d) {
  JsonrpcMessage msg = {0};
  JsonNode *id = NULL;
  g_autofree char *err = NULL;
  int r = jsonrpc_parse_flags(line, len, d->parse_flags, &msg, &id, &err);

  dispatch(c, r, &msg, id, err, len, d);
  if (id != NULL)
    json_node_unref(id);
  jsonrpc_message_clear(&msg);
}

static PoolGate parse_gate = POOL_GATE_INIT(POOL_GATE_PARSE_SLOTS);

struct ReplyParse {
  PoolGateJob job;
  Conn *c; /* NULL once detached */
  const ReplyDispatch *d;
  void (*parsed)(Conn *c);
  char *line;
  size_t len;
  int status; /* jsonrpc_parse()'s */
  JsonrpcMessage msg;
  JsonNode *id;
  char *err;
};

static void parse_work_cb(uv_work_t *w) {
  ReplyParse *p = w->data;

  p->status = jsonrpc_parse_flags(p->line, p->len, p->d->parse_flags, &p->msg, &p->id, &p->err);
}

static void parse_free(ReplyParse *p) {
  if (p->id != NULL)
    json_node_unref(p->id);
  jsonrpc_message_clear(&p->msg);
  g_free(p->err);
  g_free(p->line);
  g_free(p);
}

static void parse_after_cb(uv_work_t *w, int status) {
  ReplyParse *p = w->data;
  Conn *c = p->c;

  (void)status; /* never cancelled */
  if (c != NULL) {
    p->parsed(c);
    dispatch(c, p->status, &p->msg, p->id, p->err, p->len, p->d);
    conn_progress(c);
  }
  parse_free(p);
}

ReplyParse *reply_dispatch_line(Conn *c, const char *line, size_t len, const ReplyDispatch *d,
                                void (*parsed)(Conn *c)) {
  ReplyParse *p;

  if (len < REPLY_POOL_LINE) {
    reply_dispatch(c, line, len, d);
    return NULL;
  }
  p = g_new0(ReplyParse, 1);
  p->job.work.data = p;
  p->c = c;
  p->d = d;
  p->parsed = parsed;
  p->line = g_memdup2(line, len);
  p->len = len;
  pool_gate_queue(&parse_gate, conn_loop(c), &p->job, parse_work_cb, parse_after_cb);
  return p;
}

void reply_parse_detach(ReplyParse *p) {
  if (p == NULL)
    return;
  if (pool_gate_withdraw(&p->job))
    parse_free(p); /* never started: nothing will come back */
  else
    p->c = NULL;
}
