#include "daemon/readers/lines.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LINES_AVX2 1
#endif

#include "basic/window.h"
#include "formatters/tokens.h"

/* Bytes kept free under the content cap for the final notice, which is at most
 * "… " + 19 digits + " more lines not shown (" + a 42-byte reason + "); continue with
 * offset=" + 19 digits + "\n", well under this. */
#define NOTICE_RESERVE 160

/* First allocation when the caller gives no size hint. */
#define MIN_ALLOC 256

/* Bytes of one line the fast path looks through; a longer line takes the general path. */
#define FAST_SCAN_MAX ((size_t)4096)

/* The room the fast path keeps free at the end of the buffer, at most: a line's number (16
 * bytes) and its blocks (of 32 at most) are stored whole before the line is known to fit. */
#define FAST_ROOM (FAST_SCAN_MAX + 48)

enum { EOL_NONE = 0, EOL_LF = 1, EOL_CRLF = 2 };

/* A run of whole shown lines from s (see feed_fast_lines): returns where it stopped. */
typedef const char *(*FeedFast)(Lines *l, const char *s, const char *e);

static FeedFast fast_pick(const Lines *l, LinesPath path);

static void buf_grow(Lines *l, size_t extra) {
  size_t want = l->len + extra + 1; /* + the terminating NUL */
  size_t cap = l->cap > 0 ? l->cap : MIN_ALLOC;

  if (want <= l->cap)
    return;
  while (cap < want)
    cap *= 2;
  l->buf = g_realloc(l->buf, cap);
  l->cap = cap;
}

static inline void buf_append(Lines *l, const char *p, size_t n) {
  if (l->len + n + 1 > l->cap)
    buf_grow(l, n);
  memcpy(l->buf + l->len, p, n);
  l->len += n;
}

/* Characters (code points) in n bytes of valid UTF-8: the bytes that are not continuation
 * bytes. Written as a plain loop so the compiler can vectorise it. */
static size_t count_chars(const char *p, size_t n) {
  const unsigned char *u = (const unsigned char *)p;
  size_t cont = 0;

  for (size_t i = 0; i < n; i++)
    cont += (u[i] & 0xC0) == 0x80;
  return n - cont;
}

/* Where num[] holds the tab after the number's last digit. */
#define NUM_END 23

/* Appends printf("%6d\t", n) without going through printf: it runs once per shown line, and
 * the lines shown are nearly always consecutive, so the previous number's text is counted up
 * in place (a carry per ten lines). */
static void number_set(Lines *l, int64_t n) {
  char *t = l->num;
  size_t i = NUM_END - 1;
  uint64_t v = (uint64_t)n;

  memset(t, ' ', sizeof l->num);
  t[NUM_END] = '\t';
  l->num_digits = 0;
  do {
    t[i--] = (char)('0' + v % 10);
    v /= 10;
    l->num_digits++;
  } while (v > 0);
  l->num_last = n;
}

/* Counts num[] up by one: a carry per ten lines, a digit more per power of ten. */
static inline void number_next(Lines *l) {
  char *t = l->num;
  size_t i = NUM_END - 1;

  while (t[i] == '9')
    t[i--] = '0';
  if (t[i] == ' ') {
    t[i] = '1';
    l->num_digits++;
  } else {
    t[i]++;
  }
  l->num_last++;
}

static void append_number(Lines *l, int64_t n) {
  char *t = l->num;
  size_t width;

  if (n == l->num_last + 1 && l->num_last > 0)
    number_next(l);
  else
    number_set(l, n);
  width = MAX(l->num_digits, (size_t)6) + 1;
  if (width > 16) {
    buf_append(l, t + NUM_END + 1 - width, width);
    return;
  }
  /* A fixed 16-byte copy (two stores, no call); only width bytes count. */
  if (l->len + 16 + 1 > l->cap)
    buf_grow(l, 16);
  memcpy(l->buf + l->len, t + NUM_END + 1 - width, 16);
  l->len += width;
}

/* Appends a printf-formatted piece (used for the rare notices and markers only). */
static void G_GNUC_PRINTF(2, 3) append_printf(Lines *l, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = g_vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0)
    buf_append(l, tmp, MIN((size_t)n, sizeof tmp - 1));
}

