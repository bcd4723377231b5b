#include "daemon/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static LogLevel max_level = LOG_INFO;

static const char *const level_names[] = {"error", "warning", "info", "debug"};

void log_init_from_env(void) {
  const char *v = getenv("READERD_LOG");

  if (v == NULL)
    return;
  for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
    if (strcmp(v, level_names[i]) == 0)
      max_level = (LogLevel)i;
}

void log_msg(LogLevel level, const char *fmt, ...) {
  char line[1024];
  int n, m;
  va_list ap;

  if (level > max_level)
    return;
  n = snprintf(line, sizeof(line), "readerd[%ld]: %s: ", (long)getpid(), level_names[level]);
  va_start(ap, fmt);
  m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (m < 0)
    return;
  n += m;
  if ((size_t)n > sizeof(line) - 2)
    n = (int)sizeof(line) - 2;
  line[n++] = '\n';
  /* One write(2) so that lines from several threads never interleave. */
  if (write(STDERR_FILENO, line, (size_t)n) < 0) {
    /* Nowhere left to report it. */
  }
}
