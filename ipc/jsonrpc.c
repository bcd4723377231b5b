/* JSON-RPC 2.0 messages over json-glib.
 *
 * json-glib is more lenient than JSON, and its lexer has traps for a server that takes lines
 * from anyone: it recurses once per nesting level (a line of '[' overflows the stack); it accepts
 * comments, single-quoted strings, octal escapes and hex numbers; after a \u escape that is not
 * a complete surrogate pair it swallows the next character, even the closing quote, so it would
 * no longer see strings where JSON has them; it cuts a string at \u0000; and it wraps integers
 * beyond 64 bits. So each line first goes through a strict lexer of our own. Anything that is
 * not plain JSON, or nests too deeply, is a parse error and never reaches json-glib. Escapes
 * json-glib would mangle (\u0000, unpaired surrogates) are replaced by \ufffd in a copy before
 * json-glib sees it, so the id can still be read, and the message is an invalid request. */
#include "ipc/jsonrpc.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  const char *line;
  size_t len;
  char *fixed;              /* a copy of line with mangled escapes replaced, or NULL */
  const char *syntax_error; /* the line is not JSON we accept; json-glib must not see it */
  const char *value_error;  /* a string or number json-glib would not keep as sent */
  unsigned value_depth;     /* nesting level of the shallowest such value; 1 = root member */
} JsonrpcScan;

static void jsonrpc_scan_value_error(JsonrpcScan *scan, unsigned depth, const char *message) {
  if (!scan->value_error || depth < scan->value_depth) {
    scan->value_error = message;
    scan->value_depth = depth;
  }
}

/* The value of the "\uXXXX" escape at s[i], or -1 when there is none. */
static long jsonrpc_unicode_escape(const char *s, size_t len, size_t i) {
  long v = 0;

  if (len - i < 6 || s[i] != '\\' || s[i + 1] != 'u')
    return -1;
  for (size_t k = i + 2; k < i + 6; k++) {
    int d = g_ascii_xdigit_value(s[k]);

    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

/* Handles the \u escape at s[i] (and the low half of a pair after it); returns the index after
 * it, or SIZE_MAX when it is malformed. */
static size_t jsonrpc_scan_unicode(JsonrpcScan *scan, size_t i, unsigned depth) {
  long cp = jsonrpc_unicode_escape(scan->line, scan->len, i);
  long low;

  if (cp < 0) {
    scan->syntax_error = "malformed \\u escape";
    return SIZE_MAX;
  }
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    low = jsonrpc_unicode_escape(scan->line, scan->len, i + 6);
    if (low >= 0xDC00 && low <= 0xDFFF)
      return i + 12;
  }
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
    jsonrpc_scan_value_error(scan, depth,
                             cp == 0 ? "strings must not contain U+0000"
                                     : "strings must not contain unpaired surrogates");
    if (!scan->fixed)
      scan->fixed = g_memdup2(scan->line, scan->len);
    memcpy(scan->fixed + i, "\\ufffd", 6);
  }
  return i + 6;
}

/* Scans a string whose opening quote is just before s[i]; returns the index after its closing
 * quote, or SIZE_MAX with a syntax error. */
