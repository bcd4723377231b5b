/* Integration tests of token estimates, the request budget and the plan: the real readerd
 * binary over its socket (and its command line), on the project's own source files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <glib/gstdio.h>

#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

/* A real PDF of 17 pages with an outline (shared-mime-info); the mixed folder has it when the
 * machine does. */
#define MIXED_PDF "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"

static RdDaemon *dmn;

static void setup(void) {
  rd_fixture_setup(&dmn, NULL);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, NULL);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The project's .c files under dir (a folder of the source tree), sorted, absolute: real
 * files of every size, always there. g_strfreev. */
static char **sources(const char *dir) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *full = NULL;
  GPtrArray *a = g_ptr_array_new();
  GDir *d;
  const char *name;

  ck_assert_msg(root != NULL, "env READERD_SOURCE_ROOT is not set");
  full = g_build_filename(root, dir, NULL);
  d = g_dir_open(full, 0, NULL);
  ck_assert_ptr_nonnull(d);
  while ((name = g_dir_read_name(d)) != NULL)
    if (g_str_has_suffix(name, ".c"))
      g_ptr_array_add(a, g_build_filename(full, name, NULL));
  g_dir_close(d);
  qsort(a->pdata, a->len, sizeof(char *), cmp_str);
  g_ptr_array_add(a, NULL);
  return (char **)g_ptr_array_free(a, FALSE);
}

/* {"paths":[...], <extra>} */
static char *params_for(char **paths, const char *extra) {
  GString *s = g_string_new("{\"paths\":[");

  for (guint i = 0; paths[i] != NULL; i++) {
    g_autofree char *q = rd_json_quote(paths[i]);

    g_string_append_printf(s, "%s%s", i > 0 ? "," : "", q);
  }
  g_string_append_printf(s, "]%s%s}", extra != NULL ? "," : "", extra != NULL ? extra : "");
  return g_string_free(s, FALSE);
}

/* The sum of files[].tokens, checked against each <Content tokens> (a file a budget's summary
 * counts has no <Content>, and shows nothing). */
static int64_t sum_tokens(RdResult *r) {
  int64_t sum = 0;

  for (guint i = 0; i < json_array_get_length(r->files); i++) {
    g_autofree char *attr = NULL;

    if (i >= r->contents->len) {
      ck_assert_int_eq(rd_file_int(r, i, "tokens"), 0);
      continue;
    }
    attr = rd_attr(r, (int)i, "tokens");

    ck_assert_ptr_nonnull(attr);
    ck_assert_int_eq(g_ascii_strtoll(attr, NULL, 10), rd_file_int(r, i, "tokens"));
    ck_assert_int_ge(rd_file_int(r, i, "tokens"), 0);
    sum += rd_file_int(r, i, "tokens");
  }
  return sum;
}

static int64_t result_int(RdResult *r, const char *member) {
  return json_object_get_int_member(r->result, member);
}

/* Every new param's bad values: -32602 naming the field. */
START_TEST(budget_bad_params) {
  static const struct {
    const char *extra;
    const char *message;
  } bad[] = {
      {"\"budget\":{\"tokens\":0}", "budget.tokens must be an integer >= 1"},
      {"\"budget\":{\"tokens\":-3}", "budget.tokens must be an integer >= 1"},
      {"\"budget\":{\"tokens\":\"9\"}", "budget.tokens must be an integer >= 1"},
      {"\"budget\":{}", "budget.tokens must be an integer >= 1"},
      {"\"budget\":500", "budget must be an object"},
      {"\"plan\":\"yes\"", "plan must be a boolean"},
  };
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *params = g_strdup_printf("{\"paths\":[\"a.txt\"],%s}", bad[i].extra);
    JsonNode *m = rd_conn_call(c, "read", params);
    JsonObject *err = json_object_get_object_member(json_node_get_object(m), "error");

    ck_assert_int_eq(rd_error_code(m), -32602);
    ck_assert_msg(g_str_has_prefix(json_object_get_string_member(err, "message"), bad[i].message),
                  "%s: %s", bad[i].extra, json_object_get_string_member(err, "message"));
    json_node_unref(m);
  }
  rd_conn_free(c);
}
END_TEST

/* tokens on every file and on the answer; a picture is priced w * h / 750 as sent, a failure
 * costs nothing. */
START_TEST(budget_tokens_on_every_file) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *png = g_build_filename(root, "samples", "readerd.png", NULL);
  g_autofree char *c_file = g_build_filename(root, "daemon", "request", "budget.c", NULL);
  char *paths[] = {c_file, png, "/nonexistent/file.txt", NULL};
  g_autofree char *params = params_for(paths, NULL);
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r = rd_read(c, params);
  int64_t w = rd_file_int(r, 1, "width"), h = rd_file_int(r, 1, "height");
  g_autofree char *total = rd_attr(r, -1, "tokens");

  ck_assert_int_gt(rd_file_int(r, 0, "tokens"), rd_file_int(r, 0, "lines"));
  ck_assert_int_eq(rd_file_int(r, 1, "tokens"), (w * h + 749) / 750);
  ck_assert_int_eq(rd_file_int(r, 2, "tokens"), 0);
  ck_assert_int_eq(result_int(r, "tokens"), sum_tokens(r));
  ck_assert_int_eq(g_ascii_strtoll(total, NULL, 10), result_int(r, "tokens"));
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* The lines of files[i] as shown (numbered), and the line after them: the cut's notice. */
static void assert_cut_continues(RdConn *c, RdResult *r, guint i, int64_t share) {
  g_auto(GStrv) got = rd_text_lines(r, i);
  JsonArray *shown = json_object_get_array_member(rd_file(r, i), "shown");
  int64_t last = json_array_get_int_element(shown, 1);
  guint n = g_strv_length(got);
  g_autofree char *notice = g_strdup_printf("more lines not shown (budget of %" G_GINT64_FORMAT
                                            " tokens); continue with offset=%" G_GINT64_FORMAT,
                                            share, last + 1);
  g_autofree char *q = rd_json_quote(rd_file_str(r, i, "path"));
  g_autofree char *next = g_strdup_printf(
      "{\"paths\":[{\"path\":%s,\"offset\":%" G_GINT64_FORMAT ",\"limit\":1}]}", q, last + 1);
  RdResult *r2;
  g_auto(GStrv) following = NULL;
  size_t len;
  g_autofree char *data = rd_read_file(rd_file_str(r, i, "path"), &len);
  g_auto(GStrv) raw = rd_split_lines(data, len);
  g_auto(GStrv) want = rd_numbered((const char *const *)raw, (size_t)last, 1);

  ck_assert(rd_file_true(r, i, "truncated"));
  ck_assert_msg(strstr(got[n - 1], notice) != NULL, "%s does not end with '%s'", got[n - 1],
                notice);
  /* What is shown is the file's first lines, exactly. */
  g_free(got[n - 1]);
  got[n - 1] = NULL;
  ck_assert(rd_lines_equal("cut file", (const char *const *)got, (const char *const *)want));
  /* The continuation reads the very next line. */
  r2 = rd_read(c, next);
  following = rd_text_lines(r2, 0);
  ck_assert_int_eq(
      json_array_get_int_element(json_object_get_array_member(rd_file(r2, 0), "shown"), 0),
      last + 1);
  {
    g_autofree char *want_next = g_strdup_printf("%6" G_GINT64_FORMAT "\t%s", last + 1, raw[last]);

    ck_assert_str_eq(following[0], want_next);
  }
  rd_result_free(r2);
}

