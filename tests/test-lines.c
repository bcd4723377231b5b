/* The pure line engine: counting, windows, cat -n, CRLF, cuts, the byte cap, and the same
 * answer whatever the pieces the stream arrives in. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/lines.h"
#include "daemon/readers/text.h"
#include "formatters/tokens.h"
#include "tests/lib/check-run.h"
#include "tests/lib/skip.h"

/* Like ck_assert_str_eq, for strings too long for check's message: reports where they differ. */
#define assert_long_str_eq(a, b)                                                                   \
  do {                                                                                             \
    const char *a_ = (a), *b_ = (b);                                                               \
    size_t at_ = 0;                                                                                \
    while (a_[at_] != '\0' && a_[at_] == b_[at_])                                                  \
      at_++;                                                                                       \
    ck_assert_msg(a_[at_] == b_[at_], "strings differ at byte %zu of %zu/%zu: %.40s | %.40s", at_, \
                  strlen(a_), strlen(b_), a_ + at_, b_ + at_);                                     \
  } while (0)

static LinesOptions opts(int64_t offset, int64_t limit, bool numbers) {
  LinesOptions o = {
      .offset = offset,
      .limit = limit,
      .line_numbers = numbers,
      .max_line_chars = TEXT_MAX_LINE_CHARS,
      .max_content = TEXT_MAX_CONTENT,
  };
  return o;
}

/* Runs the engine over s (len bytes) fed in pieces of `piece` bytes (0: all at once). */
static LinesResult run_pieces(const char *s, size_t len, const LinesOptions *o, size_t piece) {
  Lines l;
  LinesResult r;

  lines_init(&l, o);
  if (piece == 0) {
    lines_feed(&l, s, len);
  } else {
    for (size_t i = 0; i < len; i += piece)
      lines_feed(&l, s + i, MIN(piece, len - i));
  }
  lines_finish(&l, &r);
  lines_clear(&l);
  ck_assert_uint_eq(strlen(r.content), r.content_len);
  ck_assert(g_utf8_validate(r.content, (gssize)r.content_len, NULL));
  return r;
}

static LinesResult run(const char *s, const LinesOptions *o) {
  return run_pieces(s, strlen(s), o, 0);
}

/* cat -n of the given lines, as the contract's clients compute it. */
static char *numbered(const char *const *lines, int first) {
  GString *g = g_string_new(NULL);

  for (int i = 0; lines[i] != NULL; i++)
    g_string_append_printf(g, "%6d\t%s\n", first + i, lines[i]);
  return g_string_free(g, FALSE);
}

/* "line 1\nline 2\n...line n\n" */
static char *numbered_file(int n) {
  GString *g = g_string_new(NULL);

  for (int i = 1; i <= n; i++)
    g_string_append_printf(g, "line %d\n", i);
  return g_string_free(g, FALSE);
}

static void assert_same(const LinesResult *a, const LinesResult *b) {
  ck_assert_uint_eq(a->content_len, b->content_len);
  ck_assert_mem_eq(a->content, b->content, a->content_len);
  ck_assert_int_eq(a->lines, b->lines);
  ck_assert_pstr_eq(a->eol, b->eol);
  ck_assert_int_eq(a->truncated, b->truncated);
  ck_assert_int_eq(a->shown_first, b->shown_first);
  ck_assert_int_eq(a->shown_last, b->shown_last);
}

START_TEST(lines_cat_n_format) {
  LinesOptions o = opts(1, 2000, true);
  LinesResult r = run("hello\nworld\n", &o);
  const char *want[] = {"hello", "world", NULL};
  g_autofree char *exp = numbered(want, 1);

  ck_assert_str_eq(r.content, exp);
  ck_assert_int_eq(r.lines, 2);
  ck_assert_str_eq(r.eol, "lf");
  ck_assert(!r.truncated);
  ck_assert_int_eq(r.shown_first, 1);
  ck_assert_int_eq(r.shown_last, 2);
  g_free(r.content);
}
END_TEST

START_TEST(lines_raw_without_numbers) {
  LinesOptions o = opts(1, 2000, false);
  LinesResult r = run("hello\n\nworld\n", &o);

  ck_assert_str_eq(r.content, "hello\n\nworld\n");
  ck_assert_int_eq(r.lines, 3);
  g_free(r.content);
}
END_TEST

START_TEST(lines_last_line_without_newline) {
  LinesOptions o = opts(1, 2000, true);
  LinesResult r = run("a\nb", &o);
  const char *want[] = {"a", "b", NULL};
  g_autofree char *exp = numbered(want, 1);

  ck_assert_str_eq(r.content, exp);
  ck_assert_int_eq(r.lines, 2);
  ck_assert_str_eq(r.eol, "lf");
  ck_assert_int_eq(r.shown_last, 2);
  g_free(r.content);

  r = run("no newline at all", &o);
  ck_assert_int_eq(r.lines, 1);
  ck_assert_ptr_null(r.eol);
  ck_assert_str_eq(r.content, "     1\tno newline at all\n");
  g_free(r.content);
}
END_TEST

START_TEST(lines_empty_stream) {
  LinesOptions o = opts(1, 2000, true);
  LinesResult r = run("", &o);

  ck_assert_str_eq(r.content, "");
  ck_assert_int_eq(r.lines, 0);
  ck_assert_ptr_null(r.eol);
  ck_assert(!r.truncated);
  ck_assert_int_eq(r.shown_first, 0);
  ck_assert_int_eq(r.shown_last, 0);
  g_free(r.content);
}
END_TEST

START_TEST(lines_only_newlines) {
  LinesOptions o = opts(1, 2000, true);
  LinesResult r = run("\n\n\n", &o);
  const char *want[] = {"", "", "", NULL};
  g_autofree char *exp = numbered(want, 1);

  ck_assert_int_eq(r.lines, 3);
  ck_assert_str_eq(r.content, exp);
  g_free(r.content);
}
END_TEST

START_TEST(lines_crlf_shown_as_lf) {
  LinesOptions o = opts(1, 2000, false);
  LinesResult r = run("first\r\nsecond\r\n", &o);

  ck_assert_str_eq(r.content, "first\nsecond\n");
  ck_assert_int_eq(r.lines, 2);
  ck_assert_str_eq(r.eol, "crlf");
  g_free(r.content);

  r = run("a\r\nb\nc", &o);
  ck_assert_str_eq(r.content, "a\nb\nc\n");
  ck_assert_int_eq(r.lines, 3);
  ck_assert_str_eq(r.eol, "mixed");
  g_free(r.content);

  /* A CRLF on a line that is not shown still counts for the style. */
  o = opts(1, 1, false);
  r = run("a\nb\r\nc\n", &o);
  ck_assert_str_eq(r.eol, "mixed");
  g_free(r.content);
}
END_TEST

