/* Short time slices for the threads a small request's answer waits on.
 *
 * On a busy machine a small request's answer waits, at each of its hops (the client to the
 * loop, the loop to a pool thread and back, the loop to the client), for a core that a large
 * request's lanes hold. Linux's EEVDF scheduler (6.6 and later) orders runnable threads by a
 * virtual deadline their slice sets, and since 6.12 lets a thread ask for a shorter slice than
 * the default (sched_setattr with sched_runtime): a waking thread with a short slice has the
 * earlier deadline and takes the core at once, instead of waiting for the running one's slice
 * to end. So the loop thread runs with a short slice, and so does a pool thread while it works
 * for a small request; a large request's lanes keep the default. Older kernels ignore the
 * request; it needs no privilege either way. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The short slice, in microseconds: READERD_SLICE_US in the environment (0: never ask),
 * else THREAD_SLICE_US. Read once. */
#define THREAD_SLICE_US 100
uint32_t thread_slice_us(void);

/* Gives the calling thread the short slice (short) or the kernel's default; a call that
 * changes nothing costs no system call. Returns 0, or a negative errno when the kernel
 * refused (the thread keeps the slice it had). */
int thread_slice_set(bool short_slice);
