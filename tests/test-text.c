/* The text reader on real files: encodings, binary refusal, streaming, cancellation. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/readers/text.h"
#include "formatters/result.h"
#include "tests/lib/files.h"
#include "tests/lib/process.h"
#include "tests/lib/skip.h"

#define HEAD_SIZE ((size_t)64 * 1024)
#define B(s) (s), (sizeof(s) - 1)

static char *tmpdir;

static void setup(void) {
  tmpdir = rd_tmpdir();
}

static void teardown(void) {
  rd_rmtree(tmpdir);
  g_clear_pointer(&tmpdir, g_free);
}

/* Writes a file into the test folder; returns its path (g_free). */
static char *put(const char *name, const void *data, size_t len) {
  return rd_write_file(tmpdir, name, data, len);
}

static TextOptions topts(int64_t offset, int64_t limit, bool numbers) {
  TextOptions o = {.offset = offset, .limit = limit, .line_numbers = numbers, .cancelled = NULL};
  return o;
}

/* Opens path and reads its head the way the reader does, then calls text_read. */
static int read_path(const char *path, const TextOptions *o, FileResult *res) {
  static uint8_t head[HEAD_SIZE];
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  size_t len = 0;
  bool eof = false;
  int r;

  ck_assert_msg(fd >= 0, "open %s: %s", path, g_strerror(errno));
  while (len < HEAD_SIZE) {
    ssize_t n = read(fd, head + len, HEAD_SIZE - len);

    ck_assert_int_ge(n, 0);
    if (n == 0) {
      eof = true;
      break;
    }
    len += (size_t)n;
  }
  memset(res, 0, sizeof *res);
  r = text_read(fd, head, len, eof, o, res);
  close(fd);
  if (res->content != NULL) {
    ck_assert_uint_eq(strlen(res->content), res->content_len);
    ck_assert(g_utf8_validate(res->content, (gssize)res->content_len, NULL));
  }
  return r;
}

/* Writes data to a file and reads it as raw text, whole. */
static int read_data(const char *name, const void *data, size_t len, FileResult *res) {
  g_autofree char *path = put(name, data, len);
  TextOptions o = topts(1, 1000000, false);

  return read_path(path, &o, res);
}

static void assert_text(const FileResult *res, const char *content, const char *encoding) {
  ck_assert_msg(res->code == NULL, "failed: %s: %s", res->code, res->error);
  ck_assert_int_eq(res->type, FILE_TYPE_TEXT);
  ck_assert_str_eq(res->content, content);
  ck_assert_str_eq(res->encoding, encoding);
}

static char *convert(const char *s, gssize len, const char *to, const char *from, gsize *ret_len) {
  GError *err = NULL;
  char *out = g_convert(s, len, to, from, NULL, ret_len, &err);

  ck_assert_msg(out != NULL, "g_convert %s: %s", to, err != NULL ? err->message : "?");
  return out;
}

START_TEST(text_utf8_numbered) {
  g_autofree char *path = put("small.txt", B("hello\nworld\n"));
  TextOptions o = topts(1, 2000, true);
  FileResult res;

  ck_assert_int_eq(read_path(path, &o, &res), 0);
  assert_text(&res, "     1\thello\n     2\tworld\n", "utf-8");
  ck_assert(!res.bom);
  ck_assert_int_eq(res.lines, 2);
  ck_assert_str_eq(res.eol, "lf");
  ck_assert(!res.truncated);
  ck_assert_int_eq(res.shown_first, 1);
  ck_assert_int_eq(res.shown_last, 2);
  file_result_clear(&res);
}
END_TEST

START_TEST(text_empty_file) {
  FileResult res;

  ck_assert_int_eq(read_data("empty.txt", "", 0, &res), 0);
  assert_text(&res, "", "utf-8");
  ck_assert_int_eq(res.lines, 0);
  ck_assert_ptr_null(res.eol);
  ck_assert(!res.truncated);
  file_result_clear(&res);
}
END_TEST

START_TEST(text_crlf_and_no_final_newline) {
  FileResult res;

  ck_assert_int_eq(read_data("crlf.txt", B("first\r\nsecond\r\nthird"), &res), 0);
  assert_text(&res, "first\nsecond\nthird\n", "utf-8");
  ck_assert_int_eq(res.lines, 3);
  ck_assert_str_eq(res.eol, "crlf");
  file_result_clear(&res);
}
END_TEST

START_TEST(text_utf8_bom_dropped) {
  FileResult res;

  ck_assert_int_eq(read_data("bom8.txt",
                             B("\xEF\xBB\xBF"
                               "bom line\nsecond\n"),
                             &res),
                   0);
  assert_text(&res, "bom line\nsecond\n", "utf-8");
  ck_assert(res.bom);
  ck_assert_int_eq(res.lines, 2);
  file_result_clear(&res);
}
END_TEST

