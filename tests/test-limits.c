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

/* The paths of a read whose answer passes the cap among small files: full files to near the cap,
 * then full files each followed by a small text file, a small binary file and a missing one. The
 * lanes read the small files in a blink, so some taken after the cap are often read already when
 * the full file before them passes it. The files' paths in *ret_small (g_strfreev). */
static GPtrArray *mixed_paths(const char *dir, char ***ret_small) {
  static const char bin[] = "\0\1\2 binary \0\3\4 data \0";
  g_autofree char *full = write_full_file(dir);
  GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
  char **small = g_new0(char *, 4);

  small[0] = rd_write_str(dir, "small.txt", "package small\n\nfunc Small() {}\n");
  small[1] = rd_write_file(dir, "small.bin", bin, sizeof bin - 1);
  small[2] = g_build_filename(dir, "gone.txt", NULL);
  for (int i = 0; i < 600; i++)
    g_ptr_array_add(paths, g_strdup(full));
  for (int i = 0; i < 60; i++) {
    g_ptr_array_add(paths, g_strdup(full));
    for (int k = 0; k < 3; k++)
      g_ptr_array_add(paths, g_strdup(small[k]));
  }
  /* A folder, last: the binary file its expansion lists unread is past the cap like any other. */
  g_ptr_array_add(paths, g_build_filename(dir, "listed", NULL));
  g_free(rd_write_file(paths->pdata[paths->len - 1], "listed.bin", bin, sizeof bin - 1));
  g_free(rd_write_str(paths->pdata[paths->len - 1], "listed.txt", "listed\n"));
  *ret_small = small;
  return paths;
}

/* Checks that every files[] entry from `first` on is a file past the cap answered from its
 * stat alone: its path, FILE_TOO_LARGE naming the cap, `from` for a file of the folder, its
 * size, time and etag, and no tokens; a missing file its FILE_NOT_FOUND without them. Nothing
 * read: no type, no read's refusal (the binary file's UNSUPPORTED_FORMAT), no lines or encoding,
 * not the expansion's `omitted`. */
static void assert_stat_only(RdResult *r, guint first, const char *gone) {
  for (guint j = first; j < json_array_get_length(r->files); j++) {
    JsonObject *f = rd_file(r, j);
    const char *path = rd_file_str(r, j, "path"), *code = rd_file_str(r, j, "code");
    g_autofree char *s = json_to_string(json_array_get_element(r->files, j), FALSE);
    struct stat st;

    ck_assert_msg(!json_object_has_member(f, "type"), "files[%u] past the cap has a type: %s", j,
                  s);
    ck_assert_int_eq(rd_file_int(r, j, "tokens"), 0);
    ck_assert_ptr_nonnull(rd_file_str(r, j, "error"));
    if (strcmp(path, gone) == 0) {
      ck_assert_msg(g_strcmp0(code, "FILE_NOT_FOUND") == 0, "files[%u]: %s", j, s);
      ck_assert_msg(json_object_get_size(f) == 4, "files[%u] says more than its stat: %s", j, s);
      continue;
    }
    ck_assert_msg(g_strcmp0(code, "FILE_TOO_LARGE") == 0, "files[%u] past the cap: %s", j, s);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(rd_file_int(r, j, "bytes"), st.st_size);
    ck_assert_int_eq(rd_file_int(r, j, "modified"), rd_mtime_ms(path));
    ck_assert_ptr_nonnull(rd_file_str(r, j, "etag"));
    ck_assert_msg(json_object_get_size(f) == (json_object_has_member(f, "from") ? 8 : 7),
                  "files[%u] says more than its stat: %s", j, s);
  }
}

/* The first files[] entry where two answers differ, as text for a failure message. */
static char *first_difference(const char *a, const char *b) {
  g_autoptr(JsonNode) na = rd_json_parse(a, strlen(a)), nb = rd_json_parse(b, strlen(b));
  JsonObject *oa = json_node_get_object(na), *ob = json_node_get_object(nb);
  JsonArray *fa, *fb;

  if (json_object_has_member(oa, "result")) {
    oa = json_object_get_object_member(oa, "result");
    ob = json_object_get_object_member(ob, "result");
  }
  fa = json_object_get_array_member(oa, "files");
  fb = json_object_get_array_member(ob, "files");
  for (guint j = 0; j < json_array_get_length(fa) && j < json_array_get_length(fb); j++) {
    g_autofree char *sa = json_to_string(json_array_get_element(fa, j), FALSE);
    g_autofree char *sb = json_to_string(json_array_get_element(fb, j), FALSE);

    if (strcmp(sa, sb) != 0)
      return g_strdup_printf("files[%u]: %s, then %s", j, sa, sb);
  }
  return g_strdup("not in files[]");
}

/* Whatever the lanes had read when the cap was noticed, each file past it is answered from its
 * stat alone, and the same request over the same files gets the same answer, byte for byte,
 * run after run. */
