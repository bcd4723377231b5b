#include "daemon/log.h"

#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#define LOG_LINE_MAX 1024

static LogLevel max_level = LOG_INFO;

static const char *const level_names[] = {"error", "warning", "info", "debug"};

/* The token bucket and the count of dropped lines, under the lock. */
static GMutex lock;
static double tokens = LOG_BURST;
static int64_t refilled_us; /* when tokens were last refilled; 0 before the first line */
static uint64_t suppressed;

void log_init_from_env(void) {
  const char *v = getenv("READERD_LOG");

  if (v == NULL)
    return;
  for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
    if (strcmp(v, level_names[i]) == 0)
      max_level = (LogLevel)i;
}

/* Formats one line, "\n" included, into buf (LOG_LINE_MAX bytes). Returns its length. */
static size_t format_line(char *buf, LogLevel level, const char *fmt, va_list ap)
    G_GNUC_PRINTF(3, 0);

static size_t format_line(char *buf, LogLevel level, const char *fmt, va_list ap) {
  int n, m;

  n = snprintf(buf, LOG_LINE_MAX, "readerd[%ld]: %s: ", (long)getpid(), level_names[level]);
  m = vsnprintf(buf + n, LOG_LINE_MAX - (size_t)n - 1, fmt, ap);
  if (m < 0)
    m = 0;
  n += m;
  if (n > LOG_LINE_MAX - 2)
    n = LOG_LINE_MAX - 2;
  buf[n++] = '\n';
  return (size_t)n;
}

/* Takes a token when one is left. Under the lock. */
static bool take_token(void) {
  int64_t now = g_get_monotonic_time();

  if (refilled_us != 0)
    tokens += (double)(now - refilled_us) * LOG_RATE / G_USEC_PER_SEC;
  refilled_us = now;
  if (tokens > LOG_BURST)
    tokens = LOG_BURST;
  if (tokens < 1)
    return false;
  tokens -= 1;
  return true;
}

/* Writes buf to stderr in one write(2) when stderr can take it now, so that a pipe nobody
 * drains never stalls a thread. A line is far below PIPE_BUF: once the pipe has room, the
 * write neither blocks nor splits. Under the lock, so that no other thread fills the room
 * between the poll and the write. Returns false when the line was dropped. */
static bool write_now(const char *buf, size_t len) {
  struct pollfd p = {.fd = STDERR_FILENO, .events = POLLOUT};

  if (poll(&p, 1, 0) != 1 || (p.revents & POLLOUT) == 0)
    return false;
  return write(STDERR_FILENO, buf, len) == (ssize_t)len;
}

/* Formats the line that reports dropped lines into out (LOG_LINE_MAX bytes); 0 when none
 * were. Under the lock. */
static size_t format_suppressed(char *out) {
  if (suppressed == 0)
    return 0;
  return (size_t)snprintf(out, LOG_LINE_MAX,
                          "readerd[%ld]: warning: %" PRIu64 " log lines suppressed (rate limit "
                          "or a full stderr)\n",
                          (long)getpid(), suppressed);
}

static void log_line(const char *line, size_t len) {
  char out[2 * LOG_LINE_MAX];
  size_t n;

  g_mutex_lock(&lock);
  if (!take_token()) {
    suppressed++;
    goto out;
  }
  n = format_suppressed(out);
  memcpy(out + n, line, len);
  if (write_now(out, n + len))
    suppressed = 0;
  else
    suppressed++;
out:
  g_mutex_unlock(&lock);
}

void log_report_suppressed(void) {
  char out[LOG_LINE_MAX];
  size_t n;

  g_mutex_lock(&lock);
  n = format_suppressed(out);
  if (n > 0 && write_now(out, n))
    suppressed = 0;
  g_mutex_unlock(&lock);
}

void log_msg(LogLevel level, const char *fmt, ...) {
  char line[LOG_LINE_MAX];
  size_t len;
  va_list ap;

  if (level > max_level)
    return;
  va_start(ap, fmt);
  len = format_line(line, level, fmt, ap);
  va_end(ap);
  log_line(line, len);
}

static LogLevel glib_least = LOG_ERR; /* GLib's messages are logged at this level or lower */

static LogLevel level_from_glib(GLogLevelFlags flags) {
  LogLevel l = LOG_DEBUG;

  if (flags & G_LOG_LEVEL_ERROR)
    l = LOG_ERR;
  else if (flags & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    l = LOG_WARNING;
  else if (flags & G_LOG_LEVEL_MESSAGE)
    l = LOG_INFO;
  return MAX(l, glib_least);
}

static void glib_log(GLogLevelFlags flags, const char *domain, const char *message) {
  log_msg(level_from_glib(flags), "%s%s%s", domain != NULL ? domain : "",
          domain != NULL ? ": " : "", message != NULL ? message : "");
}

static GLogWriterOutput glib_writer_cb(GLogLevelFlags flags, const GLogField *fields,
                                       gsize n_fields, gpointer data) {
  const char *domain = NULL, *message = NULL;

  for (gsize i = 0; i < n_fields; i++) {
    if (fields[i].length >= 0)
      continue; /* not a string */
    if (strcmp(fields[i].key, "GLIB_DOMAIN") == 0)
      domain = fields[i].value;
    else if (strcmp(fields[i].key, "MESSAGE") == 0)
      message = fields[i].value;
  }
  glib_log(flags, domain, message);
  return G_LOG_WRITER_HANDLED;
}

static void glib_handler_cb(const char *domain, GLogLevelFlags flags, const char *message,
                            gpointer data) {
  glib_log(flags, domain, message);
}

void log_route_glib(LogLevel least) {
  glib_least = least;
  g_log_set_writer_func(glib_writer_cb, NULL, NULL);
  g_log_set_default_handler(glib_handler_cb, NULL);
}
