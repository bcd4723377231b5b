/* Integration tests of what the daemon answers per file: metadata, every per-file error, odd
 * names, offsets and limits, encodings, XML safety, images, a real source tree, relative paths.
 * Expected values are computed here from the files on disk, never taken from the daemon. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

#define PIXBUF_DIR "/usr/libexec/installed-tests/gdk-pixbuf"
#define GO_SRC "/usr/share/go-1.19/src"

static RdDaemon *dmn;
static RdConn *conn;

static void files_setup(void) {
  rd_fixture_setup(&dmn, &conn);
}

static void files_teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

static RdResult *read1(const char *path, const char *extra) {
  const char *paths[] = {path};
  return rd_read_paths(conn, paths, 1, extra);
}

static void assert_no_code(RdResult *r, guint i) {
  ck_assert_msg(rd_file_str(r, i, "code") == NULL, "%s failed: %s: %s", rd_file_str(r, i, "path"),
                rd_file_str(r, i, "code"), rd_file_str(r, i, "error"));
}

static void assert_code(RdResult *r, guint i, const char *code) {
  const char *got = rd_file_str(r, i, "code");
  ck_assert_msg(g_strcmp0(got, code) == 0, "%s: code %s, expected %s", rd_file_str(r, i, "path"),
                got ? got : "(none)", code);
  ck_assert_msg(rd_file_str(r, i, "error") && *rd_file_str(r, i, "error"), "%s: no error message",
                rd_file_str(r, i, "path"));
}

static void assert_shown(RdResult *r, guint i, int64_t first, int64_t last) {
  JsonArray *a = json_object_get_array_member(rd_file(r, i), "shown");
  ck_assert_msg(a && json_array_get_length(a) == 2, "files[%u].shown is not [first, last]", i);
  ck_assert_int_eq(json_array_get_int_element(a, 0), first);
  ck_assert_int_eq(json_array_get_int_element(a, 1), last);
  char *attr = rd_attr(r, (int)i, "shown");
  char *want = g_strdup_printf("%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, first, last);
  ck_assert_msg(g_strcmp0(attr, want) == 0, "Content shown='%s', expected '%s'", attr ? attr : "",
                want);
  g_free(want);
  g_free(attr);
}

/* The content shown is cat -n of lines [first, last] of the file, then `extra` more lines (a
 * notice) or none when extra is 0. Returns the lines after the numbered ones (g_strfreev). */
static char **assert_numbered_range(RdResult *r, guint i, const char *data, size_t len,
                                    int64_t first, int64_t last) {
  char **all = rd_split_lines(data, len);
  char **want =
      rd_numbered((const char *const *)all + first - 1, (size_t)(last - first + 1), first);
  char **got = rd_text_lines(r, i);
  guint n = (guint)(last - first + 1), total = g_strv_length(got);
  ck_assert_msg(total >= n, "%u lines shown, expected at least %u", total, n);
  /* Split what is shown into the numbered range and what follows it. */
  char **rest = g_new0(char *, total - n + 1);
  for (guint k = n; k < total; k++) {
    rest[k - n] = got[k];
    got[k] = NULL;
  }
  ck_assert_msg(
      rd_lines_equal("numbered range", (const char *const *)got, (const char *const *)want),
      "lines %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT " are not shown as cat -n", first, last);
  g_strfreev(got);
  g_strfreev(want);
  g_strfreev(all);
  return rest;
}

/* ---------------------------------------------------------------- metadata */

START_TEST(files_text_metadata) {
  const char *text = "hello\nworld\nthird line here\n";
  char *p = rd_write_str(dmn->dir, "meta.txt", text);
  /* 2021-03-04T05:06:07.891Z */
  struct timespec ts[2] = {{1614834367, 891000000}, {1614834367, 891000000}};
  ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
  char *q = rd_write_str(dmn->dir, "now.txt", "x\n");
  struct stat st;
  ck_assert_int_eq(stat(p, &st), 0);

  const char *paths[] = {p, q};
  RdResult *r = rd_read_paths(conn, paths, 2, NULL);
  assert_no_code(r, 0);
  ck_assert_str_eq(rd_file_str(r, 0, "path"), p);
  ck_assert_str_eq(rd_file_str(r, 0, "type"), "text");
  ck_assert_int_eq(rd_file_int(r, 0, "bytes"), st.st_size);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), rd_count_lines(text, strlen(text)));
  ck_assert_int_eq(rd_file_int(r, 0, "modified"), 1614834367891LL);
  ck_assert_int_eq(rd_file_int(r, 1, "modified"), rd_mtime_ms(q));
  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "utf-8");
  ck_assert_str_eq(rd_file_str(r, 0, "eol"), "lf");
  ck_assert(!rd_file_true(r, 0, "truncated"));
  assert_shown(r, 0, 1, 3);

  char *mod = rd_attr(r, 0, "modified");
  ck_assert_str_eq(mod, "2021-03-04T05:06:07.891Z");
  char *enc = rd_attr(r, 0, "encoding");
  ck_assert_str_eq(enc, "utf-8");
  char *tot = rd_attr(r, -1, "bytes");
  char *want_tot = g_strdup_printf("%zu", strlen(text) + 2);
  ck_assert_str_eq(tot, want_tot);
  char **rest = assert_numbered_range(r, 0, text, strlen(text), 1, 3);
  ck_assert_msg(rest[0] == NULL, "more than the file is shown: %s", rest[0]);
  g_strfreev(rest);
  rd_result_free(r);

  /* Without line numbers: the lines as they are. */
  r = read1(p, "\"lineNumbers\":false");
  char *t = rd_text(r, 0);
  ck_assert_str_eq(t, text);
  g_free(t);
  rd_result_free(r);
  g_free(want_tot);
  g_free(tot);
  g_free(enc);
  g_free(mod);
  g_free(q);
  g_free(p);
}
END_TEST

/* mtimes far from now: before 1970 (negative epoch milliseconds), and in 2400 (a leap day). */
START_TEST(files_mtime_range) {
  char *old = rd_write_str(dmn->dir, "old.txt", "old\n");
  char *fut = rd_write_str(dmn->dir, "future.txt", "future\n");
  struct timespec t_old[2] = {{-2, 500000000}, {-2, 500000000}}; /* -1.5 s */
  struct timespec t_fut[2] = {{13574606400, 250000000}, {13574606400, 250000000}};
  ck_assert_int_eq(utimensat(AT_FDCWD, old, t_old, 0), 0);
  ck_assert_int_eq(utimensat(AT_FDCWD, fut, t_fut, 0), 0);
  const char *paths[] = {old, fut};
  RdResult *r = rd_read_paths(conn, paths, 2, NULL);
  ck_assert_msg(json_object_has_member(rd_file(r, 0), "modified"),
                "a file last changed in 1969 has no modified");
  ck_assert_int_eq(rd_file_int(r, 0, "modified"), -1500);
  ck_assert_int_eq(rd_file_int(r, 1, "modified"), 13574606400250LL);
  char *a = rd_attr(r, 0, "modified");
  ck_assert_str_eq(a, "1969-12-31T23:59:58.500Z");
  g_free(a);
  a = rd_attr(r, 1, "modified");
  ck_assert_str_eq(a, "2400-02-29T12:00:00.250Z");
  g_free(a);
  rd_result_free(r);
  g_free(old);
  g_free(fut);
}
END_TEST

START_TEST(files_line_counts) {
  struct {
    const char *name, *data;
  } cases[] = {
      {"empty.txt", ""},     {"nl.txt", "\n"},           {"three-nl.txt", "\n\n\n"},
      {"noeol.txt", "a\nb"}, {"one.txt", "single line"}, {"blank-mid.txt", "a\n\nb\n"},
  };
  enum { N = G_N_ELEMENTS(cases) };
  char *paths[N];
  for (int i = 0; i < N; i++)
    paths[i] = rd_write_str(dmn->dir, cases[i].name, cases[i].data);
  RdResult *r = rd_read_paths(conn, (const char *const *)paths, N, NULL);
  for (guint i = 0; i < N; i++) {
    size_t len = strlen(cases[i].data);
    assert_no_code(r, i);
    ck_assert_str_eq(rd_file_str(r, i, "type"), "text");
    ck_assert_int_eq(rd_file_int(r, i, "bytes"), (int64_t)len);
    ck_assert_int_eq(rd_file_int(r, i, "lines"), rd_count_lines(cases[i].data, len));
    ck_assert(!rd_file_true(r, i, "truncated"));
    int64_t n = rd_count_lines(cases[i].data, len);
    if (n > 0) {
      char **rest = assert_numbered_range(r, i, cases[i].data, len, 1, n);
      ck_assert_msg(rest[0] == NULL, "%s: more lines than the file has", cases[i].name);
      g_strfreev(rest);
    }
  }
  ck_assert_msg(rd_file_str(r, 4, "eol") == NULL, "a file without a line break has eol %s",
                rd_file_str(r, 4, "eol"));
  rd_result_free(r);
  for (int i = 0; i < N; i++)
    g_free(paths[i]);
}
END_TEST

/* ---------------------------------------------------------------- per-file errors */