static size_t jsonrpc_scan_string(JsonrpcScan *scan, size_t i, unsigned depth) {
  const char *s = scan->line;

  while (i < scan->len) {
    if (s[i] == '"')
      return i + 1;
    if (s[i] != '\\') {
      i++;
      continue;
    }
    if (i + 1 >= scan->len)
      break;
    switch (s[i + 1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      i += 2;
      break;
    case 'u':
      i = jsonrpc_scan_unicode(scan, i, depth);
      if (i == SIZE_MAX)
        return SIZE_MAX;
      break;
    default:
      scan->syntax_error = "invalid escape in a string";
      return SIZE_MAX;
    }
  }
  scan->syntax_error = "unterminated string";
  return SIZE_MAX;
}

static size_t jsonrpc_skip_digits(const char *s, size_t len, size_t i) {
  while (i < len && g_ascii_isdigit(s[i]))
    i++;
  return i;
}

/* Scans a number starting at s[i] by the JSON grammar; returns the index after it, or SIZE_MAX
 * when it is malformed. An integer outside the 64-bit range is a value error. */
static size_t jsonrpc_scan_number(JsonrpcScan *scan, size_t i, unsigned depth) {
  const char *s = scan->line;
  size_t len = scan->len;
  bool negative = s[i] == '-';
  bool integral = true;
  size_t digits, end;

  if (negative)
    i++;
  digits = i;
  end = jsonrpc_skip_digits(s, len, i);
  if (end == digits || (s[digits] == '0' && end - digits > 1))
    return SIZE_MAX;
  i = end;
  if (i < len && s[i] == '.') {
    integral = false;
    end = jsonrpc_skip_digits(s, len, i + 1);
    if (end == i + 1)
      return SIZE_MAX;
    i = end;
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    integral = false;
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-'))
      i++;
    end = jsonrpc_skip_digits(s, len, i);
    if (end == i)
      return SIZE_MAX;
    i = end;
  }
  if (integral) {
    size_t n = i - digits;
    const char *max = negative ? "9223372036854775808" : "9223372036854775807";

    if (n > 19 || (n == 19 && memcmp(s + digits, max, 19) > 0))
      jsonrpc_scan_value_error(scan, depth, "integers must fit in 64 bits");
  }
  return i;
}

/* Scans true, false or null at s[i]; returns the index after it, or SIZE_MAX. */
static size_t jsonrpc_scan_literal(const char *s, size_t len, size_t i) {
  static const char *const literals[] = {"true", "false", "null"};
  size_t end = i;

  while (end < len && g_ascii_isalnum(s[end]))
    end++;
  for (size_t k = 0; k < G_N_ELEMENTS(literals); k++)
    if (end - i == strlen(literals[k]) && memcmp(s + i, literals[k], end - i) == 0)
      return end;
  return SIZE_MAX;
}

/* Checks the tokens and nesting of a line that is valid UTF-8 without NUL bytes, and that
 * nothing follows the first whole value, scalar or not (json-glib leaks a value it parsed
 * after the root before it reports the error). The grammar between tokens (commas, colons,
 * matching brackets) is left to json-glib. */
static void jsonrpc_scan(JsonrpcScan *scan) {
  const char *s = scan->line;
  unsigned depth = 0;
  bool closed = false;
  size_t i = 0;

  while (i < scan->len && !scan->syntax_error) {
    char c = s[i];

    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      i++;
    } else if (closed) {
      scan->syntax_error = "unexpected data after the JSON value";
    } else if (c == '{' || c == '[') {
      if (++depth > JSONRPC_MAX_DEPTH)
        scan->syntax_error = "arrays and objects are nested too deeply";
      i++;
    } else if (c == '}' || c == ']') {
      if (depth == 0)
        scan->syntax_error = "unbalanced brackets";
      else if (--depth == 0)
        closed = true;
      i++;
    } else if (c == ':' || c == ',') {
      i++;
    } else if (c == '"') {
      i = jsonrpc_scan_string(scan, i + 1, depth);
      /* A value alone at the top ends the JSON too: json-glib loses what it built when more
       * follows ("2{...}"), so it must never see that. */
      closed = depth == 0;
    } else if (c == '-' || g_ascii_isdigit(c)) {
      i = jsonrpc_scan_number(scan, i, depth);
      if (i == SIZE_MAX)
        scan->syntax_error = "malformed number";
      closed = depth == 0;
    } else if (g_ascii_isalpha(c)) {
      i = jsonrpc_scan_literal(s, scan->len, i);
      if (i == SIZE_MAX)
        scan->syntax_error = "unexpected word; expected true, false or null";
      closed = depth == 0;
    } else {
      scan->syntax_error = "unexpected character";
    }
  }
}

