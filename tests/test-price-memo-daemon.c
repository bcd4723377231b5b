/* Integration tests of the daemon's price memo (formatters/price-memo.h) through the real
 * readerd binary: an answer is the same, tokens included, whether its contents were priced or
 * found in the memo, and the same as the command line's, which has no memo; a file rewritten in
 * place with its size and times put back is priced from its new bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

#define GO_SRC "/usr/share/go-1.19/src"
#define GO_FILES 2000

static RdDaemon *dmn;
static RdConn *conn;

static void setup(void) {
  rd_fixture_setup(&dmn, &conn);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

static gint compare_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first `.go` files of dir in bench/benchlib.py's order (a folder's files by name, then its
 * folders by name), up to GO_FILES in out. */
static void collect_go(const char *dir, GPtrArray *out) {
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name(d)) != NULL)
    g_ptr_array_add(names, g_strdup(name));
  g_dir_close(d);
  g_ptr_array_sort(names, compare_names);
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < names->len && out->len < GO_FILES; i++) {
      char *path = g_build_filename(dir, names->pdata[i], NULL);
      bool is_dir =
          g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK);

      if (pass == 0 && !is_dir && g_str_has_suffix(path, ".go"))
        g_ptr_array_add(out, path);
      else if (pass == 1 && is_dir)
        collect_go(path, out), g_free(path);
      else
        g_free(path);
    }
}

/* The result object of a response line, as its bytes: what follows "result": up to the line's
 * closing brace. */
static char *result_text(const char *line) {
  const char *at = strstr(line, "\"result\":");
  size_t len = strlen(line);

  ck_assert_msg(at != NULL, "no result in %.200s", line);
  ck_assert(len > 0 && line[len - 1] == '}');
  at += strlen("\"result\":");
  return g_strndup(at, (size_t)(line + len - 1 - at));
}

/* One `read` of params over conn, answered as a raw line: its result object's bytes. */
static char *read_raw(const char *params) {
  g_autofree char *key = rd_conn_request(conn, "read", params, NULL);
  g_autofree char *line = NULL;

  ck_assert_int_eq(rd_conn_recv_line(conn, 5 * RD_TIMEOUT_MS, &line), 1);
  return result_text(line);
}

/* The 2,000 Go files of the benchmarks, read twice over one daemon (the second read finds every
 * large content's price in the memo) and once by the command line: the same bytes each time,
 * tokens included. budget: a budget that binds (the daemon then measures every file, pricing
 * its numbered lines in flushes that go through the memo too), or 0 for none. */
static void same_answers(int64_t budget) {
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_autofree char *paths = NULL, *params = NULL, *first = NULL, *second = NULL, *b = NULL;
  RdRun cli = {0};

  collect_go(GO_SRC, files);
  ck_assert_uint_eq(files->len, GO_FILES);
  paths = rd_json_paths((const char *const *)files->pdata, files->len);
  params = budget > 0
               ? g_strdup_printf("{\"paths\":%s,\"budget\":{\"tokens\":%" G_GINT64_FORMAT "}}",
                                 paths, budget)
               : g_strdup_printf("{\"paths\":%s}", paths);
  first = read_raw(params);
  second = read_raw(params);
  ck_assert_msg(strstr(first, "\"tokens\":") != NULL, "no tokens");
  ck_assert_msg(strcmp(first, second) == 0, "the second read differs from the first");

  g_ptr_array_add(argv, (gpointer)rd_readerd());
  g_ptr_array_add(argv, "read");
  g_ptr_array_add(argv, "--json");
  if (budget > 0) {
    b = g_strdup_printf("%" G_GINT64_FORMAT, budget);
    g_ptr_array_add(argv, "--budget");
    g_ptr_array_add(argv, b);
  }
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add(argv, files->pdata[i]);
  g_ptr_array_add(argv, NULL);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 5 * RD_TIMEOUT_MS, &cli);
  ck_assert_int_eq(cli.code, 0);
  ck_assert(cli.out_len > 0 && cli.out[cli.out_len - 1] == '\n');
  cli.out[cli.out_len - 1] = '\0';
  ck_assert_msg(strcmp(first, cli.out) == 0, "the daemon's answer differs from the CLI's");
  rd_run_clear(&cli);
}