static char *bind_socket_file(const char *name) {
  char *p = g_build_filename(dmn->dir, name, NULL);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  g_strlcpy(sa.sun_path, p, sizeof sa.sun_path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  close(fd);
  return p;
}

START_TEST(files_error_codes) {
  char *good = rd_write_str(dmn->dir, "good.txt", "fine\n");
  char *dir = g_build_filename(dmn->dir, "adir", NULL);
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  char *fifo = g_build_filename(dmn->dir, "a.fifo", NULL);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  char *sock = bind_socket_file("other.sock");
  char *missing = g_build_filename(dmn->dir, "missing.txt", NULL);
  char *dangling = g_build_filename(dmn->dir, "dangling.txt", NULL);
  ck_assert_int_eq(symlink("nowhere/at/all", dangling), 0);
  char *link = g_build_filename(dmn->dir, "link.txt", NULL);
  ck_assert_int_eq(symlink(good, link), 0);
  char *dirlink = g_build_filename(dmn->dir, "dirlink", NULL);
  ck_assert_int_eq(symlink(dir, dirlink), 0);
  char *fifolink = g_build_filename(dmn->dir, "fifolink", NULL);
  ck_assert_int_eq(symlink(fifo, fifolink), 0);
  char bin[2048];
  for (size_t i = 0; i < sizeof bin; i++)
    bin[i] = (char)(i & 0xff);
  char *binary = rd_write_file(dmn->dir, "binary.dat", bin, sizeof bin);
  const char nul_text[] = "text with a\0NUL byte\n";
  char *nul = rd_write_file(dmn->dir, "nul.txt", nul_text, sizeof nul_text - 1);

  struct {
    const char *path, *code;
  } cases[] = {
      {missing, "FILE_NOT_FOUND"},
      {dir, "IS_DIRECTORY"},
      {fifo, "NOT_REGULAR_FILE"},
      {"/dev/zero", "NOT_REGULAR_FILE"},
      {"/dev/null", "NOT_REGULAR_FILE"},
      {dmn->sock, "NOT_REGULAR_FILE"},
      {sock, "NOT_REGULAR_FILE"},
      {dangling, "FILE_NOT_FOUND"},
      {dirlink, "IS_DIRECTORY"},
      {fifolink, "NOT_REGULAR_FILE"},
      {binary, "UNSUPPORTED_FORMAT"},
      {nul, "UNSUPPORTED_FORMAT"},
      {link, NULL},
      {good, NULL},
  };
  enum { N = G_N_ELEMENTS(cases) };
  const char *paths[N];
  for (int i = 0; i < N; i++)
    paths[i] = cases[i].path;
  gint64 t0 = g_get_monotonic_time();
  RdResult *r = rd_read_paths(conn, paths, N, NULL);
  gint64 ms = (g_get_monotonic_time() - t0) / 1000;
  ck_assert_msg(ms < 3000, "a read with a FIFO and devices took %" G_GINT64_FORMAT " ms", ms);
  for (guint i = 0; i < N; i++) {
    if (cases[i].code)
      assert_code(r, i, cases[i].code);
    else
      assert_no_code(r, i);
  }
  ck_assert_int_eq(rd_file_int(r, 10, "bytes"), (int64_t)sizeof bin);
  ck_assert_int_eq(rd_file_int(r, 11, "bytes"), (int64_t)sizeof nul_text - 1);
  /* The symlink is read as the file it names, under the name given. */
  ck_assert_str_eq(rd_file_str(r, 12, "path"), link);
  ck_assert_str_eq(rd_file_str(r, 12, "type"), "text");
  ck_assert_int_eq(rd_file_int(r, 12, "lines"), 1);
  char **t = rd_text_lines(r, 12);
  ck_assert_str_eq(t[0], "     1\tfine");
  g_strfreev(t);
  ck_assert_int_eq(json_object_get_int_member(r->result, "bytes"), 10);
  rd_result_free(r);
  ck_assert(rd_daemon_alive(dmn));

  g_free(good), g_free(dir), g_free(fifo), g_free(sock), g_free(missing), g_free(dangling);
  g_free(link), g_free(dirlink), g_free(fifolink), g_free(binary), g_free(nul);
}
END_TEST

START_TEST(files_weird_paths) {
  char *good = rd_write_str(dmn->dir, "good.txt", "the good file\n");
  char *a = g_build_filename(dmn->dir, "loop-a", NULL);
  char *b = g_build_filename(dmn->dir, "loop-b", NULL);
  ck_assert_int_eq(symlink(b, a), 0);
  ck_assert_int_eq(symlink(a, b), 0);
  GString *longp = g_string_new(dmn->dir);
  for (int i = 0; i < 500; i++)
    g_string_append(longp, "/0123456789");
  char *under_file = g_build_filename(good, "below", NULL);
  char *q_good = rd_json_quote(good);
  char *q_loop = rd_json_quote(a);
  char *q_long = rd_json_quote(longp->str);
  char *q_under = rd_json_quote(under_file);
  /* "good.txt\u0000.png": a NUL inside a path must never read good.txt. */
  char *nul_path = g_strdup_printf("%.*s\\u0000.png\"", (int)strlen(q_good) - 1, q_good);
  char *params = g_strdup_printf("{\"paths\":[%s,%s,%s,%s,\"/\",\".\",%s]}", q_loop, q_long,
                                 q_under, nul_path, q_good);
  JsonNode *m = rd_conn_call(conn, "read", params);
  if (rd_error_code(m) != 0) {
    /* Refusing the whole request for the NUL is fine too (invalid params or request); the rest
     * must then still work. */
    ck_assert_msg(rd_error_code(m) == -32602 || rd_error_code(m) == -32600,
                  "a path with a NUL answered error %d", rd_error_code(m));
    json_node_unref(m);
    g_free(params);
    params = g_strdup_printf("{\"paths\":[%s,%s,%s,\"/\",\"/\",\".\",%s]}", q_loop, q_long, q_under,
                             q_good);
    m = rd_conn_call(conn, "read", params);
  }
  RdResult *r = rd_result_new(m);
  for (guint i = 0; i < 3; i++) {
    ck_assert_msg(rd_file_str(r, i, "code"), "%.60s... was read", rd_file_str(r, i, "path"));
    ck_assert_msg(rd_file_str(r, i, "error") && *rd_file_str(r, i, "error"), "no message");
  }
  ck_assert_msg(rd_file_str(r, 3, "code") != NULL, "a path with a NUL in it was read as %s",
                rd_file_str(r, 3, "type"));
  assert_code(r, 4, "IS_DIRECTORY");
  assert_code(r, 5, "IS_DIRECTORY");
  assert_no_code(r, 6);
  ck_assert_int_eq(rd_file_int(r, 6, "lines"), 1);
  rd_result_free(r);
  ck_assert(rd_daemon_alive(dmn));
  g_free(params), g_free(nul_path), g_free(q_good), g_free(q_loop), g_free(q_long);
  g_free(q_under), g_free(under_file), g_free(a), g_free(b), g_free(good);
  g_string_free(longp, TRUE);
}
END_TEST

/* Write-only even for root (a sysctl's mode applies to root too): what root cannot read. */
#define ROOT_DENIED "/proc/sys/vm/drop_caches"

/* True when opening path for reading fails with EACCES for this process. */
static bool denied_to_us(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd >= 0) {
    close(fd);
    return false;
  }
  return errno == EACCES;
}

/* A file or a folder the daemon's user may not read is ACCESS_DENIED. root reads them whatever
 * their mode, so as root the denied file is one that refuses root too. */
START_TEST(files_access_denied) {
  bool root = geteuid() == 0;

  if (root && !denied_to_us(ROOT_DENIED))
    SKIP_CASE("files_access_denied: running as root, which reads any file, and %s (the file "
              "root may not read) is missing or readable: ACCESS_DENIED not checked",
              ROOT_DENIED);
  char *p = rd_write_str(dmn->dir, "secret.txt", "secret\n");
  ck_assert_int_eq(chmod(p, 0), 0);
  char *locked = g_build_filename(dmn->dir, "locked", NULL);
  ck_assert_int_eq(mkdir(locked, 0700), 0);
  char *inner = rd_write_str(dmn->dir, "locked/inner.txt", "inner\n");
  ck_assert_int_eq(chmod(locked, 0), 0);
  const char *paths[] = {p, inner, ROOT_DENIED};
  RdResult *r = rd_read_paths(conn, paths, root ? 3 : 2, NULL);
  if (root) {
    assert_no_code(r, 0);
    assert_no_code(r, 1);
    assert_code(r, 2, "ACCESS_DENIED");
    ck_assert_msg(strstr(rd_file_str(r, 2, "error"), "permission denied") != NULL, "%s: %s",
                  ROOT_DENIED, rd_file_str(r, 2, "error"));
  } else {
    assert_code(r, 0, "ACCESS_DENIED");
    assert_code(r, 1, "ACCESS_DENIED");
  }
  rd_result_free(r);
  chmod(locked, 0700);
  g_free(inner);
  g_free(locked);
  g_free(p);
}
END_TEST

/* ---------------------------------------------------------------- names, order, totals */

