/* Integration tests of the socket daemon: the protocol, many clients, bad input, signals.
 * Every test starts the real readerd binary on a socket in a temporary folder. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/rd.h"
#include "tests/lib/sanitizer.h"

static RdDaemon *dmn;

static void daemon_setup(void) {
  rd_fixture_setup(&dmn, NULL);
}

static void daemon_teardown(void) {
  rd_fixture_teardown(&dmn, NULL);
}

/* n files dir/<prefix>NNN.txt; file i holds i % 7 + 2 lines naming it. Paths g_strfreev. */
static char **make_files(const char *prefix, int n) {
  char **paths = g_new0(char *, n + 1);
  for (int i = 0; i < n; i++) {
    GString *s = g_string_new(NULL);
    for (int j = 0; j < i % 7 + 2; j++)
      g_string_append_printf(s, "%s file %d line %d\n", prefix, i, j + 1);
    char *name = g_strdup_printf("%s%03d.txt", prefix, i);
    paths[i] = rd_write_file(dmn->dir, name, s->str, s->len);
    g_free(name);
    g_string_free(s, TRUE);
  }
  return paths;
}

/* Asserts that files[i] of r is `path`, read whole, with the content of the file on disk. */
static void assert_whole_text(RdResult *r, guint i, const char *path) {
  size_t len;
  char *data = rd_read_file(path, &len);
  char **want_raw = rd_split_lines(data, len);
  char **want = rd_numbered((const char *const *)want_raw, g_strv_length(want_raw), 1);
  char **got = rd_text_lines(r, i);

  ck_assert_str_eq(rd_file_str(r, i, "path"), path);
  ck_assert_msg(rd_file_str(r, i, "code") == NULL, "%s failed: %s", path,
                rd_file_str(r, i, "error"));
  ck_assert_int_eq(rd_file_int(r, i, "lines"), rd_count_lines(data, len));
  ck_assert_int_eq(rd_file_int(r, i, "bytes"), (int64_t)len);
  ck_assert_msg(rd_lines_equal(path, (const char *const *)got, (const char *const *)want),
                "the content of %s is not cat -n of the file", path);
  g_strfreev(got);
  g_strfreev(want);
  g_strfreev(want_raw);
  g_free(data);
}

static void assert_error(JsonNode *msg, int code, const char *id_key) {
  char *k = rd_msg_id_key(msg);
  char *s = json_to_string(msg, FALSE);
  ck_assert_msg(rd_error_code(msg) == code, "expected error %d, got %.300s", code, s);
  ck_assert_msg(strcmp(k, id_key) == 0, "expected id %s, got %s in %.300s", id_key, k, s);
  g_free(s);
  g_free(k);
}

/* A read of one small file on the connection works. */
static void assert_serves(RdConn *c) {
  char *p = rd_write_str(dmn->dir, "probe.txt", "probe one\nprobe two\n");
  const char *paths[] = {p};
  RdResult *r = rd_read_paths(c, paths, 1, NULL);
  assert_whole_text(r, 0, p);
  rd_result_free(r);
  g_free(p);
}

static void assert_serves_new_client(void) {
  RdConn *c = rd_conn_new(dmn->sock);
  assert_serves(c);
  rd_conn_free(c);
}

START_TEST(daemon_initialize) {
  RdConn *c = rd_conn_new(dmn->sock);
  char *root = rd_json_quote(dmn->dir);
  char *params =
      g_strdup_printf("{\"rootPath\":%s,\"clientInfo\":{\"name\":\"test-daemon\"}}", root);
  JsonNode *msg = rd_conn_call(c, "initialize", params);
  ck_assert_int_eq(rd_error_code(msg), 0);
  JsonObject *res = json_object_get_object_member(json_node_get_object(msg), "result");
  ck_assert_ptr_nonnull(res);
  JsonObject *info = json_object_get_object_member(res, "serverInfo");
  ck_assert_ptr_nonnull(info);
  ck_assert_str_eq(json_object_get_string_member(info, "name"), "readerd");
  const char *version = json_object_get_string_member(info, "version");
  ck_assert_msg(version && *version, "serverInfo.version is empty");
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(json_object_get_member(res, "capabilities")),
                "capabilities is not an object");
  /* It names every kind of file it reads. */
  JsonObject *caps =
      json_object_get_object_member(json_object_get_object_member(res, "capabilities"), "read");
  JsonArray *types = json_object_get_array_member(caps, "types");
  GString *names = g_string_new(NULL);
  for (guint i = 0; i < json_array_get_length(types); i++)
    g_string_append_printf(names, "%s ", json_array_get_string_element(types, i));
  ck_assert_str_eq(names->str, "text image pdf notebook document ");
  g_string_free(names, TRUE);

  /* The version is the one `readerd --version` prints. */
  const char *argv[] = {rd_readerd(), "--version", NULL};
  RdRun run;
  rd_run(dmn->dir, argv, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, version), "--version prints '%s', initialize says '%s'", run.out,
                version);
  rd_run_clear(&run);

  /* params are optional. */
  JsonNode *msg2 = rd_conn_call(c, "initialize", NULL);
  ck_assert_int_eq(rd_error_code(msg2), 0);
  assert_serves(c);
  json_node_unref(msg2);
  json_node_unref(msg);
  g_free(params);
  g_free(root);
  rd_conn_free(c);
}
END_TEST

START_TEST(daemon_pipelining) {
  enum { N = 50 };
  char **paths = make_files("pipe", N);
  char *keys[N + 2];
  RdConn *c = rd_conn_new(dmn->sock);

  for (int i = 0; i < N; i++) {
    char *arr = rd_json_paths((const char *const *)&paths[i], 1);
    char *params = g_strdup_printf("{\"paths\":%s}", arr);
    char *id =
        i % 2 ? g_strdup_printf("%d", 1000 + i) : g_strdup_printf("\"req-%d \\\"q\\\" é\"", i);
    keys[i] = rd_conn_request(c, "read", params, id);
    g_free(id);
    g_free(params);
    g_free(arr);
  }
  /* 7 and "7" are different ids. */
  char *a7 = g_strdup_printf("{\"paths\":[%s]}", "\"pipe003.txt\"");
  char *b7 = g_strdup_printf("{\"paths\":[%s]}", "\"pipe004.txt\"");
  keys[N] = rd_conn_request(c, "read", a7, "7");
  keys[N + 1] = rd_conn_request(c, "read", b7, "\"7\"");
  ck_assert_str_eq(keys[N], "n:7");
  ck_assert_str_eq(keys[N + 1], "s:7");

  for (int i = N - 1; i >= 0; i--) {
    RdResult *r = rd_result_new(rd_conn_wait(c, keys[i], RD_TIMEOUT_MS));
    ck_assert_int_eq(json_array_get_length(r->files), 1);
    assert_whole_text(r, 0, paths[i]);
    rd_result_free(r);
  }
  RdResult *r7 = rd_result_new(rd_conn_wait(c, keys[N], RD_TIMEOUT_MS));
  RdResult *s7 = rd_result_new(rd_conn_wait(c, keys[N + 1], RD_TIMEOUT_MS));
  ck_assert_str_eq(rd_file_str(r7, 0, "path"), "pipe003.txt");
  ck_assert_str_eq(rd_file_str(s7, 0, "path"), "pipe004.txt");
  ck_assert_int_eq(rd_file_int(r7, 0, "lines"), 3 % 7 + 2);
  ck_assert_int_eq(rd_file_int(s7, 0, "lines"), 4 % 7 + 2);
  rd_result_free(r7);
  rd_result_free(s7);
  for (int i = 0; i < N + 2; i++)
    g_free(keys[i]);
  g_free(a7);
  g_free(b7);
  g_strfreev(paths);
  rd_conn_free(c);
}
END_TEST

typedef struct {
  const char *path;
  GMutex *lock;
  GCond *cond;
  bool *go;
} ClientArg;

static gpointer client_thread(gpointer data) {
  ClientArg *a = data;
  g_mutex_lock(a->lock);
  while (!*a->go)
    g_cond_wait(a->cond, a->lock);
  g_mutex_unlock(a->lock);

  RdConn *c = rd_conn_new(dmn->sock);
  const char *paths[] = {a->path, "probe-missing.txt", a->path};
  RdResult *r = rd_read_paths(c, paths, 3, NULL);
  assert_whole_text(r, 0, a->path);
  assert_whole_text(r, 2, a->path);
  ck_assert_str_eq(rd_file_str(r, 1, "code"), "FILE_NOT_FOUND");
  rd_result_free(r);
  rd_conn_free(c);
  return NULL;
}

START_TEST(daemon_concurrent_clients) {
  enum { N = 50 };
  char **paths = make_files("client", N);
  GThread *threads[N];
  ClientArg args[N];
  GMutex lock;
  GCond cond;
  bool go = false;

  g_mutex_init(&lock);
  g_cond_init(&cond);
  for (int i = 0; i < N; i++) {
    args[i] = (ClientArg){paths[i], &lock, &cond, &go};
    threads[i] = g_thread_new("client", client_thread, &args[i]);
  }
  g_mutex_lock(&lock);
  go = true;
  g_cond_broadcast(&cond);
  g_mutex_unlock(&lock);
  for (int i = 0; i < N; i++)
    g_thread_join(threads[i]);
  g_mutex_clear(&lock);
  g_cond_clear(&cond);
  ck_assert(rd_daemon_alive(dmn));
  g_strfreev(paths);
}
END_TEST

