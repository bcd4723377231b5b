/* JSON-RPC 2.0: validation of incoming lines and formatting of responses. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "ipc/jsonrpc.h"
#include "tests/lib/check-run.h"

static int parse(const char *line, JsonrpcMessage *msg, JsonNode **ret_id, char **ret_error) {
  return jsonrpc_parse(line, strlen(line), msg, ret_id, ret_error);
}

static void parse_ok(const char *line, JsonrpcMessage *msg) {
  JsonNode *id = NULL;
  char *error = NULL;
  int r = parse(line, msg, &id, &error);

  ck_assert_msg(r == 0, "%s: %d %s", line, r, error ? error : "");
  ck_assert_ptr_null(id);
  ck_assert_ptr_null(error);
  ck_assert_ptr_nonnull(msg->root);
}

/* Expects the given error code and a message; want_key is the id's key expected back, or NULL
 * when no id may come back. */
static void expect_error_len(const char *line, size_t len, int code, const char *want_key) {
  JsonrpcMessage msg = {0};
  JsonNode *id = NULL;
  char *error = NULL;
  char *key;
  int r = jsonrpc_parse(line, len, &msg, &id, &error);

  ck_assert_msg(r == code, "%.200s: expected %d, got %d", line, code, r);
  ck_assert_ptr_nonnull(error);
  ck_assert_msg(error[0] != '\0', "empty error message");
  ck_assert_ptr_null(msg.root);
  key = jsonrpc_id_key(id);
  if (want_key) {
    ck_assert_msg(key && strcmp(key, want_key) == 0, "%.200s: id %s, expected %s", line,
                  key ? key : "NULL", want_key);
  } else {
    ck_assert_msg(id == NULL, "%.200s: unexpected id %s", line, key ? key : "?");
  }
  g_free(key);
  g_free(error);
  if (id)
    json_node_unref(id);
}

static void expect_error(const char *line, int code, const char *want_key) {
  expect_error_len(line, strlen(line), code, want_key);
}

START_TEST(jsonrpc_request_with_integer_id) {
  JsonrpcMessage msg;
  JsonObject *params;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"read\",\"params\":{\"paths\":[\"a\"]}}",
           &msg);
  ck_assert_int_eq(msg.kind, JSONRPC_KIND_REQUEST);
  ck_assert_str_eq(msg.method, "read");
  ck_assert_int_eq(json_node_get_value_type(msg.id), G_TYPE_INT64);
  ck_assert_int_eq(json_node_get_int(msg.id), 7);
  ck_assert(JSON_NODE_HOLDS_OBJECT(msg.params));
  params = json_node_get_object(msg.params);
  ck_assert(json_object_has_member(params, "paths"));
  jsonrpc_message_clear(&msg);
  ck_assert_ptr_null(msg.root);
  ck_assert_ptr_null(msg.id);
}
END_TEST