START_TEST(files_odd_names) {
  const char *names[] = {
      "with space.txt",
      "quote'single.txt",
      "quote\"double.txt",
      "amp & <lt> >gt.txt",
      "\xc3\xbcn\xc3\xaf c\xc3\xb6\x64\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac.txt", /* \x64: d */
      "new\nline.txt",
      "tab\there.txt",
      "-dash.txt",
      "back\\slash.txt",
      "cr\rname.txt",
      "semi;colon$dollar.txt",
      "]]>cdata.txt",
      "ctl\x01name\x1b.txt",
  };
  enum { N = G_N_ELEMENTS(names) };
  char *paths[N];
  for (int i = 0; i < N; i++) {
    char *content = g_strdup_printf("content of file %d\n", i);
    paths[i] = rd_write_str(dmn->dir, names[i], content);
    g_free(content);
  }
  RdResult *r = rd_read_paths(conn, (const char *const *)paths, N, NULL);
  for (guint i = 0; i < N; i++) {
    assert_no_code(r, i);
    ck_assert_str_eq(rd_file_str(r, i, "path"), paths[i]);
    /* XML cannot carry control characters: the attribute has U+FFFD for them. */
    char *a = rd_attr(r, (int)i, "path");
    char **parts = g_strsplit_set(paths[i], "\x01\x1b", -1);
    char *want_attr = g_strjoinv("\xef\xbf\xbd", parts);
    ck_assert_msg(g_strcmp0(a, want_attr) == 0, "Content path '%s' is not '%s'", a, want_attr);
    g_free(want_attr);
    g_strfreev(parts);
    g_free(a);
    char **t = rd_text_lines(r, i);
    char *want = g_strdup_printf("     1\tcontent of file %u", i);
    ck_assert_str_eq(t[0], want);
    g_free(want);
    g_strfreev(t);
  }
  rd_result_free(r);
  for (int i = 0; i < N; i++)
    g_free(paths[i]);
}
END_TEST

START_TEST(files_order_and_duplicates) {
  const char *a_text = "alpha\nalpha two\n", *b_text = "bravo\n";
  char *a = rd_write_str(dmn->dir, "a.txt", a_text);
  char *b = rd_write_str(dmn->dir, "b.txt", b_text);
  char *m = g_build_filename(dmn->dir, "missing.txt", NULL);
  const char *paths[] = {a, b, m, a, b, a, m};
  enum { N = G_N_ELEMENTS(paths) };
  RdResult *r = rd_read_paths(conn, paths, N, NULL);
  for (guint i = 0; i < N; i++)
    ck_assert_str_eq(rd_file_str(r, i, "path"), paths[i]);
  assert_code(r, 2, "FILE_NOT_FOUND");
  assert_code(r, 6, "FILE_NOT_FOUND");
  int64_t bytes = 3 * (int64_t)strlen(a_text) + 2 * (int64_t)strlen(b_text);
  int64_t lines =
      3 * rd_count_lines(a_text, strlen(a_text)) + 2 * rd_count_lines(b_text, strlen(b_text));
  ck_assert_int_eq(json_object_get_int_member(r->result, "bytes"), bytes);
  ck_assert_int_eq(json_object_get_int_member(r->result, "lines"), lines);
  for (guint i = 0; i < N; i++) {
    if (paths[i] == m)
      continue;
    char **t = rd_text_lines(r, i);
    ck_assert_str_eq(t[0], paths[i] == a ? "     1\talpha" : "     1\tbravo");
    g_strfreev(t);
  }
  rd_result_free(r);
  g_free(a), g_free(b), g_free(m);
}
END_TEST

/* ---------------------------------------------------------------- offsets, limits, caps */

static char *numbered_file(const char *name, int n, size_t *ret_len) {
  GString *s = g_string_new(NULL);
  for (int i = 1; i <= n; i++)
    g_string_append_printf(s, "line %d\n", i);
  char *p = rd_write_file(dmn->dir, name, s->str, s->len);
  *ret_len = s->len;
  g_string_free(s, TRUE);
  return p;
}

/* Some line of `rest` says how many lines were left out and the offset to go on from. */
static void assert_notice(char **rest, int64_t more, int64_t next) {
  char *text = g_strjoinv("\n", rest);
  char *m = g_strdup_printf("%" G_GINT64_FORMAT " more lines not shown", more);
  char *o = g_strdup_printf("offset=%" G_GINT64_FORMAT, next);
  ck_assert_msg(strstr(text, m), "the notice lacks '%s': '%s'", m, text);
  ck_assert_msg(strstr(text, o), "the notice lacks '%s': '%s'", o, text);
  g_free(o);
  g_free(m);
  g_free(text);
}

/* No line of `rest` looks like a numbered file line. */
static void assert_no_numbered(char **rest) {
  for (char **l = rest; *l; l++) {
    size_t k = strspn(*l, " ");
    size_t d = strspn(*l + k, "0123456789");
    ck_assert_msg(!(k + d == 6 && d > 0 && (*l)[6] == '\t'), "a numbered line after the range: %s",
                  *l);
  }
}

START_TEST(files_offset_limit) {
  size_t len;
  char *p = numbered_file("long.txt", 5000, &len);
  char *data = rd_read_file(p, NULL);
  char *q = rd_json_quote(p);

  /* Per path: lines 10 to 14. */
  char *params = g_strdup_printf("{\"paths\":[{\"path\":%s,\"offset\":10,\"limit\":5}]}", q);
  RdResult *r = rd_read(conn, params);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 5000);
  ck_assert(rd_file_true(r, 0, "truncated"));
  assert_shown(r, 0, 10, 14);
  char **rest = assert_numbered_range(r, 0, data, len, 10, 14);
  assert_no_numbered(rest);
  assert_notice(rest, 5000 - 14, 15);
  g_strfreev(rest);
  rd_result_free(r);
  g_free(params);

  /* For the request: the last lines; nothing follows them. */
  params = g_strdup_printf("{\"paths\":[%s],\"offset\":4990,\"limit\":100}", q);
  r = rd_read(conn, params);
  ck_assert(rd_file_true(r, 0, "truncated"));
  assert_shown(r, 0, 4990, 5000);
  rest = assert_numbered_range(r, 0, data, len, 4990, 5000);
  ck_assert_msg(rest[0] == NULL, "something follows the last line: %s", rest[0]);
  g_strfreev(rest);
  rd_result_free(r);
  g_free(params);

  /* A path's own offset with the request's limit; a path's own limit wins. */
  params = g_strdup_printf("{\"paths\":[{\"path\":%s,\"offset\":2},{\"path\":%s,\"limit\":1}],"
                           "\"limit\":3,\"offset\":7}",
                           q, q);
  r = rd_read(conn, params);
  assert_shown(r, 0, 2, 4);
  assert_shown(r, 1, 7, 7);
  rest = assert_numbered_range(r, 0, data, len, 2, 4);
  assert_no_numbered(rest);
  g_strfreev(rest);
  rest = assert_numbered_range(r, 1, data, len, 7, 7);
  assert_no_numbered(rest);
  assert_notice(rest, 5000 - 7, 8);
  g_strfreev(rest);
  rd_result_free(r);
  g_free(params);

  /* The whole file within the limit is not truncated. */
  params = g_strdup_printf("{\"paths\":[%s],\"limit\":5000}", q);
  r = rd_read(conn, params);
  ck_assert(!rd_file_true(r, 0, "truncated"));
  assert_shown(r, 0, 1, 5000);
  rest = assert_numbered_range(r, 0, data, len, 1, 5000);
  ck_assert_msg(rest[0] == NULL, "a notice on a whole file: %s", rest[0]);
  g_strfreev(rest);
  rd_result_free(r);
  g_free(params);

  /* Past the end: not an error, no line shown. */
  params = g_strdup_printf("{\"paths\":[{\"path\":%s,\"offset\":6000}]}", q);
  r = rd_read(conn, params);
  assert_no_code(r, 0);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 5000);
  char **all = rd_text_lines(r, 0);
  assert_no_numbered(all);
  g_strfreev(all);
  rd_result_free(r);
  g_free(params);

  g_free(q);
  g_free(data);
  g_free(p);
}
END_TEST

START_TEST(files_default_limit) {
  size_t len, len2000, len2001;
  char *p = numbered_file("5000.txt", 5000, &len);
  char *p2000 = numbered_file("2000.txt", 2000, &len2000);
  char *p2001 = numbered_file("2001.txt", 2001, &len2001);
  char *data = rd_read_file(p, NULL);
  const char *paths[] = {p, p2000, p2001};
  RdResult *r = rd_read_paths(conn, paths, 3, NULL);

  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 5000);
  ck_assert(rd_file_true(r, 0, "truncated"));
  assert_shown(r, 0, 1, 2000);
  char *tr = rd_attr(r, 0, "truncated");
  ck_assert_str_eq(tr, "true");
  g_free(tr);
  char **rest = assert_numbered_range(r, 0, data, len, 1, 2000);
  assert_no_numbered(rest);
  assert_notice(rest, 3000, 2001);
  g_strfreev(rest);

  ck_assert(!rd_file_true(r, 1, "truncated"));
  assert_shown(r, 1, 1, 2000);
  char **t = rd_text_lines(r, 1);
  ck_assert_int_eq(g_strv_length(t), 2000);
  g_strfreev(t);

  ck_assert(rd_file_true(r, 2, "truncated"));
  assert_shown(r, 2, 1, 2000);
  t = rd_text_lines(r, 2);
  char *joined = g_strjoinv("\n", t + 2000);
  ck_assert_msg(strstr(joined, "offset=2001"), "no way to continue after line 2000: %s", joined);
  g_free(joined);
  g_strfreev(t);

  rd_result_free(r);
  g_free(data), g_free(p), g_free(p2000), g_free(p2001);
}
END_TEST

