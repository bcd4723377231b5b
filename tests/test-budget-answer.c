/* Integration tests of a budget over the whole answer the model reads: 2,000 files of Go's
 * source tree through the real readerd binary over its socket, its command line and its MCP
 * face. The answer's XML is priced here, independently, with the estimator itself: content and
 * markup together never pass the budget; every file left out is listed or summarized, and the
 * summary's continuation (skip) reads exactly the next files. Skipped (77) without
 * golang-1.19-src. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "formatters/tokens.h"
#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

#define GO_SRC "/usr/share/go-1.19/src"

static RdDaemon *dmn;

static void setup(void) {
  rd_fixture_setup(&dmn, NULL);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, NULL);
}

/* A read of 2,000 files of the Go tree (expand, in their byte order) with a budget, from entry
 * skip on. */
static RdResult *read_go(RdConn *c, int64_t budget, int64_t skip) {
  g_autofree char *params =
      g_strdup_printf("{\"paths\":[\"" GO_SRC
                      "\"],\"expand\":{\"maxFiles\":2000},\"budget\":{\"tokens\":%" G_GINT64_FORMAT
                      "},\"skip\":%" G_GINT64_FORMAT "}",
                      budget, skip);

  return rd_read(c, params);
}

static int64_t member_int(JsonObject *o, const char *name) {
  ck_assert_msg(json_object_has_member(o, name), "no %s", name);
  return json_object_get_int_member(o, name);
}

/* The estimate of the whole XML, as the model reads it. */
static int64_t xml_tokens(RdResult *r) {
  const char *xml = json_object_get_string_member(r->result, "xml");

  return tokens_text(xml, strlen(xml));
}

/* The estimate of one element as the XML has it (a <Content> with no children is written on
 * one line; its text is found between its path and the next element). */
static int64_t element_tokens(RdResult *r, guint i) {
  const char *xml = json_object_get_string_member(r->result, "xml");
  g_autofree char *q = g_markup_printf_escaped("<Content path='%s'", rd_file_str(r, i, "path"));
  const char *at = strstr(xml, q), *end;

  ck_assert_ptr_nonnull(at);
  end = strchr(at, '\n');
  return tokens_text(at, (size_t)(end - at + 1));
}

/* A file listed as left out says what it holds when a read's head (64 KiB) is the whole file:
 * its lines, as the file has them, and a tokensTotal that is not a guess from its size. */
static void check_listed_lines(RdResult *r, guint i) {
  const char *path = rd_file_str(r, i, "path");
  g_autofree char *text = NULL;
  gsize len = 0;
  int64_t lines = 0;

  if (rd_file_int(r, i, "bytes") > 65536 || g_strcmp0(rd_file_str(r, i, "type"), "text") != 0) {
    /* Not text (or its head is not the whole file): no lines. */
    ck_assert_msg(rd_file_int(r, i, "bytes") > 65536 || rd_file_str(r, i, "type") != NULL,
                  "%s: listed without a type", path);
    return;
  }
  ck_assert(g_file_get_contents(path, &text, &len, NULL));
  for (gsize k = 0; k < len; k++)
    lines += text[k] == '\n';
  if (len > 0 && text[len - 1] != '\n')
    lines++;
  ck_assert_msg(json_object_has_member(rd_file(r, i), "lines"), "%s: listed without lines", path);
  ck_assert_int_eq(rd_file_int(r, i, "lines"), lines);
  ck_assert_int_gt(rd_file_int(r, i, "tokensTotal"), len > 0 ? 0 : -1);
}

/* The answer's tokens, content and markup, never pass the budget; answerTokens says them (an
 * upper bound, within 2% of the estimate of the XML); every file left out is listed in at most
 * a tenth of the budget, or counted in the summary, whose numbers add up. Returns the index of
 * the first summarized file (the count of files when none is). */
