#include "daemon/readers/text.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "daemon/readers/charset.h"
#include "daemon/readers/detect.h"
#include "daemon/readers/lines.h"
#include "daemon/readers/tail.h"
#include "basic/utf8.h"

#define CHUNK_SIZE ((size_t)64 * 1024) /* bytes read at a time after the head */
#define CARRY_MAX 16                   /* bytes of a character split across two chunks */
#define OUT_SIZE ((size_t)16 * 1024)   /* decoded bytes handed to the line engine at a time */

#define TAIL_PASSES_MAX 8 /* tries at fitting a tail in the content cap */
#define TAIL_STREAM_MAX ((int64_t)64 * 1024 * 1024) /* bytes read for the tail of a file of no
                                                       size (procfs, sysfs) */

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

typedef enum { DECODE_UTF8, DECODE_UTF16, DECODE_UTF32, DECODE_ICONV } DecodeKind;

/* How the file is decoded, chosen from its head. */
typedef struct {
  DecodeKind kind;
  const char *name;     /* reported encoding, static */
  const char *from;     /* iconv source charset (DECODE_ICONV) */
  bool big_endian;      /* DECODE_UTF16, DECODE_UTF32 */
  bool bom;             /* a UTF-8 byte-order mark */
  size_t skip;          /* bytes of byte-order mark to drop */
  size_t head_valid;    /* bytes after skip already checked: valid UTF-8, no NUL */
  bool latin1_fallback; /* bytes the charset leaves undefined decode as ISO-8859-1 */
  const char *source;   /* how it was chosen: one of the TEXT_SOURCE_*, NULL for UTF-8 by its
                           bytes */
} Encoding;

typedef struct {
  Encoding enc;
  GIConv cd; /* (GIConv)-1 unless DECODE_ICONV */
  char *out; /* output buffer of the decoders other than UTF-8 */
  Lines lines;
  int64_t base;   /* file offset of the buffer being decoded */
  int64_t err_at; /* file offset of the byte that failed */

  /* Number of the first line decoded (a tail starts mid-file); 0 means 1. */
  int64_t first_line;
} Decoder;

/* One UTF-8 sequence at p, by the one decoder (basic/utf8.h): 1 valid, 0 cut short, -1
 * invalid, with *ret_len as utf8_decode() gives it. */
static int utf8_check(const uint8_t *p, size_t n, size_t *ret_len) {
  return utf8_decode(p, n, NULL, ret_len);
}

/* Feeds iconv's UTF-8 to the line engine. Input NUL bytes refuse the file before iconv sees
 * them, but should a charset decode something else to U+0000, it becomes U+FFFD, so that the
 * content stays a C string. */
static void emit(Decoder *d, const char *p, size_t n) {
  const char *nul;

  while (n > 0 && (nul = memchr(p, '\0', n)) != NULL) {
    lines_feed(&d->lines, p, (size_t)(nul - p));
    lines_feed(&d->lines, REPLACEMENT, 3);
    n -= (size_t)(nul - p) + 1;
    p = nul + 1;
  }
  lines_feed(&d->lines, p, n);
}

/* Refuses a buffer with a NUL byte: the file is binary. */
static int check_nul(Decoder *d, const uint8_t *p, size_t n) {
  const uint8_t *nul = memchr(p, '\0', n);

  if (nul == NULL)
    return 0;
  d->err_at = d->base + (nul - p);
  return -ENOTSUP;
}

/* Decodes UTF-8: invalid sequences become U+FFFD. Returns the bytes consumed (an incomplete
 * character at the end is left for the next call unless `final`), or a negative errno. */
static ssize_t decode_utf8(Decoder *d, const uint8_t *p, size_t n, bool final) {
  size_t i = 0, len;
  int r = check_nul(d, p, n);

  if (r < 0)
    return r;
  while (i < n) {
    size_t v = utf8_valid_prefix(p + i, n - i);

    lines_feed(&d->lines, (const char *)p + i, v);
    i += v;
    if (i == n)
      break;
    if (utf8_check(p + i, n - i, &len) == 0) {
      if (!final)
        break;
      len = n - i;
    }
    lines_feed(&d->lines, REPLACEMENT, 3);
    i += len;
  }
  return (ssize_t)i;
}

/* Writes code point c as UTF-8 into out (room for 4 bytes) and returns its length. What is not
 * a character of a C string (U+0000, a surrogate, a value past U+10FFFF) becomes U+FFFD. */