/* A budget: files in request order, small ones whole, big ones cut to one fair share, the
 * rest omitted with what is known of them; the answer's tokens never past the budget. */
START_TEST(budget_fair_shares_in_request_order) {
  g_auto(GStrv) paths = sources("daemon");
  const int64_t budgets[] = {3000, 12000, 40000};
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t b = 0; b < G_N_ELEMENTS(budgets); b++) {
    g_autofree char *extra =
        g_strdup_printf("\"budget\":{\"tokens\":%" G_GINT64_FORMAT "}", budgets[b]);
    g_autofree char *params = params_for(paths, extra);
    RdResult *r = rd_read(c, params);
    int64_t share = -1, largest_whole = 0;
    bool omitted_seen = false;
    guint shown = 0, cut = 0;

    ck_assert_int_le(result_int(r, "tokens"), budgets[b]);
    /* The whole answer, markup included, within the budget too. */
    ck_assert_int_le(result_int(r, "tokens"), result_int(r, "answerTokens"));
    ck_assert_int_le(result_int(r, "answerTokens"), budgets[b]);
    ck_assert_int_eq(result_int(r, "tokens"), sum_tokens(r));
    ck_assert_int_eq(result_int(r, "budget"), budgets[b]);
    for (guint i = 0; paths[i] != NULL; i++) {
      const char *omitted = rd_file_str(r, i, "omitted");
      size_t len;
      g_autofree char *data = rd_read_file(paths[i], &len);

      ck_assert_str_eq(rd_file_str(r, i, "path"), paths[i]);
      ck_assert_int_eq(rd_file_int(r, i, "bytes"), (int64_t)len);
      if (omitted != NULL) {
        ck_assert_str_eq(omitted, "budget");
        ck_assert_int_eq(rd_file_int(r, i, "tokens"), 0);
        ck_assert_int_gt(rd_file_int(r, i, "tokensTotal"), 0);
        /* Lines where the measure read the file's head (the whole file, for these). */
        if (json_object_has_member(rd_file(r, i), "lines"))
          ck_assert_int_eq(rd_file_int(r, i, "lines"), rd_count_lines(data, len));
        omitted_seen = true;
        continue;
      }
      /* In request order: nothing is read after a file left out. */
      ck_assert_msg(!omitted_seen, "%s read after a file was omitted", paths[i]);
      shown++;
      if (rd_file_true(r, i, "truncated")) {
        g_autofree char *text = rd_text(r, i);
        const char *at = strstr(text, "(budget of ");
        int64_t s;

        ck_assert_ptr_nonnull(at);
        s = g_ascii_strtoll(at + strlen("(budget of "), NULL, 10);
        /* Every cut file has the same share: the level. */
        ck_assert(share < 0 || s == share);
        share = s;
        ck_assert_int_le(rd_file_int(r, i, "tokens"), share);
        assert_cut_continues(c, r, i, share);
        cut++;
      } else {
        largest_whole = MAX(largest_whole, rd_file_int(r, i, "tokens"));
      }
    }
    /* A whole file never costs more than the share of a cut one. */
    ck_assert(share < 0 || largest_whole <= share);
    /* Shares are useful: at least the floor (1000 tokens, or a quarter of the budget). */
    ck_assert(share < 0 || share >= MIN(1000, budgets[b] / 4));
    ck_assert_uint_gt(shown, 0);
    printf("budget %" G_GINT64_FORMAT ": %u files shown (%u cut, share %" G_GINT64_FORMAT
           "), %u omitted, %" G_GINT64_FORMAT " tokens\n",
           budgets[b], shown, cut, share, g_strv_length(paths) - shown, result_int(r, "tokens"));
    rd_result_free(r);
  }
  rd_conn_free(c);
}
END_TEST

/* A budget every file fits in changes nothing of what is shown. */
START_TEST(budget_large_enough_changes_nothing) {
  g_auto(GStrv) paths = sources("formatters");
  g_autofree char *plain = params_for(paths, NULL);
  g_autofree char *budgeted = params_for(paths, "\"budget\":{\"tokens\":1000000}");
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *a = rd_read(c, plain), *b = rd_read(c, budgeted);

  for (guint i = 0; paths[i] != NULL; i++) {
    g_autofree char *ta = rd_text(a, i);
    g_autofree char *tb = rd_text(b, i);

    ck_assert_str_eq(ta, tb);
    ck_assert_int_eq(rd_file_int(a, i, "tokens"), rd_file_int(b, i, "tokens"));
  }
  ck_assert_int_eq(result_int(a, "tokens"), result_int(b, "tokens"));
  rd_result_free(a);
  rd_result_free(b);
  rd_conn_free(c);
}
END_TEST

/* The largest limit the protocol takes, under a budget, shows every line: the measure's window
 * ends at INT64_MAX without stepping past it (UBSan halts the daemon on an overflow). */
START_TEST(budget_limit_at_int64_max) {
  g_auto(GStrv) paths = sources("formatters");
  g_autofree char *plain = params_for(paths, NULL);
  g_autofree char *budgeted =
      params_for(paths, "\"limit\":9223372036854775807,\"budget\":{\"tokens\":1000000}");
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *a = rd_read(c, plain), *b = rd_read(c, budgeted);

  for (guint i = 0; paths[i] != NULL; i++) {
    g_autofree char *ta = rd_text(a, i);
    g_autofree char *tb = rd_text(b, i);

    ck_assert_str_eq(ta, tb);
  }
  rd_result_free(a);
  rd_result_free(b);
  rd_conn_free(c);
}
END_TEST

