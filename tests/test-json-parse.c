/* Unit tests of the one bounded JSON parse (ipc/json-parse.c): the depth at its limit and one
 * past, every lenient form json-glib would take refused, JSON's corners accepted, and the
 * escapes json-glib would mangle replaced and noted. */
#include <errno.h>
#include <string.h>

#include <check.h>
#include <glib.h>

#include "basic/utf8.h"
#include "ipc/json-parse-internal.h"
#include "ipc/json-parse.h"
#include "tests/fuzz/json-same.h"
#include "tests/lib/check-run.h"

static int parse(const char *text, unsigned max_depth, JsonNode **ret_root, char **ret_error) {
  return json_parse_bounded(text, strlen(text), max_depth, ret_root, ret_error);
}

static GString *nested(unsigned depth, const char *open, const char *inner, const char *close) {
  GString *s = g_string_new(NULL);

  for (unsigned i = 0; i < depth; i++)
    g_string_append(s, open);
  g_string_append(s, inner);
  for (unsigned i = 0; i < depth; i++)
    g_string_append(s, close);
  return s;
}

START_TEST(json_parse_depth_at_the_limit) {
  static const char *const shapes[][3] = {{"[", "1", "]"}, {"{\"a\":", "{}", "}"}};

  for (size_t k = 0; k < G_N_ELEMENTS(shapes); k++) {
    /* The inner {} of the second shape is one level too. */
    unsigned limit = 40, extra = k == 1 ? 1 : 0;
    g_autoptr(GString) at = nested(limit - extra, shapes[k][0], shapes[k][1], shapes[k][2]);
    g_autoptr(GString) past = nested(limit - extra + 1, shapes[k][0], shapes[k][1], shapes[k][2]);
    g_autoptr(JsonNode) root = NULL, none = NULL;
    g_autofree char *error = NULL;

    ck_assert_int_eq(json_parse_bounded(at->str, at->len, limit, &root, &error), 0);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(json_parse_bounded(past->str, past->len, limit, &none, &error), -EBADMSG);
    ck_assert_ptr_null(none);
    ck_assert_msg(strstr(error, "nested too deeply"), "%s", error);
  }
}
END_TEST

/* Everything json-glib's lexer takes beyond JSON, and a few plain mistakes. */
START_TEST(json_parse_lenient_forms_refused) {
  static const char *const bad[] = {
      "{'a':1}",
      "['a']",
      "/* c */ {}",
      "{} /* c */",
      "// c\n{}",
      "# c\n{}",
      "[1] x",
      "{}{}",
      "6{\"a\":1}",
      "\"a\" \"b\"",
      "[1,]",
      "{\"a\":1,}",
      "[,1]",
      "{a:1}",
      "{\"a\" 1}",
      "{\"a\":}",
      "[NaN]",
      "[Infinity]",
      "[-Infinity]",
      "[0x1F]",
      "[01]",
      "[-01]",
      "[1.]",
      "[.5]",
      "[+1]",
      "[1e]",
      "[1e+]",
      "[-]",
      "[True]",
      "[nul]",
      "[undefined]",
      "[\"\\x41\"]",
      "[\"\\101\"]",
      "[\"\\a\"]",
      "[\"\\u12\"]",
      "[\"\\u12G4\"]",
      "[\"tab\there\"]",
      "[\"new\nline\"]",
      "[\"unterminated]",
      "[1 2]",
      "[1\f]",
      "\xef\xbb\xbf{}",
      "",
      "   ",
      "[",
      "{\"a\":[1,2}",
      "[1}",
      "]",
      "[\"\xc3\x28\"]",
      "[\"\xed\xa0\x80\"]",
      "[\"\xf4\x90\x80\x80\"]",
      "[\xc3\xa9]",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *error = NULL;

    ck_assert_msg(parse(bad[i], 64, &root, &error) == -EBADMSG, "accepted: %s", bad[i]);
    ck_assert_ptr_null(root);
    ck_assert_msg(g_str_has_prefix(error, "line "), "%s: %s", bad[i], error);
  }
}
END_TEST

START_TEST(json_parse_nul_byte_refused) {
  static const char text[] = "[\"a\0b\"]";
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *error = NULL;

  ck_assert_int_eq(json_parse_bounded(text, sizeof text - 1, 8, &root, &error), -EBADMSG);
  ck_assert_msg(strstr(error, "NUL"), "%s", error);
}
END_TEST

/* JSON's corners, parsed by json-glib as written. */
START_TEST(json_parse_corners_accepted) {
  static const char *const good[] = {
      "{}",
      "[]",
      " \t\r\n[ ] \t\r\n",
      "0",
      "-0",
      "\"\"",
      "true",
      "null",
      "[1e5,1E+5,-1.25e-3,0.5,123456789012345678]",
      "{\"\":{\"\":[]}}",
      "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
      "[\"\\u00e9\\ud83d\\ude00\"]",
      "[\"\xc3\xa9\xf0\x9f\x98\x80\"]",
      "{\"a\":[{\"b\":null},false,\"x\"]}",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *error = NULL;

    ck_assert_msg(parse(good[i], 64, &root, &error) == 0, "%s: %s", good[i], error);
    ck_assert_ptr_nonnull(root);
  }
}
END_TEST

