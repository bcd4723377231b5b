/* The table of MCP tools: each row names a tool, says what the model reads about it, writes
 * its input schema (mcp-tool-schemas.c) and parses its arguments. tools/list is built from the
 * table, and tools/call is parsed by it. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "ipc/json-parse-internal.h"
#include "ipc/mcp/json-schema.h"
#include "ipc/mcp/mcp-tools-internal.h"
#include "ipc/mcp/mcp.h"

typedef struct {
  const char *name;
  const char *title;
  const char *description;
  const char *const *required; /* NULL-terminated; NULL: none */
  void (*properties)(JsonBuilder *b);
  bool idempotent; /* the same call answers the same (a vision model need not) */
  bool open_world; /* it reaches past the machine (a vision endpoint) */
  bool vision;     /* listed and run only with a vision model configured */
  /* arguments (may be NULL) into *ret; 0, or -EINVAL with *ret_error. */
  int (*parse)(JsonNode *arguments, int64_t default_budget, McpToolCall *ret, char **ret_error);
  /* The same from the arguments' text (an object); NULL: its tree is built for parse. */
  int (*parse_text)(const char *text, size_t len, int64_t default_budget, McpToolCall *ret,
                    char **ret_error);
} McpTool;

static int read_files_parse(JsonNode *arguments, int64_t default_budget, McpToolCall *ret,
                            char **ret_error) {
  return mcp_read_args_parse(arguments, default_budget, &ret->read, ret_error);
}

static int read_files_parse_text(const char *text, size_t len, int64_t default_budget,
                                 McpToolCall *ret, char **ret_error) {
  return mcp_read_args_parse_json(text, len, default_budget, &ret->read, ret_error);
}

static int list_files_parse(JsonNode *arguments, int64_t default_budget, McpToolCall *ret,
                            char **ret_error) {
  return mcp_list_args_parse(arguments, default_budget, &ret->read, ret_error);
}

static int workspace_info_parse(JsonNode *arguments, int64_t default_budget, McpToolCall *ret,
                                char **ret_error) {
  return mcp_workspace_info_args_check(arguments, ret_error);
}

static int read_images_parse(JsonNode *arguments, int64_t default_budget, McpToolCall *ret,
                             char **ret_error) {
  return mcp_read_images_args_parse(arguments, &ret->images, ret_error);
}

static const char *const paths_required[] = {"paths", NULL};
static const char *const paths_query_required[] = {"paths", "query", NULL};

/* In the order tools/list lists them. */
static const McpTool tools[MCP_TOOL_COUNT] = {
    [MCP_TOOL_ID_READ_FILES] = {MCP_TOOL_READ_FILES, "Read files", mcp_read_files_description,
                                paths_required, mcp_read_files_properties, true, false, false,
                                read_files_parse, read_files_parse_text},
    [MCP_TOOL_ID_LIST_FILES] = {MCP_TOOL_LIST_FILES, "List files", mcp_list_files_description, NULL,
                                mcp_list_files_properties, true, false, false, list_files_parse},
    [MCP_TOOL_ID_WORKSPACE_INFO] = {MCP_TOOL_WORKSPACE_INFO, "Workspace info",
                                    mcp_workspace_info_description, NULL,
                                    mcp_workspace_info_properties, true, false, false,
                                    workspace_info_parse},
    [MCP_TOOL_ID_READ_IMAGES] = {MCP_TOOL_READ_IMAGES, "Ask about images",
                                 mcp_read_images_description, paths_query_required,
                                 mcp_read_images_properties, false, true, true, read_images_parse},
};

static void member_bool(JsonBuilder *b, const char *name, bool value) {
  json_builder_set_member_name(b, name);
  json_builder_add_boolean_value(b, value);
}

static void member_string(JsonBuilder *b, const char *name, const char *value) {
  json_builder_set_member_name(b, name);
  json_builder_add_string_value(b, value);
}

/* One tool's entry: name, title, description, inputSchema and annotations. */
static void tool_entry(JsonBuilder *b, const McpTool *t) {
  json_builder_begin_object(b);
  member_string(b, "name", t->name);
  member_string(b, "title", t->title);
  member_string(b, "description", t->description);
  json_builder_set_member_name(b, "inputSchema");
  json_builder_begin_object(b);
  member_string(b, "type", "object");
  member_bool(b, "additionalProperties", false);
  if (t->required != NULL)
    schema_required(b, t->required);
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
  t->properties(b);
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "annotations");
  json_builder_begin_object(b);
  member_string(b, "title", t->title);
  /* Every tool only reads. */
  member_bool(b, "readOnlyHint", true);
  member_bool(b, "destructiveHint", false);
  member_bool(b, "idempotentHint", t->idempotent);
  member_bool(b, "openWorldHint", t->open_world);
  json_builder_end_object(b);
  json_builder_end_object(b);
}

/* tools/list's result, with or without the tools that need a vision model. */
static char *build_list(bool vision) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "tools");
  json_builder_begin_array(b);
  for (size_t i = 0; i < G_N_ELEMENTS(tools); i++)
    if (vision || !tools[i].vision)
      tool_entry(b, &tools[i]);
  json_builder_end_array(b);
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}

const char *mcp_tools_list_json(bool vision) {
  static gsize once = 0;
  static char *lists[2];

  if (g_once_init_enter(&once)) {
    lists[0] = build_list(false);
    lists[1] = build_list(true);
    g_once_init_leave(&once, 1);
  }
  return lists[vision ? 1 : 0];
}

/* The string member `name` of o (may be NULL), or NULL. */
static const char *string_member(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : NULL;
}

/* _meta.progressToken of a request's params, or NULL. */
static JsonNode *progress_token(JsonObject *p) {
  JsonNode *meta = p != NULL ? json_object_get_member(p, "_meta") : NULL;

  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT(meta))
    return NULL;
  return json_object_get_member(json_node_get_object(meta), "progressToken");
}

/* A tool's arguments given as text: by its own text parser, or as their tree. */
static int parse_text(const McpTool *t, const char *text, size_t len, int64_t default_budget,
                      McpToolCall *ret, char **ret_error) {
  g_autoptr(JsonNode) tree = NULL;

  if (t->parse_text != NULL)
    return t->parse_text(text, len, default_budget, ret, ret_error);
  tree = json_tree_build(text, len);
  return t->parse(tree, default_budget, ret, ret_error);
}

int mcp_tool_call_parse(JsonNode *params, const char *arguments_text, size_t arguments_len,
                        bool vision, int64_t default_budget, McpToolCall *ret, char **ret_error) {
  JsonObject *p =
      params != NULL && JSON_NODE_HOLDS_OBJECT(params) ? json_node_get_object(params) : NULL;
  const char *name = string_member(p, "name");

  memset(ret, 0, sizeof(*ret));
  read_params_init(&ret->read);
  for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(tools); i++) {
    if (strcmp(name, tools[i].name) != 0 || (tools[i].vision && !vision))
      continue;
    ret->tool = (McpToolId)i;
    ret->progress_token = progress_token(p);
    if (arguments_text != NULL)
      return parse_text(&tools[i], arguments_text, arguments_len, default_budget, ret, ret_error);
    return tools[i].parse(json_object_get_member(p, "arguments"), default_budget, ret, ret_error);
  }
  *ret_error = g_strdup_printf("unknown tool: %s", name != NULL ? name : "(no name)");
  return -ENOENT;
}

void mcp_tool_call_clear(McpToolCall *call) {
  if (call == NULL)
    return;
  read_params_clear(&call->read);
  read_images_params_clear(&call->images);
  call->progress_token = NULL;
}
