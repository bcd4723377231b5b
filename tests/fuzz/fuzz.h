/* What the fuzz targets share: an assertion that holds in every build type, the piece sizes
 * a stream is cut into, and bytes behind a file descriptor. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_assert(cond)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);                 \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* The next piece size, 1 to max but at most `left`, from a xorshift state seeded by the input:
 * the same input is always cut the same way. *state must not start at 0. */
static inline size_t fuzz_piece(uint32_t *state, size_t max, size_t left) {
  size_t n;

  uint32_t x = *state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  n = 1 + x % max;
  return n < left ? n : left;
}

/* A descriptor (an anonymous memory file called `name`) reading the given bytes from the start,
 * or -1. The caller closes it. */
static inline int fuzz_bytes_fd(const char *name, const uint8_t *data, size_t size) {
  int fd = memfd_create(name, MFD_CLOEXEC);

  if (fd < 0)
    return -1;
  if (size > 0 && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return -1;
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}
