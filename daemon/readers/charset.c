#include "daemon/readers/charset.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <uchardet/uchardet.h>

/* How much evidence a guess needs before it is trusted. */
typedef enum {
  EVIDENCE_DECODE, /* multi-byte: the head decodes with (almost) no invalid sequence */
  EVIDENCE_SCRIPT, /* single-byte, non-Latin script: a few high bytes */
  EVIDENCE_LATIN,  /* single-byte, Latin script: many high bytes, since short Latin-1 text
                      (one "é") is often taken for ISO-8859-2 and the like */
} Evidence;

#define SCRIPT_MIN_HIGH 8 /* high bytes a non-Latin single-byte guess needs */
/* High bytes past which a single-byte guess stands even when the head also decodes as an East
 * Asian double-byte set: a few Chinese characters ("\xD6\xD0\xCE\xC4" is GBK's "中文") read
 * as Greek or Cyrillic letters too, but prose of that length in one of those scripts has a
 * word of odd length or a letter next to a space somewhere, which no double-byte set takes. */
#define SCRIPT_SURE_HIGH 64
#define LATIN_MIN_HIGH 32 /* high bytes a Latin-script single-byte guess needs */
#define INVALID_PER_MILLE                                                                          \
  20 /* invalid sequences a multi-byte guess tolerates, per 1000 high bytes */

/* uchardet's names, what they are reported as and what decodes them. A name not listed here
 * (ISO-8859-1, WINDOWS-1252, UTF-8, ASCII, HZ-GB-2312, unknown ones) is not taken. */
static const struct {
  const char *uchardet;
  Charset cs;
  Evidence evidence;
} KNOWN[] = {
    /* Japanese: the Windows variants are what Japanese files on disk are written in. */
    {"SHIFT_JIS", {"shift_jis", "CP932"}, EVIDENCE_DECODE},
    {"EUC-JP", {"euc-jp", "EUC-JP"}, EVIDENCE_DECODE},
    {"ISO-2022-JP", {"iso-2022-jp", "ISO-2022-JP-2"}, EVIDENCE_DECODE},
    /* Chinese: uchardet names GB2312 and GBK text GB18030, their superset. */
    {"GB18030", {"gb18030", "GB18030"}, EVIDENCE_DECODE},
    {"BIG5", {"big5", "CP950"}, EVIDENCE_DECODE},
    {"EUC-TW", {"euc-tw", "EUC-TW"}, EVIDENCE_DECODE},
    {"ISO-2022-CN", {"iso-2022-cn", "ISO-2022-CN"}, EVIDENCE_DECODE},
    /* Korean: EUC-KR text is a subset of Windows' UHC (CP949), which uchardet names. */
    {"EUC-KR", {"euc-kr", "CP949"}, EVIDENCE_DECODE},
    {"UHC", {"euc-kr", "CP949"}, EVIDENCE_DECODE},
    {"ISO-2022-KR", {"iso-2022-kr", "ISO-2022-KR"}, EVIDENCE_DECODE},
    /* Cyrillic */
    {"KOI8-R", {"koi8-r", "KOI8-R"}, EVIDENCE_SCRIPT},
    {"WINDOWS-1251", {"windows-1251", "WINDOWS-1251"}, EVIDENCE_SCRIPT},
    {"ISO-8859-5", {"iso-8859-5", "ISO-8859-5"}, EVIDENCE_SCRIPT},
    {"IBM866", {"ibm866", "IBM866"}, EVIDENCE_SCRIPT},
    {"IBM855", {"ibm855", "IBM855"}, EVIDENCE_SCRIPT},
    {"MAC-CYRILLIC", {"x-mac-cyrillic", "MACCYRILLIC"}, EVIDENCE_SCRIPT},
    /* Greek, Hebrew, Arabic, Thai */
    {"ISO-8859-7", {"iso-8859-7", "ISO-8859-7"}, EVIDENCE_SCRIPT},
    {"WINDOWS-1253", {"windows-1253", "WINDOWS-1253"}, EVIDENCE_SCRIPT},
    {"ISO-8859-8", {"iso-8859-8", "ISO-8859-8"}, EVIDENCE_SCRIPT},
    {"WINDOWS-1255", {"windows-1255", "WINDOWS-1255"}, EVIDENCE_SCRIPT},
    {"ISO-8859-6", {"iso-8859-6", "ISO-8859-6"}, EVIDENCE_SCRIPT},
    {"WINDOWS-1256", {"windows-1256", "WINDOWS-1256"}, EVIDENCE_SCRIPT},
    {"TIS-620", {"tis-620", "TIS-620"}, EVIDENCE_SCRIPT},
    {"ISO-8859-11", {"iso-8859-11", "ISO-8859-11"}, EVIDENCE_SCRIPT},
    /* Latin scripts other than Western European */
    {"ISO-8859-2", {"iso-8859-2", "ISO-8859-2"}, EVIDENCE_LATIN},
    {"WINDOWS-1250", {"windows-1250", "WINDOWS-1250"}, EVIDENCE_LATIN},
    {"IBM852", {"ibm852", "IBM852"}, EVIDENCE_LATIN},
    {"MAC-CENTRALEUROPE", {"x-mac-ce", "MAC-CENTRALEUROPE"}, EVIDENCE_LATIN},
    {"ISO-8859-3", {"iso-8859-3", "ISO-8859-3"}, EVIDENCE_LATIN},
    {"ISO-8859-4", {"iso-8859-4", "ISO-8859-4"}, EVIDENCE_LATIN},
    {"ISO-8859-9", {"iso-8859-9", "ISO-8859-9"}, EVIDENCE_LATIN},
    {"WINDOWS-1254", {"windows-1254", "WINDOWS-1254"}, EVIDENCE_LATIN},
    {"ISO-8859-10", {"iso-8859-10", "ISO-8859-10"}, EVIDENCE_LATIN},
    {"ISO-8859-13", {"iso-8859-13", "ISO-8859-13"}, EVIDENCE_LATIN},
    {"WINDOWS-1257", {"windows-1257", "WINDOWS-1257"}, EVIDENCE_LATIN},
    {"ISO-8859-15", {"iso-8859-15", "ISO-8859-15"}, EVIDENCE_LATIN},
    {"ISO-8859-16", {"iso-8859-16", "ISO-8859-16"}, EVIDENCE_LATIN},
    {"WINDOWS-1258", {"windows-1258", "WINDOWS-1258"}, EVIDENCE_LATIN},
    {"VISCII", {"viscii", "VISCII"}, EVIDENCE_LATIN},
};