void lines_init(Lines *l, const LinesOptions *o) {
  size_t first;

  memset(l, 0, sizeof *l);
  l->opt = *o;
  if (l->opt.offset < 1)
    l->opt.offset = 1;
  if (l->opt.limit < 1)
    l->opt.limit = 1;
  if (l->opt.column < 1)
    l->opt.column = 1;
  if (l->opt.first_line < 1)
    l->opt.first_line = 1;
  l->lines = l->opt.first_line - 1;
  l->end = window_add(l->opt.offset, l->opt.limit);
  l->reserve = NOTICE_RESERVE;
  /* Lines priced one by one, a cap too small for the notice, or a character limit under a
   * block always go the general way; so does the line shown from a column. */
  if (l->opt.max_tokens <= 0 && (l->opt.max_content == 0 || l->opt.max_content > l->reserve) &&
      (l->fast = fast_pick(l, o->path)) != NULL) {
    l->fast_from = l->opt.column > 1 ? window_add(l->opt.offset, 1) : l->opt.offset;
    l->fast_room = l->opt.max_content > 0 ? l->opt.max_content - l->reserve : SIZE_MAX;
  }

  /* One allocation usually suffices: the input plus room for the line numbers and for the
   * fast path's stores past the last line, never more than the cap allows (plus one long
   * line). Sized as it is, not to a power of two: a content is kept until it is answered. */
  if (o->size_hint == 0) {
    buf_grow(l, MIN_ALLOC - 1);
    return;
  }
  first = o->size_hint + o->size_hint / 4 + 64 + FAST_ROOM + 1;
  if (o->max_content > 0 && first > o->max_content + 8192)
    first = o->max_content + 8192;
  l->buf = g_malloc(first);
  l->cap = first;
}

/* The first byte of line lines + 1 has arrived: decide whether it is shown. */
static void line_begin(Lines *l) {
  int64_t n = l->lines + 1;

  l->in_line = true;
  l->cur_shown = !l->capped && n >= l->opt.offset && n < l->end;
  if (!l->cur_shown)
    return;
  l->cur_start = l->len;
  l->cur_chars = 0;
  l->cur_exact = false;
  l->cur_cut = 0;
  l->cur_col = n == l->opt.offset ? l->opt.column : 1;
  l->cur_skip = l->cur_col - 1;
  l->cur_skipped = 0;
  l->cur_skipping = l->cur_skip > 0;
  if (l->opt.line_numbers)
    append_number(l, n);
  l->cur_body = l->len;
}

/* Skips the characters of the current line before its column: returns the bytes of p taken.
 * Skipping ends at the lead byte of the first character shown, so that the continuation bytes
 * of the last skipped character (maybe in the next piece) are skipped too. */
static size_t line_skip(Lines *l, const char *p, size_t n) {
  size_t i;

  for (i = 0; i < n; i++) {
    if (((unsigned char)p[i] & 0xC0) == 0x80)
      continue;
    if (l->cur_skip == 0) {
      l->cur_skipping = false;
      break;
    }
    l->cur_skip--;
    l->cur_skipped++;
  }
  return i;
}

/* Adds n bytes (no '\n') of the current shown line, cutting after max_line_chars
 * characters at a character boundary and counting what is cut. */
static void line_append(Lines *l, const char *p, size_t n) {
  size_t max = l->opt.max_line_chars;
  size_t i, chars = 0;

  if (l->cur_skipping) {
    i = line_skip(l, p, n);
    p += i;
    n -= i;
    if (n == 0)
      return;
  }
  if (l->cur_cut > 0) {
    l->cur_cut += (int64_t)count_chars(p, n);
    return;
  }
  /* Bytes are at least as many as characters: while the line's bytes fit, its characters
   * do, and nobody needs to count them. That is nearly every line. */
  if (max == 0 || (!l->cur_exact && n <= max - l->cur_chars)) {
    buf_append(l, p, n);
    l->cur_chars += n;
    return;
  }
  if (!l->cur_exact) {
    l->cur_chars = count_chars(l->buf + l->cur_body, l->len - l->cur_body);
    l->cur_exact = true;
  }
  /* Stop at the lead byte of the first character past the limit; continuation bytes of the
   * last kept character (maybe fed in an earlier piece) are kept. */
  for (i = 0; i < n; i++) {
    if (((unsigned char)p[i] & 0xC0) != 0x80) {
      if (l->cur_chars + chars == max)
        break;
      chars++;
    }
  }
  buf_append(l, p, i);
  l->cur_chars += chars;
  if (i < n)
    l->cur_cut += (int64_t)count_chars(p + i, n - i);
}

