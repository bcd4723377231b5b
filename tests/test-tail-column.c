/* Tails and columns through the real binary over its socket, on real files: the end of a
 * 200 MB log read alone (the daemon's own read counter says so), tails of shipped text files
 * against forward reads, a 3 MB minified JavaScript file read through window by window and
 * put back together byte for byte, the errors, pictures that ignore a tail, and `--tail` on
 * the command line. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

static RdDaemon *dmn;
static RdConn *conn;

static void setup(void) {
  rd_fixture_setup(&dmn, &conn);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

/* One read of params (JSON text) that must succeed. */
static RdResult *read_json(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static RdResult *read_json(const char *fmt, ...) {
  va_list ap;
  g_autofree char *params = NULL;

  va_start(ap, fmt);
  params = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  return rd_read(conn, params);
}

/* The daemon's rchar (bytes through read() and pread()), or -1 when /proc does not say. */
static int64_t daemon_rchar(void) {
  g_autofree char *path = g_strdup_printf("/proc/%d/io", (int)dmn->pid);
  g_autofree char *io = NULL;
  const char *at;

  if (!g_file_get_contents(path, &io, NULL, NULL) || (at = strstr(io, "rchar:")) == NULL)
    return -1;
  return g_ascii_strtoll(at + 6, NULL, 10);
}

static void assert_no_code(RdResult *r, guint i) {
  ck_assert_msg(rd_file_str(r, i, "code") == NULL, "%s failed: %s: %s", rd_file_str(r, i, "path"),
                rd_file_str(r, i, "code"), rd_file_str(r, i, "error"));
}

/* The last 5 lines of a log of more than 200 MB, with their true numbers and the true line
 * count, cost the daemon a few blocks of read(); the same lines read forwards cost the file. */
START_TEST(tail_column_big_log_tail_reads_its_end) {
  g_autofree char *path = g_build_filename(dmn->dir, "big.log", NULL);
  g_autofree char *want = NULL;
  FILE *f = fopen(path, "w");
  const int64_t total = 3500000;
  int64_t before, tail_cost, forward_cost;
  RdResult *r;
  GString *g = g_string_new(NULL);

  ck_assert_ptr_nonnull(f);
  for (int64_t i = 1; i <= total; i++)
    fprintf(f, "2026-11-23T19:%02d:%02d.%03dZ INFO request %09" PRId64 " handled in %d ms\n",
            (int)(i / 60000 % 60), (int)(i / 1000 % 60), (int)(i % 1000), i, (int)(i * 7 % 997));
  ck_assert_int_eq(fclose(f), 0);
  for (int64_t i = total - 4; i <= total; i++)
    g_string_append_printf(
        g,
        "%6" PRId64 "\t2026-11-23T19:%02d:%02d.%03dZ INFO request %09" PRId64 " handled in %d ms\n",
        i, (int)(i / 60000 % 60), (int)(i / 1000 % 60), (int)(i % 1000), i, (int)(i * 7 % 997));
  want = g_string_free(g, FALSE);

  before = daemon_rchar();
  r = read_json("{\"paths\":[{\"path\":\"%s\",\"tail\":5}]}", path);
  tail_cost = daemon_rchar() - before;
  assert_no_code(r, 0);
  ck_assert_int_gt(rd_file_int(r, 0, "bytes"), 200 * 1000 * 1000);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), total);
  ck_assert(rd_file_true(r, 0, "truncated"));
  g_autofree char *text = rd_text(r, 0);
  ck_assert_str_eq(text, want);
  rd_result_free(r);

  /* The same window forwards: the same answer, for the whole file's reads. */
  before = daemon_rchar();
  r = read_json("{\"paths\":[{\"path\":\"%s\",\"offset\":%" PRId64 "}]}", path, total - 4);
  forward_cost = daemon_rchar() - before;
  g_autofree char *forward = rd_text(r, 0);
  ck_assert_str_eq(forward, want);
  rd_result_free(r);
  if (before < 0) {
    skip_note("/proc/%d/io cannot be read: the daemon's read bytes not compared", (int)dmn->pid);
    return;
  }
  printf("tail of %" PRId64 " lines: %" PRId64 " bytes read; forward: %" PRId64 "\n", total,
         tail_cost, forward_cost);
  ck_assert_msg(tail_cost < 1024 * 1024, "the tail cost %" PRId64 " bytes of read()", tail_cost);
  ck_assert_msg(forward_cost > 200 * 1000 * 1000, "the forward read cost %" PRId64 " bytes",
                forward_cost);
}
END_TEST