/* A plan: no content, what each file is, and the tokens a read shows: exactly for UTF-8 text
 * files its 16 KiB head holds whole (the measure prices the same numbered lines), within 10%
 * for longer ones; refusals with their code. */
START_TEST(budget_plan_costs_without_content) {
  g_auto(GStrv) paths = sources("ipc");
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *png = g_build_filename(root, "samples", "readerd.png", NULL);
  g_autofree char *bin = rd_write_file(dmn->dir, "blob.bin", "\x01\x00\x02\x00", 4);
  GPtrArray *all = g_ptr_array_new();
  g_autofree char *plan = NULL, *read = NULL;
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *p, *r;
  guint n;
  int64_t total = 0;

  for (guint i = 0; paths[i] != NULL; i++)
    g_ptr_array_add(all, paths[i]);
  g_ptr_array_add(all, png);
  g_ptr_array_add(all, bin);
  g_ptr_array_add(all, dmn->dir);
  g_ptr_array_add(all, "/nonexistent.txt");
  g_ptr_array_add(all, NULL);
  n = all->len - 1;
  plan = params_for((char **)all->pdata, "\"plan\":true");
  read = params_for((char **)all->pdata, NULL);
  p = rd_read(c, plan);
  r = rd_read(c, read);
  ck_assert(json_object_get_boolean_member(p->result, "plan"));
  for (guint i = 0; i < n; i++) {
    const char *code = rd_file_str(r, i, "code");

    ck_assert_str_eq(rd_file_str(p, i, "path"), rd_file_str(r, i, "path"));
    ck_assert_str_eq(rd_file_str(p, i, "code") ? rd_file_str(p, i, "code") : "", code ? code : "");
    ck_assert_ptr_null(json_object_get_member(rd_file(p, i), "shown"));
    if (code != NULL)
      continue;
    ck_assert_str_eq(rd_file_str(p, i, "type"), rd_file_str(r, i, "type"));
    ck_assert_int_eq(rd_file_int(p, i, "bytes"), rd_file_int(r, i, "bytes"));
    /* Exact when the plan's head (16 KiB) is the whole file, else extrapolated from it. */
    if (rd_file_int(r, i, "bytes") <= 16 * 1024)
      ck_assert_int_eq(rd_file_int(p, i, "tokens"), rd_file_int(r, i, "tokens"));
    else
      ck_assert_int_le(labs(rd_file_int(p, i, "tokens") - rd_file_int(r, i, "tokens")),
                       rd_file_int(r, i, "tokens") / 10);
    ck_assert_int_ge(rd_file_int(p, i, "tokensTotal"), rd_file_int(p, i, "tokens"));
    total += rd_file_int(p, i, "tokensTotal");
    if (strcmp(rd_file_str(r, i, "type"), "text") == 0) {
      if (json_object_has_member(rd_file(p, i), "lines"))
        ck_assert_int_eq(rd_file_int(p, i, "lines"), rd_file_int(r, i, "lines"));
      else
        ck_assert_int_gt(rd_file_int(r, i, "bytes"), 16 * 1024);
      ck_assert_str_eq(rd_file_str(p, i, "encoding"), rd_file_str(r, i, "encoding"));
      ck_assert_ptr_null(rd_content(p, i)->children);
    } else {
      ck_assert_int_eq(rd_file_int(p, i, "width"), rd_file_int(r, i, "width"));
      ck_assert_int_eq(rd_file_int(p, i, "height"), rd_file_int(r, i, "height"));
    }
  }
  ck_assert_str_eq(rd_file_str(p, n - 3, "code"), "UNSUPPORTED_FORMAT");
  ck_assert_str_eq(rd_file_str(p, n - 2, "code"), "IS_DIRECTORY");
  ck_assert_str_eq(rd_file_str(p, n - 1, "code"), "FILE_NOT_FOUND");
  ck_assert_int_eq(json_array_get_length(p->images), 0);
  ck_assert_int_le(labs(result_int(p, "tokens") - result_int(r, "tokens")),
                   result_int(r, "tokens") / 20);
  ck_assert_int_eq(result_int(p, "tokensTotal"), total);
  ck_assert_int_eq(result_int(p, "bytes"), result_int(r, "bytes"));
  rd_result_free(p);
  rd_result_free(r);
  g_ptr_array_free(all, TRUE);
  rd_conn_free(c);
}
END_TEST

/* A PDF in a plan: its page count, and what its default window would cost. */
/* A tall picture (1000x5000) is sent as tiles: its plan prices them as a read does (4 tiles of
 * 922x1247, within 1.15 megapixels, 1,533 tokens each), not the 314x1568 strip that fitting it
 * whole would make, and a budget that holds the tiles gets the picture. */
START_TEST(budget_plan_prices_tiles) {
  size_t len = 0;
  g_autofree unsigned char *bytes = rd_make_png(1000, 5000, &len);
  g_autofree char *png = rd_write_file(dmn->dir, "scrolled.png", bytes, len);
  char *paths[] = {png, NULL};
  g_autofree char *plan = params_for(paths, "\"plan\":true");
  g_autofree char *read = params_for(paths, NULL);
  g_autofree char *budget = params_for(paths, "\"budget\":{\"tokens\":7000}");
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *p = rd_read(c, plan), *r = rd_read(c, read), *b = rd_read(c, budget);

  ck_assert_int_eq(rd_file_int(r, 0, "tiles"), 4);
  ck_assert_int_le(rd_file_int(r, 0, "width") * rd_file_int(r, 0, "height"), 1150000);
  ck_assert_int_eq(rd_file_int(r, 0, "tokens"),
                   4 * ((rd_file_int(r, 0, "width") * rd_file_int(r, 0, "height") + 749) / 750));
  ck_assert_int_eq(rd_file_int(p, 0, "tokens"), rd_file_int(r, 0, "tokens"));
  ck_assert_int_eq(rd_file_int(p, 0, "width"), rd_file_int(r, 0, "width"));
  ck_assert_int_eq(rd_file_int(p, 0, "height"), rd_file_int(r, 0, "height"));
  ck_assert_ptr_null(rd_file_str(b, 0, "omitted"));
  ck_assert_int_eq(rd_file_int(b, 0, "tiles"), 4);
  ck_assert_int_le(result_int(b, "tokens"), 7000);
  rd_result_free(p);
  rd_result_free(r);
  rd_result_free(b);
  rd_conn_free(c);
}
END_TEST