/* Parses the line into a tree, or returns a g_malloc'd reason it is not JSON. */
static char *jsonrpc_load(const char *line, size_t len, JsonrpcScan *scan, JsonNode **ret_root) {
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *fixed = NULL;

  *ret_root = NULL;
  memset(scan, 0, sizeof *scan);
  if (memchr(line, '\0', len))
    return g_strdup("parse error: the line contains a NUL byte");
  if (!g_utf8_validate_len(line, len, NULL))
    return g_strdup("parse error: the line is not valid UTF-8");
  scan->line = line;
  scan->len = len;
  jsonrpc_scan(scan);
  fixed = g_steal_pointer(&scan->fixed);
  if (scan->syntax_error)
    return g_strdup_printf("parse error: %s", scan->syntax_error);

  parser = json_parser_new_immutable();
  if (!json_parser_load_from_data(parser, fixed ? fixed : line, (gssize)len, &error))
    return g_strdup_printf("parse error: %s", error->message);
  *ret_root = json_parser_steal_root(parser);
  if (!*ret_root)
    return g_strdup("parse error: empty message");
  return NULL;
}

static bool jsonrpc_node_is(JsonNode *node, GType type) {
  return node && JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == type;
}

/* Checks the envelope and fills msg (but not msg->root). *ret_id is the id when it is a usable
 * one, even if the message is invalid. Returns NULL or a static reason for INVALID_REQUEST. */
static const char *jsonrpc_validate(JsonNode *root, JsonrpcMessage *msg, JsonNode **ret_id) {
  JsonObject *obj;
  JsonNode *version, *id, *method, *params;

  *ret_id = NULL;
  if (JSON_NODE_HOLDS_ARRAY(root))
    return "batches are not supported";
  if (!JSON_NODE_HOLDS_OBJECT(root))
    return "a message must be a JSON object";

  obj = json_node_get_object(root);
  id = json_object_get_member(obj, "id");
  if (jsonrpc_node_is(id, G_TYPE_INT64) || jsonrpc_node_is(id, G_TYPE_STRING))
    *ret_id = id;
  version = json_object_get_member(obj, "jsonrpc");
  if (!jsonrpc_node_is(version, G_TYPE_STRING) || strcmp(json_node_get_string(version), "2.0") != 0)
    return "\"jsonrpc\" must be \"2.0\"";

  method = json_object_get_member(obj, "method");
  if (!method && (json_object_has_member(obj, "result") || json_object_has_member(obj, "error"))) {
    /* A client's answer: whatever its id, it is ignored, so it is not judged further. */
    msg->kind = JSONRPC_KIND_RESPONSE;
    msg->id = *ret_id;
    return NULL;
  }
  if (id && !*ret_id)
    return "\"id\" must be an integer or a string";
  if (!jsonrpc_node_is(method, G_TYPE_STRING))
    return "\"method\" must be a string";

  /* A null params is taken as absent, as LSP-style peers do; JSON-RPC 2.0 would omit it. */
  params = json_object_get_member(obj, "params");
  if (params && JSON_NODE_HOLDS_NULL(params))
    params = NULL;
  if (params && !JSON_NODE_HOLDS_OBJECT(params) && !JSON_NODE_HOLDS_ARRAY(params))
    return "\"params\" must be an object or an array";

  msg->kind = id ? JSONRPC_KIND_REQUEST : JSONRPC_KIND_NOTIFICATION;
  msg->method = json_node_get_string(method);
  msg->id = *ret_id;
  msg->params = params;
  return NULL;
}

int jsonrpc_parse(const char *line, size_t len, JsonrpcMessage *ret_msg, JsonNode **ret_id,
                  char **ret_error) {
  JsonrpcMessage msg = {0};
  JsonrpcScan scan;
  JsonNode *id = NULL;
  const char *invalid;
  char *error;
  int r;

  if (ret_id)
    *ret_id = NULL;
  if (ret_error)
    *ret_error = NULL;

  error = jsonrpc_load(line, len, &scan, &msg.root);
  if (error) {
    r = JSONRPC_PARSE_ERROR;
    goto fail;
  }

  invalid = jsonrpc_validate(msg.root, &msg, &id);
  /* A value json-glib altered at the top level may be the id itself: do not echo it. */
  if (scan.value_error && scan.value_depth <= 1)
    id = NULL;
  if (!invalid && scan.value_error && msg.kind != JSONRPC_KIND_RESPONSE)
    invalid = scan.value_error;
  if (invalid) {
    error = g_strdup_printf("invalid request: %s", invalid);
    r = JSONRPC_INVALID_REQUEST;
    goto fail;
  }

  *ret_msg = msg;
  return 0;

fail:
  if (ret_id && id)
    *ret_id = json_node_copy(id);
  if (ret_error)
    *ret_error = error;
  else
    g_free(error);
  jsonrpc_message_clear(&msg);
  memset(ret_msg, 0, sizeof *ret_msg);
  return r;
}

