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

/* True when fd's size says nothing of what it holds: a size of 0 (procfs), or a file system
 * that makes its files' text when they are read (sysfs, debugfs, tracefs, securityfs, cgroup,
 * pstore say 4096 or 0). Such a file's tail is found reading forwards (TailRing), never by
 * its size. */
bool tail_size_unknown(int fd);

/* The last lines of a stream read forwards, for files whose size says nothing of what they hold
 * (procfs and sysfs files say 0 or 4096 and make their text when read): the bytes of the last n
 * lines are kept, those before them dropped as newlines come, so that memory holds the tail and
 * one line. Pure: no I/O. Embed it; the fields are private. */
typedef struct {
  TailNewline nl;
  int64_t want;    /* lines kept at most (>= 1) */
  uint8_t *buf;    /* bytes from stream offset `base` on */
  size_t len;      /* bytes in buf */
  size_t cap;
  int64_t base;    /* stream offset of buf[0] */
  int64_t fed;     /* bytes fed in all */
  int64_t *starts; /* stream offsets where lines start: starts[s0] is the oldest kept */
  size_t s0;
  size_t n_starts;
  size_t cap_starts;
  int64_t dropped; /* lines dropped before the kept ones */
} TailRing;

/* Prepares r to keep the last n lines (n >= 1) of a text whose newline is nl. */
void tail_ring_init(TailRing *r, const TailNewline *nl, int64_t n);

/* Feeds the next len bytes of the text (its byte-order mark left out). */
void tail_ring_feed(TailRing *r, const uint8_t *p, size_t len);

/* The bytes of the kept lines, borrowed until the next feed or clear, and the 1-based number of
 * the first of them in the whole text. */
const uint8_t *tail_ring_lines(const TailRing *r, size_t *ret_len, int64_t *ret_first_line);

/* Frees what r holds; safe to call twice. */
void tail_ring_clear(TailRing *r);
