/* Line framing: splits, CRLF, empty lines, the line-length cap and bounded memory. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "ipc/frame.h"
#include "tests/lib/check-run.h"

#define OVERSIZED "<E2BIG>"

/* Takes every complete line out of f into out (a line is g_strndup'd; an oversized one is
 * recorded as OVERSIZED). Checks that each line is NUL-terminated in place. */
static void drain(Framer *f, GPtrArray *out) {
  const char *line;
  size_t len;
  int r;

  while ((r = framer_next(f, &line, &len)) != 0) {
    if (r == -E2BIG) {
      g_ptr_array_add(out, g_strdup(OVERSIZED));
      continue;
    }
    ck_assert_int_eq(r, 1);
    ck_assert_int_eq(line[len], '\0');
    g_ptr_array_add(out, g_strndup(line, len));
  }
}

/* Feeds input cut at the given offsets (ascending, within input), draining after each feed. */
static GPtrArray *frame_split(size_t max_line, const char *input, size_t len, const size_t *cuts,
                              size_t n_cuts) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  Framer *f = framer_new(max_line);
  size_t at = 0;

  for (size_t i = 0; i <= n_cuts; i++) {
    size_t to = i < n_cuts ? cuts[i] : len;

    framer_feed(f, input + at, to - at);
    drain(f, out);
    at = to;
  }
  framer_free(f);
  return out;
}

static GPtrArray *frame_all(size_t max_line, const char *input) {
  return frame_split(max_line, input, strlen(input), NULL, 0);
}

/* Checks out against a NULL-terminated list of expected lines. */
static void assert_lines(GPtrArray *out, const char *const *want) {
  size_t n = 0;

  while (want[n])
    n++;
  ck_assert_uint_eq(out->len, n);
  for (size_t i = 0; i < n; i++)
    ck_assert_str_eq(g_ptr_array_index(out, i), want[i]);
}

static const char multi[] = "{\"a\":1}\r\n\nsecond line\nthird\r\n\r\nlast\npartial";
static const char *const multi_lines[] = {"{\"a\":1}", "",     "second line", "third",
                                          "",          "last", NULL};

START_TEST(frame_lines_in_one_feed) {
  GPtrArray *out = frame_all(FRAME_MAX_LINE, multi);

  assert_lines(out, multi_lines);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_partial_line_kept) {
  Framer *f = framer_new(64);
  const char *line;
  size_t len;

  framer_feed(f, "hel", 3);
  ck_assert_int_eq(framer_next(f, &line, &len), 0);
  ck_assert_uint_eq(framer_pending(f), 3);
  framer_feed(f, "lo", 2);
  ck_assert_int_eq(framer_next(f, &line, &len), 0);
  framer_feed(f, "\nwor", 4);
  ck_assert_int_eq(framer_next(f, &line, &len), 1);
  ck_assert_uint_eq(len, 5);
  ck_assert_str_eq(line, "hello");
  ck_assert_int_eq(framer_next(f, &line, &len), 0);
  ck_assert_uint_eq(framer_pending(f), 3);
  framer_feed(f, "ld\n", 3);
  ck_assert_int_eq(framer_next(f, &line, &len), 1);
  ck_assert_str_eq(line, "world");
  ck_assert_uint_eq(framer_pending(f), 0);
  framer_free(f);
}
END_TEST

START_TEST(frame_byte_by_byte) {
  size_t len = strlen(multi);
  size_t cuts[sizeof multi];
  GPtrArray *out;

  for (size_t i = 0; i + 1 < len; i++)
    cuts[i] = i + 1;
  out = frame_split(FRAME_MAX_LINE, multi, len, cuts, len - 1);
  assert_lines(out, multi_lines);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_every_two_split_points) {
  size_t len = strlen(multi);

  for (size_t a = 0; a <= len; a++) {
    for (size_t b = a; b <= len; b++) {
      size_t cuts[2] = {a, b};
      GPtrArray *out = frame_split(FRAME_MAX_LINE, multi, len, cuts, 2);

      assert_lines(out, multi_lines);
      g_ptr_array_unref(out);
    }
  }
}
END_TEST

