#include "formatters/tokens.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formatters/tokens-internal.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* What each feature costs, in thousandths of a token: fitted to o200k_base on Go source,
 * English prose, JSON and CJK text (docs/performance.md gives the fit's error per file). */
const int64_t tokens_weight_milli[TOKEN_F_COUNT] = {
    [TOKEN_F_WORD] = 915,         [TOKEN_F_DIGITS] = 1185,        [TOKEN_F_PUNCT] = 937,
    [TOKEN_F_PCHARS] = 130,       [TOKEN_F_JOIN] = 528,           [TOKEN_F_SPACES] = 1703,
    [TOKEN_F_TABS] = 681,         [TOKEN_F_LINE] = 1209,          [TOKEN_F_CAPS] = 196,
    [TOKEN_F_CJK] = 784,          [TOKEN_F_HANGUL] = 702,         [TOKEN_F_OTHER] = 111,
    [TOKEN_F_CAPLOW] = 1450,      [TOKEN_F_CONS] = 425,           [TOKEN_F_REPEAT] = 31,
    [TOKEN_F_SPACES_WORD] = 1278, [TOKEN_F_SPACES_DIGIT] = 720,   [TOKEN_F_JOIN_BACKSLASH] = 0,
    [TOKEN_F_CAPS_SPACED] = 0,    [TOKEN_F_SPACES_DIGIT2] = 1000, [TOKEN_F_LONG] = 66,
};

#define W(f) ((int32_t)tokens_weight_milli[TOKEN_F_##f])

/* The scan is an automaton over characters: each step is one lookup of (state, byte) that gives
 * the next state and what the step adds to the estimate, in thousandths. A feature that depends
 * on what comes after it is counted as soon as it may be and taken back when the next character
 * says otherwise (the punctuation mark that joins the word after it), so that the estimate of a
 * text is the same as counting its runs whole (tests/tokens-reference.c, which the tests compare
 * it with on every kind of input).
 *
 * What a character is to the scan: */
enum {
  K_LOWER, /* a-z */
  K_UPPER, /* A-Z */
  K_DIGIT,
  K_PUNCT, /* other printable ASCII */
  K_SPACE, /* ' ', '\f', '\v' */
  K_TAB,
  K_LF,
  K_OTHER,  /* '\r', other controls, DEL */
  K_LETTER, /* a non-ASCII character of another script: a letter of a word, at a cost */
  K_CJK,    /* Han, kana, CJK punctuation, fullwidth forms: each its own piece */
  K_HANGUL,
};

/* The states: in a word (its piece's last letter lower or upper case: a piece whose last letter
 * is lower case has its small letters counted up to 6, past which each costs TOKEN_F_LONG; one
 * whose last letter is upper case is all capitals: its capitals, 1 or 2 and more, and whether a
 * space joins it: its capitals past the second cost TOKEN_F_CAPS_SPACED instead of
 * TOKEN_F_CAPS; and the consonants that end the word, up to 2: from the third on each costs
 * TOKEN_F_CONS), in a digit
 * group (its length modulo 3), in a run of punctuation (1, 2, 3 or more; its last character if it
 * is one of the rule characters RULE_CHARS; from 3 on, whether that last one repeated the one
 * before it), in a run of blanks (whether a space came before its last blank, whether that is a
 * tab, and its tabs up to 3: a line break takes back the tabs before it, and only a run of 3 or
 * more needs them counted), or in none. */
/* A word's shape: its piece's last letter lower case, and its small letters (1 to 6, 6 for 6 and
 * more); or its piece all capitals so far (1, or 2 and more), joined by a space or not. */
enum {
  W_LOWER1,
  W_LOWER6 = W_LOWER1 + 5,
  W_UPPER1,
  W_UPPER2,
  W_SPACED_UPPER1,
  W_SPACED_UPPER2,
  W_SHAPES,
};

#define RULE_CHARS "-=*#_~+./"
#define RULE_BACKSLASH 9 /* also kept: a backslash joins the word after it at its own cost */
#define RULE_OTHER 10    /* another punctuation character */

enum {
  S_NONE,
  S_WORD, /* + shape * 3 + consonants (W_LOWER1 ...) */
  S_DIGIT1 = S_WORD + W_SHAPES * 3,
  S_PUNCT = S_DIGIT1 + 3, /* length 1: + c; 2: + 11 + c; 3 or more: + 22 + c * 2 + repeated,
                           * c the last character's index (RULE_BACKSLASH, RULE_OTHER) */
  S_BLANK = S_PUNCT + 44, /* + 8 if a space came before the last blank, + 4 if that is a tab,
                           * + its tabs up to 3 */
  S_COUNT = S_BLANK + 16,
};

/* The table has a column per way a byte can act on the scan (its class, its rule index, whether
 * it is a consonant; every non-ASCII byte is one column, the slow one), 21 of them: a row of a
 * state is 32 transitions, 256 bytes, and the whole table fits in a core's first-level cache.
 * The column of a byte is a lookup of its own, which does not wait for the state.
 *
 * A transition, packed in 64 bits: the next state's row (state * T_COLS) in the low half, the
 * estimate's change in the high half, plus T_SLOW for the steps the table cannot take alone (a
 * non-ASCII byte, a line break after 3 tabs or more). Eight transitions added up give the eight
 * changes' sum in the high half (the rows' sum stays far below 2^32), and a sum at or past
 * T_SLOW says one of them must be taken again slowly: one addition a byte. */
#define T_SLOW (INT64_C(1) << 24)
#define T_CHUNK 8

_Static_assert(T_CHUNK * 4000 < T_SLOW / 2, "eight changes stay apart from T_SLOW");

#define T_COLS 32

static unsigned char column[256];
static int64_t trans[S_COUNT * T_COLS];
static int64_t trans_high[S_COUNT][3]; /* K_LETTER, K_CJK, K_HANGUL */
/* The class (K_LETTER, K_CJK or K_HANGUL) of the code points below U+10000, by 16: the scripts'
 * ranges (is_cjk, is_hangul) start and end on multiples of 16. */
static unsigned char script_by16[0x10000 / 16];
static pthread_once_t trans_once = PTHREAD_ONCE_INIT;

static bool is_blank_state(int st) {
  return st >= S_BLANK;
}

static bool is_punct_state(int st) {
  return st >= S_PUNCT && st < S_BLANK;
}

/* A run of punctuation's state: its length (1, 2, 3 for 3 or more), its last character's rule
 * index, and whether that one repeated the one before it. */
static int punct_len(int st) {
  return st - S_PUNCT < 11 ? 1 : st - S_PUNCT < 22 ? 2 : 3;
}

static int punct_rule(int st) {
  int i = st - S_PUNCT;

  return i < 22 ? i % 11 : (i - 22) / 2;
}

static bool punct_repeated(int st) {
  return st - S_PUNCT >= 22 && (st - S_PUNCT) % 2 == 1;
}

static int punct_state(int len, int rule, bool repeated) {
  return S_PUNCT + (len == 1 ? rule : len == 2 ? 11 + rule : 22 + rule * 2 + repeated);
}

/* What ends a run of blanks adds: they join a word after them (their last blank is the word's
 * first character) and a punctuation mark after a space; blanks before a line break go with it
 * (their tabs, counted one by one, are taken back by the scan). */
static int32_t blank_end(int st, int k) {
  bool spaced = (st - S_BLANK) & 8, last_tab = (st - S_BLANK) & 4;
  bool joins_word = k == K_LOWER || k == K_UPPER || k >= K_LETTER;

  if (k == K_LF)
    return 0;
  if (joins_word)
    return (spaced ? W(SPACES_WORD) : 0) - (last_tab ? W(TABS) : 0);
  if (k == K_PUNCT)
    return spaced ? W(SPACES) : 0;
  if (k == K_DIGIT)
    return (spaced || !last_tab ? W(SPACES_DIGIT) : 0) +
           (spaced && !last_tab ? W(SPACES_DIGIT2) : 0);
  if (spaced || !last_tab)
    return W(SPACES);
  return 0;
}

/* One step of the automaton: the next state after character class k in state st, and in
 * *ret_delta what it adds. `rule` is the character's index in RULE_CHARS (RULE_OTHER when it is
 * none), `consonant` whether it is an ASCII consonant. */
static int step(int st, int k, int rule, bool consonant, int32_t *ret_delta) {
  bool word = k == K_LOWER || k == K_UPPER || k == K_LETTER;
  int32_t d = 0;
  int next = S_NONE;

  /* The run going on ends, or joins what comes. */
  if (is_punct_state(st) && (word || k == K_CJK || k == K_HANGUL)) {
    int len = punct_len(st);

    d += (punct_rule(st) == RULE_BACKSLASH ? W(JOIN_BACKSLASH) : W(JOIN)) -
         (len == 1 ? W(PUNCT) : 0) - (len == 3 ? (punct_repeated(st) ? W(REPEAT) : W(PCHARS)) : 0);
  } else if (is_blank_state(st) && k != K_SPACE && k != K_TAB) {
    d += blank_end(st, k);
  }
  if (word) {
    bool in_word = st >= S_WORD && st < S_DIGIT1;
    int w = st - S_WORD, cons = in_word ? w % 3 : 0, shape = in_word ? w / 3 : 0;
    bool last_upper = in_word && shape >= W_UPPER1, spaced = shape >= W_SPACED_UPPER1;
    int caps = !last_upper ? 0 : shape == W_UPPER1 || shape == W_SPACED_UPPER1 ? 1 : 2;
    int small = in_word && !last_upper ? shape - W_LOWER1 + 1 : 0;

    /* "fooBar" is two pieces: the pre-tokenizer splits before a capital after a lower-case
     * letter. A run of consonants goes on over the split ("HTTPServer"). A piece that starts
     * after a space is joined by it (blank_end). */
    if (!in_word || (k == K_UPPER && !last_upper)) {
      d += W(WORD);
      caps = 0;
      spaced = is_blank_state(st) && !((st - S_BLANK) & 4);
    }
    d += k == K_UPPER && caps >= 2 ? (spaced ? W(CAPS_SPACED) : W(CAPS)) : 0;
    d += k != K_UPPER && small >= 6 ? W(LONG) : 0;
    d += k == K_LETTER ? W(OTHER) : 0;
    d += k != K_UPPER && caps >= 2 ? W(CAPLOW) : 0;
    d += consonant && cons >= 2 ? W(CONS) : 0;
    cons = consonant ? (cons < 2 ? cons + 1 : 2) : 0;
    shape = k != K_UPPER ? W_LOWER1 + (small < 6 ? small : 5)
            : caps == 0  ? (spaced ? W_SPACED_UPPER1 : W_UPPER1)
                         : (spaced ? W_SPACED_UPPER2 : W_UPPER2);
    next = S_WORD + shape * 3 + cons;
  } else if (k == K_CJK || k == K_HANGUL) {
    d += k == K_CJK ? W(CJK) : W(HANGUL);
  } else if (k == K_DIGIT) {
    bool in_digits = st >= S_DIGIT1 && st < S_PUNCT;
    int pos = in_digits ? (st - S_DIGIT1 + 1) % 3 : 0;

    d += pos == 0 ? W(DIGITS) : 0;
    next = S_DIGIT1 + pos;
  } else if (k == K_PUNCT) {
    int len = is_punct_state(st) ? punct_len(st) : 0;
    bool repeated = len >= 2 && rule < RULE_BACKSLASH && rule == punct_rule(st);

    /* The third character on: a rule character repeating the one before it costs less. */
    d += len == 0 ? W(PUNCT) : len >= 2 ? (repeated ? W(REPEAT) : W(PCHARS)) : 0;
    next = punct_state(len < 3 ? len + 1 : 3, rule, len >= 2 && repeated);
  } else if (k == K_SPACE || k == K_TAB) {
    bool in_blank = is_blank_state(st);
    int b = in_blank ? st - S_BLANK : 0;
    bool spaced = in_blank && ((b & 8) || !(b & 4));
    int tabs = (b & 3) + (k == K_TAB);

    d += k == K_TAB ? W(TABS) : 0;
    next = S_BLANK + (spaced ? 8 : 0) + (k == K_TAB ? 4 : 0) + (tabs < 3 ? tabs : 3);
  } else if (k == K_LF) {
    /* A line break joins the punctuation before it ("},\n"), and the blanks before it: their
     * tabs are taken back (3 or more by the slow step, which counts them). */
    d += is_punct_state(st) ? 0 : W(LINE);
    if (is_blank_state(st) && ((st - S_BLANK) & 3) < 3)
      d -= ((st - S_BLANK) & 3) * W(TABS);
  }
  *ret_delta = d;
  return next;
}

static int byte_kind(int b) {
  if (b >= 'a' && b <= 'z')
    return K_LOWER;
  if (b >= 'A' && b <= 'Z')
    return K_UPPER;
  if (b >= '0' && b <= '9')
    return K_DIGIT;
  if (b == '\t')
    return K_TAB;
  if (b == ' ' || b == '\f' || b == '\v')
    return K_SPACE;
  if (b == '\n')
    return K_LF;
  if (b > 0x20 && b < 0x7F)
    return K_PUNCT;
  return K_OTHER;
}

/* The byte's index in RULE_CHARS, RULE_BACKSLASH or RULE_OTHER. */
static int rule_index(int b) {
  const char *r = b != 0 ? strchr(RULE_CHARS, b) : NULL;

  return r != NULL ? (int)(r - RULE_CHARS) : b == '\\' ? RULE_BACKSLASH : RULE_OTHER;
}

/* An ASCII consonant of either case ('y' counts as a vowel). */
static bool is_consonant(int b) {
  return ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) && strchr("aeiouyAEIOUY", b) == NULL;
}

