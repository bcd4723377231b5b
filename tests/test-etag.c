/* Integration tests of etags and ifNoneMatch through the real daemon over its socket, and the
 * one-shot CLI: every opened file's etag is made of what stat() says of it; a file read again
 * with its etag comes back unchanged, without content, in every format; a touch, an edit or a
 * file renamed over it (even with the same size and time) is read again; bad ifNoneMatch
 * params are refused naming the field. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;
static RdConn *conn;

static void etag_setup(void) {
  rd_fixture_setup(&dmn, &conn);
}

static void etag_teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

/* The etag the contract describes, computed here from stat(). g_free the result. */
static char *etag_of(const char *path) {
  struct stat st;

  ck_assert_msg(stat(path, &st) == 0, "stat %s", path);
  return g_strdup_printf("%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER
                         "x-%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT,
                         (guint64)st.st_dev, (guint64)st.st_ino, (guint64)st.st_size,
                         (gint64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                         (gint64)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec);
}

/* Reads paths with ifNoneMatch {path: etag} for each pair in `known` (NULL-terminated pairs;
 * may be NULL) and more params (or NULL). */
static RdResult *read_if(const char *const *paths, size_t n, const char *const *known,
                         const char *more) {
  GString *extra = g_string_new("\"ifNoneMatch\":{");

  for (size_t i = 0; known != NULL && known[i] != NULL; i += 2) {
    g_autofree char *k = rd_json_quote(known[i]);
    g_autofree char *v = rd_json_quote(known[i + 1]);

    g_string_append_printf(extra, "%s%s:%s", i > 0 ? "," : "", k, v);
  }
  g_string_append_c(extra, '}');
  if (more != NULL)
    g_string_append_printf(extra, ",%s", more);
  {
    RdResult *r = rd_read_paths(conn, paths, n, extra->str);

    g_string_free(extra, TRUE);
    return r;
  }
}

static void assert_read(RdResult *r, guint i) {
  ck_assert_msg(rd_file_str(r, i, "code") == NULL, "files[%u]: %s", i, rd_file_str(r, i, "code"));
  ck_assert_msg(!rd_file_true(r, i, "unchanged"), "files[%u] unchanged", i);
  ck_assert_str_eq(rd_file_str(r, i, "type"), "text");
}

static void assert_unchanged(RdResult *r, guint i, const char *path, const char *etag) {
  struct stat st;
  g_autofree char *attr = rd_attr(r, (int)i, "unchanged");

  ck_assert_msg(rd_file_true(r, i, "unchanged"), "files[%u] not unchanged", i);
  ck_assert_str_eq(attr, "true");
  ck_assert_str_eq(rd_file_str(r, i, "etag"), etag);
  ck_assert(stat(path, &st) == 0);
  ck_assert_int_eq(rd_file_int(r, i, "bytes"), (int64_t)st.st_size);
  ck_assert_int_eq(rd_file_int(r, i, "modified"), rd_mtime_ms(path));
  ck_assert_msg(json_object_get_member(rd_file(r, i), "lines") == NULL,
                "unchanged files[%u] has lines", i);
}

/* Every file opened has its etag, the same in files[] and <Content>; a missing one has none. */
START_TEST(etag_on_every_file_read) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "alpha\n");
  g_autofree char *bin = rd_write_file(dmn->dir, "b.bin", "\0\1\2\3", 4);
  g_autofree char *want_a = etag_of(a), *want_bin = etag_of(bin);
  const char *paths[] = {a, bin, "missing.txt"};
  RdResult *r = rd_read_paths(conn, paths, 3, NULL);
  g_autofree char *attr = rd_attr(r, 0, "etag");

  ck_assert_str_eq(rd_file_str(r, 0, "etag"), want_a);
  ck_assert_str_eq(attr, want_a);
  /* Refused as binary after it was opened: it still has its version. */
  ck_assert_str_eq(rd_file_str(r, 1, "code"), "UNSUPPORTED_FORMAT");
  ck_assert_str_eq(rd_file_str(r, 1, "etag"), want_bin);
  ck_assert(rd_file_str(r, 2, "etag") == NULL);
  rd_result_free(r);
}
END_TEST