START_TEST(daemon_bad_json) {
  RdConn *c = rd_conn_new(dmn->sock);
  const char *bad[] = {
      "{this is not json\n",
      "[1,2\n",
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[\n",
      "\"unterminated\n",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\"}}\n",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    rd_conn_send_str(c, bad[i]);
    JsonNode *m = rd_conn_recv(c, 10000);
    assert_error(m, -32700, "null");
    json_node_unref(m);
  }
  assert_serves(c);

  /* Nesting deep enough to exhaust a recursive parser's stack, and bytes that are not UTF-8:
   * refused, and the connection goes on. */
  GString *deep = g_string_new("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":");
  for (int i = 0; i < 200000; i++)
    g_string_append_c(deep, '[');
  for (int i = 0; i < 200000; i++)
    g_string_append_c(deep, ']');
  g_string_append(deep, "}\n");
  rd_conn_send(c, deep->str, deep->len);
  g_string_free(deep, TRUE);
  JsonNode *dm = rd_conn_recv(c, 10000);
  ck_assert_msg(rd_error_code(dm) != 0, "deeply nested params were not refused");
  json_node_unref(dm);
  /* The same nesting behind a '"' that only a single-quoted string or a comment holds: JSON has
   * neither, so the line is not JSON, whatever json-glib would make of it. */
  static const char *const covers[] = {"{'\"':", "{/* \" */\"a\":"};
  for (size_t k = 0; k < G_N_ELEMENTS(covers); k++) {
    GString *hidden = g_string_new(covers[k]);

    for (int i = 0; i < 100000; i++)
      g_string_append_c(hidden, '[');
    g_string_append_c(hidden, '\n');
    rd_conn_send(c, hidden->str, hidden->len);
    g_string_free(hidden, TRUE);
    dm = rd_conn_recv(c, 10000);
    ck_assert_int_eq(rd_error_code(dm), -32700);
    json_node_unref(dm);
    assert_serves(c);
  }
  rd_conn_send_str(c, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"initialize\"}\n");
  dm = rd_conn_recv(c, 10000);
  ck_assert_msg(rd_error_code(dm) == -32700,
                "a line that is not UTF-8 was not refused with -32700");
  json_node_unref(dm);
  assert_serves(c);

  /* Empty lines, and lines of only spaces, tabs and CRs, are ignored: the next answer is the
   * next request's. */
  rd_conn_send_str(c, "\n\r\n  \n\t \r\n \r \r\n");
  char *key = rd_conn_request(c, "initialize", "{}", "\"after-empty\"");
  JsonNode *m = rd_conn_recv(c, 10000);
  char *k = rd_msg_id_key(m);
  ck_assert_msg(strcmp(k, key) == 0 && rd_error_code(m) == 0,
                "a blank line was answered (id %s, code %d)", k, rd_error_code(m));
  g_free(k);
  json_node_unref(m);
  g_free(key);
  assert_serves(c);
  rd_conn_free(c);
}
END_TEST

/* More reads than may run at once wait their turn: each is answered, a waiting one that is
 * cancelled is answered -32800 at once, and all of it holds across a half-close. */
START_TEST(daemon_waiting_reads) {
  char **files = make_files("wait", 300);
  char *arr = rd_json_paths((const char *const *)files, 300);
  GString *msg = g_string_new(NULL);
  for (int id = 1; id <= 9; id++)
    g_string_append_printf(
        msg, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"read\",\"params\":{\"paths\":%s}}\n", id,
        arr);
  g_string_append(msg, "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\","
                       "\"params\":{\"id\":9}}\n");
  RdConn *c = rd_conn_new(dmn->sock);
  rd_conn_send(c, msg->str, msg->len);
  rd_conn_close_write(c);
  JsonNode *m = rd_conn_wait(c, "n:9", RD_TIMEOUT_MS);
  assert_error(m, -32800, "n:9");
  json_node_unref(m);
  for (int id = 1; id <= 8; id++) {
    char *key = g_strdup_printf("n:%d", id);
    RdResult *r = rd_result_new(rd_conn_wait(c, key, RD_TIMEOUT_MS));
    ck_assert_int_eq(json_array_get_length(r->files), 300);
    assert_whole_text(r, (guint)(id * 31), files[id * 31]);
    rd_result_free(r);
    g_free(key);
  }
  ck_assert_msg(rd_conn_wait_closed(c, RD_TIMEOUT_MS), "the daemon kept a half-closed connection open");
  rd_conn_free(c);
  g_string_free(msg, TRUE);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

/* A rootPath that is not an existing folder is invalid params, fenced or not; the
 * connection's earlier workspace stays. */
START_TEST(daemon_initialize_root_must_be_folder) {
  RdConn *c = rd_conn_new(dmn->sock);
  char *file = rd_write_str(dmn->dir, "root-file.txt", "x\n");
  char *missing = g_build_filename(dmn->dir, "no-such-folder", NULL);
  char *sub = g_build_filename(dmn->dir, "sub", NULL);
  char *inner = rd_write_str(sub, "inner.txt", "inner\n");
  char *q = rd_json_quote(sub);
  char *good = g_strdup_printf("{\"rootPath\":%s}", q);
  JsonNode *m = rd_conn_call(c, "initialize", good);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  const char *bad_roots[] = {missing, file};
  for (size_t i = 0; i < G_N_ELEMENTS(bad_roots); i++) {
    for (int confine = 0; confine <= 1; confine++) {
      char *bq = rd_json_quote(bad_roots[i]);
      char *params =
          g_strdup_printf("{\"rootPath\":%s,\"confineToRoot\":%s}", bq, confine ? "true" : "false");
      m = rd_conn_call(c, "initialize", params);
      ck_assert_msg(rd_error_code(m) == -32602, "rootPath %s (confine %d) gave code %d",
                    bad_roots[i], confine, rd_error_code(m));
      const char *text = json_object_get_string_member(
          json_object_get_object_member(json_node_get_object(m), "error"), "message");
      ck_assert_msg(strstr(text, "is not a folder") != NULL, "message: %s", text);
      json_node_unref(m);
      g_free(params);
      g_free(bq);
    }
  }
  /* Relative paths still resolve against the good root. */
  const char *rel[] = {"inner.txt"};
  RdResult *r = rd_read_paths(c, rel, 1, NULL);
  ck_assert_msg(rd_file_str(r, 0, "code") == NULL, "inner.txt: %s", rd_file_str(r, 0, "error"));
  rd_result_free(r);
  rd_conn_free(c);
  g_free(good);
  g_free(q);
  g_free(inner);
  g_free(sub);
  g_free(missing);
  g_free(file);
}
END_TEST

/* initialize resolves its root off the loop, yet a read sent right behind it, in the same
 * write, meets its workspace: the lines after an initialize wait for it. A failed initialize
 * leaves the workspace before it. */
START_TEST(daemon_initialize_then_read_one_write) {
  char *dir_a = g_build_filename(dmn->dir, "root-a", NULL);
  char *dir_b = g_build_filename(dmn->dir, "root-b", NULL);
  char *missing = g_build_filename(dmn->dir, "root-missing", NULL);
  char *fa = rd_write_str(dir_a, "which.txt", "root a\n");
  char *fb = rd_write_str(dir_b, "which.txt", "root b\n");
  char *qa = rd_json_quote(dir_a), *qb = rd_json_quote(dir_b), *qm = rd_json_quote(missing);
  const char *read = "\"method\":\"read\",\"params\":{\"paths\":[\"which.txt\"]}}\n";
  char *lines = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"rootPath\":%s}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,%s"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":{\"rootPath\":%s}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":4,%s"
      "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{\"rootPath\":%s}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":6,%s",
      qa, read, qb, read, qm, read);
  const char *want[] = {"root a", "root b", "root b"};
  RdConn *c = rd_conn_new(dmn->sock);

  rd_conn_send_str(c, lines);
  for (int k = 0; k < 3; k++) {
    g_autofree char *init_key = g_strdup_printf("n:%d", 2 * k + 1);
    g_autofree char *read_key = g_strdup_printf("n:%d", 2 * k + 2);
    JsonNode *m = rd_conn_wait(c, init_key, RD_TIMEOUT_MS);
    RdResult *r;
    char **t;

    ck_assert_int_eq(rd_error_code(m), k < 2 ? 0 : -32602);
    json_node_unref(m);
    r = rd_result_new(rd_conn_wait(c, read_key, RD_TIMEOUT_MS));
    t = rd_text_lines(r, 0);
    ck_assert_msg(g_str_has_suffix(t[0], want[k]), "read %d: %s", 2 * k + 2, t[0]);
    g_strfreev(t);
    rd_result_free(r);
  }
  rd_conn_free(c);
  g_free(lines);
  g_free(qa);
  g_free(qb);
  g_free(qm);
  g_free(fa);
  g_free(fb);
  g_free(missing);
  g_free(dir_b);
  g_free(dir_a);
}
END_TEST

/* A line of 16 KiB or more is parsed on the pool; the lines after it wait for it, so that
 * requests are still taken in order: a long initialize's root is met by the read right behind
 * it, and a cancellation right behind a long read finds it. */
START_TEST(daemon_long_lines_keep_order) {
  char *dir = g_build_filename(dmn->dir, "long-root", NULL);
  char *file = rd_write_str(dir, "which.txt", "long root\n");
  char *q = rd_json_quote(dir);
  g_autoptr(GString) exclude = g_string_new(NULL);
  g_autoptr(GString) paths = g_string_new(NULL);
  char *lines;
  RdConn *c = rd_conn_new(dmn->sock);
  JsonNode *m;
  RdResult *r;
  char **t;

  for (int i = 0; i < 1000; i++)
    g_string_append_printf(exclude, "%s\"no-such-name-%04d.*\"", i > 0 ? "," : "", i);
  for (int i = 0; i < 1500; i++)
    g_string_append_printf(paths, "%s\"which.txt\"", i > 0 ? "," : "");
  lines = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"rootPath\":%s,"
      "\"exclude\":[%s]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":[\"which.txt\"]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read\",\"params\":{\"paths\":[%s]}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":3}}\n",
      q, exclude->str, paths->str);
  ck_assert_uint_ge(exclude->len, 16 * 1024);
  ck_assert_uint_ge(paths->len, 16 * 1024);
  rd_conn_send_str(c, lines);
  m = rd_conn_wait(c, "n:1", RD_TIMEOUT_MS);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  r = rd_result_new(rd_conn_wait(c, "n:2", RD_TIMEOUT_MS));
  t = rd_text_lines(r, 0);
  ck_assert_msg(t[0] != NULL && g_str_has_suffix(t[0], "long root"), "read 2: %s", t[0]);
  g_strfreev(t);
  rd_result_free(r);
  m = rd_conn_wait(c, "n:3", RD_TIMEOUT_MS);
  assert_error(m, -32800, "n:3");
  json_node_unref(m);
  assert_serves(c);
  rd_conn_free(c);
  g_free(lines);
  g_free(q);
  g_free(file);
  g_free(dir);
}
END_TEST

