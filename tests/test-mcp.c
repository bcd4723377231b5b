/* ipc/mcp/: protocol revisions, the tools list and its schema, tools/call by the table of
 * tools, resources/read and completion params, read_files' arguments into
 * read params, tool errors, roots and progress lines. */
#include <errno.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "formatters/format.h"
#include "ipc/mcp/mcp.h"
#include "ipc/mcp/mcp-resources.h"
#include "ipc/json-parse.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-params.h"
#include "tests/lib/check-run.h"
#include "tests/lib/read-params-same.h"

static JsonNode *parse(const char *json) {
  g_autoptr(JsonParser) p = json_parser_new();

  ck_assert_msg(json_parser_load_from_data(p, json, -1, NULL), "not JSON: %s", json);
  return json_node_copy(json_parser_get_root(p));
}

/* The arguments json parsed from their text as a tools/call line gives it to
 * mcp_tool_call_parse() (JSONRPC_PARSE_CALL_TEXT) make what their tree made: r, err and p. */
static void args_text_same(const char *json, int64_t budget, int r, const char *err,
                           const ReadParams *p) {
  g_autofree char *line = g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                                          "\"params\":{\"name\":\"read_files\",\"arguments\":%s}}",
                                          json);
  g_autofree char *text_err = NULL;
  JsonrpcMessage msg;
  McpToolCall call;
  int s;

  ck_assert_int_eq(
      jsonrpc_parse_flags(line, strlen(line), JSONRPC_PARSE_CALL_TEXT, &msg, NULL, NULL), 0);
  /* Only an object is left as text; anything else is built, as before. */
  ck_assert_msg((msg.arguments_text != NULL) == (json[0] == '{'), "%s", json);
  ck_assert(msg.arguments_text == NULL ||
            (msg.arguments_len == strlen(json) &&
             memcmp(msg.arguments_text, json, msg.arguments_len) == 0));
  s = mcp_tool_call_parse(msg.params, msg.arguments_text, msg.arguments_len, false, budget, &call,
                          &text_err);
  ck_assert_msg(s == r && read_params_str_same(err, text_err),
                "%.200s: '%s' from the tree, '%s' from the text", json, err, text_err);
  ck_assert_msg(read_params_same(p, &call.read), "%.200s: other params from the text", json);
  mcp_tool_call_clear(&call);
  jsonrpc_message_clear(&msg);
}

/* Parses arguments, from their tree and from their text alike (args_text_same); returns NULL
 * (p filled) or the error message. */
static char *args_budget(const char *json, int64_t budget, ReadParams *p) {
  g_autoptr(JsonNode) n = json != NULL ? parse(json) : NULL;
  char *err = NULL;
  int r;

  read_params_init(p);
  r = mcp_read_args_parse(n, budget, p, &err);
  if (json != NULL)
    args_text_same(json, budget, r, err, p);
  return r < 0 ? err : NULL;
}

static char *args(const char *json, ReadParams *p) {
  return args_budget(json, 0, p);
}

/* The tool expands folders and globs unless the call says otherwise. */
START_TEST(mcp_read_args_expand) {
  ReadParams p;
  char *err;

  ck_assert_ptr_null(err = args("{\"paths\":[\"src\"]}", &p));
  ck_assert(p.expand.on);
  read_params_clear(&p);
  ck_assert_ptr_null(err = args("{\"paths\":[\"src\"],\"expand\":false}", &p));
  ck_assert(!p.expand.on);
  read_params_clear(&p);
  ck_assert_ptr_null(err = args("{\"paths\":[\"src\"],\"expand\":{\"maxFiles\":9}}", &p));
  ck_assert(p.expand.on);
  ck_assert_int_eq(p.expand.max_files, 9);
  read_params_clear(&p);
}
END_TEST

START_TEST(mcp_protocol_versions) {
  ck_assert_str_eq(mcp_protocol_version("2025-11-25"), "2025-11-25");
  ck_assert_str_eq(mcp_protocol_version("2025-06-18"), "2025-06-18");
  ck_assert_str_eq(mcp_protocol_version("2025-03-26"), "2025-03-26");
  ck_assert_str_eq(mcp_protocol_version("2024-11-05"), "2024-11-05");
  /* Unknown, newer, or none: the latest readerd speaks. */
  ck_assert_str_eq(mcp_protocol_version("2099-01-01"), MCP_PROTOCOL_LATEST);
  ck_assert_str_eq(mcp_protocol_version(NULL), MCP_PROTOCOL_LATEST);
}
END_TEST

START_TEST(mcp_initialize_result) {
  g_autofree char *json = mcp_initialize_result_json("2025-03-26");
  g_autoptr(JsonNode) n = parse(json);
  JsonObject *o = json_node_get_object(n);

  ck_assert_str_eq(json_object_get_string_member(o, "protocolVersion"), "2025-03-26");
  ck_assert(json_object_has_member(json_object_get_object_member(o, "capabilities"), "tools"));
  ck_assert_str_eq(
      json_object_get_string_member(json_object_get_object_member(o, "serverInfo"), "name"),
      "readerd");
}
END_TEST

/* The tool as a client sees it: valid JSON, the schema's required paths, no extra members. */
START_TEST(mcp_tools_list_schema) {
  g_autoptr(JsonNode) n = parse(mcp_tools_list_json(false));
  JsonArray *tools = json_object_get_array_member(json_node_get_object(n), "tools");
  JsonObject *t, *schema, *props;

  ck_assert_uint_eq(json_array_get_length(tools), 3);
  /* Every description under the 2 KB Claude Code keeps, and saying when to use the tool. */
  for (guint i = 0; i < 3; i++) {
    const char *d =
        json_object_get_string_member(json_array_get_object_element(tools, i), "description");

    ck_assert_uint_lt(strlen(d), 2048);
    ck_assert_msg(strstr(d, "use it") != NULL || strstr(d, "Use it") != NULL, "%s", d);
  }
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(tools, 1), "name"),
                   MCP_TOOL_LIST_FILES);
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(tools, 2), "name"),
                   MCP_TOOL_WORKSPACE_INFO);
  t = json_array_get_object_element(tools, 0);
  ck_assert_str_eq(json_object_get_string_member(t, "name"), MCP_TOOL_READ_FILES);
  ck_assert_uint_gt(strlen(json_object_get_string_member(t, "description")), 200);
  schema = json_object_get_object_member(t, "inputSchema");
  ck_assert_str_eq(json_object_get_string_member(schema, "type"), "object");
  ck_assert(!json_object_get_boolean_member(schema, "additionalProperties"));
  ck_assert_str_eq(
      json_array_get_string_element(json_object_get_array_member(schema, "required"), 0), "paths");
  props = json_object_get_object_member(schema, "properties");
  for (const char *const *m = (const char *const[]){"paths", "offset", "limit", "pages", "render",
                                                    "images", "ifNoneMatch", NULL};
       *m != NULL; m++)
    ck_assert_msg(json_object_has_member(props, *m), "no %s in the schema", *m);
  ck_assert(json_object_get_boolean_member(json_object_get_object_member(t, "annotations"),
                                           "readOnlyHint"));
}
END_TEST