START_TEST(jsonrpc_request_with_string_id) {
  JsonrpcMessage msg;

  parse_ok("{\"method\":\"initialize\",\"id\":\"q\\\"\\u00e9\\ud83d\\ude00\",\"jsonrpc\":\"2.0\"}",
           &msg);
  ck_assert_int_eq(msg.kind, JSONRPC_KIND_REQUEST);
  ck_assert_str_eq(json_node_get_string(msg.id), "q\"\xc3\xa9\xf0\x9f\x98\x80");
  ck_assert_ptr_null(msg.params);
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_extreme_integer_ids) {
  JsonrpcMessage msg;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"m\"}", &msg);
  ck_assert(json_node_get_int(msg.id) == G_MAXINT64);
  jsonrpc_message_clear(&msg);
  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":\"m\"}", &msg);
  ck_assert(json_node_get_int(msg.id) == G_MININT64);
  jsonrpc_message_clear(&msg);
  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"m\"}", &msg);
  ck_assert_int_eq(json_node_get_int(msg.id), 0);
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_notification_has_no_id) {
  JsonrpcMessage msg;

  parse_ok("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":3}}", &msg);
  ck_assert_int_eq(msg.kind, JSONRPC_KIND_NOTIFICATION);
  ck_assert_str_eq(msg.method, "$/cancelRequest");
  ck_assert_ptr_null(msg.id);
  ck_assert(JSON_NODE_HOLDS_OBJECT(msg.params));
  jsonrpc_message_clear(&msg);

  parse_ok("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}", &msg);
  ck_assert_int_eq(msg.kind, JSONRPC_KIND_NOTIFICATION);
  ck_assert_ptr_null(msg.params);
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_params_array_or_null) {
  JsonrpcMessage msg;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[1,2]}", &msg);
  ck_assert(JSON_NODE_HOLDS_ARRAY(msg.params));
  jsonrpc_message_clear(&msg);
  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\",\"params\":null}", &msg);
  ck_assert_ptr_null(msg.params);
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_responses_are_recognised) {
  JsonrpcMessage msg;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"ok\":true}}", &msg);
  ck_assert_int_eq(msg.kind, JSONRPC_KIND_RESPONSE);
  ck_assert_ptr_null(msg.method);
  ck_assert_int_eq(json_node_get_int(msg.id), 4);
  jsonrpc_message_clear(&msg);

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}", &msg);
  ck_assert_int_eq(msg.kind, JSONRPC_KIND_RESPONSE);
  ck_assert_ptr_null(msg.method);
  ck_assert_ptr_null(msg.id);
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_unparsable_is_parse_error) {
  static const char *const bad[] = {
      "{this is not json",
      "",
      "   ",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"} x",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}{}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",}",
      "/* c */{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}",
      "# c",
      "{'jsonrpc':'2.0','id':1,'method':'m'}",
      "{\"jsonrpc\":\"2.0\",\"id\":01,\"method\":\"m\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1.,\"method\":\"m\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":0x10,\"method\":\"m\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":-,\"method\":\"m\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[NaN]}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[True]}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"]",
      "}",
      "\"\\",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\\x\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\\0\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\\u12\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\\u12g4\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"m\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[null1]}",
      "\xef\xbb\xbf{}",
      /* A value alone, then more: json-glib would lose the object it built (found by fuzzing). */
      "2{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{}}",
      "\"s\"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{}}",
      "true {\"a\":1}",
      "null[1]",
      "1 2",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    expect_error(bad[i], JSONRPC_PARSE_ERROR, NULL);
}
END_TEST

/* Anything after a top-level scalar is refused by readerd's own scan, before json-glib, which
 * would leak the second value. */
START_TEST(jsonrpc_data_after_a_scalar_is_parse_error) {
  static const char *const bad[] = {"0{}", "\"a\" []", "true {\"a\":1}", "-1.5e3 2", "null\"x\""};

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    JsonrpcMessage msg;
    JsonNode *id = NULL;
    g_autofree char *error = NULL;
    int r = jsonrpc_parse(bad[i], strlen(bad[i]), &msg, &id, &error);

    ck_assert_int_eq(r, JSONRPC_PARSE_ERROR);
    ck_assert_ptr_null(id);
    ck_assert_msg(strstr(error, "after the JSON value") != NULL, "%s: %s", bad[i], error);
  }
}
END_TEST