static size_t put_utf8(char *out, uint32_t c) {
  if (c == 0 || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
    c = 0xFFFD;
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xC0 | c >> 6);
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | c >> 12);
    out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | c >> 18);
  out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

static uint32_t get16(const uint8_t *p, bool be) {
  return be ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static uint32_t get32(const uint8_t *p, bool be) {
  return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
            : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The code point of the UTF-16 unit at p (n >= 2 bytes available), a surrogate pair joined;
 * a lone surrogate is returned as it is (put_utf8 replaces it). Returns the bytes it takes,
 * or 0 when a high surrogate needs the next unit and only `final` says it will not come. */
static size_t utf16_next(const uint8_t *p, size_t n, bool be, bool final, uint32_t *ret) {
  uint32_t c = get16(p, be), lo;

  *ret = c;
  if (c < 0xD800 || c > 0xDBFF)
    return 2;
  if (n < 4)
    return final ? 2 : 0;
  lo = get16(p + 2, be);
  if (lo < 0xDC00 || lo > 0xDFFF)
    return 2;
  *ret = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
  return 4;
}

/* Decodes UTF-16 or UTF-32 in the encoding's byte order, as decode_utf8 does UTF-8: a lone
 * surrogate, a UTF-32 value past U+10FFFF or a unit cut by the end of the file becomes U+FFFD
 * and the file reads on. Returns the bytes consumed (a unit or surrogate pair cut by the end
 * of the buffer is left for the next call unless `final`). Never fails. */
static ssize_t decode_wide(Decoder *d, const uint8_t *p, size_t n, bool final) {
  size_t unit = d->enc.kind == DECODE_UTF32 ? 4 : 2, i = 0, o = 0;
  bool be = d->enc.big_endian;

  while (n - i >= unit) {
    uint32_t c;
    size_t used = unit;

    if (o > OUT_SIZE - 4) {
      lines_feed(&d->lines, d->out, o);
      o = 0;
    }
    if (unit == 4)
      c = get32(p + i, be);
    else if ((used = utf16_next(p + i, n - i, be, final, &c)) == 0)
      break;
    o += put_utf8(d->out + o, c);
    i += used;
  }
  lines_feed(&d->lines, d->out, o);
  if (final && i < n) {
    lines_feed(&d->lines, REPLACEMENT, 3);
    i = n;
  }
  return (ssize_t)i;
}

/* Decodes through iconv. Returns the bytes consumed (an incomplete character at the end is
 * left for the next call unless `final`), or -ENOTSUP for a NUL byte. A byte the charset
 * cannot convert becomes U+FFFD (with latin1_fallback: its ISO-8859-1 character) and the file
 * reads on, as in UTF-8. */
static ssize_t decode_iconv(Decoder *d, const uint8_t *p, size_t n, bool final) {
  gchar *in = (gchar *)p;
  gsize inleft = n;
  int r = check_nul(d, p, n);

  if (r < 0)
    return r;
  while (inleft > 0) {
    gchar *out = d->out;
    gsize outleft = OUT_SIZE;
    gsize res = g_iconv(d->cd, &in, &inleft, &out, &outleft);
    int err = errno;

    emit(d, d->out, OUT_SIZE - outleft);
    if (res != (gsize)-1 || err == E2BIG)
      continue;
    /* A character cut by the end of the buffer waits for the next one, unless the file ends
     * there or it is longer than any character is: then it is not a character. */
    if (err == EINVAL && !final && inleft <= CARRY_MAX)
      break;
    if (err == EINVAL && final) {
      lines_feed(&d->lines, REPLACEMENT, 3);
      inleft = 0;
    } else if (d->enc.latin1_fallback) {
      uint8_t b = (uint8_t)*in;
      char two[2] = {(char)(0xC0 | (b >> 6)), (char)(0x80 | (b & 0x3F))};

      if (b < 0x80)
        lines_feed(&d->lines, (const char *)&b, 1);
      else
        lines_feed(&d->lines, two, 2);
      in++;
      inleft--;
    } else {
      lines_feed(&d->lines, REPLACEMENT, 3);
      in++;
      inleft--;
    }
  }
  return (ssize_t)(n - inleft);
}

static ssize_t decode(Decoder *d, const uint8_t *p, size_t n, bool final) {
  switch (d->enc.kind) {
  case DECODE_UTF8:
    return decode_utf8(d, p, n, final);
  case DECODE_UTF16:
  case DECODE_UTF32:
    return decode_wide(d, p, n, final);
  default:
    return decode_iconv(d, p, n, final);
  }
}

/* Ends an iconv stream: a stateful charset may still have output. */
static void decode_flush(Decoder *d) {
  gchar *out = d->out;
  gsize outleft = OUT_SIZE;

  if (d->enc.kind != DECODE_ICONV)
    return;
  g_iconv(d->cd, NULL, NULL, &out, &outleft);
  emit(d, d->out, OUT_SIZE - outleft);
}

/* True when iconv converts all of p from `from` without an invalid sequence. */
static bool iconv_accepts(const char *from, const uint8_t *p, size_t n) {
  GIConv cd = g_iconv_open("UTF-8", from);
  char out[4096];
  gchar *in = (gchar *)p;
  gsize inleft = n;
  bool ok = true;

  if (cd == (GIConv)-1)
    return false;
  while (inleft > 0) {
    gchar *o = out;
    gsize outleft = sizeof out;

    if (g_iconv(cd, &in, &inleft, &o, &outleft) != (gsize)-1 || errno == E2BIG)
      continue;
    ok = errno == EINVAL; /* a character cut by the end of the head is fine */
    break;
  }
  g_iconv_close(cd);
  return ok;
}

/* Byte-order marks, longest first: FF FE 00 00 is UTF-32LE, not UTF-16LE. */
static const struct {
  const char *bytes;
  size_t len;
  DecodeKind kind;
  bool big_endian;
  const char *name;
} BOMS[] = {
    {"\xEF\xBB\xBF", 3, DECODE_UTF8, false, "utf-8"},
    {"\xFF\xFE\x00\x00", 4, DECODE_UTF32, false, "utf-32le"},
    {"\x00\x00\xFE\xFF", 4, DECODE_UTF32, true, "utf-32be"},
    {"\xFF\xFE", 2, DECODE_UTF16, false, "utf-16le"},
    {"\xFE\xFF", 2, DECODE_UTF16, true, "utf-16be"},
};

static void use_iconv(Encoding *enc, const char *from, const char *name) {
  enc->kind = DECODE_ICONV;
  enc->from = from;
  enc->name = name;
}

static void use_wide(Encoding *enc, DecodeKind kind, bool big_endian, const char *name) {
  enc->kind = kind;
  enc->big_endian = big_endian;
  enc->name = name;
}

static bool pick_by_bom(const uint8_t *head, size_t n, Encoding *enc) {
  for (size_t i = 0; i < G_N_ELEMENTS(BOMS); i++) {
    if (n < BOMS[i].len || memcmp(head, BOMS[i].bytes, BOMS[i].len) != 0)
      continue;
    enc->skip = BOMS[i].len;
    enc->source = TEXT_SOURCE_BOM;
    if (BOMS[i].kind == DECODE_UTF8)
      enc->bom = true;
    else
      use_wide(enc, BOMS[i].kind, BOMS[i].big_endian, BOMS[i].name);
    return true;
  }
  return false;
}

static bool has_high_bytes(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] >= 0x80)
      return true;
  return false;
}

