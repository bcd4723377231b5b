#include "daemon/thread-slice.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr (include/uapi/linux/sched/types.h), first version: glibc 2.36
 * has no wrapper for sched_setattr. */
typedef struct {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
} SchedAttr;

#define SCHED_FLAG_RESET_ON_FORK 0x01

static uint32_t slice_us;
static pthread_once_t slice_once = PTHREAD_ONCE_INIT;
/* The calling thread's slice: 1 short, 0 the default, -1 not known yet (the first call asks). */
static _Thread_local int state = -1;

static void slice_init(void) {
  const char *s = getenv("READERD_SLICE_US");
  char *end;
  unsigned long v;

  slice_us = THREAD_SLICE_US;
  if (s == NULL || *s == '\0')
    return;
  errno = 0;
  v = strtoul(s, &end, 10);
  if (errno == 0 && *end == '\0' && v <= 100000)
    slice_us = (uint32_t)v;
}

uint32_t thread_slice_us(void) {
  pthread_once(&slice_once, slice_init);
  return slice_us;
}

int thread_slice_set(bool short_slice) {
  SchedAttr a;

  if (state == (int)short_slice || thread_slice_us() == 0)
    return 0;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.sched_policy = 0; /* SCHED_OTHER, at the thread's nice value */
  /* Threads and processes started from this one (the pool, PDF workers) start with the
   * default slice. */
  a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
  errno = 0;
  a.sched_nice = getpriority(PRIO_PROCESS, 0);
  if (errno != 0)
    return -errno;
  /* 0 gives the default slice back. */
  a.sched_runtime = short_slice ? (uint64_t)thread_slice_us() * 1000 : 0;
#ifdef SYS_sched_setattr
  if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
    return -errno;
  state = short_slice;
  return 0;
#else
  return -ENOSYS;
#endif
}
