/* Shares libuv's thread pool between the requests of one loop, fairly. Work comes in two
 * classes: lanes (text reads, CPU-bound, in short slices) and blocking jobs (images, PDFs and
 * SVG renders: a thread that mostly waits on a worker process). Each class has its own slots,
 * so that blocking work never takes the threads text reads need, and work is queued on the
 * pool only when a slot is free: nothing waits in libuv's FIFO queue behind another request's
 * work. When a slot frees, it goes to the request with the fewest units of that class running,
 * and among equals to the one served least recently (a request never served first), so a small
 * request arriving behind large ones starts at the next slice and none waits behind others
 * taking turns; a request with no lane at all may also take one of SCHEDULER_LANES_EXPRESS extra
 * lanes at once. While requests have company (SCHEDULER_COMPANY_US), the shared lanes leave one
 * CPU to the express ones. Only the loop thread calls these functions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

typedef enum {
  SCHEDULER_LANE = 0,
  SCHEDULER_BLOCKING,
  SCHEDULER_N_CLASSES,
} SchedulerClass;

/* Blocking jobs running at once; the pool has a thread for each, and for each lane
 * (pool_threads(), pool-gate.h). */
#define SCHEDULER_BLOCKING_MAX 8
/* Lanes past the CPU count that requests without any lane may take at once. */
#define SCHEDULER_LANES_EXPRESS 6
/* For this long after a request joined while another had lanes running (they have company),
 * the shared lanes are one fewer than the CPUs, so that a small request's work and the loop
 * find a core free; a request alone gets every CPU again after it. */
#define SCHEDULER_COMPANY_US (250 * 1000)

typedef struct SchedulerTask SchedulerTask;

typedef struct {
  /* True when the task has work of class cls it could start now. */
  bool (*wants)(SchedulerTask *t, SchedulerClass cls);
  /* Starts one unit of class cls (queues it on the pool); called only after wants() said so.
   * The unit reports its end with scheduler_done(). */
  void (*start)(SchedulerTask *t, SchedulerClass cls);
} SchedulerOps;

/* Embedded in its owner (a request); container_of gives the owner back. */
struct SchedulerTask {
  const SchedulerOps *ops;
  void *sched; /* the loop's scheduler while joined, else NULL */
  uint64_t seq;
  uint64_t served[SCHEDULER_N_CLASSES]; /* when it last started a unit of a class; 0: never */
  size_t running[SCHEDULER_N_CLASSES];
};

/* Joins the loop's scheduler and starts what the slots allow. The task stays joined until
 * scheduler_leave(). */
void scheduler_join(uv_loop_t *loop, SchedulerTask *t, const SchedulerOps *ops);

/* A unit of class cls that t started has ended: its slot goes to whoever is owed it. */
void scheduler_done(SchedulerTask *t, SchedulerClass cls);

/* t has new work (or can use more slots): starts what the slots allow. */
void scheduler_kick(SchedulerTask *t);

/* Leaves the scheduler; t must have no unit running. Safe on a task that never joined. */
void scheduler_leave(SchedulerTask *t);

/* Units of cls running on the loop's scheduler, over every task; for tests. */
size_t scheduler_running(uv_loop_t *loop, SchedulerClass cls);

/* True while requests have company (SCHEDULER_COMPANY_US): any thread may ask. */
bool scheduler_company(void);

/* Units started so far in the process, over every loop: it changes whenever any work starts. */
uint64_t scheduler_units_started(void);