START_TEST(files_byte_cap) {
  GString *s = g_string_new(NULL);
  for (int i = 1; i <= 3000; i++) {
    g_string_append_printf(s, "%05d ", i);
    for (int k = 0; k < 94; k++)
      g_string_append_c(s, 'w');
    g_string_append_c(s, '\n');
  }
  char *p = rd_write_file(dmn->dir, "wide.txt", s->str, s->len);
  RdResult *r = read1(p, NULL);
  char *text = rd_text(r, 0);
  ck_assert_msg(strlen(text) <= 100 * 1024 + 512, "%zu bytes shown; the cap is 100 KiB",
                strlen(text));
  ck_assert(rd_file_true(r, 0, "truncated"));
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 3000);
  JsonArray *shown = json_object_get_array_member(rd_file(r, 0), "shown");
  ck_assert_ptr_nonnull(shown);
  int64_t last = json_array_get_int_element(shown, 1);
  /* A numbered line here is 108 bytes: the cap allows about 948 of them. */
  ck_assert_msg(last >= 900 && last < 1000, "shown up to line %" G_GINT64_FORMAT, last);
  assert_shown(r, 0, 1, last);
  char **rest = assert_numbered_range(r, 0, s->str, s->len, 1, last);
  assert_no_numbered(rest);
  assert_notice(rest, 3000 - last, last + 1);
  g_strfreev(rest);
  g_free(text);
  rd_result_free(r);
  g_string_free(s, TRUE);
  g_free(p);
}
END_TEST

static char *repeat(const char *unit, int n) {
  GString *s = g_string_new(NULL);
  for (int i = 0; i < n; i++)
    g_string_append(s, unit);
  return g_string_free(s, FALSE);
}

START_TEST(files_long_lines) {
  char *x5000 = repeat("x", 5000), *e3000 = repeat("\xc3\xa9", 3000);
  char *y2000 = repeat("y", 2000), *z2001 = repeat("z", 2001);
  char *x2000 = repeat("x", 2000), *e2000 = repeat("\xc3\xa9", 2000), *z2000 = repeat("z", 2000);
  /* Four bytes a character: 2000 of them are 8000 bytes, and not cut. */
  char *m2000 = repeat("\xf0\x9f\x98\x80", 2000), *m2001 = repeat("\xf0\x9f\x98\x80", 2001);
  char *text =
      g_strdup_printf("%s\nshort\n%s\n%s\n%s\n%s\n%s\n", x5000, e3000, y2000, z2001, m2000, m2001);
  char *p = rd_write_str(dmn->dir, "longlines.txt", text);
  RdResult *r = read1(p, "\"lineNumbers\":false");
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 7);
  char **t = rd_text_lines(r, 0);
  ck_assert_int_ge(g_strv_length(t), 7);
  struct {
    const char *kept;
    int cut;
  } want[] = {{x2000, 3000}, {"short", 0}, {e2000, 1000}, {y2000, 0},
              {z2000, 1},    {m2000, 0},   {m2000, 1}};
  for (int i = 0; i < 7; i++) {
    if (!want[i].cut) {
      ck_assert_msg(strcmp(t[i], want[i].kept) == 0, "line %d changed (%zu bytes)", i + 1,
                    strlen(t[i]));
      continue;
    }
    ck_assert_msg(g_str_has_prefix(t[i], want[i].kept),
                  "line %d does not keep its first 2000 "
                  "characters",
                  i + 1);
    const char *tail = t[i] + strlen(want[i].kept);
    char *marker = g_strdup_printf("[%d more characters cut; continue with offset=%d, column=2001]",
                                   want[i].cut, i + 1);
    ck_assert_msg(strstr(tail, marker), "line %d ends '%.80s', without '%s'", i + 1, tail, marker);
    ck_assert_msg(g_utf8_strlen(tail, -1) < 90, "line %d is not cut at 2000 characters", i + 1);
    ck_assert_msg(tail[0] != want[i].kept[0], "line %d keeps more than 2000 characters", i + 1);
    g_free(marker);
  }
  g_strfreev(t);
  rd_result_free(r);
  g_free(p), g_free(text), g_free(x5000), g_free(e3000), g_free(y2000), g_free(z2001);
  g_free(x2000), g_free(e2000), g_free(z2000), g_free(m2000), g_free(m2001);
}
END_TEST

START_TEST(files_eol) {
  struct {
    const char *name, *data, *eol;
  } cases[] = {
      {"crlf.txt", "first\r\nsecond\r\n", "crlf"},
      {"mixed.txt", "a\r\nb\nc\r\n", "mixed"},
      {"lf.txt", "a\nb\n", "lf"},
      {"crlf-noeol.txt", "a\r\nb", "crlf"},
  };
  enum { N = G_N_ELEMENTS(cases) };
  char *paths[N];
  for (int i = 0; i < N; i++)
    paths[i] = rd_write_str(dmn->dir, cases[i].name, cases[i].data);
  RdResult *r = rd_read_paths(conn, (const char *const *)paths, N, NULL);
  const char *xml = json_object_get_string_member(r->result, "xml");
  ck_assert_msg(!strchr(xml, '\r') && !strstr(xml, "&#13;") && !strstr(xml, "&#xD;") &&
                    !strstr(xml, "&#xd;"),
                "a carriage return reached the XML");
  for (guint i = 0; i < N; i++) {
    size_t len = strlen(cases[i].data);
    assert_no_code(r, i);
    ck_assert_str_eq(rd_file_str(r, i, "eol"), cases[i].eol);
    ck_assert_int_eq(rd_file_int(r, i, "lines"), rd_count_lines(cases[i].data, len));
    char *a = rd_attr(r, (int)i, "eol");
    ck_assert_str_eq(a, cases[i].eol);
    g_free(a);
    int64_t n = rd_count_lines(cases[i].data, len);
    char **rest = assert_numbered_range(r, i, cases[i].data, len, 1, n);
    ck_assert(rest[0] == NULL);
    g_strfreev(rest);
  }
  rd_result_free(r);
  for (int i = 0; i < N; i++)
    g_free(paths[i]);
}
END_TEST

/* ---------------------------------------------------------------- encodings and XML safety */

static char *put_utf16(const char *name, const char *utf8, bool big_endian, size_t *ret_len) {
  gsize n = 0;
  char *conv = g_convert(utf8, -1, big_endian ? "UTF-16BE" : "UTF-16LE", "UTF-8", NULL, &n, NULL);
  ck_assert_ptr_nonnull(conv);
  char *data = g_malloc(n + 2);
  memcpy(data, big_endian ? "\xfe\xff" : "\xff\xfe", 2);
  memcpy(data + 2, conv, n);
  char *p = rd_write_file(dmn->dir, name, data, n + 2);
  *ret_len = n + 2;
  g_free(data);
  g_free(conv);
  return p;
}

START_TEST(files_encodings) {
  const char *uni =
      "h\xc3\xa9llo w\xc3\xb6rld\n\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80\n";
  size_t le_len, be_len;
  char *bom8 = rd_write_str(dmn->dir, "bom8.txt",
                            "\xef\xbb\xbf"
                            "bom line\nsecond\n");
  char *le = put_utf16("le.txt", uni, false, &le_len);
  char *be = put_utf16("be.txt", uni, true, &be_len);
  char *latin1 = rd_write_str(dmn->dir, "latin1.txt",
                              "caf\xe9 cr\xe8me br\xfbl\xe9"
                              "e\n");
  char *cp1252 = rd_write_str(dmn->dir, "cp1252.txt", "price: 5\x80 \x93quoted\x94\n");
  const char *paths[] = {bom8, le, be, latin1, cp1252};
  RdResult *r = rd_read_paths(conn, paths, 5, "\"lineNumbers\":false");
  for (guint i = 0; i < 5; i++)
    assert_no_code(r, i);

  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "utf-8");
  ck_assert(rd_file_true(r, 0, "bom"));
  char *t = rd_text(r, 0);
  ck_assert_str_eq(t, "bom line\nsecond\n");
  g_free(t);
  char *a = rd_attr(r, 0, "bom");
  ck_assert_str_eq(a, "true");
  g_free(a);

  ck_assert_str_eq(rd_file_str(r, 1, "encoding"), "utf-16le");
  ck_assert_str_eq(rd_file_str(r, 2, "encoding"), "utf-16be");
  for (guint i = 1; i <= 2; i++) {
    t = rd_text(r, i);
    ck_assert_str_eq(t, uni);
    g_free(t);
    ck_assert_int_eq(rd_file_int(r, i, "lines"), 2);
  }
  ck_assert_int_eq(rd_file_int(r, 1, "bytes"), (int64_t)le_len);
  ck_assert_int_eq(rd_file_int(r, 2, "bytes"), (int64_t)be_len);

  const char *enc = rd_file_str(r, 3, "encoding");
  ck_assert_msg(g_strcmp0(enc, "iso-8859-1") == 0 || g_strcmp0(enc, "windows-1252") == 0,
                "a Latin-1 file reports encoding %s", enc);
  t = rd_text(r, 3);
  ck_assert_str_eq(t, "caf\xc3\xa9 cr\xc3\xa8me br\xc3\xbbl\xc3\xa9"
                      "e\n");
  g_free(t);

  /* 0x80 and 0x93/0x94 are the euro sign and curly quotes in windows-1252. */
  ck_assert_str_eq(rd_file_str(r, 4, "encoding"), "windows-1252");
  t = rd_text(r, 4);
  ck_assert_str_eq(t, "price: 5\xe2\x82\xac \xe2\x80\x9cquoted\xe2\x80\x9d\n");
  g_free(t);

  rd_result_free(r);
  g_free(bom8), g_free(le), g_free(be), g_free(latin1), g_free(cp1252);
}
END_TEST

/* A bad unit in UTF-16 or UTF-32 is one U+FFFD, as a bad sequence in UTF-8 is: the file is
 * read to its end, never refused as a whole. */
