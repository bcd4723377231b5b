/* Content detection: signatures, their false friends, and libmagic on worker threads. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/readers/detect.h"
#include "tests/lib/check-run.h"

#define B(s) ((const uint8_t *)(s)), (sizeof(s) - 1)

/* A minimal BMP file header + BITMAPINFOHEADER (40 bytes): 1x1, 24 bits. */
static const uint8_t bmp[] = {
    'B', 'M', 58, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, /* file header: size, reserved, data offset */
    40,  0,   0,  0, 1, 0, 0, 0, 1, 0, 0,  0, 1, 0, 24, 0, 0, 0, 0, 0, 4,   0,
    0,   0,   0,  0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0, 0, 255, 0,
};

START_TEST(detect_signatures) {
  ck_assert_int_eq(detect_magic(B("\x89PNG\r\n\x1a\n\0\0\0\rIHDR")), DETECT_PNG);
  ck_assert_int_eq(detect_magic(B("\xFF\xD8\xFF\xE0\0\x10JFIF")), DETECT_JPEG);
  ck_assert_int_eq(detect_magic(B("GIF87a\1\0\1\0")), DETECT_GIF);
  ck_assert_int_eq(detect_magic(B("GIF89a\1\0\1\0")), DETECT_GIF);
  ck_assert_int_eq(detect_magic(B("RIFF\x24\0\0\0WEBPVP8 ")), DETECT_WEBP);
  ck_assert_int_eq(detect_magic(B("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")), DETECT_PDF);
  ck_assert_int_eq(detect_magic(bmp, sizeof bmp), DETECT_BMP);
  ck_assert_int_eq(detect_magic(B("II*\0\x08\0\0\0")), DETECT_TIFF);
  ck_assert_int_eq(detect_magic(B("MM\0*\0\0\0\x08")), DETECT_TIFF);
  ck_assert_int_eq(detect_magic(B("\0\0\1\0\1\0\x10\x10\0\0\1\0\x20\0")), DETECT_ICO);
}
END_TEST

START_TEST(detect_pdf_after_junk) {
  GString *g = g_string_new(NULL);

  g_string_append(g, "some mail headers\r\n");
  g_string_append(g, "%PDF-1.4\n1 0 obj\n");
  ck_assert_int_eq(detect_magic((const uint8_t *)g->str, g->len), DETECT_PDF);

  /* Beyond the first KiB it is not a header any more. */
  g_string_truncate(g, 0);
  for (int i = 0; i < 120; i++)
    g_string_append(g, "filler...\n");
  g_string_append(g, "%PDF-1.4\n");
  ck_assert_int_eq(detect_magic((const uint8_t *)g->str, g->len), DETECT_UNKNOWN);
  g_string_free(g, TRUE);
}
END_TEST

START_TEST(detect_negatives) {
  /* Text that starts like a signature. */
  ck_assert_int_eq(detect_magic(B("BMW is a car maker, and BM is a word start.\n")),
                   DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("BM\n")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("GIF89 is not a version\n")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("II* is not TIFF\n")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("RIFF\x24\0\0\0WAVEfmt ")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("data = b'%PDF-1.4\\n' + body  # writes a PDF\n")),
                   DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("\0\0\1\0\0\0")), DETECT_UNKNOWN); /* ICO with no image */
  /* Cut signatures. */
  ck_assert_int_eq(detect_magic(B("\x89PNG\r\n")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("\xFF\xD8")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("RIFF\x24\0\0\0WEB")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(bmp, 17), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(B("")), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_magic(NULL, 0), DETECT_UNKNOWN);
}
END_TEST

START_TEST(detect_media_types) {
  ck_assert_str_eq(detect_media_type(DETECT_PNG), "image/png");
  ck_assert_str_eq(detect_media_type(DETECT_JPEG), "image/jpeg");
  ck_assert_str_eq(detect_media_type(DETECT_GIF), "image/gif");
  ck_assert_str_eq(detect_media_type(DETECT_WEBP), "image/webp");
  ck_assert_str_eq(detect_media_type(DETECT_PDF), "application/pdf");
  ck_assert_str_eq(detect_media_type(DETECT_BMP), "image/bmp");
  ck_assert_str_eq(detect_media_type(DETECT_TIFF), "image/tiff");
  ck_assert_ptr_nonnull(detect_media_type(DETECT_ICO));
  ck_assert_ptr_null(detect_media_type(DETECT_UNKNOWN));
  ck_assert(detect_is_web_image(DETECT_PNG) && detect_is_web_image(DETECT_JPEG));
  ck_assert(detect_is_web_image(DETECT_GIF) && detect_is_web_image(DETECT_WEBP));
  ck_assert(!detect_is_web_image(DETECT_BMP) && !detect_is_web_image(DETECT_TIFF));
  ck_assert(!detect_is_web_image(DETECT_ICO) && !detect_is_web_image(DETECT_PDF));
  ck_assert(!detect_is_web_image(DETECT_UNKNOWN));
}
END_TEST

/* libmagic names a position-independent executable as a shared library. */
static bool is_elf_mime(const char *mime) {
  return strcmp(mime, "application/x-executable") == 0 ||
         strcmp(mime, "application/x-pie-executable") == 0 ||
         strcmp(mime, "application/x-sharedlib") == 0;
}

/* The first 64 KiB of /bin/true, as the reader's head. */
static size_t elf_head(uint8_t *buf, size_t size) {
  int fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
  ssize_t n;

  ck_assert_int_ge(fd, 0);
  n = read(fd, buf, size);
  close(fd);
  ck_assert_int_gt(n, 64);
  return (size_t)n;
}