/* A BOM and text in a UTF-16 or UTF-32 flavour, read back as UTF-8. */
static void check_wide(const char *bom, size_t bom_len, const char *charset, const char *name) {
  static const char text[] = "h\u00e9llo\nw\u00f6rld \U0001F600\n";
  gsize len;
  g_autofree char *body = convert(text, -1, charset, "UTF-8", &len);
  g_autofree char *data = g_malloc(bom_len + len);
  FileResult res;

  memcpy(data, bom, bom_len);
  memcpy(data + bom_len, body, len);
  ck_assert_int_eq(read_data(name, data, bom_len + len, &res), 0);
  assert_text(&res, text, name);
  ck_assert(!res.bom);
  ck_assert_int_eq(res.lines, 2);
  file_result_clear(&res);
}

START_TEST(text_utf16_and_utf32_with_bom) {
  check_wide("\xFF\xFE", 2, "UTF-16LE", "utf-16le");
  check_wide("\xFE\xFF", 2, "UTF-16BE", "utf-16be");
  check_wide("\xFF\xFE\0\0", 4, "UTF-32LE", "utf-32le");
  check_wide("\0\0\xFE\xFF", 4, "UTF-32BE", "utf-32be");
}
END_TEST

START_TEST(text_utf16_nul_character_replaced) {
  FileResult res;

  /* "a", U+0000, "b", "\n" in UTF-16LE. */
  ck_assert_int_eq(read_data("nul16.txt",
                             B("\xFF\xFE"
                               "a\0\0\0b\0\n\0"),
                             &res),
                   0);
  assert_text(&res, "a\uFFFDb\n", "utf-16le");
  file_result_clear(&res);
}
END_TEST

/* UTF-16 over several chunks, with a surrogate pair cut by the end of the head: the line
 * count and the window must match an independent conversion of the whole file. */
START_TEST(text_utf16_streamed_across_chunks) {
  GString *text = g_string_new(NULL);
  gsize len;
  g_autofree char *body = NULL, *data = NULL, *path = NULL, *want = NULL;
  TextOptions o = topts(2, 3, false);
  FileResult res;

  /* BOM (2) + 32765 'a' (65530) + "\n" (2): the first emoji starts at byte 65534. */
  for (int i = 0; i < 32765; i++)
    g_string_append_c(text, 'a');
  g_string_append_c(text, '\n');
  for (int i = 0; i < 30000; i++)
    g_string_append_printf(text, "\U0001F600%d\u00e9\n", i);
  body = convert(text->str, (gssize)text->len, "UTF-16LE", "UTF-8", &len);
  data = g_malloc(len + 2);
  memcpy(data, "\xFF\xFE", 2);
  memcpy(data + 2, body, len);
  ck_assert(len + 2 > 3 * HEAD_SIZE);
  path = put("big16.txt", data, len + 2);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  want = g_strdup_printf("\U0001F6000\u00e9\n\U0001F6001\u00e9\n\U0001F6002\u00e9\n"
                         "\u2026 29997 more lines not shown; continue with offset=5\n");
  assert_text(&res, want, "utf-16le");
  ck_assert_int_eq(res.lines, 30001);
  ck_assert(res.truncated);
  file_result_clear(&res);

  o = topts(30000, 10, false);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  assert_text(&res, "\U0001F60029998\u00e9\n\U0001F60029999\u00e9\n", "utf-16le");
  file_result_clear(&res);
  g_string_free(text, TRUE);
}
END_TEST

START_TEST(text_latin1) {
  FileResult res;

  ck_assert_int_eq(read_data("latin1.txt", B("caf\xe9 cr\xe8me br\xfbl\xe9\x65\nna\xefve\n"), &res),
                   0);
  assert_text(&res, "caf\u00e9 cr\u00e8me br\u00fbl\u00e9\x65\nna\u00efve\n", "iso-8859-1");
  ck_assert_int_eq(res.lines, 2);
  file_result_clear(&res);
}
END_TEST

START_TEST(text_windows1252_smart_quotes) {
  FileResult res;

  ck_assert_int_eq(
      read_data("cp1252.txt",
                B("He said \x93quoted\x94 and \x91single\x92 \x96 caf\xe9 costs \x80 5\x85\n"),
                &res),
      0);
  assert_text(
      &res,
      "He said \u201cquoted\u201d and \u2018single\u2019 \u2013 caf\u00e9 costs \u20ac 5\u2026\n",
      "windows-1252");
  file_result_clear(&res);
}
END_TEST

/* A UTF-8 file cut in the middle of its last character stays UTF-8; a short Latin-1 file
 * whose last byte looks like the start of a UTF-8 character does not become UTF-8. */
