/* Continuations (`skip`, daemon/request/continuation.h) through the real binary: the socket
 * daemon, the MCP server over its stdio and the one-shot command line, which has nothing to
 * remember and expands every time. A continuation follows what the answer that named it
 * covered: each entry answered once, in order, as one read without a budget lists them; and when
 * a folder already answered gains a file in between, the continuation still starts at the entry
 * the summary named, where a fresh expansion's count moves by one. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <glib-unix.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;

static void setup(void) {
  rd_fixture_setup(&dmn, NULL);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, NULL);
}

/* The budget each answer gets: about two files shown of the tree's, some listed, the rest in
 * the summary. */
#define BUDGET 1500

/* The request's paths: two folders and a glob around a file. The first folder is short, so
 * that the first cut falls past it. */
static const char *const PATHS[] = {"cont/a", "cont/x.txt", "cont/b", "cont/c/*.txt", NULL};
/* The same files named one by one: nothing expands, each path is an entry. */
static const char *const FILES[] = {
    "cont/a/f0.txt", "cont/a/f1.txt", "cont/x.txt",    "cont/b/g0.txt",
    "cont/b/g1.txt", "cont/b/g2.txt", "cont/b/g3.txt", "cont/b/g4.txt",
    "cont/b/g5.txt", "cont/c/h1.txt", "cont/c/h2.txt", NULL};

/* Forty lines of about twelve tokens: one file is a third of the budget. */
static void write_file(const char *name) {
  GString *s = g_string_new(NULL);

  for (int k = 0; k < 40; k++)
    g_string_append_printf(s, "line %d of %s: some words that a model reads\n", k, name);
  g_free(rd_write_str(dmn->dir, name, s->str));
  g_string_free(s, TRUE);
}

static void write_tree(void) {
  static const char *const names[] = {
      "cont/a/f0.txt", "cont/a/f1.txt", "cont/x.txt",    "cont/b/g0.txt", "cont/b/g1.txt",
      "cont/b/g2.txt", "cont/b/g3.txt", "cont/b/g4.txt", "cont/b/g5.txt", "cont/c/h1.txt",
      "cont/c/h2.txt", "cont/c/h3.md"};

  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    write_file(names[i]);
}

/* One answer taken apart: the entries it answered (shown or listed) before its summary, and
 * the skip and first entry its summary names (-1 and NULL without one). */
typedef struct {
  GPtrArray *entries; /* char* */
  GPtrArray *froms;   /* the entries' `from`, as decimal text, "" when absent */
  int64_t skip;
  char *first;
} Answer;

static void answer_clear(Answer *a) {
  g_ptr_array_unref(a->entries);
  g_ptr_array_unref(a->froms);
  g_free(a->first);
}

/* The files[] of a JSON-RPC result (the daemon's, or the CLI's --json) until the summary. */
static void answer_from_result(RdResult *r, Answer *ret) {
  JsonObject *om = json_object_has_member(r->result, "omitted")
                       ? json_object_get_object_member(r->result, "omitted")
                       : NULL;
  guint n = json_array_get_length(r->files);

  ret->entries = g_ptr_array_new_with_free_func(g_free);
  ret->froms = g_ptr_array_new_with_free_func(g_free);
  ret->skip = om != NULL ? json_object_get_int_member(om, "skip") : -1;
  ret->first = om != NULL ? g_strdup(json_object_get_string_member(om, "first")) : NULL;
  if (om != NULL)
    n -= (guint)json_object_get_int_member(om, "files");
  for (guint i = 0; i < n; i++) {
    g_ptr_array_add(ret->entries, g_strdup(rd_file_str(r, i, "path")));
    g_ptr_array_add(ret->froms, json_object_has_member(rd_file(r, i), "from")
                                    ? g_strdup_printf("%" G_GINT64_FORMAT, rd_file_int(r, i, "from"))
                                    : g_strdup(""));
  }
}

/* A read of paths over the daemon's socket, from `skip`, with `expand` as given (NULL: true). */
static void daemon_answer(RdConn *c, const char *const *paths, int64_t skip, const char *expand,
                          Answer *ret) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *list = rd_json_paths(paths, g_strv_length((char **)paths));
  g_autofree char *params = g_strdup_printf(
      "{\"paths\":%s,\"cwd\":%s,\"expand\":%s,\"budget\":{\"tokens\":%d},\"skip\":%" G_GINT64_FORMAT
      "}",
      list, cwd, expand != NULL ? expand : "true", BUDGET, skip);
  RdResult *r = rd_read(c, params);

  answer_from_result(r, ret);
  rd_result_free(r);
}