START_TEST(files_wide_bad_units_read_on) {
  static const char lone16[] = "\xff\xfe"
                               "o\0k\0\n\0\x00\xd8"
                               "a\0\n\0l\0a\0s\0t\0\n\0";
  static const char past32[] = "\0\0\xfe\xff\0\0\0x\0\x11\0\0\0\0\0\n\0\0\0y";
  char *p16 = rd_write_file(dmn->dir, "lone-surrogate.txt", lone16, sizeof lone16 - 1);
  char *p32 = rd_write_file(dmn->dir, "past-max.txt", past32, sizeof past32 - 1);
  const char *paths[] = {p16, p32};
  RdResult *r = rd_read_paths(conn, paths, 2, "\"lineNumbers\":false");

  assert_no_code(r, 0);
  assert_no_code(r, 1);
  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "utf-16le");
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 3);
  char *t = rd_text(r, 0);
  ck_assert_str_eq(t, "ok\n\xef\xbf\xbd"
                      "a\nlast\n");
  g_free(t);
  ck_assert_str_eq(rd_file_str(r, 1, "encoding"), "utf-32be");
  ck_assert_int_eq(rd_file_int(r, 1, "lines"), 2);
  t = rd_text(r, 1);
  ck_assert_str_eq(t, "x\xef\xbf\xbd\ny\n");
  g_free(t);
  rd_result_free(r);
  g_free(p16), g_free(p32);
}
END_TEST

/* A UTF-8 file with one stray byte (a Latin-1 letter pasted into a comment, a cut
 * multi-byte character) is still a UTF-8 file: its other characters must not turn into
 * mojibake. */
START_TEST(files_mostly_utf8) {
  const char *text = "// r\xc3\xa9sum\xc3\xa9 of the caf\xc3\xa9 \xe2\x82\xac\n"
                     "int x; // na\xefve comment\n"
                     "\xe6\x97\xa5\xe6\x9c\xac\n";
  char *p = rd_write_str(dmn->dir, "mostly.c", text);
  RdResult *r = read1(p, "\"lineNumbers\":false");
  assert_no_code(r, 0);
  char **t = rd_text_lines(r, 0);
  ck_assert_int_eq(g_strv_length(t), 3);
  ck_assert_msg(strcmp(t[0], "// r\xc3\xa9sum\xc3\xa9 of the caf\xc3\xa9 \xe2\x82\xac") == 0,
                "the UTF-8 line of a file with one stray byte came back as '%s' (encoding %s)",
                t[0], rd_file_str(r, 0, "encoding"));
  ck_assert_str_eq(t[2], "\xe6\x97\xa5\xe6\x9c\xac");
  ck_assert_msg(g_str_has_prefix(t[1], "int x; // na") && g_str_has_suffix(t[1], "ve comment"),
                "the line with the stray byte came back as '%s'", t[1]);
  g_strfreev(t);
  rd_result_free(r);
  g_free(p);
}
END_TEST

START_TEST(files_hostile_xml) {
  const char *text = "a ]]> b\n"
                     "<b>&amp;</b> \"q\" 'a' &#65; <![CDATA[x]]>\n"
                     "ctl:\x01\x02\x08\x0b\x0c\x1b:end\n"
                     "nonchar:\xef\xbf\xbe\xef\xbf\xbf:end\n"
                     "tab\there\n";
  char *p = rd_write_str(dmn->dir, "hostile.txt", text);
  RdResult *r = read1(p, "\"lineNumbers\":false");
  assert_no_code(r, 0);
  char **t = rd_text_lines(r, 0);
  ck_assert_int_eq(g_strv_length(t), 5);
  ck_assert_str_eq(t[0], "a ]]> b");
  ck_assert_str_eq(t[1], "<b>&amp;</b> \"q\" 'a' &#65; <![CDATA[x]]>");
  ck_assert_str_eq(t[2], "ctl:\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                         "\xef\xbf\xbd:end");
  ck_assert_str_eq(t[3], "nonchar:\xef\xbf\xbd\xef\xbf\xbd:end");
  ck_assert_str_eq(t[4], "tab\there");
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 5);
  g_strfreev(t);
  rd_result_free(r);
  g_free(p);

  /* Runs of brackets around the end marker, and a content ending inside one. */
  const char *tails[] = {"x]]]]>>y\n]]>]]>\n]", "end]]", "end]", "]]", ">", "a]]>"};
  char *tp[G_N_ELEMENTS(tails)];
  for (size_t i = 0; i < G_N_ELEMENTS(tails); i++) {
    char *name = g_strdup_printf("tail%zu.txt", i);
    tp[i] = rd_write_str(dmn->dir, name, tails[i]);
    g_free(name);
  }
  r = rd_read_paths(conn, (const char *const *)tp, G_N_ELEMENTS(tails), "\"lineNumbers\":false");
  for (guint i = 0; i < G_N_ELEMENTS(tails); i++) {
    char *got = rd_text(r, i);
    char *want = g_strconcat(tails[i], "\n", NULL);
    ck_assert_msg(strcmp(got, want) == 0 || strcmp(got, tails[i]) == 0, "'%s' came back as '%s'",
                  tails[i], got);
    g_free(want);
    g_free(got);
    g_free(tp[i]);
  }
  rd_result_free(r);
}
END_TEST

/* ---------------------------------------------------------------- images */

/* files[i] is the image at path, sent byte for byte, with the size its header gives. */
static void assert_image(RdResult *r, guint i, const char *path, const char *media_type) {
  size_t len;
  char *data = rd_read_file(path, &len);
  int w = 0, h = 0;
  ck_assert_msg(rd_image_size((const unsigned char *)data, len, &w, &h), "%s: no size in header",
                path);
  assert_no_code(r, i);
  ck_assert_str_eq(rd_file_str(r, i, "type"), "image");
  ck_assert_str_eq(rd_file_str(r, i, "mediaType"), media_type);
  ck_assert_int_eq(rd_file_int(r, i, "bytes"), (int64_t)len);
  ck_assert_int_eq(rd_file_int(r, i, "width"), w);
  ck_assert_int_eq(rd_file_int(r, i, "height"), h);
  GBytes *sent = rd_image_bytes(r, (guint)rd_file_int(r, i, "image"));
  ck_assert_msg(g_bytes_get_size(sent) == len &&
                    memcmp(g_bytes_get_data(sent, NULL), data, len) == 0,
                "%s: the image sent (%zu bytes) is not the file (%zu bytes)", path,
                g_bytes_get_size(sent), len);
  ck_assert_msg(rd_content(r, i)->children == NULL, "%s: an image Content has content", path);
  g_bytes_unref(sent);
  g_free(data);
}

static const unsigned char gif_1x1[] = {
    'G',  'I',  'F',  '8',  '9',  'a',             /* header */
    1,    0,    1,    0,    0x80, 0,   0,          /* 1x1, a global table of two colours */
    0xff, 0xff, 0xff, 0,    0,    0,               /* white, black */
    0x2c, 0,    0,    0,    0,    1,   0, 1, 0, 0, /* the image: at 0,0, 1x1 */
    2,    2,    0x44, 0x01, 0,                     /* LZW: clear, pixel 0, end */
    0x3b};

START_TEST(files_images_generated) {
  size_t png_len, webp_len;
  unsigned char *png = rd_make_png(3, 2, &png_len);
  unsigned char *webp = rd_make_webp(5, 3, &webp_len);
  char *p_png = rd_write_file(dmn->dir, "pic.png", (char *)png, png_len);
  char *p_txt = rd_write_file(dmn->dir, "png-named.txt", (char *)png, png_len);
  char *p_gif = rd_write_file(dmn->dir, "pic.gif", (const char *)gif_1x1, sizeof gif_1x1);
  char *p_webp = rd_write_file(dmn->dir, "pic.webp", (char *)webp, webp_len);
  char *p_noext = rd_write_file(dmn->dir, "noext", (char *)png, png_len);
  char *p_text = rd_write_str(dmn->dir, "between.txt", "text between images\n");
  const char *paths[] = {p_png, p_txt, p_text, p_gif, p_webp, p_noext};
  RdResult *r = rd_read_paths(conn, paths, 6, NULL);

  assert_image(r, 0, p_png, "image/png");
  ck_assert_int_eq(rd_file_int(r, 0, "width"), 3);
  ck_assert_int_eq(rd_file_int(r, 0, "height"), 2);
  assert_image(r, 1, p_txt, "image/png");
  assert_no_code(r, 2);
  ck_assert_str_eq(rd_file_str(r, 2, "type"), "text");
  assert_image(r, 3, p_gif, "image/gif");
  ck_assert_int_eq(rd_file_int(r, 3, "width"), 1);
  assert_image(r, 4, p_webp, "image/webp");
  ck_assert_int_eq(rd_file_int(r, 4, "width"), 5);
  ck_assert_int_eq(rd_file_int(r, 4, "height"), 3);
  assert_image(r, 5, p_noext, "image/png");
  /* One images[] entry per image file, each named once. */
  ck_assert_int_eq(json_array_get_length(r->images), 5);
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < 6; i++) {
    if (i == 2)
      continue;
    gint64 k = rd_file_int(r, i, "image");
    ck_assert_msg(!g_hash_table_contains(seen, GINT_TO_POINTER(k + 1)), "image %d shared", (int)k);
    g_hash_table_add(seen, GINT_TO_POINTER(k + 1));
  }
  g_hash_table_destroy(seen);
  rd_result_free(r);
  g_free(png), g_free(webp), g_free(p_png), g_free(p_txt), g_free(p_gif), g_free(p_webp);
  g_free(p_noext), g_free(p_text);
}
END_TEST

#define REPORTLAB_DIR "/usr/share/doc/python-reportlab-doc/pythonpoint-demos"

