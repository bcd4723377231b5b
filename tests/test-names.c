/* File names that are not UTF-8 through the real binary: a folder read by expansion answers
 * each such name with a pathBytes spelling of its own, and that spelling sent back (the
 * daemon's `pathBytes`, the command line's raw argument) reads the same file. */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;

static void setup(void) {
  rd_fixture_setup(&dmn, NULL);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, NULL);
}

/* Two names that differ only in a byte that is not UTF-8, and one with a backslash. */
static void write_names(const char *folder) {
  g_autofree char *ff = g_strdup_printf("%s/a\xff.txt", folder);
  g_autofree char *fe = g_strdup_printf("%s/a\xfe.txt", folder);
  g_autofree char *bs = g_strdup_printf("%s/b\\\xe9.txt", folder);

  g_free(rd_write_str(dmn->dir, ff, "the ff file\n"));
  g_free(rd_write_str(dmn->dir, fe, "the fe file\n"));
  g_free(rd_write_str(dmn->dir, bs, "the backslash file\n"));
}

/* The name a pathBytes spelling stands for, decoded here as a client would. g_free. */
static char *unescape(const char *s) {
  GString *out = g_string_new(NULL);

  for (; *s != '\0'; s++) {
    if (s[0] == '\\' && s[1] == '\\') {
      g_string_append_c(out, '\\');
      s++;
    } else if (s[0] == '\\' && s[1] == 'x') {
      char hex[3] = {s[2], s[3], '\0'};

      g_string_append_c(out, (char)strtol(hex, NULL, 16));
      s += 3;
    } else {
      g_string_append_c(out, *s);
    }
  }
  return g_string_free(out, FALSE);
}

static RdResult *read_params(RdConn *c, const char *paths_json, const char *extra) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s,\"cwd\":%s%s%s}", paths_json, cwd,
                                            extra ? "," : "", extra ? extra : "");

  return rd_read(c, params);
}

/* The expanded folder's three entries come back distinct, in byte order (0xfe before 0xff),
 * with `path` shown lossily and `pathBytes` exact, in files[] and in the XML alike; each
 * pathBytes sent back reads its own file, and the answer names it with the same pathBytes. */
START_TEST(names_daemon_expand_and_send_back) {
  static const char *const want_bytes[] = {"dir/a\\xfe.txt", "dir/a\\xff.txt",
                                           "dir/b\\\\\\xe9.txt"};
  static const char *const want_text[] = {"     1\tthe fe file\n", "     1\tthe ff file\n",
                                          "     1\tthe backslash file\n"};
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  write_names("dir");
  r = read_params(c, "[\"dir\"]", "\"expand\":true");
  ck_assert_uint_eq(json_array_get_length(r->files), 3);
  for (guint i = 0; i < 3; i++) {
    g_autofree char *attr = rd_attr(r, (int)i, "pathBytes");
    g_autofree char *text = rd_text(r, i);

    ck_assert_str_eq(rd_file_str(r, i, "pathBytes"), want_bytes[i]);
    ck_assert_str_eq(attr, want_bytes[i]);
    ck_assert_str_eq(text, want_text[i]);
  }
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "dir/a\xef\xbf\xbd.txt");
  rd_result_free(r);

  for (guint i = 0; i < 3; i++) {
    g_autofree char *quoted = rd_json_quote(want_bytes[i]);
    g_autofree char *paths = g_strdup_printf("[{\"pathBytes\":%s}]", quoted);
    g_autofree char *text = NULL;

    r = read_params(c, paths, NULL);
    ck_assert_msg(rd_file_str(r, 0, "code") == NULL, "%s: %s", want_bytes[i],
                  rd_file_str(r, 0, "error"));
    text = rd_text(r, 0);
    ck_assert_str_eq(text, want_text[i]);
    ck_assert_str_eq(rd_file_str(r, 0, "pathBytes"), want_bytes[i]);
    rd_result_free(r);
  }
  rd_conn_free(c);
}
END_TEST

/* ifNoneMatch keys a name that is not UTF-8 by its pathBytes: the file read before comes back
 * unchanged, its twin is read. */
START_TEST(names_daemon_if_none_match_by_path_bytes) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;
  g_autofree char *etag = NULL;
  g_autofree char *quoted = NULL;
  g_autofree char *extra = NULL;

  write_names("dir");
  r = read_params(c, "[{\"pathBytes\":\"dir/a\\\\xff.txt\"}]", NULL);
  etag = g_strdup(rd_file_str(r, 0, "etag"));
  rd_result_free(r);
  quoted = rd_json_quote(etag);
  extra = g_strdup_printf("\"ifNoneMatch\":{\"dir/a\\\\xff.txt\":%s},\"expand\":true", quoted);
  r = read_params(c, "[\"dir\"]", extra);
  ck_assert(!rd_file_true(r, 0, "unchanged"));
  ck_assert(rd_file_true(r, 1, "unchanged"));
  ck_assert_str_eq(rd_file_str(r, 1, "pathBytes"), "dir/a\\xff.txt");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* A UTF-8 name needs no pathBytes; pathBytes may still spell it (a backslash doubled). */