/* Clients that go while a long line of theirs is parsed on the pool. One that closes after
 * sending it is still answered (into the void: the daemon answers what it received). One whose
 * earlier answer fails to be written (the peer is gone) is closed while the parse runs: its
 * outcome finds no connection and is dropped (under the sanitizers: no use after free, no
 * leak). One that shuts down its writing side after a long line gets that line's answer. */
START_TEST(daemon_long_line_client_goes) {
  g_autoptr(GString) paths = g_string_new(NULL);
  g_autoptr(GString) pad = g_string_new(NULL);
  g_autofree char *file = rd_write_str(dmn->dir, "before-long.txt", "one line\n");
  g_autofree char *q = rd_json_quote(file);
  g_autofree char *line = NULL, *two = NULL;
  RdConn *c;
  RdResult *r;

  for (int i = 0; i < 3000; i++)
    g_string_append_printf(paths, "%s\"%s/gone-%04d.txt\"", i > 0 ? "," : "", dmn->dir, i);
  line = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[%s]}}\n",
      paths->str);
  ck_assert_uint_ge(strlen(line), 16 * 1024);
  for (int i = 0; i < 20; i++) {
    c = rd_conn_new(dmn->sock);
    rd_conn_send_str(c, line);
    rd_conn_free(c);
  }
  /* A one-file read, then 4 MB of numbers whose parse outlasts it: the read's answer meets
   * the closed peer while the long line is still being parsed. */
  for (int i = 0; i < 2 * 1024 * 1024; i++)
    g_string_append(pad, i > 0 ? ",0" : "0");
  two = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[%s]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":[%s],"
      "\"pad\":[%s]}}\n",
      q, q, pad->str);
  for (int i = 0; i < 5; i++) {
    c = rd_conn_new(dmn->sock);
    rd_conn_send_str(c, two);
    rd_conn_free(c);
  }
  c = rd_conn_new(dmn->sock);
  rd_conn_send_str(c, line);
  rd_conn_close_write(c);
  r = rd_result_new(rd_conn_wait(c, "n:1", RD_TIMEOUT_MS));
  ck_assert_uint_eq(json_array_get_length(r->files), 3000);
  ck_assert_str_eq(rd_file_str(r, 2999, "code"), "FILE_NOT_FOUND");
  rd_result_free(r);
  rd_conn_free(c);
  c = rd_conn_new(dmn->sock);
  assert_serves(c);
  rd_conn_free(c);
}
END_TEST

/* A client that sends its requests and then shuts down its writing side (nc -N, socat) gets
 * every answer, a last line without a newline included, then the daemon closes. */
START_TEST(daemon_half_close_answers) {
  char **files = make_files("half", 40);
  char *arr = rd_json_paths((const char *const *)files, 40);
  char *msg = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":%s}}\n"
      " \t\r\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":%s}}",
      arr, arr);
  RdConn *c = rd_conn_new(dmn->sock);
  rd_conn_send_str(c, msg);
  rd_conn_close_write(c);
  for (int id = 1; id <= 2; id++) {
    char *key = g_strdup_printf("n:%d", id);
    RdResult *r = rd_result_new(rd_conn_wait(c, key, RD_TIMEOUT_MS));
    ck_assert_int_eq(json_array_get_length(r->files), 40);
    for (guint i = 0; i < 40; i += 13)
      assert_whole_text(r, i, files[i]);
    rd_result_free(r);
    g_free(key);
  }
  ck_assert_msg(rd_conn_wait_closed(c, RD_TIMEOUT_MS), "the daemon kept a half-closed connection open");
  rd_conn_free(c);
  assert_serves_new_client();
  g_free(msg);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

