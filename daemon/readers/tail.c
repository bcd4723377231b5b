#include "daemon/readers/tail.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include <glib.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define BLOCK_SIZE ((size_t)64 * 1024)         /* bytes read at a time, backwards */
#define MAP_WINDOW ((int64_t)64 * 1024 * 1024) /* bytes mapped at a time to count newlines */
#define PREAD_COUNT_MAX ((int64_t)1024 * 1024) /* below this, counting reads instead of mapping */

static bool is_cancelled(const atomic_bool *cancelled) {
  return cancelled != NULL && atomic_load(cancelled);
}

/* Reads exactly n bytes at off. Returns 0, -ENODATA when the file ends first, or -errno. */
static int pread_full(int fd, uint8_t *buf, size_t n, int64_t off) {
  size_t got = 0;

  while (got < n) {
    ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + (int64_t)got));

    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -errno;
    if (r == 0)
      return -ENODATA;
    got += (size_t)r;
  }
  return 0;
}

/* True when the unit at p is a newline. */
static inline bool is_newline(const uint8_t *p, const TailNewline *nl) {
  switch (nl->unit) {
  case 1:
    return p[0] == '\n';
  case 2:
    return nl->big_endian ? p[0] == 0 && p[1] == '\n' : p[0] == '\n' && p[1] == 0;
  default:
    return nl->big_endian ? p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == '\n'
                          : p[0] == '\n' && p[1] == 0 && p[2] == 0 && p[3] == 0;
  }
}

/* "\n" bytes in n bytes, at memory speed. A byte counter per lane takes at most 255 matches,
 * then the lanes are summed. SSE2 is part of every x86-64; elsewhere eight bytes at a time: a
 * zero byte of w ^ "\n\n\n\n\n\n\n\n" is a newline, found exactly with no carry across bytes. */
static int64_t count_bytes(const uint8_t *p, size_t n) {
  int64_t count = 0;
  size_t i = 0;
#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

  while (i + 16 <= n) {
    __m128i acc = zero;

    for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16)
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), nl));
    acc = _mm_sad_epu8(acc, zero);
    count += _mm_cvtsi128_si64(acc) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
  }
#else
  const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F), nls = UINT64_C(0x0A0A0A0A0A0A0A0A);
  const uint64_t m16 = UINT64_C(0x00FF00FF00FF00FF);

  while (i + 8 <= n) {
    uint64_t acc = 0;

    for (int k = 0; k < 255 && i + 8 <= n; k++, i += 8) {
      uint64_t w, t;

      memcpy(&w, p + i, sizeof w);
      w ^= nls;
      t = ((w & low7) + low7) | w;
      acc += (~t & ~low7) >> 7;
    }
    acc = (acc & m16) + ((acc >> 8) & m16);
    count += (int64_t)((acc * UINT64_C(0x0001000100010001)) >> 48);
  }
#endif
  for (; i < n; i++)
    count += p[i] == '\n';
  return count;
}

/* Newlines in n bytes (a multiple of the unit, aligned on one). */
static int64_t count_units(const uint8_t *p, size_t n, const TailNewline *nl) {
  int64_t count = 0;

  if (nl->unit == 1)
    return count_bytes(p, n);
  for (size_t i = 0; i + nl->unit <= n; i += nl->unit)
    count += is_newline(p + i, nl);
  return count;
}

/* A bus error while counting a mapping means the file was cut short under it: the counting
 * thread jumps back out instead of the daemon dying. Any other bus error is not ours. */
static __thread sigjmp_buf *guard_jmp;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

static void sigbus_cb(int sig, siginfo_t *si, void *ctx) {
  sigjmp_buf *jmp = guard_jmp;

  (void)si;
  (void)ctx;
  if (jmp != NULL)
    siglongjmp(*jmp, 1);
  /* Not a mapping being counted: the fault repeats on return and takes the default action. */
  signal(sig, SIG_DFL);
}

static void guard_install(void) {
  struct sigaction sa;

  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = sigbus_cb;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, NULL);
}

/* count_units over a mapping, surviving a file cut short under it. Returns 0 or -ENODATA. */
static int count_mapped(const uint8_t *p, size_t n, const TailNewline *nl, int64_t *ret) {
  sigjmp_buf jmp;

  pthread_once(&guard_once, guard_install);
  if (sigsetjmp(jmp, 1) != 0) {
    guard_jmp = NULL;
    return -ENODATA;
  }
  guard_jmp = &jmp;
  *ret = count_units(p, n, nl);
  guard_jmp = NULL;
  return 0;
}

