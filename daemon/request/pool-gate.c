#include "daemon/request/pool-gate.h"

#include "basic/macro.h"
#include "daemon/request/scheduler.h"

unsigned pool_threads(void) {
  return MAX(uv_available_parallelism(), 1) + SCHEDULER_LANES_EXPRESS + SCHEDULER_BLOCKING_MAX +
         POOL_GATE_PARSE_SLOTS + POOL_GATE_WORKSPACE_SLOTS;
}

static void gated_work_cb(uv_work_t *w) {
  PoolGateJob *j = container_of(w, PoolGateJob, work);

  j->work_cb(w);
}

static void pump(PoolGate *g);

static void gated_after_cb(uv_work_t *w, int status) {
  PoolGateJob *j = container_of(w, PoolGateJob, work);
  PoolGate *g = j->gate;
  uv_after_work_cb after_cb = j->after_cb;

  g->running--;
  pump(g);
  after_cb(w, status); /* may free j */
}

static void pump(PoolGate *g) {
  while (g->running < g->slots && g->waiting.length > 0) {
    PoolGateJob *j = container_of(g_queue_pop_head_link(&g->waiting), PoolGateJob, link);

    j->waiting = false;
    g->running++;
    /* Fails only without a work callback. */
    (void)uv_queue_work(j->loop, &j->work, gated_work_cb, gated_after_cb);
  }
}

void pool_gate_queue(PoolGate *g, uv_loop_t *loop, PoolGateJob *j, uv_work_cb work_cb,
                     uv_after_work_cb after_cb) {
  j->gate = g;
  j->loop = loop;
  j->work_cb = work_cb;
  j->after_cb = after_cb;
  j->link = (GList){.data = j};
  j->waiting = true;
  g_queue_push_tail_link(&g->waiting, &j->link);
  pump(g);
}

bool pool_gate_withdraw(PoolGateJob *j) {
  if (!j->waiting)
    return false;
  g_queue_unlink(&j->gate->waiting, &j->link);
  j->waiting = false;
  return true;
}
