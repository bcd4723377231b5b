/* Image sizes from headers, checked against gdk-pixbuf's own reading of real files. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>

#include "daemon/readers/detect.h"
#include "daemon/readers/image-header.h"
#include "tests/lib/check-run.h"
#include "tests/lib/skip.h"

#define PIXBUF_TESTS "/usr/libexec/installed-tests/gdk-pixbuf"

static GBytes *png_header(uint32_t w, uint32_t h) {
  static const uint8_t sig[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                0,    0,   0,   13,  'I',  'H',  'D',  'R'};
  uint8_t buf[33] = {0};

  memcpy(buf, sig, sizeof(sig));
  for (int i = 0; i < 4; i++) {
    buf[16 + i] = (uint8_t)(w >> (24 - 8 * i));
    buf[20 + i] = (uint8_t)(h >> (24 - 8 * i));
  }
  buf[24] = 8;
  buf[25] = 2;
  return g_bytes_new(buf, sizeof(buf));
}

START_TEST(image_header_png_sizes) {
  static const uint32_t sizes[][2] = {{1, 1}, {3, 2}, {4000, 3000}, {65536, 7}, {60000, 60000}};

  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    g_autoptr(GBytes) b = png_header(sizes[i][0], sizes[i][1]);
    gsize n;
    const uint8_t *d = g_bytes_get_data(b, &n);
    int w = 0, h = 0;

    ck_assert_int_eq(detect_magic(d, n), DETECT_PNG);
    ck_assert_int_eq(image_header_size(DETECT_PNG, d, n, &w, &h), 0);
    ck_assert_int_eq(w, (int)sizes[i][0]);
    ck_assert_int_eq(h, (int)sizes[i][1]);
  }
}
END_TEST

START_TEST(image_header_rejects_damage) {
  g_autoptr(GBytes) b = png_header(0, 5);
  gsize n;
  const uint8_t *d = g_bytes_get_data(b, &n);
  static const uint8_t jpeg_no_frame[] = {0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, 0xff, 0xd9};
  static const uint8_t jpeg_bad_len[] = {0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00, 0, 0, 0, 0};
  int w, h;

  ck_assert_int_eq(image_header_size(DETECT_PNG, d, n, &w, &h), -EINVAL);
  /* Every prefix of a header too short to hold the size is refused, never over-read. */
  for (size_t k = 0; k < 24; k++)
    ck_assert_int_eq(image_header_size(DETECT_PNG, d, k, &w, &h), -EINVAL);
  ck_assert_int_eq(image_header_size(DETECT_JPEG, jpeg_no_frame, sizeof(jpeg_no_frame), &w, &h),
                   -EINVAL);
  ck_assert_int_eq(image_header_size(DETECT_JPEG, jpeg_bad_len, sizeof(jpeg_bad_len), &w, &h),
                   -EINVAL);
  ck_assert_int_eq(image_header_size(DETECT_BMP, d, n, &w, &h), -ENOTSUP);
}
END_TEST

/* Compares with gdk-pixbuf for every PNG, JPEG and GIF of its test suite that it can size. */
START_TEST(image_header_matches_gdk_pixbuf_on_real_files) {
  g_autoptr(GDir) dir = g_dir_open(PIXBUF_TESTS, 0, NULL);
  const char *name;
  int compared = 0;

  if (dir == NULL)
    SKIP_CASE("image_header_matches_gdk_pixbuf_on_real_files: %s is missing (Debian package "
              "gdk-pixbuf-tests)",
              PIXBUF_TESTS);
  while ((name = g_dir_read_name(dir)) != NULL) {
    g_autofree char *path = g_build_filename(PIXBUF_TESTS, name, NULL);
    g_autofree char *data = NULL;
    gsize n = 0;
    int pw = 0, ph = 0, w = 0, h = 0;
    GdkPixbufFormat *fmt;
    DetectKind k;

    if (!g_file_get_contents(path, &data, &n, NULL))
      continue;
    k = detect_magic((const uint8_t *)data, n);
    if (k != DETECT_PNG && k != DETECT_JPEG && k != DETECT_GIF && k != DETECT_WEBP)
      continue;
    fmt = gdk_pixbuf_get_file_info(path, &pw, &ph);
    if (fmt == NULL || pw <= 0 || ph <= 0)
      continue;
    ck_assert_msg(image_header_size(k, (const uint8_t *)data, n, &w, &h) == 0, "%s: no size", name);
    ck_assert_msg(w == pw && h == ph, "%s: %dx%d, gdk-pixbuf says %dx%d", name, w, h, pw, ph);
    compared++;
  }
  ck_assert_int_ge(compared, 10);
}
END_TEST

static Suite *image_header_suite(void) {
  Suite *s = suite_create("image-header");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, image_header_png_sizes);
  tcase_add_test(tc, image_header_rejects_damage);
  tcase_add_test(tc, image_header_matches_gdk_pixbuf_on_real_files);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  skip_init();
  failed = check_run(image_header_suite());
  return skip_status(failed == 0 ? 0 : 1);
}
