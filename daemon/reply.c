#include "daemon/reply.h"

#include <string.h>

#include <glib.h>

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

void reply_dispatch(Conn *c, const char *line, size_t len, const ReplyDispatch *d) {
  JsonrpcMessage msg = {0};
  JsonNode *id = NULL;
  g_autofree char *err = NULL;
  int r = jsonrpc_parse(line, len, &msg, &id, &err);

  if (r < 0) {
    reply_error(c, id, r, err);
    if (id != NULL)
      json_node_unref(id);
    return;
  }
  if (msg.kind == JSONRPC_KIND_REQUEST)
    d->request(c, &msg, len);
  else if (msg.kind == JSONRPC_KIND_NOTIFICATION)
    d->notification(c, &msg);
  else if (d->response != NULL)
    d->response(c, &msg);
  jsonrpc_message_clear(&msg);
}
