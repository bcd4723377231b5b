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

typedef enum {
  THREAD_SLICE_DEFAULT = 0, /* the kernel's */
  THREAD_SLICE_LATENCY,     /* the loop thread, a small request's pool work */
  THREAD_SLICE_BULK,        /* a large request's lanes */
  THREAD_SLICE_N,
} ThreadSlice;

/* The slices, in microseconds (0: the kernel's default): READERD_SLICE_US and
 * READERD_BULK_SLICE_US in the environment, else these. Read once. */
#define THREAD_SLICE_LATENCY_US 100
#define THREAD_SLICE_BULK_US 0
uint32_t thread_slice_us(ThreadSlice kind);

/* Gives the calling thread the slice of its kind; a call that changes nothing costs no system
 * call. Returns 0, or a negative errno when the kernel refused (the thread keeps the slice it
 * had). */
int thread_slice_set(ThreadSlice kind);