START_TEST(jsonrpc_nul_byte_or_bad_utf8_is_parse_error) {
  static const char with_nul[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\0\"}";

  expect_error_len(with_nul, sizeof with_nul - 1, JSONRPC_PARSE_ERROR, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", JSONRPC_PARSE_ERROR, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\"}", JSONRPC_PARSE_ERROR, NULL);
}
END_TEST

START_TEST(jsonrpc_line_need_not_be_nul_terminated) {
  static const char buf[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}garbage";
  JsonrpcMessage msg;

  ck_assert_int_eq(jsonrpc_parse(buf, strlen(buf) - 7, &msg, NULL, NULL), 0);
  ck_assert_str_eq(msg.method, "m");
  jsonrpc_message_clear(&msg);
}
END_TEST

/* A request whose params nest arrays to the given total depth (the root object counts 1). */
static char *nested_request(unsigned depth) {
  GString *s = g_string_new("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":");

  for (unsigned i = 1; i < depth; i++)
    g_string_append_c(s, '[');
  for (unsigned i = 1; i < depth; i++)
    g_string_append_c(s, ']');
  g_string_append_c(s, '}');
  return g_string_free(s, FALSE);
}

START_TEST(jsonrpc_nesting_is_limited) {
  char *ok = nested_request(JSONRPC_MAX_DEPTH);
  char *deep = nested_request(JSONRPC_MAX_DEPTH + 1);
  size_t n = 4 * 1024 * 1024;
  char *flood = g_malloc(n);
  JsonrpcMessage msg;

  parse_ok(ok, &msg);
  jsonrpc_message_clear(&msg);
  expect_error(deep, JSONRPC_PARSE_ERROR, NULL);
  /* Would overflow the stack of a recursive parser. */
  memset(flood, '[', n);
  expect_error_len(flood, n, JSONRPC_PARSE_ERROR, NULL);
  memset(flood, '{', n);
  expect_error_len(flood, n, JSONRPC_PARSE_ERROR, NULL);
  g_free(flood);
  g_free(deep);
  g_free(ok);
}
END_TEST

START_TEST(jsonrpc_batch_is_refused) {
  JsonrpcMessage msg;
  JsonNode *id = NULL;
  char *error = NULL;

  ck_assert_int_eq(parse("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}]", &msg, &id, &error),
                   JSONRPC_INVALID_REQUEST);
  ck_assert_ptr_null(id);
  ck_assert_ptr_nonnull(strstr(error, "batches are not supported"));
  g_free(error);
  expect_error("[]", JSONRPC_INVALID_REQUEST, NULL);
}
END_TEST

START_TEST(jsonrpc_root_must_be_object) {
  static const char *const bad[] = {"1", "\"read\"", "null", "true", "-3.5"};

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    expect_error(bad[i], JSONRPC_INVALID_REQUEST, NULL);
}
END_TEST

START_TEST(jsonrpc_version_must_be_2_0) {
  expect_error("{\"id\":5,\"method\":\"m\"}", JSONRPC_INVALID_REQUEST, "n:5");
  expect_error("{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"m\"}", JSONRPC_INVALID_REQUEST, "n:5");
  expect_error("{\"jsonrpc\":2.0,\"id\":\"x\",\"method\":\"m\"}", JSONRPC_INVALID_REQUEST, "s:x");
  expect_error("{\"jsonrpc\":\"2.0 \",\"id\":5,\"method\":\"m\"}", JSONRPC_INVALID_REQUEST, "n:5");
  expect_error("{\"jsonrpc\":null,\"method\":\"m\"}", JSONRPC_INVALID_REQUEST, NULL);
  expect_error("{\"jsonrpc\":\"1.0\",\"id\":5,\"result\":1}", JSONRPC_INVALID_REQUEST, "n:5");
}
END_TEST

START_TEST(jsonrpc_id_must_be_integer_or_string) {
  static const char *const ids[] = {"null", "1.5", "1e3", "true", "{}", "[1]"};

  for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
    char *line = g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"m\"}", ids[i]);

    expect_error(line, JSONRPC_INVALID_REQUEST, NULL);
    g_free(line);
  }
}
END_TEST

START_TEST(jsonrpc_method_must_be_string) {
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":5}", JSONRPC_INVALID_REQUEST, "n:5");
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":5}", JSONRPC_INVALID_REQUEST, "n:5");
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":null}", JSONRPC_INVALID_REQUEST,
               "s:a");
  expect_error("{\"jsonrpc\":\"2.0\",\"method\":[\"read\"]}", JSONRPC_INVALID_REQUEST, NULL);
}
END_TEST

START_TEST(jsonrpc_params_must_be_structured) {
  static const char *const params[] = {"\"x\"", "5", "true", "false"};

  for (size_t i = 0; i < G_N_ELEMENTS(params); i++) {
    char *line =
        g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"m\",\"params\":%s}", params[i]);

    expect_error(line, JSONRPC_INVALID_REQUEST, "n:9");
    g_free(line);
  }
}
END_TEST

