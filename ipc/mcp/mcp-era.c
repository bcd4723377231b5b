#include "ipc/mcp/mcp-era.h"

#include <errno.h>
#include <string.h>

#include <glib.h>

#include "ipc/mcp/mcp-log.h"

/* Newest first, as server/discover lists them. */
static const char *const legacy_versions[] = {MCP_PROTOCOL_LATEST, "2025-06-18", "2025-03-26",
                                              "2024-11-05"};
static const char *const modern_versions[] = {MCP_PROTOCOL_MODERN};

#define INSTRUCTIONS                                                                               \
  "Use read_files to read files: many in one call, with line numbers, pictures of images and "     \
  "PDF pages, and a clear error for each file that cannot be read. list_files says what a "        \
  "folder or glob holds and what reading it would cost; workspace_info says which folders may "    \
  "be read. Files are also resources: file:///{+path}."

const char *mcp_protocol_version(const char *requested) {
  for (size_t i = 0; requested != NULL && i < G_N_ELEMENTS(legacy_versions); i++)
    if (strcmp(requested, legacy_versions[i]) == 0)
      return legacy_versions[i];
  return MCP_PROTOCOL_LATEST;
}

static JsonObject *member_object(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static const char *member_string(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : NULL;
}

int mcp_request_meta(JsonNode *params, McpRequestMeta *ret) {
  JsonObject *p =
      params != NULL && JSON_NODE_HOLDS_OBJECT(params) ? json_node_get_object(params) : NULL;
  JsonObject *meta = member_object(p, "_meta"), *caps, *info;
  const char *version, *level;

  memset(ret, 0, sizeof(*ret));
  ret->log_level = -1;
  if (meta == NULL || !json_object_has_member(meta, MCP_META_PROTOCOL_VERSION))
    return 0;
  version = member_string(meta, MCP_META_PROTOCOL_VERSION);
  if (version == NULL)
    return -EINVAL;
  ret->asked = version;
  caps = member_object(meta, MCP_META_CLIENT_CAPABILITIES);
  ret->roots = caps != NULL && json_object_has_member(caps, "roots");
  info = member_object(meta, MCP_META_CLIENT_INFO);
  ret->client = member_string(info, "name");
  level = member_string(meta, MCP_META_LOG_LEVEL);
  ret->log_level = level != NULL ? mcp_log_level(level) : -1;
  for (size_t i = 0; i < G_N_ELEMENTS(modern_versions); i++) {
    if (strcmp(version, modern_versions[i]) == 0) {
      ret->modern = true;
      ret->version = modern_versions[i];
      return 0;
    }
  }
  /* A revision of the initialize era named in _meta is not a stateless request. */
  for (size_t i = 0; i < G_N_ELEMENTS(legacy_versions); i++) {
    if (strcmp(version, legacy_versions[i]) == 0) {
      ret->version = legacy_versions[i];
      return 0;
    }
  }
  return MCP_UNSUPPORTED_PROTOCOL_VERSION;
}

static char *to_json(JsonBuilder *b) {
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);

  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}

static void add_versions(JsonBuilder *b) {
  json_builder_begin_array(b);
  for (size_t i = 0; i < G_N_ELEMENTS(modern_versions); i++)
    json_builder_add_string_value(b, modern_versions[i]);
  for (size_t i = 0; i < G_N_ELEMENTS(legacy_versions); i++)
    json_builder_add_string_value(b, legacy_versions[i]);
  json_builder_end_array(b);
}

char *mcp_unsupported_version_data(const char *requested) {
  g_autoptr(JsonBuilder) b = json_builder_new();

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "supported");
  add_versions(b);
  json_builder_set_member_name(b, "requested");
  if (requested != NULL)
    json_builder_add_string_value(b, requested);
  else
    json_builder_add_null_value(b);
  json_builder_end_object(b);
  return to_json(b);
}

/* {} as a member's value. */
static void empty_object(JsonBuilder *b, const char *name) {
  json_builder_set_member_name(b, name);
  json_builder_begin_object(b);
  json_builder_end_object(b);
}

void mcp_capabilities_build(JsonBuilder *b) {
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "tools");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "listChanged");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "resources");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "listChanged");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_set_member_name(b, "subscribe");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_end_object(b);
  empty_object(b, "completions");
  empty_object(b, "logging");
  json_builder_end_object(b);
}

static void server_info_build(JsonBuilder *b) {
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "title");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "version");
  json_builder_add_string_value(b, READERD_VERSION);
  json_builder_end_object(b);
}

char *mcp_initialize_result_json(const char *version) {
  g_autoptr(JsonBuilder) b = json_builder_new();

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "protocolVersion");
  json_builder_add_string_value(b, version);
  json_builder_set_member_name(b, "capabilities");
  mcp_capabilities_build(b);
  json_builder_set_member_name(b, "serverInfo");
  server_info_build(b);
  json_builder_set_member_name(b, "instructions");
  json_builder_add_string_value(b, INSTRUCTIONS);
  json_builder_end_object(b);
  return to_json(b);
}

/* The server's tools, resources and capabilities do not change while it runs: a client may
 * keep what it was told for an hour. */
#define DISCOVER_TTL_MS 3600000

char *mcp_discover_result_json(void) {
  g_autoptr(JsonBuilder) b = json_builder_new();

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "supportedVersions");
  add_versions(b);
  json_builder_set_member_name(b, "capabilities");
  mcp_capabilities_build(b);
  json_builder_set_member_name(b, "instructions");
  json_builder_add_string_value(b, INSTRUCTIONS);
  json_builder_set_member_name(b, "_meta");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, MCP_META_SERVER_INFO);
  server_info_build(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "resultType");
  json_builder_add_string_value(b, "complete");
  json_builder_set_member_name(b, "ttlMs");
  json_builder_add_int_value(b, DISCOVER_TTL_MS);
  json_builder_set_member_name(b, "cacheScope");
  json_builder_add_string_value(b, "public");
  json_builder_end_object(b);
  return to_json(b);
}

char *mcp_result_modern_members(const McpCache *cache) {
  if (cache == NULL || cache->cache_scope == NULL)
    return g_strdup(",\"resultType\":\"complete\"");
  return g_strdup_printf(",\"resultType\":\"complete\",\"ttlMs\":%ld,\"cacheScope\":\"%s\"",
                         cache->ttl_ms, cache->cache_scope);
}

char *mcp_result_modern(const char *result_json, const McpCache *cache) {
  g_autofree char *members = mcp_result_modern_members(cache);
  const char *end = strrchr(result_json, '}');
  size_t head;

  if (end == NULL) /* not an object: nothing to add to */
    return g_strdup(result_json);
  head = (size_t)(end - result_json);
  /* An empty object takes the members without the comma that separates them. */
  while (head > 0 && g_ascii_isspace(result_json[head - 1]))
    head--;
  if (head > 0 && result_json[head - 1] == '{')
    return g_strdup_printf("%.*s%s%s", (int)head, result_json, members + 1, end);
  return g_strdup_printf("%.*s%s%s", (int)head, result_json, members, end);
}