START_TEST(lines_lone_cr_stays) {
  LinesOptions o = opts(1, 2000, false);
  LinesResult r = run("a\rb\nc\r\r\nend\r", &o);

  ck_assert_str_eq(r.content, "a\rb\nc\r\nend\r\n");
  ck_assert_int_eq(r.lines, 3);
  ck_assert_str_eq(r.eol, "mixed");
  g_free(r.content);
}
END_TEST

START_TEST(lines_offset_and_limit) {
  g_autofree char *file = numbered_file(100);
  LinesOptions o = opts(10, 5, true);
  LinesResult r = run(file, &o);
  const char *want[] = {"line 10", "line 11", "line 12", "line 13", "line 14", NULL};
  g_autofree char *exp = numbered(want, 10);
  g_autofree char *exp_all =
      g_strconcat(exp, "\u2026 86 more lines not shown; continue with offset=15\n", NULL);

  ck_assert_str_eq(r.content, exp_all);
  ck_assert_int_eq(r.lines, 100);
  ck_assert(r.truncated);
  ck_assert_int_eq(r.shown_first, 10);
  ck_assert_int_eq(r.shown_last, 14);
  g_free(r.content);
}
END_TEST

START_TEST(lines_window_to_the_end) {
  g_autofree char *file = numbered_file(100);
  LinesOptions o = opts(96, 10, false);
  LinesResult r = run(file, &o);

  ck_assert_str_eq(r.content, "line 96\nline 97\nline 98\nline 99\nline 100\n");
  ck_assert(r.truncated); /* lines 1-95 are not shown */
  ck_assert_int_eq(r.shown_first, 96);
  ck_assert_int_eq(r.shown_last, 100);
  g_free(r.content);

  o = opts(1, 100, false);
  r = run(file, &o);
  ck_assert(!r.truncated);
  ck_assert(strstr(r.content, "more lines not shown") == NULL);
  ck_assert_int_eq(r.shown_last, 100);
  g_free(r.content);

  o = opts(1, 99, false);
  r = run(file, &o);
  ck_assert(r.truncated);
  ck_assert(g_str_has_suffix(r.content,
                             "line 99\n\u2026 1 more lines not shown; continue with offset=100\n"));
  g_free(r.content);

  /* A huge limit must not overflow offset + limit. */
  o = opts(50, INT64_MAX, false);
  r = run(file, &o);
  ck_assert_int_eq(r.shown_first, 50);
  ck_assert_int_eq(r.shown_last, 100);
  g_free(r.content);
}
END_TEST

START_TEST(lines_offset_past_end) {
  g_autofree char *file = numbered_file(100);
  LinesOptions o = opts(101, 5, true);
  LinesResult r = run(file, &o);

  ck_assert_str_eq(r.content, "\u2026 offset 101 is past the end of the file (100 lines)\n");
  ck_assert_int_eq(r.lines, 100);
  ck_assert(r.truncated);
  ck_assert_int_eq(r.shown_first, 0);
  ck_assert_int_eq(r.shown_last, 0);
  g_free(r.content);

  o = opts(3, 5, true);
  r = run("", &o);
  ck_assert_str_eq(r.content, "\u2026 offset 3 is past the end of the file (0 lines)\n");
  ck_assert_int_eq(r.lines, 0);
  g_free(r.content);
}
END_TEST

START_TEST(lines_wide_line_numbers) {
  LinesOptions o = opts(999998, 3, true);
  GString *file = g_string_new(NULL);
  g_autofree char *exp = NULL;
  LinesResult r;

  for (int i = 1; i <= 1000001; i++)
    g_string_append(file, "x\n");
  r = run_pieces(file->str, file->len, &o, 4096);
  exp = g_strdup_printf(
      "%6d\t%s\n%6d\t%s\n%6d\t%s\n\u2026 1 more lines not shown; continue with offset=1000001\n",
      999998, "x", 999999, "x", 1000000, "x");
  ck_assert_str_eq(r.content, exp);
  ck_assert_int_eq(r.lines, 1000001);
  g_free(r.content);
  g_string_free(file, TRUE);
}
END_TEST

/* The window from a column, read on marker by marker, gives the line back whole: nothing lost,
 * nothing repeated, whatever the pieces the stream arrives in. */
START_TEST(lines_column_windows_reassemble) {
  static const char *const chars[] = {"a", "\u00e9", "\u20ac", "\U0001F600", "\r"};
  GString *line = g_string_new(NULL), *again = g_string_new(NULL);
  g_autofree char *file = NULL;
  int64_t column = 1;
  int windows = 0;

  for (int i = 0; i < 7003; i++)
    g_string_append(line, chars[i % 5]);
  file = g_strconcat(line->str, "\r\nnext\n", NULL);
  for (;;) {
    LinesOptions o = opts(1, 1, false);
    LinesResult r;
    const char *m;
    size_t body;

    o.column = column;
    r = run_pieces(file, strlen(file), &o, (size_t)windows % 3 * 7);
    m = strstr(r.content, " \u2026 [");
    body = m != NULL ? (size_t)(m - r.content) : (size_t)(strchr(r.content, '\n') - r.content);
    g_string_append_len(again, r.content, (gssize)body);
    ck_assert_int_eq(r.lines, 2);
    ck_assert(r.truncated);
    windows++;
    if (m == NULL || strstr(m, "more characters cut") == NULL) {
      g_free(r.content);
      break;
    }
    ck_assert_int_eq(g_utf8_strlen(r.content, (gssize)body), TEXT_MAX_LINE_CHARS);
    ck_assert(
        sscanf(m, " \u2026 [%*d more characters cut; continue with offset=1, column=%" SCNd64 "]",
               &column) == 1);
    g_free(r.content);
  }
  ck_assert_int_eq(windows, 4);
  assert_long_str_eq(again->str, line->str);
  g_string_free(line, TRUE);
  g_string_free(again, TRUE);
}
END_TEST

