/* The legacy character set guesser (daemon/readers/charset.c) in-process, and the text reader
 * through it: text from tests/encodings/ converted with iconv, short and mixed samples, the
 * guesses it must not make (ASCII, UTF-8, short Latin-1), the evidence thresholds, and the
 * bound on the sample. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/charset.h"
#include "daemon/readers/text.h"
#include "tests/lib/check-run.h"

static char *sample(const char *name, size_t *ret_len) {
  const char *root = g_getenv("READERD_SOURCE_ROOT");
  g_autofree char *path = NULL;
  char *data = NULL;

  ck_assert_msg(root != NULL, "READERD_SOURCE_ROOT is not set");
  path = g_build_filename(root, "tests", "encodings", name, NULL);
  ck_assert_msg(g_file_get_contents(path, &data, ret_len, NULL), "cannot read %s", path);
  return data;
}

static char *convert(const char *utf8, size_t len, const char *charset, size_t *ret_len) {
  gsize n = 0;
  char *out = g_convert(utf8, (gssize)len, charset, "UTF-8", NULL, &n, NULL);

  ck_assert_msg(out != NULL, "iconv cannot write %s", charset);
  *ret_len = n;
  return out;
}

/* The guess for `text` converted to charset: its reported name, or NULL when none. */
static const char *guess(const char *text, size_t len, const char *charset) {
  size_t n;
  g_autofree char *bytes = convert(text, len, charset, &n);
  Charset cs;

  return charset_guess((const uint8_t *)bytes, n, true, &cs) == 0 ? cs.name : NULL;
}