static bool has_c1_bytes(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] >= 0x80 && p[i] <= 0x9F)
      return true;
  return false;
}

static void fail_binary(const uint8_t *head, size_t n, FileResult *res) {
  char mime[128];

  detect_mime(head, n, mime, sizeof mime);
  file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "binary file (%s)", mime);
}

/* Chooses a decoder from libmagic's name for the head's character set. */
static int pick_by_charset(const char *cs, const uint8_t *head, size_t n, Encoding *enc,
                           FileResult *res) {
  GIConv cd;

  if (strcmp(cs, "binary") == 0) {
    fail_binary(head, n, res);
    return -ENOTSUP;
  }
  if (strcmp(cs, "utf-8") == 0 || strcmp(cs, "us-ascii") == 0)
    return 0; /* UTF-8 after all, with bad sequences replaced */
  enc->source = TEXT_SOURCE_DETECTED;
  if (strcmp(cs, "utf-16le") == 0) {
    use_wide(enc, DECODE_UTF16, false, "utf-16le");
  } else if (strcmp(cs, "utf-16be") == 0) {
    use_wide(enc, DECODE_UTF16, true, "utf-16be");
  } else if (strcmp(cs, "iso-8859-1") == 0 || strcmp(cs, "unknown-8bit") == 0) {
    /* Latin-1 text with bytes 0x80-0x9F is almost always Windows-1252 (smart quotes, €):
     * those are control characters in ISO-8859-1. */
    bool cp1252 = strcmp(cs, "iso-8859-1") == 0 ? has_c1_bytes(head, n)
                                                : iconv_accepts("WINDOWS-1252", head, n);

    if (cp1252)
      use_iconv(enc, "WINDOWS-1252", "windows-1252");
    else
      use_iconv(enc, "ISO-8859-1", "iso-8859-1");
    enc->latin1_fallback = true;
    /* libmagic names any 8-bit text so: nothing told its character set. */
    enc->source = TEXT_SOURCE_FALLBACK;
  } else if (strcmp(cs, "ebcdic") == 0) {
    use_iconv(enc, "EBCDIC-US", "ebcdic");
  } else {
    cd = g_iconv_open("UTF-8", cs);
    if (cd == (GIConv)-1) {
      file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "no supported text encoding (%s)", cs);
      return -ENOTSUP;
    }
    g_iconv_close(cd);
    use_iconv(enc, g_intern_string(cs), g_intern_string(cs));
  }
  return 0;
}