START_TEST(lines_column_marker_names_the_next_column) {
  g_autofree char *x = g_strnfill(5000, 'x');
  g_autofree char *file = g_strconcat("short\n", x, "\n", NULL);
  LinesOptions o = opts(2, 1, true);
  LinesResult r;

  o.column = 1500;
  r = run(file, &o);
  ck_assert(g_str_has_suffix(
      r.content, " \u2026 [1501 more characters cut; continue with offset=2, column=3500]\n"));
  ck_assert(g_str_has_prefix(r.content, "     2\txxx"));
  ck_assert_int_eq(r.shown_first, 2);
  g_free(r.content);
}
END_TEST

/* A column past the end of its line: nothing of it, and a notice saying so with its length in
 * characters (the CR of a CRLF is not one of them). */
START_TEST(lines_column_past_the_end) {
  static const struct {
    const char *file;
    int64_t column;
    const char *want;
  } cases[] = {
      {"ab\u00e9\r\nnext\n", 3, "     1\t\u00e9\n"},
      {"ab\u00e9\r\nnext\n", 4,
       "     1\t\u2026 [line 1 has 3 characters; column 4 is past its end]\n"},
      {"ab\u00e9\r\nnext\n", 5,
       "     1\t\u2026 [line 1 has 3 characters; column 5 is past its end]\n"},
      {"ab\u00e9\r", 4, "     1\t\r\n"}, /* a lone CR at the end is a character */
      {"\nnext\n", 2, "     1\t\u2026 [line 1 has 0 characters; column 2 is past its end]\n"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    for (size_t piece = 0; piece <= 1; piece++) {
      LinesOptions o = opts(1, 1, true);
      LinesResult r;
      g_autofree char *got = NULL;

      o.column = cases[i].column;
      r = run_pieces(cases[i].file, strlen(cases[i].file), &o, piece);
      got = g_strndup(r.content, (size_t)(strchr(r.content, '\n') - r.content + 1));
      ck_assert_str_eq(got, cases[i].want);
      ck_assert(r.truncated);
      g_free(r.content);
    }
  }
}
END_TEST

/* The column applies to line `offset` only: the lines after it are shown whole. */
START_TEST(lines_column_only_on_the_offset_line) {
  LinesOptions o = opts(2, 2, false);
  LinesResult r;

  o.column = 3;
  r = run("first\nabcdef\nxyz\nlast\n", &o);
  ck_assert_str_eq(r.content, "cdef\nxyz\n\u2026 1 more lines not shown; continue with offset=4\n");
  ck_assert_int_eq(r.shown_first, 2);
  ck_assert_int_eq(r.shown_last, 3);
  g_free(r.content);
}
END_TEST

/* A stream that starts mid-file (a tail) is numbered and counted from its first line. */
START_TEST(lines_first_line_numbers_a_tail) {
  LinesOptions o = opts(10, 5, true);
  LinesResult r;

  o.first_line = 10;
  r = run("ten\neleven", &o);
  ck_assert_str_eq(r.content, "    10\tten\n    11\televen\n");
  ck_assert_int_eq(r.lines, 11);
  ck_assert_int_eq(r.shown_first, 10);
  ck_assert_int_eq(r.shown_last, 11);
  ck_assert(r.truncated);
  g_free(r.content);
}
END_TEST

/* The shown part of one line: what is between the tab and the newline. */
static char *first_line_body(const char *content) {
  const char *tab = strchr(content, '\t');
  const char *nl = strchr(content, '\n');

  ck_assert_ptr_nonnull(tab);
  ck_assert_ptr_nonnull(nl);
  return g_strndup(tab + 1, (size_t)(nl - tab - 1));
}

START_TEST(lines_long_ascii_line_cut) {
  g_autofree char *x = g_strnfill(5000, 'x');
  g_autofree char *file = g_strconcat(x, "\nshort\n", NULL);
  g_autofree char *want = g_strconcat(
      x + 3000, " \u2026 [3000 more characters cut; continue with offset=1, column=2001]", NULL);
  LinesOptions o = opts(1, 2000, true);
  LinesResult r = run(file, &o);
  g_autofree char *body = first_line_body(r.content);

  assert_long_str_eq(body, want);
  ck_assert(strstr(r.content, "\n     2\tshort\n") != NULL);
  ck_assert_int_eq(r.lines, 2);
  ck_assert(r.truncated); /* part of line 1 is not shown */
  ck_assert_int_eq(r.shown_last, 2);
  g_free(r.content);
}
END_TEST

START_TEST(lines_long_multibyte_line_cut_at_code_points) {
  /* 1, 2, 3 and 4-byte characters in turn: byte counts and character counts differ. */
  static const char *const chars[] = {"a", "\u00e9", "\u20ac", "\U0001F600"};
  GString *line = g_string_new(NULL);
  LinesOptions o = opts(1, 2000, false);
  g_autofree char *body = NULL, *want = NULL, *marker = NULL;
  LinesResult r;

  for (int i = 0; i < 2999; i++)
    g_string_append(line, chars[i % 4]);
  g_string_append_c(line, '\n');
  for (size_t piece = 0; piece <= 7; piece += 7) {
    r = run_pieces(line->str, line->len, &o, piece);
    want = g_utf8_substring(line->str, 0, TEXT_MAX_LINE_CHARS);
    marker =
        g_strdup_printf(" \u2026 [%d more characters cut; continue with offset=1, column=2001]\n",
                        2999 - TEXT_MAX_LINE_CHARS);
    ck_assert(g_str_has_prefix(r.content, want));
    assert_long_str_eq(r.content + strlen(want), marker);
    ck_assert_int_eq(g_utf8_strlen(r.content, (gssize)strlen(want)), TEXT_MAX_LINE_CHARS);
    g_free(r.content);
    g_clear_pointer(&want, g_free);
    g_clear_pointer(&marker, g_free);
  }

  /* The contract's example: 3000 'é' are cut after 2000 of them. */
  g_string_truncate(line, 0);
  for (int i = 0; i < 3000; i++)
    g_string_append(line, "\u00e9");
  r = run(line->str, &o);
  body = g_strndup(r.content, strlen(r.content) - 1);
  want =
      g_strdup_printf("%s \u2026 [1000 more characters cut; continue with offset=1, column=2001]",
                      line->str + 2000);
  assert_long_str_eq(body, want);
  g_free(r.content);
  g_string_free(line, TRUE);
}
END_TEST

START_TEST(lines_exactly_at_the_char_limit) {
  g_autofree char *x2000 = g_strnfill(2000, 'x');
  g_autofree char *x2001 = g_strnfill(2001, 'x');
  g_autofree char *f1 = g_strconcat(x2000, "\n", NULL);
  g_autofree char *f2 = g_strconcat(x2001, "\n", NULL);
  g_autofree char *f3 = g_strconcat(x2000, "\r\n", NULL);
  g_autofree char *f4 = g_strconcat(x2000, "\r", NULL); /* a lone CR is a character */
  g_autofree char *w2 = g_strconcat(
      x2000, " \u2026 [1 more characters cut; continue with offset=1, column=2001]\n", NULL);
  LinesOptions o = opts(1, 2000, false);
  LinesResult r;

  r = run(f1, &o);
  assert_long_str_eq(r.content, f1);
  ck_assert(!r.truncated);
  g_free(r.content);
  r = run(f2, &o);
  assert_long_str_eq(r.content, w2);
  ck_assert(r.truncated);
  g_free(r.content);
  for (size_t piece = 0; piece <= 1; piece++) {
    r = run_pieces(f3, strlen(f3), &o, piece);
    assert_long_str_eq(r.content, f1);
    assert_long_str_eq(r.eol, "crlf");
    g_free(r.content);
    r = run_pieces(f4, strlen(f4), &o, piece);
    assert_long_str_eq(r.content, w2);
    g_free(r.content);
  }
}
END_TEST

START_TEST(lines_huge_line_counts_what_is_cut) {
  const size_t total = (size_t)32 * 1024 * 1024;
  char *piece = g_malloc(64 * 1024);
  LinesOptions o = opts(1, 2000, true);
  g_autofree char *marker = NULL;
  LinesResult r;
  Lines l;

  memset(piece, 'y', 64 * 1024);
  lines_init(&l, &o);
  for (size_t done = 0; done < total; done += 64 * 1024)
    lines_feed(&l, piece, 64 * 1024);
  lines_feed(&l, "\nafter\n", 7);
  ck_assert_uint_lt(l.cap, 64 * 1024); /* the rest of the line was never kept */
  lines_finish(&l, &r);
  lines_clear(&l);
  marker =
      g_strdup_printf(" \u2026 [%zu more characters cut; continue with offset=1, column=2001]\n",
                      total - TEXT_MAX_LINE_CHARS);
  ck_assert(strstr(r.content, marker) != NULL);
  ck_assert(g_str_has_suffix(r.content, "     2\tafter\n"));
  ck_assert_int_eq(r.lines, 2);
  g_free(r.content);
  g_free(piece);
}
END_TEST

START_TEST(lines_byte_cap) {
  /* 3000 lines of 100 characters: 2000 of them would be about 210 KiB with numbers. */
  GString *file = g_string_new(NULL);
  LinesOptions o = opts(1, 2000, true);
  g_autofree char *w = g_strnfill(94, 'w');
  g_autofree char *tail = NULL;
  const char *notice;
  LinesResult r;

  for (int i = 1; i <= 3000; i++)
    g_string_append_printf(file, "%05d %s\n", i, w);
  r = run(file->str, &o);
  ck_assert_uint_le(r.content_len, TEXT_MAX_CONTENT);
  /* Lines are kept until the cap is nearly reached: 108 bytes each with their number. */
  ck_assert_int_ge(r.shown_last, (int64_t)(TEXT_MAX_CONTENT - 400) / 108);
  ck_assert_int_lt(r.shown_last, 2000);
  ck_assert_int_eq(r.lines, 3000);
  ck_assert(r.truncated);
  notice = strstr(r.content, "\u2026 ");
  ck_assert_ptr_nonnull(notice);
  tail = g_strdup_printf(
      "\u2026 %" G_GINT64_FORMAT
      " more lines not shown (100 KiB content limit); continue with offset=%" G_GINT64_FORMAT "\n",
      3000 - r.shown_last, r.shown_last + 1);
  ck_assert_str_eq(notice, tail);
  /* Whole lines only: the last one shown is complete. */
  ck_assert_uint_eq((size_t)(notice - r.content), (size_t)r.shown_last * 108);
  g_free(r.content);
  g_string_free(file, TRUE);
}
END_TEST

START_TEST(lines_first_line_shown_over_the_cap) {
  g_autofree char *x = g_strnfill(300, 'x');
  g_autofree char *file = g_strconcat(x, "\n", x, "\n", NULL);
  LinesOptions o = opts(1, 2000, false);
  LinesResult r;

  o.max_content = 100;
  r = run(file, &o);
  ck_assert(g_str_has_prefix(r.content, x));
  ck_assert_int_eq(r.shown_first, 1);
  ck_assert_int_eq(r.shown_last, 1);
  ck_assert(strstr(r.content,
                   "1 more lines not shown (100 bytes content limit); continue with offset=2") !=
            NULL);
  g_free(r.content);
}
END_TEST

static const char *const split_inputs[] = {
    "",
    "a",
    "\n",
    "\r\n",
    "\r",
    "one\ntwo\r\nthree\rfour\n\n\r\n",
    "caf\u00e9\r\n\u20ac\U0001F600\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\r\nx\r\r\n\u00e9\u00e9\u00e9"
    "\u00e9\u00e9\r",
    "abcdefgh\r\n12345\r\n1234\r\n123456\r\r\n\U0001F600\U0001F600\U0001F600\U0001F600\U0001F600"
    "\U0001F600\n",
};

/* The same stream in any two pieces, or one byte at a time, gives the same answer. Short
 * line and content limits make every rule fire on small inputs. */
START_TEST(lines_any_split_same_result) {
  const char *s = split_inputs[_i];
  size_t len = strlen(s);

  for (int variant = 0; variant < 4; variant++) {
    LinesOptions o = opts(variant == 2 ? 2 : 1, variant == 3 ? 2 : 2000, variant != 1);
    LinesResult whole, r;
    Lines l;

    o.max_line_chars = 5;
    o.max_content = variant == 3 ? 200 : TEXT_MAX_CONTENT;
    whole = run_pieces(s, len, &o, 0);
    r = run_pieces(s, len, &o, 1);
    assert_same(&whole, &r);
    g_free(r.content);
    for (size_t cut = 0; cut <= len; cut++) {
      lines_init(&l, &o);
      lines_feed(&l, s, cut);
      lines_feed(&l, NULL, 0);
      lines_feed(&l, s + cut, len - cut);
      lines_finish(&l, &r);
      lines_clear(&l);
      assert_same(&whole, &r);
      g_free(r.content);
    }
    g_free(whole.content);
  }
}
END_TEST

START_TEST(lines_one_byte_feeds_real_limits) {
  GString *file = g_string_new(NULL);
  LinesResult whole, r;

  /* Long multi-byte lines, CRLF, and enough to hit the byte cap. */
  for (int i = 0; i < 60; i++) {
    for (int j = 0; j < 2100 + i; j++)
      g_string_append(file, j % 3 == 0 ? "\u20ac" : "b");
    g_string_append(file, i % 2 ? "\r\n" : "\n");
  }
  for (int numbers = 0; numbers <= 1; numbers++) {
    LinesOptions o = opts(2, 2000, numbers);

    whole = run_pieces(file->str, file->len, &o, 0);
    r = run_pieces(file->str, file->len, &o, 1);
    assert_same(&whole, &r);
    ck_assert(strstr(r.content, "100 KiB content limit") != NULL);
    ck_assert_str_eq(r.eol, "mixed");
    g_free(r.content);
    g_free(whole.content);
  }
  g_string_free(file, TRUE);
}
END_TEST

/* Numbers are counted up in place from one shown line to the next: every carry, the width
 * growing past six digits, and a window that starts anywhere give printf's "%6d\t". */
START_TEST(lines_numbers_count_up_like_printf) {
  static const int64_t windows[][2] = {{1, 1000010}, {999995, 10}, {99, 3}, {1000009, 5}};
  GString *in = g_string_new(NULL);

  for (int i = 1; i <= 1000010; i++)
    g_string_append(in, i % 3 ? "x\n" : "\n");
  for (size_t w = 0; w < G_N_ELEMENTS(windows); w++) {
    LinesOptions o = opts(windows[w][0], windows[w][1], true);
    GString *want = g_string_new(NULL);
    LinesResult r;
    int64_t last = MIN(windows[w][0] + windows[w][1] - 1, 1000010);

    o.max_content = 0;
    for (int64_t n = windows[w][0]; n <= last; n++)
      g_string_append_printf(want, "%6" G_GINT64_FORMAT "\t%s\n", n, n % 3 ? "x" : "");
    r = run_pieces(in->str, in->len, &o, w == 0 ? 4093 : 0);
    if (last < 1000010)
      g_string_append_printf(want, "\u2026 %" G_GINT64_FORMAT " more lines not shown; continue with offset=%" G_GINT64_FORMAT "\n",
                             1000010 - last, last + 1);
    assert_long_str_eq(r.content, want->str);
    g_free(r.content);
    g_string_free(want, TRUE);
  }
  g_string_free(in, TRUE);
}
END_TEST

START_TEST(lines_clear_twice_and_null) {
  Lines l;
  LinesOptions o = opts(1, 1, true);

  lines_init(&l, &o);
  lines_feed(&l, "abc\n", 4);
  lines_clear(&l);
  lines_clear(&l);
  lines_clear(NULL);
}
END_TEST

/* The token cap (a budget's share): what is shown, numbers and notice included, never costs
 * more than the cap; it is the file's first lines, and the notice continues right after. */
START_TEST(lines_token_cap_holds) {
  const char *path = "/usr/share/common-licenses/GPL-3";
  g_autofree char *text = NULL;
  gsize len;
  const int64_t caps[] = {41, 60, 200, 1000, 5000};
  LinesResult whole;
  LinesOptions o = opts(1, 100000, true);

  if (!g_file_get_contents(path, &text, &len, NULL))
    SKIP_CASE("%s is not installed", path);
  o.max_content = 0;
  whole = run_pieces(text, len, &o, 0);
  for (size_t k = 0; k < G_N_ELEMENTS(caps); k++) {
    LinesResult r;
    g_autofree char *want = NULL;

    o.max_tokens = caps[k];
    r = run_pieces(text, len, &o, 4096);
    ck_assert_int_le(tokens_text(r.content, r.content_len), caps[k]);
    /* The engine's own estimate of what it shows, which the result takes instead of pricing
     * the content again. */
    ck_assert_int_eq(r.milli, tokens_text_milli(r.content, r.content_len));
    ck_assert(r.truncated);
    ck_assert_int_eq(r.lines, whole.lines);
    /* The lines shown are the whole read's first ones, byte for byte. */
    if (r.shown_last > 0) {
      const char *end = whole.content;

      for (int64_t n = 0; n < r.shown_last; n++)
        end = strchr(end, '\n') + 1;
      ck_assert_int_eq(strncmp(r.content, whole.content, (size_t)(end - whole.content)), 0);
    }
    want =
        g_strdup_printf("tokens); continue with offset=%" G_GINT64_FORMAT "\n", r.shown_last + 1);
    ck_assert_msg(g_str_has_suffix(r.content, want), "%s", r.content);
    g_free(r.content);
  }
  /* A cap the whole file fits under changes nothing. */
  {
    LinesResult r;

    o.max_tokens = tokens_text(whole.content, whole.content_len) + 40;
    r = run_pieces(text, len, &o, 0);
    ck_assert_str_eq(r.content, whole.content);
    ck_assert(!r.truncated);
    ck_assert_int_eq(r.milli, tokens_text_milli(r.content, r.content_len));
    ck_assert_int_eq(whole.milli, -1); /* no cap: nothing priced */
    g_free(r.content);
  }
  g_free(whole.content);
}
END_TEST

/* What cat -n shows of a whole text, as the contract says: each line without its "\n" or
 * "\r\n", numbered from `first` with printf's "%6d\t" (or bare), then "\n". */
static char *cat_n(const char *text, size_t n, int64_t first, bool numbers) {
  GString *g = g_string_new(NULL);
  const char *s = text, *e = text + n;

  for (int64_t k = first; s < e; k++) {
    const char *nl = memchr(s, '\n', (size_t)(e - s));
    const char *end = nl != NULL ? nl : e;
    size_t len = (size_t)(end - s);

    if (nl != NULL && len > 0 && end[-1] == '\r')
      len--;
    if (numbers)
      g_string_append_printf(g, "%6" G_GINT64_FORMAT "\t", k);
    g_string_append_len(g, s, (gssize)len);
    g_string_append_c(g, '\n');
    s = nl != NULL ? nl + 1 : e;
  }
  return g_string_free(g, FALSE);
}

/* Lines of every length from 0 to 44 bytes, so that a newline falls on every place of a
 * 16-byte block; every fifth ends with CRLF, every third has a two-byte character. */
static char *varied_lines(int count) {
  GString *g = g_string_new(NULL);

  for (int i = 0; i < count; i++) {
    int len = (i * 7) % 45;

    for (int j = 0; j < len; j++)
      g_string_append_c(g, (char)('a' + (i + j) % 26));
    if (i % 3 == 0)
      g_string_append(g, "\u00e9");
    g_string_append(g, i % 5 == 4 ? "\r\n" : "\n");
  }
  return g_string_free(g, FALSE);
}

static const size_t fast_pieces[] = {0, 1, 15, 16, 17, 33, 64, 4096};

/* Runs of whole lines are shown as cat -n shows them, whatever the pieces, with numbers or
 * without, and the same as line by line under a token cap that holds everything. */
START_TEST(lines_fast_run_matches_cat_n) {
  g_autofree char *varied = varied_lines(300);
  GString *blocks = g_string_new(NULL);
  const char *inputs[2];

  /* Lines of 15 and 16 bytes: the newline is the last byte of a block, or the first of the
   * next, line after line. */
  for (int i = 0; i < 200; i++)
    g_string_append(blocks, i % 2 ? "0123456789abcde\n" : "0123456789abcdef\n");
  inputs[0] = varied;
  inputs[1] = blocks->str;
  for (size_t in = 0; in < G_N_ELEMENTS(inputs); in++) {
    size_t len = strlen(inputs[in]);

    for (int numbers = 0; numbers <= 1; numbers++) {
      g_autofree char *want = cat_n(inputs[in], len, 1, numbers);
      LinesOptions o = opts(1, 2000, numbers);

      for (size_t k = 0; k < G_N_ELEMENTS(fast_pieces); k++) {
        LinesResult r = run_pieces(inputs[in], len, &o, fast_pieces[k]);

        assert_long_str_eq(r.content, want);
        ck_assert_int_eq(r.lines, in == 0 ? 300 : 200);
        ck_assert_str_eq(r.eol, in == 0 ? "mixed" : "lf");
        ck_assert(!r.truncated);
        ck_assert_int_eq(r.shown_first, 1);
        ck_assert_int_eq(r.shown_last, r.lines);
        g_free(r.content);
      }
      o.max_tokens = 1000000;
      LinesResult r = run_pieces(inputs[in], len, &o, 0);
      assert_long_str_eq(r.content, want);
      g_free(r.content);
    }
  }
  g_string_free(blocks, TRUE);
}
END_TEST

/* A line that crosses pieces, a CRLF whose '\r' ends one piece and '\n' starts the next: any
 * cut of the stream in two gives cat -n's text. */
START_TEST(lines_fast_any_cut_in_two) {
  g_autofree char *text = varied_lines(40);
  size_t len = strlen(text);
  g_autofree char *want = cat_n(text, len, 1, true);
  LinesOptions o = opts(1, 2000, true);

  for (size_t cut = 0; cut <= len; cut++) {
    Lines l;
    LinesResult r;

    lines_init(&l, &o);
    lines_feed(&l, text, cut);
    lines_feed(&l, text + cut, len - cut);
    lines_finish(&l, &r);
    lines_clear(&l);
    assert_long_str_eq(r.content, want);
    ck_assert_int_eq(r.lines, 40);
    ck_assert_str_eq(r.eol, "mixed");
    g_free(r.content);
  }
}
END_TEST

/* Numbers widen past six digits, and past fourteen (beyond that the fast path hands over),
 * within one run of lines. */
START_TEST(lines_fast_numbers_widen) {
  static const int64_t firsts[] = {999990, INT64_C(99999999999990)};
  g_autofree char *text = varied_lines(30);
  size_t len = strlen(text);

  for (size_t f = 0; f < G_N_ELEMENTS(firsts); f++) {
    g_autofree char *want = cat_n(text, len, firsts[f], true);
    LinesOptions o = opts(firsts[f], 2000, true);
    LinesResult r;

    o.first_line = firsts[f];
    r = run_pieces(text, len, &o, 0);
    assert_long_str_eq(r.content, want);
    ck_assert_int_eq(r.shown_first, firsts[f]);
    ck_assert_int_eq(r.shown_last, firsts[f] + 29);
    g_free(r.content);
  }
}
END_TEST

/* The content cap stops a run of lines at the last whole line that leaves room for the
 * notice: 28 bytes a line with its number, 160 kept for the notice, so 30 lines of 1000. */
START_TEST(lines_fast_cap_mid_run) {
  GString *file = g_string_new(NULL);

  for (int i = 1; i <= 200; i++)
    g_string_append_printf(file, "line %03d of the file\n", i);
  for (size_t k = 0; k < G_N_ELEMENTS(fast_pieces); k++) {
    LinesOptions o = opts(1, 2000, true);
    GString *want = g_string_new(NULL);
    LinesResult r;

    o.max_content = 1000;
    for (int i = 1; i <= 30; i++)
      g_string_append_printf(want, "%6d\tline %03d of the file\n", i, i);
    g_string_append(want, "\u2026 170 more lines not shown (1000 bytes content limit); continue "
                          "with offset=31\n");
    r = run_pieces(file->str, file->len, &o, fast_pieces[k]);
    assert_long_str_eq(r.content, want->str);
    ck_assert_int_eq(r.shown_last, 30);
    ck_assert_int_eq(r.lines, 200);
    ck_assert(r.truncated);
    g_free(r.content);
    g_string_free(want, TRUE);
  }
  g_string_free(file, TRUE);
}
END_TEST

/* A line over the character limit in the middle of a run is cut with its marker, a long one
 * or one a few characters over; one at the limit exactly (its CRLF's '\r' not counted) is not;
 * the run goes on after each. */
START_TEST(lines_fast_cut_mid_run) {
  g_autofree char *x50 = g_strnfill(50, 'x');
  g_autofree char *x20 = g_strnfill(20, 'x');
  g_autofree char *y20 = g_strnfill(20, 'y');
  g_autofree char *z25 = g_strnfill(25, 'z');
  g_autofree char *z20 = g_strnfill(20, 'z');
  g_autofree char *file =
      g_strconcat("first line of text\nsecond line of text\n", x50, "\r\n", y20, "\r\n", z25,
                  "\nthird short line\n", x50, "\nthe last line\n", NULL);
  g_autofree char *want = g_strconcat(
      "     1\tfirst line of text\n     2\tsecond line of text\n     3\t", x20,
      " \u2026 [30 more characters cut; continue with offset=3, column=21]\n     4\t", y20,
      "\n     5\t", z20, " \u2026 [5 more characters cut; continue with offset=5, column=21]\n",
      "     6\tthird short line\n     7\t", x20,
      " \u2026 [30 more characters cut; continue with offset=7, column=21]\n     8\tthe last line\n",
      NULL);

  for (size_t k = 0; k < G_N_ELEMENTS(fast_pieces); k++) {
    LinesOptions o = opts(1, 2000, true);
    LinesResult r;

    o.max_line_chars = 20;
    o.size_hint = strlen(file); /* room for all from the start, as text.c gives it */
    r = run_pieces(file, strlen(file), &o, fast_pieces[k]);
    assert_long_str_eq(r.content, want);
    ck_assert(r.truncated);
    ck_assert_int_eq(r.shown_last, 8);
    ck_assert_str_eq(r.eol, "mixed");
    g_free(r.content);
  }
}
END_TEST

/* A window from a column: its first line from there, the lines after it whole. */
START_TEST(lines_fast_column_and_offset) {
  GString *file = g_string_new(NULL);
  const char *want = "     3\t0003-abcdefghijklmnopqrstuvwxyz\n"
                     "     4\tline-0004-abcdefghijklmnopqrstuvwxyz\n"
                     "     5\tline-0005-abcdefghijklmnopqrstuvwxyz\n"
                     "     6\tline-0006-abcdefghijklmnopqrstuvwxyz\n"
                     "\u2026 4 more lines not shown; continue with offset=7\n";

  for (int i = 1; i <= 10; i++)
    g_string_append_printf(file, "line-%04d-abcdefghijklmnopqrstuvwxyz\n", i);
  for (size_t k = 0; k < G_N_ELEMENTS(fast_pieces); k++) {
    LinesOptions o = opts(3, 4, true);
    LinesResult r;

    o.column = 6;
    r = run_pieces(file->str, file->len, &o, fast_pieces[k]);
    ck_assert_str_eq(r.content, want);
    ck_assert(r.truncated);
    ck_assert_int_eq(r.shown_first, 3);
    ck_assert_int_eq(r.shown_last, 6);
    ck_assert_int_eq(r.lines, 10);
    g_free(r.content);
  }
  g_string_free(file, TRUE);
}
END_TEST

/* The ending style of lines taken in a run: one CRLF among LF lines, one LF among CRLF lines,
 * each far from the end of the stream (whose last bytes take the general path). */
START_TEST(lines_fast_run_notes_each_style) {
  static const struct {
    const char *first, *rest, *eol;
  } cases[] = {
      {"a first line, CRLF\r\n", "and then lines with LF\n", "mixed"},
      {"a first line with LF\n", "and then lines, CRLF\r\n", "mixed"},
      {"a first line with LF\n", "and then lines with LF\n", "lf"},
      {"a first line, CRLF\r\n", "and then lines, CRLF\r\n", "crlf"},
  };

  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
    GString *file = g_string_new(cases[c].first);

    for (int i = 0; i < 20; i++)
      g_string_append(file, cases[c].rest);
    for (int numbers = 0; numbers <= 1; numbers++) {
      LinesOptions o = opts(1, 2000, numbers);

      for (size_t k = 0; k < G_N_ELEMENTS(fast_pieces); k++) {
        LinesResult r = run_pieces(file->str, file->len, &o, fast_pieces[k]);

        ck_assert_str_eq(r.eol, cases[c].eol);
        ck_assert_int_eq(r.lines, 21);
        g_free(r.content);
      }
    }
    g_string_free(file, TRUE);
  }
}
END_TEST