START_TEST(text_cut_last_character) {
  FileResult res;

  ck_assert_int_eq(read_data("cut8.txt", B("na\u00efve caf\xc3"), &res), 0);
  assert_text(&res, "na\u00efve caf\uFFFD\n", "utf-8");
  file_result_clear(&res);
  ck_assert_int_eq(read_data("cafe1.txt", B("un caf\xe9"), &res), 0);
  assert_text(&res, "un caf\u00e9\n", "iso-8859-1");
  file_result_clear(&res);
}
END_TEST

START_TEST(text_unknown_8bit_falls_back_to_latin1) {
  FileResult res;

  /* 0x81, 0x8D and 0x90 have no Windows-1252 meaning: the file is read as ISO-8859-1. */
  ck_assert_int_eq(read_data("odd.txt", B("abc \x81\x8d\x90 def \xe9\n"), &res), 0);
  assert_text(&res, "abc \xc2\x81\xc2\x8d\xc2\x90 def \u00e9\n", "iso-8859-1");
  file_result_clear(&res);
}
END_TEST

/* A byte Windows-1252 leaves undefined after the head does not fail the file. */
START_TEST(text_windows1252_undefined_byte_later) {
  GString *g = g_string_new(NULL);
  FileResult res;

  g_string_append(g, "\x93quoted\x94 caf\xe9\n");
  while (g->len < 70000)
    g_string_append(g, "filler line\n");
  g_string_append(g, "odd \x81 byte \x80\n");
  ck_assert_int_eq(read_data("late1252.txt", g->str, g->len, &res), 0);
  ck_assert_msg(res.code == NULL, "%s", res.error);
  ck_assert_str_eq(res.encoding, "windows-1252");
  ck_assert(g_str_has_prefix(res.content, "\u201cquoted\u201d caf\u00e9\n"));
  ck_assert(g_str_has_suffix(res.content, "\nodd \xc2\x81 byte \u20ac\n"));
  file_result_clear(&res);
  g_string_free(g, TRUE);
}
END_TEST

/* A lone surrogate is one bad unit, shown as U+FFFD as invalid UTF-8 is: the rest reads on. */
START_TEST(text_utf16_lone_surrogate_replaced) {
  FileResult res;

  /* UTF-16LE: "ok\n", then a high surrogate followed by "a" instead of a low one. */
  ck_assert_int_eq(read_data("bad16le.txt",
                             B("\xFF\xFEo\0k\0\n\0\x00\xD8"
                               "a\0\n\0"),
                             &res),
                   0);
  assert_text(&res, "ok\n\uFFFDa\n", "utf-16le");
  ck_assert_int_eq(res.lines, 2);
  file_result_clear(&res);

  /* UTF-16BE: a low surrogate with no high one before it, and a pair the other way round. */
  ck_assert_int_eq(read_data("bad16be.txt", B("\xFE\xFF\0x\xDC\x00\0y\xDC\x00\xD8\x3D\0\n"), &res),
                   0);
  assert_text(&res, "x\uFFFDy\uFFFD\uFFFD\n", "utf-16be");
  file_result_clear(&res);
}
END_TEST

/* The end of the file inside a unit: a high surrogate with nothing after it, an odd byte. */
START_TEST(text_utf16_cut_at_end_of_file) {
  FileResult res;

  ck_assert_int_eq(read_data("end-high.txt",
                             B("\xFF\xFE"
                               "a\0\n\0b\0\x3D\xD8"),
                             &res),
                   0);
  assert_text(&res, "a\nb\uFFFD\n", "utf-16le");
  ck_assert_int_eq(res.lines, 2);
  file_result_clear(&res);

  ck_assert_int_eq(read_data("end-odd.txt", B("\xFE\xFF\0a\0\n\0b\0"), &res), 0);
  assert_text(&res, "a\nb\uFFFD\n", "utf-16be");
  file_result_clear(&res);
}
END_TEST

/* UTF-32 values that are no characters (past U+10FFFF, surrogates) and a cut last unit. */
START_TEST(text_utf32_invalid_units_replaced) {
  FileResult res;

  ck_assert_int_eq(read_data("bad32le.txt",
                             B("\xFF\xFE\0\0"
                               "a\0\0\0\0\0\x11\0\n\0\0\0\x00\xD8\0\0"
                               "b\0\0\0\xFF\xFF\xFF\xFF\n\0\0\0\x00\xF6\x01\0c\0"),
                             &res),
                   0);
  assert_text(&res, "a\uFFFD\n\uFFFDb\uFFFD\n\U0001F600\uFFFD\n", "utf-32le");
  ck_assert_int_eq(res.lines, 3);
  file_result_clear(&res);

  ck_assert_int_eq(read_data("bad32be.txt", B("\0\0\xFE\xFF\0\x11\0\0\0\0\0z"), &res), 0);
  assert_text(&res, "\uFFFDz\n", "utf-32be");
  file_result_clear(&res);
}
END_TEST

