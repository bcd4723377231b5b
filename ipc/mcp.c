#include "ipc/mcp.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "formatters/format.h"

static const char *const versions[] = {MCP_PROTOCOL_LATEST, "2025-03-26", "2024-11-05"};

/* What the model reads about the tool: what it reads, how each file comes back, the limits
 * and how to go on past them. */
#define READ_FILES_DESCRIPTION                                                                     \
  "Reads one or more files at once and returns their contents: use it instead of reading files "   \
  "one by one. Text files come back with line numbers (cat -n), their size, line count, "          \
  "encoding, modification time and etag, each in a <Content path='...'> element; images come "     \
  "back as pictures you can see (scaled to fit, EXIF orientation applied); PDFs page by page, "    \
  "as text, with pictures of scanned pages (or of every page with render: true); Jupyter "         \
  "notebooks as their cells and outputs (output pictures included); Word, Excel and PowerPoint "   \
  "files (DOCX, XLSX, PPTX) as their text, tables as rows, slides with their notes. A file that "  \
  "cannot be read gets a <Content> with code='...' and error='...' (FILE_NOT_FOUND, "              \
  "IS_DIRECTORY, ACCESS_DENIED, ...) while the others are still read. Limits: 2000 lines and "     \
  "100 KiB of text per file, 20 PDF pages per read, 5 MiB per picture, 8 MiB per call; when a "    \
  "file is cut, its element says so and gives the offset or pages to read next (files past the "  \
  "call's 8 MiB come back in one <Omitted> element: read them with its skip). "                    \
  "A folder or a glob (src/, src/**/*.test.ts) reads the files under it, sorted, leaving out "     \
  "what .gitignore and .ignore files ignore and listing binary files unread; each such file "      \
  "says from='N' (its folder's index in paths), and a <Notice> follows when files were left out. " \
  "To read again a file you already have, pass ifNoneMatch {path: etag}: while it has not "        \
  "changed it comes back as unchanged='true', without its content. The answer fits a budget of "   \
  "25,000 estimated tokens (content and markup) unless `budget` says otherwise: files come in "    \
  "order, each within a fair share; files past it are listed with omitted='budget', their size "   \
  "and tokensTotal, and the rest counted in one <Omitted> element whose skip='N' reads them in "   \
  "the next call (the same arguments plus skip); `plan: true` says what reading would cost "       \
  "before reading. Relative paths resolve "                                                        \
  "against the workspace root; files outside it, and secrets such as .env files and private "      \
  "keys, are refused."

static const char tools_list[] =
    "{\"tools\":[{\"name\":\"" MCP_TOOL_READ_FILES "\",\"title\":\"Read files\","
    "\"description\":\"" READ_FILES_DESCRIPTION "\","
    "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"paths\"],"
    "\"properties\":{"
    "\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":10000,"
    "\"description\":\"The files to read, in the order their results should come back: a path, "
    "or an object with the path and its own options.\","
    "\"items\":{\"anyOf\":[{\"type\":\"string\",\"minLength\":1},"
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"path\"],\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"First line to show.\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Lines to show.\"},"
    "\"tail\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The last lines to show, "
    "instead of offset and limit.\"},"
    "\"column\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Line offset shown from "
    "this character, as a cut line's marker says.\"},"
    "\"pages\":{\"type\":\"string\",\"description\":\"PDF pages, such as \\\"1-3,7\\\" or "
    "\\\"21-\\\".\"},"
    "\"render\":{\"type\":\"boolean\",\"description\":\"Pictures of the PDF's pages; an SVG as a "
    "picture.\"},"
    "\"password\":{\"type\":\"string\",\"description\":\"The PDF's password.\"}}}]}},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"First line to show of every "
    "text file (default 1).\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"Lines to show of every text "
    "file (default 2000).\"},"
    "\"tail\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The last lines to show of "
    "every text file, instead of offset and limit.\"},"
    "\"pages\":{\"type\":\"string\",\"description\":\"PDF pages to read of every PDF without its "
    "own, such as \\\"1-3,7\\\" (default: the first 20).\"},"
    "\"render\":{\"type\":\"boolean\",\"description\":\"Pictures of every PDF page shown, not "
    "only of scanned ones; SVG files as pictures.\"},"
    "\"expand\":{\"description\":\"Folders and globs in paths read as the files under them "
    "(default true); false answers IS_DIRECTORY for a folder.\",\"anyOf\":[{\"type\":\"boolean\"},"
    "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"maxFiles\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,\"description\":"
    "\"Files per folder or glob at most (default 500).\"},"
    "\"ignored\":{\"type\":\"boolean\",\"description\":\"Also files that .gitignore or .ignore "
    "leave out (default false).\"},"
    "\"binary\":{\"type\":\"boolean\",\"description\":\"Read binary files rather than list "
    "them (default false).\"}}}]},"
    "\"images\":{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{"
    "\"maxDimension\":{\"type\":\"integer\",\"minimum\":16,\"maximum\":8000,\"description\":"
    "\"Long edge of pictures, in pixels (default 1568).\"},"
    "\"maxTotalBytes\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Base64 bytes of all "
    "pictures of the call (default 8 MiB).\"},"
    "\"tile\":{\"type\":\"string\",\"enum\":[\"auto\",\"never\",\"always\"],\"description\":"
    "\"Tall or wide pictures (a scrolled screenshot) as overlapping tiles, each labelled with its "
    "place (default auto: when scaling would shrink one beyond 2.5:1 below half).\"}}},"
    "\"ifNoneMatch\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\","
    "\"minLength\":1},\"description\":\"For files read before: path (as given then) to the etag "
    "its <Content> had. A file still the same comes back as unchanged='true' without its "
    "content.\"},"
    "\"budget\":{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"tokens\"],"
    "\"description\":\"Estimated tokens the whole answer may take, content and markup (default "
    "25000): files in order, each within a fair share; files left out are listed with "
    "omitted='budget', their size and tokensTotal, the rest counted in one <Omitted> element "
    "that names the skip to read them with.\",\"properties\":{"
    "\"tokens\":{\"type\":\"integer\",\"minimum\":1}}},"
    "\"skip\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000,\"description\":"
    "\"Answer the entries (after folders and globs are expanded) from this index on: the skip "
    "an <Omitted> element names, with the same other arguments.\"},"
    "\"plan\":{\"type\":\"boolean\",\"description\":\"Say what each file is and what reading it "
    "would cost (tokens, tokensTotal), without its content.\"}}},"
    "\"annotations\":{\"title\":\"Read files\",\"readOnlyHint\":true,\"destructiveHint\":false,"
    "\"idempotentHint\":true,\"openWorldHint\":false}}]}";