/* True when p is UTF-8 with a few stray bytes: at least as many valid multi-byte characters
 * as invalid sequences. A UTF-8 file with one bad byte stays UTF-8 (the byte shows as U+FFFD)
 * instead of turning every other character into mojibake; Latin-1 text rarely forms valid
 * multi-byte sequences, so it still goes to libmagic. */
static bool mostly_utf8(const uint8_t *p, size_t n) {
  size_t i = 0, valid = 0, invalid = 0, len;

  while (i < n) {
    i += utf8_valid_prefix(p + i, n - i);
    if (i >= n)
      break;
    if (utf8_check(p + i, n - i, &len) == 0)
      break; /* cut by the end of the buffer */
    invalid++;
    i += len;
  }
  for (i = 0; i < n; i++)
    if (p[i] >= 0xC2 && p[i] <= 0xF4 && utf8_check(p + i, n - i, &len) == 1) {
      valid++;
      i += len - 1;
    }
  return valid > 0 && invalid <= valid;
}

/* The Unicode encodings a client may name, decoded by readerd itself rather than iconv (which
 * would see their NUL bytes as binary); names compared without case, '-' or '_'. A BOM of the
 * encoding named is dropped; "utf-16" and "utf-32" take the byte order from a BOM, else
 * big-endian (RFC 2781). */
static const struct {
  const char *key;
  DecodeKind kind;
  bool big_endian;
  const char *name;
} UNICODE_NAMES[] = {
    {"utf8", DECODE_UTF8, false, "utf-8"},        {"utf16le", DECODE_UTF16, false, "utf-16le"},
    {"utf16be", DECODE_UTF16, true, "utf-16be"},  {"utf16", DECODE_UTF16, true, "utf-16be"},
    {"utf32le", DECODE_UTF32, false, "utf-32le"}, {"utf32be", DECODE_UTF32, true, "utf-32be"},
    {"utf32", DECODE_UTF32, true, "utf-32be"},
};

/* Decodes from the encoding the client named (an iconv name, checked by the params): no
 * detection; only NUL bytes still refuse a file in an ASCII-based encoding. */
static int pick_client(const char *client, const uint8_t *head, size_t n, Encoding *enc,
                       FileResult *res) {
  char key[32];
  size_t k = 0;
  bool any_order;

  for (const char *c = client; *c != '\0' && k + 1 < sizeof key; c++)
    if (*c != '-' && *c != '_')
      key[k++] = g_ascii_tolower(*c);
  key[k] = '\0';
  any_order = strcmp(key, "utf16") == 0 || strcmp(key, "utf32") == 0;
  enc->source = TEXT_SOURCE_CLIENT;
  for (size_t i = 0; i < G_N_ELEMENTS(UNICODE_NAMES); i++) {
    Encoding bom = {0};

    if (strcmp(key, UNICODE_NAMES[i].key) != 0)
      continue;
    enc->kind = UNICODE_NAMES[i].kind;
    enc->big_endian = UNICODE_NAMES[i].big_endian;
    enc->name = UNICODE_NAMES[i].name;
    /* A byte-order mark of the encoding named is dropped, and orders "utf-16", "utf-32". */
    if (pick_by_bom(head, n, &bom) && bom.kind == enc->kind &&
        (any_order || bom.big_endian == enc->big_endian)) {
      enc->skip = bom.skip;
      enc->bom = bom.bom;
      enc->big_endian = bom.big_endian;
      if (bom.name != NULL)
        enc->name = bom.name;
    }
    if (enc->kind != DECODE_UTF8)
      return 0;
    if (memchr(head, '\0', n) != NULL) {
      fail_binary(head, n, res);
      return -ENOTSUP;
    }
    enc->head_valid = utf8_valid_prefix(head + enc->skip, n - enc->skip);
    return 0;
  }
  use_iconv(enc, client, client);
  return 0;
}