/* Bad units past the head, one of them a high surrogate cut by the end of the head: the file
 * streams to its end, each bad unit one U+FFFD, and the window and line count stay right. */
START_TEST(text_utf16_bad_units_streamed) {
  GString *text = g_string_new(NULL);
  GByteArray *data = g_byte_array_new();
  g_autofree char *path = NULL, *want = NULL, *a66 = g_strnfill(66, 'a');
  const char *notice;
  TextOptions o = topts(1, 1000000, false);
  FileResult res;

  g_byte_array_append(data, (const guint8 *)"\xFF\xFE", 2);
  /* 32766 units of "a" and "\n" end at byte 65534: the high surrogate is the head's last
   * unit, and the next chunk starts with "b", not a low surrogate. */
  for (int i = 0; i < 32766; i++) {
    const char *u = i % 100 == 99 ? "\n\0" : "a\0";

    g_byte_array_append(data, (const guint8 *)u, 2);
    g_string_append_c(text, i % 100 == 99 ? '\n' : 'a');
  }
  g_byte_array_append(data,
                      (const guint8 *)"\x00\xD8"
                                      "b\0\n\0",
                      6);
  g_string_append(text, "\uFFFDb\n");
  for (int i = 0; i < 50000; i++) {
    g_byte_array_append(data, (const guint8 *)"c\0\x00\xDC\n\0", 6);
    g_string_append(text, "c\uFFFD\n");
  }
  ck_assert_uint_eq(data->len, 2 + 32766 * 2 + 6 + 50000 * 6);
  path = put("bad16-big.txt", data->data, data->len);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  ck_assert_msg(res.code == NULL, "%s", res.error);
  ck_assert_str_eq(res.encoding, "utf-16le");
  ck_assert_int_eq(res.lines, 327 + 1 + 50000);
  ck_assert(res.truncated); /* the 100 KiB content cap */
  /* What the cap lets through is the start of the expected text, then the notice. */
  notice = strstr(res.content, "\u2026 ");
  ck_assert_ptr_nonnull(notice);
  ck_assert(strncmp(res.content, text->str, (size_t)(notice - res.content)) == 0);
  ck_assert(notice - res.content > 90 * 1024);
  file_result_clear(&res);

  /* Line 328: the 66 "a" after the last full hundred, the bad surrogate, "b". */
  o = topts(327 + 1, 3, false);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  g_free(want);
  want = g_strdup_printf("%s\uFFFDb\nc\uFFFD\nc\uFFFD\n"
                         "\u2026 49998 more lines not shown; continue with offset=331\n",
                         a66);
  assert_text(&res, want, "utf-16le");
  file_result_clear(&res);
  g_string_free(text, TRUE);
  g_byte_array_unref(data);
}
END_TEST

START_TEST(text_binary_with_nul) {
  uint8_t data[256 * 8];
  FileResult res;

  for (size_t i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)i;
  ck_assert_int_lt(read_data("binary.dat", data, sizeof data, &res), 0);
  ck_assert_str_eq(res.code, CODE_UNSUPPORTED_FORMAT);
  ck_assert_msg(strstr(res.error, "binary") != NULL, "error: %s", res.error);
  ck_assert_ptr_null(res.content);
  file_result_clear(&res);
}
END_TEST

START_TEST(text_elf_binary) {
  g_autofree char *elf = NULL;
  g_autofree char *path = NULL;
  gsize len;
  TextOptions o = topts(1, 2000, true);
  FileResult res;

  ck_assert(g_file_get_contents("/bin/true", &elf, &len, NULL));
  path = put("tool", elf, len);
  ck_assert_int_lt(read_path(path, &o, &res), 0);
  ck_assert_str_eq(res.code, CODE_UNSUPPORTED_FORMAT);
  ck_assert_msg(g_str_has_prefix(res.error, "binary file (application/x-"), "error: %s", res.error);
  ck_assert_ptr_null(res.content);
  file_result_clear(&res);
}
END_TEST

START_TEST(text_nul_after_the_head) {
  GString *g = g_string_new(NULL);
  FileResult res;

  while (g->len < 100 * 1024)
    g_string_append(g, "plain text line\n");
  g_string_append_len(g, "x\0y\n", 4);
  ck_assert_int_lt(read_data("late-nul.txt", g->str, g->len, &res), 0);
  ck_assert_str_eq(res.code, CODE_UNSUPPORTED_FORMAT);
  ck_assert_ptr_null(res.content);
  ck_assert_int_eq(res.lines, 0);
  file_result_clear(&res);
  g_string_free(g, TRUE);
}
END_TEST