/* Counts [begin, end) with pread, for small ranges and files that cannot be mapped. */
static int count_read(int fd, int64_t begin, int64_t end, const TailNewline *nl,
                      const atomic_bool *cancelled, int64_t *ret) {
  uint8_t *buf = g_malloc(BLOCK_SIZE);
  int64_t count = 0;
  int r = 0;

  for (int64_t off = begin; off < end; off += (int64_t)BLOCK_SIZE) {
    size_t n = (size_t)MIN((int64_t)BLOCK_SIZE, end - off);

    if (is_cancelled(cancelled)) {
      r = -ECANCELED;
      break;
    }
    r = pread_full(fd, buf, n, off);
    if (r < 0)
      break;
    count += count_units(buf, n, nl);
  }
  g_free(buf);
  *ret = count;
  return r;
}

int tail_count_newlines(int fd, int64_t begin, int64_t end, const TailNewline *nl,
                        const atomic_bool *cancelled, int64_t *ret) {
  int64_t page = (int64_t)sysconf(_SC_PAGESIZE), count = 0;

  *ret = 0;
  if (end - begin <= PREAD_COUNT_MAX)
    return count_read(fd, begin, end, nl, cancelled, ret);
  /* Windows are multiples of 4 bytes long, so every one starts on a unit. */
  for (int64_t off = begin; off < end; off += MAP_WINDOW) {
    int64_t len = MIN(MAP_WINDOW, end - off), at = off - off % page, n;
    size_t map_len = (size_t)(len + off - at);
    uint8_t *p;
    int r;

    if (is_cancelled(cancelled))
      return -ECANCELED;
    /* Populated at once: one call instead of a page fault every few pages. */
    p = mmap(NULL, map_len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, (off_t)at);
    if (p == MAP_FAILED) {
      r = count_read(fd, off, end, nl, cancelled, &n);
      *ret = count + n;
      return r;
    }
    r = count_mapped(p + (off - at), (size_t)len, nl, &n);
    munmap(p, map_len);
    if (r < 0)
      return r;
    count += n;
  }
  *ret = count;
  return 0;
}

/* Scans buf (file bytes [lo, lo + n)) backwards for newlines, skipping the one at `skip` (the
 * end of the text's last line), until *found reaches want. Returns the offset right after the
 * newline that made it, or -1. */
static int64_t scan_back(const uint8_t *buf, size_t n, int64_t lo, int64_t skip,
                         const TailNewline *nl, int64_t want, int64_t *found) {
  size_t i = n;

  while (i >= nl->unit) {
    if (nl->unit == 1) {
      const uint8_t *q = memrchr(buf, '\n', i);

      if (q == NULL)
        return -1;
      i = (size_t)(q - buf);
    } else {
      i -= nl->unit;
      if (!is_newline(buf + i, nl))
        continue;
    }
    if (lo + (int64_t)i != skip && ++*found == want)
      return lo + (int64_t)(i + nl->unit);
  }
  return -1;
}

int tail_locate(int fd, int64_t begin, int64_t size, const TailNewline *nl, int64_t n,
                const atomic_bool *cancelled, TailSpot *ret) {
  /* A unit cut by the end of the file is no newline: the scan ends on whole units. But it is
   * a character (U+FFFD) of the last line, so that no newline ends that line. */
  int64_t end = begin + (size - begin) / (int64_t)nl->unit * (int64_t)nl->unit;
  int64_t skip = end == size ? end - (int64_t)nl->unit : -1;
  int64_t hi = end, found = 0, start = -1, before;
  uint8_t *buf = g_malloc(BLOCK_SIZE);
  int r = 0;

  while (hi > begin && start < 0) {
    int64_t lo = MAX(begin, hi - (int64_t)BLOCK_SIZE);

    if (is_cancelled(cancelled)) {
      r = -ECANCELED;
      goto finish;
    }
    r = pread_full(fd, buf, (size_t)(hi - lo), lo);
    if (r < 0)
      goto finish;
    start = scan_back(buf, (size_t)(hi - lo), lo, skip, nl, n, &found);
    hi = lo;
  }
  if (start < 0)
    start = begin;
  r = tail_count_newlines(fd, begin, start, nl, cancelled, &before);
  if (r == 0) {
    ret->start = start;
    ret->first_line = before + 1;
  }

finish:
  g_free(buf);
  return r;
}

/* Whether the size of fd's file means nothing; see tail.h. */
bool tail_size_unknown(int fd) {
  static const unsigned long made_when_read[] = {
      PROC_SUPER_MAGIC, SYSFS_MAGIC,        DEBUGFS_MAGIC,       TRACEFS_MAGIC,
      SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, PSTOREFS_MAGIC,
  };
  struct stat st;
  struct statfs fs;

  if (fstat(fd, &st) == 0 && st.st_size == 0)
    return true;
  if (fstatfs(fd, &fs) != 0)
    return false;
  for (size_t i = 0; i < G_N_ELEMENTS(made_when_read); i++)
    if ((unsigned long)fs.f_type == made_when_read[i])
      return true;
  return false;
}

