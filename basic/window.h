/* Windows of lines, cells, rows, slides: `offset` and `limit` as a request gives them, any
 * value up to INT64_MAX, turned into the last item shown without overflowing. Pure. */
#pragma once

#include <stdint.h>

/* The last item of the window that starts at offset (>= 1) and holds limit items (>= 1):
 * offset + limit - 1, or INT64_MAX when that does not fit. */
static inline int64_t window_last(int64_t offset, int64_t limit) {
  int64_t last;

  if (__builtin_add_overflow(offset, limit - 1, &last))
    return INT64_MAX;
  return last;
}

/* a + b, or INT64_MAX when that does not fit (both >= 0): a position to read on from. */
static inline int64_t window_add(int64_t a, int64_t b) {
  int64_t sum;

  if (__builtin_add_overflow(a, b, &sum))
    return INT64_MAX;
  return sum;
}