/* Bad bytes after a valid UTF-8 head become U+FFFD; a character cut by the end of the head
 * or of a chunk is kept whole. */
START_TEST(text_invalid_utf8_later_replaced) {
  GString *g = g_string_new(NULL);
  TextOptions o = topts(1, 1000000, false);
  g_autofree char *path = NULL;
  FileResult res;
  const char *tail;

  for (int i = 0; i < 65535; i++)
    g_string_append_c(g, i % 64 == 63 ? '\n' : 'a');
  g_string_append(g, "\u00e9\u20ac\n");                       /* é straddles byte 65536 */
  g_string_append(g, "bad \xff \xe2\x82 \xed\xa0\x80 end\n"); /* invalid, cut, surrogate */
  while (g->len < 131069)
    g_string_append_c(g, 'b');
  g_string_append(g, "\n\U0001F600\nlast\n"); /* the emoji straddles the next chunk */
  path = put("mixed.txt", g->str, g->len);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  ck_assert_msg(res.code == NULL, "%s", res.error);
  ck_assert_str_eq(res.encoding, "utf-8");
  ck_assert(strstr(res.content, "\u00e9\u20ac\n") != NULL);
  ck_assert(strstr(res.content, "\nbad \uFFFD \uFFFD \uFFFD\uFFFD\uFFFD end\n") != NULL);
  tail = strstr(res.content, "\n\U0001F600\nlast\n");
  ck_assert_ptr_nonnull(tail);
  file_result_clear(&res);
  g_string_free(g, TRUE);
}
END_TEST

/* 53 MB, 1,000,000 lines: every line is counted, only the window is kept. */
START_TEST(text_fifty_megabytes_streamed) {
  g_autofree char *path = g_build_filename(tmpdir, "big.txt", NULL);
  FILE *f = fopen(path, "w");
  struct rusage before, after;
  TextOptions o = topts(1, 2000, true);
  FileResult res;

  ck_assert_ptr_nonnull(f);
  for (int i = 1; i <= 1000000; i++)
    fprintf(f, "%07d the quick brown fox jumps over the lazy dog.\n", i); /* 53 bytes */
  ck_assert_int_eq(fclose(f), 0);

  getrusage(RUSAGE_SELF, &before);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  getrusage(RUSAGE_SELF, &after);
  ck_assert_msg(res.code == NULL, "%s", res.error);
  ck_assert_int_eq(res.lines, 1000000);
  ck_assert_uint_le(res.content_len, TEXT_MAX_CONTENT);
  ck_assert(res.truncated);
  ck_assert_int_eq(res.shown_first, 1);
  ck_assert(g_str_has_prefix(res.content, "     1\t0000001 the quick"));
  ck_assert(strstr(res.content, "more lines not shown") != NULL);
  /* Peak memory grew by far less than the file's size. */
  ck_assert_int_lt(after.ru_maxrss - before.ru_maxrss, 16 * 1024);
  file_result_clear(&res);

  o = topts(999999, 5, true);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  ck_assert_str_eq(res.content, "999999\t0999999 the quick brown fox jumps over the lazy dog.\n"
                                "1000000\t1000000 the quick brown fox jumps over the lazy dog.\n");
  ck_assert_int_eq(res.shown_first, 999999);
  ck_assert_int_eq(res.shown_last, 1000000);
  file_result_clear(&res);
}
END_TEST

START_TEST(text_cancelled_between_chunks) {
  GString *g = g_string_new(NULL);
  g_autofree char *path = NULL;
  atomic_bool cancelled = true;
  TextOptions o = topts(1, 2000, true);
  FileResult res;

  while (g->len < 3 * HEAD_SIZE)
    g_string_append(g, "some line\n");
  path = put("cancel.txt", g->str, g->len);
  o.cancelled = &cancelled;
  ck_assert_int_eq(read_path(path, &o, &res), -ECANCELED);
  ck_assert_str_eq(res.code, CODE_CANCELLED);
  ck_assert_ptr_null(res.content);
  file_result_clear(&res);
  g_string_free(g, TRUE);
}
END_TEST

/* Bytes the process has read with read() and pread(), from /proc/self/io; -1 when unknown. */
static int64_t read_chars(void) {
  g_autofree char *io = NULL;
  const char *at;

  if (!g_file_get_contents("/proc/self/io", &io, NULL, NULL) || (at = strstr(io, "rchar:")) == NULL)
    return -1;
  return g_ascii_strtoll(at + 6, NULL, 10);
}

/* A tail shows what a forward read of the same lines shows, with the true line numbers and
 * count, in every encoding: found backwards in bytes (UTF-8, Latin-1), in units (UTF-16,
 * UTF-32), or forwards (EBCDIC, whose newline is not the byte 0x0A). */