void jsonrpc_message_clear(JsonrpcMessage *msg) {
  if (!msg)
    return;
  if (msg->root)
    json_node_unref(msg->root);
  memset(msg, 0, sizeof *msg);
}

char *jsonrpc_id_key(JsonNode *id) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (jsonrpc_node_is(id, G_TYPE_INT64))
    return g_strdup_printf("n:%" G_GINT64_FORMAT, json_node_get_int(id));
  if (jsonrpc_node_is(id, G_TYPE_DOUBLE))
    return g_strconcat("n:", g_ascii_dtostr(buf, sizeof buf, json_node_get_double(id)), NULL);
  if (jsonrpc_node_is(id, G_TYPE_STRING))
    return g_strconcat("s:", json_node_get_string(id), NULL);
  return NULL;
}

/* Appends the id as JSON, null when there is none. */
static void jsonrpc_append_id(GString *out, JsonNode *id) {
  g_autofree char *text = NULL;

  if (!id || JSON_NODE_HOLDS_NULL(id)) {
    g_string_append(out, "null");
    return;
  }
  text = json_to_string(id, FALSE);
  g_string_append(out, text);
}

char *jsonrpc_format_error(JsonNode *id, int code, const char *message, size_t *ret_len) {
  return jsonrpc_format_error_data(id, code, message, NULL, ret_len);
}

char *jsonrpc_format_error_data(JsonNode *id, int code, const char *message, const char *data_json,
                                size_t *ret_len) {
  g_autoptr(JsonNode) text = json_node_new(JSON_NODE_VALUE);
  g_autofree char *valid = NULL;
  g_autofree char *quoted = NULL;
  GString *out = g_string_sized_new(128);

  /* The message may quote client input; the output must stay UTF-8 whatever it holds. */
  if (!message)
    message = "";
  if (!g_utf8_validate(message, -1, NULL))
    message = valid = g_utf8_make_valid(message, -1);
  json_node_set_string(text, message);
  quoted = json_to_string(text, FALSE);

  g_string_append(out, "{\"jsonrpc\":\"2.0\",\"id\":");
  jsonrpc_append_id(out, id);
  g_string_append_printf(out, ",\"error\":{\"code\":%d,\"message\":%s", code, quoted);
  if (data_json != NULL)
    g_string_append_printf(out, ",\"data\":%s", data_json);
  g_string_append(out, "}}\n");
  if (ret_len)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}

char *jsonrpc_format_result_head(JsonNode *id, size_t *ret_len) {
  GString *head = g_string_sized_new(64);

  g_string_append(head, "{\"jsonrpc\":\"2.0\",\"id\":");
  jsonrpc_append_id(head, id);
  g_string_append(head, ",\"result\":");
  if (ret_len != NULL)
    *ret_len = head->len;
  return g_string_free(head, FALSE);
}

char *jsonrpc_format_result(JsonNode *id, const char *result_json, size_t result_len,
                            size_t *ret_len) {
  static const char tail[] = JSONRPC_RESULT_TAIL;
  size_t head_len, len;
  g_autofree char *head = jsonrpc_format_result_head(id, &head_len);
  char *out;

  /* One allocation of the final size: the result can be hundreds of megabytes. */
  len = head_len + result_len + sizeof tail - 1;
  out = g_malloc(len + 1);
  memcpy(out, head, head_len);
  if (result_len > 0)
    memcpy(out + head_len, result_json, result_len);
  memcpy(out + head_len + result_len, tail, sizeof tail);
  if (ret_len)
    *ret_len = len;
  return out;
}