START_TEST(frame_random_splits) {
  GRand *rand = g_rand_new_with_seed(20240611);
  GString *input = g_string_new(NULL);
  GPtrArray *want = g_ptr_array_new_with_free_func(g_free);

  /* Lines of varied length, some CRLF, some empty. */
  for (int i = 0; i < 500; i++) {
    int n = g_rand_int_range(rand, 0, 300);
    GString *line = g_string_new(NULL);

    for (int k = 0; k < n; k++)
      g_string_append_c(line, (char)g_rand_int_range(rand, 'a', 'z' + 1));
    g_string_append(input, line->str);
    g_string_append(input, g_rand_boolean(rand) ? "\r\n" : "\n");
    g_ptr_array_add(want, g_string_free(line, FALSE));
  }
  g_ptr_array_add(want, NULL);

  for (int round = 0; round < 50; round++) {
    GArray *cuts = g_array_new(FALSE, FALSE, sizeof(size_t));
    GPtrArray *out;
    size_t at = 0;

    for (;;) {
      at += (size_t)g_rand_int_range(rand, 1, round < 25 ? 8 : 700);
      if (at >= input->len)
        break;
      g_array_append_val(cuts, at);
    }
    out = frame_split(FRAME_MAX_LINE, input->str, input->len, (size_t *)cuts->data, cuts->len);
    assert_lines(out, (const char *const *)want->pdata);
    g_ptr_array_unref(out);
    g_array_unref(cuts);
  }
  g_ptr_array_unref(want);
  g_string_free(input, TRUE);
  g_rand_free(rand);
}
END_TEST

START_TEST(frame_only_cr_before_lf_is_stripped) {
  static const char *const want[] = {"a\rb", "c\r", "\r", "d", NULL};
  GPtrArray *out = frame_all(64, "a\rb\nc\r\r\n\r\r\nd\r\n");

  assert_lines(out, want);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_empty_lines) {
  static const char *const want[] = {"", "", "x", "", NULL};
  GPtrArray *out = frame_all(64, "\n\r\nx\n\n");

  assert_lines(out, want);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_nul_byte_inside_line) {
  Framer *f = framer_new(64);
  const char *line;
  size_t len;

  framer_feed(f, "a\0b\n", 4);
  ck_assert_int_eq(framer_next(f, &line, &len), 1);
  ck_assert_uint_eq(len, 3);
  ck_assert_mem_eq(line, "a\0b", 4);
  framer_free(f);
}
END_TEST

START_TEST(frame_oversized_line_then_good_line) {
  static const char *const want[] = {"ok", OVERSIZED, "good", NULL};
  GPtrArray *out = frame_all(8, "ok\n123456789\ngood\n");

  assert_lines(out, want);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_line_of_exactly_the_cap) {
  static const char *const want[] = {"12345678", "abcdefgh", OVERSIZED, OVERSIZED, "", NULL};
  GPtrArray *out = frame_all(8, "12345678\nabcdefgh\r\n123456789\nabcdefgh\r\r\n\n");

  assert_lines(out, want);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_cap_holds_for_every_split) {
  /* The same verdicts whatever the split, including a '\r' waiting at the cap. */
  static const char input[] = "12345678\r\nabc\n123456789\nabcdefgh\r\r\nxy\n";
  static const char *const want[] = {"12345678", "abc", OVERSIZED, OVERSIZED, "xy", NULL};
  size_t len = strlen(input);

  for (size_t a = 0; a <= len; a++) {
    for (size_t b = a; b <= len; b++) {
      size_t cuts[2] = {a, b};
      GPtrArray *out = frame_split(8, input, len, cuts, 2);

      assert_lines(out, want);
      g_ptr_array_unref(out);
    }
  }
}
END_TEST