/* Lines of every length from 0 to 130 bytes in turn (so that a newline falls on every place of
 * 16-, 32- and 64-byte blocks, and lines span one to five of them), ending with LF, CRLF, or LF
 * after a lone '\r' inside, some with a two-byte character across a block's edge. */
static char *block_edge_lines(int count) {
  GString *g = g_string_new(NULL);

  for (int i = 0; i < count; i++) {
    int len = i % 131;

    for (int j = 0; j < len; j++)
      g_string_append_c(g, (char)('A' + (i + j) % 58));
    if (i % 7 == 3 && len > 2)
      g_string_overwrite(g, g->len - 2, "\u00e9");
    if (i % 11 == 5 && len > 1)
      g->str[g->len - len / 2] = '\r';
    g_string_append(g, i % 3 == 1 ? "\r\n" : "\n");
  }
  return g_string_free(g, FALSE);
}

/* Every path the CPU has (16 and 32 bytes at a time) gives what the general path gives, line by
 * line: at every line length around the blocks, with numbers that widen (9 to 10, 99 to 100,
 * 999999 to 1000000) or none, under character limits that make the 32-byte path hand over to
 * the 16-byte one or to the general path, under a byte cap that stops a run, in windows that end
 * mid-run (between carries or at one), in any pieces. */