/* Chooses how to decode the file from its head: the client's encoding when it named one; else
 * byte-order mark, NUL bytes, UTF-8 or a legacy set uchardet names (charset.h), then
 * libmagic. Returns 0, or a negative errno with res failed. */
static int pick_encoding(const uint8_t *head, size_t n, bool eof, const char *client, Encoding *enc,
                         FileResult *res) {
  Charset legacy;
  char cs[64];
  size_t v, len;
  bool utf8;

  memset(enc, 0, sizeof *enc);
  enc->kind = DECODE_UTF8;
  enc->name = "utf-8";
  if (client != NULL)
    return pick_client(client, head, n, enc, res);
  if (pick_by_bom(head, n, enc))
    return 0;
  if (memchr(head, '\0', n) != NULL) {
    fail_binary(head, n, res);
    return -ENOTSUP;
  }
  /* Valid UTF-8, where a character cut by the end of the head is fine. At the end of the
   * file too (the file was cut), provided the rest has multi-byte characters: "caf\xe9"
   * alone is more likely Latin-1. */
  v = utf8_valid_prefix(head, n);
  utf8 = v == n || (utf8_check(head + v, n - v, &len) == 0 && (!eof || has_high_bytes(head, v)));
  /* A legacy set libmagic cannot name (charset.h): asked of what is not UTF-8, and of 7-bit
   * text with ISO-2022 escapes, which reads as ASCII but is Japanese, Chinese or Korean. */
  /* libmagic names EBCDIC surely, where uchardet would take its letters for a Greek or
   * Cyrillic code page. */
  if (!utf8 && detect_charset(head, n, cs, sizeof cs) == 0 && strcmp(cs, "ebcdic") == 0)
    return pick_by_charset(cs, head, n, enc, res);
  if ((!utf8 || (v == n && charset_has_iso2022_escape(head, n))) &&
      charset_guess(head, n, eof, &legacy) == 0) {
    use_iconv(enc, legacy.iconv, legacy.name);
    enc->source = TEXT_SOURCE_DETECTED;
    return 0;
  }
  if (utf8 || mostly_utf8(head, n)) {
    enc->head_valid = v;
    return 0;
  }
  if (detect_charset(head, n, cs, sizeof cs) < 0)
    g_strlcpy(cs, "unknown-8bit", sizeof cs); /* no libmagic: assume a legacy 8-bit text */
  return pick_by_charset(cs, head, n, enc, res);
}

static int decoder_open(Decoder *d, const TextOptions *opt, size_t size_hint, FileResult *res) {
  LinesOptions lo = {
      .offset = opt->offset,
      .limit = opt->limit,
      .line_numbers = opt->line_numbers,
      .max_line_chars = TEXT_MAX_LINE_CHARS,
      .max_content = TEXT_MAX_CONTENT,
      .size_hint = size_hint,
      .column = opt->column,
      .first_line = d->first_line,
      .max_tokens = opt->max_tokens,
  };

  d->cd = (GIConv)-1;
  if (d->enc.kind == DECODE_ICONV) {
    d->cd = g_iconv_open("UTF-8", d->enc.from);
    if (d->cd == (GIConv)-1) {
      file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "character set %s is not supported",
                       d->enc.name);
      return -ENOTSUP;
    }
  }
  if (d->enc.kind != DECODE_UTF8)
    d->out = g_malloc(OUT_SIZE);
  lines_init(&d->lines, &lo);
  return 0;
}

static void decoder_close(Decoder *d) {
  lines_clear(&d->lines);
  g_free(d->out);
  d->out = NULL;
  if (d->cd != (GIConv)-1)
    g_iconv_close(d->cd);
  d->cd = (GIConv)-1;
}

static bool is_cancelled(const TextOptions *opt) {
  return opt->cancelled != NULL && atomic_load(opt->cancelled);
}

/* Reads and decodes the rest of the file in chunks. `rest` holds the head's undecoded tail
 * (a character cut by the end of the head). Returns 0, or a negative errno: -ECANCELED,
 * -ENOTSUP (binary), -EILSEQ (a decoder left more than one character undecoded, which none
 * does), or read()'s error. */
