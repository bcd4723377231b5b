/* The cap on one answer's size, through the real daemon and the real command line: the files
 * past it are answered FILE_TOO_LARGE naming the cap, never a cut or giant line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <check.h>

#include "ipc/read-params.h"
#include "tests/lib/rd.h"

enum { N_PATHS = 800 };

static RdDaemon *dmn;

/* A text file whose numbered lines fill a file's 100 KiB share of the answer. */
static char *write_full_file(const char *dir) {
  GString *s = g_string_new(NULL);
  char *path;

  for (int i = 0; i < 2000; i++)
    g_string_append_printf(s, "%04d the quick brown fox jumps over the lazy dog once more\n", i);
  path = rd_write_file(dir, "full.txt", s->str, s->len);
  g_string_free(s, TRUE);
  return path;
}

static char *paths_json(const char *path, int n) {
  char *q = rd_json_quote(path);
  GString *s = g_string_new("[");

  for (int i = 0; i < n; i++)
    g_string_append_printf(s, "%s%s", i ? "," : "", q);
  g_string_append(s, "]");
  g_free(q);
  return g_string_free(s, FALSE);
}

/* Checks that files [0, first) were read and [first, n) refused for the cap; returns first. */
static guint assert_capped(RdResult *r, guint n) {
  guint first = n;

  ck_assert_uint_eq(json_array_get_length(r->files), n);
  for (guint i = 0; i < n; i++) {
    const char *code = rd_file_str(r, i, "code");

    if (code == NULL) {
      ck_assert_msg(first == n, "file %u was read after file %u was refused", i, first);
      continue;
    }
    ck_assert_str_eq(code, "FILE_TOO_LARGE");
    ck_assert_msg(strstr(rd_file_str(r, i, "error"), "64 MiB") != NULL,
                  "the error names no cap: %s", rd_file_str(r, i, "error"));
    if (first == n)
      first = i;
  }
  ck_assert_msg(first > 100 && first < n, "the cap cut at file %u of %u", first, n);
  return first;
}

START_TEST(limits_answer_cap_daemon) {
  char *path = write_full_file(dmn->dir);
  char *arr = paths_json(path, N_PATHS);
  char *params = g_strdup_printf("{\"paths\":%s}", arr);
  RdConn *c = rd_conn_new(dmn->sock);
  char *key = rd_conn_request(c, "read", params, NULL);
  char *line = NULL;
  int r = rd_conn_recv_line(c, 120000, &line);

  ck_assert_int_eq(r, 1);
  /* The whole line: the content under the cap, plus the refusals and the envelope. */
  ck_assert_uint_le(strlen(line), READ_MAX_ANSWER_BYTES + (size_t)1024 * 1024);
  ck_assert_uint_gt(strlen(line), READ_MAX_ANSWER_BYTES / 2);
  RdResult *res = rd_result_new(rd_json_parse(line, strlen(line)));
  guint first = assert_capped(res, N_PATHS);
  xmlChar *skip;
  /* The files past the cap are summed up in one element that names where to go on, not given
   * an element each. */
  ck_assert_ptr_nonnull(res->summary);
  ck_assert_uint_eq(res->contents->len, first);
  skip = xmlGetProp(res->summary, (const xmlChar *)"skip");
  ck_assert_int_eq(g_ascii_strtoll((const char *)skip, NULL, 10), first);
  xmlFree(skip);
  /* The totals count the files that were read, and nothing of the refused ones. */
  ck_assert_int_eq(json_object_get_int_member(res->result, "lines"), (int64_t)first * 2000);
  rd_result_free(res);
  /* The daemon serves on, and the refused files read in a request of their own. */
  RdResult *again = rd_read_paths(c, (const char *const[]){path}, 1, NULL);
  ck_assert_ptr_null(rd_file_str(again, 0, "code"));
  rd_result_free(again);
  g_free(line);
  g_free(key);
  rd_conn_free(c);
  g_free(params);
  g_free(arr);
  g_free(path);
}
END_TEST

/* Files claimed once the pieces read already pass the cap are summed up without being read:
 * late.txt, past it, keeps an access time that any read of it would move (relatime moves one
 * older than the file's change). The summary says the same as it would, read: the files from
 * the first past the cap, their bytes, their tokens from their sizes, the skip. */