START_TEST(charset_names_each_set) {
  static const char *const cases[][3] = {
      {"ja.txt", "SHIFT_JIS", "shift_jis"},
      {"ja.txt", "EUC-JP", "euc-jp"},
      {"ja.txt", "ISO-2022-JP", "iso-2022-jp"},
      {"zh-hans.txt", "GB18030", "gb18030"},
      {"zh-hans.txt", "GBK", "gb18030"},
      {"zh-hant.txt", "BIG5", "big5"},
      {"ko.txt", "EUC-KR", "euc-kr"},
      {"ru.txt", "KOI8-R", "koi8-r"},
      {"ru.txt", "WINDOWS-1251", "windows-1251"},
      {"ru.txt", "IBM866", "ibm866"},
      {"ru.txt", "ISO-8859-5", "iso-8859-5"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    size_t len;
    g_autofree char *text = sample(cases[i][0], &len);
    const char *got = guess(text, len, cases[i][1]);

    ck_assert_msg(g_strcmp0(got, cases[i][2]) == 0, "%s in %s: guessed %s, expected %s",
                  cases[i][0], cases[i][1], got ? got : "nothing", cases[i][2]);
  }
}
END_TEST

/* What the text reader's own rules decide is never guessed here. */
START_TEST(charset_leaves_the_rest_alone) {
  static const char *const none[] = {
      "",
      "plain ASCII\n",
      "\x1b[31mred\x1b[0m ANSI colours are not ISO-2022\n",
      "caf\xE9\n",                              /* short Latin-1: uchardet says ISO-8859-2 */
      "na\xEFve r\xE9sum\xE9 \x93quoted\x94\n", /* Windows-1252 */
      "\xD0\xBF\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82 UTF-8\n",
  };
  Charset cs;

  for (size_t i = 0; i < G_N_ELEMENTS(none); i++)
    ck_assert_msg(charset_guess((const uint8_t *)none[i], strlen(none[i]), true, &cs) == -ENOENT,
                  "case %zu guessed %s", i, cs.name);
  ck_assert_int_eq(charset_guess(NULL, 0, true, &cs), -ENOENT);
}
END_TEST

/* A single-byte guess for another script needs a few high bytes: one Cyrillic word is too
 * little to tell KOI8-R from Latin-1 text. */
START_TEST(charset_evidence_thresholds) {
  const char *word = "\xF0\xD2\xC9"; /* "При" in KOI8-R: three high bytes */
  size_t len;
  g_autofree char *text = sample("ru.txt", &len);
  Charset cs;

  ck_assert_int_eq(charset_guess((const uint8_t *)word, strlen(word), true, &cs), -ENOENT);
  /* The whole text is plenty. */
  ck_assert_str_eq(guess(text, len, "KOI8-R"), "koi8-r");
}
END_TEST

/* Bad sequences are tolerated up to a few per hundred characters; past that, no guess. */
START_TEST(charset_tolerates_few_bad_sequences) {
  size_t len, n;
  g_autofree char *text = sample("ja.txt", &len);
  g_autofree char *sjis = convert(text, len, "SHIFT_JIS", &n);
  GString *one = g_string_new_len(sjis, (gssize)n);
  Charset cs;

  g_string_insert_c(one, 60, '\xFF');
  ck_assert_int_eq(charset_guess((const uint8_t *)one->str, one->len, true, &cs), 0);
  ck_assert_str_eq(cs.name, "shift_jis");
  ck_assert_str_eq(cs.iconv, "CP932");
  g_string_free(one, TRUE);
}
END_TEST

/* Only the first CHARSET_SAMPLE_MAX bytes are looked at: what follows cannot change the guess. */
START_TEST(charset_sample_is_bounded) {
  size_t len, n;
  g_autofree char *text = sample("ko.txt", &len);
  g_autofree char *euc = convert(text, len, "EUC-KR", &n);
  GString *big = g_string_new(NULL);
  Charset cs;

  while (big->len < CHARSET_SAMPLE_MAX)
    g_string_append_len(big, euc, (gssize)n);
  g_string_truncate(big, CHARSET_SAMPLE_MAX);
  /* Garbage past the sample: would spoil the decode check if it were looked at. */
  for (int i = 0; i < 4096; i++)
    g_string_append_c(big, (char)0xFF);
  ck_assert_int_eq(charset_guess((const uint8_t *)big->str, big->len, true, &cs), 0);
  ck_assert_str_eq(cs.name, "euc-kr");
  g_string_free(big, TRUE);
}
END_TEST

START_TEST(charset_iso2022_escape) {
  ck_assert(charset_has_iso2022_escape((const uint8_t *)"a\x1b$Bxx\x1b(B", 9));
  ck_assert(!charset_has_iso2022_escape((const uint8_t *)"\x1b[0m", 4));
  ck_assert(!charset_has_iso2022_escape(NULL, 0));
}
END_TEST

/* The text reader through the guess: a Big5 file from a pipe-less descriptor (head only). */
START_TEST(charset_text_read_transcodes) {
  size_t len, n;
  g_autofree char *text = sample("zh-hant.txt", &len);
  g_autofree char *big5 = convert(text, len, "BIG5", &n);
  TextOptions opt = {.offset = 1, .limit = 1000, .line_numbers = false};
  FileResult res = {0};

  ck_assert_int_eq(text_read(-1, (const uint8_t *)big5, n, true, &opt, &res), 0);
  ck_assert_str_eq(res.encoding, "big5");
  ck_assert_uint_eq(res.content_len, len);
  ck_assert(memcmp(res.content, text, len) == 0);
  file_result_clear(&res);
}
END_TEST

/* Czech whose only accented letters are those ISO-8859-2 and windows-1250 share (á, ě, í):
 * uchardet 0.0.7 names it windows-1250. */
static const char CZECH_COMMON[] =
    "Jsou nadáni rozumem a svědomím a mají spolu jednat v duchu bratrství.\n";
/* Czech with Š, Ž, ž, Ť: letters in ISO-8859-2, ©, ®, ľ, « in windows-1250. */
static const char CZECH_CARON[] =
    "Šel Žižka přes Ťumbu a Čáslav, Žofín a Šumava; žena žije v Šumperku.\n";

static char *repeat(const char *s, int times) {
  GString *out = g_string_new(NULL);

  for (int i = 0; i < times; i++)
    g_string_append(out, s);
  return g_string_free(out, FALSE);
}

/* ISO-8859-2 and windows-1250 agree but on 0x80-0x9F and a few letters: the bytes decide, not
 * uchardet's statistics. */
START_TEST(charset_iso_8859_2_or_windows_1250) {
  g_autofree char *common = repeat(CZECH_COMMON, 8);
  g_autofree char *caron = repeat(CZECH_CARON, 3);

  /* No byte of 0x80-0x9F and none where the tables differ: the ISO name. */
  ck_assert_str_eq(guess(common, strlen(common), "ISO-8859-2"), "iso-8859-2");
  /* Š, Ž, Ť are letters in ISO-8859-2 only. */
  ck_assert_str_eq(guess(caron, strlen(caron), "ISO-8859-2"), "iso-8859-2");
  /* The same text in windows-1250 has Š, Ž, ž, Ť in 0x80-0x9F: the code page. */
  ck_assert_str_eq(guess(caron, strlen(caron), "WINDOWS-1250"), "windows-1250");
}
END_TEST

/* Eight bytes of GBK ("中文测试") read as Cyrillic or Greek letters too: no guess; a few more
 * Chinese characters are still Chinese, and Russian prose of a line is still KOI8-R. */
START_TEST(charset_short_double_byte_is_no_single_byte_guess) {
  static const char zh[] = "中文测试";
  static const char ru[] = "Привет, мир! Как дела?\n";
  size_t n;
  g_autofree char *gbk = convert(zh, strlen(zh), "GBK", &n);
  Charset cs;

  ck_assert_uint_eq(n, 8);
  ck_assert_msg(charset_guess((const uint8_t *)gbk, n, true, &cs) == -ENOENT, "guessed %s",
                cs.name);
  ck_assert_str_eq(guess(ru, strlen(ru), "KOI8-R"), "koi8-r");
}
END_TEST

/* How the encoding was chosen: by the bytes (none said), a BOM, a guess with evidence, the
 * fallback for 8-bit text nothing names, or the client. */
START_TEST(charset_text_read_says_how) {
  static const char zh[] = "中文测试\n";
  size_t len, n;
  g_autofree char *ja = sample("ja.txt", &len);
  g_autofree char *sjis = convert(ja, len, "SHIFT_JIS", &n);
  g_autofree char *gbk = NULL;
  TextOptions opt = {.offset = 1, .limit = 1000, .line_numbers = false};
  FileResult res = {0};

  ck_assert_int_eq(text_read(-1, (const uint8_t *)"plain\n", 6, true, &opt, &res), 0);
  ck_assert_ptr_null(res.encoding_source);
  file_result_clear(&res);
  memset(&res, 0, sizeof res);
  ck_assert_int_eq(text_read(-1, (const uint8_t *)"\xFF\xFEh\0i\0", 6, true, &opt, &res), 0);
  ck_assert_str_eq(res.encoding_source, "bom");
  file_result_clear(&res);
  memset(&res, 0, sizeof res);
  ck_assert_int_eq(text_read(-1, (const uint8_t *)sjis, n, true, &opt, &res), 0);
  ck_assert_str_eq(res.encoding, "shift_jis");
  ck_assert_str_eq(res.encoding_source, "detected");
  file_result_clear(&res);
  memset(&res, 0, sizeof res);
  /* Eight bytes of GBK: no guess, shown as Latin-1 and said to be the fallback. */
  gbk = convert(zh, strlen(zh), "GBK", &n);
  ck_assert_int_eq(text_read(-1, (const uint8_t *)gbk, n, true, &opt, &res), 0);
  ck_assert_str_eq(res.encoding_source, "fallback");
  file_result_clear(&res);
  memset(&res, 0, sizeof res);
  /* Named by the client: read as it says. */
  opt.encoding = "gbk";
  ck_assert_int_eq(text_read(-1, (const uint8_t *)gbk, n, true, &opt, &res), 0);
  ck_assert_str_eq(res.encoding, "gbk");
  ck_assert_str_eq(res.encoding_source, "client");
  ck_assert_str_eq(res.content, zh);
  file_result_clear(&res);
}
END_TEST

/* The client's Unicode names are decoded by the reader: UTF-16 without a BOM (NUL bytes and
 * all), a BOM of the encoding named dropped, "utf-16" ordered by its BOM. */
START_TEST(charset_client_unicode_names) {
  static const struct {
    const char *encoding;
    const char *bytes;
    size_t len;
    const char *name, *content;
  } cases[] = {
      {"utf-16le", "h\0i\0\n\0", 6, "utf-16le", "hi\n"},
      {"UTF16BE", "\0h\0i\0\n", 6, "utf-16be", "hi\n"},
      {"utf-16", "\xFF\xFEh\0i\0\n\0", 8, "utf-16le", "hi\n"},
      {"utf-16", "\0h\0i\0\n", 6, "utf-16be", "hi\n"},
      {"utf-32le", "h\0\0\0\n\0\0\0", 8, "utf-32le", "h\n"},
      {"utf-8",
       "\xEF\xBB\xBF"
       "café\n",
       9, "utf-8", "café\n"},
      {"utf-8", "caf\xE9\n", 5, "utf-8", "caf\xEF\xBF\xBD\n"},
      {"iso-8859-2", "\xA9\n", 2, "iso-8859-2", "\xC5\xA0\n"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    TextOptions opt = {.offset = 1, .limit = 10, .encoding = cases[i].encoding};
    FileResult res = {0};

    ck_assert_msg(text_read(-1, (const uint8_t *)cases[i].bytes, cases[i].len, true, &opt, &res) ==
                      0,
                  "case %zu: %s", i, res.error);
    ck_assert_str_eq(res.encoding, cases[i].name);
    ck_assert_str_eq(res.encoding_source, "client");
    ck_assert_msg(strcmp(res.content, cases[i].content) == 0, "case %zu: %s", i, res.content);
    file_result_clear(&res);
  }
}
END_TEST

static Suite *charset_suite(void) {
  Suite *s = suite_create("charset");
  TCase *tc = tcase_create("guess");

  tcase_add_test(tc, charset_names_each_set);
  tcase_add_test(tc, charset_leaves_the_rest_alone);
  tcase_add_test(tc, charset_evidence_thresholds);
  tcase_add_test(tc, charset_tolerates_few_bad_sequences);
  tcase_add_test(tc, charset_sample_is_bounded);
  tcase_add_test(tc, charset_iso2022_escape);
  tcase_add_test(tc, charset_text_read_transcodes);
  tcase_add_test(tc, charset_iso_8859_2_or_windows_1250);
  tcase_add_test(tc, charset_short_double_byte_is_no_single_byte_guess);
  tcase_add_test(tc, charset_text_read_says_how);
  tcase_add_test(tc, charset_client_unicode_names);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(charset_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