static int stream_rest(Decoder *d, int fd, const uint8_t *rest, size_t rest_len,
                       const TextOptions *opt) {
  uint8_t *buf = g_malloc(CARRY_MAX + CHUNK_SIZE);
  size_t carry = rest_len;
  int r = 0;

  if (rest_len > CARRY_MAX) {
    d->err_at = d->base;
    r = -EILSEQ;
    goto finish;
  }
  memcpy(buf, rest, rest_len);
  for (;;) {
    ssize_t got, used;
    bool end;

    if (is_cancelled(opt)) {
      r = -ECANCELED;
      break;
    }
    got = read(fd, buf + carry, CHUNK_SIZE);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      r = -errno;
      break;
    }
    /* buf[0] is the file's byte d->base: the last byte of a size fstat vouches for ends it. */
    end = got == 0 || (opt->size > 0 && (uint64_t)d->base + carry + (size_t)got == opt->size);
    used = decode(d, buf, carry + (size_t)got, end);
    if (used < 0 || end) {
      r = used < 0 ? (int)used : 0;
      break;
    }
    carry = carry + (size_t)got - (size_t)used;
    d->base += used;
    if (carry > CARRY_MAX) {
      d->err_at = d->base;
      r = -EILSEQ;
      break;
    }
    memmove(buf, buf + used, carry);
  }

finish:
  g_free(buf);
  return r;
}

static void fail_decode(FileResult *res, int r, const Decoder *d) {
  switch (r) {
  case -ECANCELED:
    file_result_fail(res, CODE_CANCELLED, "request cancelled");
    break;
  case -ENOTSUP:
    file_result_fail(res, CODE_UNSUPPORTED_FORMAT,
                     "binary file (NUL byte at offset %" G_GINT64_FORMAT ")", d->err_at);
    break;
  case -EILSEQ:
    file_result_fail(res, CODE_CONVERSION_FAILED,
                     "cannot convert from %s: invalid byte sequence at offset %" G_GINT64_FORMAT,
                     d->enc.name, d->err_at);
    break;
  default:
    file_result_fail(res, CODE_READ_ERROR, "read failed: %s", g_strerror(-r));
    break;
  }
}

static void fill_result(Decoder *d, FileResult *res) {
  LinesResult lr;

  lines_finish(&d->lines, &lr);
  g_free(res->content);
  res->type = FILE_TYPE_TEXT;
  res->content = lr.content;
  res->content_len = lr.content_len;
  res->lines = lr.lines;
  res->encoding = d->enc.name;
  res->encoding_source = d->enc.source;
  res->bom = d->enc.bom;
  res->eol = lr.eol;
  res->truncated = lr.truncated;
  res->shown_first = lr.shown_first;
  res->shown_last = lr.shown_last;
  res->priced = lr.milli >= 0 ? lr.content : NULL;
  res->priced_len = lr.content_len;
  res->priced_milli = lr.milli;
}

/* The tail's newline, when a newline in the file's encoding can be found from any point:
 * UTF-16 and UTF-32 by their units, UTF-8 and the charsets that keep ASCII's "\n" as the byte
 * 0x0A (iconv decodes "a\nb" to itself) and have no shift state (ISO-2022, HZ, UTF-7) by bytes.
 * Returns false for the others (EBCDIC), whose tails are found reading forwards. */
static bool tail_newline_of(const Encoding *enc, TailNewline *ret) {
  char out[8];
  gchar *in = (gchar *)"a\nb", *o = out;
  gsize inleft = 3, outleft = sizeof out;
  GIConv cd;
  bool ok;

  ret->unit = enc->kind == DECODE_UTF16 ? 2 : enc->kind == DECODE_UTF32 ? 4 : 1;
  ret->big_endian = enc->big_endian;
  if (enc->kind != DECODE_ICONV)
    return true;
  if (strstr(enc->from, "2022") != NULL || g_ascii_strncasecmp(enc->from, "hz", 2) == 0 ||
      g_ascii_strncasecmp(enc->from, "utf-7", 5) == 0)
    return false;
  cd = g_iconv_open("UTF-8", enc->from);
  if (cd == (GIConv)-1)
    return false;
  ok = g_iconv(cd, &in, &inleft, &o, &outleft) == 0 && o - out == 3 && memcmp(out, "a\nb", 3) == 0;
  g_iconv_close(cd);
  return ok;
}

/* Decodes the file from byte `start`, its line `first_line`, to its end, showing `limit` lines
 * from line `offset` (column 1). The decoder is left open with the result in its engine. */
