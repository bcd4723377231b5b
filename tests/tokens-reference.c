/* The token estimator as it was first written (formatters/tokens.c before its scan became a
 * table-driven automaton), kept as the reference the tests compare the estimator with: a
 * byte-at-a-time scan of runs and their features, summed with the estimator's own weights.
 * Each feature priced since (a small letter after capitals, runs of consonants, repeated rule
 * characters, spaces by what follows them, capitals after a space, a backslash joining a word)
 * is counted here first, in the plainest way, and the automaton must agree with it. */
#include "tests/tokens-reference.h"

#include <stdbool.h>
#include <string.h>

enum { C_OTHER, C_LOWER, C_UPPER, C_DIGIT, C_PUNCT, C_BLANK, C_TAB, C_LF, C_CR, C_HIGH };

/* The class of every byte, and the run it belongs to (run_kind()): one table lookup per byte
 * in the hot loops. */
static unsigned char byte_class[256];
static unsigned char byte_run[256];
static int classes_ready;

static void classes_init(void) {
  for (int b = 0; b < 256; b++) {
    unsigned char c = C_OTHER;

    if (b >= 'a' && b <= 'z')
      c = C_LOWER;
    else if (b >= 'A' && b <= 'Z')
      c = C_UPPER;
    else if (b >= '0' && b <= '9')
      c = C_DIGIT;
    else if (b == '\t')
      c = C_TAB;
    else if (b == ' ' || b == '\f' || b == '\v')
      c = C_BLANK;
    else if (b == '\n')
      c = C_LF;
    else if (b == '\r')
      c = C_CR;
    else if (b > 0x20 && b < 0x7F)
      c = C_PUNCT;
    else if (b >= 0x80)
      c = C_HIGH;
    byte_class[b] = c;
    byte_run[b] = c == C_UPPER ? C_LOWER : c == C_TAB ? C_BLANK : c;
  }
  __atomic_store_n(&classes_ready, 1, __ATOMIC_RELEASE);
}

/* An ASCII consonant of either case ('y' counts as a vowel). */
static bool is_consonant(int b) {
  return ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) && strchr("aeiouyAEIOUY", b) == NULL;
}

/* The code point of the (unchecked) UTF-8 sequence at p and its length: the estimator only
 * needs the script, so a bad sequence is one character of another script. */
static size_t next_cp(const unsigned char *p, size_t n, uint32_t *ret_cp) {
  unsigned char b = p[0];
  size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
  uint32_t cp;

  if (len > n)
    len = 1;
  for (size_t i = 1; i < len; i++)
    if ((p[i] & 0xC0) != 0x80)
      len = 1;
  cp = len == 1 ? b : b & (0x7F >> len);
  for (size_t i = 1; i < len; i++)
    cp = cp << 6 | (p[i] & 0x3F);
  *ret_cp = cp;
  return len;
}

static int is_hangul(uint32_t cp) {
  return (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3130 && cp <= 0x318F) ||
         (cp >= 0xA960 && cp <= 0xA97F) || (cp >= 0xAC00 && cp <= 0xD7FF);
}

static int is_cjk(uint32_t cp) {
  return (cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFFEF) ||
         (cp >= 0x20000 && cp <= 0x3FFFF);
}

/* The scan's state is the counter's: kind is the class of the run being scanned (C_LOWER for
 * a word, C_DIGIT, C_PUNCT, C_BLANK, or C_OTHER for none), len its bytes, caps its capital
 * letters, tabs its tabs, last the class of its last byte. */
typedef RefCounter Scan;

/* Counts the run that ends; `next` is the class of what comes after it (a letter: C_LOWER; C_OTHER
 * at the end). */
static inline __attribute__((always_inline)) void run_end(Scan *s, int next) {
  switch (s->kind) {
  case C_LOWER:
    s->f[TOKEN_F_WORD]++;
    if (s->len - s->caps > 6)
      s->f[TOKEN_F_LONG] += (int64_t)(s->len - s->caps - 6);
    if (s->caps > 2)
      s->f[s->spaced ? TOKEN_F_CAPS_SPACED : TOKEN_F_CAPS] += (int64_t)(s->caps - 2);
    break;
  case C_DIGIT:
    s->f[TOKEN_F_DIGITS] += (int64_t)((s->len + 2) / 3);
    break;
  case C_PUNCT:
    s->f[TOKEN_F_PUNCT]++;
    if (s->len > 2) {
      s->f[TOKEN_F_PCHARS] += (int64_t)(s->len - 2 - s->reps);
      s->f[TOKEN_F_REPEAT] += (int64_t)s->reps;
    }
    break;
  case C_BLANK:
    if (s->len > s->tabs)
      s->f[next == C_LOWER   ? TOKEN_F_SPACES_WORD
           : next == C_DIGIT ? TOKEN_F_SPACES_DIGIT
                             : TOKEN_F_SPACES]++;
    s->f[TOKEN_F_SPACES_DIGIT2] += next == C_DIGIT && s->spaced && s->last == C_BLANK;
    s->f[TOKEN_F_TABS] += (int64_t)s->tabs;
    break;
  default:
    break;
  }
  s->kind = C_OTHER;
  s->len = 0;
  s->caps = 0;
  s->tabs = 0;
  s->cons = 0;
  s->spaced = 0;
  s->reps = 0;
  s->last_rep = 0;
  s->prev = 0;
}

