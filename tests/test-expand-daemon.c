/* Folders and globs (`expand`) through the real binary: the socket daemon over JSON-RPC, and
 * the one-shot command line, on trees each test writes in the daemon's temporary folder. */
#include <stdio.h>
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

/* A read with params `extra` (members after paths and cwd) of the paths given as JSON. */
static RdResult *read_in_dir(RdConn *c, const char *paths_json, const char *extra) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s,\"cwd\":%s%s%s}", paths_json, cwd,
                                            extra ? "," : "", extra ? extra : "");

  return rd_read(c, params);
}

/* The text of <Notice> k. g_free. */
static char *notice_text(RdResult *r, guint k) {
  xmlChar *v;
  char *s;

  ck_assert_uint_lt(k, r->notices->len);
  v = xmlNodeGetContent(g_ptr_array_index(r->notices, k));
  s = g_strdup((const char *)v);
  xmlFree(v);
  return s;
}

/* A folder, a file and a glob in one request: each expanded file is its own entry, in byte
 * order, with `from` naming its pattern, its text as on disk; the file named stays where it
 * was; a binary file is listed, not read; what ignore rules left out is a notice after the
 * expansion's last file, in the XML and in notices[]. */
START_TEST(expand_daemon_folder_file_glob) {
  static const char bin[] = "\x7f"
                            "ELF\0\0\1";
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;
  JsonArray *notices;
  g_autofree char *text = NULL;

  g_free(rd_write_str(dmn->dir, "proj/src/b.c", "int b;\n"));
  g_free(rd_write_str(dmn->dir, "proj/src/a.c", "int a;\nint aa;\n"));
  g_free(rd_write_str(dmn->dir, "proj/src/inc/a.h", "#pragma once\n"));
  g_free(rd_write_file(dmn->dir, "proj/src/blob.bin", bin, sizeof bin - 1));
  g_free(rd_write_str(dmn->dir, "proj/src/.ignore", "*.gen.c\n"));
  g_free(rd_write_str(dmn->dir, "proj/src/x.gen.c", "generated\n"));
  g_free(rd_write_str(dmn->dir, "proj/README.md", "# readme\n"));
  r = read_in_dir(c, "[\"proj/src\",\"proj/README.md\",\"proj/**/*.h\"]", "\"expand\":true");
  ck_assert_uint_eq(json_array_get_length(r->files), 7);
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "proj/src/.ignore");
  ck_assert_str_eq(rd_file_str(r, 1, "path"), "proj/src/a.c");
  ck_assert_str_eq(rd_file_str(r, 2, "path"), "proj/src/b.c");
  ck_assert_str_eq(rd_file_str(r, 3, "path"), "proj/src/blob.bin");
  ck_assert_str_eq(rd_file_str(r, 4, "path"), "proj/src/inc/a.h");
  for (guint i = 0; i < 5; i++)
    ck_assert_int_eq(rd_file_int(r, i, "from"), 0);
  text = rd_text(r, 1);
  ck_assert_str_eq(text, "     1\tint a;\n     2\tint aa;\n");
  ck_assert_int_eq(rd_file_int(r, 1, "lines"), 2);
  /* The binary file: listed with its size, no content, no error. */
  ck_assert_str_eq(rd_file_str(r, 3, "omitted"), "binary");
  ck_assert_int_eq(rd_file_int(r, 3, "bytes"), (int64_t)sizeof bin - 1);
  ck_assert_ptr_null(rd_file_str(r, 3, "code"));
  /* The file named is not an expansion's. */
  ck_assert_str_eq(rd_file_str(r, 5, "path"), "proj/README.md");
  ck_assert(!json_object_has_member(rd_file(r, 5), "from"));
  ck_assert_str_eq(rd_file_str(r, 6, "path"), "proj/src/inc/a.h");
  ck_assert_int_eq(rd_file_int(r, 6, "from"), 2);
  /* One notice, for the folder: .ignore left x.gen.c out. */
  notices = json_object_get_array_member(r->result, "notices");
  ck_assert_uint_eq(json_array_get_length(notices), 1);
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(notices, 0), "path"),
                   "proj/src");
  ck_assert_int_eq(json_object_get_int_member(json_array_get_object_element(notices, 0), "from"),
                   0);
  ck_assert_uint_eq(r->notices->len, 1);
  g_free(text);
  text = notice_text(r, 0);
  ck_assert_str_eq(text, "1 path left out by ignore rules (proj/src/.ignore: 1 by *.gen.c); "
                         "expand.ignored: true reads them");
  /* It sits right after the expansion's last <Content>, before README.md's. */
  ck_assert_ptr_eq(xmlNextElementSibling(rd_content(r, 4)), g_ptr_array_index(r->notices, 0));
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* Without expand, the contract's answers: IS_DIRECTORY for a folder, a glob is a name. */
START_TEST(expand_daemon_off_by_default) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  g_free(rd_write_str(dmn->dir, "d/a.txt", "a\n"));
  r = read_in_dir(c, "[\"d\",\"d/*.txt\"]", NULL);
  ck_assert_uint_eq(json_array_get_length(r->files), 2);
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "IS_DIRECTORY");
  ck_assert_str_eq(rd_file_str(r, 1, "code"), "FILE_NOT_FOUND");
  rd_result_free(r);
  r = read_in_dir(c, "[\"d\"]", "\"expand\":false");
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "IS_DIRECTORY");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* maxFiles: the first files, then a notice with how many were left; the path's own options
 * (limit) apply to every file of its expansion. A glob with no match: one FILE_NOT_FOUND. */
