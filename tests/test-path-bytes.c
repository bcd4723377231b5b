/* The pathBytes spelling of file names (basic/path-bytes.c): which names need it, the
 * spelling itself, and the way back, on every byte value and on what is not a spelling. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "basic/path-bytes.h"
#include "tests/lib/check-run.h"

START_TEST(path_bytes_spelling) {
  static const char *const cases[][2] = {
      {"a\xff.txt", "a\\xff.txt"},
      {"a\xfe.txt", "a\\xfe.txt"},
      {"b\\\xe9", "b\\\\\\xe9"},                 /* a backslash is doubled only when escaping */
      {"caf\xc3\xa9\x01", "caf\xc3\xa9\\x01"},   /* valid UTF-8 kept, a control escaped */
      {"tab\there", "tab\\x09here"},             /* XML would normalize it away */
      {"del\x7f", "del\\x7f"},                   /* DEL and C1 drive terminals */
      {"c1\xc2\x9b", "c1\\xc2\\x9b"},            /* U+009B, a CSI */
      {"nc\xef\xbf\xbe", "nc\\xef\\xbf\\xbe"},   /* U+FFFE: not an XML character */
      {"sur\xed\xa0\x80", "sur\\xed\\xa0\\x80"}, /* a surrogate is not UTF-8 */
      {"cut\xe2\x82", "cut\\xe2\\x82"},          /* a character cut short */
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *got = path_bytes_escape(cases[i][0]);
    g_autofree char *back = NULL;

    ck_assert(path_bytes_needed(cases[i][0]));
    ck_assert_str_eq(got, cases[i][1]);
    ck_assert_int_eq(path_bytes_unescape(got, &back), 0);
    ck_assert_str_eq(back, cases[i][0]);
  }
}
END_TEST

/* A name JSON and XML carry as it is has no spelling of its own. */
START_TEST(path_bytes_not_needed) {
  static const char *const names[] = {"src/main.c",       "caf\xc3\xa9",  "a\\b",
                                      "\xf0\x9f\x98\x80", "\xef\xbf\xbd", "x]]>'&<"};

  ck_assert(!path_bytes_needed(NULL));
  ck_assert_ptr_null(path_bytes_escape(NULL));
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    ck_assert(!path_bytes_needed(names[i]));
    ck_assert_ptr_null(path_bytes_escape(names[i]));
  }
}
END_TEST

/* Every byte value round-trips, and names differing in one byte get different spellings. */
START_TEST(path_bytes_every_byte) {
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

  for (int b = 1; b < 256; b++) {
    char name[] = {'a', (char)b, (char)0xff, '\0'};
    char *got = path_bytes_escape(name);
    g_autofree char *back = NULL;

    ck_assert_ptr_nonnull(got);
    ck_assert(g_utf8_validate(got, -1, NULL));
    ck_assert_int_eq(path_bytes_unescape(got, &back), 0);
    ck_assert_str_eq(back, name);
    ck_assert_msg(g_hash_table_add(seen, got), "two names spelled %s", got);
  }
}
END_TEST

/* Not a spelling: a backslash that escapes nothing, a short or bad \x, NUL, nothing. */
START_TEST(path_bytes_refuses) {
  static const char *const bad[] = {"", "a\\", "a\\q", "a\\x", "a\\x4", "a\\xg0", "a\\x00b"};
  g_autofree char *ok = NULL;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    char *out = NULL;

    ck_assert_msg(path_bytes_unescape(bad[i], &out) == -EINVAL, "took %s", bad[i]);
    ck_assert_ptr_null(out);
  }
  ck_assert_int_eq(path_bytes_unescape(NULL, &ok), -EINVAL);
  /* Upper-case hex and escapes of plain bytes are read too. */
  ck_assert_int_eq(path_bytes_unescape("\\x41\\xFF", &ok), 0);
  ck_assert_str_eq(ok, "A\xff");
}
END_TEST

static Suite *path_bytes_suite(void) {
  Suite *s = suite_create("path-bytes");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, path_bytes_spelling);
  tcase_add_test(tc, path_bytes_not_needed);
  tcase_add_test(tc, path_bytes_every_byte);
  tcase_add_test(tc, path_bytes_refuses);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(path_bytes_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