/* As o200k's pre-tokenizer does, the last character of the run before a word joins it
 * (" foo", "(foo", "\tfoo"), and a space joins the punctuation after it (" //"); digits
 * take nothing (" 42" is two tokens). Returns true when a space joins a word. */
static inline __attribute__((always_inline)) bool run_join(Scan *s, int kind) {
  bool joins = (kind == C_LOWER && (s->kind == C_PUNCT || s->kind == C_BLANK)) ||
               (kind == C_PUNCT && s->kind == C_BLANK && s->last == C_BLANK);
  bool spaced = kind == C_LOWER && s->kind == C_BLANK && s->last == C_BLANK;

  if (!joins)
    return false;
  if (s->kind == C_PUNCT) {
    s->f[s->prev == '\\' ? TOKEN_F_JOIN_BACKSLASH : TOKEN_F_JOIN]++;
    s->reps -= s->last_rep != 0; /* its last character leaves it */
  }
  s->tabs -= s->last == C_TAB;
  if (--s->len == 0)
    s->kind = C_OTHER;
  return spaced;
}

static inline __attribute__((always_inline)) void run_add(Scan *s, int kind, int cls) {
  if (s->kind != kind)
    (void)run_join(s, kind);
  if (s->kind != kind)
    run_end(s, kind);
  /* "fooBar" is two pieces, as the pre-tokenizer splits before an upper-case letter that
   * follows a lower-case one. */
  else if (kind == C_LOWER && cls == C_UPPER && s->last == C_LOWER)
    run_end(s, kind);
  /* A small letter after two capitals or more: the BPE splits there ("GVsb"). */
  if (s->kind == C_LOWER && cls != C_UPPER && s->last == C_UPPER && s->caps >= 2)
    s->f[TOKEN_F_CAPLOW]++;
  s->kind = kind;
  s->cons = 0; /* a letter of another script ends a run of consonants */
  s->len++;
  s->caps += cls == C_UPPER;
  s->tabs += cls == C_TAB;
  s->last = cls;
}

/* The run a byte class belongs to: C_LOWER for letters, C_BLANK for blanks and tabs. */
static int run_kind(int cls) {
  switch (cls) {
  case C_UPPER:
    return C_LOWER;
  case C_TAB:
    return C_BLANK;
  default:
    return cls;
  }
}

/* Starts a run of `kind` unless one is going on (run_add's first step). */
static inline __attribute__((always_inline)) void run_start(Scan *s, int kind) {
  bool spaced;

  if (s->kind == kind)
    return;
  spaced = run_join(s, kind);
  if (s->kind != kind)
    run_end(s, kind);
  s->spaced = spaced;
  s->kind = kind;
  s->last = C_OTHER;
}

/* Consumes the run of letters, digits, punctuation or blanks at p[i..n): a tight loop per run,
 * the same counts as run_add() byte by byte. The run's counters live in locals: p may alias
 * anything, so fields of *s would be stored and loaded again at every byte. Returns the index
 * past the run. */
