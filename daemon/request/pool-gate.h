/* The pool's jobs that no scheduler counts: parsing a long request line (reply.c) and building
 * a connection's workspace (workspace-job.c). Any client can start them, one per connection, so
 * unbounded they would take the threads the scheduler's lanes and blocking jobs are promised
 * (scheduler.h: every one has a thread), and a hung mount under a root could hold every thread
 * of the pool. A gate lets at most `slots` of its jobs run at once, on threads of their own
 * (pool_threads() counts them); the others wait in order, and one still waiting can be
 * withdrawn. Each kind has its gate, so that a hung mount holding the workspaces' slots never
 * stops a long line's parse. Loop thread only. */
#pragma once

#include <stdbool.h>

#include <glib.h>
#include <uv.h>

/* Long lines parsed at once (reply.c), and workspaces built at once (workspace-job.c). */
#define POOL_GATE_PARSE_SLOTS 2
#define POOL_GATE_WORKSPACE_SLOTS 2

/* Threads libuv's pool needs so that no unit of work waits for one: the scheduler's lanes (one
 * per CPU, plus the express ones) and blocking slots, and the gates' slots. */
unsigned pool_threads(void);

typedef struct {
  GQueue waiting; /* PoolGateJob, by their link */
  unsigned running;
  unsigned slots;
} PoolGate;

#define POOL_GATE_INIT(n) {G_QUEUE_INIT, 0, (n)}

typedef struct {
  uv_work_t work; /* its data is the owner's */
  PoolGate *gate;
  uv_loop_t *loop;
  uv_work_cb work_cb;
  uv_after_work_cb after_cb;
  GList link; /* in the gate's queue while waiting */
  bool waiting;
} PoolGateJob;

/* Runs work_cb on the pool, then after_cb on the loop, as uv_queue_work() does, once fewer than
 * the gate's slots of its jobs run. j lives until after_cb, or until it is withdrawn. */
void pool_gate_queue(PoolGate *g, uv_loop_t *loop, PoolGateJob *j, uv_work_cb work_cb,
                     uv_after_work_cb after_cb);

/* Takes j out of its gate's queue when it has not started: true then, and neither callback will
 * run (j is the caller's to free). False when it runs or has run: after_cb will come. */
bool pool_gate_withdraw(PoolGateJob *j);
