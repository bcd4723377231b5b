/* Line framing: one growable buffer with a read offset.
 *
 * Lines are handed out in place: the '\n' (or the "\r\n") is overwritten with a NUL and the read
 * offset moves past it, so taking a line never moves memory. The unread rest is moved to the
 * front only when new bytes arrive (at most once per feed), and the search for '\n' resumes
 * where it stopped, so a long line fed byte by byte is still scanned once.
 *
 * A line's length is counted as it is returned, without the '\n' and without a '\r' just
 * before it. Once a line is known to be too long its bytes are dropped and the framer skips
 * input up to the next '\n', inside framer_feed(), without buffering it. */
#include "ipc/frame.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

/* Smallest allocation, and the size above which an emptied buffer is given back. */
#define FRAME_MIN_ALLOC ((size_t)4096)
#define FRAME_KEEP_ALLOC ((size_t)256 * 1024)

struct Framer {
  char *buf;
  size_t alloc;   /* bytes allocated at buf */
  size_t start;   /* first unread byte */
  size_t end;     /* one past the last buffered byte */
  size_t scanned; /* buf[start..scanned) is known to hold no '\n' */
  size_t max_line;
  bool skipping; /* dropping an oversized line up to its '\n' */
  bool ended;    /* end of input: a partial line is the last line */
};

Framer *framer_new(size_t max_line) {
  Framer *f = g_new0(Framer, 1);

  f->max_line = max_line;
  return f;
}

void framer_free(Framer *f) {
  if (!f)
    return;
  g_free(f->buf);
  g_free(f);
}

/* Moves the unread bytes to the front, and releases a large buffer that has become empty. */
static void framer_compact(Framer *f) {
  size_t pending = f->end - f->start;

  if (pending == 0 && f->alloc > FRAME_KEEP_ALLOC) {
    g_clear_pointer(&f->buf, g_free);
    f->alloc = 0;
  } else if (f->start > 0 && pending > 0) {
    memmove(f->buf, f->buf + f->start, pending);
  }
  f->scanned -= f->start;
  f->start = 0;
  f->end = pending;
}

/* Makes room for len more bytes after end. */
static void framer_reserve(Framer *f, size_t len) {
  size_t need = f->end + len;
  size_t alloc = f->alloc ? f->alloc : FRAME_MIN_ALLOC;

  if (need <= f->alloc)
    return;
  while (alloc < need)
    alloc = alloc > SIZE_MAX / 2 ? need : alloc * 2;
  f->buf = g_realloc(f->buf, alloc);
  f->alloc = alloc;
}

void framer_feed(Framer *f, const char *data, size_t len) {
  if (f->ended)
    return;
  if (f->skipping) {
    const char *nl = memchr(data, '\n', len);

    if (!nl)
      return;
    f->skipping = false;
    len -= (size_t)(nl + 1 - data);
    data = nl + 1;
  }
  if (len == 0)
    return;

  framer_compact(f);
  framer_reserve(f, len);
  memcpy(f->buf + f->end, data, len);
  f->end += len;
}

/* True when the unterminated bytes buffered can no longer become a line within the cap. A
 * pending '\r' may still be the start of "\r\n", so it is not counted yet. */
static bool framer_partial_too_long(const Framer *f) {
  size_t pending = f->end - f->start;

  if (pending <= f->max_line)
    return false;
  return pending > f->max_line + 1 || f->buf[f->end - 1] != '\r';
}

void framer_end(Framer *f) {
  if (f->ended)
    return;
  f->ended = true;
  /* Room for the NUL that ends the last line. */
  if (f->end > f->start)
    framer_reserve(f, 1);
}

int framer_next(Framer *f, const char **ret_line, size_t *ret_len) {
  char *line, *nl;
  size_t len;

  if (f->start == f->end)
    return 0;

  nl = memchr(f->buf + f->scanned, '\n', f->end - f->scanned);
  if (!nl && f->ended && !framer_partial_too_long(f)) {
    /* The last line, without its '\n': the NUL goes where the '\n' would be. */
    nl = f->buf + f->end;
    f->end++;
  }
  if (!nl) {
    f->scanned = f->end;
    if (!framer_partial_too_long(f))
      return 0;
    /* Drop it now rather than when its '\n' comes: that is what keeps memory bounded. */
    f->start = f->end = f->scanned = 0;
    f->skipping = true;
    return -E2BIG;
  }

  line = f->buf + f->start;
  len = (size_t)(nl - line);
  f->start = f->scanned = len + 1 + f->start;
  if (len > 0 && line[len - 1] == '\r')
    len--;
  if (len > f->max_line)
    return -E2BIG;

  line[len] = '\0';
  *ret_line = line;
  *ret_len = len;
  return 1;
}

bool frame_line_has_content(const char *line, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      return true;
  return false;
}

size_t framer_pending(const Framer *f) {
  return f->end - f->start;
}