static inline __attribute__((always_inline)) size_t scan_run(Scan *s, const unsigned char *p,
                                                             size_t i, size_t n, int kind) {
  size_t len, caps = 0, tabs = 0;
  int last;

  run_start(s, kind);
  len = s->len;
  last = s->last;
  if (kind == C_LOWER) {
    int cons = s->cons;

    caps = s->caps;
    for (; i < n && byte_run[p[i]] == C_LOWER; i++) {
      int cls = byte_class[p[i]];

      /* The third consonant in a row and each after it (the piece split below does not end
       * the row: "HTTPServer"). */
      if (is_consonant(p[i])) {
        s->f[TOKEN_F_CONS] += cons >= 2;
        cons += cons < 2;
      } else {
        cons = 0;
      }

      /* "fooBar" is two pieces, as the pre-tokenizer splits before an upper-case letter
       * that follows a lower-case one. */
      if (cls == C_UPPER && last == C_LOWER) {
        s->len = len;
        s->caps = caps;
        run_end(s, C_LOWER);
        s->kind = C_LOWER;
        len = caps = 0;
      }
      if (cls != C_UPPER && last == C_UPPER && caps >= 2)
        s->f[TOKEN_F_CAPLOW]++;
      len++;
      caps += cls == C_UPPER;
      last = cls;
    }
    s->caps = caps;
    s->cons = cons;
  } else if (kind == C_PUNCT) {
    size_t reps = s->reps, start = i;
    int prev = s->prev, last_rep = s->last_rep;

    /* A rule character repeating the one before it, past the run's first two. */
    for (; i < n && byte_run[p[i]] == C_PUNCT; i++) {
      len++;
      last_rep = len >= 3 && p[i] == prev && strchr("-=*#_~+./", p[i]) != NULL;
      reps += (size_t)last_rep;
      prev = p[i];
    }
    if (i > start)
      last = byte_class[p[i - 1]];
    s->reps = reps;
    s->prev = prev;
    s->last_rep = last_rep;
  } else {
    tabs = s->tabs;
    size_t start = i;
    int spaced = s->spaced;

    for (; i < n && byte_run[p[i]] == kind; i++) {
      spaced |= len > 0 && last == C_BLANK;
      last = byte_class[p[i]];
      len++;
      tabs += p[i] == '\t';
    }
    s->spaced = spaced;
    if (i > start)
      last = byte_class[p[i - 1]];
    s->tabs = tabs;
  }
  s->len = len;
  s->last = last;
  return i;
}

static void scan(Scan *sc, const unsigned char *p, size_t n) {
  /* A local copy, which the compiler keeps in registers: p may alias *sc. */
  Scan st = *sc, *s = &st;
  size_t i = 0;

  while (i < n) {
    int cls = byte_class[p[i]];
    uint32_t cp;

    switch (cls) {
    case C_LOWER:
    case C_UPPER:
    case C_DIGIT:
    case C_PUNCT:
    case C_BLANK:
    case C_TAB:
      i = scan_run(s, p, i, n, run_kind(cls));
      continue;
    case C_LF:
      /* Blanks before a line break join it; a line break joins the punctuation before it
       * ("},\n"). Nothing carries over to the next line: the estimate is additive over
       * lines. */
      if (s->kind == C_BLANK)
        s->kind = C_OTHER;
      if (s->kind != C_PUNCT)
        s->f[TOKEN_F_LINE]++;
      run_end(s, C_LF);
      break;
    case C_HIGH:
      i += next_cp(p + i, n - i, &cp);
      if (is_hangul(cp) || is_cjk(cp)) {
        /* Each one its own piece, and a blank or a punctuation mark before it joins it. */
        (void)run_join(s, C_LOWER);
        run_end(s, C_LOWER);
        s->f[is_hangul(cp) ? TOKEN_F_HANGUL : TOKEN_F_CJK]++;
      } else {
        /* A letter of another script goes on the word ("café", "слово"), at a cost. */
        run_add(s, C_LOWER, C_LOWER);
        s->f[TOKEN_F_OTHER]++;
      }
      continue;
    default:
      run_end(s, C_OTHER); /* '\r' and control characters join the line break or go unseen */
      break;
    }
    i++;
  }
  *sc = st;
}

void ref_counter_init(RefCounter *c) {
  memset(c, 0, sizeof *c);
  c->kind = C_OTHER;
  if (!__atomic_load_n(&classes_ready, __ATOMIC_ACQUIRE))
    classes_init();
}

void ref_counter_feed(RefCounter *c, const char *s, size_t n) {
  scan(c, (const unsigned char *)s, n);
}

int64_t ref_counter_milli(const RefCounter *c) {
  Scan s = *c;
  int64_t milli = 0;

  run_end(&s, C_OTHER);
  for (int k = 0; k < TOKEN_F_COUNT; k++)
    milli += s.f[k] * tokens_weight_milli[k];
  return milli;
}

void ref_features(const char *str, size_t n, int64_t f[TOKEN_F_COUNT]) {
  RefCounter c;

  ref_counter_init(&c);
  ref_counter_feed(&c, str, n);
  run_end(&c, C_OTHER);
  for (int k = 0; k < TOKEN_F_COUNT; k++)
    f[k] += c.f[k];
}

int64_t ref_text_milli(const char *s, size_t n) {
  RefCounter c;

  if (n == 0)
    return 0;
  ref_counter_init(&c);
  ref_counter_feed(&c, s, n);
  return ref_counter_milli(&c);
}