START_TEST(text_tail_is_the_forward_window) {
  static const struct {
    const char *charset, *bom;
    size_t bom_len;
    const char *encoding;
  } encs[] = {
      {"UTF-8", "", 0, "utf-8"},
      {"UTF-8", "\xEF\xBB\xBF", 3, "utf-8"},
      {"UTF-16LE", "\xFF\xFE", 2, "utf-16le"},
      {"UTF-16BE", "\xFE\xFF", 2, "utf-16be"},
      {"UTF-32LE", "\xFF\xFE\0\0", 4, "utf-32le"},
      {"ISO-8859-1", "", 0, "iso-8859-1"},
      {"IBM037", "", 0, "ebcdic"},
  };
  static const int64_t tails[] = {1, 2, 3, 5, 40, 100000};
  GString *utf8 = g_string_new(NULL);

  for (int i = 1; i <= 40; i++)
    g_string_append_printf(utf8, "%s line %d of text, caf\u00e9%s", i % 7 == 0 ? "" : "a", i,
                           i % 5 == 0   ? "\r\n"
                           : i % 6 == 0 ? "\n\n"
                                        : "\n");
  g_string_append(utf8, "the last line, without a newline");
  for (size_t e = 0; e < G_N_ELEMENTS(encs); e++) {
    gsize len = 0;
    g_autofree char *conv = NULL, *path = NULL;
    GString *file = g_string_new_len(encs[e].bom, (gssize)encs[e].bom_len);

    /* EBCDIC text as libmagic knows it ends its lines with NEL too. */
    if (strcmp(encs[e].charset, "IBM037") == 0) {
      g_auto(GStrv) split = g_strsplit(utf8->str, "\n", -1);
      g_autofree char *nel = g_strjoinv("\xC2\x85\n", split); /* U+0085 */
      conv = convert(nel, -1, encs[e].charset, "UTF-8", &len);
    } else {
      conv = convert(utf8->str, (gssize)utf8->len, encs[e].charset, "UTF-8", &len);
    }
    g_string_append_len(file, conv, (gssize)len);
    path = put("tail.txt", file->str, file->len);
    for (size_t t = 0; t < G_N_ELEMENTS(tails); t++) {
      TextOptions o = topts(1, 2000, true);
      FileResult tail, fwd;

      o.tail = tails[t];
      ck_assert_int_eq(read_path(path, &o, &tail), 0);
      assert_text(&tail, tail.content, encs[e].encoding);
      o = topts(MAX(tail.lines - tails[t] + 1, 1), tails[t], true);
      ck_assert_int_eq(read_path(path, &o, &fwd), 0);
      ck_assert_msg(strcmp(tail.content, fwd.content) == 0, "%s tail %d:\n%s\nforward:\n%s",
                    encs[e].charset, (int)tails[t], tail.content, fwd.content);
      ck_assert_int_eq(tail.lines, fwd.lines);
      ck_assert_int_eq(tail.shown_first, fwd.shown_first);
      ck_assert_int_eq(tail.shown_last, fwd.shown_last);
      ck_assert_int_eq(tail.truncated, fwd.truncated);
      file_result_clear(&tail);
      file_result_clear(&fwd);
    }
    g_string_free(file, TRUE);
  }
  g_string_free(utf8, TRUE);
}
END_TEST

/* The last lines of a 53 MB file: true numbers and count, and only its last blocks read with
 * read() (the lines before are counted through a mapping). */
START_TEST(text_tail_reads_only_the_end) {
  g_autofree char *path = g_build_filename(tmpdir, "big.log", NULL);
  FILE *f = fopen(path, "w");
  TextOptions o = topts(1, 2000, true);
  int64_t before, after;
  FileResult res;

  ck_assert_ptr_nonnull(f);
  for (int i = 1; i <= 1000000; i++)
    fprintf(f, "%07d the quick brown fox jumps over the lazy dog.\n", i); /* 53 bytes */
  ck_assert_int_eq(fclose(f), 0);

  o.tail = 2;
  before = read_chars();
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  after = read_chars();
  ck_assert_str_eq(res.content, "999999\t0999999 the quick brown fox jumps over the lazy dog.\n"
                                "1000000\t1000000 the quick brown fox jumps over the lazy dog.\n");
  ck_assert_int_eq(res.lines, 1000000);
  ck_assert_int_eq(res.shown_first, 999999);
  ck_assert(res.truncated);
  if (before >= 0)
    ck_assert_int_lt(after - before, 512 * 1024); /* the head and a block, not 53 MB */
  file_result_clear(&res);
}
END_TEST

/* A tail over the content cap shows the last lines that fit, the file's end, and names the
 * earlier lines of the tail it could not show. */