/* Real pictures: the still, upright ones within the default 1568 pixels go out byte for byte;
 * animated GIFs are sent as one picture of their size (their first frame, re-encoded or not). */
START_TEST(files_images_real) {
  struct {
    const char *dir, *name, *type;
    bool animated;
  } imgs[] = {
      {PIXBUF_DIR, "test-image.png", "image/png", false},
      {PIXBUF_DIR, "bug725582-testrotate.png", "image/png", false},
      {PIXBUF_DIR, "icc-profile.png", "image/png", false},
      {PIXBUF_DIR, "dpi.jpeg", "image/jpeg", false},
      {PIXBUF_DIR, "icc-profile.jpeg", "image/jpeg", false},
      {PIXBUF_DIR, "test-images/gif-test-suite/all-blues.gif", "image/gif", false},
      {PIXBUF_DIR, "test-images/gif-test-suite/255-codes.gif", "image/gif", false},
      {REPORTLAB_DIR, "python.gif", "image/gif", false},
      {REPORTLAB_DIR, "lj8100.jpg", "image/jpeg", false},
      {PIXBUF_DIR, "test-animation.gif", NULL, true},
      {PIXBUF_DIR, "1_partyanimsm2.gif", NULL, true},
  };
  enum { N = G_N_ELEMENTS(imgs) };
  char *paths[N];
  guint idx[N], n = 0;
  for (guint i = 0; i < N; i++) {
    char *p = g_build_filename(imgs[i].dir, imgs[i].name, NULL);
    if (access(p, R_OK) != 0) {
      skip_note("files_images_real: %s is missing (Debian packages gdk-pixbuf-tests and "
                "python-reportlab-doc)",
                p);
      g_free(p);
      continue;
    }
    idx[n] = i;
    paths[n++] = p;
  }
  if (n == 0)
    return;
  RdResult *r = rd_read_paths(conn, (const char *const *)paths, n, NULL);
  for (guint k = 0; k < n; k++) {
    if (!imgs[idx[k]].animated) {
      assert_image(r, k, paths[k], imgs[idx[k]].type);
      ck_assert_msg(!rd_file_true(r, k, "animated"), "%s is not animated", paths[k]);
      continue;
    }
    size_t len;
    char *data = rd_read_file(paths[k], &len);
    int w, h;
    ck_assert(rd_image_size((const unsigned char *)data, len, &w, &h));
    assert_no_code(r, k);
    ck_assert_str_eq(rd_file_str(r, k, "type"), "image");
    ck_assert_msg(rd_file_true(r, k, "animated"), "%s: animated is not set", paths[k]);
    ck_assert_int_eq(rd_file_int(r, k, "width"), w);
    ck_assert_int_eq(rd_file_int(r, k, "height"), h);
    ck_assert_int_eq(rd_file_int(r, k, "bytes"), (int64_t)len);
    g_free(data);
  }
  rd_result_free(r);
  for (guint k = 0; k < n; k++)
    g_free(paths[k]);
}
END_TEST

START_TEST(files_image_too_large) {
  size_t len;
  unsigned char *png = rd_make_png(4, 4, &len);
  char *p = rd_write_file(dmn->dir, "huge.png", (char *)png, len);
  off_t size = (off_t)21 * 1024 * 1024;
  ck_assert_int_eq(truncate(p, size), 0);
  char *small = rd_write_file(dmn->dir, "small.png", (char *)png, len);
  const char *paths[] = {p, small};
  RdResult *r = rd_read_paths(conn, paths, 2, NULL);
  assert_code(r, 0, "FILE_TOO_LARGE");
  ck_assert_int_eq(rd_file_int(r, 0, "bytes"), (int64_t)size);
  assert_image(r, 1, small, "image/png");
  rd_result_free(r);
  g_free(small);
  g_free(p);
  g_free(png);
}
END_TEST

/* ---------------------------------------------------------------- a real source tree */

static void collect_go(const char *dir, GPtrArray *out) {
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d)
    return;
  const char *name;
  while ((name = g_dir_read_name(d))) {
    char *p = g_build_filename(dir, name, NULL);
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      collect_go(p, out);
      g_free(p);
    } else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && g_str_has_suffix(name, ".go")) {
      g_ptr_array_add(out, p);
    } else {
      g_free(p);
    }
  }
  g_dir_close(d);
}

static int cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many of the first lines can be compared exactly: stop at a line the daemon must change
 * (over 2000 characters, a carriage return, a character XML cannot carry). */
static size_t comparable_lines(char **lines, size_t max) {
  size_t n = 0;
  for (; n < max && lines[n]; n++) {
    const char *l = lines[n];
    if (g_utf8_strlen(l, -1) > 2000 || strchr(l, '\r'))
      break;
    bool odd = false;
    for (const char *c = l; *c; c++)
      odd |= (unsigned char)*c < 0x20 && *c != '\t';
    if (odd)
      break;
  }
  return n;
}

static void check_go_file(RdResult *r, guint i, const char *path) {
  size_t len;
  char *data = rd_read_file(path, &len);
  if (memchr(data, 0, len)) {
    assert_code(r, i, "UNSUPPORTED_FORMAT");
  } else if (g_utf8_validate(data, (gssize)len, NULL)) {
    assert_no_code(r, i);
    ck_assert_str_eq(rd_file_str(r, i, "type"), "text");
    ck_assert_int_eq(rd_file_int(r, i, "bytes"), (int64_t)len);
    ck_assert_msg(rd_file_int(r, i, "lines") == rd_count_lines(data, len),
                  "%s: lines %" G_GINT64_FORMAT ", counted %" G_GINT64_FORMAT, path,
                  rd_file_int(r, i, "lines"), rd_count_lines(data, len));
    char **lines = rd_split_lines(data, len);
    size_t n = comparable_lines(lines, 5);
    char **want = rd_numbered((const char *const *)lines, n, 1);
    char **got = rd_text_lines(r, i);
    ck_assert_msg(g_strv_length(got) >= n, "%s: %u lines shown", path, g_strv_length(got));
    for (size_t k = 0; k < n; k++)
      ck_assert_msg(strcmp(got[k], want[k]) == 0, "%s line %zu: '%s', expected '%s'", path, k + 1,
                    got[k], want[k]);
    g_strfreev(got);
    g_strfreev(want);
    g_strfreev(lines);
  } else {
    /* Not UTF-8: legacy text, or refused; never a crash. */
    const char *code = rd_file_str(r, i, "code");
    ck_assert_msg(code == NULL || strcmp(code, "UNSUPPORTED_FORMAT") == 0, "%s: %s", path, code);
  }
  g_free(data);
}

START_TEST(files_corpus_go) {
  if (access(GO_SRC, R_OK) != 0)
    SKIP_CASE("files_corpus_go: %s is missing (Debian package golang-1.19-src)", GO_SRC);
  GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
  collect_go(GO_SRC, all);
  g_ptr_array_sort(all, cmp_str);
  ck_assert_msg(all->len >= 500, "only %u .go files under %s", all->len, GO_SRC);
  enum { N = 500 };
  const char *paths[N];
  for (guint i = 0; i < N; i++)
    paths[i] = g_ptr_array_index(all, (guint)((guint64)i * all->len / N));
  RdResult *r = rd_read_paths(conn, paths, N, NULL);
  for (guint i = 0; i < N; i++)
    check_go_file(r, i, paths[i]);
  rd_result_free(r);
  g_ptr_array_free(all, TRUE);
}
END_TEST

/* ---------------------------------------------------------------- relative paths */

static void assert_first_line(RdResult *r, guint i, const char *want) {
  assert_no_code(r, i);
  char **t = rd_text_lines(r, i);
  char *w = g_strdup_printf("     1\t%s", want);
  ck_assert_msg(t[0] && strcmp(t[0], w) == 0, "files[%u] shows '%s', expected '%s'", i,
                t[0] ? t[0] : "", w);
  g_free(w);
  g_strfreev(t);
}

START_TEST(files_relative_paths) {
  char *f0 = rd_write_str(dmn->dir, "rel/same.txt", "in the daemon's directory\n");
  char *fa = rd_write_str(dmn->dir, "rootA/rel/same.txt", "in rootA\n");
  char *fb = rd_write_str(dmn->dir, "cwdB/rel/same.txt", "in cwdB\n");
  char *fup = rd_write_str(dmn->dir, "up.txt", "one level up\n");
  char *root_a = g_build_filename(dmn->dir, "rootA", NULL);
  char *cwd_b = g_build_filename(dmn->dir, "cwdB", NULL);
  char *qa = rd_json_quote(root_a), *qb = rd_json_quote(cwd_b);
  const char *rel[] = {"rel/same.txt", "./rel/same.txt", "../up.txt"};

  /* No cwd, no rootPath: the daemon's working directory. */
  RdResult *r = rd_read_paths(conn, rel, 2, NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "rel/same.txt");
  assert_first_line(r, 0, "in the daemon's directory");
  assert_first_line(r, 1, "in the daemon's directory");
  rd_result_free(r);

  char *extra = g_strdup_printf("\"cwd\":%s", qb);
  r = rd_read_paths(conn, rel, 3, extra);
  assert_first_line(r, 0, "in cwdB");
  assert_first_line(r, 2, "one level up");
  rd_result_free(r);

  /* rootPath is the connection's base; cwd still wins; absolute paths are untouched. */
  RdConn *c2 = rd_conn_new(dmn->sock);
  char *init = g_strdup_printf("{\"rootPath\":%s}", qa);
  JsonNode *m = rd_conn_call(c2, "initialize", init);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  const char *mixed[] = {"rel/same.txt", f0};
  r = rd_read_paths(c2, mixed, 2, NULL);
  assert_first_line(r, 0, "in rootA");
  assert_first_line(r, 1, "in the daemon's directory");
  rd_result_free(r);
  char *params = g_strdup_printf("{\"paths\":[{\"path\":\"rel/same.txt\"}],\"cwd\":%s}", qb);
  r = rd_read(c2, params);
  assert_first_line(r, 0, "in cwdB");
  rd_result_free(r);

  /* Another connection does not see that rootPath. */
  r = rd_read_paths(conn, rel, 1, NULL);
  assert_first_line(r, 0, "in the daemon's directory");
  rd_result_free(r);

  rd_conn_free(c2);
  g_free(params), g_free(init), g_free(extra), g_free(qa), g_free(qb), g_free(root_a);
  g_free(cwd_b), g_free(f0), g_free(fa), g_free(fb), g_free(fup);
}
END_TEST