START_TEST(jsonrpc_strings_json_glib_would_alter) {
  JsonrpcMessage msg;

  /* Escaped U+0000 or a lone surrogate inside params: refused, the id comes back. */
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read\","
               "\"params\":{\"paths\":[\"a\\u0000b\"]}}",
               JSONRPC_INVALID_REQUEST, "n:3");
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read\","
               "\"params\":{\"paths\":[\"\\udcff\"]}}",
               JSONRPC_INVALID_REQUEST, "n:3");
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read\",\"params\":[\"\\uD800x\"]}",
               JSONRPC_INVALID_REQUEST, "n:3");
  /* In the id itself (or anywhere at the top level): refused, no id is echoed. */
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0000b\",\"method\":\"m\"}",
               JSONRPC_INVALID_REQUEST, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"read\\u0000\"}",
               JSONRPC_INVALID_REQUEST, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\",\"params\":[\"\\ud800\\u0041\"]}",
               JSONRPC_INVALID_REQUEST, "n:3");
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\",\"params\":[\"\\udc00\\ud800\"]}",
               JSONRPC_INVALID_REQUEST, "n:3");
  /* A notification is refused too. */
  expect_error("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":[\"\\u0000\"]}",
               JSONRPC_INVALID_REQUEST, NULL);

  /* An escaped backslash followed by u0000 is plain text. */
  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\",\"params\":[\"a\\\\u0000b\"]}", &msg);
  ck_assert_str_eq(json_array_get_string_element(json_node_get_array(msg.params), 0), "a\\u0000b");
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_surrogate_cannot_hide_structure) {
  /* json-glib alone would swallow the quote after a lone surrogate and then read the '[' of the
   * next string as structure: a stack overflow. */
  GString *s = g_string_new("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"m\","
                            "\"params\":[\"\\ud800\",\",");
  JsonrpcMessage msg;

  for (int i = 0; i < 1000000; i++)
    g_string_append_c(s, '[');
  g_string_append(s, "\"]}");
  expect_error_len(s->str, s->len, JSONRPC_INVALID_REQUEST, "n:8");
  /* The same with a valid pair parses, and the brackets are text. */
  memcpy(strstr(s->str, "\\ud800"), "\\u00e9", 6);
  parse_ok(s->str, &msg);
  ck_assert_uint_eq(strlen(json_array_get_string_element(json_node_get_array(msg.params), 1)),
                    1000001);
  jsonrpc_message_clear(&msg);
  g_string_free(s, TRUE);
}
END_TEST

START_TEST(jsonrpc_integers_beyond_64_bits) {
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"m\"}",
               JSONRPC_INVALID_REQUEST, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775809,\"method\":\"m\"}",
               JSONRPC_INVALID_REQUEST, NULL);
  expect_error("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"offset\":"
               "18446744073709551617}}",
               JSONRPC_INVALID_REQUEST, "n:2");
}
END_TEST

/* With JSONRPC_PARSE_KEEP_PARAM_VALUES, such a value inside params leaves the request whole for
 * its handler to answer; in the envelope it is still an invalid request. */