START_TEST(limits_answer_cap_stat_only) {
  g_auto(GStrv) small = NULL;
  g_autoptr(GPtrArray) paths = mixed_paths(dmn->dir, &small);
  g_autofree char *arr = rd_json_paths((const char *const *)paths->pdata, paths->len);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s,\"expand\":true}", arr);
  g_autofree char *want = NULL;
  RdConn *c = rd_conn_new(dmn->sock);

  for (int run = 0; run < 20; run++) {
    /* The same id each time: the whole line is then the same. */
    g_autofree char *key = rd_conn_request(c, "read", params, "7");
    g_autofree char *diff = NULL;
    char *line = NULL;
    RdResult *res;
    guint first;

    ck_assert_int_eq(rd_conn_recv_line(c, 120000, &line), 1);
    if (want != NULL) {
      if (strcmp(line, want) != 0)
        diff = first_difference(want, line);
      ck_assert_msg(diff == NULL, "run %d answers otherwise than run 0: %s", run, diff);
      g_free(line);
      continue;
    }
    want = line;
    res = rd_result_new(rd_json_parse(line, strlen(line)));
    ck_assert_ptr_nonnull(res->summary);
    first = (guint)rd_xml_prop_int(res->summary, "skip");
    /* Past the cap among the small files, not before them. */
    ck_assert_uint_gt(first, 600);
    ck_assert_uint_lt(first, paths->len - 20);
    ck_assert_uint_eq(json_array_get_length(res->files), paths->len + 1);
    assert_stat_only(res, first, small[2]);
    rd_result_free(res);
  }
  rd_conn_free(c);
}
END_TEST

/* The same through the command line, which reads in its own process. */
START_TEST(limits_answer_cap_stat_only_cli) {
  g_auto(GStrv) small = NULL;
  g_autoptr(GPtrArray) paths = mixed_paths(dmn->dir, &small);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_autofree char *want = NULL;

  g_ptr_array_add(argv, (char *)rd_readerd());
  g_ptr_array_add(argv, "read");
  g_ptr_array_add(argv, "--json");
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add(argv, paths->pdata[i]);
  g_ptr_array_add(argv, NULL);
  for (int run = 0; run < 3; run++) {
    g_autofree char *diff = NULL;
    RdResult *res;
    RdRun out;

    rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 120000, &out);
    ck_assert_int_eq(out.code, 1);
    if (want != NULL) {
      if (strcmp(out.out, want) != 0)
        diff = first_difference(want, out.out);
      ck_assert_msg(diff == NULL, "run %d answers otherwise than run 0: %s", run, diff);
      rd_run_clear(&out);
      continue;
    }
    want = g_strndup(out.out, out.out_len);
    res = rd_result_from_json(out.out, out.out_len);
    ck_assert_ptr_nonnull(res->summary);
    assert_stat_only(res, (guint)rd_xml_prop_int(res->summary, "skip"), small[2]);
    rd_result_free(res);
    rd_run_clear(&out);
  }
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

/* The answer to a read of `paths` in the text format, whose "text" is the files' pieces and
 * nothing else; returns the length of that member as sent (escaped), which is what the answer's
 * cap counts. The whole line in *ret_line, the parsed message in *ret_msg, when not NULL. */
static size_t text_answer(RdConn *c, GPtrArray *paths, char **ret_line, JsonNode **ret_msg) {
  g_autofree char *arr = rd_json_paths((const char *const *)paths->pdata, paths->len);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s,\"format\":\"text\"}", arr);
  g_autofree char *key = rd_conn_request(c, "read", params, NULL);
  char *line = NULL;
  const char *p, *start;

  ck_assert_int_eq(rd_conn_recv_line(c, 120000, &line), 1);
  start = strstr(line, "\"result\":{\"text\":\"");
  ck_assert_msg(start != NULL, "no text in %.200s", line);
  start += strlen("\"result\":{\"text\":\"");
  /* No assertion inside the loop: check records every assertion that passes, a write each. */
  for (p = start; *p != '"' && *p != '\0'; p++) {
    if (*p == '\\' && p[1] != '\0')
      p++;
  }
  ck_assert_int_eq(*p, '"');
  if (ret_msg != NULL)
    *ret_msg = rd_json_parse(line, strlen(line));
  if (ret_line != NULL)
    *ret_line = line;
  else
    g_free(line);
  return (size_t)(p - start);
}

/* A text file of 40 lines of `letters` letters in all: its piece grows by exactly a byte a
 * letter (the same lines, the same numbering, no escapes) while its size keeps five digits. */
static char *write_letters(const char *dir, size_t letters) {
  GString *s = g_string_new(NULL);
  char *path;

  ck_assert(letters >= 10000 && letters + 40 <= 99999);
  for (size_t line = 0; line < 40; line++) {
    for (size_t k = letters / 40 + (line < letters % 40); k > 0; k--)
      g_string_append_c(s, 'x');
    g_string_append_c(s, '\n');
  }
  path = rd_write_file(dir, "letters.txt", s->str, s->len);
  g_string_free(s, TRUE);
  return path;
}

