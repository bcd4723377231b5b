/* What models send to read_files that its schema does not say, read as what they mean
 * (docs/mcp.md, "Tolerant arguments"): each costs an agent a turn when refused. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "ipc/mcp/mcp.h"

static bool is_string(JsonNode *n) {
  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING;
}

static bool is_int(JsonNode *n) {
  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64;
}

/* offset: 0 as 1 (the first line, as other readers take it), pages: "" as no selection, and
 * start_line/end_line as offset/limit, in one object (the call's or a paths[] item's). */
static int tolerate_lines(JsonObject *o, char **ret_error) {
  JsonNode *offset = json_object_get_member(o, "offset");
  JsonNode *pages = json_object_get_member(o, "pages");
  JsonNode *start = json_object_get_member(o, "start_line");
  JsonNode *end = json_object_get_member(o, "end_line");
  gint64 first;

  if (is_int(offset) && json_node_get_int(offset) == 0)
    json_object_set_int_member(o, "offset", 1);
  if (is_string(pages) && *json_node_get_string(pages) == '\0')
    json_object_remove_member(o, "pages");
  if ((start != NULL && !is_int(start)) || (end != NULL && !is_int(end))) {
    *ret_error = g_strdup("start_line and end_line must be line numbers (integers)");
    return -EINVAL;
  }
  if (start != NULL && json_object_has_member(o, "offset")) {
    *ret_error = g_strdup("give offset or start_line, not both");
    return -EINVAL;
  }
  if (end != NULL && json_object_has_member(o, "limit")) {
    *ret_error = g_strdup("give limit or end_line, not both");
    return -EINVAL;
  }
  first = start != NULL ? MAX(json_node_get_int(start), 1) : 1;
  if (end != NULL && json_node_get_int(end) < first) {
    *ret_error = g_strdup_printf("end_line (%" G_GINT64_FORMAT
                                 ") is before start_line (%" G_GINT64_FORMAT ")",
                                 json_node_get_int(end), first);
    return -EINVAL;
  }
  if (start != NULL)
    json_object_set_int_member(o, "offset", first);
  if (end != NULL)
    json_object_set_int_member(o, "limit", json_node_get_int(end) - first + 1);
  json_object_remove_member(o, "start_line");
  json_object_remove_member(o, "end_line");
  return 0;
}

int mcp_args_tolerate(JsonNode *arguments, JsonNode **ret, char **ret_error) {
  g_autoptr(JsonNode) copy = NULL;
  JsonObject *o;
  JsonNode *paths, *one = NULL;
  const char *one_name = NULL;

  *ret = NULL;
  if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT(arguments))
    return 0;
  copy = json_node_copy(arguments);
  o = json_node_get_object(copy);
  for (const char *const *n = (const char *const[]){"path", "file_path", NULL}; *n != NULL; n++) {
    JsonNode *v = json_object_get_member(o, *n);

    if (v == NULL)
      continue;
    if (one != NULL || json_object_has_member(o, "paths")) {
      *ret_error = g_strdup_printf("give paths, or one path as %s, not both", *n);
      return -EINVAL;
    }
    if (!is_string(v)) {
      *ret_error = g_strdup_printf("%s must be a path (a string)", *n);
      return -EINVAL;
    }
    one = v;
    one_name = *n;
  }
  /* One path named as `path` or `file_path` is paths: [it]. */
  if (one != NULL) {
    JsonArray *a = json_array_new();

    json_array_add_element(a, json_node_copy(one));
    json_object_set_array_member(o, "paths", a);
    json_object_remove_member(o, one_name);
  }
  if (tolerate_lines(o, ret_error) < 0)
    return -EINVAL;
  paths = json_object_get_member(o, "paths");
  for (guint i = 0; paths != NULL && JSON_NODE_HOLDS_ARRAY(paths) &&
                    i < json_array_get_length(json_node_get_array(paths));
       i++) {
    JsonNode *item = json_array_get_element(json_node_get_array(paths), i);

    if (JSON_NODE_HOLDS_OBJECT(item) && tolerate_lines(json_node_get_object(item), ret_error) < 0)
      return -EINVAL;
  }
  *ret = g_steal_pointer(&copy);
  return 0;
}
