/* What the pieces of the test library share among themselves; the tests include rd.h. */
#pragma once

#include <stdint.h>

#include <glib.h>

#include "tests/lib/results.h"

/* Now, on the monotonic clock, in milliseconds. */
static inline int64_t rd_now_ms(void) {
  return g_get_monotonic_time() / 1000;
}

/* Milliseconds left until deadline (an rd_now_ms() time), 0 when it has passed. */
static inline int rd_remaining_ms(int64_t deadline) {
  int64_t left = deadline - rd_now_ms();
  return left < 0 ? 0 : (int)left;
}

/* process.c: registers a folder (copied) to be removed if it is still registered when the test
 * process exits. */
void rd_track_dir(const char *dir);

/* process.c: forgets a folder rd_track_dir() registered (the caller removes it). */
void rd_untrack_dir(const char *dir);

/* process.c: a close-on-exec pipe; fails the test when it cannot be made. */
void rd_make_pipe(int fds[2]);

/* process.c: makes fd non-blocking; fails the test when it cannot. */
void rd_set_nonblock(int fd);

/* daemon.c: the last 3,000 bytes of a log file, or "(no log)". g_malloc'd. */
char *rd_log_tail(const char *log);

/* daemon.c: fails the test when the log file shows a sanitizer report (printing it to stderr);
 * a log that cannot be read passes. */
void rd_log_check_clean(const char *log);

/* result-mirror.c: fails the test unless r's XML mirrors its files[] entries (path, code, type,
 * bytes, modified, truncated, lines; image index, width and height, the image data matching)
 * and the totals on the root element and in the result are the sums over the files read. */
void rd_result_check_mirror(RdResult *r);
