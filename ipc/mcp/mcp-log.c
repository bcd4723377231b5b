#include "ipc/mcp/mcp-log.h"

#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

static const char *const names[] = {
    [MCP_LOG_DEBUG] = "debug",   [MCP_LOG_INFO] = "info",
    [MCP_LOG_NOTICE] = "notice", [MCP_LOG_WARNING] = "warning",
    [MCP_LOG_ERROR] = "error",   [MCP_LOG_CRITICAL] = "critical",
    [MCP_LOG_ALERT] = "alert",   [MCP_LOG_EMERGENCY] = "emergency",
};

int mcp_log_level(const char *name) {
  for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(names); i++)
    if (strcmp(name, names[i]) == 0)
      return (int)i;
  return -1;
}

const char *mcp_log_level_name(McpLogLevel level) {
  return (size_t)level < G_N_ELEMENTS(names) ? names[level] : "info";
}

char *mcp_log_line(McpLogLevel level, const char *text, size_t *ret_len) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  char *line;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "jsonrpc");
  json_builder_add_string_value(b, "2.0");
  json_builder_set_member_name(b, "method");
  json_builder_add_string_value(b, "notifications/message");
  json_builder_set_member_name(b, "params");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "level");
  json_builder_add_string_value(b, mcp_log_level_name(level));
  json_builder_set_member_name(b, "logger");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "data");
  json_builder_add_string_value(b, text);
  json_builder_end_object(b);
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  json = json_generator_to_data(gen, NULL);
  line = g_strconcat(json, "\n", NULL);
  *ret_len = strlen(line);
  return line;
}
