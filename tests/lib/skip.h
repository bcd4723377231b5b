/* Skipping in a check program, never silently. A case that cannot run all its checks because
 * the machine lacks something (a corpus from a Debian package, a tool, a loader, a privilege)
 * calls skip_note() or SKIP_CASE() with what is missing. check runs each case in a child
 * process, so the note goes to a file that every child shares; at the end, skip_status() turns
 * an otherwise clean run into exit status 77, which meson counts as skipped, not passed.
 *
 *   int main(void) {
 *     skip_init();                      (before srunner_run_all)
 *     ... srunner_run_all(...) ...
 *     return skip_status(failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
 *   }
 */
#pragma once

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

static FILE *skip_file;

/* Call once in main(), before srunner_run_all() forks the cases. */
static inline void skip_init(void) {
  skip_file = tmpfile();
  if (skip_file == NULL) {
    perror("tmpfile");
    exit(EXIT_FAILURE);
  }
}

/* Says "SKIP: <what>" and records that a check could not run. */
static inline void skip_note(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static inline void skip_note(const char *fmt, ...) {
  va_list ap;

  printf("SKIP: ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  /* One byte per note, unbuffered: the file offset is shared with the parent and every case. */
  if (skip_file == NULL || write(fileno(skip_file), "s", 1) != 1)
    abort();
}

/* skip_note(), then returns from the test case. */
#define SKIP_CASE(...)                                                                             \
  do {                                                                                             \
    skip_note(__VA_ARGS__);                                                                        \
    return;                                                                                        \
  } while (0)

/* The number of skip notes so far, the cases' included. */
static inline long skip_count(void) {
  struct stat st;

  if (skip_file == NULL || fstat(fileno(skip_file), &st) < 0)
    return 0;
  return (long)st.st_size;
}

/* The program's exit status: `status` (0 or a failure), except 77 when it is 0 and something
 * was skipped. */
static inline int skip_status(int status) {
  long n = skip_count();

  if (status != 0 || n == 0)
    return status;
  printf("SKIP: %ld check(s) could not run (see SKIP above): the program counts as skipped\n", n);
  return 77;
}