static int64_t pack(int next, int32_t delta, bool slow) {
  return (int64_t)((uint64_t)(delta + (slow ? T_SLOW : 0)) << 32) | next * T_COLS;
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

/* The most one step of the scan adds (a step takes a byte or more), and the most the end of a
 * text adds: tokens_text_bound_milli(). */
static int64_t byte_bound, end_bound;

/* What a transition adds, without its T_SLOW mark. */
static int64_t delta_of(int64_t e) {
  return (e >> 32) >= T_SLOW / 2 ? (e >> 32) - T_SLOW : e >> 32;
}

static void trans_init(void) {
  for (uint32_t cp = 0; cp < 0x10000; cp += 16)
    script_by16[cp / 16] = (unsigned char)(is_hangul(cp) ? K_HANGUL
                                           : is_cjk(cp)  ? K_CJK
                                                         : K_LETTER);
  int key_of[T_COLS], first[T_COLS], cols = 1; /* column 0: the non-ASCII bytes */

  for (int b = 0; b < 0x80; b++) {
    int key = (byte_kind(b) * 16 + rule_index(b)) * 2 + is_consonant(b), c = 1;

    while (c < cols && key_of[c] != key)
      c++;
    if (c == cols) {
      if (cols == T_COLS)
        abort(); /* more ways for a byte to act than columns */
      key_of[cols] = key;
      first[cols++] = b;
    }
    column[b] = (unsigned char)c;
  }
  for (int st = 0; st < S_COUNT; st++) {
    int32_t d;
    int next;

    trans[st * T_COLS] = pack(st, 0, true);
    for (int c = 1; c < cols; c++) {
      int b = first[c];

      next = step(st, byte_kind(b), rule_index(b), is_consonant(b), &d);
      trans[st * T_COLS + c] =
          pack(next, d, b == '\n' && is_blank_state(st) && ((st - S_BLANK) & 3) == 3);
    }
    for (int k = K_LETTER; k <= K_HANGUL; k++) {
      next = step(st, k, RULE_OTHER, false, &d);
      trans_high[st][k - K_LETTER] = pack(next, d, false);
      byte_bound = MAX(byte_bound, d);
    }
    for (int c = 1; c < cols; c++)
      byte_bound = MAX(byte_bound, delta_of(trans[st * T_COLS + c]));
    if (is_blank_state(st))
      end_bound = MAX(end_bound, blank_end(st, K_OTHER));
  }
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

/* The tabs of the run of blanks that ends at p[i - 1], with `carried` from earlier pieces
 * when it starts before p. */
static int64_t blank_tabs(const unsigned char *p, size_t i, int64_t carried) {
  int64_t tabs = 0;

  while (i > 0 && (p[i - 1] == ' ' || p[i - 1] == '\t' || p[i - 1] == '\f' || p[i - 1] == '\v'))
    tabs += p[--i] == '\t';
  return tabs + (i == 0 ? carried : 0);
}

/* The step the table cannot take alone, at p[*i] in state `row`: a non-ASCII character
 * (decoded for its script), or a line break after blanks with 3 tabs or more (which go with it).
 * Moves *i past the character and returns the next row. */
static uint32_t slow_step(const unsigned char *p, size_t n, size_t *i, uint32_t row,
                          int64_t carried, int64_t *milli) {
  int64_t e = trans[row + column[p[*i]]];
  uint32_t cp;
  int k;

  if ((e >> 32) < T_SLOW / 2) {
    /* The table's own step, in a chunk taken slowly for another byte. */
  } else if (p[*i] == '\n') {
    *milli -= blank_tabs(p, *i, carried) * W(TABS);
  } else {
    *i += next_cp(p + *i, n - *i, &cp) - 1;
    k = is_hangul(cp) ? K_HANGUL : is_cjk(cp) ? K_CJK : K_LETTER;
    e = trans_high[row / T_COLS][k - K_LETTER];
  }
  (*i)++;
  *milli += (e >> 32) >= T_SLOW / 2 ? (e >> 32) - T_SLOW : e >> 32;
  return (uint32_t)e;
}

/* Non-ASCII characters from p[*i] on, up to end or the first ASCII byte (a character may run on
 * past end): the three-byte ones (CJK, Hangul) decoded and classed at once, the others by
 * slow_step. */
static uint32_t scan_high(const unsigned char *p, size_t n, size_t *i, size_t end, uint32_t row,
                          int64_t carried, int64_t *milli) {
  while (*i < end && p[*i] >= 0x80) {
    size_t j = *i;
    uint32_t b = p[j], cp;
    int64_t e;

    if ((b & 0xF0) != 0xE0 || j + 2 >= n || (p[j + 1] & 0xC0) != 0x80 ||
        (p[j + 2] & 0xC0) != 0x80) {
      row = slow_step(p, n, i, row, carried, milli);
      continue;
    }
    cp = (b & 0x0F) << 12 | (uint32_t)(p[j + 1] & 0x3F) << 6 | (p[j + 2] & 0x3F);
    e = trans_high[row / T_COLS][script_by16[cp / 16] - K_LETTER];
    *milli += e >> 32;
    row = (uint32_t)e;
    *i = j + 3;
  }
  return row;
}

/* Bytes p[*i..end) one at a time (end <= n; a character may run on past it). */
static uint32_t scan_slowly(const unsigned char *p, size_t n, size_t *i, size_t end, uint32_t row,
                            int64_t carried, int64_t *milli) {
  while (*i < end)
    row = slow_step(p, n, i, row, carried, milli);
  return row;
}

void token_counter_init(TokenCounter *c) {
  memset(c, 0, sizeof *c);
  pthread_once(&trans_once, trans_init);
}

/* A scan over p[i..end): its state, its estimate so far, and the tabs carried into it from an
 * earlier piece (see blank_tabs). */
typedef struct {
  size_t i, end;
  uint32_t row;
  int64_t milli, carried;
  bool was_slow;
} Scan;

/* One chunk of T_CHUNK bytes at sc->i (sc->i + T_CHUNK <= sc->end). */
static inline __attribute__((always_inline)) void scan_chunk(const unsigned char *p, size_t n,
                                                             Scan *sc) {
  uint32_t r = sc->row;
  int64_t sum = 0, delta;

  /* In text of other scripts (CJK), after a slow chunk, a run of non-ASCII characters is
   * taken at once, character by character. */
  if (sc->was_slow && p[sc->i] >= 0x80) {
    sc->row = scan_high(p, n, &sc->i, sc->end, sc->row, sc->carried, &sc->milli);
    return;
  }
  /* Eight steps, each a lookup and an addition; then their changes at once. */
#pragma GCC unroll 8
  for (size_t k = 0; k < T_CHUNK; k++) {
    int64_t e = trans[r + column[p[sc->i + k]]];

    sum += e;
    r = (uint32_t)e;
  }
  delta = sum >> 32; /* the rows' sum, below 2^32, falls off: the changes' sum is exact */
  if (__builtin_expect(delta < T_SLOW / 2, 1)) {
    sc->milli += delta;
    sc->row = r;
    sc->i += T_CHUNK;
    sc->was_slow = false;
  } else {
    sc->row = scan_slowly(p, n, &sc->i, sc->i + T_CHUNK, sc->row, sc->carried, &sc->milli);
    sc->was_slow = true;
  }
}

/* The rest of a scan: whole chunks, then the last bytes one step each, the slow ones apart.
 * scan_chunk's steps on locals: p may alias *sc, whose fields would be stored and loaded again
 * at every chunk (short pieces, a line at a time, spend their time here). */
static inline __attribute__((always_inline)) void scan_finish(const unsigned char *p, size_t n,
                                                              Scan *sc) {
  size_t i = sc->i, end = sc->end;
  uint32_t row = sc->row;
  int64_t milli = sc->milli, carried = sc->carried;
  bool was_slow = sc->was_slow;

  while (i + T_CHUNK <= end) {
    uint32_t r = row;
    int64_t sum = 0, delta;

    if (was_slow && p[i] >= 0x80) {
      row = scan_high(p, n, &i, end, row, carried, &milli);
      continue;
    }
#pragma GCC unroll 8
    for (size_t k = 0; k < T_CHUNK; k++) {
      int64_t e = trans[r + column[p[i + k]]];

      sum += e;
      r = (uint32_t)e;
    }
    delta = sum >> 32;
    if (__builtin_expect(delta < T_SLOW / 2, 1)) {
      milli += delta;
      row = r;
      i += T_CHUNK;
      was_slow = false;
    } else {
      row = scan_slowly(p, n, &i, i + T_CHUNK, row, carried, &milli);
      was_slow = true;
    }
  }
  while (i < end) {
    int64_t e = trans[row + column[p[i]]];

    if (__builtin_expect((e >> 32) >= T_SLOW / 2, 0)) {
      row = slow_step(p, n, &i, row, carried, &milli);
      continue;
    }
    milli += e >> 32;
    row = (uint32_t)e;
    i++;
  }
  sc->i = i;
  sc->row = row;
  sc->milli = milli;
  sc->was_slow = was_slow;
}

/* A piece this long is scanned as T_SCANS pieces at once, each cut after a line break. */
#define T_SCANS 3
#define T_SCANS_MIN 4096

/* How many scans side by side: three, or two for text mostly of other scripts (CJK), whose
 * characters take a slow step each that three scans make the core mispredict more than they
 * overlap (Japanese: 700-760 MB/s with two, 500-560 with three). 64 bytes at four places
 * decide (n is at least T_SCANS_MIN). */
static size_t scans_for(const unsigned char *p, size_t n) {
  size_t high = 0;

  for (size_t at = 0; at < 4; at++)
    for (size_t i = at * (n / 4); i < at * (n / 4) + 64; i++)
      high += p[i] >= 0x80;
  return high * 4 > 4 * 64 ? 2 : T_SCANS;
}

void token_counter_feed(TokenCounter *c, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  int64_t carried = is_blank_state(c->row / T_COLS) ? c->tabs : 0;
  Scan sc[T_SCANS] = {
      {.i = 0, .end = n, .row = (uint32_t)c->row, .milli = c->milli, .carried = carried}};
  size_t k = 1;

  /* Each lookup waits for the state the one before gave: scans side by side, each its own
   * chain of lookups, overlap their waits (on Go source three go about 1.4 times as fast as
   * two, nearly 3 times as fast as one). After a line break the state is S_NONE whatever came
   * before (the estimate is additive over lines), so a piece starts there; its first character
   * cannot be part of one in the piece before. */
  for (size_t want = n >= T_SCANS_MIN ? scans_for(p, n) : 1; k < want; k++) {
    size_t from = MAX(k * (n / T_SCANS), sc[k - 1].i + 1);
    const unsigned char *nl = from < n ? memchr(p + from, '\n', n - from) : NULL;

    if (nl == NULL || (size_t)(nl - p) + 1 >= n)
      break;
    sc[k] = (Scan){.i = (size_t)(nl - p) + 1, .end = n, .row = S_NONE * T_COLS};
    sc[k - 1].end = sc[k].i;
  }
  _Static_assert(T_SCANS == 3, "the loops below scan three pieces at most");
  if (k == 3) {
    while (sc[0].i + T_CHUNK <= sc[0].end && sc[1].i + T_CHUNK <= sc[1].end &&
           sc[2].i + T_CHUNK <= sc[2].end) {
      scan_chunk(p, n, &sc[0]);
      scan_chunk(p, n, &sc[1]);
      scan_chunk(p, n, &sc[2]);
    }
  } else if (k == 2) {
    while (sc[0].i + T_CHUNK <= sc[0].end && sc[1].i + T_CHUNK <= sc[1].end) {
      scan_chunk(p, n, &sc[0]);
      scan_chunk(p, n, &sc[1]);
    }
  }
  for (size_t j = 0; j < k; j++) {
    scan_finish(p, n, &sc[j]);
    if (j > 0) {
      sc[0].milli += sc[j].milli;
      sc[0].row = sc[j].row;
    }
  }
  /* A run of blanks going on: its tabs, for a line break in the next piece. */
  c->tabs = is_blank_state((int)(sc[0].row / T_COLS)) ? blank_tabs(p, n, carried) : 0;
  c->milli = sc[0].milli;
  c->row = (int)sc[0].row;
}

int64_t token_counter_milli(const TokenCounter *c) {
  int st = c->row / T_COLS;

  /* A run of blanks at the end counts as one before anything but a word or a line break. */
  return c->milli + (is_blank_state(st) ? blank_end(st, K_OTHER) : 0);
}

int64_t tokens_text_milli(const char *s, size_t n) {
  TokenCounter c;

  if (n == 0)
    return 0;
  token_counter_init(&c);
  token_counter_feed(&c, s, n);
  return token_counter_milli(&c);
}

/* Every step of the scan takes a byte or more and adds at most byte_bound (a line break after
 * tabs takes some back), and the end adds at most end_bound. */
int64_t tokens_text_bound_milli(size_t n) {
  pthread_once(&trans_once, trans_init);
  return (int64_t)n * byte_bound + end_bound;
}

int64_t tokens_from_milli(int64_t milli) {
  return milli <= 0 ? 0 : (milli + 999) / 1000;
}

int64_t tokens_text(const char *s, size_t n) {
  return tokens_from_milli(tokens_text_milli(s, n));
}

int64_t tokens_str(const char *s) {
  return s == NULL ? 0 : tokens_text(s, strlen(s));
}

int64_t tokens_image_anthropic(int width, int height) {
  if (width <= 0 || height <= 0)
    return 0;
  return ((int64_t)width * height + 749) / 750;
}

int64_t tokens_image_openai(int width, int height, int low_detail) {
  double w = width, h = height, scale;
  int64_t tiles_w, tiles_h;

  if (low_detail)
    return 85;
  if (width <= 0 || height <= 0)
    return 0;
  /* First into a 2048 x 2048 square, then the short side down to 768 px: never enlarged. */
  scale = 2048.0 / (w > h ? w : h);
  if (scale < 1) {
    w *= scale;
    h *= scale;
  }
  scale = 768.0 / (w < h ? w : h);
  if (scale < 1) {
    w *= scale;
    h *= scale;
  }
  tiles_w = ((int64_t)w + 511) / 512;
  tiles_h = ((int64_t)h + 511) / 512;
  return 85 + 170 * tiles_w * tiles_h;
}

int64_t tokens_image(const TokensPricing *p, int width, int height) {
  if (p->images == TOKENS_IMAGES_OPENAI)
    return tokens_image_openai(width, height, p->low_detail);
  if (p->images == TOKENS_IMAGES_NONE)
    return 0;
  return tokens_image_anthropic(width, height);
}