/* Appends the marker of a cut line, naming where to read on, or the notice of a column past
 * the end of its line. */
static void line_marker(Lines *l, int64_t n) {
  if (l->cur_cut > 0)
    append_printf(l,
                  " \u2026 [%" G_GINT64_FORMAT
                  " more characters cut; continue with offset=%" G_GINT64_FORMAT
                  ", column=%" G_GINT64_FORMAT "]",
                  l->cur_cut, n, window_add(l->cur_col, (int64_t)l->opt.max_line_chars));
  else if (l->cur_col > 1 && l->len == l->cur_body)
    append_printf(l,
                  "\u2026 [line %" G_GINT64_FORMAT " has %" G_GINT64_FORMAT
                  " characters; column %" G_GINT64_FORMAT " is past its end]",
                  n, l->cur_skipped, l->cur_col);
}

/* The token cap stops the content: lines kept on trial are taken back too. */
static void token_cap_reached(Lines *l) {
  if (l->tent) {
    l->len = l->tent_start;
    l->milli = l->tent_milli;
    l->shown_last = l->tent_first - 1;
    if (l->shown_last < l->shown_first)
      l->shown_first = l->shown_last = 0;
    l->tent = false;
  }
  l->capped = true;
  l->capped_tokens = true;
}

/* The current line ends: with "\n" (EOL_LF), "\r\n" (EOL_CRLF), or the end of the stream. */
static void line_end(Lines *l, int how) {
  int64_t n = l->lines + 1;

  l->eol_seen |= (unsigned)how;
  if (!l->cur_shown)
    return;
  l->cur_shown = false;
  /* The '\r' of a CRLF went in (or was counted as cut, or skipped) as an ordinary character:
   * it is the line's last, so it was skipped only when nothing of the line went in. */
  if (how == EOL_CRLF) {
    if (l->cur_cut > 0)
      l->cur_cut--;
    else if (l->len > l->cur_body)
      l->len--;
    else
      l->cur_skipped--;
  }
  line_marker(l, n);
  buf_append(l, "\n", 1);
  /* Over the cap: take the line back, unless it is the first one (one is always shown). */
  if (l->opt.max_content > 0 && l->len + l->reserve > l->opt.max_content && l->shown_last != 0) {
    l->len = l->cur_start;
    l->capped = true;
    return;
  }
  /* The token cap: the estimate is additive over lines, so the content's is the sum of its
   * lines'. A line over it is taken back, the first one too (the budget is a promise). */
  if (l->opt.max_tokens > 0) {
    int64_t milli = tokens_text_milli(l->buf + l->cur_start, l->len - l->cur_start);
    int64_t cap = l->opt.max_tokens * 1000;

    if (l->milli + milli > cap) {
      l->len = l->cur_start;
      token_cap_reached(l);
      return;
    }
    /* Past the room the notice needs, lines are kept on trial: a whole file fits its cap
     * exactly, a cut one leaves room for its notice. */
    if (!l->tent && l->milli + milli > cap - LINES_NOTICE_TOKENS * 1000) {
      l->tent = true;
      l->tent_start = l->cur_start;
      l->tent_first = n;
      l->tent_milli = l->milli;
    }
    l->milli += milli;
  }
  if (l->cur_cut > 0)
    l->any_cut = true;
  if (l->shown_first == 0)
    l->shown_first = n;
  l->shown_last = n;
}

/* Copies src[0..n) to dst up to the first '\n', which it returns (NULL when there is none):
 * finding the line's end and copying it in one pass, 16 bytes at a time. dst has room for n
 * bytes. */
static const char *copy_to_newline(char *dst, const char *src, size_t n) {
  size_t i = 0;
#ifdef __SSE2__
  const __m128i nl = _mm_set1_epi8('\n');

  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
    int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(v, nl));

    _mm_storeu_si128((__m128i *)(void *)(dst + i), v);
    if (mask != 0)
      return src + i + __builtin_ctz((unsigned)mask);
  }
#endif
  for (; i < n; i++) {
    if (src[i] == '\n')
      return src + i;
    dst[i] = src[i];
  }
  return NULL;
}

