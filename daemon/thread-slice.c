#include "daemon/thread-slice.h"

#include <errno.h>
#include <pthread.h>
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

static uint32_t slice_us[THREAD_SLICE_N];
static pthread_once_t slice_once = PTHREAD_ONCE_INIT;
/* The calling thread's kind of slice; -1: not known yet (the first call asks). */
static _Thread_local int state = -1;

/* A value in microseconds from the environment, 0 to 100000; else dflt. */
static uint32_t env_us(const char *name, uint32_t dflt) {
  const char *s = getenv(name);
  char *end;
  unsigned long v;

  if (s == NULL || *s == '\0')
    return dflt;
  errno = 0;
  v = strtoul(s, &end, 10);
  return errno == 0 && *end == '\0' && v <= 100000 ? (uint32_t)v : dflt;
}

static void slice_init(void) {
  slice_us[THREAD_SLICE_DEFAULT] = 0;
  slice_us[THREAD_SLICE_LATENCY] = env_us("READERD_SLICE_US", THREAD_SLICE_LATENCY_US);
  slice_us[THREAD_SLICE_BULK] = env_us("READERD_BULK_SLICE_US", THREAD_SLICE_BULK_US);
}

uint32_t thread_slice_us(ThreadSlice kind) {
  pthread_once(&slice_once, slice_init);
  return slice_us[kind];
}

int thread_slice_set(ThreadSlice kind) {
  SchedAttr a;

  if (state == (int)kind || (state == -1 && thread_slice_us(kind) == 0))
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
  /* 0 gives the kernel's default slice. */
  a.sched_runtime = (uint64_t)thread_slice_us(kind) * 1000;
#ifdef SYS_sched_setattr
  if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
    return -errno;
  state = (int)kind;
  return 0;
#else
  return -ENOSYS;
#endif
}