static guint check_answer(RdResult *r, int64_t budget, int64_t skip) {
  int64_t est = xml_tokens(r), answer = member_int(r->result, "answerTokens"), listed = 0;
  guint n = json_array_get_length(r->files), shown = 0, omitted = 0;
  g_autofree char *attr = rd_attr(r, -1, "answerTokens");

  ck_assert_int_le(est, budget);
  ck_assert_int_le(answer, budget);
  ck_assert_int_eq(g_ascii_strtoll(attr, NULL, 10), answer);
  ck_assert_int_ge(answer, est);
  ck_assert_int_le(answer - est, est / 50 + 10);
  ck_assert_int_le(member_int(r->result, "tokens"), answer);
  for (guint i = 0; i < r->contents->len; i++) {
    if (g_strcmp0(rd_file_str(r, i, "omitted"), "budget") == 0) {
      listed += element_tokens(r, i);
      omitted++;
      check_listed_lines(r, i);
    } else if (rd_file_str(r, i, "omitted") == NULL && rd_file_str(r, i, "code") == NULL) {
      shown++;
    }
  }
  ck_assert_int_le(listed, budget / 10);
  if (r->summary != NULL) {
    JsonObject *o = json_object_get_object_member(r->result, "omitted");
    guint cut = r->contents->len;
    int64_t bytes = 0, total = 0;

    /* Every entry from the cut: files left out (binary files listed as such, too). */
    for (guint j = cut; j < n; j++) {
      ck_assert_ptr_nonnull(rd_file_str(r, j, "omitted"));
      ck_assert_int_eq(rd_file_int(r, j, "tokens"), 0);
      bytes += rd_file_int(r, j, "bytes");
      if (strcmp(rd_file_str(r, j, "omitted"), "budget") == 0)
        total += rd_file_int(r, j, "tokensTotal");
    }
    ck_assert_int_eq(rd_xml_prop_int(r->summary, "files"), n - cut);
    ck_assert_int_eq(rd_xml_prop_int(r->summary, "bytes"), bytes);
    ck_assert_int_eq(rd_xml_prop_int(r->summary, "tokensTotal"), total);
    ck_assert_int_eq(rd_xml_prop_int(r->summary, "skip"), skip + cut);
    ck_assert_int_eq(member_int(o, "bytes"), bytes);
    ck_assert_int_eq(member_int(o, "tokensTotal"), total);
    ck_assert_int_eq(member_int(o, "skip"), skip + cut);
    printf("budget %" G_GINT64_FORMAT ": %u shown, %u listed (%" G_GINT64_FORMAT
           " tokens), %u summarized; answer %" G_GINT64_FORMAT
           " (estimate of the XML %" G_GINT64_FORMAT "), content %" G_GINT64_FORMAT "\n",
           budget, shown, omitted, listed, n - cut, answer, est, member_int(r->result, "tokens"));
    return cut;
  }
  return n;
}

/* 2,000 Go files under budgets from tight to roomy: the whole answer within each. */
START_TEST(budget_answer_within_budget) {
  const int64_t budgets[] = {1500, 5000, 25000, 50000, 200000};
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t b = 0; b < G_N_ELEMENTS(budgets); b++) {
    RdResult *r = read_go(c, budgets[b], 0);

    ck_assert_int_eq(json_array_get_length(r->files), 2000);
    ck_assert_uint_lt(check_answer(r, budgets[b], 0), 2000);
    rd_result_free(r);
  }
  rd_conn_free(c);
}
END_TEST

/* The summary's skip reads the very next files: the same entries in the same order, the
 * first of them now shown from its first line; and a skip past the end answers none. */
START_TEST(budget_answer_continues_with_skip) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r = read_go(c, 50000, 0), *next;
  guint cut = check_answer(r, 50000, 0), n = json_array_get_length(r->files);
  const char *first = rd_file_str(r, cut, "path");
  g_auto(GStrv) lines = NULL;
  size_t len;
  g_autofree char *data = NULL;

  next = read_go(c, 50000, cut);
  ck_assert_uint_eq(json_array_get_length(next->files), n - cut);
  for (guint j = cut; j < n; j++)
    ck_assert_str_eq(rd_file_str(next, j - cut, "path"), rd_file_str(r, j, "path"));
  ck_assert_str_eq(rd_file_str(next, 0, "path"), first);
  ck_assert_ptr_null(rd_file_str(next, 0, "omitted"));
  data = rd_read_file(first, &len);
  lines = rd_text_lines(next, 0);
  {
    g_auto(GStrv) raw = rd_split_lines(data, len);
    g_autofree char *want = g_strdup_printf("%6d\t%s", 1, raw[0]);

    ck_assert_str_eq(lines[0], want);
  }
  check_answer(next, 50000, cut);
  rd_result_free(next);
  /* Past the last entry: an answer with none. */
  next = read_go(c, 50000, 2000);
  ck_assert_uint_eq(json_array_get_length(next->files), 0);
  ck_assert_int_le(xml_tokens(next), 50000);
  rd_result_free(next);
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* readerd read --budget N --skip K: the same answer as the socket's. */
START_TEST(budget_answer_cli) {
  const char *argv[] = {rd_readerd(), "read",   "--json", "--max-files", "2000", "--budget",
                        "20000",      "--skip", "40",     GO_SRC,        NULL};
  RdRun run;
  RdResult *r;

  rd_run(dmn->dir, argv, NULL, 0, 60000, &run);
  ck_assert_int_eq(run.code, 0);
  r = rd_result_from_json(run.out, run.out_len);
  ck_assert_uint_eq(json_array_get_length(r->files), 2000 - 40);
  check_answer(r, 20000, 40);
  rd_result_free(r);
  rd_run_clear(&run);
}
END_TEST

