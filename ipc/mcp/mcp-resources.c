#include "ipc/mcp/mcp-resources.h"

#include <string.h>

#include <errno.h>

#include <json-glib/json-glib.h>

#include "ipc/mcp/mcp.h"

static char *to_json(JsonBuilder *b) {
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(b);

  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}

static void member(JsonBuilder *b, const char *name, const char *value) {
  json_builder_set_member_name(b, name);
  json_builder_add_string_value(b, value);
}

char *mcp_resource_templates_json(void) {
  g_autoptr(JsonBuilder) b = json_builder_new();

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "resourceTemplates");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  member(b, "uriTemplate", MCP_RESOURCE_TEMPLATE);
  member(b, "name", "file");
  member(b, "title", "A file in the workspace");
  member(b, "description",
         "A file read as read_files reads it: numbered text, images as pictures, PDF pages, "
         "notebooks, Word, Excel and PowerPoint files; a folder (ending in /) as the list of "
         "what it holds. Only inside the workspace's folders.");
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_end_object(b);
  return to_json(b);
}

char *mcp_resource_roots_json(const char *const *roots) {
  g_autoptr(JsonBuilder) b = json_builder_new();

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "resources");
  json_builder_begin_array(b);
  for (size_t i = 0; roots != NULL && roots[i] != NULL; i++) {
    g_autofree char *uri = g_filename_to_uri(roots[i], NULL, NULL);
    g_autofree char *folder = NULL, *name = g_path_get_basename(roots[i]);

    if (uri == NULL)
      continue;
    folder = g_str_has_suffix(uri, "/") ? g_strdup(uri) : g_strconcat(uri, "/", NULL);
    json_builder_begin_object(b);
    member(b, "uri", folder);
    member(b, "name", name);
    member(b, "title", roots[i]);
    member(b, "description",
           "A folder of the workspace: reading it lists what it holds, with "
           "sizes and what reading each file would cost.");
    member(b, "mimeType", "text/plain");
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  return to_json(b);
}

char *mcp_resource_path(const char *uri, bool *ret_folder) {
  g_autofree char *host = NULL;
  char *path;

  *ret_folder = false;
  if (uri == NULL || !g_str_has_prefix(uri, "file://"))
    return NULL;
  path = g_filename_from_uri(uri, &host, NULL);
  if (path != NULL && host != NULL && strcmp(host, "localhost") != 0)
    g_clear_pointer(&path, g_free);
  *ret_folder = path != NULL && g_str_has_suffix(uri, "/");
  return path;
}

void mcp_resource_contents(GString *piece, const char *uri) {
  static const char text_block[] = "{\"type\":\"text\",\"text\":";
  static const char image_block[] = "{\"type\":\"image\",\"data\":";
  g_autoptr(JsonNode) un = json_node_init_string(json_node_alloc(), uri);
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autofree char *u = NULL, *text_as = NULL, *image_as = NULL;
  GString *out;
  size_t at = 0;

  json_generator_set_root(gen, un);
  u = json_generator_to_data(gen, NULL);
  text_as = g_strdup_printf("{\"uri\":%s,\"mimeType\":\"text/plain\",\"text\":", u);
  image_as = g_strdup_printf("{\"uri\":%s,\"blob\":", u);
  out = g_string_sized_new(piece->len + 256);
  /* Inside a JSON string every '"' is escaped, so these openings only ever begin a block. */
  while (at < piece->len) {
    const char *next = memchr(piece->str + at, '{', piece->len - at);
    size_t left;

    if (next == NULL)
      break;
    g_string_append_len(out, piece->str + at, next - (piece->str + at));
    at = (size_t)(next - piece->str);
    left = piece->len - at;
    if (left >= sizeof(text_block) - 1 && memcmp(next, text_block, sizeof(text_block) - 1) == 0) {
      g_string_append(out, text_as);
      at += sizeof(text_block) - 1;
    } else if (left >= sizeof(image_block) - 1 &&
               memcmp(next, image_block, sizeof(image_block) - 1) == 0) {
      g_string_append(out, image_as);
      at += sizeof(image_block) - 1;
    } else {
      g_string_append_c(out, '{');
      at++;
    }
  }
  g_string_append_len(out, piece->str + at, (gssize)(piece->len - at));
  g_string_truncate(piece, 0);
  g_string_append_len(piece, out->str, (gssize)out->len);
  g_string_free(out, TRUE);
}

/* How well `path` (absolute) answers `value`, lower is better; -1: not at all. Below a root,
 * the path relative to it is what a person types. */