/* With a vision model, read_images follows read_files: valid JSON, paths and query required,
 * no member naming an endpoint or a key. */
START_TEST(mcp_tools_list_vision) {
  g_autoptr(JsonNode) n = parse(mcp_tools_list_json(true));
  JsonArray *tools = json_object_get_array_member(json_node_get_object(n), "tools");
  JsonObject *t, *schema, *props;
  JsonArray *req;

  ck_assert_uint_eq(json_array_get_length(tools), 4);
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(tools, 0), "name"),
                   MCP_TOOL_READ_FILES);
  t = json_array_get_object_element(tools, 3);
  ck_assert_str_eq(json_object_get_string_member(t, "name"), MCP_TOOL_READ_IMAGES);
  schema = json_object_get_object_member(t, "inputSchema");
  req = json_object_get_array_member(schema, "required");
  ck_assert_str_eq(json_array_get_string_element(req, 0), "paths");
  ck_assert_str_eq(json_array_get_string_element(req, 1), "query");
  props = json_object_get_object_member(schema, "properties");
  ck_assert(json_object_has_member(props, "detail"));
  ck_assert(!json_object_has_member(props, "baseUrl"));
  ck_assert(!json_object_has_member(props, "apiKey"));
}
END_TEST

START_TEST(mcp_args_read_images) {
  g_autoptr(JsonNode) ok = parse("{\"paths\":[\"a.png\"],\"query\":\"q\",\"detail\":\"high\"}");
  g_autoptr(JsonNode) bad = parse("{\"paths\":[\"a.png\"],\"query\":\"q\",\"apiKey\":\"k\"}");
  ReadImagesParams p;
  char *err = NULL;

  ck_assert_int_eq(mcp_read_images_args_parse(ok, &p, &err), 0);
  ck_assert_int_eq(p.detail, READ_IMAGE_DETAIL_HIGH);
  read_images_params_clear(&p);
  ck_assert_int_eq(mcp_read_images_args_parse(bad, &p, &err), -EINVAL);
  ck_assert_str_eq(err, "unknown argument apiKey");
  g_free(err);
}
END_TEST

START_TEST(mcp_args_read_params) {
  ReadParams p;
  char *err = args("{\"paths\":[\"a.txt\",{\"path\":\"d.pdf\",\"pages\":\"2\"}],\"offset\":3,"
                   "\"limit\":10,\"images\":{\"maxDimension\":800}}",
                   &p);

  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_uint_eq(p.n_paths, 2);
  ck_assert_str_eq(p.paths[0].path, "a.txt");
  ck_assert_str_eq(p.paths[1].pages, "2");
  ck_assert_int_eq(p.offset, 3);
  ck_assert_int_eq(p.limit, 10);
  ck_assert_int_eq(p.max_dimension, 800);
  ck_assert_ptr_eq(p.format, format_get("mcp")->name);
  ck_assert_ptr_null(read_params_if_none_match(&p, "a.txt"));
  read_params_clear(&p);
}
END_TEST

/* ifNoneMatch passes through as the client sent it: the server keeps no memory of reads. */
START_TEST(mcp_args_if_none_match) {
  ReadParams p;
  char *err = args("{\"paths\":[\"a.txt\"],\"ifNoneMatch\":{\"a.txt\":\"803-1a-2b-99\"}}", &p);

  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_str_eq(read_params_if_none_match(&p, "a.txt"), "803-1a-2b-99");
  read_params_clear(&p);
  err = args("{\"paths\":[\"a.txt\"],\"ifNoneMatch\":{\"a.txt\":7}}", &p);
  ck_assert_msg(err != NULL && strstr(err, "ifNoneMatch") != NULL, "%s", err ? err : "accepted");
  g_free(err);
}
END_TEST

/* tail for every file and a path's own column reach the read params. */
START_TEST(mcp_args_tail_and_column) {
  ReadParams p;
  char *err = args("{\"paths\":[\"a.log\",{\"path\":\"b.min.js\",\"offset\":1,\"column\":2001}],"
                   "\"tail\":50}",
                   &p);

  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_int_eq(p.tail, 50);
  ck_assert_int_eq(p.paths[1].column, 2001);
  ck_assert_int_eq(p.paths[1].offset, 1);
  read_params_clear(&p);
  err = args("{\"paths\":[{\"path\":\"a.log\",\"tail\":5,\"offset\":2}]}", &p);
  ck_assert_str_eq(err, "paths[0]: tail and offset cannot be combined");
  g_free(err);
}
END_TEST

/* pages and render of the call go to every path without its own. */
START_TEST(mcp_args_call_wide_pages_render) {
  ReadParams p;
  char *err = args("{\"paths\":[\"a.pdf\",{\"path\":\"b.pdf\",\"pages\":\"9\",\"render\":false}],"
                   "\"pages\":\"1-3\",\"render\":true}",
                   &p);

  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_str_eq(p.paths[0].pages, "1-3");
  ck_assert(p.paths[0].render);
  ck_assert_str_eq(p.paths[1].pages, "9");
  ck_assert(!p.paths[1].render);
  read_params_clear(&p);
}
END_TEST

