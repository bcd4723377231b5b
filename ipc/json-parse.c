/* Strict JSON checked before json-glib parses it; see json-parse.h.
 *
 * The validator is a state machine over the bytes with a bit stack of the open containers
 * (object or array): no recursion, one pass, nothing allocated unless an escape must be
 * replaced. Besides what plain JSON forbids, it keeps from json-glib what json-glib's lexer
 * mishandles: after a \u escape that is not a complete surrogate pair it swallows the next
 * character, even the closing quote (it would then see strings where JSON has none, and
 * brackets in them), and it cuts a string at \u0000. Those escapes are replaced by \ufffd, the
 * same six bytes, in a copy that json-glib parses instead. */
#include "ipc/json-parse.h"
#include "ipc/json-parse-internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "basic/utf8.h"

typedef enum {
  EXPECT_VALUE,       /* the root, an array element after ',', a member value after ':' */
  EXPECT_FIRST_VALUE, /* just after '[': a value or ']' */
  EXPECT_KEY,         /* after ',' in an object: a member name */
  EXPECT_FIRST_KEY,   /* just after '{': a member name or '}' */
  EXPECT_COLON,       /* after a member name */
  EXPECT_NEXT,        /* after a value inside a container: ',' or the container's close */
  EXPECT_END,         /* after the root value: only whitespace */
} Expect;

typedef struct {
  const char *s;
  size_t len;
  size_t i;
  unsigned depth;
  unsigned max_depth;
  uint64_t objects[JSON_PARSE_DEPTH_CAP / 64]; /* bit d: the container at level d+1 is an object */
  Expect expect;
  char *fixed; /* a copy of s with mangled escapes replaced, or NULL */
  const char *error;
  JsonParseNote note;
} Scan;

static bool top_is_object(const Scan *sc) {
  unsigned d = sc->depth - 1;

  return (sc->objects[d / 64] >> (d % 64)) & 1;
}

static void note_value(Scan *sc, const char *message) {
  if (sc->note.value_error == NULL || sc->depth < sc->note.value_depth) {
    sc->note.value_error = message;
    sc->note.value_depth = sc->depth;
  }
}

/* The value of the "\uXXXX" escape at s[i], or -1 when there is none. */
static long unicode_escape(const char *s, size_t len, size_t i) {
  long v = 0;

  if (len - i < 6 || s[i] != '\\' || s[i + 1] != 'u')
    return -1;
  for (size_t k = i + 2; k < i + 6; k++) {
    int d = g_ascii_xdigit_value(s[k]);

    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

/* The \u escape at s[i] (and the low half of a pair after it); returns the index after it, or
 * SIZE_MAX with an error. */
static size_t scan_unicode(Scan *sc, size_t i) {
  long cp = unicode_escape(sc->s, sc->len, i);
  long low;

  if (cp < 0) {
    sc->error = "malformed \\u escape";
    return SIZE_MAX;
  }
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    low = unicode_escape(sc->s, sc->len, i + 6);
    if (low >= 0xDC00 && low <= 0xDFFF)
      return i + 12;
  }
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
    note_value(sc, cp == 0 ? "strings must not contain U+0000"
                           : "strings must not contain unpaired surrogates");
    if (sc->fixed == NULL)
      sc->fixed = g_memdup2(sc->s, sc->len);
    memcpy(sc->fixed + i, "\\ufffd", 6);
  }
  return i + 6;
}

/* The first index from i on whose byte ends a run of plain string bytes: a quote, a backslash
 * or a control character; len when there is none. 16 bytes at a time where SSE2 is. */
static size_t plain_run(const char *s, size_t len, size_t i) {
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);

  for (; len - i >= 16; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
    __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                _mm_cmpeq_epi8(_mm_min_epu8(v, control), v));
    int mask = _mm_movemask_epi8(stop);

    if (mask != 0)
      return i + (size_t)__builtin_ctz((unsigned)mask);
  }
#endif
  for (; i < len; i++) {
    unsigned char c = (unsigned char)s[i];

    if (c == '"' || c == '\\' || c < 0x20)
      return i;
  }
  return len;
}

/* A string whose opening quote is at s[i]; returns the index after its closing quote, or
 * SIZE_MAX with an error. The text is valid UTF-8 without NUL bytes already. */
static size_t scan_string(Scan *sc, size_t i) {
  const char *s = sc->s;

  for (i++; i < sc->len;) {
    unsigned char c;

    i = plain_run(s, sc->len, i);
    if (i >= sc->len)
      break;
    c = (unsigned char)s[i];

    if (c == '"')
      return i + 1;
    if (c < 0x20) {
      sc->error = "control character in a string (it must be escaped)";
      return SIZE_MAX;
    }
    if (c != '\\') {
      i++;
      continue;
    }
    if (i + 1 >= sc->len)
      break;
    if (s[i + 1] == 'u') {
      i = scan_unicode(sc, i);
      if (i == SIZE_MAX)
        return SIZE_MAX;
    } else if (strchr("\"\\/bfnrt", s[i + 1]) != NULL && s[i + 1] != '\0') {
      i += 2;
    } else {
      sc->error = "invalid escape in a string";
      return SIZE_MAX;
    }
  }
  sc->error = "unterminated string";
  return SIZE_MAX;
}

