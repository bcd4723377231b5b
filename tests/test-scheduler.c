/* The pool scheduler: slots per class, the express lanes of a request with none, who is owed
 * the next slot, and leaving. Tasks here are plain counters of work to start; the units they
 * "start" end when the test says so, as lanes and jobs do when their pool work comes back. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>
#include <uv.h>

#include "basic/macro.h"
#include "daemon/request/pool-gate.h"
#include "daemon/request/scheduler.h"
#include "tests/lib/check-run.h"

typedef struct {
  SchedulerTask task;
  size_t want[SCHEDULER_N_CLASSES];    /* units it could still start */
  size_t started[SCHEDULER_N_CLASSES]; /* units started so far */
  GPtrArray *log;                      /* names of the tasks in the order they were started */
  const char *name;
} Fake;

static bool fake_wants(SchedulerTask *t, SchedulerClass cls) {
  Fake *f = container_of(t, Fake, task);

  return f->want[cls] > 0;
}

static void fake_start(SchedulerTask *t, SchedulerClass cls) {
  Fake *f = container_of(t, Fake, task);

  ck_assert_uint_gt(f->want[cls], 0);
  f->want[cls]--;
  f->started[cls]++;
  if (f->log != NULL)
    g_ptr_array_add(f->log, (void *)f->name);
}

static const SchedulerOps fake_ops = {.wants = fake_wants, .start = fake_start};

static size_t cpus(void) {
  return MAX(uv_available_parallelism(), 1);
}

/* A fake loop: the scheduler only uses its address as a key. */
static uv_loop_t loop;

START_TEST(scheduler_lanes_capped_at_cpus) {
  Fake big = {.want = {100, 0}, .name = "big"};

  scheduler_join(&loop, &big.task, &fake_ops);
  /* One request alone gets the shared lanes, not the express ones. */
  ck_assert_uint_eq(big.started[SCHEDULER_LANE], cpus());
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), cpus());
  /* A lane that ends is started again at once. */
  scheduler_done(&big.task, SCHEDULER_LANE);
  ck_assert_uint_eq(big.started[SCHEDULER_LANE], cpus() + 1);
  while (big.task.running[SCHEDULER_LANE] > 0) {
    big.want[SCHEDULER_LANE] = 0;
    scheduler_done(&big.task, SCHEDULER_LANE);
  }
  scheduler_leave(&big.task);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), 0);
}
END_TEST

START_TEST(scheduler_new_request_starts_at_once) {
  Fake big = {.want = {1000, 0}}, small = {.want = {1, 0}};

  scheduler_join(&loop, &big.task, &fake_ops);
  ck_assert_uint_eq(big.started[SCHEDULER_LANE], cpus());
  /* Every shared lane is taken: the newcomer gets an express lane without waiting. */
  scheduler_join(&loop, &small.task, &fake_ops);
  ck_assert_uint_eq(small.started[SCHEDULER_LANE], 1);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), cpus() + 1);
  /* When one of the big one's lanes ends, it is not started again: with the express lane, the
   * shared lanes are all taken. */
  scheduler_done(&big.task, SCHEDULER_LANE);
  ck_assert_uint_eq(big.task.running[SCHEDULER_LANE], cpus() - 1);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), cpus());
  scheduler_done(&small.task, SCHEDULER_LANE);
  scheduler_leave(&small.task);
  big.want[SCHEDULER_LANE] = 0;
  while (big.task.running[SCHEDULER_LANE] > 0)
    scheduler_done(&big.task, SCHEDULER_LANE);
  scheduler_leave(&big.task);
}
END_TEST

