/* What the daemon holds for its clients (daemon/hold.c): the cap for the whole daemon, each
 * account's fair part, and the line of accounts waiting for room, woken in order when the
 * total falls or an account leaves. */
#include <check.h>
#include <stdlib.h>

#include <glib.h>

#include "daemon/hold.h"
#include "tests/lib/check-run.h"

#define MIB ((size_t)1024 * 1024)

static GArray *woken; /* HoldAccount *, in the order woken */

static void wake_cb(HoldAccount *a) {
  g_array_append_val(woken, a);
}

/* Up to the cap anyone may take more; past it, only an account within its fair part. */
START_TEST(hold_cap_and_fair_part) {
  HoldAccount a, b, c;
  woken = g_array_new(FALSE, FALSE, sizeof(HoldAccount *));
  hold_join(&a, wake_cb);
  hold_join(&b, wake_cb);
  hold_join(&c, wake_cb);
  ck_assert_uint_eq(hold_share(), HOLD_MAX / 3);

  ck_assert(hold_allows(&a, HOLD_MAX - 10 * MIB, false));
  hold_set(&a, HOLD_MAX - 10 * MIB);
  ck_assert(hold_allows(&b, 10 * MIB, false));
  hold_set(&b, 10 * MIB);
  ck_assert_uint_eq(hold_total(), HOLD_MAX);
  /* At the cap: a, far past its part, may take nothing and is not read; c, holding nothing,
   * may take what fits in its part, not more. */
  ck_assert(!hold_allows(&a, 1, false));
  ck_assert(hold_over(&a));
  ck_assert(!hold_over(&c));
  ck_assert(hold_allows(&c, HOLD_MAX / 3, false));
  ck_assert(!hold_allows(&c, HOLD_MAX / 3 + 1, false));

  /* Nothing fell: nobody is woken. */
  hold_wake();
  ck_assert_uint_eq(woken->len, 0);
  /* b takes its answers: the waiting ones are woken in the order they began to wait. */
  hold_set(&b, 0);
  hold_wake();
  ck_assert_uint_eq(woken->len, 2);
  ck_assert_ptr_eq(g_array_index(woken, HoldAccount *, 0), &a);
  ck_assert_ptr_eq(g_array_index(woken, HoldAccount *, 1), &c);
  /* Woken once: they wait again only when they are refused again. */
  hold_set(&a, 0);
  hold_wake();
  ck_assert_uint_eq(woken->len, 2);

  hold_leave(&a);
  hold_leave(&a);
  hold_leave(&b);
  hold_leave(&c);
  ck_assert_uint_eq(hold_total(), 0);
  g_array_free(woken, TRUE);
}
END_TEST

/* An account that leaves gives its part back: the others, waiting, are woken; one that left
 * while waiting is not. */
START_TEST(hold_leave_wakes) {
  HoldAccount a, b, c;
  woken = g_array_new(FALSE, FALSE, sizeof(HoldAccount *));
  hold_join(&a, wake_cb);
  hold_join(&b, wake_cb);
  hold_join(&c, wake_cb);
  hold_set(&a, HOLD_MAX / 2);
  hold_set(&b, HOLD_MAX / 2);
  ck_assert(hold_over(&a));
  ck_assert(hold_over(&b));
  ck_assert(!hold_allows(&c, HOLD_MAX / 2, false));
  hold_leave(&b);
  hold_wake();
  ck_assert_uint_eq(woken->len, 2);
  ck_assert_ptr_eq(g_array_index(woken, HoldAccount *, 0), &a);
  ck_assert_ptr_eq(g_array_index(woken, HoldAccount *, 1), &c);
  ck_assert(hold_allows(&c, HOLD_MAX / 2, false));
  hold_leave(&a);
  hold_leave(&c);
  ck_assert_uint_eq(hold_total(), 0);
  g_array_free(woken, TRUE);
}
END_TEST

/* A client that takes its answers may go past the cap and its part, up to twice the cap. */
START_TEST(hold_reading_client_goes_past_the_cap) {
  HoldAccount a, b;
  woken = g_array_new(FALSE, FALSE, sizeof(HoldAccount *));
  hold_join(&a, wake_cb);
  hold_join(&b, wake_cb);
  hold_set(&a, HOLD_MAX);
  ck_assert(!hold_allows(&b, HOLD_MAX / 2 + 1, false));
  ck_assert(hold_allows(&b, HOLD_MAX, true));
  ck_assert(!hold_allows(&b, HOLD_MAX + 1, true));
  hold_leave(&a);
  hold_leave(&b);
  g_array_free(woken, TRUE);
}
END_TEST

static Suite *hold_suite(void) {
  Suite *s = suite_create("hold");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, hold_cap_and_fair_part);
  tcase_add_test(tc, hold_leave_wakes);
  tcase_add_test(tc, hold_reading_client_goes_past_the_cap);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(hold_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