/* The same read by the one-shot command line: a fresh process, a fresh expansion. */
static void cli_answer(const char *const *paths, int64_t skip, Answer *ret) {
  g_autofree char *budget = g_strdup_printf("%d", BUDGET);
  g_autofree char *skip_s = g_strdup_printf("%" G_GINT64_FORMAT, skip);
  const char *const opts[] = {rd_readerd(), "read", "--json", "--budget", budget, "--skip", skip_s};
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  RdResult *r;
  RdRun run;

  for (size_t i = 0; i < G_N_ELEMENTS(opts); i++)
    g_ptr_array_add(argv, (char *)opts[i]);
  for (size_t i = 0; paths[i] != NULL; i++)
    g_ptr_array_add(argv, (char *)paths[i]);
  g_ptr_array_add(argv, NULL);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 30000, &run);
  ck_assert_msg(run.code == 0 || run.code == 1, "exit %d: %s", run.code, run.err);
  r = rd_result_from_json(run.out, run.out_len);
  answer_from_result(r, ret);
  rd_result_free(r);
  rd_run_clear(&run);
}

/* Every entry of the paths, in order, with its `from`: one read without a budget. */
static void whole_list(RdConn *c, const char *const *paths, GPtrArray **ret_entries,
                       GPtrArray **ret_froms) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *list = rd_json_paths(paths, g_strv_length((char **)paths));
  g_autofree char *params =
      g_strdup_printf("{\"paths\":%s,\"cwd\":%s,\"expand\":true}", list, cwd);
  RdResult *r = rd_read(c, params);
  Answer a;

  answer_from_result(r, &a);
  rd_result_free(r);
  ck_assert_int_eq(a.skip, -1);
  *ret_entries = g_ptr_array_ref(a.entries);
  *ret_froms = g_ptr_array_ref(a.froms);
  answer_clear(&a);
}

/* Follows paths' continuations from the start, over the daemon (remembered) and the command
 * line (expanded again each time), checking that both answer the same entries, each once, in
 * the order and with the `from` of one read without a budget. Returns how many answers it took
 * and, in *ret_inside, how many cuts fell inside cont/b's entries (past its first). */
static guint follow(RdConn *c, const char *const *paths, guint *ret_inside) {
  g_autoptr(GPtrArray) want = NULL;
  g_autoptr(GPtrArray) want_from = NULL;
  guint got = 0, answers = 0;
  int64_t skip = 0;

  whole_list(c, paths, &want, &want_from);
  ck_assert_uint_eq(want->len, 11); /* h3.md is not matched by the glob */
  *ret_inside = 0;
  while (skip >= 0) {
    Answer d, l;

    daemon_answer(c, paths, skip, NULL, &d);
    cli_answer(paths, skip, &l);
    ck_assert_int_eq(d.skip, l.skip);
    ck_assert_uint_eq(d.entries->len, l.entries->len);
    ck_assert_uint_gt(d.entries->len, 0); /* every answer moves on */
    for (guint i = 0; i < d.entries->len; i++, got++) {
      ck_assert_uint_lt(got, want->len);
      ck_assert_str_eq(g_ptr_array_index(d.entries, i), g_ptr_array_index(want, got));
      ck_assert_str_eq(g_ptr_array_index(l.entries, i), g_ptr_array_index(want, got));
      ck_assert_str_eq(g_ptr_array_index(d.froms, i), g_ptr_array_index(want_from, got));
    }
    if (d.skip >= 0) {
      ck_assert_int_eq(d.skip, (int64_t)got);
      ck_assert_str_eq(d.first, g_ptr_array_index(want, got));
      *ret_inside +=
          g_str_has_prefix(d.first, "cont/b/g") && strcmp(d.first, "cont/b/g0.txt") != 0;
    }
    skip = d.skip;
    answers++;
    answer_clear(&d);
    answer_clear(&l);
  }
  ck_assert_uint_eq(got, want->len);
  return answers;
}

/* Nothing changes between the calls: every entry once, whether remembered or counted again;
 * with folders, the first cut falls past the first folder and later ones inside the second, so
 * that both paths skipped whole and a folder's entries skipped in part are counted; with the
 * files named one by one, three continuations and more chain what each remembered. */
START_TEST(continuation_every_entry_once) {
  RdConn *c = rd_conn_new(dmn->sock);
  guint inside;

  write_tree();
  ck_assert_uint_ge(follow(c, PATHS, &inside), 3);
  ck_assert_uint_ge(inside, 1);
  ck_assert_uint_ge(follow(c, FILES, &inside), 3);
  rd_conn_free(c);
}
END_TEST

/* A file added to the first folder after the first answer, whose cut lies past that folder:
 * the daemon's continuation starts at the entry its summary named, once; the command line,
 * which expands again, counts the new file and starts one entry earlier, answering again an
 * entry already answered (which is what remembering spares). A request that differs in
 * anything that could change the expansion (here expand.maxFiles) is expanded again too. */