START_TEST(mcp_args_refused_with_their_name) {
  static const struct {
    const char *json, *says;
  } bad[] = {
      {NULL, "must be an object"},
      {"[]", "must be an object"},
      {"{}", "paths"},
      {"{\"paths\":[]}", "paths"},
      {"{\"paths\":\"a.txt\"}", "paths"},
      {"{\"paths\":[\"a\"],\"format\":\"xml\"}", "unknown argument format"},
      {"{\"paths\":[\"a\"],\"cwd\":\"/\"}", "unknown argument cwd"},
      {"{\"paths\":[{\"path\":\"a\",\"x\":1}]}", "unknown argument paths[0].x"},
      {"{\"paths\":[\"a\"],\"offset\":-1}", "offset"},
      {"{\"paths\":[\"a\"],\"path\":\"b\"}", "give paths, or one path as path"},
      {"{\"paths\":[\"a\"],\"start_line\":3,\"offset\":2}", "give offset or start_line"},
      {"{\"paths\":[\"a\"],\"start_line\":9,\"end_line\":3}", "end_line (3) is before"},
      {"{\"paths\":[\"a\"],\"pages\":\"x-\"}", "pages"},
      {"{\"paths\":[\"a\"],\"pages\":[1]}", "pages"},
      {"{\"paths\":[\"a\"],\"render\":\"yes\"}", "render"},
      {"{\"paths\":[\"a\"],\"images\":{\"maxDimension\":1}}", "maxDimension"},
      {"{\"paths\":[\"\"]}", "paths[0]"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    ReadParams p;
    g_autofree char *err = args(bad[i].json, &p);

    ck_assert_msg(err != NULL, "%s was accepted", bad[i].json);
    ck_assert_msg(strstr(err, bad[i].says) != NULL, "%s: \"%s\" does not say %s", bad[i].json, err,
                  bad[i].says);
    read_params_clear(&p);
  }
}
END_TEST

/* What models send that the schema does not say, read as what they mean. */
START_TEST(mcp_args_tolerated) {
  ReadParams p;
  char *err;

  err = args("{\"file_path\":\"a.c\",\"offset\":0,\"pages\":\"\"}", &p);
  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_uint_eq(p.n_paths, 1);
  ck_assert_str_eq(p.paths[0].path, "a.c");
  ck_assert_int_eq(p.offset, 1);
  ck_assert_ptr_null(p.paths[0].pages);
  read_params_clear(&p);
  err = args("{\"path\":\"a.c\",\"start_line\":10,\"end_line\":19}", &p);
  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_int_eq(p.offset, 10);
  ck_assert_int_eq(p.limit, 10);
  read_params_clear(&p);
  err = args("{\"paths\":[{\"path\":\"a.c\",\"offset\":0,\"end_line\":5}]}", &p);
  ck_assert_msg(err == NULL, "%s", err);
  ck_assert_int_eq(p.paths[0].offset, 1);
  ck_assert_int_eq(p.paths[0].limit, 5);
  read_params_clear(&p);
}
END_TEST

/* The 2026-07-28 era: a request's _meta says its revision; results say their resultType. */
START_TEST(mcp_eras) {
  g_autoptr(JsonNode) modern =
      parse("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            "\"io.modelcontextprotocol/clientCapabilities\":{\"roots\":{}},"
            "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"claude-code\"}}}");
  g_autoptr(JsonNode) unknown =
      parse("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\"}}");
  g_autoptr(JsonNode) none = parse("{\"name\":\"x\"}");
  g_autofree char *disc = mcp_discover_result_json(), *data = mcp_unsupported_version_data("x");
  g_autofree char *r1 = mcp_result_modern("{}", NULL);
  g_autofree char *r2 = mcp_result_modern("{\"tools\":[]}", &(McpCache){5, "public"});
  g_autoptr(JsonNode) d = parse(disc);
  JsonObject *o = json_node_get_object(d);
  McpRequestMeta meta;

  ck_assert_int_eq(mcp_request_meta(modern, &meta), 0);
  ck_assert(meta.modern && meta.roots);
  ck_assert_str_eq(meta.client, "claude-code");
  ck_assert_int_eq(mcp_request_meta(unknown, &meta), MCP_UNSUPPORTED_PROTOCOL_VERSION);
  ck_assert_int_eq(mcp_request_meta(none, &meta), 0);
  ck_assert(!meta.modern);
  ck_assert_str_eq(
      json_array_get_string_element(json_object_get_array_member(o, "supportedVersions"), 0),
      MCP_PROTOCOL_MODERN);
  ck_assert_str_eq(json_object_get_string_member(o, "resultType"), "complete");
  ck_assert_str_eq(json_object_get_string_member(o, "cacheScope"), "public");
  ck_assert(json_object_has_member(o, "ttlMs"));
  ck_assert(json_object_has_member(json_object_get_object_member(o, "capabilities"), "logging"));
  ck_assert(
      json_object_has_member(json_object_get_object_member(o, "_meta"), MCP_META_SERVER_INFO));
  ck_assert_str_eq(data, "{\"supported\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\","
                         "\"2025-03-26\",\"2024-11-05\"],\"requested\":\"x\"}");
  ck_assert_str_eq(r1, "{\"resultType\":\"complete\"}");
  ck_assert_str_eq(r2, "{\"tools\":[],\"resultType\":\"complete\",\"ttlMs\":5,"
                       "\"cacheScope\":\"public\"}");
}
END_TEST

/* Resources: a read's blocks become the resource's contents; completion ranks and caps. */
START_TEST(mcp_resources_pure) {
  GString *piece =
      g_string_new("[{\"type\":\"text\",\"text\":\"<Content path='a'>{\\\"type\\\"}\"},"
                   "{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}]");
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  const char *const roots[] = {"/w", NULL};
  g_autofree char *c1 = NULL, *c2 = NULL;
  bool folder;
  g_autofree char *path = mcp_resource_path("file:///w/src/a%20b.c", &folder);
  g_autofree char *root = mcp_resource_path("file:///w/", &folder);

  mcp_resource_contents(piece, "file:///w/a");
  ck_assert_str_eq(
      piece->str,
      "[{\"uri\":\"file:///w/a\",\"mimeType\":\"text/plain\",\"text\":"
      "\"<Content path='a'>{\\\"type\\\"}\"},{\"uri\":\"file:///w/a\",\"blob\":\"AAAA\","
      "\"mimeType\":\"image/png\"}]");
  g_string_free(piece, TRUE);
  ck_assert_str_eq(path, "/w/src/a b.c");
  ck_assert(folder);
  ck_assert_ptr_null(mcp_resource_path("https://x/a", &folder));
  g_ptr_array_add(files, g_strdup("/w/lib/main.c"));
  g_ptr_array_add(files, g_strdup("/w/main.c"));
  g_ptr_array_add(files, g_strdup("/w/src/domain.c"));
  c1 = mcp_completion_json(roots, files, "ma");
  ck_assert_str_eq(c1, "{\"completion\":{\"values\":[\"w/main.c\",\"w/lib/main.c\","
                       "\"w/src/domain.c\"],\"total\":3,\"hasMore\":false}}");
  for (int i = 0; i < 150; i++)
    g_ptr_array_add(files, g_strdup_printf("/w/many/f%03d", i));
  c2 = mcp_completion_json(roots, files, "many/");
  ck_assert(strstr(c2, "\"total\":150,\"hasMore\":true") != NULL);
}
END_TEST

/* list_files is read_files' plan of its path; workspace_info takes nothing and says where. */
START_TEST(mcp_list_and_workspace_info) {
  g_autoptr(JsonNode) one = parse("{\"path\":\"src/*.c\",\"ignored\":true,\"maxFiles\":7}");
  g_autoptr(JsonNode) both = parse("{\"path\":\"a\",\"paths\":[\"b\"]}");
  g_autoptr(JsonNode) extra = parse("{\"content\":true}");
  g_autoptr(JsonNode) empty = parse("{}");
  const char *const roots[] = {"/w", NULL}, *const ex[] = {".env", NULL};
  g_autofree char *text = mcp_workspace_info_text(roots, "--root", ex, NULL);
  g_autofree char *none = mcp_workspace_info_text(NULL, "the client's roots", NULL, "why");
  g_autofree char *line = NULL;
  char *err = NULL;
  ReadParams p;
  size_t len;

  read_params_init(&p);
  ck_assert_int_eq(mcp_list_args_parse(one, 100, &p, &err), 0);
  ck_assert(p.plan && p.expand.on && p.expand.ignored);
  ck_assert_int_eq(p.expand.max_files, 7);
  ck_assert_str_eq(p.paths[0].path, "src/*.c");
  ck_assert_int_eq(p.budget_tokens, 100);
  read_params_clear(&p);
  ck_assert_int_eq(mcp_list_args_parse(NULL, 0, &p, &err), 0);
  ck_assert_str_eq(p.paths[0].path, ".");
  read_params_clear(&p);
  ck_assert_int_eq(mcp_list_args_parse(both, 0, &p, &err), -EINVAL);
  ck_assert_str_eq(err, "give path or paths, not both");
  g_free(err);
  ck_assert_int_eq(mcp_list_args_parse(extra, 0, &p, &err), -EINVAL);
  ck_assert_str_eq(err, "unknown argument content");
  g_free(err);
  ck_assert_int_eq(mcp_workspace_info_args_check(empty, &err), 0);
  ck_assert_int_eq(mcp_workspace_info_args_check(extra, &err), -EINVAL);
  g_free(err);
  ck_assert(strstr(text, "  /w\nThey come from --root.\n") != NULL);
  ck_assert(strstr(text, " .env\n") != NULL);
  ck_assert(g_str_has_prefix(none, "No folder may be read the client's roots.\nwhy\n"));
  ck_assert_int_eq(mcp_log_level("warning"), MCP_LOG_WARNING);
  ck_assert_int_eq(mcp_log_level("loud"), -1);
  line = mcp_log_line(MCP_LOG_ERROR, "x \"y\"", &len);
  ck_assert_str_eq(line,
                   "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
                   "{\"level\":\"error\",\"logger\":\"readerd\",\"data\":\"x \\\"y\\\"\"}}\n");
  ck_assert_uint_eq(len, strlen(line));
}
END_TEST

START_TEST(mcp_tool_error_result) {
  g_autofree char *json = mcp_tool_error_json("paths must be \"an array\"");
  g_autoptr(JsonNode) n = parse(json);
  JsonObject *o = json_node_get_object(n);
  JsonObject *block = json_array_get_object_element(json_object_get_array_member(o, "content"), 0);

  ck_assert(json_object_get_boolean_member(o, "isError"));
  ck_assert_str_eq(json_object_get_string_member(block, "type"), "text");
  ck_assert_str_eq(json_object_get_string_member(block, "text"), "paths must be \"an array\"");
}
END_TEST

START_TEST(mcp_roots) {
  g_autoptr(JsonNode) ok = parse("{\"roots\":[{\"uri\":\"file:///home/me/proj\",\"name\":\"p\"},"
                                 "{\"uri\":\"file:///tmp/a%20b\"},"
                                 "{\"uri\":\"file://localhost/srv/x\"}]}");
  g_autoptr(JsonNode) empty = parse("{\"roots\":[]}");
  g_autoptr(JsonNode) none = parse("{}");
  g_autofree char *err = NULL;
  char **paths = NULL, **skipped = NULL;

  ck_assert_int_eq(mcp_roots_parse(ok, &paths, &skipped, &err), 0);
  ck_assert_uint_eq(g_strv_length(paths), 3);
  ck_assert_str_eq(paths[0], "/home/me/proj");
  ck_assert_str_eq(paths[1], "/tmp/a b");
  ck_assert_str_eq(paths[2], "/srv/x");
  ck_assert_uint_eq(g_strv_length(skipped), 0);
  g_strfreev(paths);
  g_strfreev(skipped);
  ck_assert_int_eq(mcp_roots_parse(empty, &paths, NULL, &err), 0);
  ck_assert_uint_eq(g_strv_length(paths), 0);
  g_strfreev(paths);
  ck_assert_int_eq(mcp_roots_parse(none, &paths, &skipped, &err), -EINVAL);
  ck_assert_ptr_nonnull(err);
}
END_TEST

/* One root readerd cannot use is left out on its own, whatever it is: the others stay, and the
 * answer is never refused whole (which would leave the wider fence of the working directory). */
START_TEST(mcp_roots_unusable_left_out) {
  static const struct {
    const char *root;
    const char *why;
  } bad[] = {
      {"{\"uri\":\"https://example.com/x\"}", "not a file:// URI"},
      {"{\"uri\":\"vscode-remote://ssh-remote+box/home/me\"}", "not a file:// URI"},
      {"{\"uri\":\"file://otherhost/x\"}", "another host"},
      {"{\"name\":\"no uri\"}", "no uri"},
      {"{\"uri\":7}", "no uri"},
      {"\"file:///etc\"", "no uri"},
      {"{\"uri\":\"file:///tmp/a%00b\"}", "not a valid file:// URI"},
      {"{\"uri\":\"file:///tmp/a%2Fb\"}", "not a valid file:// URI"},
      {"{\"uri\":\"file:relative/x\"}", "not a valid file:// URI"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *json =
        g_strdup_printf("{\"roots\":[{\"uri\":\"file:///project\"},%s]}", bad[i].root);
    g_autoptr(JsonNode) n = parse(json);
    g_auto(GStrv) paths = NULL, skipped = NULL;
    g_autofree char *err = NULL;

    ck_assert_int_eq(mcp_roots_parse(n, &paths, &skipped, &err), 0);
    ck_assert_uint_eq(g_strv_length(paths), 1);
    ck_assert_str_eq(paths[0], "/project");
    ck_assert_uint_eq(g_strv_length(skipped), 1);
    ck_assert_msg(g_str_has_prefix(skipped[0], "roots[1] is left out: ") &&
                      strstr(skipped[0], bad[i].why) != NULL,
                  "%s: %s", bad[i].root, skipped[0]);
  }
}
END_TEST

START_TEST(mcp_progress_and_request_lines) {
  g_autoptr(JsonNode) tok = json_node_init_string(json_node_alloc(), "t\"1");
  g_autoptr(JsonNode) num = json_node_init_int(json_node_alloc(), 7);
  size_t len;
  g_autofree char *a = mcp_progress_line(tok, 3, 10, &len);
  g_autofree char *b = mcp_progress_line(num, 10, 10, &len);
  g_autofree char *r = mcp_request_line("readerd-roots-1", "roots/list", &len);
  g_autoptr(JsonNode) pa = NULL, pb = NULL, pr = NULL;
  JsonObject *params;

  ck_assert(g_str_has_suffix(a, "}\n") && g_str_has_suffix(r, "}\n"));
  pa = parse(a);
  params = json_object_get_object_member(json_node_get_object(pa), "params");
  ck_assert_str_eq(json_object_get_string_member(params, "progressToken"), "t\"1");
  ck_assert_int_eq(json_object_get_int_member(params, "progress"), 3);
  ck_assert_int_eq(json_object_get_int_member(params, "total"), 10);
  pb = parse(b);
  params = json_object_get_object_member(json_node_get_object(pb), "params");
  ck_assert_int_eq(json_object_get_int_member(params, "progressToken"), 7);
  pr = parse(r);
  ck_assert_str_eq(json_object_get_string_member(json_node_get_object(pr), "method"), "roots/list");
  ck_assert_uint_eq(len, strlen(r));
}
END_TEST

/* A call without a budget gets the client's; one with a budget keeps it; bad ones are named.
 * A result past what Claude Code keeps inline asks for room in its _meta. */
START_TEST(mcp_budget_defaults) {
  ReadParams p;
  char *err;

  ck_assert_int_eq(mcp_client_budget("claude-code"), 25000);
  ck_assert_int_eq(mcp_client_budget("codex-mcp-client"), 10000);
  ck_assert_int_eq(mcp_client_budget("gemini-cli-mcp-client"), 8000);
  ck_assert_int_eq(mcp_client_budget("opencode"), 10000);
  ck_assert_int_eq(mcp_client_budget("Cline"), MCP_DEFAULT_BUDGET_TOKENS);
  ck_assert_int_eq(mcp_client_budget("claude-ai"), MCP_DEFAULT_BUDGET_TOKENS);
  ck_assert_int_eq(mcp_client_budget("Visual Studio Code"), MCP_DEFAULT_BUDGET_TOKENS);
  /* Names are matched as sent: another spelling is another client. */
  ck_assert_int_eq(mcp_client_budget("Codex-MCP-Client"), MCP_DEFAULT_BUDGET_TOKENS);
  ck_assert_int_eq(mcp_client_budget(NULL), MCP_DEFAULT_BUDGET_TOKENS);
  read_params_init(&p);
  {
    g_autoptr(JsonNode) n = parse("{\"paths\":[\"a\"]}");

    ck_assert_int_eq(mcp_read_args_parse(n, 25000, &p, &err), 0);
    ck_assert_int_eq(p.budget_tokens, 25000);
    read_params_clear(&p);
  }
  ck_assert_ptr_null(args("{\"paths\":[\"a\"],\"budget\":{\"tokens\":900},\"plan\":true}", &p));
  ck_assert_int_eq(p.budget_tokens, 900);
  ck_assert(p.plan);
  read_params_clear(&p);
  ck_assert_ptr_null(args("{\"paths\":[\"a\"],\"skip\":40}", &p));
  ck_assert_int_eq(p.skip, 40);
  read_params_clear(&p);
  err = args("{\"paths\":[\"a\"],\"skip\":-1}", &p);
  ck_assert_ptr_nonnull(err);
  ck_assert(g_str_has_prefix(err, "skip must be an integer >= 0"));
  g_free(err);
  err = args("{\"paths\":[\"a\"],\"budget\":{\"tokens\":0}}", &p);
  ck_assert_ptr_nonnull(err);
  ck_assert(g_str_has_prefix(err, "budget.tokens must be an integer >= 1"));
  g_free(err);
  {
    size_t len;
    g_autofree char *small = mcp_read_result_tail(MCP_INLINE_RESULT_CHARS, false, &len);
    g_autofree char *big = mcp_read_result_tail(123456, false, &len);
    g_autofree char *modern = mcp_read_result_tail(10, true, &len);
    g_autofree char *huge = mcp_read_result_tail(9000000, false, &len);

    ck_assert_str_eq(modern, ",\"isError\":false,\"resultType\":\"complete\"}}\n");
    ck_assert_str_eq(small, MCP_READ_RESULT_TAIL);
    ck_assert_str_eq(big,
                     ",\"isError\":false,\"_meta\":{\"anthropic/maxResultSizeChars\":125000}}}\n");
    ck_assert(strstr(huge, "\"anthropic/maxResultSizeChars\":500000}") != NULL);
    ck_assert_uint_eq(len, strlen(huge));
  }
}
END_TEST

/* read_files' arguments taken from the line's text: whatever they hold, the same params or the
 * same tool error as from their tree (args() checks both), paths read without a tree only when
 * they are an array of strings. */
START_TEST(mcp_args_text_same_as_tree) {
  static const struct {
    const char *json;
    const char *error; /* NULL: accepted */
    size_t n_paths;
  } cases[] = {
      {"{\"paths\":[\"a\",\"b\\\"c\",\"\\u00e9\\ud83d\\ude00\",\"d\\/e\\t\"]}", NULL, 4},
      {"{ \"paths\" : [ \"a\" , \"b\" ] , \"limit\" : 1 }", NULL, 2},
      /* paths not an array, an item not a non-empty string: the tree's own words. */
      {"{\"paths\":\"a\"}", "paths must be a non-empty array of paths", 0},
      {"{\"paths\":null}", "paths must be a non-empty array of paths", 0},
      {"{\"paths\":{\"a\":1}}", "paths must be a non-empty array of paths", 0},
      {"{\"paths\":[]}", "paths must be a non-empty array", 0},
      {"{\"paths\":[7]}",
       "paths[0] must be a non-empty string or an object with a \"path\" or "
       "\"pathBytes\"",
       0},
      {"{\"paths\":[\"a\",null]}",
       "paths[1] must be a non-empty string or an object with a "
       "\"path\" or \"pathBytes\"",
       0},
      {"{\"paths\":[\"a\",\"\"]}",
       "paths[1] must be a non-empty string or an object with a "
       "\"path\" or \"pathBytes\"",
       0},
      {"{\"paths\":[[\"a\"]]}",
       "paths[0] must be a non-empty string or an object with a "
       "\"path\" or \"pathBytes\"",
       0},
      {"{\"paths\":[\"a\",{\"path\":\"b\",\"offset\":2}]}", NULL, 2},
      /* A repeated member: its last value, as json-glib keeps it. */
      {"{\"paths\":[\"a\"],\"paths\":[\"b\",\"c\"]}", NULL, 2},
      {"{\"paths\":[{\"path\":\"a\"}],\"paths\":[\"b\"]}", NULL, 1},
      {"{\"paths\":[\"a\"],\"paths\":7}", "paths must be a non-empty array of paths", 0},
      {"{\"paths\":[\"a\"],\"budget\":{\"tokens\":5},\"budget\":{\"tokens\":6}}", NULL, 1},
      /* Unknown members, the first one named, wherever paths is. */
      {"{\"bogus\":1,\"paths\":[\"a\"],\"zz\":2}", "unknown argument bogus", 0},
      {"{\"paths\":[\"a\"],\"x\":[[[[[[[[[[[[[[[[{\"y\":[]}]]]]]]]]]]]]]]]]}", "unknown argument x",
       0},
      {"{\"paths\":[{\"path\":\"a\",\"x\":1}]}", "unknown argument paths[0].x", 0},
      /* The call's pages and render go to every path given as a string. */
      {"{\"paths\":[\"a\",\"b\"],\"pages\":\"1-2\",\"render\":true}", NULL, 2},
      {"{\"paths\":[\"a\",{\"path\":\"b\",\"pages\":\"3\"}],\"pages\":\"1\"}", NULL, 2},
      {"{\"paths\":[\"a\"],\"pages\":\"\"}", NULL, 1},
      {"{\"paths\":[\"a\"],\"pages\":\"x\"}",
       "pages must be a page selection like \"3\", \"2-5\" or \"1,28-\"", 0},
      {"{\"paths\":[\"a\"],\"render\":\"yes\"}", "render must be a boolean", 0},
      /* What models send, tolerated or refused as before. */
      {"{\"path\":\"a\",\"paths\":[\"b\"]}", "give paths, or one path as path, not both", 0},
      {"{\"paths\":[\"a\"],\"start_line\":2,\"end_line\":3}", NULL, 1},
      {"{\"paths\":[\"a\"],\"start_line\":2,\"offset\":1}", "give offset or start_line, not both",
       0},
      {"{\"paths\":[\"a\"],\"offset\":0}", NULL, 1},
      /* Numbers out of range. */
      {"{\"paths\":[\"a\"],\"offset\":1e400}", "offset must be an integer >= 1", 0},
      {"{\"paths\":[\"a\"],\"offset\":1.5}", "offset must be an integer >= 1", 0},
      {"{\"paths\":[\"a\"],\"limit\":-9223372036854775808}", "limit must be an integer >= 1", 0},
      {"{\"paths\":[\"a\"],\"limit\":9223372036854775807}", NULL, 1},
      {"{\"paths\":[\"a\"],\"skip\":10001}", "skip must be an integer >= 0 (at most 10000)", 0},
      {"{\"paths\":[\"a\"],\"budget\":{\"tokens\":0}}",
       "budget.tokens must be an integer >= 1 (at most 1000000000)", 0},
      {"{\"paths\":[\"a\"],\"expand\":{\"maxFiles\":10001}}",
       "expand.maxFiles must be an integer from 1 to 10000", 0},
      {"{\"paths\":[\"a\"],\"tail\":2,\"offset\":3}", "tail and offset cannot be combined", 0},
      {"{\"paths\":[\"a\"],\"ifNoneMatch\":{\"a\":\"\"}}",
       "ifNoneMatch values must be non-empty etag strings", 0},
      {"{}", "paths must be a non-empty array of paths", 0},
      {"[\"a\"]", "the arguments must be an object with paths", 0},
      {"\"a\"", "the arguments must be an object with paths", 0},
      {"null", "the arguments must be an object with paths", 0},
  };
  g_autoptr(GString) many = g_string_new("{\"paths\":[");
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *err = args(cases[i].json, &p);

    ck_assert_msg(read_params_str_same(err, cases[i].error), "%s: '%s', not '%s'", cases[i].json,
                  err, cases[i].error);
    ck_assert_uint_eq(p.n_paths, cases[i].n_paths);
    if (cases[i].error == NULL)
      ck_assert_ptr_eq(p.format, format_get("mcp")->name);
    read_params_clear(&p);
  }

  /* As many paths as a call may name, one too many, and a bad one at the end of them. */
  for (int i = 0; i < READ_MAX_PATHS; i++)
    g_string_append_printf(many, "%s\"f%d\"", i > 0 ? "," : "", i);
  g_string_append(many, "]}");
  ck_assert_ptr_null(args(many->str, &p));
  ck_assert_uint_eq(p.n_paths, READ_MAX_PATHS);
  ck_assert_str_eq(p.paths[READ_MAX_PATHS - 1].path, "f9999");
  read_params_clear(&p);
  g_string_insert(many, strlen("{\"paths\":["), "\"x\",");
  {
    g_autofree char *err = args(many->str, &p);

    ck_assert_str_eq(err, "paths must have at most 10000 items");
  }
  /* The last of them not a string: the whole array is judged as a tree. */
  g_string_erase(many, strlen("{\"paths\":["), strlen("\"x\","));
  g_string_truncate(many, many->len - strlen("\"f9999\"]}"));
  g_string_append(many, "0]}");
  {
    g_autofree char *err = args(many->str, &p);

    ck_assert_str_eq(err, "paths[9999] must be a non-empty string or an object with a \"path\" or "
                          "\"pathBytes\"");
  }
}
END_TEST

/* tools/call's params by the table of tools: which tool, its arguments as plain params, the
 * progress token. */
START_TEST(mcp_tool_call_parsed) {
  g_autoptr(JsonNode) read = parse("{\"name\":\"read_files\",\"arguments\":{\"paths\":[\"a.txt\"],"
                                   "\"limit\":5},\"_meta\":{\"progressToken\":7}}");
  g_autoptr(JsonNode) list = parse("{\"name\":\"list_files\",\"arguments\":{\"path\":\"src\"}}");
  g_autoptr(JsonNode) info = parse("{\"name\":\"workspace_info\"}");
  g_autoptr(JsonNode) images =
      parse("{\"name\":\"read_images\",\"arguments\":{\"paths\":[\"a.png\"],\"query\":\"what?\"}}");
  McpToolCall call;
  char *err = NULL;

  ck_assert_int_eq(mcp_tool_call_parse(read, NULL, 0, false, 100, &call, &err), 0);
  ck_assert_int_eq(call.tool, MCP_TOOL_ID_READ_FILES);
  ck_assert_uint_eq(call.read.n_paths, 1);
  ck_assert_str_eq(call.read.paths[0].path, "a.txt");
  ck_assert_int_eq(call.read.limit, 5);
  ck_assert_int_eq(call.read.budget_tokens, 100);
  ck_assert_ptr_nonnull(call.progress_token);
  ck_assert_int_eq(json_node_get_int(call.progress_token), 7);
  mcp_tool_call_clear(&call);

  ck_assert_int_eq(mcp_tool_call_parse(list, NULL, 0, false, 0, &call, &err), 0);
  ck_assert_int_eq(call.tool, MCP_TOOL_ID_LIST_FILES);
  ck_assert(call.read.plan);
  ck_assert_str_eq(call.read.paths[0].path, "src");
  ck_assert_ptr_null(call.progress_token);
  mcp_tool_call_clear(&call);

  ck_assert_int_eq(mcp_tool_call_parse(info, NULL, 0, false, 0, &call, &err), 0);
  ck_assert_int_eq(call.tool, MCP_TOOL_ID_WORKSPACE_INFO);
  mcp_tool_call_clear(&call);

  ck_assert_int_eq(mcp_tool_call_parse(images, NULL, 0, true, 0, &call, &err), 0);
  ck_assert_int_eq(call.tool, MCP_TOOL_ID_READ_IMAGES);
  ck_assert_str_eq(call.images.query, "what?");
  ck_assert_str_eq(call.images.paths[0], "a.png");
  mcp_tool_call_clear(&call);
  ck_assert_ptr_null(err);
}
END_TEST

/* An unknown tool (the protocol's error) is told apart from bad arguments (the tool's). */
START_TEST(mcp_tool_call_refused) {
  static const struct {
    const char *params;
    bool vision;
    int r;
    McpToolId tool; /* for -EINVAL */
    const char *error;
  } cases[] = {
      {"{\"name\":\"write_file\"}", false, -ENOENT, 0, "unknown tool: write_file"},
      {"{\"arguments\":{}}", false, -ENOENT, 0, "unknown tool: (no name)"},
      {"{\"name\":7}", false, -ENOENT, 0, "unknown tool: (no name)"},
      {"[]", false, -ENOENT, 0, "unknown tool: (no name)"},
      /* Without a vision model there is no read_images to call. */
      {"{\"name\":\"read_images\",\"arguments\":{\"paths\":[\"a.png\"],\"query\":\"q\"}}", false,
       -ENOENT, 0, "unknown tool: read_images"},
      {"{\"name\":\"read_files\"}", false, -EINVAL, MCP_TOOL_ID_READ_FILES,
       "the arguments must be an object with paths"},
      {"{\"name\":\"read_files\",\"arguments\":{\"paths\":[\"a\"],\"limit\":0}}", false, -EINVAL,
       MCP_TOOL_ID_READ_FILES, "limit must be an integer >= 1"},
      {"{\"name\":\"list_files\",\"arguments\":{\"path\":\"a\",\"paths\":[\"b\"]}}", false, -EINVAL,
       MCP_TOOL_ID_LIST_FILES, "give path or paths, not both"},
      {"{\"name\":\"workspace_info\",\"arguments\":{\"x\":1}}", false, -EINVAL,
       MCP_TOOL_ID_WORKSPACE_INFO, "workspace_info takes no argument"},
      {"{\"name\":\"read_images\",\"arguments\":{\"paths\":[\"a.png\"],\"query\":\"q\","
       "\"baseUrl\":\"http://x\"}}",
       true, -EINVAL, MCP_TOOL_ID_READ_IMAGES, "unknown argument baseUrl"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(JsonNode) n = parse(cases[i].params);
    g_autofree char *err = NULL;
    McpToolCall call;

    ck_assert_int_eq(mcp_tool_call_parse(n, NULL, 0, cases[i].vision, 0, &call, &err), cases[i].r);
    ck_assert_msg(err != NULL && strcmp(err, cases[i].error) == 0, "%s: said '%s', not '%s'",
                  cases[i].params, err, cases[i].error);
    if (cases[i].r == -EINVAL)
      ck_assert_int_eq(call.tool, cases[i].tool);
    mcp_tool_call_clear(&call);
  }
}
END_TEST

/* resources/read's uri as the read that answers it, and completion/complete's params. */
START_TEST(mcp_resource_read_and_completion_parsed) {
  g_autoptr(JsonNode) file = parse("{\"uri\":\"file:///tmp/a%20b.txt\"}");
  g_autoptr(JsonNode) folder = parse("{\"uri\":\"file:///tmp/src/\"}");
  g_autoptr(JsonNode) http = parse("{\"uri\":\"http://example.com/a\"}");
  g_autoptr(JsonNode) none = parse("{}");
  g_autoptr(JsonNode) path = parse("{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
                                   "\"file:///{+path}\"},\"argument\":{\"name\":\"path\","
                                   "\"value\":\"sr\"}}");
  g_autoptr(JsonNode) other = parse("{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"x\"},"
                                    "\"argument\":{\"name\":\"path\",\"value\":\"sr\"}}");
  g_autoptr(JsonNode) no_value = parse("{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
                                       "\"file:///{+path}\"},\"argument\":{\"name\":\"path\"}}");
  g_autofree char *err = NULL;
  const char *uri = NULL, *value = NULL;
  ReadParams p;

  read_params_init(&p);
  ck_assert_int_eq(mcp_resource_read_parse(file, 50, &p, &uri, &err), 0);
  ck_assert_str_eq(uri, "file:///tmp/a%20b.txt");
  ck_assert_str_eq(p.paths[0].path, "/tmp/a b.txt");
  ck_assert(!p.expand.on && !p.plan);
  ck_assert_int_eq(p.budget_tokens, 50);
  read_params_clear(&p);
  ck_assert_int_eq(mcp_resource_read_parse(folder, 0, &p, &uri, &err), 0);
  ck_assert(g_str_has_prefix(p.paths[0].path, "/tmp/src"));
  ck_assert(p.expand.on && p.plan);
  read_params_clear(&p);
  ck_assert_int_eq(mcp_resource_read_parse(http, 0, &p, &uri, &err), -EINVAL);
  ck_assert_str_eq(err, "uri must be a local file:// URI (file:///{+path})");
  g_clear_pointer(&err, g_free);
  ck_assert_int_eq(mcp_resource_read_parse(none, 0, &p, &uri, &err), -EINVAL);
  ck_assert_ptr_nonnull(err);

  ck_assert(mcp_completion_parse(path, &value));
  ck_assert_str_eq(value, "sr");
  ck_assert(!mcp_completion_parse(other, &value));
  ck_assert(mcp_completion_parse(no_value, &value));
  ck_assert_str_eq(value, "");
  ck_assert(!mcp_completion_parse(NULL, &value));
}
END_TEST

/* Checks every schema under n: an object that allows no other members requires only members
 * it has (a required name it lacks makes every value invalid), in `required` or in an anyOf's. */
static void check_required_known(JsonNode *n, const char *where) {
  if (JSON_NODE_HOLDS_ARRAY(n)) {
    for (guint i = 0; i < json_array_get_length(json_node_get_array(n)); i++)
      check_required_known(json_array_get_element(json_node_get_array(n), i), where);
    return;
  }
  if (!JSON_NODE_HOLDS_OBJECT(n))
    return;
  JsonObject *o = json_node_get_object(n);
  JsonNode *props = json_object_get_member(o, "properties");
  JsonNode *extra = json_object_get_member(o, "additionalProperties");
  if (props != NULL && JSON_NODE_HOLDS_OBJECT(props) && extra != NULL &&
      JSON_NODE_HOLDS_VALUE(extra) && !json_node_get_boolean(extra)) {
    JsonNode *any = json_object_get_member(o, "anyOf");
    for (guint k = 0; k <= (any != NULL ? json_array_get_length(json_node_get_array(any)) : 0);
         k++) {
      JsonObject *holder =
          k == 0 ? o : json_array_get_object_element(json_node_get_array(any), k - 1);
      JsonNode *req = json_object_get_member(holder, "required");
      for (guint i = 0; req != NULL && i < json_array_get_length(json_node_get_array(req)); i++) {
        const char *name = json_array_get_string_element(json_node_get_array(req), i);
        ck_assert_msg(json_object_has_member(json_node_get_object(props), name),
                      "%s: a schema requires %s, which it does not allow", where, name);
      }
    }
  }
  g_autoptr(GList) members = json_object_get_members(o);
  for (GList *l = members; l != NULL; l = l->next)
    check_required_known(json_object_get_member(o, l->data), where);
}

START_TEST(mcp_tools_schemas_satisfiable) {
  g_autoptr(JsonNode) n = parse(mcp_tools_list_json(true));
  JsonArray *tools = json_object_get_array_member(json_node_get_object(n), "tools");

  for (guint i = 0; i < json_array_get_length(tools); i++) {
    JsonObject *t = json_array_get_object_element(tools, i);
    check_required_known(json_object_get_member(t, "inputSchema"),
                         json_object_get_string_member(t, "name"));
  }
}
END_TEST

static Suite *mcp_suite(void) {
  Suite *s = suite_create("mcp");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, mcp_protocol_versions);
  tcase_add_test(tc, mcp_read_args_expand);
  tcase_add_test(tc, mcp_budget_defaults);
  tcase_add_test(tc, mcp_initialize_result);
  tcase_add_test(tc, mcp_tools_list_schema);
  tcase_add_test(tc, mcp_tools_list_vision);
  tcase_add_test(tc, mcp_args_read_images);
  tcase_add_test(tc, mcp_args_read_params);
  tcase_add_test(tc, mcp_args_tail_and_column);
  tcase_add_test(tc, mcp_args_call_wide_pages_render);
  tcase_add_test(tc, mcp_args_refused_with_their_name);
  tcase_add_test(tc, mcp_tool_error_result);
  tcase_add_test(tc, mcp_args_tolerated);
  tcase_add_test(tc, mcp_eras);
  tcase_add_test(tc, mcp_resources_pure);
  tcase_add_test(tc, mcp_list_and_workspace_info);
  tcase_add_test(tc, mcp_roots);
  tcase_add_test(tc, mcp_roots_unusable_left_out);
  tcase_add_test(tc, mcp_args_if_none_match);
  tcase_add_test(tc, mcp_progress_and_request_lines);
  tcase_add_test(tc, mcp_tool_call_parsed);
  tcase_add_test(tc, mcp_args_text_same_as_tree);
  tcase_add_test(tc, mcp_tools_schemas_satisfiable);
  tcase_add_test(tc, mcp_tool_call_refused);
  tcase_add_test(tc, mcp_resource_read_and_completion_parsed);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(mcp_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
