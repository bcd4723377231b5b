/* The gate in front of the pool's jobs that no scheduler counts (long lines, workspaces): at
 * most its slots run at once, the others start in the order they came as slots free, and one
 * still waiting can be withdrawn without any callback. On a real loop and libuv's real pool;
 * each job's work blocks until the test lets it go. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>
#include <uv.h>

#include "daemon/request/pool-gate.h"
#include "tests/lib/check-run.h"

#define JOBS 6

typedef struct {
  PoolGateJob job;
  int index;
  bool after;
} Job;

/* libuv's locks (pthread): ThreadSanitizer sees them, not GLib's futexes. */
static uv_mutex_t lock;
static uv_cond_t changed;
static int running_now, running_max, released;
static GArray *started; /* int: job indexes in the order their work began */
static PoolGate *gate_seen; /* the gate under test, for after_cb */
static guint finished;      /* after_cb calls so far */

static void wait_started(guint n);

static void work_cb(uv_work_t *w) {
  Job *j = w->data;

  uv_mutex_lock(&lock);
  g_array_append_val(started, j->index);
  running_now++;
  running_max = MAX(running_max, running_now);
  uv_cond_broadcast(&changed);
  while (released <= 0)
    uv_cond_wait(&changed, &lock);
  released--;
  running_now--;
  uv_mutex_unlock(&lock);
}

/* The gate has started what it lets through (before this callback): once that job's work has
 * begun, one more job may end. So the works begin in the order the gate hands them to the
 * pool, whichever pool thread takes them: the order under test is the gate's. */
static void after_cb(uv_work_t *w, int status) {
  Job *j = w->data;

  ck_assert_int_eq(status, 0);
  j->after = true;
  finished++;
  wait_started(finished + gate_seen->running);
  uv_mutex_lock(&lock);
  released++;
  uv_cond_broadcast(&changed);
  uv_mutex_unlock(&lock);
}

/* Waits (up to 30 s) until `n` works have begun. */
static void wait_started(guint n) {
  uint64_t end = uv_hrtime() + (uint64_t)30e9;
  guint have;

  uv_mutex_lock(&lock);
  while (started->len < n && uv_hrtime() < end)
    (void)uv_cond_timedwait(&changed, &lock, (uint64_t)1e8);
  have = started->len;
  uv_mutex_unlock(&lock);
  ck_assert_uint_ge(have, n);
}

START_TEST(pool_gate_slots_order_withdraw) {
  PoolGate gate = POOL_GATE_INIT(2);
  Job jobs[JOBS] = {0};
  uv_loop_t loop;
  guint have;

  ck_assert_int_eq(uv_mutex_init(&lock), 0);
  ck_assert_int_eq(uv_cond_init(&changed), 0);
  started = g_array_new(FALSE, FALSE, sizeof(int));
  gate_seen = &gate;
  finished = 0;
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  for (int i = 0; i < JOBS; i++) {
    jobs[i].index = i;
    jobs[i].job.work.data = &jobs[i];
    pool_gate_queue(&gate, &loop, &jobs[i].job, work_cb, after_cb);
  }
  wait_started(2);
  g_usleep(50 * 1000); /* a third would have begun by now, were it let through */
  uv_mutex_lock(&lock);
  have = started->len;
  uv_mutex_unlock(&lock);
  ck_assert_uint_eq(have, 2);
  ck_assert_uint_eq(gate.running, 2);
  ck_assert_uint_eq(gate.waiting.length, JOBS - 2);
  /* Running: not withdrawn. Waiting: withdrawn, and gone from the queue. */
  ck_assert(!pool_gate_withdraw(&jobs[0].job));
  ck_assert(pool_gate_withdraw(&jobs[3].job));
  ck_assert(!pool_gate_withdraw(&jobs[3].job));
  ck_assert_uint_eq(gate.waiting.length, JOBS - 3);

  /* One job may end; each after_cb lets the next one end (above). */
  uv_mutex_lock(&lock);
  released = 1;
  uv_cond_broadcast(&changed);
  uv_mutex_unlock(&lock);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(&loop), 0);

  ck_assert_int_le(running_max, 2);
  ck_assert_uint_eq(started->len, JOBS - 1);
  /* The first two in either order, then the rest as they came, job 3 left out. */
  ck_assert_int_eq(MIN(g_array_index(started, int, 0), g_array_index(started, int, 1)), 0);
  ck_assert_int_eq(MAX(g_array_index(started, int, 0), g_array_index(started, int, 1)), 1);
  ck_assert_int_eq(g_array_index(started, int, 2), 2);
  ck_assert_int_eq(g_array_index(started, int, 3), 4);
  ck_assert_int_eq(g_array_index(started, int, 4), 5);
  for (int i = 0; i < JOBS; i++)
    ck_assert_msg(jobs[i].after == (i != 3), "job %d after_cb: %d", i, jobs[i].after);
  ck_assert_uint_eq(gate.running, 0);
  ck_assert_uint_eq(gate.waiting.length, 0);
  g_array_free(started, TRUE);
  uv_cond_destroy(&changed);
  uv_mutex_destroy(&lock);
}
END_TEST

static Suite *pool_gate_suite(void) {
  Suite *s = suite_create("pool-gate");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, pool_gate_slots_order_withdraw);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* More threads than the gate's slots: only the gate can be what holds the third job. */
  setenv("UV_THREADPOOL_SIZE", "8", 1);
  return check_run(pool_gate_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
