#include "ipc/mcp/mcp.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "formatters/format.h"

static int fail(char **ret_error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static int fail(char **ret_error, const char *fmt, ...) {
  va_list ap;

  va_start(ap, fmt);
  *ret_error = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  return -EINVAL;
}

/* The first member of o not in `allowed` (NULL-terminated), or NULL when there is none. */
static const char *unknown_member(JsonObject *o, const char *const *allowed) {
  g_autoptr(GList) names = json_object_get_members(o);

  for (GList *l = names; l != NULL; l = l->next)
    if (!g_strv_contains(allowed, l->data))
      return l->data; /* the object's own key: lives as long as o */
  return NULL;
}

/* Refuses members of o not in `allowed` (NULL-terminated); `where` names o in the message. */
static int only_members(JsonObject *o, const char *const *allowed, const char *where,
                        char **ret_error) {
  const char *name = unknown_member(o, allowed);

  if (name != NULL)
    return fail(ret_error, "unknown argument %s%s%s", where, *where ? "." : "", name);
  return 0;
}

/* Copies paths[] into out, giving items without their own pages/render the call's. Without
 * either, the array goes as it is (a copy shares its items): a call of thousands of paths
 * does not copy each. */
static int copy_paths(JsonNode *paths, JsonNode *pages, JsonNode *render, JsonBuilder *out,
                      char **ret_error) {
  static const char *const item_members[] = {"path",   "pathBytes", "offset",   "limit",
                                             "tail",   "column",    "pages",    "render",
                                             "password", "encoding", NULL};
  JsonArray *a;

  if (paths == NULL || !JSON_NODE_HOLDS_ARRAY(paths))
    return fail(ret_error, "paths must be a non-empty array of paths");
  a = json_node_get_array(paths);
  for (guint i = 0; i < json_array_get_length(a); i++) {
    JsonNode *item = json_array_get_element(a, i);
    const char *name =
        JSON_NODE_HOLDS_OBJECT(item) ? unknown_member(json_node_get_object(item), item_members)
                                     : NULL;

    if (name != NULL)
      return fail(ret_error, "unknown argument paths[%u].%s", i, name);
  }
  json_builder_set_member_name(out, "paths");
  if (pages == NULL && render == NULL) {
    json_builder_add_value(out, json_node_copy(paths));
    return 0;
  }
  json_builder_begin_array(out);
  for (guint i = 0; i < json_array_get_length(a); i++) {
    JsonNode *item = json_array_get_element(a, i);

    if (!(JSON_NODE_HOLDS_OBJECT(item) || JSON_NODE_HOLDS_VALUE(item))) {
      json_builder_add_value(out, json_node_copy(item));
      continue;
    }
    json_builder_begin_object(out);
    if (JSON_NODE_HOLDS_VALUE(item)) {
      json_builder_set_member_name(out, "path");
      json_builder_add_value(out, json_node_copy(item));
    } else {
      JsonObject *o = json_node_get_object(item);
      g_autoptr(GList) names = json_object_get_members(o);

      for (GList *l = names; l != NULL; l = l->next) {
        json_builder_set_member_name(out, l->data);
        json_builder_add_value(out, json_node_copy(json_object_get_member(o, l->data)));
      }
    }
    if (pages != NULL && !(JSON_NODE_HOLDS_OBJECT(item) &&
                           json_object_has_member(json_node_get_object(item), "pages"))) {
      json_builder_set_member_name(out, "pages");
      json_builder_add_value(out, json_node_copy(pages));
    }
    if (render != NULL && !(JSON_NODE_HOLDS_OBJECT(item) &&
                            json_object_has_member(json_node_get_object(item), "render"))) {
      json_builder_set_member_name(out, "render");
      json_builder_add_value(out, json_node_copy(render));
    }
    json_builder_end_object(out);
  }
  json_builder_end_array(out);
  return 0;
}

/* True when the call sets images.maxTotalBytes itself. */
static bool mcp_images_budget_given(JsonObject *o) {
  JsonNode *images = json_object_get_member(o, "images");

  return images != NULL && JSON_NODE_HOLDS_OBJECT(images) &&
         json_object_has_member(json_node_get_object(images), "maxTotalBytes");
}

int mcp_read_args_parse(JsonNode *arguments, int64_t default_budget, ReadParams *ret,
                        char **ret_error) {
  static const char *const members[] = {"paths",  "offset", "limit",    "tail",        "pages",
                                        "render", "images", "expand",   "ifNoneMatch", "budget",
                                        "plan",   "skip",   "encoding", NULL};
  static const char *const passed[] = {"offset",      "limit",  "tail", "images", "expand",
                                       "ifNoneMatch", "budget", "plan", "skip",   "encoding"};
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonNode) params = NULL, tolerated = NULL;
  JsonObject *o;
  JsonNode *pages, *render;

  if (mcp_args_tolerate(arguments, &tolerated, ret_error) < 0)
    return -EINVAL;
  arguments = tolerated;
  if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT(arguments))
    return fail(ret_error, "the arguments must be an object with paths");
  o = json_node_get_object(arguments);
  if (only_members(o, members, "", ret_error) < 0)
    return -EINVAL;
  pages = json_object_get_member(o, "pages");
  render = json_object_get_member(o, "render");
  if (pages != NULL &&
      (!JSON_NODE_HOLDS_VALUE(pages) || json_node_get_value_type(pages) != G_TYPE_STRING ||
       !read_params_pages_valid(json_node_get_string(pages))))
    return fail(ret_error, "pages must be a page selection like \"3\", \"2-5\" or \"1,28-\"");
  if (render != NULL &&
      (!JSON_NODE_HOLDS_VALUE(render) || json_node_get_value_type(render) != G_TYPE_BOOLEAN))
    return fail(ret_error, "render must be a boolean");
  json_builder_begin_object(b);
  if (copy_paths(json_object_get_member(o, "paths"), pages, render, b, ret_error) < 0)
    return -EINVAL;
  for (size_t i = 0; i < G_N_ELEMENTS(passed); i++) {
    JsonNode *v = json_object_get_member(o, passed[i]);

    if (v == NULL)
      continue;
    json_builder_set_member_name(b, passed[i]);
    json_builder_add_value(b, json_node_copy(v));
  }
  json_builder_end_object(b);
  params = json_builder_get_root(b);
  if (read_params_parse(params, ret, ret_error) < 0)
    return -EINVAL;
  ret->format = format_get("mcp")->name;
  ret->max_answer_bytes = MCP_MAX_ANSWER_BYTES;
  /* An agent that names a folder means the files in it. */
  if (json_object_get_member(o, "expand") == NULL ||
      JSON_NODE_HOLDS_NULL(json_object_get_member(o, "expand")))
    ret->expand.on = true;
  if (!json_object_has_member(o, "budget"))
    ret->budget_tokens = default_budget;
  if (!mcp_images_budget_given(o))
    ret->max_total_image_bytes = MCP_DEFAULT_MAX_IMAGE_BYTES;
  return 0;
}