static int decode_from(Decoder *d, int fd, const TextOptions *opt, int64_t start,
                       int64_t first_line, int64_t offset, int64_t limit, FileResult *res) {
  TextOptions o = *opt;
  int r;

  o.offset = offset;
  o.limit = limit;
  o.column = 1;
  d->first_line = first_line;
  d->base = start;
  r = decoder_open(d, &o, 0, res);
  if (r < 0)
    return r;
  if (lseek(fd, (off_t)start, SEEK_SET) < 0)
    return -errno;
  r = stream_rest(d, fd, (const uint8_t *)"", 0, opt);
  if (r == 0)
    decode_flush(d);
  return r;
}

/* Where the last `want` lines start in an encoding whose newlines cannot be found backwards:
 * the lines are counted reading the whole file once. */
static int tail_forward(Decoder *d, int fd, const TextOptions *opt, int64_t want, TailSpot *ret,
                        int64_t *ret_offset, FileResult *res) {
  LinesResult lr;
  int r = decode_from(d, fd, opt, (int64_t)d->enc.skip, 1, INT64_MAX, 1, res);

  if (r == 0) {
    lines_finish(&d->lines, &lr);
    g_free(lr.content);
    ret->start = (int64_t)d->enc.skip;
    ret->first_line = 1;
    *ret_offset = MAX(lr.lines - want + 1, 1);
  }
  decoder_close(d);
  return r;
}

static void fail_tail(FileResult *res, int r, const Decoder *d) {
  if (res->code != NULL)
    return; /* the decoder said why */
  if (r == -ENODATA)
    file_result_fail(res, CODE_READ_ERROR, "the file shrank while its tail was read");
  else
    fail_decode(res, r, d);
}

/* Appends the notice of a tail the content cap shortened: which lines before it are not shown. */
static void tail_notice(FileResult *res, int64_t asked) {
  int64_t first = MAX(res->lines - asked + 1, 1), count = res->shown_first - first;
  g_autofree char *notice = NULL;

  if (count <= 0)
    return;
  notice = g_strdup_printf(
      "\u2026 %" G_GINT64_FORMAT " earlier lines of the tail not shown (%zu KiB content limit); "
      "read them with offset=%" G_GINT64_FORMAT ", limit=%" G_GINT64_FORMAT "\n",
      count, TEXT_MAX_CONTENT / 1024, first, count);
  res->content = g_realloc(res->content, res->content_len + strlen(notice) + 1);
  memcpy(res->content + res->content_len, notice, strlen(notice) + 1);
  res->content_len += strlen(notice);
}

/* Reads the last opt->tail lines into res. When the content cap stops the tail short of the
 * file's end, the tail is found again with as many lines as were shown, until it fits: the
 * end of the file is what a tail is for. No line can take less than a byte, so no more lines
 * than the cap's bytes are ever looked for; and lines that grow towards the end of the file
 * cannot make it try more than TAIL_PASSES_MAX times (the last try then shows the start of its
 * window, with the usual notice of the lines after it). */
static int read_tail(Decoder *d, int fd, const TextOptions *opt, FileResult *res) {
  int64_t want = MIN(opt->tail, (int64_t)TEXT_MAX_CONTENT);
  TailNewline nl;
  bool backwards = tail_newline_of(&d->enc, &nl);
  struct stat st;
  int r;

  if (fstat(fd, &st) < 0) {
    r = -errno;
    fail_tail(res, r, d);
    return r;
  }
  for (int pass = 1;; pass++) {
    TailSpot spot;
    int64_t offset = 1;

    if (backwards) {
      r = tail_locate(fd, (int64_t)d->enc.skip, (int64_t)st.st_size, &nl, want, opt->cancelled,
                      &spot);
      offset = spot.first_line;
    } else {
      r = tail_forward(d, fd, opt, want, &spot, &offset, res);
    }
    if (r == 0)
      r = decode_from(d, fd, opt, spot.start, spot.first_line, offset, want, res);
    if (r < 0) {
      fail_tail(res, r, d);
      return r;
    }
    fill_result(d, res);
    decoder_close(d);
    /* Cut by the cap: fewer lines were shown than asked (lines written to the file since it
     * was opened may follow the tail; they do not shorten it). */
    if (res->shown_first == 0 || res->shown_last - res->shown_first + 1 >= want)
      break;
    if (pass == TAIL_PASSES_MAX)
      return 0;
    want = res->shown_last - res->shown_first + 1;
  }
  tail_notice(res, opt->tail);
  return 0;
}

/* Reads the rest of a file whose size means nothing (procfs, sysfs) after its head, keeping
 * the last lines in a ring. Returns 0 or a negative errno: -EFBIG past TAIL_STREAM_MAX. */
