/* The initialize method's params: every field, good and bad. */
#include <check.h>
#include <errno.h>

#include <json-glib/json-glib.h>

#include "formatters/format.h"
#include "ipc/initialize-params.h"
#include "ipc/read-images-params.h"
#include "ipc/initialize-result.h"
#include "ipc/read-params.h"
#include "tests/lib/check-run.h"

static JsonNode *json(const char *text) {
  g_autoptr(JsonParser) p = json_parser_new();

  ck_assert(json_parser_load_from_data(p, text, -1, NULL));
  return json_node_copy(json_parser_get_root(p));
}

/* Parses text; returns the error message (g_malloc'd) or NULL, and fills *ret on success. */
static char *parse(const char *text, InitializeParams *ret) {
  JsonNode *n = text != NULL ? json(text) : NULL;
  char *err = NULL;
  int r = initialize_params_parse(n, ret, &err);

  ck_assert_int_eq(r == 0, err == NULL);
  if (r < 0) {
    ck_assert_int_eq(r, -EINVAL);
    ck_assert_ptr_null(ret->root_path);
    ck_assert_ptr_null(ret->exclude);
  }
  if (n != NULL)
    json_node_unref(n);
  return err;
}

START_TEST(initialize_params_defaults) {
  static const char *const texts[] = {NULL, "null", "{}", "{\"clientInfo\":{\"name\":\"x\"}}",
                                      "{\"rootPath\":null,\"exclude\":null}"};

  for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
    InitializeParams p;

    ck_assert_ptr_null(parse(texts[i], &p));
    ck_assert_ptr_null(p.root_path);
    ck_assert(!p.confine);
    ck_assert_ptr_null(p.exclude);
    initialize_params_clear(&p);
  }
}
END_TEST

START_TEST(initialize_params_all_fields) {
  InitializeParams p;

  ck_assert_ptr_null(parse("{\"rootPath\":\"/w s\",\"confineToRoot\":true,"
                           "\"exclude\":[\".env\",\"*.pem\",\"secrets/*\"]}",
                           &p));
  ck_assert_str_eq(p.root_path, "/w s");
  ck_assert(p.confine);
  ck_assert_int_eq(g_strv_length(p.exclude), 3);
  ck_assert_str_eq(p.exclude[0], ".env");
  ck_assert_str_eq(p.exclude[2], "secrets/*");
  initialize_params_clear(&p);
  initialize_params_clear(&p); /* twice is fine */
  initialize_params_clear(NULL);
}
END_TEST

START_TEST(initialize_params_bad_fields) {
  static const struct {
    const char *text, *field;
  } cases[] = {
      {"[]", "params"},
      {"{\"rootPath\":7}", "rootPath"},
      {"{\"rootPath\":\"\"}", "rootPath"},
      {"{\"confineToRoot\":\"yes\"}", "confineToRoot"},
      {"{\"confineToRoot\":1}", "confineToRoot"},
      {"{\"exclude\":\".env\"}", "exclude"},
      {"{\"exclude\":[\".env\",3]}", "exclude[1]"},
      {"{\"exclude\":[\"\"]}", "exclude[0]"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    InitializeParams p;
    g_autofree char *err = parse(cases[i].text, &p);

    ck_assert_msg(err != NULL, "%s was accepted", cases[i].text);
    ck_assert_msg(strstr(err, cases[i].field) != NULL, "%s: '%s' does not name %s", cases[i].text,
                  err, cases[i].field);
  }
}
END_TEST

START_TEST(initialize_params_exclude_limit) {
  GString *s = g_string_new("{\"exclude\":[");
  InitializeParams p;

  for (int i = 0; i <= INITIALIZE_MAX_EXCLUDE; i++)
    g_string_append_printf(s, "%s\"p%d\"", i ? "," : "", i);
  g_string_append(s, "]}");
  g_autofree char *err = parse(s->str, &p);
  ck_assert_ptr_nonnull(err);
  /* One fewer is fine. */
  g_string_truncate(s, s->len - 2);
  g_string_truncate(s, strrchr(s->str, ',') - s->str);
  g_string_append(s, "]}");
  ck_assert_ptr_null(parse(s->str, &p));
  ck_assert_int_eq(g_strv_length(p.exclude), INITIALIZE_MAX_EXCLUDE);
  initialize_params_clear(&p);
  g_string_free(s, TRUE);
}
END_TEST

/* The result object: valid JSON, the server's name and version, the limits a client plans
 * with, and every format the formatters have, in their order. */
START_TEST(initialize_result_lists_what_readerd_does) {
  g_autofree char *json = initialize_result_json();
  g_autoptr(JsonParser) parser = json_parser_new();
  JsonObject *o, *read;
  JsonArray *formats;
  const Formatter *f;
  size_t i;

  ck_assert(json_parser_load_from_data(parser, json, -1, NULL));
  o = json_node_get_object(json_parser_get_root(parser));
  ck_assert_str_eq(json_object_get_string_member(json_object_get_object_member(o, "serverInfo"),
                                                 "name"),
                   "readerd");
  ck_assert_str_eq(json_object_get_string_member(json_object_get_object_member(o, "serverInfo"),
                                                 "version"),
                   READERD_VERSION);
  o = json_object_get_object_member(o, "capabilities");
  ck_assert(json_object_get_boolean_member(o, "cancelRequest"));
  ck_assert_int_eq(json_object_get_int_member(json_object_get_object_member(o, "readImages"),
                                              "maxPaths"),
                   READ_IMAGES_MAX_PATHS);
  read = json_object_get_object_member(o, "read");
  ck_assert_int_eq(json_object_get_int_member(read, "maxPaths"), READ_MAX_PATHS);
  ck_assert_int_eq(json_object_get_int_member(read, "defaultLimit"), READ_DEFAULT_LIMIT);
  ck_assert_int_eq(json_object_get_int_member(read, "maxAnswerBytes"),
                   (int64_t)READ_MAX_ANSWER_BYTES);
  formats = json_object_get_array_member(read, "formats");
  for (i = 0; (f = format_at(i)) != NULL; i++)
    ck_assert_str_eq(json_array_get_string_element(formats, (guint)i), f->name);
  ck_assert_uint_eq(json_array_get_length(formats), i);
}
END_TEST

static Suite *initialize_params_suite(void) {
  Suite *s = suite_create("initialize-params");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, initialize_params_defaults);
  tcase_add_test(tc, initialize_params_all_fields);
  tcase_add_test(tc, initialize_params_bad_fields);
  tcase_add_test(tc, initialize_params_exclude_limit);
  tcase_add_test(tc, initialize_result_lists_what_readerd_does);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(initialize_params_suite()) == 0 ? 0 : 1;
}