/* Tails of text files Debian ships, all in one request, against forward reads of the same
 * lines; and the request's tail with a path's own offset over it. */
START_TEST(tail_column_shipped_files) {
  static const char *const candidates[] = {
      "/usr/share/common-licenses/GPL-3",
      "/usr/share/common-licenses/Apache-2.0",
      "/usr/share/javascript/jquery/jquery.js",
      "/usr/share/gitweb/static/gitweb.js",
      "/usr/share/doc/python-reportlab-doc/html/searchindex.js",
      "/etc/services",
  };
  GPtrArray *paths = g_ptr_array_new();
  GString *items = g_string_new(NULL);
  RdResult *r;

  for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++)
    if (g_file_test(candidates[i], G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add(paths, (gpointer)candidates[i]);
  if (paths->len < 2) {
    g_ptr_array_free(paths, TRUE);
    g_string_free(items, TRUE);
    SKIP_CASE("fewer than two of the shipped text files (base-files, libjs-jquery) are here");
  }
  for (guint i = 0; i < paths->len; i++)
    g_string_append_printf(items, "%s\"%s\"", i ? "," : "", (char *)paths->pdata[i]);
  g_string_append(items,
                  ",{\"path\":\"/usr/share/common-licenses/GPL-3\",\"offset\":2,\"limit\":1}");
  r = read_json("{\"paths\":[%s],\"tail\":12}", items->str);
  for (guint i = 0; i < paths->len; i++) {
    int64_t lines = rd_file_int(r, i, "lines");
    RdResult *fwd;

    assert_no_code(r, i);
    fwd = read_json("{\"paths\":[{\"path\":\"%s\",\"offset\":%" PRId64 ",\"limit\":12}]}",
                    (char *)paths->pdata[i], MAX(lines - 11, 1));
    g_autofree char *t = rd_text(r, i);
    g_autofree char *w = rd_text(fwd, 0);
    ck_assert_msg(strcmp(t, w) == 0, "%s: the tail differs from a forward read",
                  (char *)paths->pdata[i]);
    ck_assert_int_eq(rd_file_int(fwd, 0, "lines"), lines);
    rd_result_free(fwd);
  }
  if (g_file_test("/usr/share/common-licenses/GPL-3", G_FILE_TEST_IS_REGULAR)) {
    size_t len = 0;
    g_autofree char *data = rd_read_file("/usr/share/common-licenses/GPL-3", &len);
    g_auto(GStrv) lines = rd_split_lines(data, len);
    g_autofree char *t = rd_text(r, paths->len);
    g_autofree char *w = g_strdup_printf("     2\t%s\n\u2026 %" G_GINT64_FORMAT
                                         " more lines not shown; continue with offset=3\n",
                                         lines[1], rd_count_lines(data, len) - 2);
    ck_assert_str_eq(t, w);
  }
  rd_result_free(r);
  g_ptr_array_free(paths, TRUE);
  g_string_free(items, TRUE);
}
END_TEST

/* Every .js file under the folders given, in a stable order. */
static void collect_js(const char *dir, GPtrArray *out, int depth) {
  GDir *d = g_dir_open(dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  const char *name;

  if (d == NULL || depth > 8) {
    if (d != NULL)
      g_dir_close(d);
    g_ptr_array_free(names, TRUE);
    return;
  }
  while ((name = g_dir_read_name(d)) != NULL)
    g_ptr_array_add(names, g_strdup(name));
  g_dir_close(d);
  g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *p = g_build_filename(dir, (char *)names->pdata[i], NULL);

    if (g_file_test(p, G_FILE_TEST_IS_SYMLINK))
      continue;
    if (g_file_test(p, G_FILE_TEST_IS_DIR))
      collect_js(p, out, depth + 1);
    else if (g_str_has_suffix(p, ".js"))
      g_ptr_array_add(out, g_steal_pointer(&p));
  }
  g_ptr_array_free(names, TRUE);
}

/* A minified file made of real JavaScript: each source's whitespace runs squeezed to one space,
 * all on one line but for a newline between some sources, until it passes 3 MB. NULL when no
 * JavaScript is found. */
static GString *minified_js(void) {
  static const char *const roots[] = {"/usr/share/javascript", "/usr/share/doc",
                                      "/usr/share/gitweb", "/usr/share/go-1.19/src/cmd/trace"};
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  GString *g = g_string_new(NULL);

  for (size_t i = 0; i < G_N_ELEMENTS(roots); i++)
    collect_js(roots[i], files, 0);
  if (files->len == 0) {
    g_string_free(g, TRUE);
    return NULL;
  }
  for (guint i = 0; g->len < 3 * 1024 * 1024; i++) {
    g_autofree char *data = NULL;
    gsize len = 0;
    bool space = false;

    if (!g_file_get_contents(files->pdata[i % files->len], &data, &len, NULL) ||
        !g_utf8_validate(data, (gssize)len, NULL))
      continue;
    for (gsize k = 0; k < len; k++) {
      bool ws = g_ascii_isspace(data[k]) || (data[k] > 0 && data[k] < 0x20);

      if (ws && !space)
        g_string_append_c(g, ' ');
      else if (!ws)
        g_string_append_c(g, data[k]);
      space = ws;
    }
    if (i % 5 == 4)
      g_string_append_c(g, '\n');
    if (i > 100000)
      break; /* every file was empty or not UTF-8 */
  }
  return g;
}

/* Reads line `line` from `column` on: appends what is shown of it to out and returns the column
 * its marker names, or 0 when the line is done. */
static int64_t read_window(const char *path, int64_t line, int64_t column, GString *out) {
  RdResult *r = read_json("{\"paths\":[{\"path\":\"%s\",\"offset\":%" PRId64 ",\"column\":%" PRId64
                          ",\"limit\":1}],\"lineNumbers\":false}",
                          path, line, column);
  g_autofree char *text = rd_text(r, 0);
  const char *nl = strchr(text, '\n'), *marker;
  int64_t next = 0, at_line = 0;

  assert_no_code(r, 0);
  ck_assert_ptr_nonnull(nl);
  /* The marker is the last " … [" of the line: JavaScript does not end with one. */
  marker = g_strrstr_len(text, nl - text, " \u2026 [");
  if (marker != NULL && sscanf(marker,
                               " \u2026 [%*d more characters cut; continue with offset=%" SCNd64
                               ", column=%" SCNd64 "]",
                               &at_line, &next) == 2) {
    ck_assert_int_eq(at_line, line);
    ck_assert_int_eq(next, column + 2000);
    g_string_append_len(out, text, marker - text);
  } else {
    next = 0;
    g_string_append_len(out, text, nl - text);
  }
  rd_result_free(r);
  return next;
}

/* A 3 MB minified JavaScript file read through, window by window, following each cut marker:
 * put back together, the windows are the file, nothing lost or repeated. */
START_TEST(tail_column_minified_js_read_through) {
  GString *js = minified_js(), *again = g_string_new(NULL);
  g_autofree char *path = NULL;
  int64_t lines, windows = 0;
  RdResult *r;

  if (js == NULL) {
    g_string_free(again, TRUE);
    SKIP_CASE("no JavaScript under /usr/share (libjs-jquery, libjs-underscore)");
  }
  path = rd_write_file(dmn->dir, "app.min.js", js->str, js->len);
  r = read_json("{\"paths\":[\"%s\"],\"limit\":1}", path);
  lines = rd_file_int(r, 0, "lines");
  rd_result_free(r);
  ck_assert_int_ge(lines, 1);
  for (int64_t line = 1; line <= lines; line++) {
    int64_t column = 1;

    do {
      column = read_window(path, line, column, again);
      windows++;
    } while (column > 0);
    if (line < lines || (js->len > 0 && js->str[js->len - 1] == '\n'))
      g_string_append_c(again, '\n');
  }
  printf("%zu bytes of JavaScript, %" PRId64 " lines, read in %" PRId64 " windows\n", js->len,
         lines, windows);
  ck_assert_int_ge(windows, (int64_t)(g_utf8_strlen(js->str, (gssize)js->len) / 2000));
  ck_assert_uint_eq(again->len, js->len);
  ck_assert_msg(memcmp(again->str, js->str, js->len) == 0, "the windows are not the file");
  g_string_free(js, TRUE);
  g_string_free(again, TRUE);
}
END_TEST

/* A column past the end of its line, and every bad value, answered clearly. */
START_TEST(tail_column_errors_and_past_the_end) {
  g_autofree char *path = rd_write_str(dmn->dir, "short.txt", "caf\u00e9\nsecond\n");
  static const struct {
    const char *params, *message;
  } bad[] = {
      {"{\"paths\":[{\"path\":\"x\",\"column\":0}]}", "paths[0].column must be an integer >= 1"},
      {"{\"paths\":[\"x\"],\"tail\":0}", "tail must be an integer >= 1"},
      {"{\"paths\":[\"x\"],\"tail\":3,\"offset\":2}", "tail and offset cannot be combined"},
      {"{\"paths\":[\"a\",{\"path\":\"x\",\"tail\":3,\"offset\":2}]}",
       "paths[1]: tail and offset cannot be combined"},
      {"{\"paths\":[{\"path\":\"x\",\"tail\":3,\"column\":2}]}",
       "paths[0]: tail and column cannot be combined"},
  };
  RdResult *r;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    JsonNode *msg = rd_conn_call(conn, "read", bad[i].params);
    JsonObject *err = json_object_get_object_member(json_node_get_object(msg), "error");

    ck_assert_int_eq(rd_error_code(msg), -32602);
    ck_assert_str_eq(json_object_get_string_member(err, "message"), bad[i].message);
    json_node_unref(msg);
  }
  r = read_json("{\"paths\":[{\"path\":\"%s\",\"offset\":1,\"column\":6,\"limit\":1}]}", path);
  g_autofree char *text = rd_text(r, 0);
  ck_assert_str_eq(text, "     1\t\u2026 [line 1 has 4 characters; column 6 is past its end]\n"
                         "\u2026 1 more lines not shown; continue with offset=2\n");
  rd_result_free(r);
  r = read_json("{\"paths\":[{\"path\":\"%s\",\"offset\":1,\"column\":4}]}", path);
  g_autofree char *text2 = rd_text(r, 0);
  ck_assert_str_eq(text2, "     1\t\u00e9\n     2\tsecond\n");
  rd_result_free(r);
}
END_TEST