bool charset_has_iso2022_escape(const uint8_t *p, size_t n) {
  const uint8_t *e, *esc;

  if (p == NULL)
    return false;
  e = p + n;
  /* memchr is vectorised and ESC is rare in text; glibc's memmem with a two-byte needle costs
   * several instructions a byte, and every UTF-8 head is looked at. */
  for (; p < e && (esc = memchr(p, 0x1b, (size_t)(e - p))) != NULL; p = esc + 1)
    if (esc + 1 < e && esc[1] == '$')
      return true;
  return false;
}

static size_t count_high(const uint8_t *p, size_t n) {
  size_t high = 0;

  for (size_t i = 0; i < n; i++)
    high += p[i] >= 0x80;
  return high;
}

/* uchardet's name for the charset of p, copied into buf ("" when it has none). Returns 0 or
 * -ENOMEM. */
static int ask_uchardet(const uint8_t *p, size_t n, char *buf, size_t size) {
  uchardet_t ud = uchardet_new();
  int r = 0;

  if (ud == NULL)
    return -ENOMEM;
  if (uchardet_handle_data(ud, (const char *)p, n) != 0)
    r = -ENOMEM; /* its only failure is an allocation */
  uchardet_data_end(ud);
  g_strlcpy(buf, r == 0 ? uchardet_get_charset(ud) : "", size);
  uchardet_delete(ud);
  return r;
}

/* Invalid sequences iconv finds in p decoded from `from`, each skipped by one byte; a
 * character cut by the end of p counts only when `eof` says the file ends there. Returns the
 * count, or -EINVAL when iconv does not know `from`. */
static ssize_t count_invalid(const char *from, const uint8_t *p, size_t n, bool eof) {
  GIConv cd = g_iconv_open("UTF-8", from);
  gchar *in = (gchar *)p;
  gsize inleft = n;
  ssize_t invalid = 0;
  char out[4096];

  if (cd == (GIConv)-1)
    return -EINVAL;
  while (inleft > 0) {
    gchar *o = out;
    gsize outleft = sizeof out;

    if (g_iconv(cd, &in, &inleft, &o, &outleft) != (gsize)-1 || errno == E2BIG)
      continue;
    if (errno == EINVAL) {
      invalid += eof;
      break;
    }
    invalid++;
    in++;
    inleft--;
  }
  g_iconv_close(cd);
  return invalid;
}