/* The text blocks of read_files' answer to call `id` in readerd mcp's output, joined: what the
 * model reads. g_free. */
static char *mcp_text(const char *out, int id) {
  g_autofree char *key = g_strdup_printf("\"id\":%d,", id);
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  GString *text = g_string_new(NULL);

  for (guint i = 0; lines[i] != NULL; i++) {
    JsonNode *m;
    JsonArray *content;

    if (strstr(lines[i], key) == NULL || strstr(lines[i], "\"result\"") == NULL)
      continue;
    m = rd_json_parse(lines[i], strlen(lines[i]));
    content = json_object_get_array_member(
        json_object_get_object_member(json_node_get_object(m), "result"), "content");
    for (guint k = 0; k < json_array_get_length(content); k++) {
      JsonObject *block = json_array_get_object_element(content, k);

      if (strcmp(json_object_get_string_member(block, "type"), "text") == 0)
        g_string_append(text, json_object_get_string_member(block, "text"));
    }
    json_node_unref(m);
    return g_string_free(text, FALSE);
  }
  ck_abort_msg("no answer to call %d: %.400s", id, out);
  return NULL;
}

/* readerd mcp: read_files on 2,000 Go files keeps to its default budget (25,000 tokens),
 * markup included, and its <Omitted> skip reads the next file in the next call. */
