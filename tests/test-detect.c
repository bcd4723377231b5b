/* Content detection: signatures, their false friends, and libmagic on worker threads. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/readers/detect.h"
#include "daemon/readers/kind-cut.h"
#include "daemon/readers/kinds.h"
#include "daemon/readers/reader.h"
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

/* The table of kinds: every signature has its one row; names are unique; the rows a read
 * result names are found back from it; text takes what nothing else matched; a notebook is told
 * by its name or its content, an SVG to draw by `render`. */
START_TEST(detect_table_of_kinds) {
  static const uint8_t notebook[] = "{\"cells\": [], \"nbformat\": 4}";
  static const uint8_t svg[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
  ReaderOptions o = {.path = "a.txt"};
  size_t n = 0;
  const Kind *rows = kinds_table(&n);

  ck_assert_uint_ge(n, 14);
  for (DetectKind k = DETECT_PNG; k <= DETECT_PPTX; k++) {
    const Kind *row = kinds_by_magic(k);

    ck_assert_msg(row != NULL, "signature %d has no row", (int)k);
    ck_assert_str_eq(row->media_type, detect_media_type(k));
    ck_assert(row->blocking);
  }
  ck_assert_ptr_null(kinds_by_magic(DETECT_UNKNOWN));
  for (size_t i = 0; i < n; i++) {
    FileResult f = {.type = rows[i].type, .format = rows[i].format};
    const Kind *back = kinds_of_result(&f);

    ck_assert_ptr_nonnull(rows[i].read);
    ck_assert(rows[i].piece != NULL && rows[i].pieces != NULL);
    for (size_t j = i + 1; j < n; j++)
      ck_assert_str_ne(rows[i].name, rows[j].name);
    /* Every row's result finds a row of its type and format, cut the same way. */
    ck_assert((back != NULL && back->type == rows[i].type && back->cut == rows[i].cut) ||
              rows[i].type == FILE_TYPE_IMAGE);
    /* What a read decides the cost of is cut to its share once read. */
    ck_assert(rows[i].guess == NULL || rows[i].cut != NULL);
  }
  ck_assert_str_eq(kinds_detect(&o, DETECT_UNKNOWN, (const uint8_t *)"hello\n", 6)->name, "text");
  ck_assert_str_eq(kinds_detect(&o, DETECT_UNKNOWN, notebook, sizeof notebook - 1)->name,
                   "notebook");
  o.path = "x.IPYNB";
  ck_assert_str_eq(kinds_detect(&o, DETECT_UNKNOWN, (const uint8_t *)"{}", 2)->name, "notebook");
  o.path = "d.svg";
  ck_assert_str_eq(kinds_detect(&o, DETECT_UNKNOWN, svg, sizeof svg - 1)->name, "text");
  o.render = true;
  ck_assert_str_eq(kinds_detect(&o, DETECT_UNKNOWN, svg, sizeof svg - 1)->name, "svg-render");
  ck_assert_str_eq(kinds_detect(&o, DETECT_XLSX, NULL, 0)->name, "xlsx");
  ck_assert_ptr_eq(kinds_by_magic(DETECT_PNG)->cut, &kind_cut_tiles);
  ck_assert(!kinds_detect(&o, DETECT_UNKNOWN, (const uint8_t *)"x", 1)->blocking);
}
END_TEST

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
  tcase_add_test(tc, detect_table_of_kinds);
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
