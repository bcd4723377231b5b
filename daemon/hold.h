/* What the daemon holds for its clients, counted for the whole daemon: each connection's
 * unsent answers, the reservations of its running reads, its waiting reads and its partial
 * line. A connection may take more while the daemon's total stays within HOLD_MAX, or while
 * its own stays within its fair part (HOLD_MAX over the open connections), or, for a client
 * that takes its answers, while the total stays within twice HOLD_MAX; past these it waits, and is woken when the total falls or a connection goes. docs/protocol.md, "Memory
 * for the whole daemon", gives the bound. Loop thread only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#define HOLD_MAX ((size_t)128 * 1024 * 1024)

typedef struct HoldAccount HoldAccount;

/* Called when the account was waiting and the daemon may have room again. */
typedef void (*HoldWakeCb)(HoldAccount *a);

/* One connection's account; embed it in the connection. */
struct HoldAccount {
  size_t charged; /* counted in the daemon's total */
  bool joined;
  bool waiting; /* in the waiting line, by `link` */
  GList link;
  HoldWakeCb wake_cb;
};

/* Counts a new account (charged 0) among the open ones. */
void hold_join(HoldAccount *a, HoldWakeCb wake_cb);

/* The account is gone: its charge leaves the total, it no longer waits. Safe to call twice. */
void hold_leave(HoldAccount *a);

/* Sets what the account holds now (ignored once it left). */
void hold_set(HoldAccount *a, size_t bytes);

/* True when the account may take `bytes` more: the total stays within HOLD_MAX, or the
 * account within its fair part, or, for an account `reading` (its client took every answer it
 * was sent and nothing of it runs), the total within twice HOLD_MAX. When not, the account
 * waits to be woken. */
bool hold_allows(HoldAccount *a, size_t bytes, bool reading);

/* True when the total has reached HOLD_MAX and the account holds its fair part or more: it
 * should take nothing more (its socket is not read). The account then waits to be woken. */
bool hold_over(HoldAccount *a);

/* Wakes the waiting accounts, in the order they began to wait, when the total fell or an
 * account left since they were last looked at. A wake asked for during another is folded
 * into it. */
void hold_wake(void);

/* The daemon's total, and the fair part of one account now. */
size_t hold_total(void);
size_t hold_share(void);