/* The common case of a shown line: its bytes from s are copied while its end is looked for,
 * as far as the buffer has room and the line stays under the character limit (so that no
 * character needs counting: bytes are at least as many). Returns the newline, or NULL with
 * *s moved past what was copied; the general path takes the rest. */
static const char *shown_line_fast(Lines *l, const char **s, const char *e) {
  size_t max = l->opt.max_line_chars;
  size_t n = MIN((size_t)(e - *s), l->cap - l->len - 1);
  const char *nl;
  size_t got;

  /* A cut line, or the characters before `column`, take the general path. */
  if (l->cur_cut > 0 || l->cur_exact || l->cur_skipping)
    return NULL;
  if (max > 0)
    n = MIN(n, max - l->cur_chars);
  nl = copy_to_newline(l->buf + l->len, *s, n);
  got = nl != NULL ? (size_t)(nl - *s) : n;
  l->len += got;
  l->cur_chars += got;
  *s += got;
  return nl;
}

/* Line numbers past this take the general path: up to 14 digits, "%6d\t" fits one 16-byte
 * copy. */
#define FAST_LINE_MAX INT64_C(99999999999999)

/* The end of a run, whose lines before n were taken, crlfs of them with CRLF, their content
 * up to d: returns s, where the rest starts. */
static const char *feed_fast_finish(Lines *l, const char *s, char *d, int64_t n, size_t crlfs) {
  l->len = (size_t)(d - l->buf);
  if (crlfs > 0)
    l->eol_seen |= EOL_CRLF;
  if ((int64_t)crlfs < n - 1 - l->lines)
    l->eol_seen |= EOL_LF;
  if (n - 1 > l->lines) {
    if (l->shown_first == 0)
      l->shown_first = l->lines + 1;
    l->shown_last = n - 1;
    l->lines = n - 1;
  }
  return s;
}

#ifdef __SSE2__
/* number_next for the fast path, when a carry is due: returns where the number's text starts
 * and sets *ret_width to its width, tab included. */
static const char *number_carry(Lines *l, size_t *ret_width) {
  size_t digits;

  number_next(l);
  digits = MAX(l->num_digits, (size_t)6);
  *ret_width = digits + 1;
  return l->num + NUM_END - digits;
}

/* The common case, many shown lines in one go: whole lines from s (the start of a line) that
 * are in the window, fit under the content cap and the character limit, and end within
 * [s, e) before its last 16 bytes. Each is found and copied 16 bytes at a time while its
 * number (when `numbers`) is counted up in place, with no call but for a carry and one check
 * of room per line. Stops at the start of the first line it cannot take whole (the general
 * path takes that one, growing the buffer if need be) and returns it. */
static inline __attribute__((always_inline)) const char *
feed_fast_lines(Lines *l, const char *s, const char *e, const bool numbers) {
  const __m128i nlv = _mm_set1_epi8('\n');
  /* Blocks start at most scan_max bytes into a line, so that a newline found is at most
   * max_line_chars bytes in: such a line has no more characters than that, and is not cut. */
  const size_t mlc = l->opt.max_line_chars;
  const size_t scan_max = mlc == 0 || mlc - 15 > FAST_SCAN_MAX ? FAST_SCAN_MAX : mlc - 15;
  const size_t need = scan_max + 32; /* at most FAST_ROOM */
  const int64_t stop_n = MIN(l->end, FAST_LINE_MAX);
  const char *e16, *num = NULL;
  char *digit = l->num + NUM_END - 1;
  int64_t n = l->lines + 1;
  size_t width = 0, crlfs = 0;
  char *d, *end;

  if ((size_t)(e - s) < 16)
    return s;
  e16 = e - 16;
  /* A line may write `need` bytes from its start (number, blocks of 16): the next line may
   * start only where that much room is left, and end where the content cap lets it. */
  buf_grow(l, need);
  d = l->buf + l->len;
  end = l->buf + MIN(l->fast_room, l->cap - 1 - need);
  if (numbers) {
    if (l->num_digits == 0 || l->num_last != n - 1)
      number_set(l, n - 1);
    width = MAX(l->num_digits, (size_t)6) + 1;
    num = l->num + NUM_END + 1 - width;
  }
  for (; n < stop_n && s <= e16; n++) {
    /* The last block start: past it the line is longer than the scan, or ends in the piece's
     * last bytes. */
    const char *last = (size_t)(e16 - s) > scan_max ? s + scan_max : e16, *src = s, *nl;
    char *w = d;
    unsigned long mask;
    bool crlf;

    if (numbers) {
      if (*digit != '9')
        (*digit)++;
      else
        num = number_carry(l, &width);
      memcpy(w, num, 16);
      w += width;
    }
    for (;;) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)src);

      mask = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nlv));
      _mm_storeu_si128((__m128i *)(void *)w, v);
      if (mask != 0)
        break;
      if (src + 16 > last)
        goto taken_back;
      src += 16;
      w += 16;
    }
    nl = src + __builtin_ctzl(mask);
    w += __builtin_ctzl(mask);
    /* A CRLF's '\r' is the line's last byte: the '\n' goes over it. What precedes the newline
     * in the copy is the line's last byte, or the tab after its number. */
    crlf = numbers ? w[-1] == '\r' : nl > s && nl[-1] == '\r';
    w -= crlf;
    *w++ = '\n';
    if (w > end)
      goto taken_back;
    crlfs += crlf;
    d = w;
    s = nl + 1;
  }
  /* num[] holds the number of the last line taken, or of the one taken back. */
  if (numbers)
    l->num_last = n - 1;
  goto finish;