int mcp_read_images_args_parse(JsonNode *arguments, ReadImagesParams *ret, char **ret_error) {
  static const char *const members[] = {"paths", "query",     "detail", "pages",
                                        "model", "maxTokens", NULL};

  memset(ret, 0, sizeof(*ret));
  if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT(arguments))
    return fail(ret_error, "the arguments must be an object with paths and query");
  if (only_members(json_node_get_object(arguments), members, "", ret_error) < 0)
    return -EINVAL;
  return read_images_params_parse(arguments, ret, ret_error);
}

char *mcp_tool_text_json(const char *text, bool is_error) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "content");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "text");
  json_builder_set_member_name(b, "text");
  json_builder_add_string_value(b, text);
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_set_member_name(b, "isError");
  json_builder_add_boolean_value(b, is_error);
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}

char *mcp_tool_error_json(const char *message) {
  return mcp_tool_text_json(message, true);
}

/* The local folder of one root, or NULL with *ret_why (static) saying why it is not usable. */
static char *root_path(JsonNode *r, const char **ret_why) {
  g_autofree char *host = NULL;
  JsonNode *node = NULL;
  const char *uri;
  char *path;

  if (JSON_NODE_HOLDS_OBJECT(r))
    node = json_object_get_member(json_node_get_object(r), "uri");
  if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
      json_node_get_value_type(node) != G_TYPE_STRING) {
    *ret_why = "it has no uri";
    return NULL;
  }
  uri = json_node_get_string(node);
  if (g_ascii_strncasecmp(uri, "file:", 5) != 0) {
    *ret_why = "it is not a file:// URI";
    return NULL;
  }
  /* GLib refuses an escaped NUL or '/' and a relative path; a host other than this one names
   * another machine's folder. */
  path = g_filename_from_uri(uri, &host, NULL);
  if (path == NULL) {
    *ret_why = "it is not a valid file:// URI of an absolute path";
    return NULL;
  }
  if (host != NULL && g_ascii_strcasecmp(host, "localhost") != 0) {
    g_free(path);
    *ret_why = "it names a folder on another host";
    return NULL;
  }
  return path;
}