START_TEST(budget_answer_mcp) {
  static const char init[] =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
  const char *argv[] = {rd_readerd(), "mcp", "--root", GO_SRC, NULL};
  g_autofree char *in = g_strdup_printf(
      "%s{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":{\"paths\":[\".\"],\"expand\":{\"maxFiles\":2000}}}}\n",
      init);
  g_autofree char *text = NULL, *first = NULL, *in2 = NULL, *text2 = NULL, *want = NULL;
  const char *at;
  int64_t skip;
  RdRun run;

  rd_run(dmn->dir, argv, in, strlen(in), 60000, &run);
  ck_assert_int_eq(run.code, 0);
  text = mcp_text(run.out, 2);
  ck_assert_int_le(tokens_text(text, strlen(text)), 25000);
  at = strstr(text, "<Omitted ");
  ck_assert_msg(at != NULL, "no summary: %.300s", text);
  first = g_strndup(strstr(at, "first='") + 7, strcspn(strstr(at, "first='") + 7, "'"));
  skip = g_ascii_strtoll(strstr(at, "skip='") + 6, NULL, 10);
  ck_assert_int_gt(skip, 0);
  rd_run_clear(&run);
  in2 = g_strdup_printf(
      "%s{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":{\"paths\":[\".\"],\"expand\":{\"maxFiles\":2000},"
      "\"skip\":%" G_GINT64_FORMAT "}}}\n",
      init, skip);
  rd_run(dmn->dir, argv, in2, strlen(in2), 60000, &run);
  ck_assert_int_eq(run.code, 0);
  text2 = mcp_text(run.out, 3);
  ck_assert_int_le(tokens_text(text2, strlen(text2)), 25000);
  want = g_strdup_printf("<Content path='%s' ", first);
  ck_assert_msg(g_str_has_prefix(text2, want), "the next call starts with %.200s, not %s", text2,
                want);
  rd_run_clear(&run);
}
END_TEST

/* readerd mcp's answer text to one read_files of paths (a JSON array) with a budget. g_free. */
static char *mcp_read_budget(const char *paths, int64_t budget) {
  const char *argv[] = {rd_readerd(), "mcp", "--root", GO_SRC, NULL};
  g_autofree char *in = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":{\"paths\":%s,\"budget\":{\"tokens\":%" G_GINT64_FORMAT
      "}}}}\n",
      paths, budget);
  char *text;
  RdRun run;

  rd_run(dmn->dir, argv, in, strlen(in), 60000, &run);
  ck_assert_int_eq(run.code, 0);
  text = mcp_text(run.out, 2);
  rd_run_clear(&run);
  return text;
}

/* The result of a read of paths (a JSON array) in Go's tree in the text format with a budget,
 * as JSON, without its budget. g_free. */
static char *socket_read_budget(RdConn *c, const char *paths, int64_t budget) {
  g_autofree char *params = g_strdup_printf(
      "{\"paths\":%s,\"cwd\":\"" GO_SRC "\",\"format\":\"text\",\"budget\":{\"tokens\":%" G_GINT64_FORMAT
      "}}",
      paths, budget);
  g_autoptr(JsonNode) msg = rd_conn_call(c, "read", params);
  g_autoptr(JsonNode) node = json_node_new(JSON_NODE_OBJECT);
  JsonObject *result = rd_result_of(msg);

  ck_assert_int_eq(member_int(result, "budget"), budget);
  ck_assert_int_gt(member_int(result, "answerTokens"), 0);
  json_object_remove_member(result, "budget");
  json_node_set_object(node, result);
  return json_to_string(node, FALSE);
}

/* A budget that no answer can reach (the 8 MiB cap of read_files at the most a byte can cost,
 * pictures included, is under 10^9; the socket's 64 MiB in the text format, whose pictures
 * cost nothing, too) reads without measuring, and answers what a budget that is measured but
 * cuts nothing answers (5 * 10^8 is under the 8 MiB cap's bound, 10^8 under the 64 MiB one):
 * the same files, cuts, tokens and answerTokens, with a text cut by its content cap and a
 * picture among them. */
START_TEST(budget_answer_not_binding_same) {
  static const char paths[] = "[\"fmt\",\"cmd/compile/internal/ssa/rewriteAMD64.go\","
                              "\"image/testdata/video-001.png\",\"absent.go\"]";
  g_autofree char *loose = mcp_read_budget(paths, 999999999);
  g_autofree char *measured = mcp_read_budget(paths, 500000000);
  g_autofree char *loose_sock = NULL, *measured_sock = NULL;
  RdConn *c = rd_conn_new(dmn->sock);

  ck_assert_ptr_nonnull(strstr(loose, "truncated='true'"));
  ck_assert_ptr_nonnull(strstr(loose, "type='image'"));
  ck_assert_str_eq(loose, measured);
  loose_sock = socket_read_budget(c, paths, 999999999);
  measured_sock = socket_read_budget(c, paths, 100000000);
  ck_assert_str_eq(loose_sock, measured_sock);
  rd_conn_free(c);
}
END_TEST

/* The o200k_base count (tests/tokens/count.mjs) of each file in paths, in counts. */
static void bpe_counts(const char *root, const char *const *paths, size_t n, int64_t *counts) {
  g_autofree char *script = g_build_filename(root, "tests", "tokens", "count.mjs", NULL);
  g_autofree char *node = g_find_program_in_path("node");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_auto(GStrv) lines = NULL;
  RdRun run;

  g_ptr_array_add(argv, node);
  g_ptr_array_add(argv, script);
  for (size_t i = 0; i < n; i++)
    g_ptr_array_add(argv, (char *)paths[i]);
  g_ptr_array_add(argv, NULL);
  rd_run(NULL, (const char *const *)argv->pdata, NULL, 0, 60000, &run);
  ck_assert_msg(run.code == 0, "node count.mjs failed: %s", run.err);
  lines = g_strsplit(run.out, "\n", -1);
  for (size_t i = 0; i < n; i++) {
    ck_assert_ptr_nonnull(lines[i]);
    counts[i] = g_ascii_strtoll(lines[i], NULL, 10);
  }
  rd_run_clear(&run);
}

/* The markup's estimate against the real BPE (o200k_base, gpt-tokenizer): the XML with every
 * text left out of its CDATA (what the daemon prices as markup) within 10% of its o200k count,
 * and the whole answer's o200k count within 10% of answerTokens (the content's own error is
 * tests/test-tokens.c's). Prints the figures for docs/performance.md. */
START_TEST(budget_answer_markup_against_o200k) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *modules = NULL, *node = NULL;
  RdConn *c;
  const int64_t budgets[] = {5000, 50000};

  ck_assert_msg(root != NULL, "env READERD_SOURCE_ROOT is not set");
  modules = g_build_filename(root, "tests", "tokens", "node_modules", "gpt-tokenizer", NULL);
  node = g_find_program_in_path("node");
  if (!g_file_test(modules, G_FILE_TEST_IS_DIR) || node == NULL)
    SKIP_CASE("node or tests/tokens/node_modules is missing (scripts/deps.sh installs them)");
  c = rd_conn_new(dmn->sock);
  for (size_t b = 0; b < G_N_ELEMENTS(budgets); b++) {
    RdResult *r = read_go(c, budgets[b], 0);
    const char *xml = json_object_get_string_member(r->result, "xml");
    g_autoptr(GRegex) cdata = g_regex_new("<!\\[CDATA\\[.*?\\]\\]>", G_REGEX_DOTALL, 0, NULL);
    g_autofree char *skeleton = g_regex_replace_literal(cdata, xml, -1, 0, "<![CDATA[]]>", 0, NULL);
    g_autofree char *whole_path = rd_write_str(dmn->dir, "answer.xml", xml);
    g_autofree char *skel_path = rd_write_str(dmn->dir, "markup.xml", skeleton);
    const char *paths[] = {whole_path, skel_path};
    int64_t counts[2], answer = member_int(r->result, "answerTokens");
    int64_t markup = tokens_text(skeleton, strlen(skeleton));

    bpe_counts(root, paths, 2, counts);
    printf("budget %" G_GINT64_FORMAT ": markup estimate %" G_GINT64_FORMAT
           ", o200k %" G_GINT64_FORMAT " (%+.1f%%); answerTokens %" G_GINT64_FORMAT
           ", o200k of the XML %" G_GINT64_FORMAT " (%+.1f%%)\n",
           budgets[b], markup, counts[1], 100.0 * (double)(markup - counts[1]) / (double)counts[1],
           answer, counts[0], 100.0 * (double)(answer - counts[0]) / (double)counts[0]);
    ck_assert_int_le(labs(markup - counts[1]), counts[1] / 10);
    ck_assert_int_le(labs(answer - counts[0]), counts[0] / 10);
    rd_result_free(r);
  }
  rd_conn_free(c);
}
END_TEST