taken_back:
  if (numbers)
    l->num_last = n;

finish:
  return feed_fast_finish(l, s, d, n, crlfs);
}

static G_GNUC_NO_INLINE const char *feed_fast_numbered(Lines *l, const char *s, const char *e) {
  return feed_fast_lines(l, s, e, true);
}

static G_GNUC_NO_INLINE const char *feed_fast_plain(Lines *l, const char *s, const char *e) {
  return feed_fast_lines(l, s, e, false);
}

#ifdef LINES_AVX2
/* inc_at + 15 - k holds 16 bytes with a 1 at byte k, the rest 0: what counts a number's last
 * digit up, added to its 16 bytes. */
static const char inc_at[32] = {[15] = 1};

/* A run's number when its last digit cannot simply count up (a carry is due, or none was
 * written yet), or when the window may end: num[] is brought up to line n (it held n - 1 in
 * *numv), and *numv, *inc and *ret_width made to match it. Returns how many lines after n may
 * be numbered by adding *inc (their last digit counts up to 9, within stop_n). */
static int64_t number_reload(Lines *l, int64_t n, int64_t stop_n, __m128i *numv, __m128i *inc,
                             size_t *ret_width, char **ret_text) {
  size_t width;

  _mm_storeu_si128((__m128i *)(void *)*ret_text, *numv);
  l->num_last = n - 1;
  number_next(l);
  width = MAX(l->num_digits, (size_t)6) + 1;
  *ret_text = l->num + NUM_END + 1 - width;
  *numv = _mm_loadu_si128((const __m128i *)(const void *)*ret_text);
  *inc = _mm_loadu_si128((const __m128i *)(const void *)(inc_at + 15 - (width - 2)));
  *ret_width = width;
  return MIN(stop_n - 1 - n, (int64_t)('9' - l->num[NUM_END - 1]));
}

/* Copies 32 bytes from src to dst; returns where src has newlines (nl, 32 of them), by bit. */
static inline __attribute__((target("avx2,bmi"), always_inline)) unsigned long
copy_block_avx2(char *dst, const char *src, __m256i nl) {
  __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)src);

  _mm256_storeu_si256((__m256i *)(void *)dst, v);
  return (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl));
}

/* feed_fast_lines() 32 bytes at a time, for a CPU with AVX2, with less kept per line: a line's
 * number stays in a register and counts up by an addition, one count down of the lines left
 * stands for both the next carry and the window's end, and the room of the line's blocks past
 * its first is worked out only for a line longer than one block. Needs max_line_chars 0 or at
 * least 32. */
