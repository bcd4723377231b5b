/* `readerd mcp`'s tools (docs/mcp.md): tools/list, and tools/call parsed by the table of tools
 * (ipc/mcp/mcp-tools.c) and run by the table below, once the fence is known. read_files and list_files
 * go through the connection's read queue; read_images through rpc-vision; workspace_info is
 * answered at once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "daemon/mcp/mcp-internal.h"

/* workspace_info's answer: where the fence is, in words. */
static void workspace_info(Conn *c, JsonNode *id) {
  Mcp *m = mcp_of(c);
  const char *source = mcp_config.roots != NULL ? "--root on readerd mcp's command line"
                       : m->fence_roots != NULL ? "the client's roots (roots/list)"
                                                : "the working directory readerd mcp started in";
  g_autofree char *text = mcp_workspace_info_text(workspace_real_roots(m->ws), source,
                                                  workspace_patterns(m->ws), m->fence_problem);
  g_autofree char *result = mcp_tool_text_json(text, false);

  mcp_reply(c, id, result, NULL);
}

/* True when a vision model is configured: read_images is offered. */
bool mcp_vision_configured(void) {
  const char *model = getenv("READERD_VISION_MODEL");

  return model != NULL && *model != '\0';
}

/* The tools/list result fits the server: read_images only with a vision model. */
void mcp_tools_list(Conn *c, const JsonrpcMessage *msg, size_t len) {
  static const McpCache cache = {MCP_LIST_TTL_MS, "public"};

  mcp_reply(c, msg->id, mcp_tools_list_json(mcp_vision_configured()), &cache);
}

/* A tool's bad arguments: the tool's error, which the model reads and can act on. */
static void tool_error(Conn *c, JsonNode *id, const char *text) {
  g_autofree char *result = mcp_tool_error_json(text);

  mcp_reply(c, id, result, NULL);
}

/* read_images: asks the vision model in the fence reads have now (params taken); no model to
 * ask is the tool's error. */
static void run_read_images(Conn *c, JsonNode *id, McpToolCall *call, size_t len) {
  g_autofree char *err = NULL;
  Mcp *m = mcp_of(c);

  if (rpc_vision_start(m->vision, id, &call->images, m->ws, &err) == 0)
    return;
  tool_error(c, id, err);
}

/* read_files and list_files: queues the read (params taken), with its progress token. */
static void run_read(Conn *c, JsonNode *id, McpToolCall *call, size_t len) {
  McpCall *mc = g_new0(McpCall, 1);

  mc->log_level = mcp_of(c)->log_level;
  if (call->progress_token != NULL)
    mc->token = json_node_copy(call->progress_token);
  read_queue_add(mcp_of(c)->reads, id, &call->read, len, mc);
  mcp_progress(c);
}

static void run_workspace_info(Conn *c, JsonNode *id, McpToolCall *call, size_t len) {
  workspace_info(c, id);
}

/* What runs each tool of the table in ipc/mcp/mcp-tools.c, once its call is parsed. */
static void (*const runs[MCP_TOOL_COUNT])(Conn *c, JsonNode *id, McpToolCall *call, size_t len) = {
    [MCP_TOOL_ID_READ_FILES] = run_read,
    [MCP_TOOL_ID_LIST_FILES] = run_read,
    [MCP_TOOL_ID_WORKSPACE_INFO] = run_workspace_info,
    [MCP_TOOL_ID_READ_IMAGES] = run_read_images,
};

/* tools/call, once the fence is known: an unknown tool is the protocol's error; a fence over
 * no folder is the tool's error, in words (workspace_info says why); bad arguments are the
 * tool's error too (the model reads it and can try again). */
static void call_fenced(Conn *c, JsonNode *id, JsonNode *params, const char *text, size_t text_len,
                        size_t len) {
  g_autofree char *err = NULL;
  Mcp *m = mcp_of(c);
  McpToolCall call;
  int r;

  r = mcp_tool_call_parse(params, text, text_len, mcp_vision_configured(), m->budget, &call, &err);
  if (r == -ENOENT)
    reply_error(c, id, JSONRPC_INVALID_PARAMS, err);
  else if (m->fence_problem != NULL && call.tool != MCP_TOOL_ID_WORKSPACE_INFO)
    tool_error(c, id, m->fence_problem);
  else if (r < 0)
    tool_error(c, id, err);
  else
    runs[call.tool](c, id, &call, len);
  mcp_tool_call_clear(&call);
}

/* tools/call waits for the client's roots and their fence, in order with the others; its
 * arguments, when an object, come as the line's text (JSONRPC_PARSE_CALL_TEXT). */
void mcp_tools_call(Conn *c, const JsonrpcMessage *msg, size_t len) {
  mcp_when_fenced(c, msg->id, msg->params, msg->arguments_text, msg->arguments_len, len,
                  call_fenced);
}