START_TEST(text_tail_cut_by_the_content_cap) {
  GString *g = g_string_new(NULL);
  g_autofree char *path = NULL, *want_last = NULL, *notice = NULL;
  TextOptions o = topts(1, 2000, true);
  FileResult res;
  int64_t shown;

  for (int i = 1; i <= 3000; i++)
    g_string_append_printf(
        g, "%04d %s\n", i,
        i % 2 ? "short" : "a longer line of text, padded out with more words to weigh more");
  path = put("cap.txt", g->str, g->len);
  o.tail = 2500;
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  ck_assert_uint_le(res.content_len, TEXT_MAX_CONTENT);
  ck_assert_int_eq(res.lines, 3000);
  ck_assert_int_eq(res.shown_last, 3000);
  shown = res.shown_last - res.shown_first + 1;
  ck_assert_int_lt(shown, 2500);
  ck_assert_int_gt(shown, 1000);
  want_last = g_strdup_printf(
      "  3000\t3000 a longer line of text, padded out with more words to weigh more\n");
  notice = g_strdup_printf("\u2026 %" G_GINT64_FORMAT
                           " earlier lines of the tail not shown (100 KiB content limit); read "
                           "them with offset=501, limit=%" G_GINT64_FORMAT "\n",
                           2500 - shown, 2500 - shown);
  ck_assert_msg(g_str_has_suffix(res.content, notice), "ends: %s",
                res.content + res.content_len - MIN(res.content_len, 200));
  ck_assert(strstr(res.content, want_last) != NULL);
  file_result_clear(&res);
  g_string_free(g, TRUE);
}
END_TEST

/* Lines that grow towards the end of the file: the tail shrinks pass after pass, a bounded
 * number of times, and what is shown is exact either way: the end of the file, or the start of
 * the window with the notice of the lines after it. */
START_TEST(text_tail_of_growing_lines) {
  GString *g = g_string_new(NULL);
  g_autofree char *path = NULL;
  TextOptions o = topts(1, 2000, true);
  FileResult res;

  for (int i = 1; i <= 8000; i++) {
    g_string_append_printf(g, "%d ", i);
    for (int k = 0; k < i / 4; k++)
      g_string_append_c(g, 'a' + k % 26);
    g_string_append_c(g, '\n');
  }
  path = put("growing.txt", g->str, g->len);
  o.tail = 8000;
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  ck_assert_uint_le(res.content_len, TEXT_MAX_CONTENT);
  ck_assert_int_eq(res.lines, 8000);
  ck_assert_int_gt(res.shown_first, 1);
  if (res.shown_last == 8000) {
    ck_assert(strstr(res.content, "earlier lines of the tail not shown") != NULL);
  } else {
    g_autofree char *notice = g_strdup_printf(
        "more lines not shown (100 KiB content limit); continue with offset=%" G_GINT64_FORMAT "\n",
        res.shown_last + 1);
    ck_assert(g_str_has_suffix(res.content, notice));
  }
  file_result_clear(&res);
  g_string_free(g, TRUE);
}
END_TEST

/* A column in a UTF-16 file counts characters, not bytes or units. */
START_TEST(text_column_in_utf16) {
  gsize len = 0;
  g_autofree char *conv = convert("x\U0001F600\u00e9abc\nnext\n", -1, "UTF-16LE", "UTF-8", &len);
  g_autofree char *file = g_malloc(len + 2);
  FileResult res;
  TextOptions o = topts(1, 1, false);

  memcpy(file, "\xFF\xFE", 2);
  memcpy(file + 2, conv, len);
  o.column = 3;
  g_autofree char *path = put("col16.txt", file, len + 2);
  ck_assert_int_eq(read_path(path, &o, &res), 0);
  ck_assert(g_str_has_prefix(res.content, "\u00e9abc\n"));
  ck_assert(res.truncated);
  file_result_clear(&res);
}
END_TEST

/* Go's sources as shipped: the line count and the shown lines against the file itself. */
START_TEST(text_real_go_sources) {
  static const char *const names[] = {"fmt/print.go", "fmt/format.go", "strings/strings.go",
                                      "unicode/tables.go", "go/build/build.go"};

  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *path = g_build_filename("/usr/share/go-1.19/src", names[i], NULL);
    g_autofree char *data = NULL;
    g_auto(GStrv) want = NULL;
    gsize len;
    int64_t nl = 0;
    TextOptions o = topts(1, 2000, true);
    FileResult res;
    const char *p;

    if (!g_file_get_contents(path, &data, &len, NULL)) {
      skip_note("text_real_go_sources: %s is missing (Debian package golang-1.19-src)", path);
      continue;
    }
    for (gsize k = 0; k < len; k++)
      nl += data[k] == '\n';
    nl += len > 0 && data[len - 1] != '\n';
    ck_assert_int_eq(read_path(path, &o, &res), 0);
    ck_assert_int_eq(res.lines, nl);
    ck_assert_str_eq(res.encoding, "utf-8");
    ck_assert_uint_le(res.content_len, TEXT_MAX_CONTENT);
    /* The first shown lines are the file's, in cat -n form. */
    want = g_strsplit(data, "\n", 21);
    p = res.content;
    for (int k = 0; k < 20 && want[k + 1] != NULL; k++) {
      g_autofree char *line = g_strdup_printf("%6d\t%s\n", k + 1, want[k]);

      ck_assert_msg(strncmp(p, line, strlen(line)) == 0, "%s line %d", names[i], k + 1);
      p += strlen(line);
    }
    ck_assert_int_eq(res.truncated, nl > res.shown_last);
    file_result_clear(&res);
  }
}
END_TEST