int mcp_roots_parse(JsonNode *result, char ***ret_paths, char ***ret_skipped, char **ret_error) {
  g_autoptr(GPtrArray) out = NULL, skipped = NULL;
  JsonArray *roots;
  JsonNode *node;

  if (result == NULL || !JSON_NODE_HOLDS_OBJECT(result) ||
      (node = json_object_get_member(json_node_get_object(result), "roots")) == NULL ||
      !JSON_NODE_HOLDS_ARRAY(node))
    return fail(ret_error, "roots/list answered without a roots array");
  roots = json_node_get_array(node);
  out = g_ptr_array_new_with_free_func(g_free);
  skipped = g_ptr_array_new_with_free_func(g_free);
  /* Each root on its own: one that cannot be used is left out, never the reason to fall back
   * on a wider fence. */
  for (guint i = 0; i < json_array_get_length(roots); i++) {
    const char *why = NULL;
    char *path = root_path(json_array_get_element(roots, i), &why);

    if (path != NULL)
      g_ptr_array_add(out, path);
    else
      g_ptr_array_add(skipped, g_strdup_printf("roots[%u] is left out: %s", i, why));
  }
  g_ptr_array_add(out, NULL);
  g_ptr_array_add(skipped, NULL);
  *ret_paths = (char **)g_ptr_array_free(g_steal_pointer(&out), FALSE);
  if (ret_skipped != NULL)
    *ret_skipped = (char **)g_ptr_array_free(g_steal_pointer(&skipped), FALSE);
  return 0;
}

/* Serializes a node (a string or a number) for a line. */
static char *node_text(JsonNode *n) {
  g_autoptr(JsonGenerator) gen = json_generator_new();

  json_generator_set_root(gen, n);
  return json_generator_to_data(gen, NULL);
}

char *mcp_progress_line(JsonNode *token, size_t done, size_t total, size_t *ret_len) {
  g_autofree char *t = node_text(token);
  char *line = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":"
      "%s,\"progress\":%zu,\"total\":%zu,\"message\":\"%zu of %zu files read\"}}\n",
      t, done, total, done, total);

  *ret_len = strlen(line);
  return line;
}

char *mcp_request_line(const char *id, const char *method, size_t *ret_len) {
  g_autoptr(JsonNode) idn = json_node_init_string(json_node_alloc(), id);
  g_autoptr(JsonNode) mn = json_node_init_string(json_node_alloc(), method);
  g_autofree char *i = node_text(idn), *m = node_text(mn);
  char *line = g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%s}\n", i, m);

  *ret_len = strlen(line);
  return line;
}

/* The default budget of each client, by initialize's clientInfo.name: what it takes of one
 * tool result where that is documented (docs/mcp.md gives each figure's source), never more
 * than the default. A limit in characters is priced at 5 characters a token, which code and
 * prose rarely pass, so that the answer stays within it. Any other client gets the default. */
static const struct {
  const char *name; /* initialize's clientInfo.name, as the client sends it */
  int64_t tokens;
} client_budgets[] = {
    {"claude-code", 25000},           /* MAX_MCP_OUTPUT_TOKENS: 25,000 tokens */
    {"codex-mcp-client", 10000},      /* tool_output_token_limit: about 10,000 tokens */
    {"gemini-cli-mcp-client", 8000},  /* 40,000 characters of a tool's output */
    {"opencode", 10000},              /* 50 KiB or 2,000 lines of a tool's output */
    {"Cline", MCP_DEFAULT_BUDGET_TOKENS},              /* 400 KB */
    {"claude-ai", MCP_DEFAULT_BUDGET_TOKENS},          /* Claude Desktop: 1 MiB */
    {"Visual Studio Code", MCP_DEFAULT_BUDGET_TOKENS}, /* no figure documented */
};

int64_t mcp_client_budget(const char *client_name) {
  for (size_t i = 0; client_name != NULL && i < G_N_ELEMENTS(client_budgets); i++)
    if (strcmp(client_name, client_budgets[i].name) == 0)
      return client_budgets[i].tokens;
  return MCP_DEFAULT_BUDGET_TOKENS;
}

char *mcp_read_result_tail(size_t chars, bool modern, size_t *ret_len) {
  const char *era = modern ? ",\"resultType\":\"complete\"" : "";
  char *tail;

  if (chars <= MCP_INLINE_RESULT_CHARS) {
    tail = g_strdup_printf(",\"isError\":false%s}}\n", era);
  } else {
    /* Room for the envelope too, rounded up to a thousand. */
    size_t want = MIN((chars + 999) / 1000 * 1000 + 1000, (size_t)MCP_MAX_RESULT_SIZE_CHARS);

    tail = g_strdup_printf(
        ",\"isError\":false%s,\"_meta\":{\"anthropic/maxResultSizeChars\":%zu}}}\n", era, want);
  }
  *ret_len = strlen(tail);
  return tail;
}
