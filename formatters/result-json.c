#include "formatters/result-json.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "basic/path-bytes.h"

/* U+FFFD REPLACEMENT CHARACTER, written for bytes that are not UTF-8. */
#define REPLACEMENT "\xEF\xBF\xBD"

/* What follows the backslash for each ASCII byte a JSON string escapes: the letter of the
 * two-character forms, 'u' for the other controls (\u00XX), 0 for bytes that go as they are. */
/* clang-format off */
static const char json_short[128] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
    ['"'] = '"', ['\\'] = '\\',
};
/* clang-format on */

/* Input bytes escaped per step when the string has little room left: the room reserved for a
 * step is six times its input (every byte a \u00XX) plus ESCAPE_SLACK. */
#define ESCAPE_STEP 4096
/* Room past a step's worst case: the block copies below store 16 bytes at a time. */
#define ESCAPE_SLACK 32

/* 1 for the bytes a JSON string carries as they are: printable ASCII but '"' and '\\'. */
/* clang-format off */
static const uint8_t json_plain[256] = {
    [0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20-0x2f, '"' = 0x22 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x30-0x3f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x40-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,         /* 0x50-0x5f, '\\' = 0x5c */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x60-0x6f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,         /* 0x70-0x7f */
};
/* clang-format on */

/* Writes the escape of ASCII byte c (one JSON escapes) at o; returns the end. */
static inline char *escape_ascii(char *o, unsigned char c) {
  static const char hex[] = "0123456789abcdef";
  char e = json_short[c];

  o[0] = '\\';
  o[1] = e;
  if (G_LIKELY(e != 'u'))
    return o + 2;
  o[2] = '0';
  o[3] = '0';
  o[4] = hex[c >> 4];
  o[5] = hex[c & 15];
  return o + 6;
}

#ifdef __SSE2__
/* The bytes of v that need a look, as a vector of 0xff lanes: a signed compare with 0x20 catches
 * controls and non-ASCII at once. */
static inline __m128i json_stops_vec(__m128i v) {
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
                bslash = _mm_set1_epi8('\\');

  return _mm_or_si128(_mm_cmplt_epi8(v, space),
                      _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)));
}

/* The same as a bit mask, bit j for byte j. */
static inline unsigned json_stops(__m128i v) {
  return (unsigned)_mm_movemask_epi8(json_stops_vec(v));
}

/* Escapes the 16 ASCII bytes at p, whose bytes that need a look are the bits of mask (not 0),
 * at o; returns the end. The escapes are written one at a time: between two, the block's bytes
 * from the last escape on are stored whole (16 at a time, so p[0..32) must be readable) and the
 * cursor moves by the plain part. */
static inline char *escape_block_each(char *o, const unsigned char *p, unsigned mask) {
  unsigned prev = 0;

  do {
    unsigned j = (unsigned)__builtin_ctz(mask);

    _mm_storeu_si128((__m128i *)(void *)o,
                     _mm_loadu_si128((const __m128i *)(const void *)(p + prev)));
    o = escape_ascii(o + (j - prev), p[j]);
    prev = j + 1;
    mask &= mask - 1;
  } while (mask != 0);
  _mm_storeu_si128((__m128i *)(void *)o,
                   _mm_loadu_si128((const __m128i *)(const void *)(p + prev)));
  return o + 16 - prev;
}

/* Escapes whole 16-byte blocks of ASCII from u[*i] while *i + 16 <= end (and 32 bytes can be
 * loaded: *i + 32 <= len), returning the new o; stops at a block with non-ASCII bytes. */
static char *escape_blocks(char *o, const unsigned char *u, size_t *i, size_t end, size_t len) {
  size_t k = *i;

  while (k + 16 <= end && k + 32 <= len) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + k));
    unsigned mask = json_stops(v);

    _mm_storeu_si128((__m128i *)(void *)o, v);
    if (mask == 0) {
      o += 16;
      k += 16;
      continue;
    }
    if (_mm_movemask_epi8(v) != 0)
      break;
    o = escape_block_each(o, u + k, mask);
    k += 16;
  }
  *i = k;
  return o;
}
#endif

/* SSSE3's pshufb writes a block whose escapes all have a short form in one go, and AVX2 two
 * blocks at once; chosen at run time, as the build targets baseline x86-64. */
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define ESCAPE_SHUFFLE 1
#include <immintrin.h>