START_TEST(detect_mime_of_elf) {
  static uint8_t head[65536];
  size_t n = elf_head(head, sizeof head);
  char mime[128], small[8];

  ck_assert_int_eq(detect_magic(head, n), DETECT_UNKNOWN);
  ck_assert_int_eq(detect_mime(head, n, mime, sizeof mime), 0);
  ck_assert_msg(is_elf_mime(mime), "mime of /bin/true is %s", mime);
  /* Cut to the buffer, always terminated. */
  ck_assert_int_eq(detect_mime(head, n, small, sizeof small), 0);
  ck_assert_uint_eq(strlen(small), sizeof small - 1);
  ck_assert(strncmp(small, mime, sizeof small - 1) == 0);
  ck_assert_int_eq(detect_charset(head, n, mime, sizeof mime), 0);
  ck_assert_str_eq(mime, "binary");
}
END_TEST

START_TEST(detect_charsets) {
  char cs[64];

  ck_assert_int_eq(
      detect_charset(B("caf\xe9 cr\xe8me br\xfbl\xe9\x65, na\xefve fa\xe7\x61\x64\x65\n"), cs,
                     sizeof cs),
      0);
  ck_assert_str_eq(cs, "iso-8859-1");
  ck_assert_int_eq(detect_charset(B("caf\xc3\xa9 cr\xc3\xa8me\n"), cs, sizeof cs), 0);
  ck_assert_str_eq(cs, "utf-8");
  ck_assert_int_eq(detect_charset(B("\x01\x02\x03\x00\xff\xfe\x00\x00\x10"), cs, sizeof cs), 0);
  ck_assert_str_eq(cs, "binary");
  ck_assert_int_eq(detect_mime(B("#!/bin/sh\necho hello\n"), cs, sizeof cs), 0);
  ck_assert_str_eq(cs, "text/x-shellscript");
}
END_TEST

typedef struct {
  const uint8_t *elf;
  size_t elf_len;
  int rounds;
  int ok;
} ThreadJob;

static gpointer detect_thread(gpointer data) {
  ThreadJob *job = data;
  char mime[128], cs[64];

  for (int i = 0; i < job->rounds; i++) {
    int a = detect_mime(job->elf, job->elf_len, mime, sizeof mime);
    int b = detect_charset(B("na\xefve fa\xe7\x61\x64\x65 \xe0 la cr\xe8me\n"), cs, sizeof cs);

    if (a == 0 && b == 0 && is_elf_mime(mime) && strcmp(cs, "iso-8859-1") == 0)
      job->ok++;
    if (i == job->rounds / 2)
      detect_thread_cleanup(); /* a fresh handle is made on the next call */
  }
  detect_thread_cleanup();
  return NULL;
}

START_TEST(detect_from_two_threads) {
  static uint8_t head[65536];
  size_t n = elf_head(head, sizeof head);
  ThreadJob jobs[2] = {{head, n, 200, 0}, {head, n, 200, 0}};
  GThread *t[2];

  for (int i = 0; i < 2; i++)
    t[i] = g_thread_new("detect", detect_thread, &jobs[i]);
  for (int i = 0; i < 2; i++)
    g_thread_join(t[i]);
  ck_assert_int_eq(jobs[0].ok, 200);
  ck_assert_int_eq(jobs[1].ok, 200);
}
END_TEST

static gpointer thread_without_database(gpointer data) {
  char *buf = data;

  return GINT_TO_POINTER(detect_mime(B("hello\n"), buf, 64));
}

START_TEST(detect_without_magic_database) {
  char mime[64], cs[64];
  int r;

  /* Each test runs in its own process: the variable only affects this one. libmagic reads
   * it when a thread loads its database, so use a new thread. */
  setenv("MAGIC", "/nonexistent/readerd-test.mgc", 1);
  r = GPOINTER_TO_INT(g_thread_join(g_thread_new("nomagic", thread_without_database, mime)));
  ck_assert_int_lt(r, 0);
  ck_assert_str_eq(mime, "application/octet-stream");
  /* This thread fails the same way, again and again, without crashing. */
  ck_assert_int_lt(detect_charset(B("x"), cs, sizeof cs), 0);
  ck_assert_int_lt(detect_charset(B("x"), cs, sizeof cs), 0);
  detect_thread_cleanup();
}
END_TEST

START_TEST(detect_cleanup_any_time) {
  char mime[64];

  detect_thread_cleanup(); /* before any handle */
  ck_assert_int_eq(detect_mime(B("hello\n"), mime, sizeof mime), 0);
  ck_assert_str_eq(mime, "text/plain");
  detect_thread_cleanup();
  detect_thread_cleanup();
  ck_assert_int_eq(detect_mime(B("hello\n"), mime, sizeof mime), 0);
  ck_assert_str_eq(mime, "text/plain");
  detect_thread_cleanup();
}
END_TEST

static Suite *detect_suite(void) {
  Suite *s = suite_create("detect");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, detect_signatures);
  tcase_add_test(tc, detect_pdf_after_junk);
  tcase_add_test(tc, detect_negatives);
  tcase_add_test(tc, detect_media_types);
  tcase_add_test(tc, detect_mime_of_elf);
  tcase_add_test(tc, detect_charsets);
  tcase_add_test(tc, detect_from_two_threads);
  tcase_add_test(tc, detect_without_magic_database);
  tcase_add_test(tc, detect_cleanup_any_time);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(detect_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
