/* The arguments and answers of the two tools that are not reads of content: list_files (a
 * plan of a read) and workspace_info. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "ipc/mcp/mcp.h"

static int fail(char **ret_error, const char *text) {
  *ret_error = g_strdup(text);
  return -EINVAL;
}

int mcp_list_args_parse(JsonNode *arguments, int64_t default_budget, ReadParams *ret,
                        char **ret_error) {
  static const char *const members[] = {"path", "paths", "ignored", "maxFiles", "skip", NULL};
  g_autoptr(JsonNode) call = NULL;
  JsonObject *o = NULL, *c, *expand;
  JsonNode *path, *paths;
  JsonArray *list;

  if (arguments != NULL && !JSON_NODE_HOLDS_NULL(arguments)) {
    g_autoptr(GList) names = NULL;

    if (!JSON_NODE_HOLDS_OBJECT(arguments))
      return fail(ret_error, "the arguments must be an object");
    o = json_node_get_object(arguments);
    names = json_object_get_members(o);
    for (GList *l = names; l != NULL; l = l->next)
      if (!g_strv_contains(members, l->data)) {
        *ret_error = g_strdup_printf("unknown argument %s", (const char *)l->data);
        return -EINVAL;
      }
  }
  path = o != NULL ? json_object_get_member(o, "path") : NULL;
  paths = o != NULL ? json_object_get_member(o, "paths") : NULL;
  if (path != NULL && paths != NULL)
    return fail(ret_error, "give path or paths, not both");
  if (path != NULL &&
      (!JSON_NODE_HOLDS_VALUE(path) || json_node_get_value_type(path) != G_TYPE_STRING ||
       *json_node_get_string(path) == '\0'))
    return fail(ret_error, "path must be a folder, a glob or a file (a non-empty string)");
  if (paths != NULL &&
      (!JSON_NODE_HOLDS_ARRAY(paths) || json_array_get_length(json_node_get_array(paths)) > 100))
    return fail(ret_error, "paths must be an array of at most 100 folders, globs or files");
  /* The plan of a read of those paths, folders and globs expanded. */
  call = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(call, json_object_new());
  c = json_node_get_object(call);
  if (paths != NULL) {
    json_object_set_member(c, "paths", json_node_copy(paths));
  } else {
    list = json_array_new();
    json_array_add_string_element(list, path != NULL ? json_node_get_string(path) : ".");
    json_object_set_array_member(c, "paths", list);
  }
  json_object_set_boolean_member(c, "plan", TRUE);
  expand = json_object_new();
  for (const char *const *n = (const char *const[]){"ignored", "maxFiles", NULL}; *n != NULL; n++)
    if (o != NULL && json_object_has_member(o, *n))
      json_object_set_member(expand, *n, json_node_copy(json_object_get_member(o, *n)));
  json_object_set_object_member(c, "expand", expand);
  if (o != NULL && json_object_has_member(o, "skip"))
    json_object_set_member(c, "skip", json_node_copy(json_object_get_member(o, "skip")));
  return mcp_read_args_parse(call, default_budget, ret, ret_error);
}

int mcp_workspace_info_args_check(JsonNode *arguments, char **ret_error) {
  if (arguments == NULL || JSON_NODE_HOLDS_NULL(arguments) ||
      (JSON_NODE_HOLDS_OBJECT(arguments) &&
       json_object_get_size(json_node_get_object(arguments)) == 0))
    return 0;
  return fail(ret_error, "workspace_info takes no argument");
}

char *mcp_workspace_info_text(const char *const *roots, const char *source,
                              const char *const *excludes, const char *problem) {
  GString *out = g_string_new(NULL);

  if (roots == NULL || roots[0] == NULL) {
    g_string_append(out, "No folder may be read");
  } else {
    g_string_append(out, "Folders whose files may be read (relative paths resolve against the "
                         "first):\n");
    for (size_t i = 0; roots[i] != NULL; i++)
      g_string_append_printf(out, "  %s\n", roots[i]);
    g_string_append(out, "They come from");
  }
  g_string_append_printf(out, " %s.\n", source);
  if (problem != NULL)
    g_string_append_printf(out, "%s\n", problem);
  if (excludes != NULL && excludes[0] != NULL) {
    g_string_append(out, "Files never read (ACCESS_DENIED), by name or by path under a root:");
    for (size_t i = 0; excludes[i] != NULL; i++)
      g_string_append_printf(out, " %s", excludes[i]);
    g_string_append_c(out, '\n');
  }
  g_string_append(out, "Folders and globs leave out what .gitignore and .ignore files ignore "
                       "(expand.ignored: true in read_files, ignored: true in list_files lists "
                       "them too).");
  return g_string_free(out, FALSE);
}
