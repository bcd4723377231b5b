/* `readerd mcp`'s tools (docs/mcp.md): tools/list, and tools/call by the table of tools, each
 * run once the fence is known. read_files and list_files go through the connection's read
 * queue; read_images through rpc-vision; workspace_info is answered at once. */
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

/* Starts a read_images call (params taken) in the fence reads have now; no model to ask is
 * the tool's error. */
static void vision_start(Conn *c, JsonNode *id, ReadImagesParams *params) {
  g_autofree char *err = NULL, *result = NULL;
  Mcp *m = mcp_of(c);

  if (rpc_vision_start(m->vision, id, params, m->ws, &err) == 0)
    return;
  result = mcp_tool_error_json(err);
  mcp_reply(c, id, result, NULL);
}

/* A tool's bad arguments: the tool's error, which the model reads and can act on. */
static void tool_error(Conn *c, JsonNode *id, const char *text) {
  g_autofree char *result = mcp_tool_error_json(text);

  mcp_reply(c, id, result, NULL);
}

/* read_images: the call runs once the fence is known, as every tools/call does. */
static void tool_read_images(Conn *c, const JsonrpcMessage *msg, JsonNode *arguments, size_t len) {
  g_autofree char *err = NULL;
  ReadImagesParams params;

  if (mcp_read_images_args_parse(arguments, &params, &err) < 0) {
    tool_error(c, msg->id, err);
    return;
  }
  vision_start(c, msg->id, &params);
}

/* Queues a read of the tools/call in msg (params taken), with its progress token. */
static void queue_read(Conn *c, const JsonrpcMessage *msg, ReadParams *params, size_t len) {
  JsonObject *p = mcp_params(msg);
  JsonNode *meta = p != NULL ? json_object_get_member(p, "_meta") : NULL;
  McpCall *call = g_new0(McpCall, 1);

  call->log_level = mcp_of(c)->log_level;
  if (meta != NULL && JSON_NODE_HOLDS_OBJECT(meta) &&
      json_object_has_member(json_node_get_object(meta), "progressToken"))
    call->token =
        json_node_copy(json_object_get_member(json_node_get_object(meta), "progressToken"));
  read_queue_add(mcp_of(c)->reads, msg->id, params, len, call);
  mcp_progress(c);
}

static void tool_read_files(Conn *c, const JsonrpcMessage *msg, JsonNode *arguments, size_t len) {
  g_autofree char *err = NULL;
  ReadParams params;

  read_params_init(&params);
  if (mcp_read_args_parse(arguments, mcp_of(c)->budget, &params, &err) < 0) {
    tool_error(c, msg->id, err);
    return;
  }
  queue_read(c, msg, &params, len);
}

static void tool_list_files(Conn *c, const JsonrpcMessage *msg, JsonNode *arguments, size_t len) {
  g_autofree char *err = NULL;
  ReadParams params;

  read_params_init(&params);
  if (mcp_list_args_parse(arguments, mcp_of(c)->budget, &params, &err) < 0) {
    tool_error(c, msg->id, err);
    return;
  }
  queue_read(c, msg, &params, len);
}

static void tool_workspace_info(Conn *c, const JsonrpcMessage *msg, JsonNode *arguments,
                                size_t len) {
  g_autofree char *err = NULL;

  if (mcp_workspace_info_args_check(arguments, &err) < 0) {
    tool_error(c, msg->id, err);
    return;
  }
  workspace_info(c, msg->id);
}

/* The tools, by name: what tools/list lists (ipc/mcp-tools.c) and what runs each. */
static const struct {
  const char *name;
  void (*run)(Conn *c, const JsonrpcMessage *msg, JsonNode *arguments, size_t len);
  bool (*offered)(void); /* NULL: always */
} tools[] = {
    {MCP_TOOL_READ_FILES, tool_read_files, NULL},
    {MCP_TOOL_LIST_FILES, tool_list_files, NULL},
    {MCP_TOOL_WORKSPACE_INFO, tool_workspace_info, NULL},
    {MCP_TOOL_READ_IMAGES, tool_read_images, mcp_vision_configured},
};

/* tools/call, once the fence is known: bad arguments are the tool's error (the model reads it
 * and can try again); an unknown tool is the protocol's. A fence over no folder is the tool's
 * error too, in words. */
static void call_fenced(Conn *c, JsonNode *id, JsonNode *params, size_t len) {
  JsonObject *p =
      params != NULL && JSON_NODE_HOLDS_OBJECT(params) ? json_node_get_object(params) : NULL;
  JsonNode *name = p != NULL ? json_object_get_member(p, "name") : NULL;
  const char *tool =
      name != NULL && JSON_NODE_HOLDS_VALUE(name) && json_node_get_value_type(name) == G_TYPE_STRING
          ? json_node_get_string(name)
          : NULL;
  const JsonrpcMessage msg = {.id = id, .params = params, .method = "tools/call"};
  g_autofree char *text = NULL;
  Mcp *m = mcp_of(c);

  for (size_t i = 0; tool != NULL && i < G_N_ELEMENTS(tools); i++) {
    if (strcmp(tool, tools[i].name) != 0 || (tools[i].offered != NULL && !tools[i].offered()))
      continue;
    if (m->fence_problem != NULL && tools[i].run != tool_workspace_info) {
      tool_error(c, id, m->fence_problem);
      return;
    }
    tools[i].run(c, &msg, json_object_get_member(p, "arguments"), len);
    return;
  }
  text = g_strdup_printf("unknown tool: %s", tool != NULL ? tool : "(no name)");
  reply_error(c, id, JSONRPC_INVALID_PARAMS, text);
}

/* tools/call waits for the client's roots and their fence, in order with the others. */
void mcp_tools_call(Conn *c, const JsonrpcMessage *msg, size_t len) {
  mcp_when_fenced(c, msg->id, msg->params, len, call_fenced);
}