START_TEST(json_parse_values_as_written) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *error = NULL;
  JsonArray *a;

  ck_assert_int_eq(parse("[\"q\\\"\\u00e9\\ud83d\\ude00\",-1.5e2,9223372036854775807,{}]", 4,
                         &root, &error),
                   0);
  a = json_node_get_array(root);
  ck_assert_str_eq(json_array_get_string_element(a, 0), "q\"\xc3\xa9\xf0\x9f\x98\x80");
  ck_assert_double_eq(json_array_get_double_element(a, 1), -150.0);
  ck_assert_int_eq(json_array_get_int_element(a, 2), G_MAXINT64);
  ck_assert(JSON_NODE_HOLDS_OBJECT(json_array_get_element(a, 3)));
}
END_TEST

/* readerd builds the tree of what the validator passed itself: the very tree json-glib's
 * parser makes of the same text, member order, repeated members, number types, doubles to the
 * bit, escapes and sealing included. */
START_TEST(json_parse_tree_as_json_glib_builds_it) {
  static const char *const texts[] = {
      "{}", "[]", " \t\r\n[ ] \t\r\n", "0", "-0", "-0.0", "0.0", "\"\"", "true", "false",
      "null", "[1e5,1E+5,-1.25e-3,0.5,123456789012345678,-9223372036854775808,1e400,-1e-400]",
      "[0.1,2.2250738585072014e-308,1.7976931348623157e308,3.14159265358979323846264338327950288]",
      "{\"\":{\"\":[]}}", "{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":{\"x\":1},\"a\":[2]}",
      "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\u00e9\\ud83d\\ude00\\u0001\\u007f\\uFFFF\"]",
      "[\"\xc3\xa9\xf0\x9f\x98\x80\"]", "{\"a\":[{\"b\":null},false,\"x\"],\"c\\u0041\":{}}",
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"read\",\"params\":{\"paths\":[\"/a\",{\"path\":\"b\","
      "\"offset\":3}],\"images\":{\"maxDimension\":512}}}",
      "[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_autoptr(JsonNode) root = NULL, glib = NULL;
    g_autofree char *error = NULL;

    ck_assert_msg(parse(texts[i], 64, &root, &error) == 0, "%s: %s", texts[i], error);
    glib = json_tree_glib(texts[i], strlen(texts[i]), &error);
    ck_assert_msg(glib != NULL, "%s: %s", texts[i], error);
    ck_assert_msg(json_same(root, glib), "%s: not json-glib's tree", texts[i]);
    ck_assert(json_node_is_immutable(root));
  }
}
END_TEST

/* Escapes json-glib would mangle are replaced by U+FFFD, and the quote after an unpaired
 * surrogate stays a quote: the brackets after it are text, not nesting. */
START_TEST(json_parse_mangled_escapes_replaced) {
  g_autoptr(GString) s = g_string_new("[\"\\ud800\",\"");
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *error = NULL;
  JsonParseNote note;
  JsonArray *a;

  for (int i = 0; i < 1000; i++)
    g_string_append_c(s, '[');
  g_string_append(s, "\",\"a\\u0000b\",{\"k\":99999999999999999999}]");
  ck_assert_int_eq(json_parse_bounded_note(s->str, s->len, 4, &root, &note, &error), 0);
  a = json_node_get_array(root);
  ck_assert_int_eq(json_array_get_length(a), 4);
  ck_assert_str_eq(json_array_get_string_element(a, 0), "\xef\xbf\xbd");
  ck_assert_int_eq(strlen(json_array_get_string_element(a, 1)), 1000);
  ck_assert_str_eq(json_array_get_string_element(a, 2), "a\xef\xbf\xbd" "b");
  ck_assert_str_eq(note.value_error, "strings must not contain unpaired surrogates");
  ck_assert_uint_eq(note.value_depth, 1);
}
END_TEST

/* Deep input refused without recursion, however deep and whatever hides it from a naive
 * count, and the error says where. */
START_TEST(json_parse_hostile_depth) {
  static const char *const covers[] = {"", "{'\"':", "{/*\"*/\"a\":", "[\"\\\"\","};

  for (size_t k = 0; k < G_N_ELEMENTS(covers); k++) {
    g_autoptr(GString) s = g_string_new(covers[k]);
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *error = NULL;

    for (int i = 0; i < 1000000; i++)
      g_string_append_c(s, i % 2 ? '{' : '[');
    ck_assert_int_eq(json_parse_bounded(s->str, s->len, 128, &root, &error), -EBADMSG);
    ck_assert_msg(g_str_has_prefix(error, "line 1, column "), "%s", error);
  }
  /* A limit beyond the cap is the cap. */
  {
    g_autoptr(GString) s = nested(JSON_PARSE_DEPTH_CAP + 1, "[", "", "]");
    g_autofree char *error = NULL;

    ck_assert_int_eq(json_parse_validate(s->str, s->len, G_MAXUINT, &error), -EBADMSG);
    g_string_truncate(s, 0);
    g_string_append(s, "[]");
    ck_assert_int_eq(json_parse_validate(s->str, s->len, G_MAXUINT, NULL), 0);
  }
}
END_TEST

START_TEST(json_parse_error_position) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *error = NULL;

  ck_assert_int_eq(parse("{\n  \"a\": 1,\n  \xc3\xa9'b': 2\n}", 8, &root, &error), -EBADMSG);
  ck_assert_str_eq(error, "line 3, column 3: expected a member name in double quotes");
}
END_TEST