START_TEST(lines_paths_match_the_general_path) {
  static const LinesPath paths[] = {LINES_PATH_SSE2, LINES_PATH_AVX2};
  static const int64_t firsts[] = {1, 999901};
  static const size_t limits[] = {0, 20, 31, 32, 40, 64, TEXT_MAX_LINE_CHARS};
  static const size_t pieces[] = {0, 1, 31, 32, 33, 64, 100, 4096};
  static const size_t caps[] = {0, 3000, TEXT_MAX_CONTENT};
  static const struct {
    int64_t skip, limit;
  } windows[] = {{0, 2000}, {5, 250}, {3, 97}, {0, 100}};
  g_autofree char *text = block_edge_lines(700);
  size_t len = strlen(text), tried = 0;

  for (size_t p = 0; p < G_N_ELEMENTS(paths); p++) {
    if (!lines_path_available(paths[p]))
      continue;
    for (size_t f = 0; f < G_N_ELEMENTS(firsts); f++)
      for (int numbers = 0; numbers <= 1; numbers++)
        for (size_t m = 0; m < G_N_ELEMENTS(limits); m++)
          for (size_t c = 0; c < G_N_ELEMENTS(caps); c++)
            for (size_t k = 0; k < G_N_ELEMENTS(pieces); k++) {
              size_t wi = (m + c + k) % G_N_ELEMENTS(windows);
              LinesOptions o = opts(firsts[f] + windows[wi].skip, windows[wi].limit, numbers);
              LinesResult want, got;

              o.first_line = firsts[f];
              o.max_line_chars = limits[m];
              o.max_content = caps[c];
              o.path = LINES_PATH_GENERAL;
              want = run_pieces(text, len, &o, pieces[k]);
              o.path = paths[p];
              got = run_pieces(text, len, &o, pieces[k]);
              assert_long_str_eq(got.content, want.content);
              assert_same(&got, &want);
              g_free(want.content);
              g_free(got.content);
              tried++;
            }
  }
  ck_assert_uint_gt(tried, 0);
}
END_TEST