START_TEST(budget_plan_pdf_pages) {
  const char *pdf = "/usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf";
  g_autofree char *q = NULL, *plan = NULL;
  RdConn *c;
  RdResult *p;

  if (!g_file_test(pdf, G_FILE_TEST_EXISTS)) {
    printf("SKIP: %s is not installed\n", pdf);
    return;
  }
  q = rd_json_quote(pdf);
  plan = g_strdup_printf("{\"paths\":[%s],\"plan\":true}", q);
  c = rd_conn_new(dmn->sock);
  p = rd_read(c, plan);
  ck_assert_str_eq(rd_file_str(p, 0, "type"), "pdf");
  ck_assert_int_gt(rd_file_int(p, 0, "pages"), 100);
  ck_assert_int_gt(rd_file_int(p, 0, "tokens"), 0);
  ck_assert_int_gt(rd_file_int(p, 0, "tokensTotal"), rd_file_int(p, 0, "tokens"));
  ck_assert_ptr_null(rd_content(p, 0)->children);
  rd_result_free(p);
  rd_conn_free(c);
}
END_TEST

/* A budgeted read or plan cancelled in its measure phase (or a little later) is answered
 * -32800, or whole when it finished first; the connection goes on serving. */
START_TEST(budget_cancel_while_measuring) {
  g_auto(GStrv) paths = sources("daemon");
  GString *many = g_string_new("[");
  RdConn *c = rd_conn_new(dmn->sock);
  const char *extras[] = {"\"budget\":{\"tokens\":20000}", "\"plan\":true"};

  /* 6,000 paths: the project's daemon sources over and over. */
  for (guint i = 0; i < 6000; i++) {
    g_autofree char *q = rd_json_quote(paths[i % g_strv_length(paths)]);

    g_string_append_printf(many, "%s%s", i > 0 ? "," : "", q);
  }
  g_string_append_c(many, ']');
  for (size_t k = 0; k < G_N_ELEMENTS(extras) * 3; k++) {
    g_autofree char *line = g_strdup_printf(
        "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"read\",\"params\":{\"paths\":%s,%s}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":%zu}}\n",
        k + 1, many->str, extras[k % 2], k + 1);
    g_autofree char *key = g_strdup_printf("n:%zu", k + 1);
    JsonNode *m;

    rd_conn_send_str(c, line);
    m = rd_conn_wait(c, key, 30000);
    if (rd_error_code(m) != 0) {
      ck_assert_int_eq(rd_error_code(m), -32800);
    } else {
      RdResult *r = rd_result_new(m);

      ck_assert_int_eq(json_array_get_length(r->files), 6000);
      rd_result_free(r);
      m = NULL;
    }
    if (m != NULL)
      json_node_unref(m);
  }
  {
    char *one[] = {paths[0], NULL};
    g_autofree char *params = params_for(one, "\"budget\":{\"tokens\":100000}");
    RdResult *r = rd_read(c, params);

    ck_assert_int_gt(rd_file_int(r, 0, "tokens"), 0);
    rd_result_free(r);
  }
  g_string_free(many, TRUE);
  rd_conn_free(c);
}
END_TEST

/* Files past what the budget can admit are not read, yet the fence holds for them: an
 * excluded name, a link out of the root and a path out of it are ACCESS_DENIED without their
 * size, while the files around them are listed with theirs. */
START_TEST(budget_fence_past_admission) {
  g_autofree char *ws = g_build_filename(dmn->dir, "fence", NULL);
  g_autofree char *out = g_build_filename(dmn->dir, "out", NULL);
  g_autofree char *secret = NULL, *link = NULL, *qws = NULL, *init = NULL;
  GString *big = g_string_new(NULL), *params = g_string_new("{\"paths\":[\"big.txt\"");
  RdConn *c = rd_conn_new(dmn->sock);
  const char *denied[] = {".env", "link.txt", "../out/secret.txt"};
  RdResult *r;
  JsonNode *m;
  guint n;

  ck_assert_int_eq(g_mkdir_with_parents(ws, 0700), 0);
  ck_assert_int_eq(g_mkdir_with_parents(out, 0700), 0);
  for (int i = 1; i <= 2000; i++)
    g_string_append_printf(big, "line %d of a file longer than the whole budget\n", i);
  g_free(rd_write_file(ws, "big.txt", big->str, big->len));
  for (int i = 0; i < 40; i++) {
    g_autofree char *name = g_strdup_printf("small%02d.txt", i);

    g_free(rd_write_str(ws, name, "a few words in a small file\n"));
    g_string_append_printf(params, ",\"%s\"", name);
  }
  g_free(rd_write_str(ws, ".env", "KEY=1\n"));
  secret = rd_write_str(out, "secret.txt", "outside\n");
  link = g_build_filename(ws, "link.txt", NULL);
  ck_assert_int_eq(symlink(secret, link), 0);
  for (size_t i = 0; i < G_N_ELEMENTS(denied); i++)
    g_string_append_printf(params, ",\"%s\"", denied[i]);
  g_string_append(params, "],\"budget\":{\"tokens\":300}}");
  qws = rd_json_quote(ws);
  init = g_strdup_printf("{\"rootPath\":%s,\"confineToRoot\":true,\"exclude\":[\".env\"]}", qws);
  m = rd_conn_call(c, "initialize", init);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  r = rd_read(c, params->str);
  n = json_array_get_length(r->files);
  ck_assert_uint_eq(n, 1 + 40 + G_N_ELEMENTS(denied));
  /* The last small file is past what 300 tokens admit: left out, with its size. */
  ck_assert_str_eq(rd_file_str(r, 40, "omitted"), "budget");
  ck_assert_int_eq(rd_file_int(r, 40, "bytes"), strlen("a few words in a small file\n"));
  for (size_t i = 0; i < G_N_ELEMENTS(denied); i++) {
    JsonObject *f = rd_file(r, 41 + (guint)i);

    ck_assert_msg(g_strcmp0(rd_file_str(r, 41 + (guint)i, "code"), "ACCESS_DENIED") == 0,
                  "%s: code %s", denied[i], rd_file_str(r, 41 + (guint)i, "code"));
    ck_assert_msg(!json_object_has_member(f, "bytes"), "%s: its size leaked", denied[i]);
  }
  ck_assert_int_le(json_object_get_int_member(r->result, "answerTokens"), 300);
  rd_result_free(r);
  g_string_free(big, TRUE);
  g_string_free(params, TRUE);
  rd_conn_free(c);
}
END_TEST