START_TEST(continuation_after_the_tree_changed) {
  RdConn *c = rd_conn_new(dmn->sock);
  Answer first, next, cli, other;

  write_tree();
  daemon_answer(c, PATHS, 0, NULL, &first);
  ck_assert_int_gt(first.skip, 2);
  ck_assert(!g_str_has_prefix(first.first, "cont/a/"));
  write_file("cont/a/e.txt"); /* sorts before f0.txt: the folder's entries move by one */

  daemon_answer(c, PATHS, first.skip, NULL, &next);
  ck_assert_str_eq(g_ptr_array_index(next.entries, 0), first.first);

  cli_answer(PATHS, first.skip, &cli);
  ck_assert_str_eq(g_ptr_array_index(cli.entries, 0),
                   g_ptr_array_index(first.entries, first.entries->len - 1));

  daemon_answer(c, PATHS, first.skip, "{\"maxFiles\":499}", &other);
  ck_assert_str_eq(g_ptr_array_index(other.entries, 0),
                   g_ptr_array_index(first.entries, first.entries->len - 1));

  answer_clear(&first);
  answer_clear(&next);
  answer_clear(&cli);
  answer_clear(&other);
  rd_conn_free(c);
}
END_TEST

/* The text blocks of one tools/call answer of read_files, joined. g_free. */
static char *mcp_call(RdConn *c, int64_t skip) {
  g_autofree char *list = rd_json_paths(PATHS, g_strv_length((char **)PATHS));
  g_autofree char *params = g_strdup_printf(
      "{\"name\":\"read_files\",\"arguments\":{\"paths\":%s,\"budget\":{\"tokens\":%d},"
      "\"skip\":%" G_GINT64_FORMAT "}}",
      list, BUDGET, skip);
  g_autofree char *key = rd_conn_request(c, "tools/call", params, NULL);
  JsonNode *m = rd_conn_wait(c, key, 30000);
  JsonArray *content = json_object_get_array_member(rd_result_of(m), "content");
  GString *text = g_string_new(NULL);

  for (guint k = 0; k < json_array_get_length(content); k++) {
    JsonObject *block = json_array_get_object_element(content, k);

    if (json_object_has_member(block, "text"))
      g_string_append(text, json_object_get_string_member(block, "text"));
  }
  json_node_unref(m);
  return g_string_free(text, FALSE);
}

/* The value of attribute `name` in the first element `tag` of xml, or NULL. g_free. */
static char *attr_of(const char *xml, const char *tag, const char *name) {
  g_autofree char *open = g_strdup_printf("<%s ", tag);
  g_autofree char *key = g_strdup_printf(" %s='", name);
  const char *el = strstr(xml, open), *end, *v;

  if (el == NULL || (end = strchr(el, '>')) == NULL)
    return NULL;
  v = g_strstr_len(el, end - el, key);
  if (v == NULL)
    return NULL;
  v += strlen(key);
  return g_strndup(v, strcspn(v, "'"));
}

/* The MCP face: `readerd mcp` with the tree as its root, one session; the same change between
 * the calls; the continuation starts at the entry the summary named. */
START_TEST(continuation_mcp) {
  const char *argv[] = {rd_readerd(), "mcp", "--root", dmn->dir, NULL};
  int in[2], out[2];
  GPid pid;
  RdConn *c;
  JsonNode *m;
  g_autofree char *text1 = NULL, *text2 = NULL, *skip = NULL, *first = NULL, *got = NULL;
  int status;

  write_tree();
  ck_assert(g_unix_open_pipe(in, FD_CLOEXEC, NULL));
  ck_assert(g_unix_open_pipe(out, FD_CLOEXEC, NULL));
  pid = rd_spawn(dmn->dir, argv, in[0], out[1], -1);
  close(in[0]);
  close(out[1]);
  c = rd_conn_new_fds(out[0], in[1]);
  m = rd_conn_call(c, "initialize",
                   "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                   "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
  json_node_unref(m);
  rd_conn_notify(c, "notifications/initialized", NULL);

  text1 = mcp_call(c, 0);
  skip = attr_of(text1, "Omitted", "skip");
  first = attr_of(text1, "Omitted", "first");
  ck_assert_ptr_nonnull(skip);
  ck_assert_msg(!g_str_has_prefix(first, "cont/a/"), "%s", first);
  write_file("cont/a/e.txt");
  text2 = mcp_call(c, g_ascii_strtoll(skip, NULL, 10));
  got = attr_of(text2, "Content", "path");
  ck_assert_str_eq(got, first);

  rd_conn_close_write(c);
  ck_assert(rd_wait_pid(pid, 30000, &status));
  ck_assert_int_eq(rd_exit_code(status), 0);
  rd_conn_free(c);
}
END_TEST

static Suite *continuation_suite(void) {
  Suite *s = suite_create("continuation-daemon");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, continuation_every_entry_once);
  tcase_add_test(tc, continuation_after_the_tree_changed);
  tcase_add_test(tc, continuation_mcp);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(continuation_suite());
}
