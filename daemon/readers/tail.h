/* Where the last lines of a text file start, found from its end.
 *
 * The tail is found by reading the file backwards in blocks from its end with pread, so that
 * the last lines of a huge log cost what their blocks cost; the newlines before the tail are
 * then counted through a memory mapping (no copy into the process, several GB/s from the page
 * cache), so that the tail's line numbers are the true ones. Runs on a worker thread. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the file's encoding writes a newline: one unit, equal to 0x0A, at a multiple of `unit`
 * bytes from the start of the text. Unit 1 is UTF-8 and every charset where the byte 0x0A only
 * ever means a newline; 2 is UTF-16, 4 UTF-32, in the given byte order. */
typedef struct {
  size_t unit;
  bool big_endian;
} TailNewline;

typedef struct {
  int64_t start;      /* file offset of the tail's first byte: the text's start or a unit
                         right after a newline */
  int64_t first_line; /* its 1-based line number */
} TailSpot;

/* Finds the start of the last n lines (n >= 1) of the text in bytes [begin, size) of fd
 * (begin: after any byte-order mark; size: the file's size when it was opened; bytes past it
 * are not read). A newline ending the text ends its last line, as the line engine counts.
 * With fewer than n lines, the tail is the whole text. Returns 0, -ECANCELED, -ENODATA when the
 * file shrank while it was read, or a read error. */
int tail_locate(int fd, int64_t begin, int64_t size, const TailNewline *nl, int64_t n,
                const atomic_bool *cancelled, TailSpot *ret);

/* Counts the newlines of bytes [begin, end) of fd into *ret, reading through a memory mapping
 * (pread when the file cannot be mapped). A file cut short while it is counted is survived:
 * -ENODATA. Returns 0, -ECANCELED, -ENODATA or a read error. */
int tail_count_newlines(int fd, int64_t begin, int64_t end, const TailNewline *nl,
                        const atomic_bool *cancelled, int64_t *ret);