static GPtrArray *repeated(const char *path, size_t n, GPtrArray *more) {
  GPtrArray *paths = g_ptr_array_new();

  for (size_t i = 0; i < n; i++)
    g_ptr_array_add(paths, (char *)path);
  for (guint i = 0; more != NULL && i < more->len; i++)
    g_ptr_array_add(paths, more->pdata[i]);
  return paths;
}

/* Pieces that add up to the cap exactly: the file whose piece reaches it is kept whole (the
 * answer holds at most the cap), and every file after it is summed up in the cap's summary,
 * which starts right at the cap. One letter more, and that file is the first summed up. */
START_TEST(limits_answer_cap_exact) {
  g_autofree char *small = rd_write_str(dmn->dir, "small.txt", "package small\n");
  g_autofree char *full = NULL, *letters = NULL, *line = NULL;
  g_autoptr(GPtrArray) one = NULL, two = NULL, probe = NULL, tail = g_ptr_array_new();
  size_t cap = READ_MAX_ANSWER_BYTES, first_len, full_len, base, n_full, n;
  RdConn *c = rd_conn_new(dmn->sock);
  GString *s = g_string_new(NULL);

  /* Full files of about 57 KB of pieces, so that what is left below the cap fits the last. */
  for (int i = 0; i < 1000; i++)
    g_string_append_printf(s, "%04d the quick brown fox jumps over the lazy dog\n", i);
  full = rd_write_file(dmn->dir, "full.txt", s->str, s->len);
  g_string_free(s, TRUE);
  letters = write_letters(dmn->dir, 40000);
  /* Each piece measured in small reads: the first file's, any later full file's, and the letters
   * file's as the second, without its letters. */
  one = repeated(full, 1, NULL);
  two = repeated(full, 2, NULL);
  first_len = text_answer(c, one, NULL, NULL);
  full_len = text_answer(c, two, NULL, NULL) - first_len;
  g_ptr_array_add(tail, letters);
  probe = repeated(full, 1, tail);
  base = text_answer(c, probe, NULL, NULL) - 40000;
  ck_assert_uint_lt(full_len, 59000);
  n_full = (cap - base - 20000) / full_len + 1;
  n = cap - base - (n_full - 1) * full_len;
  g_free(write_letters(dmn->dir, n));
  ck_assert_uint_eq(text_answer(c, probe, NULL, NULL), base + n);
  for (int k = 0; k < 3; k++)
    g_ptr_array_add(tail, small);

  for (int extra = 0; extra <= 1; extra++) {
    g_autoptr(GPtrArray) paths = repeated(full, n_full, tail);
    guint kept = n_full + (extra == 0), past = paths->len - kept;
    g_autofree char *want =
        g_strdup_printf("[%u files left out by the answer's size cap, from %s on", past,
                        (char *)paths->pdata[kept]);
    g_autofree char *skip = g_strdup_printf("skip=%u]", kept);
    g_autoptr(JsonNode) msg = NULL;
    JsonArray *files;
    const char *text, *at;

    g_free(write_letters(dmn->dir, n + extra));
    g_clear_pointer(&line, g_free);
    ck_assert_uint_le(text_answer(c, paths, &line, &msg), cap + 1024);
    files = json_object_get_array_member(
        json_object_get_object_member(json_node_get_object(msg), "result"), "files");
    ck_assert_uint_eq(json_array_get_length(files), paths->len);
    for (guint i = 0; i < paths->len; i++) {
      JsonObject *f = json_array_get_object_element(files, i);
      const char *code = json_object_get_string_member_with_default(f, "code", NULL);

      if (i < kept)
        ck_assert_msg(code == NULL, "%zu letters: files[%u] of %u: %s", n + extra, i, kept, code);
      else
        ck_assert_msg(g_strcmp0(code, "FILE_TOO_LARGE") == 0,
                      "%zu letters: files[%u] past the cap at %u: %s", n + extra, i, kept, code);
    }
    /* The summary's piece is the first past the cap: it starts right where the pieces kept end,
     * at the cap itself when they reach it. */
    text = strstr(line, "\"result\":{\"text\":\"") + strlen("\"result\":{\"text\":\"");
    at = strstr(text, want);
    ck_assert_msg(at != NULL, "%zu letters: no summary of the %u files past the cap", n + extra,
                  past);
    ck_assert_ptr_nonnull(strstr(at, skip));
    /* Past the escaped newline that opens it. */
    ck_assert_uint_eq((size_t)(at - text), (extra == 0 ? cap : cap - (base - first_len + n)) + 2);
  }
  rd_conn_free(c);
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
  tcase_add_test(tc, limits_answer_cap_stat_only);
  tcase_add_test(tc, limits_answer_cap_stat_only_cli);
  tcase_add_test(tc, limits_answer_cap_exact);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(limits_suite());
}