START_TEST(scheduler_express_lanes_bounded) {
  enum { N = 40 };
  Fake big = {.want = {1000, 0}}, small[N];

  scheduler_join(&loop, &big.task, &fake_ops);
  for (int i = 0; i < N; i++) {
    small[i] = (Fake){.want = {1, 0}};
    scheduler_join(&loop, &small[i].task, &fake_ops);
  }
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), cpus() + SCHEDULER_LANES_EXPRESS);
  /* The waiting ones are served in order of arrival as lanes end, before the big one gets more. */
  for (int i = 0; i < N; i++) {
    ck_assert_msg(small[i].started[SCHEDULER_LANE] == 1 || i >= SCHEDULER_LANES_EXPRESS,
                  "request %d of %d did not get an express lane", i, N);
    if (small[i].started[SCHEDULER_LANE] == 0) {
      /* Someone's lane ends: the oldest waiting request gets it. */
      Fake *done = &small[i - SCHEDULER_LANES_EXPRESS];
      size_t big_before = big.started[SCHEDULER_LANE];

      scheduler_done(&done->task, SCHEDULER_LANE);
      ck_assert_uint_eq(small[i].started[SCHEDULER_LANE], 1);
      ck_assert_uint_eq(big.started[SCHEDULER_LANE], big_before);
    }
  }
  for (int i = 0; i < N; i++) {
    if (small[i].task.running[SCHEDULER_LANE] > 0)
      scheduler_done(&small[i].task, SCHEDULER_LANE);
    scheduler_leave(&small[i].task);
  }
  big.want[SCHEDULER_LANE] = 0;
  while (big.task.running[SCHEDULER_LANE] > 0)
    scheduler_done(&big.task, SCHEDULER_LANE);
  scheduler_leave(&big.task);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), 0);
}
END_TEST

/* Large requests taking turns at the lanes never keep a newcomer waiting: it has never been
 * served, so the next lane that ends is its, ahead of older requests that wait too. */
START_TEST(scheduler_newcomer_not_starved) {
  enum { N = 20 };
  Fake big[N], small = {.want = {1, 0}};
  size_t turn = 0;

  for (int i = 0; i < N; i++) {
    big[i] = (Fake){.want = {1000000, 0}};
    scheduler_join(&loop, &big[i].task, &fake_ops);
  }
  /* Lanes end one after another, as slices do: every big request gets turns. */
  for (int k = 0; k < 10 * N; k++) {
    while (big[turn % N].task.running[SCHEDULER_LANE] == 0)
      turn++;
    scheduler_done(&big[turn % N].task, SCHEDULER_LANE);
    turn++;
  }
  for (int i = 0; i < N; i++)
    ck_assert_msg(big[i].started[SCHEDULER_LANE] > 1, "request %d was starved", i);
  scheduler_join(&loop, &small.task, &fake_ops);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), cpus() + SCHEDULER_LANES_EXPRESS);
  ck_assert_uint_eq(small.started[SCHEDULER_LANE], 0);
  while (big[turn % N].task.running[SCHEDULER_LANE] == 0)
    turn++;
  scheduler_done(&big[turn % N].task, SCHEDULER_LANE);
  ck_assert_uint_eq(small.started[SCHEDULER_LANE], 1);
  scheduler_done(&small.task, SCHEDULER_LANE);
  scheduler_leave(&small.task);
  for (int i = 0; i < N; i++) {
    big[i].want[SCHEDULER_LANE] = 0;
    while (big[i].task.running[SCHEDULER_LANE] > 0)
      scheduler_done(&big[i].task, SCHEDULER_LANE);
  }
  for (int i = 0; i < N; i++)
    scheduler_leave(&big[i].task);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_LANE), 0);
}
END_TEST

START_TEST(scheduler_blocking_has_own_slots) {
  Fake pdfs = {.want = {0, 100}}, text = {.want = {5, 0}};

  scheduler_join(&loop, &pdfs.task, &fake_ops);
  ck_assert_uint_eq(pdfs.started[SCHEDULER_BLOCKING], SCHEDULER_BLOCKING_MAX);
  /* Blocking jobs hold no lane: text still gets every shared lane. */
  scheduler_join(&loop, &text.task, &fake_ops);
  ck_assert_uint_eq(text.started[SCHEDULER_LANE], MIN(cpus(), 5));
  ck_assert_uint_eq(SCHEDULER_BLOCKING_MAX + cpus() + SCHEDULER_LANES_EXPRESS +
                        POOL_GATE_PARSE_SLOTS + POOL_GATE_WORKSPACE_SLOTS,
                    pool_threads());
  text.want[SCHEDULER_LANE] = 0;
  while (text.task.running[SCHEDULER_LANE] > 0)
    scheduler_done(&text.task, SCHEDULER_LANE);
  scheduler_leave(&text.task);
  pdfs.want[SCHEDULER_BLOCKING] = 0;
  while (pdfs.task.running[SCHEDULER_BLOCKING] > 0)
    scheduler_done(&pdfs.task, SCHEDULER_BLOCKING);
  scheduler_leave(&pdfs.task);
}
END_TEST