static inline __attribute__((target("avx2,bmi"), always_inline)) const char *
feed_fast_lines_avx2(Lines *l, const char *s, const char *e, const bool numbers) {
  const __m256i nlv = _mm256_set1_epi8('\n');
  const size_t mlc = l->opt.max_line_chars;
  const size_t scan_max = mlc == 0 || mlc - 31 > FAST_SCAN_MAX ? FAST_SCAN_MAX : mlc - 31;
  const size_t need = scan_max + 48; /* at most FAST_ROOM */
  const int64_t stop_n = MIN(l->end, FAST_LINE_MAX);
  const char *e32;
  /* The line being taken is upto - left: no count per line, only of the lines left. */
  int64_t upto = l->lines, left = 0, n;
  size_t width = 0, crlfs = 0;
  __m128i numv = _mm_setzero_si128(), inc = numv;
  char *d, *end, *text = l->num; /* where numv's 16 bytes go back in num[] */

  if ((size_t)(e - s) < 32)
    return s;
  e32 = e - 32;
  buf_grow(l, need);
  d = l->buf + l->len;
  end = l->buf + MIN(l->fast_room, l->cap - 1 - need);
  if (numbers) {
    if (l->num_digits == 0 || l->num_last != upto)
      number_set(l, upto);
    width = MAX(l->num_digits, (size_t)6) + 1;
    text = l->num + NUM_END + 1 - width;
    numv = _mm_loadu_si128((const __m128i *)(const void *)text);
  }
  while (s <= e32) {
    char *w = d;
    size_t at = 0;
    unsigned long mask;
    bool crlf;

    if (G_LIKELY(left > 0)) {
      left--;
      numv = _mm_add_epi8(numv, inc);
    } else {
      n = upto + 1;
      if (n >= stop_n)
        break;
      left = numbers ? number_reload(l, n, stop_n, &numv, &inc, &width, &text) : stop_n - 1 - n;
      upto = n + left;
    }
    if (numbers) {
      _mm_storeu_si128((__m128i *)(void *)w, numv);
      w += width;
    }
    mask = copy_block_avx2(w, s, nlv);
    if (G_UNLIKELY(mask == 0)) {
      /* Blocks start at most scan_max bytes into the line and 32 before the piece's end. */
      const size_t lim = MIN(scan_max, (size_t)(e32 - s));

      do {
        if (at + 32 > lim)
          goto taken_back;
        at += 32;
        mask = copy_block_avx2(w + at, s + at, nlv);
      } while (mask == 0);
    }
    at += (size_t)_tzcnt_u64(mask);
    w += at;
    /* What precedes the newline in the copy is the line's last byte, or its number's tab. */
    crlf = numbers ? w[-1] == '\r' : at > 0 && s[at - 1] == '\r';
    w -= crlf;
    *w++ = '\n';
    if (w > end)
      goto taken_back;
    crlfs += crlf;
    d = w;
    s += at + 1;
  }
  n = upto - left + 1;
  if (numbers) {
    _mm_storeu_si128((__m128i *)(void *)text, numv);
    l->num_last = n - 1;
  }
  return feed_fast_finish(l, s, d, n, crlfs);

taken_back:
  n = upto - left;
  if (numbers) {
    _mm_storeu_si128((__m128i *)(void *)text, numv);
    l->num_last = n;
  }
  return feed_fast_finish(l, s, d, n, crlfs);
}

static __attribute__((target("avx2,bmi"))) G_GNUC_NO_INLINE const char *
feed_fast_numbered_avx2(Lines *l, const char *s, const char *e) {
  return feed_fast_lines_avx2(l, s, e, true);
}

static __attribute__((target("avx2,bmi"))) G_GNUC_NO_INLINE const char *
feed_fast_plain_avx2(Lines *l, const char *s, const char *e) {
  return feed_fast_lines_avx2(l, s, e, false);
}

/* A run 32 bytes at a time, then 16 for the lines in the piece's last 32 bytes (not for a line
 * the first left to the general path: the second would leave it too). */
static const char *feed_fast_numbered_wide(Lines *l, const char *s, const char *e) {
  s = feed_fast_numbered_avx2(l, s, e);
  return e - s < 32 ? feed_fast_numbered(l, s, e) : s;
}

static const char *feed_fast_plain_wide(Lines *l, const char *s, const char *e) {
  s = feed_fast_plain_avx2(l, s, e);
  return e - s < 32 ? feed_fast_plain(l, s, e) : s;
}
#endif
#endif

/* The runs of each path, numbered and plain, and the least max_line_chars (but 0) each takes. */
static const struct {
  FeedFast numbered, plain;
  size_t min_line_chars;
} fast_paths[LINES_PATH_AVX2 + 1] = {
#ifdef __SSE2__
    [LINES_PATH_SSE2] = {feed_fast_numbered, feed_fast_plain, 16},
#endif
#ifdef LINES_AVX2
    [LINES_PATH_AVX2] = {feed_fast_numbered_wide, feed_fast_plain_wide, 32},
#endif
};

