#include "daemon/request/scheduler.h"

#include <stdatomic.h>

#include <glib.h>

/* The scheduler of one loop. A process normally has one loop; tests and fuzzers may run
 * several one after another, or in threads, so each loop gets its own, found in a small
 * registry, and freed when its last task leaves. */
typedef struct {
  uv_loop_t *loop;
  GPtrArray *tasks; /* SchedulerTask*, joined, in order of arrival */
  size_t running[SCHEDULER_N_CLASSES];
  size_t lanes_soft; /* lanes shared by everyone: the CPUs */
  uint64_t next_seq;
  uint64_t clock; /* counts the units started, for SchedulerTask.served */
} Scheduler;

static GMutex registry_lock;
static atomic_uint_fast64_t units_started; /* over every loop, for scheduler_units_started */
/* Until when (g_get_monotonic_time) requests have company: set when a task joins while another
 * has lanes running, over every loop (a loop's scheduler goes when its last task leaves, the
 * company it had must not). */
static atomic_int_fast64_t company_until;
static GPtrArray *registry; /* Scheduler* */

static Scheduler *scheduler_get(uv_loop_t *loop, bool create) {
  Scheduler *s = NULL;

  g_mutex_lock(&registry_lock);
  for (guint i = 0; registry != NULL && i < registry->len && s == NULL; i++)
    if (((Scheduler *)g_ptr_array_index(registry, i))->loop == loop)
      s = g_ptr_array_index(registry, i);
  if (s == NULL && create) {
    s = g_new0(Scheduler, 1);
    s->loop = loop;
    s->tasks = g_ptr_array_new();
    s->lanes_soft = MAX(uv_available_parallelism(), 1);
    if (registry == NULL)
      registry = g_ptr_array_new();
    g_ptr_array_add(registry, s);
  }
  g_mutex_unlock(&registry_lock);
  return s;
}

static void scheduler_free(Scheduler *s) {
  g_mutex_lock(&registry_lock);
  g_ptr_array_remove_fast(registry, s);
  if (registry->len == 0)
    g_clear_pointer(&registry, g_ptr_array_unref);
  g_mutex_unlock(&registry_lock);
  g_ptr_array_free(s->tasks, TRUE);
  g_free(s);
}

/* True when a is owed a slot of cls before b: fewer units running, then served less recently
 * (never first: a newcomer does not wait while others take turns), then older. */
static bool owed_before(const SchedulerTask *a, const SchedulerTask *b, SchedulerClass cls) {
  if (a->running[cls] != b->running[cls])
    return a->running[cls] < b->running[cls];
  if (a->served[cls] != b->served[cls])
    return a->served[cls] < b->served[cls];
  return a->seq < b->seq;
}

/* The task the next free slot of cls goes to, or NULL when none is free or nobody wants one. */
static SchedulerTask *pick(Scheduler *s, SchedulerClass cls) {
  bool shared_free, express_free;
  SchedulerTask *best = NULL;

  if (cls == SCHEDULER_LANE) {
    /* With company, one CPU is left to the others' express lanes: their every hop would
     * otherwise wait for a core the shared lanes hold. */
    size_t shared = s->lanes_soft > 1 && scheduler_company() ? s->lanes_soft - 1 : s->lanes_soft;

    shared_free = s->running[cls] < shared;
    express_free = s->running[cls] < s->lanes_soft + SCHEDULER_LANES_EXPRESS;
  } else {
    shared_free = express_free = s->running[cls] < SCHEDULER_BLOCKING_MAX;
  }
  if (!express_free)
    return NULL;
  for (guint i = 0; i < s->tasks->len; i++) {
    SchedulerTask *t = g_ptr_array_index(s->tasks, i);

    /* Past the shared slots, only a task with nothing running may start: it would otherwise
     * wait a whole slice behind the others. */
    if (!shared_free && t->running[cls] > 0)
      continue;
    if ((best == NULL || owed_before(t, best, cls)) && t->ops->wants(t, cls))
      best = t;
  }
  return best;
}

static void dispatch(Scheduler *s) {
  for (int cls = 0; cls < SCHEDULER_N_CLASSES; cls++) {
    SchedulerTask *t;

    while ((t = pick(s, (SchedulerClass)cls)) != NULL) {
      t->running[cls]++;
      s->running[cls]++;
      t->served[cls] = ++s->clock;
      atomic_fetch_add_explicit(&units_started, 1, memory_order_relaxed);
      t->ops->start(t, (SchedulerClass)cls);
    }
  }
}

void scheduler_join(uv_loop_t *loop, SchedulerTask *t, const SchedulerOps *ops) {
  Scheduler *s = scheduler_get(loop, true);

  g_assert(t->sched == NULL);
  t->ops = ops;
  t->sched = s;
  t->seq = s->next_seq++;
  for (guint i = 0; i < s->tasks->len; i++)
    if (((SchedulerTask *)g_ptr_array_index(s->tasks, i))->running[SCHEDULER_LANE] > 0)
      atomic_store(&company_until, g_get_monotonic_time() + SCHEDULER_COMPANY_US);
  g_ptr_array_add(s->tasks, t);
  dispatch(s);
}

void scheduler_done(SchedulerTask *t, SchedulerClass cls) {
  Scheduler *s = t->sched;

  g_assert(s != NULL && t->running[cls] > 0 && s->running[cls] > 0);
  t->running[cls]--;
  s->running[cls]--;
  dispatch(s);
}

void scheduler_kick(SchedulerTask *t) {
  if (t->sched != NULL)
    dispatch(t->sched);
}

void scheduler_leave(SchedulerTask *t) {
  Scheduler *s = t->sched;

  if (s == NULL)
    return;
  g_assert(t->running[SCHEDULER_LANE] == 0 && t->running[SCHEDULER_BLOCKING] == 0);
  /* g_ptr_array_remove keeps the order of arrival of the others. */
  g_ptr_array_remove(s->tasks, t);
  t->sched = NULL;
  if (s->tasks->len == 0)
    scheduler_free(s);
}

size_t scheduler_running(uv_loop_t *loop, SchedulerClass cls) {
  Scheduler *s = scheduler_get(loop, false);

  return s != NULL ? s->running[cls] : 0;
}

bool scheduler_company(void) {
  return g_get_monotonic_time() < atomic_load(&company_until);
}

uint64_t scheduler_units_started(void) {
  return atomic_load_explicit(&units_started, memory_order_relaxed);
}