/* True when the single-byte charset `from` reads p as Windows-1252 does (which the text
 * reader's own path, with its ISO-8859-1 and Windows-1252 names, would show the same): such a
 * guess tells nothing, since both tables agree on every byte p holds ("café" in ISO-8859-2). */
static bool reads_as_cp1252(const char *from, const uint8_t *p, size_t n) {
  g_autofree char *a = g_convert((const char *)p, (gssize)n, "UTF-8", from, NULL, NULL, NULL);
  g_autofree char *b =
      g_convert((const char *)p, (gssize)n, "UTF-8", "WINDOWS-1252", NULL, NULL, NULL);

  return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* East Asian double-byte sets whose clean decoding of a short head makes a single-byte guess
 * for another script a coin toss. */
static const char *const DOUBLE_BYTE[] = {"GB18030", "CP950", "CP932", "CP949", "EUC-JP"};

/* True when UTF-8 o[0..n) holds a half-width katakana (U+FF61-U+FF9F): Shift-JIS's single
 * bytes 0xA1-0xDF, which read every KOI8-R or ISO-8859-5 letter as one. */
static bool has_halfwidth_kana(const char *o, size_t n) {
  for (size_t i = 0; i + 2 < n; i++)
    if ((uint8_t)o[i] == 0xEF && (((uint8_t)o[i + 1] == 0xBD && (uint8_t)o[i + 2] >= 0xA1) ||
                                  ((uint8_t)o[i + 1] == 0xBE && (uint8_t)o[i + 2] <= 0x9F)))
      return true;
  return false;
}

/* True when `from` decodes p into double-byte characters: no invalid sequence (a character
 * cut by the end of p is fine unless `eof`), no half-width katakana. */
static bool decodes_as(const char *from, const uint8_t *p, size_t n, bool eof) {
  GIConv cd = g_iconv_open("UTF-8", from);
  gchar *in = (gchar *)p;
  gsize inleft = n;
  bool ok = true;
  char out[4096];

  if (cd == (GIConv)-1)
    return false;
  while (ok && inleft > 0) {
    gchar *o = out;
    gsize outleft = sizeof out;
    gsize r = g_iconv(cd, &in, &inleft, &o, &outleft);
    int err = errno;

    /* iconv writes whole characters: a buffer never ends inside one. */
    ok = !has_halfwidth_kana(out, (size_t)(o - out));
    if (r != (gsize)-1 || err == E2BIG)
      continue;
    ok = ok && err == EINVAL && !eof;
    break;
  }
  g_iconv_close(cd);
  return ok;
}

/* True when one of DOUBLE_BYTE reads p as its own. */
static bool decodes_as_double_byte(const uint8_t *p, size_t n, bool eof) {
  for (size_t i = 0; i < G_N_ELEMENTS(DOUBLE_BYTE); i++)
    if (decodes_as(DOUBLE_BYTE[i], p, n, eof))
      return true;
  return false;
}

/* Whether the head holds evidence enough for a guess of this kind. */
static bool enough_evidence(Evidence e, const char *from, const uint8_t *p, size_t n, bool eof) {
  size_t high = count_high(p, n);
  ssize_t invalid;

  switch (e) {
  case EVIDENCE_SCRIPT:
    return high >= SCRIPT_SURE_HIGH ||
           (high >= SCRIPT_MIN_HIGH && !decodes_as_double_byte(p, n, eof));
  case EVIDENCE_LATIN:
    return high >= LATIN_MIN_HIGH && !reads_as_cp1252(from, p, n);
  default:
    invalid = count_invalid(from, p, n, eof);
    /* ISO-2022 text is 7-bit: its escapes are the evidence. */
    return invalid == 0 || (invalid > 0 && (size_t)invalid * 1000 <= high * INVALID_PER_MILLE);
  }
}

/* Windows code pages and the ISO 8859 part each extends: the two agree on most of 0xA0-0xFF,
 * and in 0x80-0x9F the ISO part has C1 controls where the code page has letters and quotes.
 * uchardet's statistics often name one for the other (Czech in ISO-8859-2 as windows-1250);
 * the bytes of the head decide (pair_choose). Names as in KNOWN's iconv column. */
static const struct {
  const char *windows, *iso;
} PAIRS[] = {
    {"WINDOWS-1250", "ISO-8859-2"}, {"WINDOWS-1253", "ISO-8859-7"},  {"WINDOWS-1254", "ISO-8859-9"},
    {"WINDOWS-1255", "ISO-8859-8"}, {"WINDOWS-1257", "ISO-8859-13"},
};

/* What byte b is in cd's table: 1 a letter, 0 another character, -1 none. */
static int byte_class(GIConv cd, uint8_t b) {
  char in = (char)b, out[8];
  gchar *ip = &in, *op = out;
  gsize il = 1, ol = sizeof out;
  gunichar c;

  g_iconv(cd, NULL, NULL, NULL, NULL);
  if (g_iconv(cd, &ip, &il, &op, &ol) == (gsize)-1)
    return -1;
  c = g_utf8_get_char_validated(out, (gssize)(op - out));
  return c != (gunichar)-1 && c != (gunichar)-2 && g_unichar_isalpha(c) ? 1 : 0;
}

/* Which of a pair reads p: the code page when p holds a byte of 0x80-0x9F (a C1 control is
 * no text); else the one in whose table more of p's bytes where the two differ are letters
 * (the other has symbols there: Czech "Š" in ISO-8859-2 is "©" in windows-1250); the ISO part
 * when no such byte occurs (both then read p alike); uchardet's own guess on a tie. */
static const char *pair_choose(size_t pair, const char *guessed, const uint8_t *p, size_t n) {
  size_t count[256] = {0};
  int64_t score = 0; /* > 0: the ISO part, < 0: the code page */
  bool differ = false;
  GIConv w, iso;

  for (size_t i = 0; i < n; i++)
    count[p[i]]++;
  for (int b = 0x80; b < 0xA0; b++)
    if (count[b] > 0)
      return PAIRS[pair].windows;
  w = g_iconv_open("UTF-8", PAIRS[pair].windows);
  iso = g_iconv_open("UTF-8", PAIRS[pair].iso);
  if (w == (GIConv)-1 || iso == (GIConv)-1) {
    if (w != (GIConv)-1)
      g_iconv_close(w);
    if (iso != (GIConv)-1)
      g_iconv_close(iso);
    return guessed;
  }
  for (int b = 0xA0; b < 0x100; b++) {
    int cw, ci;

    if (count[b] == 0)
      continue;
    cw = byte_class(w, (uint8_t)b);
    ci = byte_class(iso, (uint8_t)b);
    if (cw == ci)
      continue;
    differ = true;
    score += ci > cw ? (int64_t)count[b] : -(int64_t)count[b];
  }
  g_iconv_close(w);
  g_iconv_close(iso);
  if (!differ)
    return PAIRS[pair].iso;
  return score > 0 ? PAIRS[pair].iso : score < 0 ? PAIRS[pair].windows : guessed;
}

/* KNOWN's entry for the charset iconv calls `name`, or NULL. */
static const Charset *known_by_iconv(const char *name) {
  for (size_t i = 0; i < G_N_ELEMENTS(KNOWN); i++)
    if (strcmp(KNOWN[i].cs.iconv, name) == 0)
      return &KNOWN[i].cs;
  return NULL;
}

/* The guess cs, or the other of its pair when the head says so (pair_choose). */
static Charset settle_pair(const Charset *cs, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < G_N_ELEMENTS(PAIRS); i++) {
    const Charset *other;

    if (strcmp(cs->iconv, PAIRS[i].windows) != 0 && strcmp(cs->iconv, PAIRS[i].iso) != 0)
      continue;
    other = known_by_iconv(pair_choose(i, cs->iconv, p, n));
    return other != NULL ? *other : *cs;
  }
  return *cs;
}

int charset_guess(const uint8_t *head, size_t n, bool eof, Charset *ret) {
  char name[64];
  int r;

  if (head == NULL || n == 0)
    return -ENOENT;
  if (n > CHARSET_SAMPLE_MAX) {
    n = CHARSET_SAMPLE_MAX;
    eof = false;
  }
  if (count_high(head, n) == 0 && !charset_has_iso2022_escape(head, n))
    return -ENOENT;
  r = ask_uchardet(head, n, name, sizeof name);
  if (r < 0)
    return r;
  for (size_t i = 0; i < G_N_ELEMENTS(KNOWN); i++) {
    if (g_ascii_strcasecmp(name, KNOWN[i].uchardet) != 0)
      continue;
    if (!enough_evidence(KNOWN[i].evidence, KNOWN[i].cs.iconv, head, n, eof))
      return -ENOENT;
    *ret = settle_pair(&KNOWN[i].cs, head, n);
    return 0;
  }
  return -ENOENT;
}