START_TEST(expand_daemon_max_files_and_options) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;
  JsonObject *n;

  for (int i = 0; i < 6; i++) {
    g_autofree char *name = g_strdup_printf("many/f%d.txt", i);
    g_free(rd_write_str(dmn->dir, name, "one\ntwo\nthree\n"));
  }
  r = read_in_dir(c, "[{\"path\":\"many\",\"limit\":1},\"many/*.none\"]",
                  "\"expand\":{\"maxFiles\":4}");
  ck_assert_uint_eq(json_array_get_length(r->files), 5);
  for (guint i = 0; i < 4; i++) {
    g_autofree char *want = g_strdup_printf("many/f%u.txt", i);
    g_autofree char *text = rd_text(r, i);

    ck_assert_str_eq(rd_file_str(r, i, "path"), want);
    ck_assert(rd_file_true(r, i, "truncated"));
    ck_assert_msg(g_str_has_prefix(text, "     1\tone\n") && strstr(text, "two") == NULL, "%s",
                  text);
  }
  ck_assert_str_eq(rd_file_str(r, 4, "path"), "many/*.none");
  ck_assert_str_eq(rd_file_str(r, 4, "code"), "FILE_NOT_FOUND");
  ck_assert_str_eq(rd_file_str(r, 4, "error"), "no file matches the pattern");
  n = json_array_get_object_element(json_object_get_array_member(r->result, "notices"), 0);
  ck_assert_msg(strstr(json_object_get_string_member(n, "message"),
                       "4 of 6 files shown: 2 more left out past maxFiles (4)") != NULL,
                "%s", json_object_get_string_member(n, "message"));
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* Bad expand params are invalid params naming the field. */
START_TEST(expand_daemon_bad_params) {
  static const char *const bad[] = {"\"yes\"", "{\"maxFiles\":0}", "{\"maxFiles\":10001}",
                                    "{\"ignored\":1}", "{\"binary\":\"no\"}"};
  static const char *const field[] = {"expand must be", "expand.maxFiles", "expand.maxFiles",
                                      "expand.ignored", "expand.binary"};
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *params = g_strdup_printf("{\"paths\":[\"x\"],\"expand\":%s}", bad[i]);
    JsonNode *m = rd_conn_call(c, "read", params);
    JsonObject *err = json_object_get_object_member(json_node_get_object(m), "error");

    ck_assert_int_eq(rd_error_code(m), -32602);
    ck_assert_msg(strstr(json_object_get_string_member(err, "message"), field[i]) != NULL, "%s",
                  json_object_get_string_member(err, "message"));
    json_node_unref(m);
  }
  rd_conn_free(c);
}
END_TEST

/* A large expansion cancelled at once ends as cancelled (or, had it finished first, as a
 * result), and the daemon answers the next read. */
START_TEST(expand_daemon_cancel) {
  RdConn *c = rd_conn_new(dmn->sock);
  JsonNode *m;
  RdResult *r;
  g_autofree char *key = NULL;

  if (!g_file_test("/usr/share/go-1.19/src", G_FILE_TEST_IS_DIR))
    g_free(rd_write_str(dmn->dir, "go/x.go", "package x\n"));
  key = rd_conn_request(c, "read",
                        g_file_test("/usr/share/go-1.19/src", G_FILE_TEST_IS_DIR)
                            ? "{\"paths\":[\"/usr/share/go-1.19/src\"],"
                              "\"expand\":{\"maxFiles\":10000}}"
                            : "{\"paths\":[\"go\"],\"expand\":true}",
                        "77");
  rd_conn_notify(c, "$/cancelRequest", "{\"id\":77}");
  m = rd_conn_wait(c, key, RD_TIMEOUT_MS);
  if (rd_error_code(m) != 0)
    ck_assert_int_eq(rd_error_code(m), -32800);
  json_node_unref(m);
  g_free(rd_write_str(dmn->dir, "after/a.txt", "a\n"));
  r = read_in_dir(c, "[\"after\"]", "\"expand\":true");
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "after/a.txt");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* The one-shot command line expands by default; --no-expand and --max-files. */
START_TEST(expand_cli_defaults) {
  const char *argv[] = {rd_readerd(), "read", "--format", "text", "cli", NULL, NULL};
  RdRun run = {0};

  g_free(rd_write_str(dmn->dir, "cli/one.txt", "1\n"));
  g_free(rd_write_str(dmn->dir, "cli/two.txt", "2\n"));
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "==> cli/one.txt (text") != NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "==> cli/two.txt (text") != NULL, "%s", run.out);
  rd_run_clear(&run);
  argv[5] = "--no-expand";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 1);
  ck_assert_msg(strstr(run.out, "error IS_DIRECTORY") != NULL, "%s", run.out);
  rd_run_clear(&run);
  argv[5] = "--max-files=1";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "==> cli/two.txt") == NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "[notice for cli: 1 of 2 files shown") != NULL, "%s", run.out);
  rd_run_clear(&run);
}
END_TEST

static Suite *expand_daemon_suite(void) {
  Suite *s = suite_create("expand-daemon");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, expand_daemon_folder_file_glob);
  tcase_add_test(tc, expand_daemon_off_by_default);
  tcase_add_test(tc, expand_daemon_max_files_and_options);
  tcase_add_test(tc, expand_daemon_bad_params);
  tcase_add_test(tc, expand_daemon_cancel);
  tcase_add_test(tc, expand_cli_defaults);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(expand_daemon_suite());
}