/* Vim's tutor ships in Latin-1 beside its UTF-8 translation: decoding one must give the other. */
START_TEST(text_real_latin1_file) {
  static const char *const langs[] = {"de", "fr", "es", "nl"};
  int checked = 0, missing = 0;

  for (size_t i = 0; i < G_N_ELEMENTS(langs); i++) {
    g_autofree char *latin = g_strdup_printf("/usr/share/vim/vim90/tutor/tutor.%s", langs[i]);
    g_autofree char *utf8 = g_strconcat(latin, ".utf-8", NULL);
    g_autofree char *raw = NULL, *want = NULL;
    gsize raw_len, want_len;
    TextOptions o = topts(1, 100000, false);
    FileResult res;

    if (!g_file_get_contents(latin, &raw, &raw_len, NULL) ||
        !g_file_get_contents(utf8, &want, &want_len, NULL)) {
      skip_note("text_real_latin1_file: %s or its .utf-8 twin is missing (Debian package "
                "vim-runtime)",
                latin);
      missing++;
      continue;
    }
    if (g_utf8_validate(raw, (gssize)raw_len, NULL) || want_len > TEXT_MAX_CONTENT - 1024)
      continue;
    ck_assert_int_eq(read_path(latin, &o, &res), 0);
    ck_assert_msg(res.code == NULL, "%s: %s", latin, res.error);
    ck_assert_msg(strcmp(res.encoding, "iso-8859-1") == 0 ||
                      strcmp(res.encoding, "windows-1252") == 0,
                  "%s: encoding %s", latin, res.encoding);
    ck_assert_msg(res.content_len == want_len && memcmp(res.content, want, want_len) == 0,
                  "%s decodes differently from %s", latin, utf8);
    file_result_clear(&res);
    checked++;
  }
  /* The tutors that are there must include a Latin-1 one, or nothing was checked. */
  ck_assert_msg(checked > 0 || missing == (int)G_N_ELEMENTS(langs),
                "no vim tutor of %d found was Latin-1 within the content limit",
                (int)G_N_ELEMENTS(langs) - missing);
}
END_TEST

static Suite *text_suite(void) {
  Suite *s = suite_create("text");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 100);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, text_utf8_numbered);
  tcase_add_test(tc, text_empty_file);
  tcase_add_test(tc, text_crlf_and_no_final_newline);
  tcase_add_test(tc, text_utf8_bom_dropped);
  tcase_add_test(tc, text_utf16_and_utf32_with_bom);
  tcase_add_test(tc, text_utf16_nul_character_replaced);
  tcase_add_test(tc, text_utf16_streamed_across_chunks);
  tcase_add_test(tc, text_latin1);
  tcase_add_test(tc, text_windows1252_smart_quotes);
  tcase_add_test(tc, text_cut_last_character);
  tcase_add_test(tc, text_unknown_8bit_falls_back_to_latin1);
  tcase_add_test(tc, text_windows1252_undefined_byte_later);
  tcase_add_test(tc, text_utf16_lone_surrogate_replaced);
  tcase_add_test(tc, text_utf16_cut_at_end_of_file);
  tcase_add_test(tc, text_utf32_invalid_units_replaced);
  tcase_add_test(tc, text_utf16_bad_units_streamed);
  tcase_add_test(tc, text_binary_with_nul);
  tcase_add_test(tc, text_elf_binary);
  tcase_add_test(tc, text_nul_after_the_head);
  tcase_add_test(tc, text_invalid_utf8_later_replaced);
  tcase_add_test(tc, text_fifty_megabytes_streamed);
  tcase_add_test(tc, text_cancelled_between_chunks);
  tcase_add_test(tc, text_real_go_sources);
  tcase_add_test(tc, text_real_latin1_file);
  tcase_add_test(tc, text_tail_is_the_forward_window);
  tcase_add_test(tc, text_tail_reads_only_the_end);
  tcase_add_test(tc, text_tail_cut_by_the_content_cap);
  tcase_add_test(tc, text_column_in_utf16);
  tcase_add_test(tc, text_tail_of_growing_lines);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(text_suite()));
}