/* The paths this build and CPU have (bits by LinesPath) and the fastest of them, chosen once.
 * pthread_once rather than g_once: ThreadSanitizer sees it, and every reading thread asks. */
static unsigned fast_have;
static LinesPath fast_best;
static pthread_once_t fast_once = PTHREAD_ONCE_INIT;

static void fast_choose(void) {
  unsigned have = 1u << LINES_PATH_BEST | 1u << LINES_PATH_GENERAL;
  LinesPath best = LINES_PATH_GENERAL;

#ifdef __SSE2__
  have |= 1u << LINES_PATH_SSE2;
  best = LINES_PATH_SSE2;
#endif
#ifdef LINES_AVX2
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi")) {
    have |= 1u << LINES_PATH_AVX2;
    best = LINES_PATH_AVX2;
  }
#endif
  fast_have = have;
  fast_best = best;
}

/* See lines.h. */
bool lines_path_available(LinesPath path) {
  if (pthread_once(&fast_once, fast_choose) != 0)
    abort();
  return (unsigned)path < 32 && (fast_have & (1u << path)) != 0;
}

/* The run of lines l takes with path (NULL: none), whose blocks must stay under its
 * character limit: a limit too small for AVX2's blocks takes SSE2's. */
static FeedFast fast_pick(const Lines *l, LinesPath path) {
  size_t mlc = l->opt.max_line_chars;

  if (!lines_path_available(path) || path == LINES_PATH_BEST)
    path = fast_best;
  if (path == LINES_PATH_AVX2 && mlc > 0 && mlc < fast_paths[path].min_line_chars)
    path = LINES_PATH_SSE2;
  if (path == LINES_PATH_GENERAL || (mlc > 0 && mlc < fast_paths[path].min_line_chars))
    return NULL;
  return l->opt.line_numbers ? fast_paths[path].numbered : fast_paths[path].plain;
}

/* Lines no longer shown (past the window or the cap), from s, the start of a line: only
 * counted, with their ending style, 16 bytes at a time. */
static void feed_count(Lines *l, const char *s, const char *e) {
  size_t n = (size_t)(e - s), i = 0;
  int64_t count = 0;
  bool cr = false;

#ifdef __SSE2__
  const __m128i nlv = _mm_set1_epi8('\n'), crv = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();

  while (i + 16 <= n) {
    __m128i acc = zero, crs = zero, sums;

    /* A byte lane counts up to 255 newlines before it is summed. */
    for (int k = 0; k < 255 && i + 16 <= n; k++, i += 16) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));

      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nlv));
      crs = _mm_or_si128(crs, _mm_cmpeq_epi8(v, crv));
    }
    sums = _mm_sad_epu8(acc, zero);
    count += _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4);
    cr = cr || _mm_movemask_epi8(crs) != 0;
  }
#endif
  for (; i < n; i++) {
    count += s[i] == '\n';
    cr = cr || s[i] == '\r';
  }
  if (count > 0 && !cr)
    l->eol_seen |= EOL_LF;
  /* A '\r' somewhere: each newline is looked at. s follows a '\n' (or starts the stream), so
   * a newline at s ends an LF line. */
  for (const char *q = s; count > 0 && cr && l->eol_seen != (EOL_LF | EOL_CRLF) && q < e; q++) {
    q = memchr(q, '\n', (size_t)(e - q));
    if (q == NULL)
      break;
    l->eol_seen |= q > s && q[-1] == '\r' ? EOL_CRLF : EOL_LF;
  }
  l->lines += count;
  l->in_line = n > 0 && e[-1] != '\n';
  l->cur_shown = false;
}