/* For each mask m of the bytes of an 8-byte half that take a short escape: the pshufb indices
 * that write the half from a vector holding the half with '\\' in place of those bytes (lanes
 * 0-7) and their letters (lanes 8-15), each such byte becoming '\\' and its letter; and the
 * length that writes, 8 plus the bits of m. Filled once (escape_best()). */
static uint8_t escape_shuffle[256][16] __attribute__((aligned(16)));
static uint8_t escape_shuffle_len[256];

/* The shuffle of mask m, as a vector. */
static inline __m128i escape_shuffle_of(unsigned m) {
  return _mm_load_si128((const __m128i *)(const void *)escape_shuffle[m]);
}

static void escape_shuffle_fill(void) {
  for (unsigned m = 0; m < 256; m++) {
    unsigned p = 0;

    memset(escape_shuffle[m], 0x80, sizeof(escape_shuffle[m]));
    for (unsigned j = 0; j < 8; j++) {
      escape_shuffle[m][p++] = (uint8_t)j;
      if (m & (1u << j))
        escape_shuffle[m][p++] = (uint8_t)(8 + j);
    }
    escape_shuffle_len[m] = (uint8_t)p;
  }
}

/* The letters of the short escapes of the controls below 0x10 (\b \t \n \f \r), by low nibble. */
#define CTL_LETTERS 0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r', 0, 0

/* Escapes the 16 bytes at p, whose bytes that need a look are the bits of mask (not 0), at *o
 * when they are ASCII; returns false, writing nothing, when they are not. A block whose escapes
 * all have a short form (\t \n \r \b \f \" \\: code's tabs, newlines and quotes) is written
 * without a loop over its escapes: the letters are looked up with pshufb, the escaped bytes
 * become '\\' (the largest byte that can be escaped, hence max), and each 8-byte half is spread
 * out with the shuffle of its mask. A block of ASCII with a \u00XX escape goes one escape at
 * a time when p[0..32) can be read (end_ok), and is left (false) when not. */
static inline __attribute__((target("ssse3"), always_inline)) bool
escape_block_ssse3(char **o, const unsigned char *p, __m128i v, __m128i stops, unsigned mask,
                   bool end_ok) {
  const __m128i ctl = _mm_setr_epi8(CTL_LETTERS), bslash = _mm_set1_epi8('\\');
  __m128i quotes = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, bslash));
  /* Non-ASCII bytes are below 0x10 signed, and pshufb gives 0 for them. */
  __m128i letters =
      _mm_or_si128(_mm_and_si128(_mm_shuffle_epi8(ctl, v), _mm_cmplt_epi8(v, _mm_set1_epi8(0x10))),
                   _mm_and_si128(v, quotes));
  __m128i first;

  if (((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(letters, _mm_setzero_si128())) & mask) != 0) {
    if (_mm_movemask_epi8(v) != 0 || !end_ok)
      return false;
    *o = escape_block_each(*o, p, mask);
    return true;
  }
  first = _mm_max_epu8(v, _mm_and_si128(stops, bslash));
  _mm_storeu_si128((__m128i *)(void *)*o, _mm_shuffle_epi8(_mm_unpacklo_epi64(first, letters),
                                                           escape_shuffle_of(mask & 255)));
  *o += escape_shuffle_len[mask & 255];
  _mm_storeu_si128((__m128i *)(void *)*o, _mm_shuffle_epi8(_mm_unpackhi_epi64(first, letters),
                                                           escape_shuffle_of(mask >> 8)));
  *o += escape_shuffle_len[mask >> 8];
  return true;
}

/* escape_blocks() with escape_block_ssse3(): 16-byte blocks while *i + 16 <= end; only the
 * blocks that go one escape at a time need *i + 32 <= len. */
static __attribute__((target("ssse3"))) char *
escape_blocks_ssse3(char *o, const unsigned char *u, size_t *i, size_t end, size_t len) {
  size_t k = *i;

  while (k + 16 <= end) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + k));
    __m128i stops = json_stops_vec(v);
    unsigned mask = (unsigned)_mm_movemask_epi8(stops);

    if (mask == 0) {
      _mm_storeu_si128((__m128i *)(void *)o, v);
      o += 16;
    } else if (!escape_block_ssse3(&o, u + k, v, stops, mask, k + 32 <= len)) {
      break;
    }
    k += 16;
  }
  *i = k;
  return o;
}