static int rank(const char *const *roots, const char *path, const char *value) {
  const char *rel = path + 1, *base = strrchr(path, '/');
  g_autofree char *lower_path = NULL, *lower_value = NULL;

  for (size_t i = 0; roots != NULL && roots[i] != NULL; i++) {
    size_t n = strlen(roots[i]);

    if (strncmp(path, roots[i], n) == 0 && path[n] == '/') {
      rel = path + n + 1;
      break;
    }
  }
  if (g_str_has_prefix(rel, value))
    return 0;
  if (g_str_has_prefix(path + 1, value))
    return 1;
  if (base != NULL && g_str_has_prefix(base + 1, value))
    return 2;
  lower_path = g_utf8_strdown(rel, -1);
  lower_value = g_utf8_strdown(value, -1);
  if (strstr(lower_path, lower_value) != NULL)
    return 3;
  return -1;
}

typedef struct {
  const char *path;
  int rank;
} Match;

static int match_cmp(const void *a, const void *b) {
  const Match *x = a, *y = b;
  size_t lx = strlen(x->path), ly = strlen(y->path);

  if (x->rank != y->rank)
    return x->rank - y->rank;
  if (lx != ly) /* the nearer file first */
    return lx < ly ? -1 : 1;
  return strcmp(x->path, y->path);
}

char *mcp_completion_json(const char *const *roots, GPtrArray *paths, const char *value) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autofree Match *matches = g_new(Match, paths->len + 1);
  size_t n = 0;

  /* A value typed as the template takes it ("home/me/x") or as a path ("/home/me/x"). */
  while (value[0] == '/')
    value++;
  for (guint i = 0; i < paths->len; i++) {
    int r = rank(roots, paths->pdata[i], value);

    if (r >= 0)
      matches[n++] = (Match){paths->pdata[i], r};
  }
  qsort(matches, n, sizeof(*matches), match_cmp);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "completion");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "values");
  json_builder_begin_array(b);
  for (size_t i = 0; i < n && i < MCP_COMPLETION_MAX; i++)
    json_builder_add_string_value(b, matches[i].path + 1);
  json_builder_end_array(b);
  json_builder_set_member_name(b, "total");
  json_builder_add_int_value(b, (gint64)n);
  json_builder_set_member_name(b, "hasMore");
  json_builder_add_boolean_value(b, n > MCP_COMPLETION_MAX);
  json_builder_end_object(b);
  json_builder_end_object(b);
  return to_json(b);
}

/* The string member `name` of node (an object, or anything else: NULL), or NULL. */
static const char *string_member(JsonNode *node, const char *name) {
  JsonNode *n = node != NULL && JSON_NODE_HOLDS_OBJECT(node)
                    ? json_object_get_member(json_node_get_object(node), name)
                    : NULL;

  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : NULL;
}

/* The member `name` of node when it is an object, or NULL. */
static JsonNode *object_member(JsonNode *node, const char *name) {
  JsonNode *n = node != NULL && JSON_NODE_HOLDS_OBJECT(node)
                    ? json_object_get_member(json_node_get_object(node), name)
                    : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT(n) ? n : NULL;
}

int mcp_resource_read_parse(JsonNode *params, int64_t default_budget, ReadParams *ret,
                            const char **ret_uri, char **ret_error) {
  const char *uri = string_member(params, "uri");
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) args = NULL;
  JsonObject *a;
  JsonArray *paths;
  bool folder;

  path = mcp_resource_path(uri, &folder);
  if (path == NULL) {
    *ret_error = g_strdup("uri must be a local file:// URI (file:///{+path})");
    return -EINVAL;
  }
  /* A file reads as read_files reads it; a folder lists what it holds (the plan). */
  args = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(args, json_object_new());
  a = json_node_get_object(args);
  paths = json_array_new();
  json_array_add_string_element(paths, path);
  json_object_set_array_member(a, "paths", paths);
  json_object_set_boolean_member(a, "expand", folder);
  if (folder)
    json_object_set_boolean_member(a, "plan", TRUE);
  if (mcp_read_args_parse(args, default_budget, ret, ret_error) < 0)
    return -EINVAL;
  *ret_uri = uri;
  return 0;
}

bool mcp_completion_parse(JsonNode *params, const char **ret_value) {
  JsonNode *ref = object_member(params, "ref"), *arg = object_member(params, "argument");
  const char *type = string_member(ref, "type"), *uri = string_member(ref, "uri");
  const char *name = string_member(arg, "name"), *value = string_member(arg, "value");

  *ret_value = value != NULL ? value : "";
  return g_strcmp0(type, "ref/resource") == 0 && g_strcmp0(uri, MCP_RESOURCE_TEMPLATE) == 0 &&
         g_strcmp0(name, "path") == 0;
}