START_TEST(jsonrpc_keep_param_values) {
  static const char line[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                             "{\"arguments\":{\"offset\":9223372036854775808}}}";
  static const char envelope[] = "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"m\"}";
  JsonrpcMessage msg;
  JsonNode *id = NULL;
  char *error = NULL;

  ck_assert_int_eq(jsonrpc_parse_flags(line, strlen(line), JSONRPC_PARSE_KEEP_PARAM_VALUES, &msg,
                                       &id, &error),
                   0);
  ck_assert_str_eq(msg.value_error, "integers must fit in 64 bits");
  ck_assert_str_eq(msg.method, "tools/call");
  jsonrpc_message_clear(&msg);
  ck_assert_int_eq(jsonrpc_parse_flags(line, strlen(line), 0, &msg, &id, &error),
                   JSONRPC_INVALID_REQUEST);
  json_node_unref(id);
  g_free(error);
  ck_assert_int_eq(jsonrpc_parse_flags(envelope, strlen(envelope), JSONRPC_PARSE_KEEP_PARAM_VALUES,
                                       &msg, &id, &error),
                   JSONRPC_INVALID_REQUEST);
  ck_assert_ptr_null(id);
  g_free(error);
}
END_TEST

START_TEST(jsonrpc_id_keys) {
  g_autoptr(JsonNode) n7 = json_node_init_int(json_node_alloc(), 7);
  g_autoptr(JsonNode) s7 = json_node_init_string(json_node_alloc(), "7");
  g_autoptr(JsonNode) null = json_node_init_null(json_node_alloc());
  g_autoptr(JsonObject) o = json_object_new();
  g_autoptr(JsonNode) obj = json_node_init_object(json_node_alloc(), o); /* takes its own ref */
  g_autofree char *kn = jsonrpc_id_key(n7);
  g_autofree char *ks = jsonrpc_id_key(s7);

  ck_assert_str_eq(kn, "n:7");
  ck_assert_str_eq(ks, "s:7");
  ck_assert_str_ne(kn, ks);
  ck_assert_ptr_null(jsonrpc_id_key(NULL));
  ck_assert_ptr_null(jsonrpc_id_key(null));
  ck_assert_ptr_null(jsonrpc_id_key(obj));
}
END_TEST

/* Parses a formatted line: exactly one '\n', at the end, and a JSON-RPC 2.0 envelope. */
static JsonNode *reparse(const char *out, size_t len) {
  g_autoptr(JsonParser) parser = json_parser_new();
  g_autoptr(GError) error = NULL;
  JsonObject *obj;

  ck_assert_uint_eq(len, strlen(out));
  ck_assert_uint_ge(len, 2);
  ck_assert_int_eq(out[len - 1], '\n');
  ck_assert_ptr_eq(strchr(out, '\n'), out + len - 1);
  ck_assert(g_utf8_validate(out, (gssize)len, NULL));
  ck_assert_msg(json_parser_load_from_data(parser, out, (gssize)len, &error), "%s: %s", out,
                error ? error->message : "");
  obj = json_node_get_object(json_parser_get_root(parser));
  ck_assert_str_eq(json_object_get_string_member(obj, "jsonrpc"), "2.0");
  return json_node_ref(json_parser_get_root(parser));
}

START_TEST(jsonrpc_format_error_round_trip) {
  static const char *const messages[] = {"plain", "quote \" backslash \\ tab \t newline \n",
                                         "\303\274n\303\257 c\303\266d\303\251 \342\230\203 \001",
                                         ""};
  JsonrpcMessage msg;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":\"q\\\"\\\\\\n\\u00e9\\ud83d\\ude00\",\"method\":\"m\"}",
           &msg);
  for (size_t i = 0; i < G_N_ELEMENTS(messages); i++) {
    size_t len;
    g_autofree char *out = jsonrpc_format_error(msg.id, JSONRPC_INVALID_PARAMS, messages[i], &len);
    g_autoptr(JsonNode) root = reparse(out, len);
    JsonObject *obj = json_node_get_object(root);
    JsonObject *err = json_object_get_object_member(obj, "error");

    ck_assert_str_eq(json_object_get_string_member(obj, "id"), "q\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
    ck_assert_int_eq(json_object_get_int_member(err, "code"), JSONRPC_INVALID_PARAMS);
    ck_assert_str_eq(json_object_get_string_member(err, "message"), messages[i]);
    ck_assert(!json_object_has_member(obj, "result"));
  }
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_format_error_without_id) {
  size_t len;
  g_autofree char *out = jsonrpc_format_error(NULL, JSONRPC_PARSE_ERROR, "bad", &len);
  g_autoptr(JsonNode) root = reparse(out, len);
  JsonObject *obj = json_node_get_object(root);

  ck_assert(json_object_has_member(obj, "id"));
  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(obj, "id")));
  ck_assert_int_eq(json_object_get_int_member(json_object_get_object_member(obj, "error"), "code"),
                   JSONRPC_PARSE_ERROR);
}
END_TEST

START_TEST(jsonrpc_format_error_invalid_utf8_message) {
  size_t len;
  g_autofree char *out = jsonrpc_format_error(NULL, JSONRPC_INTERNAL_ERROR, "bad \xff name", &len);
  g_autoptr(JsonNode) root = reparse(out, len);
  JsonObject *err = json_object_get_object_member(json_node_get_object(root), "error");

  ck_assert_ptr_nonnull(strstr(json_object_get_string_member(err, "message"), "name"));
}
END_TEST

START_TEST(jsonrpc_format_keeps_integer_ids) {
  JsonrpcMessage msg;
  size_t len;
  g_autofree char *out = NULL;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"m\"}", &msg);
  out = jsonrpc_format_result(msg.id, "null", 4, &len);
  ck_assert_ptr_nonnull(strstr(out, "\"id\":9223372036854775807,"));
  jsonrpc_message_clear(&msg);
}
END_TEST