/* The same 32 bytes at a time: the letters and the masks of four halves at once, their
 * shuffles two by two. A 32-byte block with a \u00XX escape or non-ASCII bytes, and the last
 * 16, go through escape_blocks_ssse3(). */
static __attribute__((target("avx2"))) char *escape_blocks_avx2(char *o, const unsigned char *u,
                                                                size_t *i, size_t end, size_t len) {
  const __m256i ctl = _mm256_setr_epi8(CTL_LETTERS, CTL_LETTERS), bslash = _mm256_set1_epi8('\\');
  const __m256i space = _mm256_set1_epi8(0x20), sixteen = _mm256_set1_epi8(0x10),
                quote = _mm256_set1_epi8('"');
  size_t k = *i;

  while (k + 32 <= end) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(u + k));
    __m256i quotes = _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, bslash));
    __m256i stops = _mm256_or_si256(_mm256_cmpgt_epi8(space, v), quotes);
    unsigned mask = (unsigned)_mm256_movemask_epi8(stops);
    __m256i letters, first, lo, hi;

    if (mask == 0) {
      _mm256_storeu_si256((__m256i *)(void *)o, v);
      o += 32;
      k += 32;
      continue;
    }
    letters = _mm256_or_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(ctl, v), _mm256_cmpgt_epi8(sixteen, v)),
        _mm256_and_si256(v, quotes));
    if (((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(letters, _mm256_setzero_si256())) &
         mask) != 0) {
      size_t stop = k + 32;

      o = escape_blocks_ssse3(o, u, &k, stop, len);
      if (k < stop) {
        *i = k; /* non-ASCII bytes, or the last bytes of s: the caller takes them */
        return o;
      }
      continue;
    }
    first = _mm256_max_epu8(v, _mm256_and_si256(stops, bslash));
    /* pshufb works within each 16-byte lane: lo holds halves 0 and 2, hi halves 1 and 3. */
    lo = _mm256_shuffle_epi8(
        _mm256_unpacklo_epi64(first, letters),
        _mm256_setr_m128i(escape_shuffle_of(mask & 255), escape_shuffle_of((mask >> 16) & 255)));
    hi = _mm256_shuffle_epi8(
        _mm256_unpackhi_epi64(first, letters),
        _mm256_setr_m128i(escape_shuffle_of((mask >> 8) & 255), escape_shuffle_of(mask >> 24)));
    _mm_storeu_si128((__m128i *)(void *)o, _mm256_castsi256_si128(lo));
    o += escape_shuffle_len[mask & 255];
    _mm_storeu_si128((__m128i *)(void *)o, _mm256_castsi256_si128(hi));
    o += escape_shuffle_len[(mask >> 8) & 255];
    _mm_storeu_si128((__m128i *)(void *)o, _mm256_extracti128_si256(lo, 1));
    o += escape_shuffle_len[(mask >> 16) & 255];
    _mm_storeu_si128((__m128i *)(void *)o, _mm256_extracti128_si256(hi, 1));
    o += escape_shuffle_len[mask >> 24];
    k += 32;
  }
  *i = k;
  return escape_blocks_ssse3(o, u, i, end, len);
}
#endif

/* Copies the bytes a JSON string carries as they are from p to o, stopping at the first that
 * needs a look (at most n); returns how many. With simd, 16 bytes at a time: each block is
 * stored whole before its look (o has room for n bytes and more), and the cursor moves by its
 * plain part. */
static inline size_t json_copy_plain(char *o, const unsigned char *p, size_t n, bool simd) {
  size_t i = 0;
#ifdef __SSE2__
  for (; simd && i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    unsigned mask = json_stops(v);

    _mm_storeu_si128((__m128i *)(void *)(o + i), v);
    if (mask != 0)
      return i + (size_t)__builtin_ctz(mask);
  }
#else
  (void)simd;
#endif
  for (; i < n && json_plain[p[i]]; i++)
    o[i] = (char)p[i];
  return i;
}