/* The general path itself is cat -n: the reference above is right. */
START_TEST(lines_general_path_is_cat_n) {
  g_autofree char *text = block_edge_lines(700);
  size_t len = strlen(text);
  g_autofree char *want = cat_n(text, len, 999901, true);
  LinesOptions o = opts(999901, 2000, true);
  LinesResult r;

  o.first_line = 999901;
  o.max_line_chars = 0;
  o.max_content = 0;
  o.path = LINES_PATH_GENERAL;
  r = run_pieces(text, len, &o, 0);
  assert_long_str_eq(r.content, want);
  ck_assert_int_eq(r.shown_last, 999901 + 699);
  ck_assert_str_eq(r.eol, "mixed");
  g_free(r.content);
}
END_TEST

/* Engines started at once on several threads, before any has chosen the best path: each gets
 * the same content (ThreadSanitizer checks the choice is made once, without a race). */
static gpointer run_best_path(gpointer text) {
  LinesOptions o = opts(1, 2000, true);
  Lines l;
  LinesResult r;

  lines_init(&l, &o);
  lines_feed(&l, text, strlen(text));
  lines_finish(&l, &r);
  lines_clear(&l);
  return r.content;
}

START_TEST(lines_best_path_chosen_once_across_threads) {
  g_autofree char *text = block_edge_lines(300);
  g_autofree char *want = cat_n(text, strlen(text), 1, true);
  GThread *threads[4];

  for (size_t i = 0; i < G_N_ELEMENTS(threads); i++)
    threads[i] = g_thread_new("lines", run_best_path, text);
  for (size_t i = 0; i < G_N_ELEMENTS(threads); i++) {
    g_autofree char *got = g_thread_join(threads[i]);

    assert_long_str_eq(got, want);
  }
}
END_TEST

