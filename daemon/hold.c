#include "daemon/hold.h"

/* The daemon's accounts. One loop serves every connection, so plain counters do. */
static size_t total;
static size_t joined;
static GQueue waiting = G_QUEUE_INIT;
/* The total and the count of accounts when the waiting ones were last looked at: only a lower
 * total, or fewer accounts (a larger fair part), can let one of them go on. */
static size_t seen_total;
static size_t seen_joined;
static bool waking;

size_t hold_total(void) {
  return total;
}

size_t hold_share(void) {
  return HOLD_MAX / MAX(joined, (size_t)1);
}

void hold_join(HoldAccount *a, HoldWakeCb wake_cb) {
  *a = (HoldAccount){.joined = true, .wake_cb = wake_cb};
  a->link.data = a;
  joined++;
}

static void stop_waiting(HoldAccount *a) {
  if (a->waiting) {
    g_queue_unlink(&waiting, &a->link);
    a->waiting = false;
  }
}

void hold_leave(HoldAccount *a) {
  if (!a->joined)
    return;
  stop_waiting(a);
  total -= a->charged;
  a->charged = 0;
  a->joined = false;
  joined--;
}

void hold_set(HoldAccount *a, size_t bytes) {
  if (!a->joined)
    return;
  total = total - a->charged + bytes;
  a->charged = bytes;
}

/* The account waits for room, once; what it saw is remembered so that a wake comes only when
 * things got better. */
static void start_waiting(HoldAccount *a) {
  if (g_queue_is_empty(&waiting) || total > seen_total)
    seen_total = total;
  if (g_queue_is_empty(&waiting) || joined > seen_joined)
    seen_joined = joined;
  if (!a->waiting) {
    g_queue_push_tail_link(&waiting, &a->link);
    a->waiting = true;
  }
}

bool hold_allows(HoldAccount *a, size_t bytes, bool reading) {
  if (total + bytes <= HOLD_MAX || a->charged + bytes <= hold_share() ||
      (reading && total + bytes <= 2 * HOLD_MAX))
    return true;
  start_waiting(a);
  return false;
}

bool hold_over(HoldAccount *a) {
  if (total < HOLD_MAX || a->charged < hold_share())
    return false;
  start_waiting(a);
  return true;
}

void hold_wake(void) {
  size_t n = waiting.length;

  if (waking || n == 0 || (total >= seen_total && joined >= seen_joined))
    return;
  waking = true;
  seen_total = total;
  seen_joined = joined;
  /* Each account waiting now is looked at once; one that still may not go on waits again, at
   * the end of the line. */
  while (n-- > 0 && !g_queue_is_empty(&waiting)) {
    HoldAccount *a = g_queue_peek_head(&waiting);

    stop_waiting(a);
    a->wake_cb(a);
  }
  waking = false;
}