/* Input bytes the next step may take without gs growing (0 when it must grow). */
static size_t escape_room(const GString *gs) {
  size_t free = gs->allocated_len - gs->len - 1; /* the NUL */

  return free > ESCAPE_SLACK ? (free - ESCAPE_SLACK) / 6 : 0;
}

/* The paths this CPU has (bits by ResultJsonEscapePath) and the fastest of them, chosen once
 * (escape_choose), which also fills the shuffle tables. pthread_once rather than g_once:
 * ThreadSanitizer sees it (glib's futex locks are invisible to it), and every formatting
 * thread reads these. */
static unsigned escape_have;
static ResultJsonEscapePath escape_fastest;
static pthread_once_t escape_once = PTHREAD_ONCE_INIT;

static void escape_choose(void) {
  unsigned paths = 1u << RESULT_JSON_ESCAPE_SCALAR;
  ResultJsonEscapePath best = RESULT_JSON_ESCAPE_SCALAR;

#ifdef __SSE2__
  paths |= 1u << RESULT_JSON_ESCAPE_SSE2;
  best = RESULT_JSON_ESCAPE_SSE2;
#endif
#ifdef ESCAPE_SHUFFLE
  escape_shuffle_fill();
  if (__builtin_cpu_supports("ssse3")) {
    paths |= 1u << RESULT_JSON_ESCAPE_SSSE3;
    best = RESULT_JSON_ESCAPE_SSSE3;
    if (__builtin_cpu_supports("avx2")) {
      paths |= 1u << RESULT_JSON_ESCAPE_AVX2;
      best = RESULT_JSON_ESCAPE_AVX2;
    }
  }
#endif
  escape_have = paths;
  escape_fastest = best;
}

static ResultJsonEscapePath escape_best(void) {
  if (pthread_once(&escape_once, escape_choose) != 0)
    abort();
  return escape_fastest;
}

/* Appends s[0..len) to gs as the inside of a JSON string through path, one this build and CPU
 * have. Works straight in gs's buffer, with room reserved per step for the worst case (every
 * byte a \u00XX): a step takes what the room already allocated allows, so that gs grows only
 * when it is nearly full. */
static void escape_steps(GString *gs, const char *s, size_t len, ResultJsonEscapePath path) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;

  while (i < len) {
    size_t start = gs->len, room = escape_room(gs);
    size_t end = i + MIN(len - i, room >= 64 ? room : (size_t)ESCAPE_STEP);
    char *o;

    g_string_set_size(gs, start + 6 * (end - i) + ESCAPE_SLACK);
    o = gs->str + start;
    while (i < end) {
      size_t n;
      unsigned char c;

#ifdef ESCAPE_SHUFFLE
      if (path == RESULT_JSON_ESCAPE_AVX2)
        o = escape_blocks_avx2(o, u, &i, end, len);
      else if (path == RESULT_JSON_ESCAPE_SSSE3)
        o = escape_blocks_ssse3(o, u, &i, end, len);
#endif
#ifdef __SSE2__
      if (path == RESULT_JSON_ESCAPE_SSE2)
        o = escape_blocks(o, u, &i, end, len);
      if (i == end)
        break;
#endif
      n = json_copy_plain(o, u + i, end - i, path != RESULT_JSON_ESCAPE_SCALAR);
      o += n;
      i += n;
      if (i == end)
        break;
      c = u[i];
      if (c < 0x80) {
        o = escape_ascii(o, c);
        i++;
      } else if ((n = result_utf8_decode(s + i, len - i, NULL)) > 0) {
        /* A sequence that starts before `end` may run past it: ESCAPE_SLACK has room. */
        for (size_t k = 0; k < n; k++)
          o[k] = s[i + k];
        o += n;
        i += n;
      } else {
        memcpy(o, REPLACEMENT, sizeof(REPLACEMENT) - 1);
        o += sizeof(REPLACEMENT) - 1;
        i++;
      }
    }
    g_string_truncate(gs, (gsize)(o - gs->str));
  }
}

/* Appends s[0..len) to gs as the inside of a JSON string; see result-json.h. */
void result_json_escape(GString *gs, const char *s, size_t len) {
  escape_steps(gs, s, len, escape_best());
}

