/* JSON-RPC 2.0 messages over json-glib.
 *
 * Each line is parsed by json_parse_bounded_note() (json-parse.h): anything that is not plain
 * JSON, or nests deeper than JSONRPC_MAX_DEPTH, is a parse error and never reaches json-glib.
 * Escapes json-glib would mangle (\u0000, unpaired surrogates) are replaced by \ufffd in a copy
 * before json-glib sees it, so the id can still be read, and the message is an invalid
 * request; so is an integer beyond 64 bits, which json-glib would wrap. */
#include "ipc/jsonrpc.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ipc/json-parse-internal.h"
#include "ipc/json-parse.h"

/* Where the parts of a line left as text are in it (a length of 0: none). */
typedef struct {
  size_t params_at, params_len;       /* a `read` request's params */
  size_t arguments_at, arguments_len; /* a `tools/call` request's params.arguments */
} JsonrpcText;

/* tools/call's params of text[0..len) (an object) without their arguments when those are an
 * object: where they are is then set in *ret (inside text); anything else is built whole. */
static JsonNode *jsonrpc_call_params(const char *text, size_t len, JsonrpcText *ret) {
  JsonNode *params = json_tree_build_except(text, len, "arguments", &ret->arguments_at,
                                            &ret->arguments_len);

  if (ret->arguments_len == 0 || text[ret->arguments_at] == '{')
    return params;
  json_node_unref(params);
  ret->arguments_at = ret->arguments_len = 0;
  return json_tree_build(text, len);
}

/* The name of the root object's method, or NULL. */
static const char *jsonrpc_method_name(JsonObject *obj) {
  JsonNode *method = json_object_get_member(obj, "method");

  return method != NULL && JSON_NODE_HOLDS_VALUE(method) &&
                 json_node_get_value_type(method) == G_TYPE_STRING
             ? json_node_get_string(method)
             : NULL;
}

/* Parses the line into a tree, or returns a g_malloc'd reason it is not JSON. With
 * JSONRPC_PARSE_READ_TEXT, the root's params are not built when they are a `read` request's
 * object or array; with JSONRPC_PARSE_CALL_TEXT, a `tools/call` request's params.arguments are
 * not built when they are an object: they are left where they are in the line (*ret). */
static char *jsonrpc_load(const char *line, size_t len, unsigned flags, JsonParseNote *note,
                          JsonNode **ret_root, JsonrpcText *ret) {
  g_autofree char *error = NULL;
  const char *name;
  JsonNode *params;
  JsonObject *obj;
  size_t at;

  memset(ret, 0, sizeof *ret);
  if (json_parse_bounded_except(
          line, len, JSONRPC_MAX_DEPTH,
          flags & (JSONRPC_PARSE_READ_TEXT | JSONRPC_PARSE_CALL_TEXT) ? "params" : NULL, ret_root,
          &ret->params_at, &ret->params_len, note, &error) < 0)
    return g_strdup_printf("parse error: %s", error);
  if (ret->params_len == 0) {
    json_node_seal(*ret_root);
    return NULL;
  }
  /* The params were left out: the root is an object. They stay text for a `read` whose params
   * are a container, and a tools/call's arguments for one whose are an object; anything else
   * gets its params built, as without the flags. */
  obj = json_node_get_object(*ret_root);
  name = jsonrpc_method_name(obj);
  at = ret->params_at;
  if ((flags & JSONRPC_PARSE_READ_TEXT) && g_strcmp0(name, "read") == 0 &&
      (line[at] == '{' || line[at] == '[')) {
    /* A stand-in of the same kind, for the envelope's checks; never handed out. */
    params = json_node_alloc();
    if (line[at] == '{')
      json_node_take_object(json_node_init(params, JSON_NODE_OBJECT), json_object_new());
    else
      json_node_take_array(json_node_init(params, JSON_NODE_ARRAY), json_array_new());
  } else if ((flags & JSONRPC_PARSE_CALL_TEXT) && g_strcmp0(name, "tools/call") == 0 &&
             line[at] == '{') {
    params = jsonrpc_call_params(line + at, ret->params_len, ret);
    ret->arguments_at += at;
    ret->params_at = ret->params_len = 0;
  } else {
    params = json_tree_build(line + at, ret->params_len);
    ret->params_at = ret->params_len = 0;
  }
  json_object_set_member(obj, "params", params);
  json_node_seal(*ret_root);
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
  return jsonrpc_parse_flags(line, len, 0, ret_msg, ret_id, ret_error);
}

int jsonrpc_parse_flags(const char *line, size_t len, unsigned flags, JsonrpcMessage *ret_msg,
                        JsonNode **ret_id, char **ret_error) {
  JsonrpcMessage msg = {0};
  JsonParseNote note;
  JsonNode *id = NULL;
  const char *invalid;
  JsonrpcText text;
  char *error;
  int r;

  if (ret_id)
    *ret_id = NULL;
  if (ret_error)
    *ret_error = NULL;

  error = jsonrpc_load(line, len, flags, &note, &msg.root, &text);
  if (error) {
    r = JSONRPC_PARSE_ERROR;
    goto fail;
  }

  invalid = jsonrpc_validate(msg.root, &msg, &id);
  /* A value json-glib altered at the top level may be the id itself: do not echo it. */
  if (note.value_error && note.value_depth <= 1)
    id = NULL;
  if (!invalid && note.value_error && msg.kind != JSONRPC_KIND_RESPONSE) {
    if ((flags & JSONRPC_PARSE_KEEP_PARAM_VALUES) && note.value_depth >= 2 &&
        msg.kind == JSONRPC_KIND_REQUEST)
      msg.value_error = note.value_error;
    else
      invalid = note.value_error;
  }
  if (invalid) {
    error = g_strdup_printf("invalid request: %s", invalid);
    r = JSONRPC_INVALID_REQUEST;
    goto fail;
  }

  if (text.params_len > 0) {
    msg.params = NULL;
    msg.params_text = line + text.params_at;
    msg.params_len = text.params_len;
  }
  if (text.arguments_len > 0) {
    msg.arguments_text = line + text.arguments_at;
    msg.arguments_len = text.arguments_len;
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
