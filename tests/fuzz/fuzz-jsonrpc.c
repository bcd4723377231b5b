/* Fuzz target for the ipc module: the input is a byte stream from a client.
 *
 * It goes through a Framer in pieces of 1 to 143 bytes (the cuts and the line cap derived from
 * the input), and the lines that come out are checked against a plain reference split. Every
 * line goes through jsonrpc_parse(); its answer is formatted and must parse back as JSON; the
 * params of `read` requests go through read_params_parse(), from readerd's tree and from
 * json-glib's tree of the same line, which must give the same ReadParams or the same error; so
 * must read_params_parse_json() of the params left as text (JSONRPC_PARSE_READ_TEXT), and that
 * parse must answer every line as the plain one does; the params of MCP's tools/call,
 * resources/read and completion/complete go through their parsers in ipc/. Any broken invariant
 * aborts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "ipc/frame.h"
#include "ipc/json-parse-internal.h"
#include "ipc/jsonrpc.h"
#include "ipc/mcp/mcp-resources.h"
#include "ipc/mcp/mcp.h"
#include "ipc/read-params.h"
#include "tests/lib/read-params-same.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_MAX_PIECE 143

/* What the framer must produce, computed the simple way: one entry per line or per line over
 * the cap (len SIZE_MAX). */
typedef struct {
  const char *line;
  size_t len;
} FuzzLine;

static uint32_t fuzz_hash(const uint8_t *data, size_t size) {
  uint32_t h = 2166136261u;

  for (size_t i = 0; i < size; i++)
    h = (h ^ data[i]) * 16777619u;
  return h;
}

static uint32_t fuzz_next_random(uint32_t *state) {
  uint32_t x = *state ? *state : 0x9e3779b9u;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static GArray *fuzz_reference_lines(const char *data, size_t size, size_t cap) {
  GArray *want = g_array_new(FALSE, FALSE, sizeof(FuzzLine));
  size_t start = 0;

  for (size_t i = 0; i < size; i++) {
    FuzzLine l = {data + start, i - start};

    if (data[i] != '\n')
      continue;
    if (l.len > 0 && l.line[l.len - 1] == '\r')
      l.len--;
    if (l.len > cap)
      l.len = SIZE_MAX;
    g_array_append_val(want, l);
    start = i + 1;
  }
  /* An unterminated tail is reported when it can no longer fit (a last '\r' may still be the
   * start of "\r\n"). */
  if (size - start > cap + 1 || (size - start == cap + 1 && data[size - 1] != '\r')) {
    FuzzLine l = {NULL, SIZE_MAX};

    g_array_append_val(want, l);
  }
  return want;
}

/* The line must be one JSON-RPC 2.0 object ending in its only '\n'. */
static void fuzz_check_output(const char *out, size_t len) {
  g_autoptr(JsonParser) parser = json_parser_new();
  JsonNode *root;

  fuzz_assert(len >= 2 && len == strlen(out));
  fuzz_assert(out[len - 1] == '\n' && memchr(out, '\n', len) == out + len - 1);
  fuzz_assert(g_utf8_validate(out, (gssize)len, NULL));
  fuzz_assert(json_parser_load_from_data(parser, out, (gssize)len, NULL));
  root = json_parser_get_root(parser);
  fuzz_assert(root && JSON_NODE_HOLDS_OBJECT(root));
  fuzz_assert(json_object_has_member(json_node_get_object(root), "id"));
}

static void fuzz_read_params(JsonNode *params) {
  ReadParams p;
  char *error = NULL;
  int r;

  read_params_init(&p);
  r = read_params_parse(params, &p, &error);
  if (r < 0) {
    fuzz_assert(r == -EINVAL && error && *error);
    fuzz_assert(!p.paths && p.n_paths == 0 && !p.cwd);
  } else {
    fuzz_assert(!error);
    fuzz_assert(p.n_paths >= 1 && p.n_paths <= READ_MAX_PATHS);
    fuzz_assert(p.offset >= 1 && p.limit >= 1);
    fuzz_assert(p.max_dimension >= READ_MIN_MAX_DIMENSION &&
                p.max_dimension <= READ_MAX_MAX_DIMENSION);
    for (size_t i = 0; i < p.n_paths; i++) {
      fuzz_assert(p.paths[i].path && p.paths[i].path[0]);
      fuzz_assert(p.paths[i].offset >= 0 && p.paths[i].limit >= 0);
      fuzz_assert(!p.paths[i].pages || read_params_pages_valid(p.paths[i].pages));
    }
  }
  g_free(error);
  read_params_clear(&p);
}

/* MCP's params parsed in ipc/: a call is a tool with its params, or an error that says which
 * side it is (no tool: the protocol's; bad arguments: the tool's). */
static void fuzz_mcp_params(const char *method, JsonNode *params) {
  char *error = NULL;

  if (strcmp(method, "tools/call") == 0) {
    McpToolCall call;
    int r = mcp_tool_call_parse(params, NULL, 0, true, 25000, &call, &error);

    fuzz_assert(r == 0 || r == -ENOENT || r == -EINVAL);
    fuzz_assert(r == 0 ? !error : error && *error);
    fuzz_assert(call.tool < MCP_TOOL_COUNT);
    if (r == 0 && (call.tool == MCP_TOOL_ID_READ_FILES || call.tool == MCP_TOOL_ID_LIST_FILES))
      fuzz_assert(call.read.n_paths >= 1 && call.read.n_paths <= READ_MAX_PATHS);
    if (r == 0 && call.tool == MCP_TOOL_ID_READ_IMAGES)
      fuzz_assert(call.images.n_paths >= 1 && call.images.query && *call.images.query);
    mcp_tool_call_clear(&call);
  } else if (strcmp(method, "resources/read") == 0) {
    const char *uri = NULL;
    ReadParams p;
    int r;

    read_params_init(&p);
    r = mcp_resource_read_parse(params, 25000, &p, &uri, &error);
    fuzz_assert(r == 0 ? !error && uri && p.n_paths == 1 : r == -EINVAL && error && !p.paths);
    read_params_clear(&p);
  } else if (strcmp(method, "completion/complete") == 0) {
    const char *value = NULL;

    mcp_completion_parse(params, &value);
    fuzz_assert(value != NULL);
  }
  g_free(error);
}

/* The line's params as json-glib's parser gives them and as readerd's tree gives them make the
 * same ReadParams, or the same error. */
static void fuzz_read_params_glib(JsonNode *params, const char *line, size_t len) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *parse_error = NULL, *error = NULL, *glib_error = NULL;
  ReadParams p, q;
  JsonNode *glib_params;
  int r, s;

  /* The line passed jsonrpc_parse() without flags: strict JSON without a noted value, which
   * readerd's builder took. */
  root = json_tree_glib(line, len, &parse_error);
  fuzz_assert(root != NULL && JSON_NODE_HOLDS_OBJECT(root));
  glib_params = json_object_get_member(json_node_get_object(root), "params");
  if (glib_params != NULL && JSON_NODE_HOLDS_NULL(glib_params))
    glib_params = NULL;
  read_params_init(&p);
  read_params_init(&q);
  r = read_params_parse(params, &p, &error);
  s = read_params_parse(glib_params, &q, &glib_error);
  fuzz_assert(r == s && read_params_str_same(error, glib_error));
  fuzz_assert(read_params_same(&p, &q));
  read_params_clear(&p);
  read_params_clear(&q);
}