/* The same file twice: the second read, with the first's etag, sends nothing of it. */
START_TEST(etag_same_file_unchanged) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "one\ntwo\nthree\n");
  g_autofree char *b = rd_write_str(dmn->dir, "b.txt", "other\n");
  const char *paths[] = {a, b, a};
  RdResult *first = rd_read_paths(conn, paths, 1, NULL);
  g_autofree char *etag = g_strdup(rd_file_str(first, 0, "etag"));
  const char *known[] = {a, etag, NULL};
  RdResult *r;

  rd_result_free(first);
  r = read_if(paths, 3, known, NULL);
  assert_unchanged(r, 0, a, etag);
  assert_read(r, 1);
  assert_unchanged(r, 2, a, etag); /* duplicates answer alike */
  /* The totals are of what was read: b.txt alone. */
  ck_assert_int_eq(json_object_get_int_member(r->result, "bytes"), 6);
  ck_assert_int_eq(json_object_get_int_member(r->result, "lines"), 1);
  rd_result_free(r);
}
END_TEST

/* A new modification time, even to the same content, is a new version. */
START_TEST(etag_touch_changes) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "same content\n");
  g_autofree char *etag = etag_of(a);
  const char *paths[] = {a};
  const char *known[] = {a, etag, NULL};
  struct timespec ts[2] = {{.tv_sec = 1700000000, .tv_nsec = 5},
                           {.tv_sec = 1700000000, .tv_nsec = 5}};
  g_autofree char *now = NULL;
  RdResult *r;

  ck_assert(utimensat(AT_FDCWD, a, ts, 0) == 0);
  now = etag_of(a);
  r = read_if(paths, 1, known, NULL);
  assert_read(r, 0);
  ck_assert_str_ne(rd_file_str(r, 0, "etag"), etag);
  ck_assert_str_eq(rd_file_str(r, 0, "etag"), now);
  rd_result_free(r);
}
END_TEST

/* An edit in place that keeps the size: the time moves, the content comes back. */
START_TEST(etag_edit_changes) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "version 1\n");
  g_autofree char *etag = etag_of(a);
  const char *paths[] = {a};
  const char *known[] = {a, etag, NULL};
  struct timespec later[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1800000000, .tv_nsec = 1}};
  g_autofree char *text = NULL;
  RdResult *r;
  FILE *f = fopen(a, "r+");

  ck_assert(f != NULL);
  ck_assert(fputs("version 2\n", f) >= 0);
  fclose(f);
  /* Coarse clocks may leave the time as it was within a tick: move it on for sure. */
  ck_assert(utimensat(AT_FDCWD, a, later, 0) == 0);
  r = read_if(paths, 1, known, "\"lineNumbers\":false");
  assert_read(r, 0);
  text = rd_text(r, 0);
  ck_assert_str_eq(text, "version 2\n");
  rd_result_free(r);
}
END_TEST

/* A rewrite in place of the same size whose modification time is put back (touch -d) is a new
 * version: the status change time moved, and nobody can put that back. */
START_TEST(etag_rewrite_with_mtime_put_back) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "version 1\n");
  g_autofree char *etag = NULL;
  const char *paths[] = {a};
  const char *known[] = {a, NULL, NULL};
  struct stat before, after;
  struct timespec ts[2];
  g_autofree char *text = NULL;
  RdResult *r;
  int fd;

  /* The etag as the daemon gives it; read with it, the file is unchanged. */
  r = read_if(paths, 1, NULL, NULL);
  etag = g_strdup(rd_file_str(r, 0, "etag"));
  rd_result_free(r);
  known[1] = etag;
  r = read_if(paths, 1, known, NULL);
  assert_unchanged(r, 0, a, etag);
  rd_result_free(r);

  ck_assert(stat(a, &before) == 0);
  ts[0] = before.st_atim;
  ts[1] = before.st_mtim;
  fd = open(a, O_WRONLY | O_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(pwrite(fd, "version 2\n", 10, 0), 10);
  close(fd);
  /* touch -d: the old time back. Within one tick of the clock the status change time may not
   * have moved yet: put the time back until it has (each utimensat() sets it to now). */
  do {
    ck_assert(utimensat(AT_FDCWD, a, ts, 0) == 0);
    ck_assert(stat(a, &after) == 0);
  } while (after.st_ctim.tv_sec == before.st_ctim.tv_sec &&
           after.st_ctim.tv_nsec == before.st_ctim.tv_nsec);
  ck_assert_int_eq(after.st_size, before.st_size);
  ck_assert_int_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  ck_assert_int_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  ck_assert_int_eq(after.st_ino, before.st_ino);

  r = read_if(paths, 1, known, "\"lineNumbers\":false");
  assert_read(r, 0);
  text = rd_text(r, 0);
  ck_assert_str_eq(text, "version 2\n");
  ck_assert_str_ne(rd_file_str(r, 0, "etag"), etag);
  rd_result_free(r);
}
END_TEST