#define READ_IMAGES_TOOL                                                                           \
  "{\"name\":\"" MCP_TOOL_READ_IMAGES "\",\"title\":\"Ask about images\","                         \
  "\"description\":\"Ask a vision model a question about images and PDF pages (figures, charts, "  \
  "scanned tables, screenshots) and get its answer in text. Give every picture the question is "   \
  "about in one call. Images of any common format are converted and scaled as needed; PDFs are "   \
  "rendered page by page (pages selects them). A file that cannot be read is named with its "      \
  "error "                                                                                         \
  "and the others are still asked.\","                                                             \
  "\"inputSchema\":{\"type\":\"object\",\"additionalProperties\":false,"                           \
  "\"required\":[\"paths\",\"query\"],\"properties\":{"                                            \
  "\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":100,\"items\":{\"type\":"             \
  "\"string\",\"minLength\":1},\"description\":\"The image files and PDFs to ask about.\"},"       \
  "\"query\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The question.\"},"             \
  "\"detail\":{\"type\":\"string\",\"enum\":[\"auto\",\"low\",\"high\"],\"description\":"          \
  "\"low: at most 512 px on the long edge (cheap, for a glance); high: up to 2048 px and 768 px "  \
  "on the short side (small print); auto (default) picks by size.\"},"                             \
  "\"pages\":{\"type\":\"string\",\"description\":\"PDF pages, such as \\\"3\\\" or "              \
  "\\\"1-2\\\".\"},"                                                                               \
  "\"model\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Another model of the "         \
  "configured endpoint.\"},"                                                                       \
  "\"maxTokens\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":131072,\"description\":"          \
  "\"Longest answer, in tokens (default 1024).\"}}},"                                              \
  "\"annotations\":{\"title\":\"Ask about images\",\"readOnlyHint\":true,"                         \
  "\"destructiveHint\":false,\"idempotentHint\":false,\"openWorldHint\":true}}"

const char *mcp_tools_list_vision_json(void) {
  static gsize once = 0;
  static char *text;

  /* read_files' entry, then read_images': the list without its closing "]}". */
  if (g_once_init_enter(&once)) {
    text =
        g_strdup_printf("%.*s," READ_IMAGES_TOOL "]}", (int)(sizeof(tools_list) - 3), tools_list);
    g_once_init_leave(&once, 1);
  }
  return text;
}

const char *mcp_protocol_version(const char *requested) {
  for (size_t i = 0; requested != NULL && i < G_N_ELEMENTS(versions); i++)
    if (strcmp(requested, versions[i]) == 0)
      return versions[i];
  return MCP_PROTOCOL_LATEST;
}

char *mcp_initialize_result_json(const char *version) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "protocolVersion");
  json_builder_add_string_value(b, version);
  json_builder_set_member_name(b, "capabilities");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "tools");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "listChanged");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "serverInfo");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "title");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "version");
  json_builder_add_string_value(b, READERD_VERSION);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "instructions");
  json_builder_add_string_value(b, "Use read_files to read files: many in one call, with line "
                                   "numbers, pictures of images and PDF pages, and a clear error "
                                   "for each file that cannot be read.");
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}

const char *mcp_tools_list_json(void) {
  return tools_list;
}