/* readerd read --budget N and --plan. */
START_TEST(budget_cli) {
  g_auto(GStrv) paths = sources("daemon");
  GPtrArray *argv = g_ptr_array_new();
  RdRun run;
  RdResult *r;

  g_ptr_array_add(argv, (char *)rd_readerd());
  g_ptr_array_add(argv, "read");
  g_ptr_array_add(argv, "--json");
  g_ptr_array_add(argv, "--budget");
  g_ptr_array_add(argv, "5000");
  for (guint i = 0; paths[i] != NULL; i++)
    g_ptr_array_add(argv, paths[i]);
  g_ptr_array_add(argv, NULL);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 60000, &run);
  r = rd_result_from_json(run.out, run.out_len);
  ck_assert_int_le(result_int(r, "tokens"), 5000);
  ck_assert_str_eq(rd_file_str(r, g_strv_length(paths) - 1, "omitted"), "budget");
  rd_result_free(r);
  rd_run_clear(&run);
  argv->pdata[3] = "--plan";
  g_ptr_array_remove_index(argv, 4);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 60000, &run);
  ck_assert_int_eq(run.code, 0);
  r = rd_result_from_json(run.out, run.out_len);
  ck_assert(json_object_get_boolean_member(r->result, "plan"));
  ck_assert_int_gt(result_int(r, "tokensTotal"), 0);
  rd_result_free(r);
  rd_run_clear(&run);
  g_ptr_array_free(argv, TRUE);
}
END_TEST

/* ---------------------------------------------------------------- every kind, to its end */

/* A workbook of two sheets, of 300 and 120 rows, written as a spreadsheet generator does. */
static void write_xlsx(const char *path) {
  static const char types[] = "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas."
                              "openxmlformats.org/package/2006/content-types\"/>";
  static const char book[] =
      "<?xml version=\"1.0\"?><workbook xmlns=\"http://schemas.openxmlformats.org/"
      "spreadsheetml/2006/main\" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/"
      "relationships\"><sheets><sheet name=\"Data\" sheetId=\"1\" r:id=\"rId1\"/><sheet "
      "name=\"More\" sheetId=\"2\" r:id=\"rId2\"/></sheets></workbook>";
  static const char rels[] =
      "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/"
      "2006/relationships\"><Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/"
      "officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
      "<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/"
      "relationships/worksheet\" Target=\"worksheets/sheet2.xml\"/></Relationships>";
  RdZip *z = rd_zip_new(path);

  rd_zip_add(z, "[Content_Types].xml", types, strlen(types));
  rd_zip_add(z, "xl/workbook.xml", book, strlen(book));
  rd_zip_add(z, "xl/_rels/workbook.xml.rels", rels, strlen(rels));
  for (int k = 1; k <= 2; k++) {
    GString *sheet = g_string_new("<?xml version=\"1.0\"?><worksheet xmlns=\"http://schemas."
                                  "openxmlformats.org/spreadsheetml/2006/main\"><sheetData>");
    g_autofree char *name = g_strdup_printf("xl/worksheets/sheet%d.xml", k);

    for (int i = 1; i <= (k == 1 ? 300 : 120); i++)
      g_string_append_printf(sheet,
                             "<row r=\"%d\"><c r=\"A%d\" t=\"inlineStr\"><is><t>%s %d</t></is>"
                             "</c><c r=\"B%d\"><v>%d</v></c></row>",
                             i, i, k == 1 ? "item" : "note", i, i, i * 3);
    g_string_append(sheet, "</sheetData></worksheet>");
    rd_zip_add(z, name, sheet->str, sheet->len);
    g_string_free(sheet, TRUE);
  }
  rd_zip_close(z);
}

/* A folder of every kind readerd reads: text, notebooks (the project's and one of 150 cells),
 * office documents (the project's, a DOCX of 400 paragraphs, an XLSX of 300 and 120 rows), a
 * PDF when the machine has shared-mime-info's spec, a picture. Returns the folder; g_free,
 * rd_rmtree. */
static char *mixed_folder(void) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  static const char *const data[] = {"notebook/analysis.ipynb", "office/fruit.xlsx",
                                     "office/report.docx", "office/roadmap.pptx"};
  char *dir = rd_tmpdir();
  GString *nb = g_string_new("{\"cells\":[");
  GString *text = g_string_new(NULL), *docx = g_string_new(NULL);
  g_autofree char *docx_path = g_build_filename(dir, "long.docx", NULL);
  g_autofree char *xlsx_path = g_build_filename(dir, "stock.xlsx", NULL);
  g_autofree unsigned char *png = NULL;
  size_t png_len;

  ck_assert_msg(root != NULL, "env READERD_SOURCE_ROOT is not set");
  for (size_t i = 0; i < G_N_ELEMENTS(data); i++) {
    g_autofree char *src = g_build_filename(root, "tests", "data", data[i], NULL);
    g_autofree char *bytes = NULL;
    gsize len = 0;

    ck_assert(g_file_get_contents(src, &bytes, &len, NULL));
    g_free(rd_write_file(dir, strrchr(data[i], '/') + 1, bytes, len));
  }
  if (g_file_test(MIXED_PDF, G_FILE_TEST_IS_REGULAR)) {
    g_autofree char *bytes = NULL;
    gsize len = 0;

    ck_assert(g_file_get_contents(MIXED_PDF, &bytes, &len, NULL));
    g_free(rd_write_file(dir, "spec.pdf", bytes, len));
  }
  for (int i = 1; i <= 150; i++)
    g_string_append_printf(nb,
                           "%s{\"cell_type\":\"code\",\"metadata\":{},\"execution_count\":%d,"
                           "\"source\":[\"rows_%d = load(%d)\\n\",\"print(len(rows_%d))\\n\"],"
                           "\"outputs\":[{\"output_type\":\"stream\",\"name\":\"stdout\","
                           "\"text\":[\"%d rows loaded from part %d of the survey\\n\"]}]}",
                           i > 1 ? "," : "", i, i, i, i, i * 37, i);
  g_string_append(nb, "],\"metadata\":{\"kernelspec\":{\"language\":\"python\"}},"
                      "\"nbformat\":4,\"nbformat_minor\":5}");
  g_free(rd_write_str(dir, "survey.ipynb", nb->str));
  for (int i = 1; i <= 700; i++)
    g_string_append_printf(text, "line %d: the reader keeps every answer within its budget\n", i);
  g_free(rd_write_str(dir, "notes.txt", text->str));
  for (int i = 1; i <= 400; i++)
    g_string_append_printf(docx, "%sParagraph %d of the report says what was measured.",
                           i > 1 ? "\n" : "", i);
  rd_zip_docx(docx_path, docx->str);
  write_xlsx(xlsx_path);
  png = rd_make_png(320, 200, &png_len);
  g_free(rd_write_file(dir, "shot.png", png, png_len));
  g_string_free(nb, TRUE);
  g_string_free(text, TRUE);
  g_string_free(docx, TRUE);
  return dir;
}