/* A file renamed over the path is another file, though its size and time are the same. */
START_TEST(etag_replace_changes) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "old text\n");
  g_autofree char *tmp = rd_write_str(dmn->dir, "a.txt.new", "new text\n");
  g_autofree char *etag = etag_of(a);
  const char *paths[] = {a};
  const char *known[] = {a, etag, NULL};
  struct stat st;
  struct timespec ts[2];
  g_autofree char *text = NULL;
  RdResult *r;

  ck_assert(stat(a, &st) == 0);
  ts[0] = st.st_atim;
  ts[1] = st.st_mtim;
  ck_assert(utimensat(AT_FDCWD, tmp, ts, 0) == 0);
  ck_assert(rename(tmp, a) == 0);
  r = read_if(paths, 1, known, "\"lineNumbers\":false");
  assert_read(r, 0);
  text = rd_text(r, 0);
  ck_assert_str_eq(text, "new text\n");
  ck_assert_str_ne(rd_file_str(r, 0, "etag"), etag);
  rd_result_free(r);
}
END_TEST

/* The key is the path as the client gives it: another spelling, or a stale etag, reads. */
START_TEST(etag_keyed_on_path_as_given) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "alpha\n");
  g_autofree char *etag = etag_of(a);
  g_autofree char *dotted = g_strdup_printf("%s/./a.txt", dmn->dir);
  const char *paths[] = {dotted, a};
  const char *known[] = {a, "0-0-0-0", dotted, etag, NULL};
  RdResult *r = read_if(paths, 2, known, NULL);

  assert_unchanged(r, 0, a, etag);
  assert_read(r, 1); /* its own key carries a stale etag */
  rd_result_free(r);
}
END_TEST

/* Every format says an unchanged file is unchanged, and sends no content for it. */
START_TEST(etag_unchanged_in_every_format) {
  static const char *const formats[] = {"anthropic", "openai", "toolresult", "text", "mcp"};
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "the secret content\n");
  g_autofree char *etag = etag_of(a);
  g_autofree char *qa = rd_json_quote(a), *qe = rd_json_quote(etag);

  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *params = g_strdup_printf(
        "{\"paths\":[%s],\"ifNoneMatch\":{%s:%s},\"format\":\"%s\"}", qa, qa, qe, formats[i]);
    JsonNode *msg = rd_conn_call(conn, "read", params);
    JsonObject *res = rd_result_of(msg);
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autofree char *shape = NULL;
    JsonObject *f0;

    json_generator_set_root(gen, json_object_get_member(res, formats[i]));
    shape = json_generator_to_data(gen, NULL);
    ck_assert_msg(strstr(shape, "unchanged") != NULL, "format %s does not say unchanged: %s",
                  formats[i], shape);
    ck_assert_msg(strstr(shape, etag) != NULL, "format %s does not give the etag", formats[i]);
    ck_assert_msg(strstr(shape, "secret content") == NULL, "format %s sent the content",
                  formats[i]);
    f0 = json_array_get_object_element(json_object_get_array_member(res, "files"), 0);
    ck_assert(json_object_get_boolean_member(f0, "unchanged"));
    ck_assert_str_eq(json_object_get_string_member(f0, "etag"), etag);
    json_node_unref(msg);
  }
}
END_TEST