/* A path the CPU lacks is no error: the best one is taken instead. */
START_TEST(lines_paths_known) {
  ck_assert(lines_path_available(LINES_PATH_BEST));
  ck_assert(lines_path_available(LINES_PATH_GENERAL));
  ck_assert(!lines_path_available((LinesPath)31));
  ck_assert(!lines_path_available((LinesPath)40));
}
END_TEST

/* Lines past the window are only counted, with their ending style: a CRLF deep in them, a lone
 * '\r' (no style), one split from its '\n' by the pieces. */
START_TEST(lines_rest_counted_with_its_style) {
  static const struct {
    const char *text;
    int64_t lines;
    const char *eol;
  } cases[] = {
      {"shown\nthe rest of the file, lines only counted\nmore\nand more\n", 4, "lf"},
      {"shown\nthe rest of the file, lines only counted\nmore\r\nand more\n", 4, "mixed"},
      {"shown\nthe rest of the file\r, lines only\r counted\nmore\nand more\r", 4, "lf"},
      {"shown\r\nthe rest of the file, lines only counted\r\nmore\r\nand more\r\n", 4, "crlf"},
      {"shown\r\nthe rest of the file, lines only counted\r\nmore\r\nand more\n", 4, "mixed"},
      {"shown\nthe rest of the file, 31 bytes\r\nand more\n", 3, "mixed"},
  };

  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
    const char *t = cases[c].text;
    size_t len = strlen(t);

    for (size_t k = 0; k < G_N_ELEMENTS(fast_pieces); k++) {
      LinesOptions o = opts(1, 1, false);
      LinesResult r = run_pieces(t, len, &o, fast_pieces[k]);

      ck_assert_int_eq(r.lines, cases[c].lines);
      ck_assert_str_eq(r.eol, cases[c].eol);
      ck_assert_int_eq(r.shown_last, 1);
      g_free(r.content);
    }
  }
}
END_TEST

