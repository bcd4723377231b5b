/* Glob matching segment by segment: a segment is matched with one backtracking point per `*`
 * (a segment has no '/', so the classic greedy algorithm is exact), and `**` segments the same
 * way over whole segments. Nothing allocates: segments are (pointer, length)
 * views of the two strings. */
#include "daemon/readers/glob.h"

#include <stdint.h>
#include <string.h>

/* At most this many segments in a pattern or a path: deeper paths do not match. */
#define GLOB_MAX_SEGMENTS 256

typedef struct {
  const char *p;
  size_t n;
} Seg;

/* Splits s on '/' into at most GLOB_MAX_SEGMENTS segments. Returns the count, or -1 when there
 * are more. */
static int split(const char *s, Seg *ret) {
  int n = 0;

  for (;;) {
    const char *slash = strchr(s, '/');
    size_t len = slash != NULL ? (size_t)(slash - s) : strlen(s);

    if (n == GLOB_MAX_SEGMENTS)
      return -1;
    ret[n++] = (Seg){s, len};
    if (slash == NULL)
      return n;
    s = slash + 1;
  }
}

/* Matches the class at p[0] == '[' against c. Returns the class's length (past ']') and sets
 * *ret_match, or 0 when the class is not closed in the segment (then '[' is a literal). */
static size_t class_match(const char *p, size_t n, char c, bool *ret_match) {
  size_t i = 1;
  bool negate = false, match = false;

  if (i < n && (p[i] == '!' || p[i] == '^')) {
    negate = true;
    i++;
  }
  for (bool first = true; i < n; first = false) {
    unsigned char lo, hi;

    if (p[i] == ']' && !first) {
      *ret_match = match != negate;
      return i + 1;
    }
    if (p[i] == '\\' && i + 1 < n)
      i++;
    lo = (unsigned char)p[i++];
    hi = lo;
    if (i + 1 < n && p[i] == '-' && p[i + 1] != ']') {
      i++;
      if (p[i] == '\\' && i + 1 < n)
        i++;
      hi = (unsigned char)p[i++];
    }
    if ((unsigned char)c >= lo && (unsigned char)c <= hi)
      match = true;
  }
  return 0;
}

/* One character of the pattern at p[i] against c: returns the pattern characters it took (0:
 * no match). `*` is handled by the caller. */
static size_t one_match(const char *p, size_t n, size_t i, char c) {
  bool match;
  size_t len;

  if (p[i] == '?')
    return 1;
  if (p[i] == '[' && (len = class_match(p + i, n - i, c, &match)) > 0)
    return match ? len : 0;
  if (p[i] == '\\' && i + 1 < n)
    return p[i + 1] == c ? 2 : 0;
  return p[i] == c ? 1 : 0;
}

/* One segment against one name: the greedy algorithm with a single backtracking point. */
static bool seg_match(Seg pat, Seg name) {
  size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;

  while (si < name.n) {
    size_t k;

    if (pi < pat.n && pat.p[pi] == '*') {
      while (pi < pat.n && pat.p[pi] == '*')
        pi++;
      star_p = pi;
      star_s = si;
      continue;
    }
    if (pi < pat.n && (k = one_match(pat.p, pat.n, pi, name.p[si])) > 0) {
      pi += k;
      si++;
      continue;
    }
    if (star_p == SIZE_MAX)
      return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < pat.n && pat.p[pi] == '*')
    pi++;
  return pi == pat.n;
}

static bool is_globstar(Seg s) {
  return s.n == 2 && s.p[0] == '*' && s.p[1] == '*';
}

/* The same algorithm one level up: segments are the characters and `**` is the star, so that
 * no pattern makes it backtrack more than once per segment. */
static bool segs_match(const Seg *pat, int np, const Seg *path, int ns) {
  int pi = 0, si = 0, star_p = -1, star_s = 0;

  while (si < ns) {
    if (pi < np && is_globstar(pat[pi])) {
      while (pi < np && is_globstar(pat[pi]))
        pi++;
      star_p = pi;
      star_s = si;
      continue;
    }
    if (pi < np && seg_match(pat[pi], path[si])) {
      pi++;
      si++;
      continue;
    }
    if (star_p < 0)
      return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < np && is_globstar(pat[pi]))
    pi++;
  return pi == np;
}

bool glob_match(const char *pattern, const char *path) {
  Seg pat[GLOB_MAX_SEGMENTS], names[GLOB_MAX_SEGMENTS];
  int np, ns;

  if (strlen(pattern) > GLOB_MAX_PATTERN)
    return false;
  np = split(pattern, pat);
  ns = split(path, names);
  if (np < 0 || ns < 0)
    return false;
  /* A trailing globstar after a slash matches what is inside, not the folder itself: one segment at
   * least. */
  if (np > 1 && is_globstar(pat[np - 1]))
    return ns > 1 && segs_match(pat, np, names, ns - 1);
  return segs_match(pat, np, names, ns);
}

bool glob_has_magic(const char *s) {
  return strpbrk(s, "*?[") != NULL;
}

int glob_max_depth(const char *pattern) {
  Seg pat[GLOB_MAX_SEGMENTS];
  int np = split(pattern, pat);

  if (np < 0)
    return -1;
  for (int i = 0; i < np; i++)
    if (is_globstar(pat[i]))
      return -1;
  return np;
}