START_TEST(etag_bad_params_refused) {
  static const char *const bad[] = {
      "{\"paths\":[\"a\"],\"ifNoneMatch\":[\"a\"]}",
      "{\"paths\":[\"a\"],\"ifNoneMatch\":\"a\"}",
      "{\"paths\":[\"a\"],\"ifNoneMatch\":{\"a\":1}}",
      "{\"paths\":[\"a\"],\"ifNoneMatch\":{\"a\":\"\"}}",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    JsonNode *msg = rd_conn_call(conn, "read", bad[i]);
    JsonObject *err = json_object_get_object_member(json_node_get_object(msg), "error");

    ck_assert_int_eq(rd_error_code(msg), -32602);
    ck_assert_msg(strstr(json_object_get_string_member(err, "message"), "ifNoneMatch") != NULL,
                  "%s: message does not name ifNoneMatch", bad[i]);
    json_node_unref(msg);
  }
}
END_TEST

/* readerd read --if-none-match PATH=ETAG */
START_TEST(etag_cli_if_none_match) {
  g_autofree char *a = rd_write_str(dmn->dir, "a=b.txt", "alpha\n");
  g_autofree char *etag = etag_of(a);
  g_autofree char *arg = g_strdup_printf("a=b.txt=%s", etag);
  const char *argv[] = {rd_readerd(), "read", "--if-none-match", arg, "a=b.txt", NULL};
  const char *bad[] = {rd_readerd(), "read", "--if-none-match", "noequals", "a=b.txt", NULL};
  RdRun run;
  RdResult *r;

  rd_run(dmn->dir, argv, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 0);
  r = rd_result_from_xml(run.out, run.out_len);
  {
    g_autofree char *u = rd_attr(r, 0, "unchanged");
    g_autofree char *e = rd_attr(r, 0, "etag");

    ck_assert_str_eq(u, "true");
    ck_assert_str_eq(e, etag);
    ck_assert(rd_content(r, 0)->children == NULL);
  }
  rd_result_free(r);
  rd_run_clear(&run);
  rd_run(dmn->dir, bad, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 2);
  ck_assert(strstr(run.err, "--if-none-match") != NULL);
  rd_run_clear(&run);
}
END_TEST

/* readerd mcp: read_files takes ifNoneMatch from the call itself, and its text blocks carry each
 * file's etag. */
START_TEST(etag_mcp_read_files) {
  g_autofree char *a = rd_write_str(dmn->dir, "a.txt", "the secret content\n");
  g_autofree char *b = rd_write_str(dmn->dir, "b.txt", "bravo\n");
  g_autofree char *etag_a = etag_of(a), *etag_b = etag_of(b);
  g_autofree char *in = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"read_files\","
      "\"arguments\":{\"paths\":[\"a.txt\",\"b.txt\"],\"ifNoneMatch\":{\"a.txt\":\"%s\"}}}}\n",
      etag_a);
  const char *argv[] = {rd_readerd(), "mcp", "--root", dmn->dir, NULL};
  g_autofree char *want_a = g_strdup_printf("unchanged='true' etag='%s'", etag_a);
  g_autofree char *want_b = g_strdup_printf("etag='%s'", etag_b);
  RdRun run;

  rd_run(dmn->dir, argv, in, strlen(in), 10000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "\"id\":2") != NULL, "no answer to the call: %s", run.out);
  ck_assert_msg(strstr(run.out, want_a) != NULL, "a.txt not unchanged: %s", run.out);
  ck_assert_msg(strstr(run.out, "unchanged since the read with this etag") != NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "secret content") == NULL, "a.txt content sent: %s", run.out);
  ck_assert_msg(strstr(run.out, want_b) != NULL && strstr(run.out, "bravo") != NULL,
                "b.txt not read with its etag: %s", run.out);
  rd_run_clear(&run);
}
END_TEST

static Suite *etag_suite(void) {
  Suite *s = suite_create("etag");
  TCase *tc = tcase_create("daemon");

  tcase_add_checked_fixture(tc, etag_setup, etag_teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, etag_on_every_file_read);
  tcase_add_test(tc, etag_same_file_unchanged);
  tcase_add_test(tc, etag_touch_changes);
  tcase_add_test(tc, etag_edit_changes);
  tcase_add_test(tc, etag_rewrite_with_mtime_put_back);
  tcase_add_test(tc, etag_replace_changes);
  tcase_add_test(tc, etag_keyed_on_path_as_given);
  tcase_add_test(tc, etag_unchanged_in_every_format);
  tcase_add_test(tc, etag_bad_params_refused);
  tcase_add_test(tc, etag_cli_if_none_match);
  tcase_add_test(tc, etag_mcp_read_files);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(etag_suite());
}
