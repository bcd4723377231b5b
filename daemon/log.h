/* Logging for the daemon: one line per event on stderr (stdout may carry the protocol). */
#pragma once

typedef enum {
  LOG_ERR = 0,
  LOG_WARNING,
  LOG_INFO,
  LOG_DEBUG,
} LogLevel;

/* Sets the level from READERD_LOG=debug|info|warning|error; messages above it are dropped.
 * The default is info. */
void log_init_from_env(void);

/* Writes "readerd[pid]: <level>: message\n" to stderr in one write. Thread-safe. */
void log_msg(LogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