/* The line parsed with its read params left as text: the same verdict as without, and the same
 * ReadParams or error from the text as from the tree. */
static void fuzz_read_text(const char *line, size_t len, int r, const JsonrpcMessage *msg,
                           const char *error) {
  g_autofree char *text_error = NULL, *e1 = NULL, *e2 = NULL;
  JsonrpcMessage t;
  JsonNode *id = NULL;
  ReadParams p, q;
  int s = jsonrpc_parse_flags(line, len, JSONRPC_PARSE_READ_TEXT, &t, &id, &text_error);

  fuzz_assert(s == r && read_params_str_same(error, text_error));
  if (id != NULL)
    json_node_unref(id);
  if (s < 0)
    return;
  fuzz_assert(t.kind == msg->kind && read_params_str_same(t.method, msg->method));
  if (t.params_text == NULL) {
    fuzz_assert(t.params == NULL ? msg->params == NULL
                                 : msg->params != NULL && json_node_equal(t.params, msg->params));
    jsonrpc_message_clear(&t);
    return;
  }
  fuzz_assert(strcmp(t.method, "read") == 0 && t.params == NULL && msg->params != NULL);
  fuzz_assert(t.params_text >= line && t.params_text + t.params_len <= line + len);
  read_params_init(&p);
  read_params_init(&q);
  r = read_params_parse(msg->params, &p, &e1);
  s = read_params_parse_json(t.params_text, t.params_len, &q, &e2);
  fuzz_assert(r == s && read_params_str_same(e1, e2));
  fuzz_assert(read_params_same(&p, &q));
  read_params_clear(&p);
  read_params_clear(&q);
  jsonrpc_message_clear(&t);
}

/* The line parsed with a tools/call's arguments left as text: the same verdict as without, and
 * the same call (tool, params) or error from the text as from the tree. */