START_TEST(jsonrpc_format_result_round_trip) {
  static const char result[] = "{\"xml\":\"<ReadResults/>\",\"files\":[{\"path\":\"a\"}],\"n\":3}";
  g_autoptr(JsonNode) id = json_node_init_int(json_node_alloc(), 42);
  size_t len;
  g_autofree char *out = jsonrpc_format_result(id, result, strlen(result), &len);
  g_autoptr(JsonNode) root = reparse(out, len);
  JsonObject *obj = json_node_get_object(root);
  JsonObject *res = json_object_get_object_member(obj, "result");

  ck_assert_int_eq(json_object_get_int_member(obj, "id"), 42);
  ck_assert_str_eq(json_object_get_string_member(res, "xml"), "<ReadResults/>");
  ck_assert_int_eq(json_object_get_int_member(res, "n"), 3);
  ck_assert(!json_object_has_member(obj, "error"));
  /* Embedded byte for byte. */
  ck_assert_ptr_nonnull(strstr(out, result));
}
END_TEST

START_TEST(jsonrpc_format_result_uses_only_result_len) {
  static const char result[] = "nullGARBAGE";
  size_t len;
  g_autofree char *out = jsonrpc_format_result(NULL, result, 4, &len);
  g_autoptr(JsonNode) root = reparse(out, len);
  JsonObject *obj = json_node_get_object(root);

  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(obj, "result")));
  ck_assert(JSON_NODE_HOLDS_NULL(json_object_get_member(obj, "id")));
  ck_assert_ptr_null(strstr(out, "GARBAGE"));
}
END_TEST

START_TEST(jsonrpc_format_without_ret_len) {
  g_autofree char *result = jsonrpc_format_result(NULL, "1", 1, NULL);
  g_autofree char *error = jsonrpc_format_error(NULL, JSONRPC_METHOD_NOT_FOUND, "x", NULL);

  ck_assert_str_eq(result, "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}\n");
  ck_assert_ptr_nonnull(strstr(error, "-32601"));
}
END_TEST

START_TEST(jsonrpc_request_to_response) {
  JsonrpcMessage msg;
  size_t len;
  g_autofree char *out = NULL;
  g_autoptr(JsonNode) root = NULL;

  parse_ok("{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"method\":\"shutdown\"}", &msg);
  out = jsonrpc_format_result(msg.id, "null", 4, &len);
  root = reparse(out, len);
  ck_assert_str_eq(json_object_get_string_member(json_node_get_object(root), "id"), "req-1");
  jsonrpc_message_clear(&msg);
}
END_TEST

/* With JSONRPC_PARSE_CALL_TEXT, a tools/call's arguments object stays text in the line (its last
 * value when repeated); the rest of params is built. Anything else is built as without it. */