/* The same through a chosen path; see result-json.h. */
bool result_json_escape_with(GString *gs, const char *s, size_t len, ResultJsonEscapePath path) {
  ResultJsonEscapePath best = escape_best();

  if (path == RESULT_JSON_ESCAPE_BEST)
    path = best;
  if ((unsigned)path >= 32 || (escape_have & (1u << path)) == 0)
    return false;
  escape_steps(gs, s, len, path);
  return true;
}

/* Writes s[0..len) as a quoted JSON string into gs. */
static void json_string(GString *gs, const char *s, size_t len) {
  g_string_append_c(gs, '"');
  result_json_escape(gs, s, len);
  g_string_append_c(gs, '"');
}

/* Room a string will roughly take once escaped; only sizes the first allocation. */
static size_t json_cstring_len(const char *s) {
  return s != NULL ? strlen(s) + 8 : 2;
}

/* Members are written with a trailing comma; closing an object or array takes it back. */
static void json_close(GString *gs, char c) {
  if (gs->len > 0 && gs->str[gs->len - 1] == ',')
    gs->str[gs->len - 1] = c;
  else
    g_string_append_c(gs, c);
  g_string_append_c(gs, ',');
}

static void json_key(GString *gs, const char *key) {
  g_string_append_c(gs, '"');
  g_string_append(gs, key);
  g_string_append(gs, "\":");
}

static void json_str(GString *gs, const char *key, const char *v) {
  json_key(gs, key);
  if (v == NULL)
    v = "";
  json_string(gs, v, strlen(v));
  g_string_append_c(gs, ',');
}

static void json_int(GString *gs, const char *key, int64_t v) {
  char buf[RESULT_INT_MAX + 1];
  size_t n = result_format_int(buf, v);

  buf[n++] = ',';
  json_key(gs, key);
  g_string_append_len(gs, buf, (gssize)n);
}

static void json_bool(GString *gs, const char *key, bool v) {
  json_key(gs, key);
  g_string_append(gs, v ? "true," : "false,");
}

/* path, and pathBytes when path cannot say the name exactly (basic/path-bytes.h). */
static void json_path(GString *gs, const char *path) {
  g_autofree char *bytes = path_bytes_escape(path);

  json_str(gs, "path", path);
  if (bytes != NULL)
    json_str(gs, "pathBytes", bytes);
}

static void json_image(GString *gs, const char *path, const ImageOut *img) {
  g_string_append_c(gs, '{');
  json_path(gs, path);
  json_str(gs, "mediaType", img->media_type);
  json_key(gs, "data");
  if (img->data != NULL)
    json_string(gs, img->data, img->data_len);
  else
    g_string_append(gs, "\"\"");
  g_string_append_c(gs, ',');
  json_int(gs, "width", img->width);
  json_int(gs, "height", img->height);
  if (img->original_width > 0) {
    json_int(gs, "originalWidth", img->original_width);
    json_int(gs, "originalHeight", img->original_height);
  }
  if (img->page > 0)
    json_int(gs, "page", img->page);
  if (img->tile.count > 0) {
    json_key(gs, "tile");
    g_string_append_c(gs, '{');
    json_int(gs, "x", img->tile.x);
    json_int(gs, "y", img->tile.y);
    json_int(gs, "width", img->tile.width);
    json_int(gs, "height", img->tile.height);
    json_close(gs, '}');
    json_int(gs, "tileIndex", img->tile.index);
    json_int(gs, "tiles", img->tile.count);
  }
  if (img->cell > 0)
    json_int(gs, "cell", img->cell);
  json_close(gs, '}');
}

static void json_text_fields(GString *gs, const FileResult *f) {
  json_int(gs, "lines", f->lines);
  if (f->encoding != NULL)
    json_str(gs, "encoding", f->encoding);
  if (f->encoding_source != NULL)
    json_str(gs, "encodingSource", f->encoding_source);
  if (f->bom)
    json_bool(gs, "bom", true);
  if (f->eol != NULL)
    json_str(gs, "eol", f->eol);
  json_bool(gs, "truncated", f->truncated);
  if (f->shown_first > 0) {
    char buf[2 * RESULT_INT_MAX + 4];
    size_t n = 0;

    buf[n++] = '[';
    n += result_format_int(buf + n, f->shown_first);
    buf[n++] = ',';
    n += result_format_int(buf + n, f->shown_last);
    buf[n++] = ']';
    buf[n++] = ',';
    json_key(gs, "shown");
    g_string_append_len(gs, buf, (gssize)n);
  }
}