START_TEST(scheduler_blocking_shared_fairly) {
  Fake a = {.want = {0, 100}, .name = "a"}, b = {.want = {0, 100}, .name = "b"};
  GPtrArray *log = g_ptr_array_new();

  a.log = b.log = log;
  scheduler_join(&loop, &a.task, &fake_ops);
  scheduler_join(&loop, &b.task, &fake_ops);
  /* b came while a held every slot: each slot a gives back goes to b until they are even. */
  for (int i = 0; i < SCHEDULER_BLOCKING_MAX; i++)
    scheduler_done(&a.task, SCHEDULER_BLOCKING);
  ck_assert_uint_eq(a.task.running[SCHEDULER_BLOCKING], SCHEDULER_BLOCKING_MAX / 2);
  ck_assert_uint_eq(b.task.running[SCHEDULER_BLOCKING], SCHEDULER_BLOCKING_MAX / 2);
  a.want[SCHEDULER_BLOCKING] = b.want[SCHEDULER_BLOCKING] = 0;
  while (a.task.running[SCHEDULER_BLOCKING] > 0)
    scheduler_done(&a.task, SCHEDULER_BLOCKING);
  while (b.task.running[SCHEDULER_BLOCKING] > 0)
    scheduler_done(&b.task, SCHEDULER_BLOCKING);
  scheduler_leave(&a.task);
  scheduler_leave(&b.task);
  g_ptr_array_free(log, TRUE);
}
END_TEST

START_TEST(scheduler_kick_starts_new_work) {
  Fake t = {.want = {0, 0}};

  scheduler_join(&loop, &t.task, &fake_ops);
  ck_assert_uint_eq(t.started[SCHEDULER_BLOCKING], 0);
  t.want[SCHEDULER_BLOCKING] = 2;
  scheduler_kick(&t.task);
  ck_assert_uint_eq(t.started[SCHEDULER_BLOCKING], 2);
  scheduler_done(&t.task, SCHEDULER_BLOCKING);
  scheduler_done(&t.task, SCHEDULER_BLOCKING);
  scheduler_leave(&t.task);
  /* Leaving twice, or a task that never joined, is harmless. */
  scheduler_leave(&t.task);
  ck_assert_uint_eq(scheduler_running(&loop, SCHEDULER_BLOCKING), 0);
}
END_TEST

START_TEST(scheduler_company_leaves_a_cpu) {
  Fake big = {.want = {1000, 0}}, small = {.want = {1, 0}};

  if (cpus() < 2) {
    printf("scheduler_company_leaves_a_cpu: one CPU, nothing to leave: only the lanes are checked\n");
  }
  scheduler_join(&loop, &big.task, &fake_ops);
  ck_assert_uint_eq(big.task.running[SCHEDULER_LANE], cpus());
  /* A newcomer while the big one has lanes: its express lane, and from then on the big one's
   * lanes that end are started again only up to one fewer than the CPUs. */
  scheduler_join(&loop, &small.task, &fake_ops);
  scheduler_done(&small.task, SCHEDULER_LANE);
  scheduler_leave(&small.task);
  for (size_t i = 0; i < 2 * cpus(); i++)
    scheduler_done(&big.task, SCHEDULER_LANE);
  ck_assert_uint_eq(big.task.running[SCHEDULER_LANE], cpus() > 1 ? cpus() - 1 : 1);
  /* Alone past SCHEDULER_COMPANY_US, it gets every CPU again at its next lane's end. */
  g_usleep(SCHEDULER_COMPANY_US + 20 * 1000);
  scheduler_done(&big.task, SCHEDULER_LANE);
  ck_assert_uint_eq(big.task.running[SCHEDULER_LANE], cpus());
  big.want[SCHEDULER_LANE] = 0;
  while (big.task.running[SCHEDULER_LANE] > 0)
    scheduler_done(&big.task, SCHEDULER_LANE);
  scheduler_leave(&big.task);
}
END_TEST

static Suite *scheduler_suite(void) {
  Suite *s = suite_create("scheduler");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, scheduler_lanes_capped_at_cpus);
  tcase_add_test(tc, scheduler_new_request_starts_at_once);
  tcase_add_test(tc, scheduler_express_lanes_bounded);
  tcase_add_test(tc, scheduler_newcomer_not_starved);
  tcase_add_test(tc, scheduler_blocking_has_own_slots);
  tcase_add_test(tc, scheduler_blocking_shared_fairly);
  tcase_add_test(tc, scheduler_kick_starts_new_work);
  tcase_add_test(tc, scheduler_company_leaves_a_cpu);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(scheduler_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