/* Bad skip values: -32602 naming the field. */
START_TEST(budget_answer_bad_skip) {
  const char *bad[] = {"-1", "\"3\"", "1.5", "10001"};
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *params = g_strdup_printf("{\"paths\":[\"a.txt\"],\"skip\":%s}", bad[i]);
    JsonNode *m = rd_conn_call(c, "read", params);
    JsonObject *err = json_object_get_object_member(json_node_get_object(m), "error");

    ck_assert_int_eq(rd_error_code(m), -32602);
    ck_assert_msg(g_str_has_prefix(json_object_get_string_member(err, "message"),
                                   "skip must be an integer >= 0"),
                  "%s: %s", bad[i], json_object_get_string_member(err, "message"));
    json_node_unref(m);
  }
  rd_conn_free(c);
}
END_TEST

/* The same request gets the same answer, byte for byte, however the lanes that measure its
 * files side by side happen to be timed: a client's prompt cache depends on it. */
/* Prints where two answers differ: the first entry of files[] that is not the same in both. */
static void show_difference(const char *a, const char *b) {
  g_autoptr(JsonNode) na = json_from_string(a, NULL);
  g_autoptr(JsonNode) nb = json_from_string(b, NULL);
  JsonArray *fa = json_object_get_array_member(json_node_get_object(na), "files");
  JsonArray *fb = json_object_get_array_member(json_node_get_object(nb), "files");

  for (guint i = 0; i < json_array_get_length(fa) && i < json_array_get_length(fb); i++) {
    g_autofree char *ea = json_to_string(json_array_get_element(fa, i), FALSE);
    g_autofree char *eb = json_to_string(json_array_get_element(fb, i), FALSE);

    if (strcmp(ea, eb) != 0) {
      printf("files[%u] first: %s\nfiles[%u] then:  %s\n", i, ea, i, eb);
      fflush(stdout);
      return;
    }
  }
  printf("files: %u, then %u entries\n", json_array_get_length(fa), json_array_get_length(fb));
  fflush(stdout);
}

START_TEST(budget_answer_same_every_time) {
  RdConn *c = rd_conn_new(dmn->sock);
  g_autofree char *first = NULL;

  for (int k = 0; k < 16; k++) {
    RdResult *r = read_go(c, 50000, 0);
    g_autoptr(JsonNode) n = json_node_init_object(json_node_alloc(), r->result);
    g_autofree char *s = json_to_string(n, FALSE);

    if (first == NULL) {
      first = g_steal_pointer(&s);
    } else if (strcmp(first, s) != 0) {
      show_difference(first, s);
      ck_abort_msg("request %d was answered otherwise than the first", k);
    }
    rd_result_free(r);
  }
  rd_conn_free(c);
}
END_TEST

