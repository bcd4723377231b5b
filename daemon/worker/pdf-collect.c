#include "daemon/worker/pdf-collect.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define READ_CHUNK ((size_t)256 * 1024)
#define MAX_BUDGET_MS (3600 * 1000) /* an hour */

/* Hands the complete records at the front of buf to consume() and removes them. Returns what
 * consume() last said (1: everything was said), or a negative errno. */
static int consume_records(GByteArray *buf, PdfCollectFn consume, void *data) {
  size_t at = 0;
  int r = 0;

  while (r == 0) {
    PdfRecord rec;
    ssize_t used = pdf_wire_next(buf->data + at, buf->len - at, &rec);

    if (used == 0)
      break;
    if (used < 0) {
      r = (int)used;
      break;
    }
    r = consume(&rec, data);
    at += (size_t)used;
  }
  if (at > 0)
    g_byte_array_remove_range(buf, 0, (guint)at);
  return r;
}

PdfCollectOutcome pdf_collect(int sock, int64_t deadline, const atomic_bool *cancelled,
                              size_t max_pending, PdfCollectFn consume, void *data) {
  GByteArray *buf = g_byte_array_new();
  PdfCollectOutcome out = PDF_COLLECT_DIED;

  for (;;) {
    struct pollfd pfd = {.fd = sock, .events = POLLIN};
    gint64 left = deadline - g_get_monotonic_time();
    size_t len = buf->len;
    ssize_t n;
    int r;

    if (cancelled != NULL && atomic_load(cancelled)) {
      out = PDF_COLLECT_CANCELLED;
      break;
    }
    if (left <= 0) {
      out = PDF_COLLECT_TIMEOUT;
      break;
    }
    if (poll(&pfd, 1, (int)MIN(left / 1000 + 1, PDF_COLLECT_SLICE_MS)) <= 0)
      continue; /* a time slice passed, or EINTR */
    if (len > max_pending) {
      out = PDF_COLLECT_BROKEN;
      break;
    }
    g_byte_array_set_size(buf, (guint)(len + READ_CHUNK));
    n = read(sock, buf->data + len, READ_CHUNK);
    g_byte_array_set_size(buf, (guint)(len + (n > 0 ? (size_t)n : 0)));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      break; /* EOF (or a reset): the worker is gone */
    r = consume_records(buf, consume, data);
    if (r != 0) {
      out = r > 0 ? PDF_COLLECT_ENDED : PDF_COLLECT_BROKEN;
      break;
    }
  }
  g_byte_array_free(buf, TRUE);
  return out;
}

char *pdf_collect_death_reason(int status) {
  if (WIFSIGNALED(status))
    return g_strdup_printf("killed by signal %d, %s", WTERMSIG(status),
                           g_strsignal(WTERMSIG(status)));
  if (WIFEXITED(status))
    return g_strdup_printf("exited with status %d", WEXITSTATUS(status));
  return g_strdup("stopped");
}

int pdf_collect_budget_ms(const char *var, int fallback) {
  const char *s = getenv(var);
  char *end = NULL;
  long v;

  if (s == NULL || *s == '\0')
    return fallback;
  v = strtol(s, &end, 10);
  if (*end != '\0' || v < 1 || v > MAX_BUDGET_MS)
    return fallback;
  return (int)v;
}

char *pdf_collect_budget_text(int ms) {
  return ms % 1000 == 0 ? g_strdup_printf("%d s", ms / 1000) : g_strdup_printf("%d ms", ms);
}