START_TEST(limits_answer_cap_unread) {
  g_autofree char *full = write_full_file(dmn->dir);
  g_autofree char *late = rd_write_str(dmn->dir, "late.txt", "package late\n\nfunc Late() {}\n");
  g_autofree char *q_full = rd_json_quote(full), *q_late = rd_json_quote(late);
  GString *params = g_string_new("{\"paths\":[");
  struct timeval times[2] = {{.tv_sec = 1000000000}, {0}};
  struct stat full_st, late_st;
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *res;
  guint first;
  int64_t want_bytes, want_tokens;

  for (int i = 0; i < N_PATHS; i++)
    g_string_append_printf(params, "%s%s", i ? "," : "", i < N_PATHS - 100 ? q_full : q_late);
  g_string_append(params, "]}");
  ck_assert_int_eq(gettimeofday(&times[1], NULL), 0);
  ck_assert_int_eq(utimes(late, times), 0);
  res = rd_read(c, params->str);
  first = assert_capped(res, N_PATHS);
  ck_assert_uint_lt(first, N_PATHS - 100 - 50);
  ck_assert_int_eq(stat(full, &full_st), 0);
  ck_assert_int_eq(stat(late, &late_st), 0);
  ck_assert_int_eq(late_st.st_atime, 1000000000);
  /* The summary: every file from the first past the cap, as a read of them would sum them. */
  want_bytes = (int64_t)(N_PATHS - 100 - first) * full_st.st_size + 100 * late_st.st_size;
  want_tokens =
      (int64_t)(N_PATHS - 100 - first) * (full_st.st_size / 4 + 1) + 100 * (late_st.st_size / 4 + 1);
  ck_assert_ptr_nonnull(res->summary);
  ck_assert_int_eq(rd_xml_prop_int(res->summary, "files"), N_PATHS - first);
  ck_assert_int_eq(rd_xml_prop_int(res->summary, "skip"), first);
  ck_assert_int_eq(rd_xml_prop_int(res->summary, "bytes"), want_bytes);
  ck_assert_int_eq(rd_xml_prop_int(res->summary, "tokensTotal"), want_tokens);
  ck_assert_int_eq(json_object_get_int_member(res->result, "lines"), (int64_t)first * 2000);
  rd_result_free(res);
  /* Read on its own, it is read. */
  res = rd_read_paths(c, (const char *const[]){late}, 1, NULL);
  ck_assert_ptr_null(rd_file_str(res, 0, "code"));
  rd_result_free(res);
  ck_assert_int_eq(stat(late, &late_st), 0);
  ck_assert_int_gt(late_st.st_atime, 1000000000);
  rd_conn_free(c);
  g_string_free(params, TRUE);
}
END_TEST

START_TEST(limits_answer_cap_cli) {
  char *path = write_full_file(dmn->dir);
  GPtrArray *argv = g_ptr_array_new();
  RdRun run;

  g_ptr_array_add(argv, (char *)rd_readerd());
  g_ptr_array_add(argv, "read");
  g_ptr_array_add(argv, "--json");
  for (int i = 0; i < N_PATHS; i++)
    g_ptr_array_add(argv, path);
  g_ptr_array_add(argv, NULL);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 120000, &run);
  ck_assert_int_eq(run.code, 1);
  ck_assert_uint_le(run.out_len, READ_MAX_ANSWER_BYTES + (size_t)1024 * 1024);
  RdResult *res = rd_result_from_json(run.out, run.out_len);
  assert_capped(res, N_PATHS);
  rd_result_free(res);
  rd_run_clear(&run);
  g_ptr_array_free(argv, TRUE);
  g_free(path);
}
END_TEST

static void limits_setup(void) {
  dmn = rd_daemon_start();
}

static void limits_teardown(void) {
  rd_daemon_stop(dmn);
  rd_daemon_free(dmn);
  dmn = NULL;
}

static Suite *limits_suite(void) {
  Suite *s = suite_create("limits");
  TCase *tc = tcase_create("answer");

  tcase_set_timeout(tc, 240);
  tcase_add_checked_fixture(tc, limits_setup, limits_teardown);
  tcase_add_test(tc, limits_answer_cap_daemon);
  tcase_add_test(tc, limits_answer_cap_unread);
  tcase_add_test(tc, limits_answer_cap_cli);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(limits_suite());
}