START_TEST(frame_oversized_line_over_many_feeds) {
  const size_t cap = 1000, chunk = 97;
  Framer *f = framer_new(cap);
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  char piece[97];

  memset(piece, 'x', sizeof piece);
  framer_feed(f, "before\n", 7);
  drain(f, out);
  /* A 100 kB line: reported once, and never more than cap plus one feed held. */
  for (int i = 0; i < 1000; i++) {
    framer_feed(f, piece, chunk);
    drain(f, out);
    ck_assert_uint_le(framer_pending(f), cap + chunk);
  }
  ck_assert_uint_eq(out->len, 2);
  ck_assert_str_eq(g_ptr_array_index(out, 1), OVERSIZED);
  framer_feed(f, "xxx\nafter\n", 10);
  drain(f, out);
  ck_assert_uint_eq(out->len, 3);
  ck_assert_str_eq(g_ptr_array_index(out, 2), "after");
  ck_assert_uint_eq(framer_pending(f), 0);
  g_ptr_array_unref(out);
  framer_free(f);
}
END_TEST

START_TEST(frame_two_oversized_lines_in_one_feed) {
  static const char *const want[] = {OVERSIZED, "a", OVERSIZED, "b", NULL};
  GPtrArray *out = frame_all(4, "aaaaaaaa\na\nbbbbbbbbbbbbbbbb\nb\nccccc");

  /* The unterminated tail is over the cap too: one more report, and nothing is kept. */
  ck_assert_uint_eq(out->len, 5);
  ck_assert_str_eq(g_ptr_array_index(out, 4), OVERSIZED);
  g_ptr_array_remove_index(out, 4);
  assert_lines(out, want);
  g_ptr_array_unref(out);
}
END_TEST

START_TEST(frame_oversized_ends_exactly_at_feed_boundary) {
  static const char input[] = "aaaaaaaaaaaa\nb\n";
  static const char *const want[] = {OVERSIZED, "b", NULL};
  size_t len = strlen(input);

  /* Cut right before and right after the '\n' that ends the oversized line. */
  for (size_t cut = 0; cut <= len; cut++) {
    size_t cuts[1] = {cut};
    GPtrArray *out = frame_split(4, input, len, cuts, 1);

    assert_lines(out, want);
    g_ptr_array_unref(out);
  }
}
END_TEST

START_TEST(frame_large_line_fed_in_small_pieces) {
  const size_t size = 4 * 1024 * 1024;
  char *big = g_malloc(size + 1);
  Framer *f = framer_new(FRAME_MAX_LINE);
  const char *line;
  size_t len;

  memset(big, 'q', size);
  big[size] = '\n';
  for (size_t at = 0; at <= size; at += 1024) {
    size_t n = MIN((size_t)1024, size + 1 - at);

    framer_feed(f, big + at, n);
    if (at + n <= size)
      ck_assert_int_eq(framer_next(f, &line, &len), 0);
  }
  ck_assert_int_eq(framer_next(f, &line, &len), 1);
  ck_assert_uint_eq(len, size);
  ck_assert_int_eq(memcmp(line, big, size), 0);
  ck_assert_int_eq(framer_next(f, &line, &len), 0);
  ck_assert_uint_eq(framer_pending(f), 0);
  framer_free(f);
  g_free(big);
}
END_TEST

START_TEST(frame_free_null) {
  framer_free(NULL);
}
END_TEST

/* Frames input whole, then ends it. */
static GPtrArray *frame_to_end(size_t max_line, const char *input, size_t len) {
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  Framer *f = framer_new(max_line);

  framer_feed(f, input, len);
  drain(f, out);
  framer_end(f);
  drain(f, out);
  /* Nothing more comes, whatever is fed after the end. */
  framer_feed(f, "late\n", 5);
  drain(f, out);
  ck_assert_uint_eq(framer_pending(f), 0);
  framer_free(f);
  return out;
}

