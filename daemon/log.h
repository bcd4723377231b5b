/* Logging for the daemon: one line per event on stderr (stdout may carry the protocol).
 *
 * Writing a log line never blocks: a line that stderr cannot take at once (a pipe nobody
 * drains) is dropped and counted. Lines are rate-limited by a token bucket of LOG_BURST
 * lines refilled at LOG_RATE lines per second; what is dropped either way is reported by one
 * "N log lines suppressed" line once lines flow again. */
#pragma once

typedef enum {
  LOG_ERR = 0,
  LOG_WARNING,
  LOG_INFO,
  LOG_DEBUG,
} LogLevel;

#define LOG_BURST 100 /* lines written at once before the rate applies */
#define LOG_RATE 20   /* lines per second after that */

/* Sets the level from READERD_LOG=debug|info|warning|error; messages above it are dropped.
 * The default is info. */
void log_init_from_env(void);

/* Sends GLib's and libraries' messages (g_warning, g_critical, gdk-pixbuf's loaders...)
 * through log_msg(), with its level and rate limit, instead of GLib's own blocking writes:
 * criticals and warnings as warnings, messages as info, the rest as debug, but never above
 * `least` (LOG_DEBUG in the worker process, where a damaged file's complaints are noise: its
 * per-file error says what went wrong). Call once, early in main(), before any thread logs. */
void log_route_glib(LogLevel least);

/* Writes "readerd[pid]: <level>: message\n" to stderr in one write, unless the level, the
 * rate limit or a full stderr drops it. Thread-safe; never blocks on stderr. */
void log_msg(LogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the "N log lines suppressed" line now, whatever the rate limit, when lines were
 * dropped since the last line written (at exit, so that the count is never lost). */
void log_report_suppressed(void);

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