START_TEST(names_daemon_utf8_name_has_no_path_bytes) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;
  g_autofree char *text = NULL;

  g_free(rd_write_str(dmn->dir, "caf\xc3\xa9\\x.txt", "utf-8 name\n"));
  r = read_params(c, "[\"caf\xc3\xa9\\\\x.txt\", {\"pathBytes\":\"caf\xc3\xa9\\\\\\\\x.txt\"}]",
                  NULL);
  ck_assert_ptr_null(rd_file_str(r, 0, "pathBytes"));
  ck_assert_ptr_null(rd_file_str(r, 1, "pathBytes"));
  ck_assert_ptr_null(rd_file_str(r, 1, "code"));
  text = rd_text(r, 1);
  ck_assert_str_eq(text, "     1\tutf-8 name\n");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* A pathBytes that spells no path, or comes with a path, is -32602 naming the item. */
START_TEST(names_daemon_bad_path_bytes) {
  static const char *const bad[][2] = {
      {"[{\"pathBytes\":\"a\\\\q\"}]", "paths[0].pathBytes must be"},
      {"[{\"pathBytes\":\"a\\\\x4\"}]", "paths[0].pathBytes must be"},
      {"[{\"pathBytes\":\"a\\\\\"}]", "paths[0].pathBytes must be"},
      {"[\"x\",{\"pathBytes\":\"a\\\\x00b\"}]", "paths[1].pathBytes must be"},
      {"[{\"pathBytes\":\"\"}]", "paths[0].pathBytes must be"},
      {"[{\"pathBytes\":7}]", "paths[0].pathBytes must be"},
      {"[{\"path\":\"a\",\"pathBytes\":\"a\"}]", "paths[0]: path and pathBytes cannot be combined"},
  };
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *params = g_strdup_printf("{\"paths\":%s}", bad[i][0]);
    JsonNode *msg = rd_conn_call(c, "read", params);
    JsonObject *err = json_object_get_object_member(json_node_get_object(msg), "error");

    ck_assert_int_eq(rd_error_code(msg), -32602);
    ck_assert_msg(g_str_has_prefix(json_object_get_string_member(err, "message"), bad[i][1]),
                  "%s: %s", bad[i][0], json_object_get_string_member(err, "message"));
    json_node_unref(msg);
  }
  rd_conn_free(c);
}
END_TEST

/* The command line: the folder read answers distinct pathBytes (XML, --json and text), and the
 * name they spell, given back as an argument, reads that file. */
START_TEST(names_cli_expand_and_send_back) {
  const char *argv[] = {rd_readerd(), "read", NULL, "dir", NULL};
  RdRun run = {0};
  RdResult *r;

  write_names("dir");
  argv[2] = "--json";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  r = rd_result_from_json(run.out, run.out_len);
  ck_assert_str_eq(rd_file_str(r, 0, "pathBytes"), "dir/a\\xfe.txt");
  ck_assert_str_eq(rd_file_str(r, 1, "pathBytes"), "dir/a\\xff.txt");
  ck_assert_str_eq(rd_file_str(r, 2, "pathBytes"), "dir/b\\\\\\xe9.txt");
  for (guint i = 0; i < 2; i++) {
    g_autofree char *name = NULL;
    const char *one[] = {rd_readerd(), "read", NULL, NULL};
    RdRun again = {0};
    RdResult *r2;
    g_autofree char *text = NULL;

    /* What a client does with pathBytes: undo the escapes. */
    name = unescape(rd_file_str(r, i, "pathBytes"));
    one[2] = name;
    rd_run(dmn->dir, one, NULL, 0, 30000, &again);
    ck_assert_int_eq(again.code, 0);
    r2 = rd_result_from_xml(again.out, again.out_len);
    text = rd_text(r2, 0);
    ck_assert_str_eq(text, i == 0 ? "     1\tthe fe file\n" : "     1\tthe ff file\n");
    g_free(text);
    text = rd_attr(r2, 0, "pathBytes");
    ck_assert_str_eq(text, rd_file_str(r, i, "pathBytes"));
    rd_result_free(r2);
    rd_run_clear(&again);
  }
  rd_result_free(r);
  rd_run_clear(&run);

  argv[2] = "--format=text";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, ", pathBytes dir/a\\xfe.txt) <==") != NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, ", pathBytes dir/a\\xff.txt) <==") != NULL, "%s", run.out);
  rd_run_clear(&run);
}
END_TEST

static Suite *names_suite(void) {
  Suite *s = suite_create("names");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, names_daemon_expand_and_send_back);
  tcase_add_test(tc, names_daemon_utf8_name_has_no_path_bytes);
  tcase_add_test(tc, names_daemon_bad_path_bytes);
  tcase_add_test(tc, names_daemon_if_none_match_by_path_bytes);
  tcase_add_test(tc, names_cli_expand_and_send_back);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(names_suite());
}