static int fail(char **ret_error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static int fail(char **ret_error, const char *fmt, ...) {
  va_list ap;

  va_start(ap, fmt);
  *ret_error = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  return -EINVAL;
}

/* Refuses members of o not in `allowed` (NULL-terminated); `where` names o in the message. */
static int only_members(JsonObject *o, const char *const *allowed, const char *where,
                        char **ret_error) {
  g_autoptr(GList) names = json_object_get_members(o);

  for (GList *l = names; l != NULL; l = l->next)
    if (!g_strv_contains(allowed, l->data))
      return fail(ret_error, "unknown argument %s%s%s", where, *where ? "." : "",
                  (const char *)l->data);
  return 0;
}

/* Copies paths[] into out, giving items without their own pages/render the call's. */
static int copy_paths(JsonNode *paths, JsonNode *pages, JsonNode *render, JsonBuilder *out,
                      char **ret_error) {
  static const char *const item_members[] = {"path",  "offset", "limit",    "tail", "column",
                                             "pages", "render", "password", NULL};
  JsonArray *a;

  if (paths == NULL || !JSON_NODE_HOLDS_ARRAY(paths))
    return fail(ret_error, "paths must be a non-empty array of paths");
  a = json_node_get_array(paths);
  json_builder_set_member_name(out, "paths");
  json_builder_begin_array(out);
  for (guint i = 0; i < json_array_get_length(a); i++) {
    JsonNode *item = json_array_get_element(a, i);
    g_autofree char *where = g_strdup_printf("paths[%u]", i);

    if (JSON_NODE_HOLDS_OBJECT(item) &&
        only_members(json_node_get_object(item), item_members, where, ret_error) < 0)
      return -EINVAL;
    if ((pages == NULL && render == NULL) ||
        !(JSON_NODE_HOLDS_OBJECT(item) || JSON_NODE_HOLDS_VALUE(item))) {
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
  static const char *const members[] = {"paths",  "offset", "limit",  "tail",        "pages",
                                        "render", "images", "expand", "ifNoneMatch", "budget",
                                        "plan",   "skip",   NULL};
  static const char *const passed[] = {"offset",      "limit",  "tail", "images", "expand",
                                       "ifNoneMatch", "budget", "plan", "skip"};
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonNode) params = NULL;
  JsonObject *o;
  JsonNode *pages, *render;

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

int mcp_roots_parse(JsonNode *result, char ***ret_paths, char **ret_error) {
  GPtrArray *out;
  JsonArray *roots;
  JsonNode *node;

  if (result == NULL || !JSON_NODE_HOLDS_OBJECT(result) ||
      (node = json_object_get_member(json_node_get_object(result), "roots")) == NULL ||
      !JSON_NODE_HOLDS_ARRAY(node))
    return fail(ret_error, "roots/list answered without a roots array");
  roots = json_node_get_array(node);
  out = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < json_array_get_length(roots); i++) {
    JsonNode *r = json_array_get_element(roots, i);
    const char *uri = NULL;
    g_autofree char *host = NULL;
    char *path;

    if (JSON_NODE_HOLDS_OBJECT(r) &&
        (node = json_object_get_member(json_node_get_object(r), "uri")) != NULL &&
        JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING)
      uri = json_node_get_string(node);
    /* Only local folders: a file:// URI naming another host is not one. */
    path = uri != NULL ? g_filename_from_uri(uri, &host, NULL) : NULL;
    if (path != NULL && host != NULL && strcmp(host, "localhost") != 0)
      g_clear_pointer(&path, g_free);
    if (path == NULL) {
      g_ptr_array_free(out, TRUE);
      return fail(ret_error, "roots[%u] is not a local file:// URI", i);
    }
    g_ptr_array_add(out, path);
  }
  g_ptr_array_add(out, NULL);
  *ret_paths = (char **)g_ptr_array_free(out, FALSE);
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

/* What each client takes of one tool result, in tokens, where it is documented
 * (docs/mcp.md); any other client gets the default. */
static const struct {
  const char *name; /* initialize's clientInfo.name */
  int64_t tokens;
} client_budgets[] = {
    {"claude-code", 25000}, /* MAX_MCP_OUTPUT_TOKENS */
};

int64_t mcp_client_budget(const char *client_name) {
  for (size_t i = 0; client_name != NULL && i < G_N_ELEMENTS(client_budgets); i++)
    if (strcmp(client_name, client_budgets[i].name) == 0)
      return client_budgets[i].tokens;
  return MCP_DEFAULT_BUDGET_TOKENS;
}

char *mcp_read_result_tail(size_t chars, size_t *ret_len) {
  char *tail;

  if (chars <= MCP_INLINE_RESULT_CHARS) {
    tail = g_strdup(MCP_READ_RESULT_TAIL);
  } else {
    /* Room for the envelope too, rounded up to a thousand. */
    size_t want = MIN((chars + 999) / 1000 * 1000 + 1000, (size_t)MCP_MAX_RESULT_SIZE_CHARS);

    tail = g_strdup_printf(
        ",\"isError\":false,\"_meta\":{\"anthropic/maxResultSizeChars\":%zu}}}\n", want);
  }
  *ret_len = strlen(tail);
  return tail;
}