START_TEST(price_memo_same_answers) {
  if (!g_file_test(GO_SRC, G_FILE_TEST_IS_DIR))
    SKIP_CASE("%s is not installed (golang-1.19-src)", GO_SRC);
  same_answers(0);
}
END_TEST

START_TEST(price_memo_same_answers_budget) {
  if (!g_file_test(GO_SRC, G_FILE_TEST_IS_DIR))
    SKIP_CASE("%s is not installed (golang-1.19-src)", GO_SRC);
  same_answers(200000);
}
END_TEST

/* A text of `lines` lines of Go-like code, with the line `digits_at` (if any) made of digits. */
static char *code_text(int lines, int digits_at) {
  GString *s = g_string_new(NULL);

  for (int i = 0; i < lines; i++)
    g_string_append(s, i == digits_at ? "\t0123456789 = 0123456789 + 0123456789 / 0123456\n"
                                      : "\tresult = append(result, strings.ToLower(name))\n");
  return g_string_free(s, FALSE);
}

/* Writes text over the file at path in place (no new inode, no truncation). */
static void overwrite(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  size_t len = strlen(text);

  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(pwrite(fd, text, len, 0), (ssize_t)len);
  ck_assert_int_eq(close(fd), 0);
}

/* The tokens the command line (no memo) gives the file at path. */
static int64_t cli_tokens(const char *path) {
  const char *argv[] = {rd_readerd(), "read", "--json", path, NULL};
  RdRun run = {0};
  RdResult *r;
  int64_t tokens;

  rd_run(dmn->dir, argv, NULL, 0, RD_TIMEOUT_MS, &run);
  ck_assert_int_eq(run.code, 0);
  r = rd_result_from_json(run.out, run.out_len);
  tokens = rd_file_int(r, 0, "tokens");
  rd_result_free(r);
  rd_run_clear(&run);
  return tokens;
}

static int64_t daemon_tokens(const char *path) {
  const char *paths[] = {path};
  RdResult *r = rd_read_paths(conn, paths, 1, NULL);
  int64_t tokens = rd_file_int(r, 0, "tokens");

  rd_result_free(r);
  return tokens;
}

/* A file rewritten in place with other bytes of the same length, its times put back as they
 * were (what a stat sees is the same but the change time): the daemon prices the new bytes, as
 * the command line does, and the old ones again when they come back. */
START_TEST(price_memo_changed_in_place) {
  g_autofree char *before = code_text(400, -1), *after = code_text(400, 200);
  g_autofree char *path = rd_write_str(dmn->dir, "same-size.go", before);
  struct stat st, st2;
  struct timespec times[2];
  int64_t old_tokens, new_tokens;

  ck_assert_uint_eq(strlen(before), strlen(after));
  ck_assert_uint_gt(strlen(before), 16384);
  old_tokens = daemon_tokens(path);
  ck_assert_int_eq(old_tokens, cli_tokens(path));
  ck_assert_int_eq(daemon_tokens(path), old_tokens); /* from the memo now */

  ck_assert_int_eq(stat(path, &st), 0);
  overwrite(path, after);
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
  ck_assert_int_eq(stat(path, &st2), 0);
  ck_assert_int_eq(st2.st_size, st.st_size);
  ck_assert_int_eq(st2.st_mtim.tv_sec, st.st_mtim.tv_sec);
  ck_assert_int_eq(st2.st_mtim.tv_nsec, st.st_mtim.tv_nsec);

  new_tokens = daemon_tokens(path);
  ck_assert_int_eq(new_tokens, cli_tokens(path));
  ck_assert_int_ne(new_tokens, old_tokens);
  ck_assert_int_eq(daemon_tokens(path), new_tokens);

  overwrite(path, before);
  ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
  ck_assert_int_eq(daemon_tokens(path), old_tokens);
}
END_TEST

static Suite *price_memo_daemon_suite(void) {
  Suite *s = suite_create("price-memo-daemon");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, price_memo_same_answers);
  tcase_add_test(tc, price_memo_same_answers_budget);
  tcase_add_test(tc, price_memo_changed_in_place);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(price_memo_daemon_suite()));
}