static char *prop(xmlNodePtr n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  char *s = v != NULL ? g_strdup((const char *)v) : NULL;

  xmlFree(v);
  return s;
}

static int64_t prop_int(xmlNodePtr n, const char *name) {
  g_autofree char *v = prop(n, name);

  return v != NULL ? g_ascii_strtoll(v, NULL, 10) : -1;
}

/* One unit of a file seen in an answer: "path|line|12", "path|Cell|3", "path|row|1|5"... */
static void seen_unit(GHashTable *seen, const char *path, const char *unit) {
  g_autofree char *key = g_strdup_printf("%s|%s", path, unit);
  gpointer n = g_hash_table_lookup(seen, key);

  g_hash_table_insert(seen, g_steal_pointer(&key), GINT_TO_POINTER(GPOINTER_TO_INT(n) + 1));
}

/* The text directly inside an element (not its children's): a file's content or notice. */
static char *own_text(xmlNodePtr n) {
  GString *s = g_string_new(NULL);

  for (xmlNodePtr c = n->children; c != NULL; c = c->next)
    if ((c->type == XML_CDATA_SECTION_NODE || c->type == XML_TEXT_NODE) && c->content != NULL)
      g_string_append(s, (const char *)c->content);
  return g_string_free(s, FALSE);
}

/* Records what Content n shows of its file, unit by unit: lines, pages, cells, slides, rows. */
static void seen_content(GHashTable *seen, xmlNodePtr n) {
  g_autofree char *path = prop(n, "path"), *type = prop(n, "type"), *format = prop(n, "format");
  g_autofree char *shown = prop(n, "shown");

  if (g_strcmp0(type, "image") == 0) {
    seen_unit(seen, path, "image");
    return;
  }
  for (xmlNodePtr c = n->children; c != NULL; c = c->next) {
    g_autofree char *unit = NULL;

    if (c->type != XML_ELEMENT_NODE)
      continue;
    if (xmlStrcmp(c->name, (const xmlChar *)"Page") == 0)
      unit = g_strdup_printf("page|%" PRId64, prop_int(c, "number"));
    else if (xmlStrcmp(c->name, (const xmlChar *)"Cell") == 0)
      unit = g_strdup_printf("cell|%" PRId64, prop_int(c, "index"));
    else if (xmlStrcmp(c->name, (const xmlChar *)"Slide") == 0)
      unit = g_strdup_printf("slide|%" PRId64, prop_int(c, "number"));
    if (unit != NULL)
      seen_unit(seen, path, unit);
    if (xmlStrcmp(c->name, (const xmlChar *)"Sheet") == 0) {
      g_autofree char *body = own_text(c);
      g_auto(GStrv) lines = g_strsplit(body, "\n", -1);

      for (size_t i = 0; lines[i] != NULL; i++) {
        char *end;
        int64_t row = g_ascii_strtoll(lines[i], &end, 10);

        if (end != lines[i] && *end == ':') {
          g_autofree char *r =
              g_strdup_printf("row|%" PRId64 "|%" PRId64, prop_int(c, "number"), row);

          seen_unit(seen, path, r);
        }
      }
    }
  }
  /* Text and a DOCX say their lines in shown='a-b'. */
  if (shown != NULL && (g_strcmp0(type, "text") == 0 || g_strcmp0(format, "docx") == 0)) {
    int64_t a = g_ascii_strtoll(shown, NULL, 10),
            b = g_ascii_strtoll(strchr(shown, '-') + 1, NULL, 10);

    for (int64_t l = a; l <= b; l++) {
      g_autofree char *u = g_strdup_printf("line|%" PRId64, l);

      seen_unit(seen, path, u);
    }
  }
}

/* The continuation a cut Content names ("continue with offset=N", "read on with offset N",
 * "continue with pages=N-"), as a path item of the next request; NULL when it names none. */
static char *continuation(xmlNodePtr n) {
  g_autofree char *path = prop(n, "path"), *truncated = prop(n, "truncated");
  g_autofree char *body = own_text(n), *q = rd_json_quote(path);
  const char *at;

  if (g_strcmp0(truncated, "true") != 0)
    return NULL;
  if ((at = g_strrstr(body, "pages=")) != NULL)
    return g_strdup_printf("{\"path\":%s,\"pages\":\"%" PRId64 "-\"}", q,
                           g_ascii_strtoll(at + 6, NULL, 10));
  if ((at = g_strrstr(body, "offset")) != NULL)
    return g_strdup_printf("{\"path\":%s,\"offset\":%" PRId64 "}", q,
                           g_ascii_strtoll(at + 7, NULL, 10));
  return NULL;
}

/* The text the model reads of a read's result in `format`, as one XML document: xml's own,
 * toolresult's content, or the agent APIs' text blocks (anthropic, openai, mcp) in a
 * <ReadResults> root. g_free. */
static char *answer_xml(JsonObject *result, const char *format) {
  GString *s;
  JsonArray *blocks;

  if (strcmp(format, "xml") == 0)
    return g_strdup(json_object_get_string_member(result, "xml"));
  if (strcmp(format, "toolresult") == 0)
    return g_strdup(json_object_get_string_member(
        json_object_get_object_member(result, "toolresult"), "content"));
  s = g_string_new("<ReadResults>");
  blocks = json_object_get_array_member(result, format);
  for (guint i = 0; i < json_array_get_length(blocks); i++) {
    JsonObject *b = json_array_get_object_element(blocks, i);

    if (strcmp(json_object_get_string_member(b, "type"), "text") == 0)
      g_string_append(s, json_object_get_string_member(b, "text"));
  }
  g_string_append(s, "</ReadResults>");
  return g_string_free(s, FALSE);
}

/* Reads the mixed folder under a budget in `format`, following every continuation the answers
 * name: a summary's skip, a cut file's offset or pages, a listed file read alone. Returns the
 * units seen (counted) and the text the model read of each answer written into dir as
 * answer-K.xml (*ret_n of them). */