/* Pictures ignore a tail, as they ignore offset and limit. */
START_TEST(tail_column_picture_ignores_tail) {
  size_t len = 0;
  g_autofree unsigned char *png = rd_make_png(40, 30, &len);
  g_autofree char *path = rd_write_file(dmn->dir, "p.png", png, len);
  RdResult *r = read_json("{\"paths\":[\"%s\"],\"tail\":3}", path);

  assert_no_code(r, 0);
  ck_assert_str_eq(rd_file_str(r, 0, "type"), "image");
  rd_result_free(r);
}
END_TEST

/* `readerd read --tail N`, and the usage errors. */
START_TEST(tail_column_cli_tail) {
  g_autofree char *path = rd_write_str(dmn->dir, "cli.txt", "one\ntwo\nthree\nfour\n");
  const char *ok[] = {rd_readerd(), "read", "--tail", "2", path, NULL};
  const char *both[] = {rd_readerd(), "read", "--offset", "2", "--tail", "2", path, NULL};
  const char *zero[] = {rd_readerd(), "read", "--tail", "0", path, NULL};
  RdRun run;

  rd_run(dmn->dir, ok, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert(strstr(run.out, "shown='3-4'") != NULL);
  ck_assert(strstr(run.out, "     3\tthree\n     4\tfour\n]]>") != NULL);
  rd_run_clear(&run);
  rd_run(dmn->dir, both, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 2);
  ck_assert(strstr(run.err, "tail and offset cannot be combined") != NULL);
  rd_run_clear(&run);
  rd_run(dmn->dir, zero, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 2);
  ck_assert(strstr(run.err, "--tail: tail must be an integer >= 1") != NULL);
  rd_run_clear(&run);
}
END_TEST

/* Files whose size is 0 (procfs) or says nothing (sysfs: 4096) make their text when read: a
 * tail reads them forwards and shows their last lines with their true numbers, not the first
 * lines, and no "the file shrank". */
START_TEST(tail_column_proc_file) {
  g_autofree char *text = NULL;
  g_autofree char *shown = NULL;
  g_autofree char *expect = NULL;
  RdResult *r;
  int64_t lines;

  ck_assert_msg(g_file_test("/proc/self/status", G_FILE_TEST_EXISTS), "no /proc");
  r = read_json("{\"paths\":[\"/proc/self/status\"],\"tail\":2,\"lineNumbers\":false}");
  assert_no_code(r, 0);
  ck_assert_int_eq(rd_file_int(r, 0, "bytes"), 0);
  lines = rd_file_int(r, 0, "lines");
  ck_assert_int_gt(lines, 10);
  shown = rd_attr(r, 0, "shown");
  expect = g_strdup_printf("%" PRId64 "-%" PRId64, lines - 1, lines);
  ck_assert_str_eq(shown, expect);
  text = rd_text(r, 0);
  ck_assert_msg(strstr(text, "nonvoluntary_ctxt_switches:") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "Name:") == NULL, "%s", text);
  rd_result_free(r);
}
END_TEST

