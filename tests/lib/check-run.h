/* Running a check suite, the end of every test program's main() (header only, for the
 * in-process tests that do not link rd_lib as much as for rd_run_suite). */
#pragma once

#include <check.h>

/* Runs every case of s (CK_NORMAL output), frees the runner and the suite, and returns the
 * number of cases that failed. */
static inline int check_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  int failed;

  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}