START_TEST(jsonrpc_call_arguments_as_text) {
  static const char *const built[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
      "\"params\":{\"name\":\"a\",\"arguments\":7}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
      "\"params\":{\"name\":\"a\",\"arguments\":[{}]}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[{\"arguments\":{}}]}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
      "\"params\":{\"arguments\":{\"a\":1}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
      "\"params\":{\"arguments\":{\"a\":1},\"arguments\":null}}",
  };
  const char *line = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                     "\"read_files\",\"arguments\":{\"x\":1},\"arguments\" : {\"paths\":[\"a\"]} ,"
                     "\"_meta\":{\"progressToken\":3}}}";
  const char *noted =
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":{\"offset\":99999999999999999999}}}";
  g_autofree char *opening = g_strnfill(126, '['), *closing = g_strnfill(126, ']');
  g_autofree char *deep = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":{\"paths\":[\"a\"],\"x\":%s%s}}}",
      opening, closing);
  const char *refused[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":{\"paths\":[\"a\xff\"]}}}",
      deep,
  };
  JsonrpcMessage msg, plain;
  JsonObject *p;

  ck_assert_int_eq(
      jsonrpc_parse_flags(line, strlen(line), JSONRPC_PARSE_CALL_TEXT, &msg, NULL, NULL), 0);
  ck_assert_ptr_null(msg.params_text);
  ck_assert_uint_eq(msg.arguments_len, strlen("{\"paths\":[\"a\"]}"));
  ck_assert(memcmp(msg.arguments_text, "{\"paths\":[\"a\"]}", msg.arguments_len) == 0);
  p = json_node_get_object(msg.params);
  ck_assert_str_eq(json_object_get_string_member(p, "name"), "read_files");
  ck_assert(!json_object_has_member(p, "arguments"));
  ck_assert_int_eq(
      json_object_get_int_member(json_object_get_object_member(p, "_meta"), "progressToken"), 3);
  jsonrpc_message_clear(&msg);

  /* A value json-glib cannot keep: the whole line is its tree, the tool's error to give. */
  ck_assert_int_eq(jsonrpc_parse_flags(noted, strlen(noted),
                                       JSONRPC_PARSE_CALL_TEXT | JSONRPC_PARSE_KEEP_PARAM_VALUES,
                                       &msg, NULL, NULL),
                   0);
  ck_assert_ptr_null(msg.arguments_text);
  ck_assert_str_eq(msg.value_error, "integers must fit in 64 bits");
  ck_assert(json_object_has_member(json_node_get_object(msg.params), "arguments"));
  jsonrpc_message_clear(&msg);

  /* Bytes that are not UTF-8 and nesting past the limit in the arguments: the line's parse error,
   * as without the flag. */
  for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
    g_autofree char *e1 = NULL, *e2 = NULL;

    ck_assert_int_eq(jsonrpc_parse_flags(refused[i], strlen(refused[i]), JSONRPC_PARSE_CALL_TEXT,
                                         &msg, NULL, &e1),
                     JSONRPC_PARSE_ERROR);
    ck_assert_int_eq(jsonrpc_parse(refused[i], strlen(refused[i]), &plain, NULL, &e2),
                     JSONRPC_PARSE_ERROR);
    ck_assert_str_eq(e1, e2);
  }

  for (size_t i = 0; i < G_N_ELEMENTS(built); i++) {
    ck_assert_int_eq(
        jsonrpc_parse_flags(built[i], strlen(built[i]), JSONRPC_PARSE_CALL_TEXT, &msg, NULL, NULL),
        0);
    ck_assert_int_eq(jsonrpc_parse(built[i], strlen(built[i]), &plain, NULL, NULL), 0);
    ck_assert_msg(msg.arguments_text == NULL, "%s", built[i]);
    ck_assert_msg(json_node_equal(msg.params, plain.params), "%s", built[i]);
    jsonrpc_message_clear(&msg);
    jsonrpc_message_clear(&plain);
  }
}
END_TEST

/* With JSONRPC_PARSE_READ_TEXT a read's params stay text, exactly as in the line (the last of
 * a repeated member); everything else is answered as without the flag. */
START_TEST(jsonrpc_read_params_as_text) {
  static const char *const same[] = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":\"x\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[99999999999999999999]}}",
      "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"read\",\"params\":{}}",
      "{\"jsonrpc\":\"2.0\",\"id\":[],\"method\":\"read\",\"params\":{}}",
  };
  const char *line = "{\"params\":{\"paths\":[1]},\"jsonrpc\":\"2.0\",\"id\":\"r\","
                     "\"method\":\"read\",\"params\" : {\"paths\":[\"a\",\"b\\\"\"]} }";
  const char *other = "{\"jsonrpc\":\"2.0\",\"id\":2,\"params\":{\"a\":[1,{\"b\":\"c\"}]},\"method\":\"x\"}";
  const char *absent = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read\",\"params\":null}";
  JsonrpcMessage msg, plain;

  ck_assert_int_eq(jsonrpc_parse_flags(line, strlen(line), JSONRPC_PARSE_READ_TEXT, &msg, NULL, NULL), 0);
  ck_assert_ptr_null(msg.params);
  ck_assert_str_eq(msg.method, "read");
  ck_assert_str_eq(json_node_get_string(msg.id), "r");
  ck_assert_uint_eq(msg.params_len, strlen("{\"paths\":[\"a\",\"b\\\"\"]}"));
  ck_assert(memcmp(msg.params_text, "{\"paths\":[\"a\",\"b\\\"\"]}", msg.params_len) == 0);
  jsonrpc_message_clear(&msg);

  ck_assert_int_eq(jsonrpc_parse_flags(other, strlen(other), JSONRPC_PARSE_READ_TEXT, &msg, NULL, NULL), 0);
  ck_assert_int_eq(jsonrpc_parse(other, strlen(other), &plain, NULL, NULL), 0);
  ck_assert_ptr_null(msg.params_text);
  ck_assert(json_node_equal(msg.params, plain.params));
  jsonrpc_message_clear(&msg);
  jsonrpc_message_clear(&plain);

  ck_assert_int_eq(jsonrpc_parse_flags(absent, strlen(absent), JSONRPC_PARSE_READ_TEXT, &msg, NULL, NULL), 0);
  ck_assert_ptr_null(msg.params);
  ck_assert_ptr_null(msg.params_text);
  jsonrpc_message_clear(&msg);

  for (size_t i = 0; i < G_N_ELEMENTS(same); i++) {
    g_autofree char *e1 = NULL, *e2 = NULL;
    int r = jsonrpc_parse(same[i], strlen(same[i]), &plain, NULL, &e1);

    ck_assert_int_eq(jsonrpc_parse_flags(same[i], strlen(same[i]), JSONRPC_PARSE_READ_TEXT, &msg,
                                         NULL, &e2),
                     r);
    ck_assert_int_lt(r, 0);
    ck_assert_str_eq(e1, e2);
  }
}
END_TEST