START_TEST(daemon_invalid_request) {
  RdConn *c = rd_conn_new(dmn->sock);
  struct {
    const char *line;
    const char *id;
  } cases[] = {
      {"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":42}\n", "n:6"},
      {"{\"jsonrpc\":\"2.0\",\"id\":\"m\",\"method\":null}\n", "s:m"},
      {"[]\n", "null"},
      {"[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"initialize\"}]\n", "null"},
      {"42\n", "null"},
      {"\"read\"\n", "null"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    rd_conn_send_str(c, cases[i].line);
    JsonNode *m = rd_conn_recv(c, 10000);
    assert_error(m, -32600, cases[i].id);
    json_node_unref(m);
  }
  assert_serves(c);
  rd_conn_free(c);
}
END_TEST

START_TEST(daemon_unknown_method) {
  RdConn *c = rd_conn_new(dmn->sock);
  char *k = rd_conn_request(c, "no/such/method", "{}", "\"abc\"");
  JsonNode *m = rd_conn_wait(c, k, 10000);
  assert_error(m, -32601, "s:abc");
  json_node_unref(m);
  g_free(k);
  /* A request whose method starts with $/ is still a request: it is answered. */
  k = rd_conn_request(c, "$/noSuchRequest", NULL, "77");
  m = rd_conn_wait(c, k, 10000);
  assert_error(m, -32601, "n:77");
  json_node_unref(m);
  g_free(k);
  assert_serves(c);
  rd_conn_free(c);
}
END_TEST

START_TEST(daemon_invalid_params) {
  RdConn *c = rd_conn_new(dmn->sock);
  char *f = rd_write_str(dmn->dir, "a.txt", "a\n");
  const char *bad[] = {
      NULL,
      "{}",
      "{\"paths\":\"a.txt\"}",
      "{\"paths\":[]}",
      "{\"paths\":[42]}",
      "{\"paths\":[\"\"]}",
      "{\"paths\":[null]}",
      "{\"paths\":[{\"offset\":2}]}",
      "{\"paths\":[{\"path\":42}]}",
      "{\"paths\":[\"a.txt\"],\"offset\":0}",
      "{\"paths\":[\"a.txt\"],\"offset\":\"3\"}",
      "{\"paths\":[\"a.txt\"],\"limit\":-5}",
      "{\"paths\":[{\"path\":\"a.txt\",\"offset\":-1}]}",
      "{\"paths\":[\"a.txt\"],\"cwd\":5}",
      "{\"paths\":[\"a.txt\"],\"lineNumbers\":\"yes\"}",
      "{\"paths\":[\"a.txt\"],\"images\":{\"maxDimension\":\"big\"}}",
      "[[\"a.txt\"]]",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *k = rd_conn_request(c, "read", bad[i], NULL);
    JsonNode *m = rd_conn_wait(c, k, 10000);
    char *s = json_to_string(m, FALSE);
    ck_assert_msg(rd_error_code(m) == -32602, "read with params %s answered %.300s",
                  bad[i] ? bad[i] : "(none)", s);
    g_free(s);
    json_node_unref(m);
    g_free(k);
  }

  /* At most 10000 paths: 10001 is refused, 10000 is read. */
  const char **many = g_new(const char *, 10001);
  for (int i = 0; i < 10001; i++)
    many[i] = i % 2 ? "a.txt" : "missing.txt";
  char *arr = rd_json_paths(many, 10001);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  char *k = rd_conn_request(c, "read", params, NULL);
  JsonNode *m = rd_conn_wait(c, k, RD_TIMEOUT_MS);
  ck_assert_msg(rd_error_code(m) == -32602, "a read of 10001 paths was not refused with -32602");
  json_node_unref(m);
  g_free(k);
  g_free(params);
  g_free(arr);
  RdResult *r = rd_read_paths(c, many, 10000, NULL);
  ck_assert_int_eq(json_array_get_length(r->files), 10000);
  ck_assert_str_eq(rd_file_str(r, 9998, "code"), "FILE_NOT_FOUND");
  ck_assert_int_eq(rd_file_int(r, 9999, "lines"), 1);
  ck_assert_int_eq(json_object_get_int_member(r->result, "lines"), 5000);
  rd_result_free(r);
  g_free(many);
  g_free(f);
  assert_serves(c);
  rd_conn_free(c);
}
END_TEST

START_TEST(daemon_notifications_unanswered) {
  RdConn *c = rd_conn_new(dmn->sock);
  rd_conn_notify(c, "no/such/notification", "{}");
  rd_conn_notify(c, "$/setTrace", "{\"value\":\"off\"}");
  rd_conn_notify(c, "$/cancelRequest", "{\"id\":424242}");
  rd_conn_notify(c, "$/cancelRequest", "{\"id\":\"nobody\"}");
  rd_conn_notify(c, "read", "{\"paths\":[]}");
  rd_conn_notify(c, "initialize", NULL);
  char *key = rd_conn_request(c, "initialize", NULL, "\"first-answer\"");
  JsonNode *m = rd_conn_recv(c, 10000);
  char *k = rd_msg_id_key(m);
  char *s = json_to_string(m, FALSE);
  ck_assert_msg(strcmp(k, key) == 0, "a notification was answered: %.300s", s);
  g_free(s);
  g_free(k);
  g_free(key);
  json_node_unref(m);
  rd_conn_free(c);
}
END_TEST

START_TEST(daemon_oversized_line) {
  RdConn *c = rd_conn_new(dmn->sock);
  size_t n = (size_t)17 * 1024 * 1024;
  GString *line = g_string_sized_new(n + 100);
  g_string_append(line,
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[\"");
  for (size_t i = 0; i < n; i++)
    g_string_append_c(line, 'a');
  g_string_append(line, "\"]}}\n");
  int r = rd_conn_try_send(c, line->str, line->len, RD_TIMEOUT_MS);
  g_string_free(line, TRUE);
  ck_assert_msg(r == 0 || r == -EPIPE || r == -ECONNRESET, "sending a 17 MiB line: %s",
                g_strerror(-r));

  char *reply = NULL;
  int got = rd_conn_recv_line(c, RD_TIMEOUT_MS, &reply);
  ck_assert_msg(got != -ETIMEDOUT, "a 17 MiB line was neither refused nor the connection closed");
  if (got > 0) {
    /* Refused with an error: id null, and the connection serves on. */
    JsonNode *m = rd_json_parse(reply, strlen(reply));
    ck_assert_msg(rd_error_code(m) != 0, "a 17 MiB line was answered without an error: %.200s",
                  reply);
    char *k = rd_msg_id_key(m);
    ck_assert_str_eq(k, "null");
    g_free(k);
    json_node_unref(m);
    assert_serves(c);
  }
  g_free(reply);
  rd_conn_free(c);
  ck_assert(rd_daemon_alive(dmn));
  assert_serves_new_client();
}
END_TEST

static char *repeat_paths_json(char **files, int n_files, int n) {
  const char **p = g_new(const char *, n);
  for (int i = 0; i < n; i++)
    p[i] = files[i % n_files];
  char *arr = rd_json_paths(p, n);
  g_free(p);
  return arr;
}

START_TEST(daemon_disconnect_mid_request) {
  char **files = make_files("many", 300);
  char *arr = repeat_paths_json(files, 300, 3000);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  for (int round = 0; round < 3; round++) {
    RdConn *c = rd_conn_new(dmn->sock);
    char *k = rd_conn_request(c, "read", params, NULL);
    g_free(k);
    rd_conn_free(c);
  }
  ck_assert(rd_daemon_alive(dmn));
  assert_serves_new_client();
  /* The abandoned reads finish or stop while a new client is served. */
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r = rd_read(c, params);
  ck_assert_int_eq(json_array_get_length(r->files), 3000);
  assert_whole_text(r, 2999, files[2999 % 300]);
  rd_result_free(r);
  rd_conn_free(c);

  rd_daemon_stop(dmn);
  char *log = rd_daemon_log(dmn);
  ck_assert_msg(strstr(log, "]: error:") == NULL, "the daemon logged an error:\n%s", log);
  g_free(log);
  g_free(params);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

typedef struct {
  const char *params;
  guint32 seed;
} ChurnArg;

/* Reads, then disconnects or cancels after a random short delay, again and again. */
static gpointer churn_thread(gpointer data) {
  ChurnArg *a = data;
  GRand *rand = g_rand_new_with_seed(a->seed);
  for (int round = 0; round < 8; round++) {
    RdConn *c = rd_conn_new(dmn->sock);
    char *k = rd_conn_request(c, "read", a->params, NULL);
    g_usleep((gulong)g_rand_int_range(rand, 0, 20000));
    if (round % 2) {
      char *id = g_strdup(k + 2);
      char *cancel = g_strdup_printf("{\"id\":%s}", id);
      rd_conn_notify(c, "$/cancelRequest", cancel);
      JsonNode *m = rd_conn_wait(c, k, RD_TIMEOUT_MS);
      int code = rd_error_code(m);
      ck_assert_msg(code == 0 || code == -32800, "a cancelled read answered %d", code);
      json_node_unref(m);
      g_free(cancel);
      g_free(id);
    }
    g_free(k);
    rd_conn_free(c);
  }
  g_rand_free(rand);
  return NULL;
}

/* Clients that come and go in the middle of their reads, some cancelling: the daemon keeps
 * serving and logs no error (under sanitizers, no memory error either). */
START_TEST(daemon_client_churn) {
  enum { N = 12 };
  char **files = make_files("churn", 200);
  char *arr = repeat_paths_json(files, 200, 1500);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  GThread *threads[N];
  ChurnArg args[N];
  for (int i = 0; i < N; i++) {
    args[i] = (ChurnArg){params, (guint32)(i * 7919 + 1)};
    threads[i] = g_thread_new("churn", churn_thread, &args[i]);
  }
  for (int i = 0; i < N; i++)
    g_thread_join(threads[i]);
  ck_assert(rd_daemon_alive(dmn));
  assert_serves_new_client();
  rd_daemon_stop(dmn);
  char *log = rd_daemon_log(dmn);
  ck_assert_msg(strstr(log, "]: error:") == NULL, "the daemon logged an error:\n%s", log);
  g_free(log);
  g_free(params);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

/* Sends a big read and its cancellation in one write; the answer is -32800 or the full result. */
static void cancel_one(RdConn *c, const char *params, int n, const char *id) {
  char *line = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"read\",\"params\":%s}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":%s}}\n",
      id, params, id);
  rd_conn_send_str(c, line);
  JsonNode *idn = rd_json_parse(id, strlen(id));
  char *key = rd_id_key(idn);
  JsonNode *m = rd_conn_wait(c, key, RD_TIMEOUT_MS);
  int code = rd_error_code(m);
  if (code) {
    assert_error(m, -32800, key);
    json_node_unref(m);
  } else {
    fprintf(stderr, "note: the read %s completed before its cancellation arrived\n", id);
    RdResult *r = rd_result_new(m);
    ck_assert_int_eq(json_array_get_length(r->files), n);
    rd_result_free(r);
  }
  g_free(key);
  json_node_unref(idn);
  g_free(line);
}

START_TEST(daemon_cancel) {
  char **files = make_files("cancel", 300);
  char *arr = repeat_paths_json(files, 300, 6000);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  RdConn *c = rd_conn_new(dmn->sock);

  cancel_one(c, params, 6000, "\"big\"");
  cancel_one(c, params, 6000, "31337");
  assert_serves(c);
  /* Nothing more comes for the cancelled requests. */
  char *extra = NULL;
  int r = rd_conn_recv_line(c, 300, &extra);
  ck_assert_msg(r == -ETIMEDOUT, "an unexpected message after cancellation: %.200s",
                extra ? extra : "(closed)");
  /* Cancelling a request that already finished changes nothing. */
  rd_conn_notify(c, "$/cancelRequest", "{\"id\":\"big\"}");
  assert_serves(c);
  rd_conn_free(c);
  g_free(params);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

START_TEST(daemon_shutdown_exit) {
  RdConn *c1 = rd_conn_new(dmn->sock);
  RdConn *c2 = rd_conn_new(dmn->sock);
  JsonNode *m = rd_conn_call(c1, "shutdown", NULL);
  JsonObject *o = json_node_get_object(m);
  ck_assert_msg(json_object_has_member(o, "result") &&
                    JSON_NODE_HOLDS_NULL(json_object_get_member(o, "result")),
                "shutdown did not answer null");
  json_node_unref(m);
  rd_conn_notify(c1, "exit", NULL);
  ck_assert_msg(rd_conn_wait_closed(c1, RD_TIMEOUT_MS), "exit did not close the connection");
  /* Only that connection: the daemon and its other clients go on. */
  g_usleep(100000);
  ck_assert(rd_daemon_alive(dmn));
  assert_serves(c2);
  assert_serves_new_client();
  rd_conn_free(c1);
  rd_conn_free(c2);
}
END_TEST

/* Requests sent before shutdown are answered, even when exit follows at once. */
START_TEST(daemon_shutdown_answers_pending) {
  char **files = make_files("pending", 100);
  char *arr = repeat_paths_json(files, 100, 3000);
  char *line = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"read\",\"params\":{\"paths\":%s}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":\"down\",\"method\":\"shutdown\"}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}\n",
      arr);
  RdConn *c = rd_conn_new(dmn->sock);
  rd_conn_send_str(c, line);
  JsonNode *m = rd_conn_wait(c, "s:big", RD_TIMEOUT_MS);
  char *text = json_to_string(m, FALSE);
  ck_assert_msg(rd_error_code(m) == 0, "a read sent before shutdown was answered %.200s", text);
  g_free(text);
  RdResult *r = rd_result_new(m);
  ck_assert_int_eq(json_array_get_length(r->files), 3000);
  assert_whole_text(r, 2999, files[2999 % 100]);
  rd_result_free(r);
  m = rd_conn_wait(c, "s:down", RD_TIMEOUT_MS);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  ck_assert_msg(rd_conn_wait_closed(c, RD_TIMEOUT_MS), "exit did not close the connection");
  rd_conn_free(c);
  assert_serves_new_client();
  g_free(line);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

/* A big read on one connection does not hold up a small one on another. */
START_TEST(daemon_requests_interleave) {
  char **files = make_files("inter", 300);
  char *arr = repeat_paths_json(files, 300, 10000);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  RdConn *big = rd_conn_new(dmn->sock);
  RdConn *small = rd_conn_new(dmn->sock);
  char *k = rd_conn_request(big, "read", params, NULL);
  g_usleep(20000);
  assert_serves(small);
  char *line = NULL;
  int r = rd_conn_recv_line(big, 0, &line);
  ck_assert_msg(r == -ETIMEDOUT, "the big read finished before a one-file read on another "
                                 "connection was answered");
  RdResult *res = rd_result_new(rd_conn_wait(big, k, RD_TIMEOUT_MS));
  ck_assert_int_eq(json_array_get_length(res->files), 10000);
  rd_result_free(res);
  g_free(k);
  rd_conn_free(big);
  rd_conn_free(small);
  g_free(params);
  g_free(arr);
  g_strfreev(files);
}
END_TEST

/* initialize's workspace fence through the real daemon: files outside the root (directly, by
 * "..", through a symlink) and excluded names are ACCESS_DENIED without their size; the rest is
 * read; bad settings are invalid params and leave the connection as it was. */
START_TEST(daemon_workspace_fence) {
  char *ws = g_build_filename(dmn->dir, "fence", NULL),
       *out = g_build_filename(dmn->dir, "out", NULL);
  ck_assert_int_eq(g_mkdir_with_parents(ws, 0700), 0);
  ck_assert_int_eq(g_mkdir_with_parents(out, 0700), 0);
  g_free(rd_write_str(ws, "in.txt", "inside\n"));
  g_free(rd_write_str(ws, ".env", "KEY=1\n"));
  char *secret = rd_write_str(out, "secret.txt", "outside\n");
  char *link = g_build_filename(ws, "link.txt", NULL);
  ck_assert_int_eq(symlink(secret, link), 0);
  RdConn *c = rd_conn_new(dmn->sock);

  /* Bad settings first: refused, nothing changes. */
  JsonNode *m = rd_conn_call(c, "initialize", "{\"confineToRoot\":true}");
  ck_assert_int_eq(rd_error_code(m), -32602);
  json_node_unref(m);
  char *missing = g_strdup("{\"rootPath\":\"/no/such/folder\",\"confineToRoot\":true}");
  m = rd_conn_call(c, "initialize", missing);
  ck_assert_int_eq(rd_error_code(m), -32602);
  json_node_unref(m);

  char *qws = rd_json_quote(ws);
  char *init =
      g_strdup_printf("{\"rootPath\":%s,\"confineToRoot\":true,\"exclude\":[\".env\"]}", qws);
  g_free(qws);
  m = rd_conn_call(c, "initialize", init);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  const char *paths[] = {"in.txt", ".env",         "link.txt", "../out/secret.txt",
                         secret,   "/etc/hostname"};
  RdResult *r = rd_read_paths(c, paths, G_N_ELEMENTS(paths), NULL);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 1);
  for (guint i = 1; i < G_N_ELEMENTS(paths); i++) {
    ck_assert_msg(g_strcmp0(rd_file_str(r, i, "code"), "ACCESS_DENIED") == 0, "%s: code %s",
                  paths[i], rd_file_str(r, i, "code"));
    JsonObject *f = json_array_get_object_element(r->files, i);
    ck_assert_msg(!json_object_has_member(f, "bytes"), "%s: its size leaked", paths[i]);
  }
  rd_result_free(r);
  /* Another connection is not fenced. */
  RdConn *other = rd_conn_new(dmn->sock);
  const char *outside[] = {secret};
  r = rd_read_paths(other, outside, 1, NULL);
  ck_assert_ptr_null(rd_file_str(r, 0, "code"));
  rd_result_free(r);
  rd_conn_free(other);
  rd_conn_free(c);
  g_free(init);
  g_free(missing);
  g_free(link);
  g_free(secret);
  g_free(out);
  g_free(ws);
}
END_TEST

/* A PDF whose single page holds n text operations: poppler takes about a second for 400,000. */
static char *write_slow_pdf(const char *dir, int n) {
  GString *ops = g_string_new(NULL), *pdf = g_string_new("%PDF-1.4\n");
  size_t offs[5];
  char *objs[5], *path;

  for (int i = 0; i < n; i++)
    g_string_append_printf(ops, "BT /F1 1 Tf %d %d Td (x) Tj ET\n", i % 600, (i / 600) % 800);
  objs[0] = g_strdup("<< /Type /Catalog /Pages 2 0 R >>");
  objs[1] = g_strdup("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  objs[2] = g_strdup("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
                     "/Resources << /Font << /F1 5 0 R >> >> >>");
  objs[3] = g_strdup_printf("<< /Length %zu >>\nstream\n%s\nendstream", ops->len, ops->str);
  objs[4] = g_strdup("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (int i = 0; i < 5; i++) {
    offs[i] = pdf->len;
    g_string_append_printf(pdf, "%d 0 obj\n%s\nendobj\n", i + 1, objs[i]);
    g_free(objs[i]);
  }
  size_t xref = pdf->len;
  g_string_append(pdf, "xref\n0 6\n0000000000 65535 f \n");
  for (int i = 0; i < 5; i++)
    g_string_append_printf(pdf, "%010zu 00000 n \n", offs[i]);
  g_string_append_printf(pdf, "trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%zu\n%%%%EOF\n",
                         xref);
  path = rd_write_file(dir, "slow.pdf", pdf->str, pdf->len);
  g_string_free(ops, TRUE);
  g_string_free(pdf, TRUE);
  return path;
}

/* An SVG of blurred rectangles on a large canvas: rendering it costs many seconds of CPU. */
static char *write_costly_svg(const char *dir, int rects) {
  GString *s = g_string_new("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4000\" "
                            "height=\"4000\">\n<filter id=\"b\"><feGaussianBlur "
                            "stdDeviation=\"40\"/></filter>\n");
  char *path;

  for (int i = 0; i < rects; i++)
    g_string_append_printf(s,
                           "<rect x=\"%d\" y=\"%d\" width=\"3000\" height=\"3000\" "
                           "fill=\"#%06x\" filter=\"url(#b)\"/>\n",
                           i * 3 % 1000, i * 7 % 1000, (unsigned)(i * 2654435) % 0xffffffu);
  g_string_append(s, "</svg>\n");
  path = rd_write_file(dir, "costly.svg", s->str, s->len);
  g_string_free(s, TRUE);
  return path;
}

/* n copies of one path as a read's params, each item with `extra` members (or none). */
static char *same_paths_params(const char *path, int n, const char *extra) {
  char *q = rd_json_quote(path);
  GString *params = g_string_new("{\"paths\":[");

  for (int i = 0; i < n; i++) {
    if (extra != NULL)
      g_string_append_printf(params, "%s{\"path\":%s,%s}", i ? "," : "", q, extra);
    else
      g_string_append_printf(params, "%s%s", i ? "," : "", q);
  }
  g_string_append(params, "]}");
  g_free(q);
  return g_string_free(params, FALSE);
}

/* Requests whose files keep blocking slots busy (32 PDFs that take poppler a second each, 32
 * SVGs that take librsvg far longer) leave threads for other clients: a one-file read on
 * another connection is answered at once, long before even one of those files could be done,
 * and cancelling them stops their work. */
START_TEST(daemon_slow_pdfs_do_not_starve_others) {
  char *pdf = write_slow_pdf(dmn->dir, 400000);
  char *svg = write_costly_svg(dmn->dir, 200);
  char *pdf_params = same_paths_params(pdf, 32, NULL);
  char *svg_params = same_paths_params(svg, 32, "\"render\":true");
  RdConn *pdfs = rd_conn_new(dmn->sock);
  RdConn *svgs = rd_conn_new(dmn->sock);
  RdConn *small = rd_conn_new(dmn->sock);
  char *text = rd_write_str(dmn->dir, "starve.txt", "one line\n");
  char *qtext = rd_json_quote(text);
  char *small_params = g_strdup_printf("{\"paths\":[%s]}", qtext);
  g_free(qtext);
  char *kp = rd_conn_request(pdfs, "read", pdf_params, "\"pdfs\"");
  char *ks = rd_conn_request(svgs, "read", svg_params, "\"svgs\"");
  g_usleep(300000); /* the PDFs and SVGs are being read */
  for (int i = 0; i < 5; i++) {
    gint64 t0 = g_get_monotonic_time();
    char *sk = rd_conn_request(small, "read", small_params, NULL);
    RdResult *res = rd_result_new(rd_conn_wait(small, sk, RD_TIMEOUT_MS));
    gint64 waited_ms = (g_get_monotonic_time() - t0) / 1000;
    /* A liveness bound, far above the milliseconds it takes (bench/bench-fairness.py measures
     * it): before the scheduler, such a read waited for a PDF's 20 s budget. */
    ck_assert_msg(waited_ms < 1000,
                  "a one-file read waited %" G_GINT64_FORMAT " ms behind slow PDFs and SVGs",
                  waited_ms);
    ck_assert_int_eq(rd_file_int(res, 0, "lines"), 1);
    rd_result_free(res);
    g_free(sk);
  }
  char *line = NULL;
  ck_assert_msg(rd_conn_recv_line(pdfs, 0, &line) == -ETIMEDOUT, "the slow PDFs were done first");
  ck_assert_msg(rd_conn_recv_line(svgs, 0, &line) == -ETIMEDOUT, "the SVGs were done first");
  /* Cancelling stops them: the PDFs' workers are killed at once. */
  rd_conn_notify(pdfs, "$/cancelRequest", "{\"id\":\"pdfs\"}");
  JsonNode *m = rd_conn_wait(pdfs, kp, RD_TIMEOUT_MS);
  ck_assert_int_eq(rd_error_code(m), -32800);
  json_node_unref(m);
  rd_conn_notify(svgs, "$/cancelRequest", "{\"id\":\"svgs\"}");
  m = rd_conn_wait(svgs, ks, RD_TIMEOUT_MS);
  json_node_unref(m);
  assert_serves(small);
  g_free(kp);
  g_free(ks);
  g_free(small_params);
  g_free(text);
  rd_conn_free(pdfs);
  rd_conn_free(svgs);
  rd_conn_free(small);
  g_free(pdf_params);
  g_free(svg_params);
  g_free(svg);
  g_free(pdf);
}
END_TEST

/* A client that sends many requests and reads nothing for a while: the daemon keeps serving
 * others, and the client gets every answer once it reads. */
START_TEST(daemon_slow_reader) {
  enum { N = 200 };
  GString *s = g_string_new(NULL);
  for (int i = 0; i < 1500; i++)
    g_string_append_printf(s, "%04d the quick brown fox jumps over the lazy dog, again and again\n",
                           i);
  char *p = rd_write_file(dmn->dir, "big.txt", s->str, s->len);
  GString *reqs = g_string_new(NULL);
  for (int i = 0; i < N; i++)
    g_string_append_printf(reqs,
                           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"read\","
                           "\"params\":{\"paths\":[\"big.txt\"]}}\n",
                           i);
  /* Written straight to the socket, without reading anything meanwhile. */
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  g_strlcpy(sa.sun_path, dmn->sock, sizeof sa.sun_path);
  ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  ck_assert_int_eq(write(fd, reqs->str, reqs->len), (ssize_t)reqs->len);
  g_usleep(300000);
  assert_serves_new_client();
  ck_assert(rd_daemon_alive(dmn));
  RdConn *c = rd_conn_new_fds(fd, fd);
  for (int i = 0; i < N; i++) {
    char *key = g_strdup_printf("n:%d", i);
    RdResult *r = rd_result_new(rd_conn_wait(c, key, RD_TIMEOUT_MS));
    ck_assert_int_eq(rd_file_int(r, 0, "lines"), 1500);
    rd_result_free(r);
    g_free(key);
  }
  rd_conn_free(c);
  g_string_free(reqs, TRUE);
  g_string_free(s, TRUE);
  g_free(p);
}
END_TEST

START_TEST(daemon_exit_without_shutdown) {
  RdConn *c1 = rd_conn_new(dmn->sock);
  RdConn *c2 = rd_conn_new(dmn->sock);
  rd_conn_notify(c1, "exit", NULL);
  ck_assert_msg(rd_conn_wait_closed(c1, RD_TIMEOUT_MS), "exit did not close the connection");
  g_usleep(100000);
  ck_assert(rd_daemon_alive(dmn));
  assert_serves(c2);
  rd_conn_free(c1);
  rd_conn_free(c2);
}
END_TEST

START_TEST(daemon_split_writes) {
  char *p = rd_write_str(dmn->dir, "spl\xc3\xa9t \xe2\x82\xac.txt", "one\ntwo\nthree\n");
  RdConn *c = rd_conn_new(dmn->sock);
  char *q = rd_json_quote(p);
  char *line = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":\"split\",\"method\":\"read\",\"params\":{\"paths\":[%s]}}\n",
      q);
  for (size_t i = 0; line[i]; i++) {
    rd_conn_send(c, &line[i], 1);
    g_usleep(300);
  }
  RdResult *r = rd_result_new(rd_conn_wait(c, "s:split", RD_TIMEOUT_MS));
  assert_whole_text(r, 0, p);
  rd_result_free(r);
  g_free(line);
  g_free(q);
  g_free(p);
  rd_conn_free(c);
}
END_TEST