/* Bytes that make UTF-8 or break it: ASCII, each length of sequence, and each way a sequence
 * is refused (a lone continuation, an overlong form, a surrogate, past U+10FFFF, a byte never
 * used, a sequence cut short). */
static const char *const PARTS[] = {
    "a",        "{\"k\": ", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
    "\x80",     "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
    "\xf5\x80", "\xff",     "\xe2\x82", "\xf0\x9f\x98"};

/* The prefix that utf8_valid_prefix() finds valid is glib's, for text without NUL bytes (glib
 * also refuses those; the parse refuses them before): ASCII runs long enough for each block
 * size, with every part at every offset around the blocks' edges, and random mixes. */
START_TEST(json_parse_utf8_prefix_matches_glib) {
  GRand *rand = g_rand_new_with_seed(27);
  GString *s = g_string_new(NULL);

  for (size_t k = 0; k < 20000; k++) {
    const char *bad = NULL;
    size_t want;

    g_string_truncate(s, 0);
    if (k < G_N_ELEMENTS(PARTS) * 140) {
      /* A run of ASCII of 0 to 139 bytes, a part, and ASCII after it. */
      for (size_t i = 0; i < k / G_N_ELEMENTS(PARTS); i++)
        g_string_append_c(s, (char)('a' + i % 26));
      g_string_append(s, PARTS[k % G_N_ELEMENTS(PARTS)]);
      g_string_append(s, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef!");
    } else {
      for (int i = g_rand_int_range(rand, 0, 40); i > 0; i--) {
        int run = g_rand_int_range(rand, 0, 100);

        for (int j = 0; j < run; j++)
          g_string_append_c(s, (char)g_rand_int_range(rand, 1, 128));
        g_string_append(s, PARTS[g_rand_int_range(rand, 0, G_N_ELEMENTS(PARTS))]);
      }
    }
    want = g_utf8_validate_len(s->str, s->len, &bad) ? s->len : (size_t)(bad - s->str);
    ck_assert_uint_eq(utf8_valid_prefix((const uint8_t *)s->str, s->len), want);
  }
  g_string_free(s, TRUE);
  g_rand_free(rand);
}
END_TEST

/* JSON that is not UTF-8 is refused where its first bad byte is. */
START_TEST(json_parse_bad_utf8_refused) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *error = NULL;
  g_autoptr(GString) long_ok = g_string_new("{\"paths\": [\"");

  ck_assert_int_eq(parse("{\"a\": \"\xc3\xa9\xed\xa0\x80\"}", 8, &root, &error), -EBADMSG);
  ck_assert_str_eq(error, "line 1, column 9: the JSON is not valid UTF-8");
  g_clear_pointer(&error, g_free);
  for (int i = 0; i < 300; i++)
    g_string_append(long_ok, "abcdefgh");
  g_string_append(long_ok, "\"]}");
  ck_assert_int_eq(parse(long_ok->str, 8, &root, &error), 0);
  g_clear_pointer(&root, json_node_unref);
  g_string_insert(long_ok, 200, "\xc0\xaf");
  ck_assert_int_eq(parse(long_ok->str, 8, &root, &error), -EBADMSG);
  ck_assert_str_eq(error, "line 1, column 201: the JSON is not valid UTF-8");
}
END_TEST

int main(void) {
  Suite *s = suite_create("json-parse");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, json_parse_depth_at_the_limit);
  tcase_add_test(tc, json_parse_lenient_forms_refused);
  tcase_add_test(tc, json_parse_nul_byte_refused);
  tcase_add_test(tc, json_parse_corners_accepted);
  tcase_add_test(tc, json_parse_values_as_written);
  tcase_add_test(tc, json_parse_tree_as_json_glib_builds_it);
  tcase_add_test(tc, json_parse_mangled_escapes_replaced);
  tcase_add_test(tc, json_parse_hostile_depth);
  tcase_add_test(tc, json_parse_error_position);
  tcase_add_test(tc, json_parse_utf8_prefix_matches_glib);
  tcase_add_test(tc, json_parse_bad_utf8_refused);
  suite_add_tcase(s, tc);
  return check_run(s);
}