START_TEST(jsonrpc_clear_null) {
  JsonrpcMessage msg = {0};

  jsonrpc_message_clear(NULL);
  jsonrpc_message_clear(&msg);
}
END_TEST

static Suite *jsonrpc_suite(void) {
  Suite *s = suite_create("jsonrpc");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, jsonrpc_request_with_integer_id);
  tcase_add_test(tc, jsonrpc_request_with_string_id);
  tcase_add_test(tc, jsonrpc_extreme_integer_ids);
  tcase_add_test(tc, jsonrpc_notification_has_no_id);
  tcase_add_test(tc, jsonrpc_params_array_or_null);
  tcase_add_test(tc, jsonrpc_responses_are_recognised);
  tcase_add_test(tc, jsonrpc_unparsable_is_parse_error);
  tcase_add_test(tc, jsonrpc_data_after_a_scalar_is_parse_error);
  tcase_add_test(tc, jsonrpc_nul_byte_or_bad_utf8_is_parse_error);
  tcase_add_test(tc, jsonrpc_keep_param_values);
  tcase_add_test(tc, jsonrpc_line_need_not_be_nul_terminated);
  tcase_add_test(tc, jsonrpc_nesting_is_limited);
  tcase_add_test(tc, jsonrpc_batch_is_refused);
  tcase_add_test(tc, jsonrpc_root_must_be_object);
  tcase_add_test(tc, jsonrpc_version_must_be_2_0);
  tcase_add_test(tc, jsonrpc_id_must_be_integer_or_string);
  tcase_add_test(tc, jsonrpc_method_must_be_string);
  tcase_add_test(tc, jsonrpc_params_must_be_structured);
  tcase_add_test(tc, jsonrpc_strings_json_glib_would_alter);
  tcase_add_test(tc, jsonrpc_surrogate_cannot_hide_structure);
  tcase_add_test(tc, jsonrpc_integers_beyond_64_bits);
  tcase_add_test(tc, jsonrpc_id_keys);
  tcase_add_test(tc, jsonrpc_format_error_round_trip);
  tcase_add_test(tc, jsonrpc_format_error_without_id);
  tcase_add_test(tc, jsonrpc_format_error_invalid_utf8_message);
  tcase_add_test(tc, jsonrpc_format_keeps_integer_ids);
  tcase_add_test(tc, jsonrpc_format_result_round_trip);
  tcase_add_test(tc, jsonrpc_format_result_uses_only_result_len);
  tcase_add_test(tc, jsonrpc_format_without_ret_len);
  tcase_add_test(tc, jsonrpc_request_to_response);
  tcase_add_test(tc, jsonrpc_clear_null);
  tcase_add_test(tc, jsonrpc_read_params_as_text);
  tcase_add_test(tc, jsonrpc_call_arguments_as_text);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(jsonrpc_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
