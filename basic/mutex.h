/* Locking that cannot fail silently: a default mutex fails only when it is used wrongly, a bug,
 * which libuv's uv_mutex_lock() meets with abort() too. pthread rather than GMutex, so that
 * ThreadSanitizer sees it (glib's futex locks are invisible to it). */
#pragma once

#include <pthread.h>
#include <stdlib.h>

static inline void mutex_lock(pthread_mutex_t *m) {
  if (pthread_mutex_lock(m) != 0)
    abort();
}

static inline void mutex_unlock(pthread_mutex_t *m) {
  if (pthread_mutex_unlock(m) != 0)
    abort();
}
