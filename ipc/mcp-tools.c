/* tools/list: read_files (ipc/mcp.c), list_files and workspace_info built here, read_images
 * with a vision model; and the arguments and answers of the two tools that are not reads. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "ipc/mcp.h"

#define LIST_FILES_DESCRIPTION                                                                     \
  "Lists what a folder or glob holds without reading it: each file with its type (text, image, "   \
  "pdf, notebook, document; a binary file says omitted='binary'), size, lines and the tokens "     \
  "reading it would cost (readerd's plan of a read). Use it before read_files to choose what to "  \
  "read in a large folder, or to find files by glob (src/**/*.test.ts). Files that .gitignore "    \
  "and .ignore files ignore are left out unless ignored is true; secrets and files outside the "   \
  "workspace are refused. The listing fits the same budget as a read: past it, an <Omitted> "      \
  "element names the skip that lists the rest."

#define WORKSPACE_INFO_DESCRIPTION                                                                 \
  "Says where files may be read: the folders of the workspace (relative paths resolve against "    \
  "the "                                                                                           \
  "first), where they come from, and the patterns of files never read. Use it when a file comes "  \
  "back ACCESS_DENIED or outside the workspace, or to learn the root before using relative paths."

/* One JSON Schema property: {type, description}. */
static void property(JsonBuilder *b, const char *name, const char *type, const char *description) {
  json_builder_set_member_name(b, name);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, type);
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, description);
  json_builder_end_object(b);
}

/* The annotations of a tool that only reads the machine's files. */
static void read_only(JsonBuilder *b, const char *title) {
  json_builder_set_member_name(b, "annotations");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "title");
  json_builder_add_string_value(b, title);
  json_builder_set_member_name(b, "readOnlyHint");
  json_builder_add_boolean_value(b, TRUE);
  json_builder_set_member_name(b, "destructiveHint");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_set_member_name(b, "idempotentHint");
  json_builder_add_boolean_value(b, TRUE);
  json_builder_set_member_name(b, "openWorldHint");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_end_object(b);
}

/* Opens a tool's entry up to the properties of its input schema. */
static void tool_begin(JsonBuilder *b, const char *name, const char *title,
                       const char *description) {
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, name);
  json_builder_set_member_name(b, "title");
  json_builder_add_string_value(b, title);
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, description);
  json_builder_set_member_name(b, "inputSchema");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "object");
  json_builder_set_member_name(b, "additionalProperties");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
}

/* Closes the properties and the schema, and adds the annotations. */
static void tool_end(JsonBuilder *b, const char *title) {
  json_builder_end_object(b);
  json_builder_end_object(b);
  read_only(b, title);
  json_builder_end_object(b);
}

static void list_files_tool(JsonBuilder *b) {
  tool_begin(b, MCP_TOOL_LIST_FILES, "List files", LIST_FILES_DESCRIPTION);
  property(b, "path", "string",
           "The folder or glob to list (default: the workspace root), as in read_files' paths.");
  json_builder_set_member_name(b, "paths");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "array");
  json_builder_set_member_name(b, "minItems");
  json_builder_add_int_value(b, 1);
  json_builder_set_member_name(b, "maxItems");
  json_builder_add_int_value(b, 100);
  json_builder_set_member_name(b, "items");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "string");
  json_builder_set_member_name(b, "minLength");
  json_builder_add_int_value(b, 1);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, "Several folders, globs or files at once, instead of path.");
  json_builder_end_object(b);
  property(b, "ignored", "boolean",
           "Also files that .gitignore or .ignore leave out (default false).");
  property(b, "maxFiles", "integer",
           "Files per folder or glob at most (default 500, at most 10000).");
  property(b, "skip", "integer", "List from this entry on: the skip an <Omitted> element names.");
  tool_end(b, "List files");
}

static void workspace_info_tool(JsonBuilder *b) {
  tool_begin(b, MCP_TOOL_WORKSPACE_INFO, "Workspace info", WORKSPACE_INFO_DESCRIPTION);
  tool_end(b, "Workspace info");
}

/* The list with or without read_images: built once each. */
static char *build_list(bool vision) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *built = NULL;
  GString *out = g_string_new("{\"tools\":[");

  /* The built entries, then read_files' and read_images' texts around them. */
  json_builder_begin_array(b);
  list_files_tool(b);
  workspace_info_tool(b);
  json_builder_end_array(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  built = json_generator_to_data(gen, NULL);
  g_string_append(out, mcp_read_files_tool_json());
  g_string_append_c(out, ',');
  g_string_append_len(out, built + 1, (gssize)strlen(built) - 2);
  if (vision) {
    g_string_append_c(out, ',');
    g_string_append(out, mcp_read_images_tool_json());
  }
  g_string_append(out, "]}");
  return g_string_free(out, FALSE);
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