/* ---------------------------------------------------------------- the fence */

/* The fenced workspace the fence's cases read in, under top: fence/ (the root), out/ (outside
 * it) and fence-link -> fence. In the root: files read as they are, .env (excluded) and links
 * to and from it, a folder named .env, secrets/ (excluded by a path pattern) and links into
 * and out of it, links out of the root, .git/config, a folder and a FIFO. */
static void fence_tree(const char *top) {
  static const char *const links[][2] = {
      {".env", "fence/notes.txt"},
      {"notes-real.txt", "fence/cfg/.env"},
      {"../public/x.txt", "fence/secrets/x.txt"},
      {"secrets", "fence/pub"},
      {"public", "fence/private"},
      {"../out/secret.txt", "fence/escape.txt"},
      {"../out", "fence/outdir"},
      {"fence", "fence-link"},
  };
  g_autofree char *adir = g_build_filename(top, "fence/adir", NULL);
  g_autofree char *env_dir = g_build_filename(top, "fence/conf/.env", NULL);
  g_autofree char *fifo = g_build_filename(top, "fence/pipe", NULL);

  g_free(rd_write_str(top, "fence/in.txt", "inside\n"));
  g_free(rd_write_str(top, "fence/.env", "KEY=1\n"));
  g_free(rd_write_str(top, "fence/cfg/notes-real.txt", "real notes\n"));
  g_free(rd_write_str(top, "fence/secrets/token", "token\n"));
  g_free(rd_write_str(top, "fence/public/x.txt", "public x\n"));
  g_free(rd_write_str(top, "fence/public/y.txt", "public y\n"));
  g_free(rd_write_str(top, "out/secret.txt", "outside\n"));
  g_free(rd_write_str(top, "fence/.git/config", "[core]\n"));
  ck_assert_int_eq(g_mkdir_with_parents(adir, 0700), 0);
  ck_assert_int_eq(g_mkdir_with_parents(env_dir, 0700), 0);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  for (size_t i = 0; i < G_N_ELEMENTS(links); i++) {
    g_autofree char *at = g_build_filename(top, links[i][1], NULL);

    ck_assert_int_eq(symlink(links[i][0], at), 0);
  }
}

/* The fence's exclude patterns, as the daemon's and the CLI's. */
static const char *const fence_exclude[] = {".env", "secrets/*", "private/*"};

/* One path read in the fence: its code, or NULL and the first line of its text. */
typedef struct {
  const char *path; /* relative to the root, or "@" and a path relative to top */
  const char *code;
  const char *text;
  bool outside; /* refused for lying outside: in the same words as every such refusal */
} FenceCase;

/* Paths with no symlink on the way (judged as written) and paths through links, "..", "//" and
 * "/./" (resolved first): each case as the resolved path has it. */
static const FenceCase fence_cases[] = {
    {"in.txt", NULL, "inside", false},
    {"@fence/in.txt", NULL, "inside", false},
    {".env", "ACCESS_DENIED", NULL, false},
    {"@fence/.env", "ACCESS_DENIED", NULL, false},
    {"notes.txt", "ACCESS_DENIED", NULL, false}, /* a link to .env: its real name counts */
    {"cfg/.env", "ACCESS_DENIED", NULL, false},  /* a link from .env: its given name counts */
    {"cfg/notes-real.txt", NULL, "real notes", false},
    {"secrets/token", "ACCESS_DENIED", NULL, false},
    {"@fence//secrets/token", "ACCESS_DENIED", NULL, false},
    {"@fence/./secrets/token", "ACCESS_DENIED", NULL, false},
    {"@fence/public/../secrets/token", "ACCESS_DENIED", NULL, false},
    {"pub/token", "ACCESS_DENIED", NULL, false}, /* its real path is in secrets/ */
    {"secrets/x.txt", NULL, "public x", false},  /* its real path is public/x.txt */
    {"private/y.txt", NULL, "public y", false},  /* private -> public */
    {"@out/secret.txt", "ACCESS_DENIED", NULL, true},
    {"@out/nope.txt", "ACCESS_DENIED", NULL, true},
    {"@out", "ACCESS_DENIED", NULL, true},
    {"@fence/../out/secret.txt", "ACCESS_DENIED", NULL, true},
    {"escape.txt", "ACCESS_DENIED", NULL, true},
    {"outdir/secret.txt", "ACCESS_DENIED", NULL, true},
    {"@fence/adir/../in.txt", NULL, "inside", false},
    {"@fence//in.txt", NULL, "inside", false},
    {"@fence/./in.txt", NULL, "inside", false},
    {"@fence/in.txt/", "FILE_NOT_FOUND", NULL, false},
    {"@fence-link/in.txt", NULL, "inside", false},
    {"@fence-link/.env", "ACCESS_DENIED", NULL, false},
    {"@fence-link/secrets/token", "ACCESS_DENIED", NULL, false},
    {".git/config", "ACCESS_DENIED", NULL, false},
    {"conf/.env", "ACCESS_DENIED", NULL, false}, /* excluded before it is said to be a folder */
    {"@fence/conf/.env/", "ACCESS_DENIED", NULL, false},
    {"@fence/conf/.env/.", "ACCESS_DENIED", NULL, false},
    {"adir", "IS_DIRECTORY", NULL, false},
    {"@fence/adir/", "IS_DIRECTORY", NULL, false},
    {"pipe", "NOT_REGULAR_FILE", NULL, false},
    {"missing.txt", "FILE_NOT_FOUND", NULL, false},
};

/* fence_cases' paths, those starting with "@" made absolute under top. g_ptr_array_unref. */
static GPtrArray *fence_paths(const char *top) {
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

  for (size_t i = 0; i < G_N_ELEMENTS(fence_cases); i++) {
    const char *p = fence_cases[i].path;

    g_ptr_array_add(a, p[0] == '@' ? g_strconcat(top, "/", p + 1, NULL) : g_strdup(p));
  }
  return a;
}

/* Checks a read of fence_paths() (`face` in messages): each code and text as fence_cases say,
 * a refused file's size unsaid, every refusal for the outside in the same words. */
static void assert_fence(RdResult *r, const char *face) {
  const char *outside_error = NULL;

  ck_assert_uint_eq(json_array_get_length(r->files), G_N_ELEMENTS(fence_cases));
  for (guint i = 0; i < G_N_ELEMENTS(fence_cases); i++) {
    const FenceCase *c = &fence_cases[i];
    const char *code = rd_file_str(r, i, "code"), *error = rd_file_str(r, i, "error");

    ck_assert_msg(g_strcmp0(code, c->code) == 0, "%s: %s: code %s (%s), expected %s", face, c->path,
                  code ? code : "(none)", error ? error : "read", c->code);
    if (c->code == NULL) {
      g_auto(GStrv) t = rd_text_lines(r, i);
      g_autofree char *want = g_strdup_printf("     1\t%s", c->text);

      ck_assert_msg(t[0] != NULL && strcmp(t[0], want) == 0, "%s: %s shows '%s', expected '%s'",
                    face, c->path, t[0] ? t[0] : "", want);
      continue;
    }
    ck_assert_msg(error != NULL && *error != '\0', "%s: %s: no message", face, c->path);
    if (strcmp(c->code, "ACCESS_DENIED") == 0)
      ck_assert_msg(!json_object_has_member(rd_file(r, i), "bytes"), "%s: %s: its size leaked",
                    face, c->path);
    if (c->outside && outside_error == NULL)
      outside_error = error;
    if (c->outside)
      ck_assert_msg(strcmp(error, outside_error) == 0, "%s: %s: '%s', not '%s'", face, c->path,
                    error, outside_error);
  }
}

/* A connection to the daemon fenced in top/fence (rootPath, confineToRoot, fence_exclude). */
static RdConn *fence_conn(const char *top) {
  g_autofree char *root = g_build_filename(top, "fence", NULL), *q = rd_json_quote(root);
  g_autofree char *init = g_strdup_printf("{\"rootPath\":%s,\"confineToRoot\":true,"
                                          "\"exclude\":[\"%s\",\"%s\",\"%s\"]}",
                                          q, fence_exclude[0], fence_exclude[1], fence_exclude[2]);
  RdConn *c = rd_conn_new(dmn->sock);
  JsonNode *m = rd_conn_call(c, "initialize", init);

  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  return c;
}

/* The fence's verdicts over the socket and through `readerd read --root --exclude`: every path
 * judged as its real path has it, whether the reader could take it as written (no symlink on
 * the way) or had to resolve it. */