static void json_image_fields(GString *gs, const FileResult *f, int64_t image_index) {
  const ImageOut *img = &f->images[0];

  json_str(gs, "mediaType", img->media_type);
  json_int(gs, "image", image_index);
  json_int(gs, "width", img->width);
  json_int(gs, "height", img->height);
  if (img->original_width > 0) {
    json_int(gs, "originalWidth", img->original_width);
    json_int(gs, "originalHeight", img->original_height);
  }
  if (f->animated)
    json_bool(gs, "animated", true);
  if (img->tile.count > 0)
    json_int(gs, "tiles", img->tile.count);
}

static void json_pdf_fields(GString *gs, const FileResult *f) {
  json_int(gs, "pages", f->pages);
  json_bool(gs, "truncated", f->truncated);
  if (f->title != NULL)
    json_str(gs, "title", f->title);
  if (f->author != NULL)
    json_str(gs, "author", f->author);
}

/* A notebook or an office document: format, the count of its sections, language, and which
 * sections (or a DOCX's lines) are shown. */
static void json_section_fields(GString *gs, const FileResult *f) {
  const char *count = file_result_sections_name(f);

  if (f->format != NULL)
    json_str(gs, "format", f->format);
  if (count != NULL)
    json_int(gs, count, f->sections);
  if (f->language != NULL)
    json_str(gs, "language", f->language);
  json_bool(gs, "truncated", f->truncated);
  if (f->shown_first > 0) {
    char buf[48];
    int n = snprintf(buf, sizeof(buf), "[%" PRId64 ",%" PRId64 "],", f->shown_first, f->shown_last);

    json_key(gs, "shown");
    g_string_append_len(gs, buf, n);
  }
}

/* A plan entry or a file the budget left out: what is known of it, without its content. */
static void json_listed_fields(GString *gs, const FileResult *f) {
  json_int(gs, "tokensTotal", f->tokens_total);
  if (f->type == FILE_TYPE_TEXT && f->lines >= 0)
    json_int(gs, "lines", f->lines);
  if (f->encoding != NULL)
    json_str(gs, "encoding", f->encoding);
  if (f->type == FILE_TYPE_PDF && f->pages > 0)
    json_int(gs, "pages", f->pages);
  if (f->type == FILE_TYPE_IMAGE && f->width > 0) {
    json_int(gs, "width", f->width);
    json_int(gs, "height", f->height);
  }
  if (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT) {
    const char *count = file_result_sections_name(f);

    if (f->format != NULL)
      json_str(gs, "format", f->format);
    if (count != NULL)
      json_int(gs, count, f->sections);
    if (f->type == FILE_TYPE_DOCUMENT && f->lines > 0)
      json_int(gs, "lines", f->lines);
  }
}

/* files[i]: the keys in the order of the contract, each only when it is set. */
static void json_file(GString *gs, const FileResult *f, int64_t image_index) {
  const char *type = file_type_name(f->type);

  g_string_append_c(gs, '{');
  json_path(gs, f->path);
  if (type != NULL)
    json_str(gs, "type", type);
  if (f->code != NULL) {
    json_str(gs, "code", f->code);
    json_str(gs, "error", f->error);
  }
  if (f->expanded)
    json_int(gs, "from", (int64_t)f->from);
  if (f->omitted != NULL)
    json_str(gs, "omitted", f->omitted);
  if (f->bytes >= 0)
    json_int(gs, "bytes", f->bytes);
  if (f->modified_ms != RESULT_TIME_UNKNOWN)
    json_int(gs, "modified", f->modified_ms);
  if (f->etag[0] != '\0')
    json_str(gs, "etag", f->etag);
  if (f->unchanged)
    json_bool(gs, "unchanged", true);
  json_int(gs, "tokens", f->tokens);
  if (file_result_listed(f)) {
    json_listed_fields(gs, f);
    json_close(gs, '}');
    return;
  }
  if (f->code == NULL && f->type == FILE_TYPE_TEXT)
    json_text_fields(gs, f);
  else if (f->code == NULL && f->type == FILE_TYPE_PDF)
    json_pdf_fields(gs, f);
  else if (f->code == NULL && (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT))
    json_section_fields(gs, f);
  else if (f->code == NULL && f->truncated)
    json_bool(gs, "truncated", true);
  if (f->code == NULL && f->type == FILE_TYPE_IMAGE && f->n_images > 0)
    json_image_fields(gs, f, image_index);
  json_close(gs, '}');
}