static Suite *lines_suite(void) {
  Suite *s = suite_create("lines");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, lines_cat_n_format);
  tcase_add_test(tc, lines_raw_without_numbers);
  tcase_add_test(tc, lines_last_line_without_newline);
  tcase_add_test(tc, lines_empty_stream);
  tcase_add_test(tc, lines_only_newlines);
  tcase_add_test(tc, lines_crlf_shown_as_lf);
  tcase_add_test(tc, lines_lone_cr_stays);
  tcase_add_test(tc, lines_offset_and_limit);
  tcase_add_test(tc, lines_window_to_the_end);
  tcase_add_test(tc, lines_offset_past_end);
  tcase_add_test(tc, lines_wide_line_numbers);
  tcase_add_test(tc, lines_long_ascii_line_cut);
  tcase_add_test(tc, lines_long_multibyte_line_cut_at_code_points);
  tcase_add_test(tc, lines_exactly_at_the_char_limit);
  tcase_add_test(tc, lines_huge_line_counts_what_is_cut);
  tcase_add_test(tc, lines_byte_cap);
  tcase_add_test(tc, lines_first_line_shown_over_the_cap);
  tcase_add_test(tc, lines_token_cap_holds);
  tcase_add_loop_test(tc, lines_any_split_same_result, 0, G_N_ELEMENTS(split_inputs));
  tcase_add_test(tc, lines_one_byte_feeds_real_limits);
  tcase_add_test(tc, lines_clear_twice_and_null);
  tcase_add_test(tc, lines_column_windows_reassemble);
  tcase_add_test(tc, lines_column_marker_names_the_next_column);
  tcase_add_test(tc, lines_column_past_the_end);
  tcase_add_test(tc, lines_column_only_on_the_offset_line);
  tcase_add_test(tc, lines_first_line_numbers_a_tail);
  tcase_add_test(tc, lines_numbers_count_up_like_printf);
  tcase_add_test(tc, lines_fast_run_matches_cat_n);
  tcase_add_test(tc, lines_fast_any_cut_in_two);
  tcase_add_test(tc, lines_fast_numbers_widen);
  tcase_add_test(tc, lines_fast_cap_mid_run);
  tcase_add_test(tc, lines_fast_cut_mid_run);
  tcase_add_test(tc, lines_fast_column_and_offset);
  tcase_add_test(tc, lines_fast_run_notes_each_style);
  tcase_add_test(tc, lines_rest_counted_with_its_style);
  tcase_add_test(tc, lines_paths_match_the_general_path);
  tcase_add_test(tc, lines_general_path_is_cat_n);
  tcase_add_test(tc, lines_paths_known);
  tcase_add_test(tc, lines_best_path_chosen_once_across_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  skip_init();
  failed = check_run(lines_suite());
  return skip_status(failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
}