START_TEST(files_fence_verdicts) {
  g_autoptr(GPtrArray) paths = NULL, argv = g_ptr_array_new();
  g_autofree char *root = g_build_filename(dmn->dir, "fence", NULL);
  RdConn *c;
  RdResult *r;
  RdRun run;

  fence_tree(dmn->dir);
  paths = fence_paths(dmn->dir);
  c = fence_conn(dmn->dir);
  r = rd_read_paths(c, (const char *const *)paths->pdata, paths->len, NULL);
  assert_fence(r, "daemon");
  rd_result_free(r);
  rd_conn_free(c);

  g_ptr_array_add(argv, (char *)rd_readerd());
  g_ptr_array_add(argv, "read");
  g_ptr_array_add(argv, "--json");
  g_ptr_array_add(argv, "--no-expand");
  g_ptr_array_add(argv, "--root");
  g_ptr_array_add(argv, root);
  for (size_t i = 0; i < G_N_ELEMENTS(fence_exclude); i++) {
    g_ptr_array_add(argv, "--exclude");
    g_ptr_array_add(argv, (char *)fence_exclude[i]);
  }
  g_ptr_array_add(argv, "--");
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add(argv, paths->pdata[i]);
  g_ptr_array_add(argv, NULL);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 30000, &run);
  ck_assert_msg(run.code == 1, "readerd read exited %d: %s", run.code, run.err);
  r = rd_result_from_json(run.out, run.out_len);
  assert_fence(r, "cli");
  rd_result_free(r);
  rd_run_clear(&run);
}
END_TEST

/* True while pid sleeps in an open(2) waiting for the other end of a FIFO: the system call it
 * sleeps in, and where in the kernel when that is said. */
static bool blocked_in_open(GPid pid) {
  g_autofree char *path = g_strdup_printf("/proc/%d/syscall", (int)pid), *text = NULL;
  g_autofree char *wchan_path = g_strdup_printf("/proc/%d/wchan", (int)pid), *wchan = NULL;
  char *end;
  long nr;

  if (!g_file_get_contents(path, &text, NULL, NULL))
    return false;
  nr = strtol(text, &end, 10);
  if (end == text || nr != SYS_openat)
    return false;
  /* "0" when the kernel does not say. */
  return !g_file_get_contents(wchan_path, &wchan, NULL, NULL) || strcmp(wchan, "0") == 0 ||
         strcmp(wchan, "wait_for_partner") == 0;
}

/* A FIFO in the fence is NOT_REGULAR_FILE and is never opened: a writer waiting in open(2) for
 * a reader still waits after the read (any open of the FIFO for reading, even for an instant,
 * would have let it through), and a writer's non-blocking open finds no reader. */
START_TEST(files_fence_fifo_unopened) {
  g_autofree char *fifo = g_build_filename(dmn->dir, "fence", "pipe", NULL);
  g_autofree char *probe = g_strdup_printf("/proc/%d/syscall", (int)getpid());
  const char *const sh[] = {"/bin/sh", "-c", "exec 3>\"$0\"", fifo, NULL};
  const char *const paths[] = {"pipe", fifo, "adir"};
  gint64 deadline = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
  RdConn *c;
  RdResult *r;
  GPid writer;
  int fd, status = 0;

  if (!g_file_test(probe, G_FILE_TEST_EXISTS))
    SKIP_CASE("files_fence_fifo_unopened: no /proc/PID/syscall to see a writer wait in open(2)");
  fence_tree(dmn->dir);
  writer = rd_spawn(dmn->dir, sh, -1, -1, -1);
  while (!blocked_in_open(writer)) {
    ck_assert_msg(!rd_wait_pid(writer, 5, &status), "the writer ended (%d) before the read",
                  rd_exit_code(status));
    ck_assert_msg(g_get_monotonic_time() < deadline, "the writer never waited in open(2)");
  }
  c = fence_conn(dmn->dir);
  r = rd_read_paths(c, paths, G_N_ELEMENTS(paths), NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "NOT_REGULAR_FILE");
  ck_assert_str_eq(rd_file_str(r, 1, "code"), "NOT_REGULAR_FILE");
  ck_assert_str_eq(rd_file_str(r, 2, "code"), "IS_DIRECTORY");
  rd_result_free(r);
  ck_assert_msg(blocked_in_open(writer), "the FIFO's writer got a reader: the FIFO was opened");
  ck_assert(!rd_wait_pid(writer, 0, NULL));
  fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  ck_assert_msg(fd < 0 && errno == ENXIO, "a reader holds the FIFO open");
  ck_assert_int_eq(kill(writer, SIGKILL), 0);
  ck_assert(rd_wait_pid(writer, 30000, &status));
  rd_conn_free(c);
}
END_TEST

/* Copies of a full file past the answer's cap in a fenced workspace are only stat'ed, and the
 * fence holds for the files after them: an excluded file and files outside the root (directly,
 * through a link) are ACCESS_DENIED with no size, and the <Omitted> summary's bytes and tokens
 * sum the files it may say something of, nothing of the refused ones. */
START_TEST(files_fence_past_cap) {
  enum { FULL = 700 };
  g_autofree char *root = g_build_filename(dmn->dir, "fence", NULL), *full = NULL, *late = NULL;
  g_autofree char *secret = NULL, *env = NULL;
  const char *tail[] = {"late.txt", ".env", NULL, "escape.txt", "cfg/.env", NULL, "late.txt"};
  GString *text = g_string_new(NULL);
  GPtrArray *paths = g_ptr_array_new();
  struct stat full_st, late_st;
  int64_t want_bytes, want_tokens;
  guint first, n;
  RdConn *c;
  RdResult *r;

  fence_tree(dmn->dir);
  for (int i = 0; i < 2000; i++)
    g_string_append_printf(text, "%04d the quick brown fox jumps over the lazy dog once more\n", i);
  full = rd_write_file(root, "full.txt", text->str, text->len);
  late = rd_write_str(root, "late.txt", "package late\n\nfunc Late() {}\n");
  secret = g_build_filename(dmn->dir, "out", "secret.txt", NULL);
  env = g_build_filename(root, ".env", NULL);
  tail[2] = secret;
  tail[5] = env;
  for (int i = 0; i < FULL; i++)
    g_ptr_array_add(paths, "full.txt");
  for (size_t i = 0; i < G_N_ELEMENTS(tail); i++)
    g_ptr_array_add(paths, (char *)tail[i]);
  n = paths->len;
  c = fence_conn(dmn->dir);
  r = rd_read_paths(c, (const char *const *)paths->pdata, n, NULL);
  ck_assert_ptr_nonnull(r->summary);
  first = (guint)rd_xml_prop_int(r->summary, "skip");
  ck_assert_msg(first > 100 && first < FULL, "the cap cut at file %u of %u", first, n);
  ck_assert_int_eq(rd_xml_prop_int(r->summary, "files"), n - first);
  for (guint j = first; j < n; j++) {
    const char *code = rd_file_str(r, j, "code"), *p = paths->pdata[j];
    bool refused = j >= FULL && strcmp(p, "late.txt") != 0;

    ck_assert_msg(g_strcmp0(code, refused ? "ACCESS_DENIED" : "FILE_TOO_LARGE") == 0,
                  "files[%u] %s past the cap: %s", j, p, code);
    ck_assert_msg(json_object_has_member(rd_file(r, j), "bytes") == !refused,
                  "files[%u] %s past the cap: its size %s", j, p, refused ? "leaked" : "unsaid");
  }
  ck_assert_int_eq(stat(full, &full_st), 0);
  ck_assert_int_eq(stat(late, &late_st), 0);
  want_bytes = (int64_t)(FULL - first) * full_st.st_size + 2 * late_st.st_size;
  want_tokens = (int64_t)(FULL - first) * (full_st.st_size / 4 + 1) + 2 * (late_st.st_size / 4 + 1);
  ck_assert_int_eq(rd_xml_prop_int(r->summary, "bytes"), want_bytes);
  ck_assert_int_eq(rd_xml_prop_int(r->summary, "tokensTotal"), want_tokens);
  rd_result_free(r);
  rd_conn_free(c);
  g_ptr_array_free(paths, TRUE);
  g_string_free(text, TRUE);
}
END_TEST

static Suite *files_suite(void) {
  Suite *s = suite_create("files");
  TCase *tc = tcase_create("files");
  tcase_add_checked_fixture(tc, files_setup, files_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, files_text_metadata);
  tcase_add_test(tc, files_mtime_range);
  tcase_add_test(tc, files_line_counts);
  tcase_add_test(tc, files_error_codes);
  tcase_add_test(tc, files_weird_paths);
  tcase_add_test(tc, files_access_denied);
  tcase_add_test(tc, files_odd_names);
  tcase_add_test(tc, files_order_and_duplicates);
  tcase_add_test(tc, files_offset_limit);
  tcase_add_test(tc, files_default_limit);
  tcase_add_test(tc, files_byte_cap);
  tcase_add_test(tc, files_long_lines);
  tcase_add_test(tc, files_eol);
  tcase_add_test(tc, files_encodings);
  tcase_add_test(tc, files_mostly_utf8);
  tcase_add_test(tc, files_wide_bad_units_read_on);
  tcase_add_test(tc, files_hostile_xml);
  tcase_add_test(tc, files_images_generated);
  tcase_add_test(tc, files_images_real);
  tcase_add_test(tc, files_image_too_large);
  tcase_add_test(tc, files_corpus_go);
  tcase_add_test(tc, files_relative_paths);
  tcase_add_test(tc, files_fence_verdicts);
  tcase_add_test(tc, files_fence_fifo_unopened);
  tcase_add_test(tc, files_fence_past_cap);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(files_suite()));
}