void lines_feed(Lines *l, const char *p, size_t n) {
  const char *s = p, *e = p + n;

  while (s < e) {
    const char *nl = NULL;
    bool crlf;

    if (!l->in_line) {
      if (l->capped || l->lines + 1 >= l->end) {
        feed_count(l, s, e);
        break;
      }
      if (l->fast_from > 0 && l->lines + 1 >= l->fast_from) {
        const char *f = l->fast(l, s, e);

        if (f != s) {
          s = f;
          continue;
        }
      }
      line_begin(l);
    }
    if (l->cur_shown)
      nl = shown_line_fast(l, &s, e);
    if (nl == NULL && s < e) {
      nl = memchr(s, '\n', (size_t)(e - s));
      if (l->cur_shown) {
        const char *seg_end = nl != NULL ? nl : e;

        if (seg_end > s)
          line_append(l, s, (size_t)(seg_end - s));
      }
    }
    if (nl == NULL)
      break;
    crlf = nl > p ? nl[-1] == '\r' : l->last_cr;
    line_end(l, crlf ? EOL_CRLF : EOL_LF);
    l->lines++;
    l->in_line = false;
    s = nl + 1;
  }
  if (n > 0)
    l->last_cr = p[n - 1] == '\r';
}

static const char *eol_name(unsigned seen) {
  switch (seen) {
  case EOL_LF:
    return "lf";
  case EOL_CRLF:
    return "crlf";
  case EOL_LF | EOL_CRLF:
    return "mixed";
  default:
    return NULL;
  }
}

/* Appends "… N more lines not shown[ (why)]; continue with offset=M". */
static void append_more_notice(Lines *l, int64_t total) {
  int64_t next = l->shown_last > 0 ? l->shown_last + 1 : l->opt.offset;
  int64_t more = total - next + 1;
  size_t cap = l->opt.max_content;

  if (l->capped_tokens)
    append_printf(l,
                  "\u2026 %" G_GINT64_FORMAT " more lines not shown (budget of %" G_GINT64_FORMAT
                  " tokens); continue with offset=%" G_GINT64_FORMAT "\n",
                  more, l->opt.max_tokens, next);
  else if (!l->capped)
    append_printf(l,
                  "\u2026 %" G_GINT64_FORMAT
                  " more lines not shown; continue with offset=%" G_GINT64_FORMAT "\n",
                  more, next);
  else if (cap % 1024 == 0)
    append_printf(
        l,
        "\u2026 %" G_GINT64_FORMAT
        " more lines not shown (%zu KiB content limit); continue with offset=%" G_GINT64_FORMAT
        "\n",
        more, cap / 1024, next);
  else
    append_printf(
        l,
        "\u2026 %" G_GINT64_FORMAT
        " more lines not shown (%zu bytes content limit); continue with offset=%" G_GINT64_FORMAT
        "\n",
        more, cap, next);
}

void lines_finish(Lines *l, LinesResult *ret) {
  size_t body_end;
  bool truncated;

  if (l->in_line) {
    line_end(l, EOL_NONE);
    l->lines++;
    l->in_line = false;
  }
  /* Lines on trial stay only when nothing follows them: a notice would need their room. */
  if (l->tent && l->shown_last < l->lines)
    token_cap_reached(l);
  body_end = l->len;
  if (l->lines == 0 && l->opt.offset == 1 && l->opt.column == 1) {
    truncated = false; /* an empty stream is shown whole, as nothing */
  } else if (l->opt.offset > l->lines) {
    l->len = body_end = 0;
    l->milli = 0;
    l->shown_first = l->shown_last = 0;
    append_printf(l,
                  "\u2026 offset %" G_GINT64_FORMAT
                  " is past the end of the file (%" G_GINT64_FORMAT " lines)\n",
                  l->opt.offset, l->lines);
    truncated = true;
  } else {
    truncated = l->opt.offset > 1 || l->opt.column > 1 || l->any_cut || l->shown_last < l->lines;
    if (l->shown_last < l->lines)
      append_more_notice(l, l->lines);
  }
  buf_grow(l, 0);
  l->buf[l->len] = '\0';

  ret->content = l->buf;
  ret->content_len = l->len;
  ret->lines = l->lines;
  ret->eol = eol_name(l->eol_seen);
  ret->truncated = truncated;
  ret->shown_first = l->shown_first;
  ret->shown_last = l->shown_last;
  /* Under a token cap the lines were priced one by one: the estimate is additive over lines,
   * so only the notice after them is left to price. */
  ret->milli = l->opt.max_tokens > 0
                   ? l->milli + tokens_text_milli(l->buf + body_end, l->len - body_end)
                   : -1;
  l->buf = NULL;
  l->len = l->cap = 0;
}

void lines_clear(Lines *l) {
  if (l == NULL)
    return;
  g_free(l->buf);
  l->buf = NULL;
  l->len = l->cap = 0;
}