static GHashTable *follow_all(RdConn *c, const char *folder, int64_t budget, const char *format,
                              const char *dir, int *ret_n) {
  GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  GQueue todo = G_QUEUE_INIT;
  g_autofree char *qf = rd_json_quote(folder);
  int n = 0;

  g_queue_push_tail(&todo, g_strdup_printf("%s|0", qf));
  while (!g_queue_is_empty(&todo)) {
    g_autofree char *item = g_queue_pop_head(&todo);
    char *bar = strrchr(item, '|');
    int64_t skip = g_ascii_strtoll(bar + 1, NULL, 10);
    g_autofree char *params = NULL, *name = NULL, *xml = NULL;
    JsonNode *msg;
    xmlDocPtr doc;

    *bar = '\0';
    params = g_strdup_printf("{\"paths\":[%s],\"expand\":{\"maxFiles\":100},\"format\":\"%s\","
                             "\"budget\":{\"tokens\":%" PRId64 "},\"skip\":%" PRId64 "}",
                             item, format, budget, skip);
    msg = rd_conn_call(c, "read", params);
    ck_assert_msg(++n <= 400, "budget %" PRId64 ": more than 400 requests", budget);
    xml = answer_xml(rd_result_of(msg), format);
    name = g_strdup_printf("answer-%d.xml", n);
    g_free(rd_write_str(dir, name, xml));
    doc = xmlReadMemory(xml, (int)strlen(xml), "answer.xml", NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
    ck_assert_msg(doc != NULL, "%s: the answer is not XML: %.400s", format, xml);
    for (xmlNodePtr cn = xmlDocGetRootElement(doc)->children; cn != NULL; cn = cn->next) {
      g_autofree char *path = NULL, *omitted = NULL, *code = NULL, *type = NULL;
      g_autofree char *q = NULL, *next = NULL;

      if (cn->type != XML_ELEMENT_NODE)
        continue;
      if (xmlStrcmp(cn->name, (const xmlChar *)"Omitted") == 0) {
        int64_t k = prop_int(cn, "skip");

        /* Never a loop: the continuation moves on. */
        ck_assert_int_gt(k, skip);
        g_queue_push_tail(&todo, g_strdup_printf("%s|%" PRId64, item, k));
        continue;
      }
      if (xmlStrcmp(cn->name, (const xmlChar *)"Content") != 0)
        continue;
      path = prop(cn, "path");
      omitted = prop(cn, "omitted");
      code = prop(cn, "code");
      type = prop(cn, "type");
      q = rd_json_quote(path);
      ck_assert_msg(code == NULL, "%s: %s", path, code);
      if (omitted != NULL) {
        /* Listed: read next, alone. A picture over the whole budget stays listed, priced. */
        ck_assert_int_gt(prop_int(cn, "tokensTotal"), 0);
        if (g_strcmp0(type, "image") == 0 && strcmp(q, item) == 0)
          seen_unit(seen, path, "image");
        else
          g_queue_push_tail(&todo, g_strdup_printf("%s|0", q));
        continue;
      }
      seen_content(seen, cn);
      if ((next = continuation(cn)) != NULL)
        g_queue_push_tail(&todo, g_strdup_printf("%s|0", next));
    }
    xmlFreeDoc(doc);
    json_node_unref(msg);
  }
  *ret_n = n;
  return seen;
}

/* The o200k_base counts of files (tests/tokens/count.mjs); false without node or its modules. */
static bool o200k_counts(GPtrArray *paths, int64_t *counts) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *script = g_build_filename(root, "tests", "tokens", "count.mjs", NULL);
  g_autofree char *modules =
      g_build_filename(root, "tests", "tokens", "node_modules", "gpt-tokenizer", NULL);
  g_autofree char *node = g_find_program_in_path("node"), *out = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_auto(GStrv) lines = NULL;
  int status = 0;

  if (node == NULL || !g_file_test(modules, G_FILE_TEST_IS_DIR))
    return false;
  g_ptr_array_add(argv, node);
  g_ptr_array_add(argv, script);
  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add(argv, paths->pdata[i]);
  g_ptr_array_add(argv, NULL);
  ck_assert(
      g_spawn_sync(NULL, (char **)argv->pdata, NULL, 0, NULL, NULL, &out, NULL, &status, NULL));
  ck_assert(g_spawn_check_wait_status(status, NULL));
  lines = g_strsplit(out, "\n", -1);
  for (guint i = 0; i < paths->len; i++) {
    ck_assert_ptr_nonnull(lines[i]);
    counts[i] = g_ascii_strtoll(lines[i], NULL, 10);
  }
  return true;
}

/* From budgets of 500 and more, following every continuation reads every file of a folder of
 * every kind to its end, each line, page, cell, slide and row once, in a bounded number of
 * requests; and no answer passes 1.1 times its budget in real o200k tokens. In every format that
 * writes the <Content> elements: xml, toolresult's XML, the text blocks of anthropic, openai
 * and mcp (what `readerd mcp` answers). */
START_TEST(budget_every_kind_read_to_its_end) {
  static const int64_t budgets[] = {500, 1500, 6000};
  static const char *const formats[] = {"xml", "anthropic", "openai", "toolresult", "mcp"};
  g_autofree char *folder = mixed_folder(), *out = rd_tmpdir();
  g_autofree char *params = NULL, *qf = rd_json_quote(folder);
  RdConn *c = rd_conn_new(dmn->sock);
  g_autoptr(GHashTable) want = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  RdResult *whole;

  /* What reading each file whole shows: the units every budget must reach. */
  params = g_strdup_printf("{\"paths\":[%s],\"expand\":{\"maxFiles\":100}}", qf);
  whole = rd_read(c, params);
  for (guint i = 0; i < whole->contents->len; i++)
    seen_content(want, whole->contents->pdata[i]);
  ck_assert_int_ge(whole->contents->len, 8);
  rd_result_free(whole);
  for (size_t fb = 0; fb < G_N_ELEMENTS(budgets) * G_N_ELEMENTS(formats); fb++) {
    size_t b = fb % G_N_ELEMENTS(budgets);
    const char *format = formats[fb / G_N_ELEMENTS(budgets)];
    g_autofree char *dir = g_strdup_printf("%s/%s-%" PRId64, out, format, budgets[b]);
    g_autoptr(GPtrArray) answers = g_ptr_array_new_with_free_func(g_free);
    g_autofree int64_t *counts = NULL;
    GHashTable *seen;
    GHashTableIter it;
    gpointer key, val;
    int n = 0;

    ck_assert_int_eq(g_mkdir(dir, 0700), 0);
    seen = follow_all(c, folder, budgets[b], format, dir, &n);
    g_hash_table_iter_init(&it, want);
    while (g_hash_table_iter_next(&it, &key, &val))
      ck_assert_msg(g_hash_table_contains(seen, key), "%s, budget %" PRId64 ": %s never shown",
                    format, budgets[b], (const char *)key);
    g_hash_table_iter_init(&it, seen);
    while (g_hash_table_iter_next(&it, &key, &val)) {
      ck_assert_msg(GPOINTER_TO_INT(val) == 1, "%s, budget %" PRId64 ": %s shown %d times",
                    format, budgets[b], (const char *)key, GPOINTER_TO_INT(val));
      ck_assert_msg(g_hash_table_contains(want, key), "budget %" PRId64 ": %s not in the file",
                    budgets[b], (const char *)key);
    }
    g_hash_table_unref(seen);
    for (int k = 1; k <= n; k++)
      g_ptr_array_add(answers, g_strdup_printf("%s/answer-%d.xml", dir, k));
    counts = g_new0(int64_t, answers->len);
    if (!o200k_counts(answers, counts)) {
      skip_note("node or tests/tokens/node_modules is missing: answers not counted by o200k");
      continue;
    }
    for (guint k = 0; k < answers->len; k++)
      ck_assert_msg(counts[k] * 10 <= budgets[b] * 11,
                    "budget %" PRId64 ": %s is %" PRId64 " o200k tokens", budgets[b],
                    (const char *)answers->pdata[k], counts[k]);
  }
  rd_conn_free(c);
  rd_rmtree(out);
  rd_rmtree(folder);
}
END_TEST

