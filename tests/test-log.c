/* The logger in-process: GLib's messages routed through it, its level, its rate limit and the
 * line that counts what was dropped, with stderr a pipe this test reads. */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/log.h"
#include "tests/lib/check-run.h"

/* Points stderr at a new pipe; returns its read end (non-blocking). */
static int capture_stderr(void) {
  int p[2];

  ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  fcntl(p[1], F_SETPIPE_SZ, 1024 * 1024);
  ck_assert_int_eq(dup2(p[1], STDERR_FILENO), STDERR_FILENO);
  close(p[1]);
  return p[0];
}

static char *drain(int fd) {
  GString *s = g_string_new(NULL);
  char buf[4096];
  ssize_t n;

  while ((n = read(fd, buf, sizeof buf)) > 0)
    g_string_append_len(s, buf, n);
  return g_string_free(s, FALSE);
}

static guint count_lines(const char *s, const char *needle) {
  guint n = 0;

  for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
    n++;
  return n;
}

START_TEST(log_glib_messages_rate_limited) {
  int fd = capture_stderr();
  g_autofree char *out = NULL;
  gint64 t0 = g_get_monotonic_time();
  double secs;

  log_init_from_env();
  log_route_glib(LOG_ERR);
  for (int i = 0; i < 1000; i++)
    g_warning("damaged thing %d", i);
  log_report_suppressed();
  secs = (double)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
  out = drain(fd);
  /* In readerd's form, as a warning, with GLib's domain. */
  ck_assert_msg(strstr(out, "]: warning: ") != NULL && strstr(out, "damaged thing 0") != NULL,
                "%.200s", out);
  ck_assert_msg(strstr(out, "** (process") == NULL, "GLib wrote on its own: %.200s", out);
  ck_assert_uint_le(count_lines(out, "damaged thing"), LOG_BURST + LOG_RATE * secs + 1);
  ck_assert_uint_ge(count_lines(out, "damaged thing"), LOG_BURST);
  ck_assert_msg(strstr(out, "log lines suppressed") != NULL, "no line counts the dropped ones");
  close(fd);
}
END_TEST

START_TEST(log_worker_level_keeps_glib_quiet) {
  int fd = capture_stderr();
  g_autofree char *out = NULL;

  unsetenv("READERD_LOG");
  log_init_from_env();
  log_route_glib(LOG_DEBUG); /* as the worker process does */
  g_warning("noise from a damaged file");
  log_msg(LOG_WARNING, "a real warning");
  out = drain(fd);
  ck_assert_msg(strstr(out, "noise from a damaged file") == NULL, "%s", out);
  ck_assert_msg(strstr(out, "a real warning") != NULL, "%s", out);
  close(fd);
}
END_TEST

static Suite *log_suite(void) {
  Suite *s = suite_create("log");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, log_glib_messages_rate_limited);
  tcase_add_test(tc, log_worker_level_keeps_glib_quiet);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(log_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