START_TEST(tail_column_sys_file) {
  static const char *const sys_files[] = {"/sys/kernel/mm/transparent_hugepage/enabled",
                                          "/sys/power/state", "/sys/kernel/profiling"};
  const char *sys = NULL;
  g_autofree char *want = NULL;
  g_autofree char *text = NULL;
  RdResult *r;

  for (size_t i = 0; i < G_N_ELEMENTS(sys_files) && sys == NULL; i++)
    if (g_file_get_contents(sys_files[i], &want, NULL, NULL) && want[0] != '\0')
      sys = sys_files[i];
    else
      g_clear_pointer(&want, g_free);
  if (sys == NULL)
    SKIP_CASE("no readable sysfs file (%s and others): the sysfs tail is not checked",
              sys_files[0]);
  r = read_json("{\"paths\":[\"%s\"],\"tail\":1,\"lineNumbers\":false}", sys);
  assert_no_code(r, 0);
  text = rd_text(r, 0);
  /* One line files, all of them: the tail is the file. */
  ck_assert_str_eq(text, want);
  rd_result_free(r);
}
END_TEST

static Suite *tail_column_suite(void) {
  Suite *s = suite_create("tail-column");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 600);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, tail_column_big_log_tail_reads_its_end);
  tcase_add_test(tc, tail_column_shipped_files);
  tcase_add_test(tc, tail_column_minified_js_read_through);
  tcase_add_test(tc, tail_column_errors_and_past_the_end);
  tcase_add_test(tc, tail_column_picture_ignores_tail);
  tcase_add_test(tc, tail_column_cli_tail);
  tcase_add_test(tc, tail_column_proc_file);
  tcase_add_test(tc, tail_column_sys_file);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(tail_column_suite()));
}