static int stream_to_ring(int fd, bool eof, const TextOptions *opt, TailRing *ring) {
  uint8_t *buf = g_malloc(CHUNK_SIZE);
  int r = 0;

  while (!eof) {
    ssize_t got;

    if (is_cancelled(opt)) {
      r = -ECANCELED;
      break;
    }
    got = read(fd, buf, CHUNK_SIZE);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      r = got < 0 ? -errno : 0;
      break;
    }
    if (ring->fed + got > TAIL_STREAM_MAX) {
      r = -EFBIG;
      break;
    }
    tail_ring_feed(ring, buf, (size_t)got);
  }
  g_free(buf);
  return r;
}

/* The tail of a file whose size means nothing (procfs, sysfs): read forwards once from the
 * head on, its last lines kept in a ring, then decoded with their true numbers. */
static int read_tail_stream(Decoder *d, int fd, const uint8_t *head, size_t head_len, bool eof,
                            const TextOptions *opt, FileResult *res) {
  int64_t want = MIN(opt->tail, (int64_t)TEXT_MAX_CONTENT), first_line;
  TextOptions o = *opt;
  const uint8_t *kept;
  TailNewline nl;
  TailRing ring;
  size_t len;
  ssize_t used;
  int r;

  (void)tail_newline_of(&d->enc, &nl);
  tail_ring_init(&ring, &nl, want);
  tail_ring_feed(&ring, head + d->enc.skip, head_len - d->enc.skip);
  r = stream_to_ring(fd, eof, opt, &ring);
  if (r == -EFBIG) {
    file_result_fail(res, CODE_FILE_TOO_LARGE,
                     "the file says it has no size but gives more than %d MiB",
                     (int)(TAIL_STREAM_MAX >> 20));
    goto finish;
  }
  if (r < 0) {
    fail_decode(res, r, d);
    goto finish;
  }
  kept = tail_ring_lines(&ring, &len, &first_line);
  o.offset = first_line;
  o.limit = want;
  o.column = 1;
  d->first_line = first_line;
  d->base = (int64_t)d->enc.skip + ring.fed - (int64_t)len;
  r = decoder_open(d, &o, len, res);
  if (r < 0)
    goto finish;
  used = decode(d, kept, len, true);
  if (used < 0) {
    r = (int)used;
    fail_decode(res, r, d);
    goto finish;
  }
  decode_flush(d);
  fill_result(d, res);

finish:
  tail_ring_clear(&ring);
  return r;
}

int text_sniff(const uint8_t *head, size_t head_len, bool eof, const char *encoding,
               const char **ret_encoding, FileResult *res) {
  Encoding enc;
  int r =
      pick_encoding(head != NULL ? head : (const uint8_t *)"", head_len, eof, encoding, &enc, res);

  *ret_encoding = r == 0 ? enc.name : NULL;
  return r;
}

int text_read(int fd, const uint8_t *head, size_t head_len, bool eof, const TextOptions *opt,
              FileResult *res) {
  Decoder d;
  const uint8_t *p;
  size_t n;
  ssize_t used;
  int r;

  memset(&d, 0, sizeof d);
  d.cd = (GIConv)-1;
  if (head == NULL)
    head = (const uint8_t *)"";
  r = pick_encoding(head, head_len, eof, opt->encoding, &d.enc, res);
  if (r < 0)
    return r;
  if (opt->tail > 0 && tail_size_unknown(fd)) {
    r = read_tail_stream(&d, fd, head, head_len, eof, opt, res);
    goto finish;
  }
  if (opt->tail > 0) {
    r = read_tail(&d, fd, opt, res);
    goto finish;
  }
  r = decoder_open(&d, opt, eof ? head_len : MAX(head_len, opt->size), res);
  if (r < 0)
    goto finish;
  /* What pick_encoding already checked goes to the line engine as it is, without a copy. */
  p = head + d.enc.skip;
  n = head_len - d.enc.skip;
  lines_feed(&d.lines, (const char *)p, d.enc.head_valid);
  p += d.enc.head_valid;
  n -= d.enc.head_valid;
  d.base = (int64_t)(p - head);
  used = decode(&d, p, n, eof);
  r = used < 0 ? (int)used : 0;
  if (r == 0 && !eof) {
    d.base += used;
    r = stream_rest(&d, fd, p + used, n - (size_t)used, opt);
  }
  if (r < 0) {
    fail_decode(res, r, &d);
    goto finish;
  }
  decode_flush(&d);
  fill_result(&d, res);

finish:
  decoder_close(&d);
  return r;
}