static size_t skip_digits(const char *s, size_t len, size_t i) {
  while (i < len && g_ascii_isdigit(s[i]))
    i++;
  return i;
}

/* A number at s[i] by JSON's grammar; returns the index after it, or SIZE_MAX with an error.
 * An integer outside the 64-bit range is noted. */
static size_t scan_number(Scan *sc, size_t i) {
  const char *s = sc->s;
  size_t len = sc->len, digits, end;
  bool negative = s[i] == '-', integral = true;

  if (negative)
    i++;
  digits = i;
  end = skip_digits(s, len, i);
  if (end == digits || (s[digits] == '0' && end - digits > 1))
    goto malformed;
  i = end;
  if (i < len && s[i] == '.') {
    integral = false;
    end = skip_digits(s, len, i + 1);
    if (end == i + 1)
      goto malformed;
    i = end;
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    integral = false;
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-'))
      i++;
    end = skip_digits(s, len, i);
    if (end == i)
      goto malformed;
    i = end;
  }
  if (integral) {
    size_t n = i - digits;
    const char *max = negative ? "9223372036854775808" : "9223372036854775807";

    if (n > 19 || (n == 19 && memcmp(s + digits, max, 19) > 0))
      note_value(sc, "integers must fit in 64 bits");
  }
  return i;

malformed:
  sc->error = "malformed number";
  return SIZE_MAX;
}

/* true, false or null at s[i]; returns the index after it, or SIZE_MAX with an error. */
static size_t scan_literal(Scan *sc, size_t i) {
  static const char *const literals[] = {"true", "false", "null"};

  for (size_t k = 0; k < G_N_ELEMENTS(literals); k++) {
    size_t n = strlen(literals[k]);

    if (sc->len - i >= n && memcmp(sc->s + i, literals[k], n) == 0)
      return i + n;
  }
  sc->error = "expected a value";
  return SIZE_MAX;
}

static void after_value(Scan *sc) {
  sc->expect = sc->depth == 0 ? EXPECT_END : EXPECT_NEXT;
}

static void open_container(Scan *sc, bool object) {
  unsigned d = sc->depth;

  if (d >= sc->max_depth) {
    sc->error = "arrays and objects are nested too deeply";
    return;
  }
  if (object)
    sc->objects[d / 64] |= UINT64_C(1) << (d % 64);
  else
    sc->objects[d / 64] &= ~(UINT64_C(1) << (d % 64));
  sc->depth++;
  sc->i++;
  sc->expect = object ? EXPECT_FIRST_KEY : EXPECT_FIRST_VALUE;
}

static void close_container(Scan *sc) {
  sc->depth--;
  sc->i++;
  after_value(sc);
}

/* A value starting at s[i] (not whitespace). */
static void scan_value(Scan *sc) {
  char c = sc->s[sc->i];
  size_t end;

  if (c == '{' || c == '[') {
    open_container(sc, c == '{');
    return;
  }
  if (c == '"')
    end = scan_string(sc, sc->i);
  else if (c == '-' || g_ascii_isdigit(c))
    end = scan_number(sc, sc->i);
  else
    end = scan_literal(sc, sc->i);
  if (end == SIZE_MAX)
    return;
  sc->i = end;
  after_value(sc);
}

/* One token at s[i] (not whitespace), by what is expected there. */
static void scan_token(Scan *sc) {
  char c = sc->s[sc->i];
  char close = sc->depth > 0 && top_is_object(sc) ? '}' : ']';
  size_t end;

  switch (sc->expect) {
  case EXPECT_FIRST_VALUE:
    if (c == ']') {
      close_container(sc);
      return;
    }
    /* fall through */
  case EXPECT_VALUE:
    scan_value(sc);
    return;
  case EXPECT_FIRST_KEY:
    if (c == '}') {
      close_container(sc);
      return;
    }
    /* fall through */
  case EXPECT_KEY:
    if (c != '"') {
      sc->error = "expected a member name in double quotes";
      return;
    }
    end = scan_string(sc, sc->i);
    if (end == SIZE_MAX)
      return;
    sc->i = end;
    sc->expect = EXPECT_COLON;
    return;
  case EXPECT_COLON:
    if (c != ':') {
      sc->error = "expected ':' after a member name";
      return;
    }
    sc->i++;
    sc->expect = EXPECT_VALUE;
    return;
  case EXPECT_NEXT:
    if (c == close) {
      close_container(sc);
    } else if (c == ',') {
      sc->i++;
      sc->expect = close == '}' ? EXPECT_KEY : EXPECT_VALUE;
    } else {
      sc->error = close == '}' ? "expected ',' or '}'" : "expected ',' or ']'";
    }
    return;
  case EXPECT_END:
    sc->error = "unexpected data after the JSON value";
    return;
  }
}