/* Prepares the ring; see tail.h. */
void tail_ring_init(TailRing *r, const TailNewline *nl, int64_t n) {
  memset(r, 0, sizeof *r);
  r->nl = *nl;
  if (r->nl.unit == 0)
    r->nl.unit = 1;
  r->want = n < 1 ? 1 : n;
  r->cap_starts = 16;
  r->starts = g_new(int64_t, r->cap_starts);
  r->starts[r->n_starts++] = 0; /* the first line starts at the text's start */
}

/* A line starts at stream offset at: the oldest is dropped once more than `want` lines and the
 * start after the last newline are kept, and the bytes before the oldest kept start go when
 * they are more than the half of the buffer. */
static void ring_line_start(TailRing *r, int64_t at) {
  if (r->n_starts == r->cap_starts) {
    r->cap_starts *= 2;
    r->starts = g_renew(int64_t, r->starts, r->cap_starts);
  }
  r->starts[r->n_starts++] = at;
  if ((int64_t)(r->n_starts - r->s0) <= r->want + 1)
    return;
  r->dropped++;
  r->s0++;
  /* Amortized: the starts are moved down once the dropped ones are half of them. */
  if (r->s0 >= 64 && r->s0 >= r->n_starts / 2) {
    memmove(r->starts, r->starts + r->s0, (r->n_starts - r->s0) * sizeof *r->starts);
    r->n_starts -= r->s0;
    r->s0 = 0;
  }
}

/* Drops the bytes before the oldest kept line when they are at least half of the buffer. */
static void ring_compact(TailRing *r) {
  size_t gone = (size_t)(r->starts[r->s0] - r->base);

  if (gone == 0 || gone < r->len / 2)
    return;
  memmove(r->buf, r->buf + gone, r->len - gone);
  r->len -= gone;
  r->base += (int64_t)gone;
}

/* Whether the unit ending at stream offset end (exclusive) is a newline. */
static bool ring_unit_is_newline(const TailRing *r, int64_t end) {
  const uint8_t *u = r->buf + (end - (int64_t)r->nl.unit - r->base);
  size_t last = r->nl.big_endian ? r->nl.unit - 1 : 0;

  if (end % (int64_t)r->nl.unit != 0 || u[last] != 0x0A)
    return false;
  for (size_t i = 0; i < r->nl.unit; i++)
    if (i != last && u[i] != 0)
      return false;
  return true;
}

/* Feeds bytes; see tail.h. */
void tail_ring_feed(TailRing *r, const uint8_t *p, size_t len) {
  size_t from = r->len;

  if (len == 0)
    return;
  if (r->len + len > r->cap) {
    r->cap = MAX(r->cap * 2, r->len + len);
    r->buf = g_realloc(r->buf, r->cap);
  }
  memcpy(r->buf + r->len, p, len);
  r->len += len;
  r->fed += (int64_t)len;
  if (r->nl.unit == 1) {
    for (const uint8_t *nl = memchr(r->buf + from, '\n', r->len - from); nl != NULL;
         nl = memchr(nl + 1, '\n', (size_t)(r->buf + r->len - nl - 1)))
      ring_line_start(r, r->base + (nl - r->buf) + 1);
  } else {
    /* Units that end in the new bytes (one may have begun in the earlier ones). */
    int64_t end = r->base + (int64_t)from + 1;

    for (; end <= r->fed; end++)
      if (end - (int64_t)r->nl.unit >= r->base && ring_unit_is_newline(r, end))
        ring_line_start(r, end);
  }
  ring_compact(r);
}

/* The kept lines; see tail.h. */
const uint8_t *tail_ring_lines(const TailRing *r, size_t *ret_len, int64_t *ret_first_line) {
  /* A start right at the end is no line: the text ended with a newline. With want + 1 starts
   * the oldest is one line too many, unless the last is that empty one. */
  size_t first = r->s0;
  bool ends_nl = r->starts[r->n_starts - 1] == r->fed;

  if ((int64_t)(r->n_starts - r->s0) - (ends_nl ? 1 : 0) > r->want)
    first++;
  *ret_first_line = r->dropped + (int64_t)(first - r->s0) + 1;
  *ret_len = (size_t)(r->fed - r->starts[first]);
  return r->buf != NULL ? r->buf + (r->starts[first] - r->base) : (const uint8_t *)"";
}

/* Frees the ring; see tail.h. */
void tail_ring_clear(TailRing *r) {
  g_free(r->buf);
  g_free(r->starts);
  r->buf = NULL;
  r->starts = NULL;
  r->len = r->cap = r->s0 = r->n_starts = r->cap_starts = 0;
}