static void fuzz_call_text(const char *line, size_t len, int r, const JsonrpcMessage *msg,
                           const char *error) {
  g_autofree char *text_error = NULL, *e1 = NULL, *e2 = NULL;
  McpToolCall a, b;
  JsonrpcMessage t;
  JsonNode *id = NULL;
  int s = jsonrpc_parse_flags(line, len, JSONRPC_PARSE_CALL_TEXT, &t, &id, &text_error);

  fuzz_assert(s == r && read_params_str_same(error, text_error));
  if (id != NULL)
    json_node_unref(id);
  if (s < 0)
    return;
  fuzz_assert(t.kind == msg->kind && read_params_str_same(t.method, msg->method));
  if (t.arguments_text == NULL) {
    fuzz_assert(t.params == NULL ? msg->params == NULL
                                 : msg->params != NULL && json_node_equal(t.params, msg->params));
    jsonrpc_message_clear(&t);
    return;
  }
  fuzz_assert(strcmp(t.method, "tools/call") == 0 && t.params != NULL && t.params_text == NULL);
  fuzz_assert(t.arguments_text >= line && t.arguments_text + t.arguments_len <= line + len);
  fuzz_assert(t.arguments_text[0] == '{');
  r = mcp_tool_call_parse(msg->params, NULL, 0, true, 25000, &a, &e1);
  s = mcp_tool_call_parse(t.params, t.arguments_text, t.arguments_len, true, 25000, &b, &e2);
  fuzz_assert(r == s && read_params_str_same(e1, e2));
  fuzz_assert(r == -ENOENT || a.tool == b.tool);
  fuzz_assert(read_params_same(&a.read, &b.read));
  mcp_tool_call_clear(&a);
  mcp_tool_call_clear(&b);
  jsonrpc_message_clear(&t);
}

static void fuzz_line(const char *line, size_t len) {
  JsonrpcMessage msg;
  JsonNode *id = NULL;
  char *error = NULL;
  char *out, *key;
  size_t out_len;
  int r = jsonrpc_parse(line, len, &msg, &id, &error);

  fuzz_read_text(line, len, r, &msg, error);
  fuzz_call_text(line, len, r, &msg, error);
  if (r < 0) {
    fuzz_assert(r == JSONRPC_PARSE_ERROR || r == JSONRPC_INVALID_REQUEST);
    fuzz_assert(error && *error && !msg.root);
    fuzz_assert(r == JSONRPC_INVALID_REQUEST || !id);
    key = jsonrpc_id_key(id);
    fuzz_assert(!id || key);
    out = jsonrpc_format_error(id, r, error, &out_len);
    fuzz_check_output(out, out_len);
    g_free(out);
    g_free(key);
    g_free(error);
    if (id)
      json_node_unref(id);
    return;
  }

  fuzz_assert(!id && !error && msg.root);
  if (msg.kind == JSONRPC_KIND_REQUEST) {
    key = jsonrpc_id_key(msg.id);
    fuzz_assert(key && msg.method);
    out = jsonrpc_format_result(msg.id, "{\"ok\":true}", 11, &out_len);
    fuzz_check_output(out, out_len);
    g_free(out);
    g_free(key);
  }
  if (msg.kind == JSONRPC_KIND_NOTIFICATION)
    fuzz_assert(!msg.id && msg.method);
  if (msg.kind == JSONRPC_KIND_RESPONSE)
    fuzz_assert(!msg.method);
  if (msg.method && strcmp(msg.method, "read") == 0) {
    fuzz_read_params(msg.params);
    fuzz_read_params_glib(msg.params, line, len);
  }
  if (msg.method)
    fuzz_mcp_params(msg.method, msg.params);
  jsonrpc_message_clear(&msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *bytes = (const char *)data;
  uint32_t state = fuzz_hash(data, size);
  size_t cap = state & 1 ? FRAME_MAX_LINE : (state >> 1) % 2048;
  GArray *want = fuzz_reference_lines(bytes, size, cap);
  Framer *f = framer_new(cap);
  size_t at = 0, got = 0;

  while (at < size) {
    size_t piece = 1 + fuzz_next_random(&state) % FUZZ_MAX_PIECE;
    const char *line;
    size_t len;
    int r;

    piece = MIN(piece, size - at);
    framer_feed(f, bytes + at, piece);
    at += piece;
    while ((r = framer_next(f, &line, &len)) != 0) {
      FuzzLine *w;

      fuzz_assert(got < want->len);
      w = &g_array_index(want, FuzzLine, got++);
      if (r == -E2BIG) {
        fuzz_assert(w->len == SIZE_MAX);
        continue;
      }
      fuzz_assert(r == 1 && len == w->len && memcmp(line, w->line, len) == 0);
      fuzz_assert(line[len] == '\0');
      fuzz_line(line, len);
    }
    fuzz_assert(framer_pending(f) <= cap + 1);
  }
  fuzz_assert(got == want->len);
  framer_free(f);
  g_array_unref(want);
  return 0;
}
