/* `readerd mcp`'s two eras on a connection (docs/mcp.md, "Protocol revisions: both eras"):
 * server/discover, the revision and capabilities a request's _meta names, -32022, and the
 * roots of a 2026-07-28 client asked inside an answer. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "daemon/mcp/mcp-internal.h"

void mcp_server_discover(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *result = mcp_discover_result_json();

  reply_result(c, msg->id, result);
}

/* A request naming a revision in its _meta speaks that era from now on; one naming a revision
 * readerd does not speak gets -32022 with the revisions it does. */
int mcp_request_era(Conn *c, const JsonrpcMessage *msg) {
  g_autofree char *data = NULL;
  McpRequestMeta meta;
  Mcp *m = mcp_of(c);
  size_t len;
  char *line;
  int r = mcp_request_meta(msg->params, &meta);

  if (r == MCP_UNSUPPORTED_PROTOCOL_VERSION || r == -EINVAL) {
    /* The revision asked is a string unless the request was malformed (-EINVAL). */
    data = mcp_unsupported_version_data(r == -EINVAL ? NULL : meta.asked);
    line = jsonrpc_format_error_data(msg->id, MCP_UNSUPPORTED_PROTOCOL_VERSION,
                                     "Unsupported protocol version", data, &len);
    conn_send_line(c, line, len);
    return -EPROTO;
  }
  if (!meta.modern)
    return 0;
  m->modern = true;
  if (meta.client != NULL)
    m->budget = mcp_client_budget(meta.client);
  /* The revision asks for messages only of a request that names a level. */
  m->log_level = meta.log_level;
  return 0;
}

/* The requests whose answer depends on the fence: in the 2026-07-28 era they ask the client
 * for its roots the way that revision asks (an input_required result) when they must. */
static const char *const fenced_methods[] = {"tools/call", "resources/read", "resources/list",
                                             "completion/complete", NULL};

/* 2026-07-28 has no request from a stdio server: a client that offers roots, to a server
 * started without --root, is asked for them inside the answer to its first request that
 * reads (resultType input_required, inputRequests {roots: roots/list}), and sends them back with
 * that request retried (params.inputResponses.roots). The fence built from them is kept for the
 * process, as one built from roots/list is. Returns true when msg was answered. */
bool mcp_modern_roots(Conn *c, const JsonrpcMessage *msg) {
  Mcp *m = mcp_of(c);
  JsonObject *p = mcp_params(msg);
  JsonObject *responses =
      p != NULL && json_object_has_member(p, "inputResponses") &&
              JSON_NODE_HOLDS_OBJECT(json_object_get_member(p, "inputResponses"))
          ? json_object_get_object_member(p, "inputResponses")
          : NULL;
  JsonNode *answer = responses != NULL ? json_object_get_member(responses, "roots") : NULL;
  McpRequestMeta meta;

  if (mcp_config.roots != NULL || m->modern_roots_known ||
      mcp_request_meta(msg->params, &meta) < 0 || !meta.modern || !meta.roots ||
      !g_strv_contains(fenced_methods, msg->method))
    return false;
  if (answer == NULL) {
    reply_result(c, msg->id,
                 "{\"resultType\":\"input_required\",\"inputRequests\":{\"roots\":{\"method\":"
                 "\"roots/list\"}}}");
    return true;
  }
  m->modern_roots_known = true;
  mcp_fence_roots_answer(m, answer, "roots answer");
  /* The request goes on, and waits for the fence like any other. */
  return false;
}