static void scan(Scan *sc) {
  while (sc->error == NULL) {
    while (sc->i < sc->len &&
           (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\n' || sc->s[sc->i] == '\r' ||
            sc->s[sc->i] == '\t'))
      sc->i++;
    if (sc->i >= sc->len)
      break;
    scan_token(sc);
  }
  if (sc->error == NULL && sc->expect != EXPECT_END)
    sc->error = sc->i == 0 || (sc->depth == 0 && sc->expect == EXPECT_VALUE)
                    ? "no JSON value"
                    : "the JSON ends in the middle of a value";
}

/* "line L, column C: reason" for an error at byte `at` of s. */
static char *describe(const char *s, size_t at, const char *reason) {
  size_t line = 1, column = 1;

  for (size_t k = 0; k < at; k++) {
    if (s[k] == '\n') {
      line++;
      column = 1;
    } else if (((unsigned char)s[k] & 0xC0) != 0x80) {
      column++;
    }
  }
  return g_strdup_printf("line %zu, column %zu: %s", line, column, reason);
}

/* Runs the validator over data; on success sc holds the copy to parse, if any. */
static int validate(Scan *sc, const char *data, size_t len, unsigned max_depth,
                    char **ret_error) {
  size_t valid;

  memset(sc, 0, sizeof *sc);
  if (data == NULL)
    data = "";
  sc->s = data;
  sc->len = len;
  sc->max_depth = MIN(max_depth, JSON_PARSE_DEPTH_CAP);
  if (memchr(data, '\0', len) != NULL) {
    sc->error = "the JSON contains a NUL byte";
    sc->i = (size_t)((const char *)memchr(data, '\0', len) - data);
  } else if ((valid = utf8_valid_prefix((const uint8_t *)data, len)) < len) {
    sc->error = "the JSON is not valid UTF-8";
    sc->i = valid;
  } else {
    scan(sc);
  }
  if (sc->error == NULL)
    return 0;
  if (ret_error != NULL)
    *ret_error = describe(data, MIN(sc->i, len), sc->error);
  g_clear_pointer(&sc->fixed, g_free);
  return -EBADMSG;
}

int json_parse_validate(const char *data, size_t len, unsigned max_depth, char **ret_error) {
  Scan sc;
  int r = validate(&sc, data, len, max_depth, ret_error);

  g_free(sc.fixed);
  return r;
}

/* The bounded parse, with the root member `name` (NULL: none) left out when the builder runs. */
static int parse_except(const char *data, size_t len, unsigned max_depth, const char *name,
                        JsonNode **ret_root, size_t *ret_at, size_t *ret_len,
                        JsonParseNote *ret_note, char **ret_error) {
  g_autofree char *fixed = NULL;
  Scan sc;

  *ret_root = NULL;
  *ret_at = *ret_len = 0;
  if (ret_note != NULL)
    memset(ret_note, 0, sizeof *ret_note);
  if (len > G_MAXSSIZE) {
    *ret_error = g_strdup("the JSON is too large");
    return -EBADMSG;
  }
  if (validate(&sc, data, len, max_depth, ret_error) < 0)
    return -EBADMSG;
  fixed = g_steal_pointer(&sc.fixed);
  if (ret_note != NULL)
    *ret_note = sc.note;

  /* Text with a noted value (rare) goes to json-glib, whose wrapping of a large integer the
   * callers see as it always was; the rest is built directly. */
  if (sc.note.value_error != NULL)
    *ret_root = json_tree_glib(fixed != NULL ? fixed : sc.s, sc.len, ret_error);
  else if (name == NULL)
    *ret_root = json_tree_build(sc.s, sc.len);
  else
    *ret_root = json_tree_build_except(sc.s, sc.len, name, ret_at, ret_len);
  return *ret_root != NULL ? 0 : -EBADMSG;
}

int json_parse_bounded_note(const char *data, size_t len, unsigned max_depth, JsonNode **ret_root,
                            JsonParseNote *ret_note, char **ret_error) {
  size_t at, n;

  return parse_except(data, len, max_depth, NULL, ret_root, &at, &n, ret_note, ret_error);
}

int json_parse_bounded_except(const char *data, size_t len, unsigned max_depth, const char *name,
                              JsonNode **ret_root, size_t *ret_at, size_t *ret_len,
                              JsonParseNote *ret_note, char **ret_error) {
  return parse_except(data, len, max_depth, name, ret_root, ret_at, ret_len, ret_note, ret_error);
}

int json_parse_bounded(const char *data, size_t len, unsigned max_depth, JsonNode **ret_root,
                       char **ret_error) {
  return json_parse_bounded_note(data, len, max_depth, ret_root, NULL, ret_error);
}