START_TEST(frame_last_line_without_newline_at_end) {
  static const char *const want[] = {"one", "two", NULL};
  static const char *const want_cr[] = {"one", "two", NULL};
  static const char *const want_none[] = {"one", NULL};
  GPtrArray *out = frame_to_end(64, "one\ntwo", 7);

  assert_lines(out, want);
  g_ptr_array_free(out, TRUE);
  out = frame_to_end(64, "one\r\ntwo\r", 9);
  assert_lines(out, want_cr);
  g_ptr_array_free(out, TRUE);
  /* Ending right after a newline adds no empty line. */
  out = frame_to_end(64, "one\n", 4);
  assert_lines(out, want_none);
  g_ptr_array_free(out, TRUE);
}
END_TEST

START_TEST(frame_last_line_at_end_respects_cap) {
  static const char *const want[] = {"ok", OVERSIZED, NULL};
  static const char *const want_fits[] = {"ok", "12345678", NULL};
  GPtrArray *out = frame_to_end(8, "ok\n123456789", 12);

  assert_lines(out, want);
  g_ptr_array_free(out, TRUE);
  out = frame_to_end(8, "ok\n12345678\r", 12);
  assert_lines(out, want_fits);
  g_ptr_array_free(out, TRUE);
}
END_TEST

START_TEST(frame_end_in_pieces) {
  /* The end comes after feeds of one byte each: the last line is whole. */
  static const char *const want[] = {"{\"a\":1}", "{\"b\":2}", NULL};
  const char *input = "{\"a\":1}\n{\"b\":2}";
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  Framer *f = framer_new(64);

  for (size_t i = 0; input[i]; i++) {
    framer_feed(f, input + i, 1);
    drain(f, out);
  }
  framer_end(f);
  framer_end(f);
  drain(f, out);
  assert_lines(out, want);
  framer_free(f);
  g_ptr_array_free(out, TRUE);
}
END_TEST

START_TEST(frame_blank_lines_have_no_content) {
  ck_assert(!frame_line_has_content("", 0));
  ck_assert(!frame_line_has_content(" \t \r ", 5));
  ck_assert(!frame_line_has_content("\r", 1));
  ck_assert(frame_line_has_content("  {}", 4));
  ck_assert(frame_line_has_content("\v", 1));
  ck_assert(frame_line_has_content(" \0 ", 3));
}
END_TEST

static Suite *frame_suite(void) {
  Suite *s = suite_create("frame");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, frame_lines_in_one_feed);
  tcase_add_test(tc, frame_partial_line_kept);
  tcase_add_test(tc, frame_byte_by_byte);
  tcase_add_test(tc, frame_every_two_split_points);
  tcase_add_test(tc, frame_random_splits);
  tcase_add_test(tc, frame_only_cr_before_lf_is_stripped);
  tcase_add_test(tc, frame_empty_lines);
  tcase_add_test(tc, frame_nul_byte_inside_line);
  tcase_add_test(tc, frame_oversized_line_then_good_line);
  tcase_add_test(tc, frame_line_of_exactly_the_cap);
  tcase_add_test(tc, frame_cap_holds_for_every_split);
  tcase_add_test(tc, frame_oversized_line_over_many_feeds);
  tcase_add_test(tc, frame_two_oversized_lines_in_one_feed);
  tcase_add_test(tc, frame_oversized_ends_exactly_at_feed_boundary);
  tcase_add_test(tc, frame_large_line_fed_in_small_pieces);
  tcase_add_test(tc, frame_free_null);
  tcase_add_test(tc, frame_last_line_without_newline_at_end);
  tcase_add_test(tc, frame_last_line_at_end_respects_cap);
  tcase_add_test(tc, frame_end_in_pieces);
  tcase_add_test(tc, frame_blank_lines_have_no_content);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(frame_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
