#include "daemon/worker/child/worker-limits.h"

#include <sys/resource.h>

/* Sets the soft limit of `resource` to want, capped by its hard limit. */
static void soft_limit(int resource, rlim_t want) {
  struct rlimit lim;

  if (getrlimit(resource, &lim) < 0)
    return;
  lim.rlim_cur = lim.rlim_max != RLIM_INFINITY && want > lim.rlim_max ? lim.rlim_max : want;
  /* A limit that cannot be set leaves the daemon's deadline, which always holds. */
  (void)setrlimit(resource, &lim);
}

void worker_limits(uint32_t budget_ms, size_t max_memory) {
  struct rusage used;

  if (getrusage(RUSAGE_SELF, &used) == 0)
    soft_limit(RLIMIT_CPU,
               (rlim_t)(used.ru_utime.tv_sec + used.ru_stime.tv_sec) + budget_ms / 1000 + 2);
#ifndef WORKER_SANITIZED
  soft_limit(RLIMIT_AS, (rlim_t)max_memory);
#else
  (void)max_memory;
#endif
}