START_TEST(daemon_two_requests_one_write) {
  char *a = rd_write_str(dmn->dir, "one.txt", "first file\n");
  char *b = rd_write_str(dmn->dir, "two.txt", "second file\nhas two lines\n");
  char *cc = rd_write_str(dmn->dir, "three.txt", "x\ny\nz\n");
  RdConn *c = rd_conn_new(dmn->sock);
  const char *lines =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[\"one.txt\"]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":[\"two.txt\"]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read\",\"params\":{\"paths\":[\"thr";
  rd_conn_send_str(c, lines);
  RdResult *r1 = rd_result_new(rd_conn_wait(c, "n:1", RD_TIMEOUT_MS));
  RdResult *r2 = rd_result_new(rd_conn_wait(c, "n:2", RD_TIMEOUT_MS));
  /* The third request, cut in the middle, completes with the next write. */
  char *nothing = NULL;
  ck_assert_int_eq(rd_conn_recv_line(c, 200, &nothing), -ETIMEDOUT);
  rd_conn_send_str(c, "ee.txt\"]}}\n");
  RdResult *r3 = rd_result_new(rd_conn_wait(c, "n:3", RD_TIMEOUT_MS));
  ck_assert_int_eq(rd_file_int(r1, 0, "lines"), 1);
  ck_assert_int_eq(rd_file_int(r2, 0, "lines"), 2);
  ck_assert_int_eq(rd_file_int(r3, 0, "lines"), 3);
  char **t = rd_text_lines(r2, 0);
  ck_assert_str_eq(t[1], "     2\thas two lines");
  g_strfreev(t);
  rd_result_free(r1);
  rd_result_free(r2);
  rd_result_free(r3);
  rd_conn_free(c);
  g_free(a);
  g_free(b);
  g_free(cc);
}
END_TEST

START_TEST(daemon_socket_mode) {
  struct stat st;
  ck_assert_int_eq(lstat(dmn->sock, &st), 0);
  ck_assert_msg(S_ISSOCK(st.st_mode), "%s is not a socket", dmn->sock);
  ck_assert_msg((st.st_mode & 07777) == 0600, "socket mode is %o, not 600", st.st_mode & 07777);
  ck_assert_int_eq(st.st_uid, geteuid());
}
END_TEST

/* Leaves a socket file nobody listens on, as a killed daemon would. */
static void make_stale_socket(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  g_strlcpy(sa.sun_path, path, sizeof sa.sun_path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(fd, 0);
  ck_assert_msg(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind: %s", g_strerror(errno));
  ck_assert_int_eq(listen(fd, 4), 0);
  close(fd);
  ck_assert_int_eq(rd_socket_connect(path, 0), -ECONNREFUSED);
}

START_TEST(daemon_stale_socket_replaced) {
  char *dir = rd_tmpdir();
  char *sock = g_build_filename(dir, "s.sock", NULL);
  make_stale_socket(sock);
  dmn = rd_daemon_start_at(dir, sock);
  assert_serves_new_client();
  rd_daemon_stop(dmn);
  rd_daemon_free(dmn);
  dmn = NULL;
  rd_rmtree(dir);
  g_free(sock);
  g_free(dir);
}
END_TEST

START_TEST(daemon_second_instance_refused) {
  struct stat before, after;
  ck_assert_int_eq(lstat(dmn->sock, &before), 0);
  char *log = g_build_filename(dmn->dir, "second.log", NULL);
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_int_ge(fd, 0);
  const char *argv[] = {rd_readerd(), "serve", "--socket", dmn->sock, NULL};
  GPid pid = rd_spawn(dmn->dir, argv, -1, fd, fd);
  close(fd);
  int st;
  if (!rd_wait_pid(pid, RD_TIMEOUT_MS, &st)) {
    kill(pid, SIGKILL);
    rd_wait_pid(pid, RD_TIMEOUT_MS, NULL);
    ck_abort_msg("a second daemon on a live socket did not exit");
  }
  ck_assert_msg(rd_exit_code(st) > 0, "a second daemon on a live socket exited with %d",
                rd_exit_code(st));
  char *msg = rd_read_file(log, NULL);
  ck_assert_msg(*msg, "the second daemon exited without saying why");
  g_free(msg);
  ck_assert_int_eq(lstat(dmn->sock, &after), 0);
  ck_assert_msg(before.st_ino == after.st_ino, "the second daemon replaced the live socket file");
  assert_serves_new_client();
  g_free(log);
}
END_TEST

START_TEST(daemon_sigterm_with_clients) {
  RdConn *idle = rd_conn_new(dmn->sock);
  RdConn *busy = rd_conn_new(dmn->sock);
  char **files = make_files("term", 100);
  char *arr = repeat_paths_json(files, 100, 2000);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  char *k = rd_conn_request(busy, "read", params, NULL);
  assert_serves(idle);
  rd_daemon_stop(dmn); /* exit 0 within 5 s, socket file removed */
  ck_assert_msg(rd_conn_wait_closed(idle, RD_TIMEOUT_MS), "a client was not disconnected at exit");
  g_free(k);
  g_free(params);
  g_free(arr);
  g_strfreev(files);
  rd_conn_free(idle);
  rd_conn_free(busy);
}
END_TEST

START_TEST(daemon_sigint_removes_socket) {
  assert_serves_new_client();
  ck_assert_int_eq(kill(dmn->pid, SIGINT), 0);
  int st;
  ck_assert_msg(rd_wait_pid(dmn->pid, RD_TIMEOUT_MS, &st), "no exit after SIGINT");
  dmn->running = false;
  ck_assert_int_eq(rd_exit_code(st), 0);
  struct stat sb;
  ck_assert_msg(lstat(dmn->sock, &sb) < 0 && errno == ENOENT,
                "the socket file is left after SIGINT");
}
END_TEST

/* Runs `readerd serve --socket sock`, which must fail at start: exit > 0, saying
 * why (with `want` in the message when not NULL). */
static void assert_serve_refused(const char *dir, const char *sock, const char *want) {
  const char *argv[] = {rd_readerd(), "serve", "--socket", sock, NULL};
  RdRun o;
  rd_run(dir, argv, NULL, 0, RD_TIMEOUT_MS, &o);
  ck_assert_msg(o.code > 0, "serve --socket %.80s... exited %d", sock, o.code);
  ck_assert_msg(*g_strstrip(o.err), "serve --socket %.80s... failed without a message", sock);
  ck_assert_msg(want == NULL || strstr(o.err, want) != NULL,
                "serve --socket %.80s... said '%s', not '%s'", sock, o.err, want);
  rd_run_clear(&o);
}

START_TEST(daemon_bad_socket_paths) {
  char *dir = rd_tmpdir();
  /* A regular file where the socket should go is not the daemon's to remove. */
  char *file = rd_write_str(dir, "precious.txt", "keep me\n");
  assert_serve_refused(dir, file, NULL);
  char *kept = rd_read_file(file, NULL);
  ck_assert_str_eq(kept, "keep me\n");
  g_free(kept);
  /* A folder that does not exist, a path longer than a socket address holds. */
  char *missing = g_build_filename(dir, "no", "such", NULL);
  char *nodir = g_build_filename(missing, "s.sock", NULL);
  char *want = g_strdup_printf("no such folder: %s", missing);
  assert_serve_refused(dir, nodir, want);
  GString *longp = g_string_new(dir);
  while (longp->len < 200)
    g_string_append(longp, "/abcdefghij");
  g_string_append(longp, "/s.sock");
  assert_serve_refused(dir, longp->str, "longer than");
  g_string_free(longp, TRUE);
  g_free(want);
  g_free(nodir);
  g_free(missing);
  g_free(file);
  rd_rmtree(dir);
  g_free(dir);
}
END_TEST

/* An abstract socket has no file mode: any user could connect to it. */
START_TEST(daemon_abstract_socket_refused) {
  char *dir = rd_tmpdir();
  assert_serve_refused(dir, "", "abstract");
  assert_serve_refused(dir, "@readerd-test", "abstract");
  /* Nothing listens on that abstract name afterwards. */
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  memcpy(sa.sun_path + 1, "readerd-test", strlen("readerd-test"));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_lt(
      connect(fd, (struct sockaddr *)&sa,
              (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen("readerd-test"))),
      0);
  close(fd);
  /* Nor was "@readerd-test" taken as a file name in the working folder. */
  char *at = g_build_filename(dir, "@readerd-test", NULL);
  struct stat sb;
  ck_assert_msg(lstat(at, &sb) < 0, "a socket file named @readerd-test was made");
  g_free(at);
  rd_rmtree(dir);
  g_free(dir);
}
END_TEST

/* A folder others may write to, or a symlink to a folder, is not a place to listen. */
START_TEST(daemon_shared_socket_folder_refused) {
  char *dir = rd_tmpdir();
  char *shared = g_build_filename(dir, "shared", NULL);
  char *sock = g_build_filename(shared, "s.sock", NULL);
  ck_assert_int_eq(mkdir(shared, 0700), 0);
  ck_assert_int_eq(chmod(shared, 0777), 0);
  assert_serve_refused(dir, sock, "writable by others");
  struct stat sb;
  ck_assert_msg(lstat(sock, &sb) < 0 && errno == ENOENT, "a socket was made in a shared folder");
  ck_assert_int_eq(chmod(shared, 0700), 0);
  char *link = g_build_filename(dir, "link", NULL);
  char *link_sock = g_build_filename(link, "s.sock", NULL);
  ck_assert_int_eq(symlink(shared, link), 0);
  assert_serve_refused(dir, link_sock, "symlink");
  /* The same folder, private, is fine. */
  dmn = rd_daemon_start_at(dir, sock);
  assert_serves_new_client();
  rd_daemon_stop(dmn);
  rd_daemon_free(dmn);
  dmn = NULL;
  g_free(link_sock);
  g_free(link);
  g_free(sock);
  g_free(shared);
  rd_rmtree(dir);
  g_free(dir);
}
END_TEST

/* n WebP files in dir that gdk-pixbuf's loader complains about in GLib criticals: a VP8X
 * header announcing an animation and no frame. Paths g_strfreev. */
static char **make_damaged_webps(const char *dir, int n) {
  char **paths = g_new0(char *, n + 1);
  for (int i = 0; i < n; i++) {
    unsigned char b[30] = "RIFF\x16\0\0\0WEBPVP8X\x0a\0\0\0\x02";
    int side = 15 + i;
    b[24] = (unsigned char)side;
    b[25] = (unsigned char)(side >> 8);
    b[27] = (unsigned char)side;
    b[28] = (unsigned char)(side >> 8);
    char *name = g_strdup_printf("damaged%03d.webp", i);
    paths[i] = rd_write_file(dir, name, b, sizeof b);
    g_free(name);
  }
  return paths;
}

/* Reads the damaged files; each is answered with a per-file error. */
static void assert_damaged_refused(RdConn *c, char **paths, int n) {
  RdResult *r = rd_read_paths(c, (const char *const *)paths, (size_t)n, NULL);
  ck_assert_int_eq(json_array_get_length(r->files), n);
  for (int i = 0; i < n; i++)
    ck_assert_msg(rd_file_str(r, (guint)i, "code") != NULL, "%s was read as an image", paths[i]);
  rd_result_free(r);
}

/* Everything readable from fd now (non-blocking), appended to out. */
static void drain_fd(int fd, GString *out) {
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    g_string_append_len(out, buf, n);
}

/* An editor that never reads the daemon's stderr: the pipe is full from the start, and the
 * daemon, logging at debug level with library criticals on every damaged image, still serves
 * (log lines are dropped, never waited for) and says later how many it dropped. */
START_TEST(daemon_stderr_never_drained) {
  int p[2];
  ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
  fcntl(p[1], F_SETPIPE_SZ, 4096);
  char fill[4096];
  memset(fill, 'x', sizeof fill);
  while (write(p[1], fill, sizeof fill) > 0)
    ;
  /* The daemon gets a blocking descriptor, as an editor's pipe is. */
  ck_assert_int_eq(fcntl(p[1], F_SETFL, 0), 0);
  g_setenv("READERD_LOG", "debug", TRUE);
  dmn = rd_daemon_start_stderr(p[1]);
  g_unsetenv("READERD_LOG");
  close(p[1]);

  char **paths = make_damaged_webps(dmn->dir, 300);
  RdConn *c = rd_conn_new(dmn->sock);
  assert_damaged_refused(c, paths, 300);
  rd_conn_free(c);
  assert_serves_new_client();

  GString *err = g_string_new(NULL);
  drain_fd(p[0], err);
  ck_assert_msg(strspn(err->str, "x") == err->len, "a log line got in while stderr was full");
  g_string_truncate(err, 0);
  rd_daemon_stop(dmn);
  drain_fd(p[0], err);
  ck_assert_msg(strstr(err->str, "log lines suppressed") != NULL,
                "the dropped lines are not reported: '%s'", err->str);
  close(p[0]);
  rd_daemon_free(dmn);
  dmn = NULL;
  g_strfreev(paths);
  g_string_free(err, TRUE);
}
END_TEST

/* Library messages go through readerd's logger and its rate limit, in the daemon and in the
 * worker processes that decode pictures (where they are debug lines: the file's error says what
 * went wrong): hundreds of criticals give each process at most a burst of lines plus the rate,
 * all in readerd's form. */
START_TEST(daemon_library_logs_rate_limited) {
  int64_t start = g_get_monotonic_time();
  g_setenv("READERD_LOG", "debug", TRUE);
  dmn = rd_daemon_start();
  g_unsetenv("READERD_LOG");
  char **paths = make_damaged_webps(dmn->dir, 300);
  RdConn *c = rd_conn_new(dmn->sock);
  assert_damaged_refused(c, paths, 300);
  rd_conn_free(c);
  rd_daemon_stop(dmn);
  double secs = (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
  char *log = rd_daemon_log(dmn);
  char **lines = g_strsplit(log, "\n", -1);
  guint n = g_strv_length(lines);
  GHashTable *per_pid = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  ck_assert_msg(strstr(log, "GdkPixbuf") != NULL, "gdk-pixbuf's criticals are not logged");
  ck_assert_msg(strstr(log, "** (process") == NULL && strstr(log, "-CRITICAL **") == NULL,
                "GLib wrote to stderr on its own");
  for (guint i = 0; i + 1 < n; i++) {
    ck_assert_msg(g_str_has_prefix(lines[i], "readerd["), "a log line not in readerd's form: %s",
                  lines[i]);
    char *pid = g_strndup(lines[i], strcspn(lines[i], "]"));
    guint k = GPOINTER_TO_UINT(g_hash_table_lookup(per_pid, pid)) + 1;
    ck_assert_msg(k <= 100 + 20 * secs + 4, "%s: over %u log lines in %.1f s: not rate-limited",
                  pid, k, secs);
    g_hash_table_replace(per_pid, pid, GUINT_TO_POINTER(k));
  }
  /* A worker reads at most 32 files, so its own lines stay under the burst here: the rate limit
   * itself is tested in-process (test-log). */
  g_hash_table_unref(per_pid);
  g_strfreev(lines);
  g_free(log);
  g_strfreev(paths);
  rd_daemon_free(dmn);
  dmn = NULL;
}
END_TEST

/* ---------------------------------------------------------------- memory for the daemon */

#define GO_SRC "/usr/share/go-1.19/src"
#define MEM_READS 3 /* pipelined by each client */

static void collect_go(const char *dir, GPtrArray *out) {
  GDir *d = g_dir_open(dir, 0, NULL);
  if (d == NULL)
    return;
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL) {
    char *path = g_build_filename(dir, name, NULL);
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
      collect_go(path, out);
    else if (S_ISREG(sb.st_mode) && g_str_has_suffix(name, ".go"))
      g_ptr_array_add(out, g_strdup(path));
    g_free(path);
  }
  g_dir_close(d);
}

static int cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A field of /proc/PID/status in KiB (VmRSS, VmHWM). */
static int64_t proc_status_kib(GPid pid, const char *field) {
  char *path = g_strdup_printf("/proc/%d/status", (int)pid);
  char *text = rd_read_file(path, NULL);
  char *at = strstr(text, field);
  ck_assert_msg(at != NULL, "no %s in %s", field, path);
  int64_t v = g_ascii_strtoll(at + strlen(field) + 1, NULL, 10);
  g_free(text);
  g_free(path);
  return v;
}

/* CPU time the process used so far, in clock ticks. */
static int64_t proc_cpu_ticks(GPid pid) {
  char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
  char *text = rd_read_file(path, NULL);
  char *p = strrchr(text, ')');
  ck_assert_ptr_nonnull(p);
  char **f = g_strsplit(p + 2, " ", -1);
  /* utime and stime are fields 14 and 15; f[0] is field 3. */
  int64_t t = g_ascii_strtoll(f[11], NULL, 10) + g_ascii_strtoll(f[12], NULL, 10);
  g_strfreev(f);
  g_free(text);
  g_free(path);
  return t;
}

/* Sends what the socket takes of data without waiting: a client that writes its requests and
 * then never reads. What the daemon does not read stays in the kernel. */
static void send_what_fits(int fd, const GString *data) {
  for (size_t off = 0; off < data->len;) {
    ssize_t n = send(fd, data->str + off, data->len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    ck_assert_msg(n > 0, "send: %s", g_strerror(errno));
    off += (size_t)n;
  }
}

/* n_clients clients each pipeline MEM_READS reads of n_files Go files and never read an
 * answer: the daemon's memory grows by less than bound_mib (docs/protocol.md, "Memory for the
 * whole daemon"), another client is answered meanwhile, and the daemon serves on once they
 * are gone. */
static void memory_case(int n_clients, unsigned n_files, int64_t bound_mib) {
  if (access(GO_SRC, R_OK) != 0) {
    printf("SKIP: %d clients that never read: %s is missing (install golang-1.19-src)\n",
           n_clients, GO_SRC);
    return;
  }
  GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
  collect_go(GO_SRC, all);
  g_ptr_array_sort(all, cmp_str);
  ck_assert_uint_ge(all->len, n_files);
  char *arr = rd_json_paths((const char *const *)all->pdata, n_files);
  dmn = rd_daemon_start();

  /* One answer's size, from a client that reads it. */
  RdConn *reader = rd_conn_new(dmn->sock);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  char *key = rd_conn_request(reader, "read", params, NULL);
  JsonNode *m = rd_conn_wait(reader, key, 60000);
  char *text = json_to_string(m, FALSE);
  int64_t answer = (int64_t)strlen(text);
  g_free(text);
  json_node_unref(m);
  g_free(key);
  rd_conn_free(reader);
  int64_t base = proc_status_kib(dmn->pid, "VmRSS:") * 1024;

  GString *reqs = g_string_new(NULL);
  for (int i = 0; i < MEM_READS; i++)
    g_string_append_printf(reqs,
                           "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"read\","
                           "\"params\":{\"paths\":%s}}\n",
                           i, arr);
  int *fds = g_new(int, n_clients);
  for (int k = 0; k < n_clients; k++) {
    fds[k] = rd_socket_connect(dmn->sock, 10000);
    ck_assert_int_ge(fds[k], 0);
    send_what_fits(fds[k], reqs);
  }

  /* Another client is answered, whatever the others hold. */
  int64_t t0 = g_get_monotonic_time();
  RdConn *probe = rd_conn_new(dmn->sock);
  assert_serves(probe);
  double probe_s = (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
  ck_assert_msg(probe_s < 30, "a one-file read took %.1f s while others were not reading", probe_s);

  /* Until the daemon is idle (no CPU time for 2 s), its memory stays under the bound. */
  int64_t bound = base + bound_mib * 1048576;
  int64_t peak = 0, last_cpu = -1, idle_since = g_get_monotonic_time();
  int64_t settle_s = 120;
#ifdef RD_RSS_UNRELIABLE
  /* A sanitizer's shadow and quarantine grow with what is used: only liveness counts here. And
   * ThreadSanitizer reads the files many times slower. */
  bound = INT64_MAX;
  settle_s = 400;
  printf("sanitizer build: the memory bound is not checked\n");
#endif
  int64_t deadline = g_get_monotonic_time() + settle_s * G_USEC_PER_SEC;
  while (g_get_monotonic_time() < deadline) {
    int64_t rss = proc_status_kib(dmn->pid, "VmRSS:") * 1024;
    int64_t cpu = proc_cpu_ticks(dmn->pid);
    peak = MAX(peak, rss);
    ck_assert_msg(rss <= bound,
                  "VmRSS %" G_GINT64_FORMAT " MiB is over the bound of %" G_GINT64_FORMAT
                  " MiB (base %" G_GINT64_FORMAT " MiB, answers of %" G_GINT64_FORMAT " MiB)",
                  rss >> 20, bound >> 20, base >> 20, answer >> 20);
    if (cpu != last_cpu)
      idle_since = g_get_monotonic_time();
    else if (g_get_monotonic_time() - idle_since > 2 * G_USEC_PER_SEC)
      break;
    last_cpu = cpu;
    g_usleep(100000);
  }
  ck_assert_msg(g_get_monotonic_time() < deadline, "the daemon did not settle within %d s",
                (int)settle_s);
  int64_t hwm = proc_status_kib(dmn->pid, "VmHWM:") * 1024;
  printf("%d clients that never read, %u files a read (answers of %" G_GINT64_FORMAT
         " KiB): VmRSS base %" G_GINT64_FORMAT " MiB, peak %" G_GINT64_FORMAT
         " MiB, VmHWM %" G_GINT64_FORMAT " MiB\n",
         n_clients, n_files, answer >> 10, base >> 20, peak >> 20, hwm >> 20);
  ck_assert_msg(hwm <= bound,
                "VmHWM %" G_GINT64_FORMAT " MiB is over the bound of %" G_GINT64_FORMAT " MiB",
                hwm >> 20, bound >> 20);
  /* Some of their reads ran, and their answers are held for them. */
  ck_assert_msg(peak >= base + answer, "peak %" G_GINT64_FORMAT " MiB: the reads did not run",
                peak >> 20);
  /* A client that reads is answered while the others still hold the daemon's room: a
   * one-file read, and as large a read as theirs. */
  assert_serves(probe);
  key = rd_conn_request(probe, "read", params, NULL);
  m = rd_conn_wait(probe, key, 120000);
  ck_assert_msg(m != NULL && rd_error_code(m) == 0, "the large read of a client that reads failed");
  json_node_unref(m);
  g_free(key);

  for (int k = 0; k < n_clients; k++)
    close(fds[k]);
  assert_serves(probe);
  rd_conn_free(probe);
  assert_serves_new_client();
  rd_daemon_stop(dmn);
  rd_daemon_free(dmn);
  dmn = NULL;
  g_free(fds);
  g_string_free(reqs, TRUE);
  g_free(params);
  g_free(arr);
  g_ptr_array_free(all, TRUE);
}

/* Ten clients, three pipelined 2,000-file reads each: the daemon grows by less than 256 MiB. */
START_TEST(daemon_memory_bounded_for_non_reading_clients) {
  memory_case(10, 2000, 256);
}
END_TEST

/* A hundred such clients: less than 512 MiB. */
START_TEST(daemon_memory_bounded_for_a_hundred_clients) {
  memory_case(100, 500, 512);
}
END_TEST

static Suite *daemon_suite(void) {
  Suite *s = suite_create("daemon");
  TCase *tc = tcase_create("protocol");
  tcase_add_checked_fixture(tc, daemon_setup, daemon_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, daemon_initialize);
  tcase_add_test(tc, daemon_initialize_root_must_be_folder);
  tcase_add_test(tc, daemon_pipelining);
  tcase_add_test(tc, daemon_initialize_then_read_one_write);
  tcase_add_test(tc, daemon_long_lines_keep_order);
  tcase_add_test(tc, daemon_long_line_client_goes);
  tcase_add_test(tc, daemon_concurrent_clients);
  tcase_add_test(tc, daemon_bad_json);
  tcase_add_test(tc, daemon_half_close_answers);
  tcase_add_test(tc, daemon_waiting_reads);
  tcase_add_test(tc, daemon_invalid_request);
  tcase_add_test(tc, daemon_unknown_method);
  tcase_add_test(tc, daemon_invalid_params);
  tcase_add_test(tc, daemon_notifications_unanswered);
  tcase_add_test(tc, daemon_oversized_line);
  tcase_add_test(tc, daemon_disconnect_mid_request);
  tcase_add_test(tc, daemon_cancel);
  tcase_add_test(tc, daemon_client_churn);
  tcase_add_test(tc, daemon_shutdown_exit);
  tcase_add_test(tc, daemon_exit_without_shutdown);
  tcase_add_test(tc, daemon_shutdown_answers_pending);
  tcase_add_test(tc, daemon_requests_interleave);
  tcase_add_test(tc, daemon_slow_pdfs_do_not_starve_others);
  tcase_add_test(tc, daemon_workspace_fence);
  tcase_add_test(tc, daemon_slow_reader);
  tcase_add_test(tc, daemon_split_writes);
  tcase_add_test(tc, daemon_two_requests_one_write);
  tcase_add_test(tc, daemon_socket_mode);
  tcase_add_test(tc, daemon_second_instance_refused);
  tcase_add_test(tc, daemon_sigterm_with_clients);
  tcase_add_test(tc, daemon_sigint_removes_socket);
  suite_add_tcase(s, tc);

  TCase *bare = tcase_create("start-up");
  tcase_set_timeout(bare, 60);
  tcase_add_test(bare, daemon_stale_socket_replaced);
  tcase_add_test(bare, daemon_bad_socket_paths);
  tcase_add_test(bare, daemon_abstract_socket_refused);
  tcase_add_test(bare, daemon_shared_socket_folder_refused);
  suite_add_tcase(s, bare);

  TCase *logs = tcase_create("logs");
  tcase_set_timeout(logs, 120);
  tcase_add_test(logs, daemon_stderr_never_drained);
  tcase_add_test(logs, daemon_library_logs_rate_limited);
  suite_add_tcase(s, logs);

  TCase *mem = tcase_create("memory");
  tcase_set_timeout(mem, 540);
  tcase_add_test(mem, daemon_memory_bounded_for_non_reading_clients);
  tcase_add_test(mem, daemon_memory_bounded_for_a_hundred_clients);
  suite_add_tcase(s, mem);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(daemon_suite());
}