static gint cmp_names(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Up to n regular files of dir and below, names sorted, whose names end with suffix (NULL: any)
 * and, when magic is not NULL, whose first bytes are magic; appended to paths. */
static void collect(GPtrArray *paths, const char *dir, const char *suffix, const char *magic,
                    guint n) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name(d)) != NULL)
    g_ptr_array_add(names, g_strdup(name));
  g_ptr_array_sort(names, cmp_names);
  for (guint i = 0; i < names->len && paths->len < n; i++) {
    g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL);
    char head[4] = {0};
    FILE *fp;

    if (g_file_test(path, G_FILE_TEST_IS_SYMLINK))
      continue;
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
      collect(paths, path, suffix, magic, n);
      continue;
    }
    if (suffix != NULL && !g_str_has_suffix(path, suffix))
      continue;
    if (magic != NULL) {
      fp = fopen(path, "rb");
      if (fp == NULL || fread(head, 1, 4, fp) != 4 || memcmp(head, magic, 4) != 0) {
        if (fp != NULL)
          fclose(fp);
        continue;
      }
      fclose(fp);
    }
    g_ptr_array_add(paths, g_steal_pointer(&path));
  }
}

/* The same with binary files among the text: Go source with an ELF program of /usr/bin after
 * every second file. A binary file about where the budget runs out at the floor is refused when
 * a lane read its head, and would be left out unread by a lane that came a little later; it is
 * answered the same whichever happened. */
START_TEST(budget_answer_binary_same_every_time) {
  g_autoptr(GPtrArray) go = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) elf = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GString) params = g_string_new("{\"budget\":{\"tokens\":20000},\"paths\":[");
  RdConn *c = rd_conn_new(dmn->sock);
  g_autofree char *first = NULL;
  int refused = 0;

  collect(go, GO_SRC "/net", ".go", NULL, 400);
  collect(elf, "/usr/bin", NULL, "\x7f" "ELF", 200);
  if (elf->len < 100) {
    rd_conn_free(c);
    SKIP_CASE("/usr/bin holds %u ELF programs", elf->len);
  }
  ck_assert_uint_ge(go->len, 300);
  for (guint i = 0, j = 0; i < go->len; i++) {
    g_autofree char *q = g_strescape(go->pdata[i], NULL);

    g_string_append_printf(params, "%s\"%s\"", i > 0 ? "," : "", q);
    if (i % 2 == 1 && j < elf->len) {
      g_autofree char *e = g_strescape(elf->pdata[j++], NULL);

      g_string_append_printf(params, ",\"%s\"", e);
    }
  }
  g_string_append(params, "]}");
  for (int k = 0; k < 16; k++) {
    RdResult *r = rd_read(c, params->str);
    g_autoptr(JsonNode) n = json_node_init_object(json_node_alloc(), r->result);
    g_autofree char *s = json_to_string(n, FALSE);

    if (first == NULL) {
      for (guint i = 0; i < json_array_get_length(r->files); i++)
        refused += json_object_has_member(rd_file(r, i), "code");
      first = g_steal_pointer(&s);
    } else if (strcmp(first, s) != 0) {
      show_difference(first, s);
      ck_abort_msg("request %d was answered otherwise than the first", k);
    }
    rd_result_free(r);
  }
  /* The ELF programs the budget reached (shown or listed) are refused as binary. */
  ck_assert_int_gt(refused, 0);
  rd_conn_free(c);
}
END_TEST

static Suite *budget_answer_suite(void) {
  Suite *s = suite_create("budget-answer");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, budget_answer_within_budget);
  tcase_add_test(tc, budget_answer_continues_with_skip);
  tcase_add_test(tc, budget_answer_cli);
  tcase_add_test(tc, budget_answer_mcp);
  tcase_add_test(tc, budget_answer_not_binding_same);
  tcase_add_test(tc, budget_answer_markup_against_o200k);
  tcase_add_test(tc, budget_answer_bad_skip);
  tcase_add_test(tc, budget_answer_same_every_time);
  tcase_add_test(tc, budget_answer_binary_same_every_time);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (!g_file_test(GO_SRC, G_FILE_TEST_IS_DIR)) {
    printf("SKIP: %s is not installed (golang-1.19-src)\n", GO_SRC);
    return 77;
  }
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(budget_answer_suite()));
}