/* Office files and notebooks take the shares of what they write, not of their size: over a folder
 * of every kind whose text files are cut, the answer uses the budget (at least 90% of it)
 * rather than leave the room a small document was guessed to need unused while a later file
 * is cut. Each office file and notebook is shown whole when its share holds it. */
START_TEST(budget_office_shares_leave_nothing_unused) {
  static const int64_t budgets[] = {8000, 25000};
  g_autofree char *folder = mixed_folder(), *qf = rd_json_quote(folder);
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t b = 0; b < G_N_ELEMENTS(budgets); b++) {
    g_autofree char *params =
        g_strdup_printf("{\"paths\":[%s],\"expand\":{\"maxFiles\":100},"
                        "\"budget\":{\"tokens\":%" PRId64 "}}",
                        qf, budgets[b]);
    RdResult *r = rd_read(c, params);
    int64_t answer = result_int(r, "answerTokens");
    guint cut = 0;

    for (guint i = 0; i < json_array_get_length(r->files); i++) {
      const char *path = rd_file_str(r, i, "path");

      if (rd_file_true(r, i, "truncated") || json_object_has_member(rd_file(r, i), "omitted"))
        cut++;
      /* The project's small documents and notebook write some 30 to 110 tokens. */
      if (g_str_has_suffix(path, "/report.docx") || g_str_has_suffix(path, "/fruit.xlsx") ||
          g_str_has_suffix(path, "/roadmap.pptx") || g_str_has_suffix(path, "/analysis.ipynb"))
        ck_assert_msg(!rd_file_true(r, i, "truncated") &&
                          !json_object_has_member(rd_file(r, i), "omitted"),
                      "budget %" PRId64 ": %s, small, is not shown whole", budgets[b], path);
    }
    ck_assert_int_gt(cut, 0);
    ck_assert_msg(answer * 10 >= budgets[b] * 9,
                  "budget %" PRId64 ": an answer of %" PRId64 " tokens while %u files are cut",
                  budgets[b], answer, cut);
    ck_assert_int_le(answer, budgets[b]);
    rd_result_free(r);
  }
  rd_conn_free(c);
  rd_rmtree(folder);
}
END_TEST

/* A plan of every kind shows no content of any: each entry is an empty element with its kind,
 * its whole-file estimate and what it counts (cells, sheets, slides, pages, lines). */
START_TEST(budget_plan_every_kind) {
  g_autofree char *folder = mixed_folder(), *qf = rd_json_quote(folder), *params = NULL;
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  params = g_strdup_printf("{\"paths\":[%s],\"expand\":{\"maxFiles\":100},\"plan\":true}", qf);
  r = rd_read(c, params);
  ck_assert_uint_ge(r->contents->len, 8);
  for (guint i = 0; i < r->contents->len; i++) {
    xmlNodePtr n = r->contents->pdata[i];
    g_autofree char *path = prop(n, "path"), *type = prop(n, "type");
    g_autofree char *format = prop(n, "format");

    ck_assert_msg(n->children == NULL, "%s: a plan entry with content", path);
    ck_assert_msg(prop_int(n, "tokensTotal") > 0, "%s: no tokensTotal", path);
    ck_assert_msg(prop_int(n, "tokens") > 0, "%s: priced 0", path);
    if (g_str_has_suffix(path, ".ipynb")) {
      ck_assert_str_eq(type, "notebook");
      ck_assert_int_gt(prop_int(n, "cells"), 0);
    } else if (g_strcmp0(format, "xlsx") == 0) {
      ck_assert_int_gt(prop_int(n, "sheets"), 0);
    } else if (g_strcmp0(format, "pptx") == 0) {
      ck_assert_int_gt(prop_int(n, "slides"), 0);
    } else if (g_strcmp0(format, "docx") == 0) {
      ck_assert_int_gt(prop_int(n, "lines"), 0);
    } else if (g_strcmp0(type, "text") == 0) {
      g_autofree char *encoding = prop(n, "encoding");

      /* Its lines only when its head is the whole file. */
      ck_assert_ptr_nonnull(encoding);
    } else if (g_strcmp0(type, "pdf") == 0) {
      ck_assert_int_gt(prop_int(n, "pages"), 0);
    } else {
      ck_assert_str_eq(type, "image");
      ck_assert_int_gt(prop_int(n, "width"), 0);
    }
  }
  rd_result_free(r);
  rd_conn_free(c);
  rd_rmtree(folder);
}
END_TEST

static Suite *budget_suite(void) {
  Suite *s = suite_create("budget");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, budget_bad_params);
  tcase_add_test(tc, budget_tokens_on_every_file);
  tcase_add_test(tc, budget_fair_shares_in_request_order);
  tcase_add_test(tc, budget_large_enough_changes_nothing);
  tcase_add_test(tc, budget_limit_at_int64_max);
  tcase_add_test(tc, budget_plan_costs_without_content);
  tcase_add_test(tc, budget_plan_prices_tiles);
  tcase_add_test(tc, budget_plan_pdf_pages);
  tcase_add_test(tc, budget_cli);
  tcase_add_test(tc, budget_fence_past_admission);
  tcase_add_test(tc, budget_cancel_while_measuring);
  tcase_add_test(tc, budget_every_kind_read_to_its_end);
  tcase_add_test(tc, budget_plan_every_kind);
  tcase_add_test(tc, budget_office_shares_leave_nothing_unused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(budget_suite()));
}