/* The output size, roughly: it only sizes the first allocation. */
static size_t json_estimate(const ReadResult *r, size_t xml_len) {
  size_t n = 64 + xml_len + xml_len / 16;

  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];
    size_t path = json_cstring_len(f->path);

    n += 320 + path + json_cstring_len(f->error);
    for (size_t k = 0; f->code == NULL && k < f->n_images; k++)
      n += 160 + path + f->images[k].data_len;
  }
  return n;
}

/* "notices": the expansions' notices in the order of the files they follow; nothing when
 * there is none. */
static void json_notices(GString *gs, const ReadResult *r) {
  bool any = false;

  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    for (size_t k = 0; k < f->n_notices; k++) {
      if (!any)
        g_string_append(gs, "\"notices\":[");
      any = true;
      g_string_append_c(gs, '{');
      json_path(gs, f->notices[k].path);
      json_int(gs, "from", (int64_t)f->notices[k].from);
      json_str(gs, "message", f->notices[k].message);
      json_close(gs, '}');
    }
  }
  if (any)
    json_close(gs, ']');
}

/* "omitted": the budget's summary of the files it left out past those it lists one by one,
 * when there is one. */
static void json_summary(GString *gs, const ReadResult *r) {
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    if (f->summary == NULL)
      continue;
    g_string_append(gs, "\"omitted\":{");
    json_int(gs, "files", (int64_t)f->summary->files);
    json_int(gs, "bytes", f->summary->bytes);
    json_int(gs, "tokensTotal", f->summary->tokens_total);
    json_str(gs, "first", f->path);
    json_int(gs, "skip", f->summary->skip);
    json_close(gs, '}');
    return;
  }
}

/* The members after images; see result-json.h. */
void result_json_format_files(GString *gs, const ReadResult *r) {
  static const ReadResult empty = {0};
  int64_t bytes, lines, tokens, total, image_index = 0;

  if (r == NULL)
    r = &empty;
  g_string_append(gs, "\"files\":[");
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    json_file(gs, f, image_index);
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  json_close(gs, ']');
  json_notices(gs, r);
  json_summary(gs, r);
  read_result_totals(r, &bytes, &lines);
  read_result_tokens(r, &tokens, &total);
  json_int(gs, "bytes", bytes);
  json_int(gs, "lines", lines);
  json_int(gs, "tokens", tokens);
  if (r->budget > 0 && !r->plan)
    json_int(gs, "answerTokens", r->answer_tokens);
  if (r->budget > 0)
    json_int(gs, "budget", r->budget);
  if (r->plan) {
    json_bool(gs, "plan", true);
    json_int(gs, "tokensTotal", total);
  }
  json_close(gs, '}');
  /* json_close leaves a comma for the next member; the top-level object has none. */
  g_string_truncate(gs, gs->len - 1);
}

/* Everything after the XML; see result-json.h. */
void result_json_format_rest(GString *gs, const ReadResult *r) {
  static const ReadResult empty = {0};
  size_t start;

  if (r == NULL)
    r = &empty;
  start = gs->len;

  /* Reserve the room once: image data can be megabytes. */
  g_string_set_size(gs, start + json_estimate(r, 0));
  g_string_truncate(gs, start);
  g_string_append(gs, "\",\"images\":[");
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    for (size_t k = 0; f->code == NULL && k < f->n_images; k++)
      json_image(gs, f->path, &f->images[k]);
  }
  json_close(gs, ']');
  result_json_format_files(gs, r);
}

/* Serializes r as the contract's result object; see result-json.h. */
char *result_json_format(const ReadResult *r, const char *xml, size_t *ret_len) {
  size_t len = xml != NULL ? strlen(xml) : 0;
  GString *gs = g_string_sized_new(len + len / 16 + 256);

  g_string_append(gs, RESULT_JSON_HEAD);
  result_json_escape(gs, xml != NULL ? xml : "", len);
  result_json_format_rest(gs, r);
  if (ret_len != NULL)
    *ret_len = gs->len;
  return g_string_free(gs, FALSE);
}
