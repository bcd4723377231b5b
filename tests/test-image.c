/* The image reader on real files: pass-through, downscaling, orientation, conversion, hostile
 * files, the cache and the request budget. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "daemon/readers/detect.h"
#include "daemon/readers/image-cache.h"
#include "daemon/worker/child/image-convert.h"
#include "daemon/readers/image-header.h"
#include "daemon/readers/image-remote.h"
#include "daemon/readers/image.h"
#include "daemon/worker/pdf-spawn.h"
#include "daemon/worker/pdf-wire.h"
#include "daemon/readers/pdf.h"
#include "daemon/readers/reader.h"
#include "formatters/result.h"
#include "ipc/read-params.h"
#include "tests/lib/check-run.h"
#include "tests/lib/skip.h"

#define PIXBUF_TESTS "/usr/libexec/installed-tests/gdk-pixbuf"
#define WALLPAPER "/usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg" /* 6028x3391 */
#define WALLPAPER_4K "/usr/share/backgrounds/Fossa_by_Jasper_Roks.jpg"  /* 4096x2304 */
#define PHONE_PHOTO PIXBUF_TESTS "/issue70.jpg"                         /* 3120x4208 */
#define ROTATED PIXBUF_TESTS "/bug725582-testrotate.jpg"                /* EXIF orientation 6 */
#define HEAD_SIZE ((size_t)64 * 1024)

static char *tmpdir;

static void setup(void) {
  tmpdir = g_dir_make_tmp("test-image-XXXXXX", NULL);
  ck_assert_ptr_nonnull(tmpdir);
  image_cache_clear(); /* tests stay independent when check does not fork (CK_FORK=no) */
}

static void teardown(void) {
  g_autoptr(GDir) dir = g_dir_open(tmpdir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
    g_autofree char *p = g_build_filename(tmpdir, name, NULL);

    g_unlink(p);
  }
  g_rmdir(tmpdir);
  g_clear_pointer(&tmpdir, g_free);
}

/* Skips a test whose input file is not installed, saying so (the program then exits 77). */
#define NEED_FILE(path)                                                                            \
  do {                                                                                             \
    if (!g_file_test((path), G_FILE_TEST_EXISTS))                                                  \
      SKIP_CASE("%s is missing (Debian package %s)", (path),                                       \
                g_str_has_prefix((path), "/usr/share/backgrounds/") ? "lomiri-wallpapers-20.04"    \
                                                                    : "gdk-pixbuf-tests");         \
  } while (0)

/* Reads one image file the way reader.c does: open, fstat, head, signature, image_read. */
static int read_image(const char *path, int max_dimension, const atomic_bool *cancelled,
                      FileResult *res) {
  g_autofree uint8_t *head = g_malloc(HEAD_SIZE);
  ImageOptions opt = {.max_dimension = max_dimension, .cancelled = cancelled};
  struct stat st;
  ssize_t n;
  int fd = open(path, O_RDONLY | O_CLOEXEC), r;

  ck_assert_msg(fd >= 0, "%s: %s", path, g_strerror(errno));
  ck_assert_int_eq(fstat(fd, &st), 0);
  n = read(fd, head, HEAD_SIZE);
  ck_assert_int_ge(n, 0);
  memset(res, 0, sizeof(*res));
  res->path = g_strdup(path);
  r = image_read(fd, &st, detect_magic(head, (size_t)n), head, (size_t)n, &opt, res);
  close(fd);
  return r;
}

/* The sent image decoded again; its size must be the declared one. */
static GdkPixbuf *decode_sent(const ImageOut *img) {
  g_autoptr(GError) err = NULL;
  g_autofree guchar *raw = NULL;
  gsize len = 0;
  GdkPixbufLoader *l = gdk_pixbuf_loader_new();
  GdkPixbuf *pb;

  raw = g_base64_decode(img->data, &len);
  ck_assert(gdk_pixbuf_loader_write(l, raw, len, &err));
  ck_assert(gdk_pixbuf_loader_close(l, &err));
  pb = g_object_ref(gdk_pixbuf_loader_get_pixbuf(l));
  g_object_unref(l);
  ck_assert_int_eq(gdk_pixbuf_get_width(pb), img->width);
  ck_assert_int_eq(gdk_pixbuf_get_height(pb), img->height);
  ck_assert_uint_le(img->data_len, IMAGE_MAX_BASE64);
  ck_assert_uint_eq(img->data_len, strlen(img->data));
  return pb;
}

/* Mean absolute difference per channel of two pictures of the same size (RGB only). */
static double mean_difference(const GdkPixbuf *a, const GdkPixbuf *b) {
  int w = gdk_pixbuf_get_width(a), h = gdk_pixbuf_get_height(a);
  int na = gdk_pixbuf_get_n_channels(a), nb = gdk_pixbuf_get_n_channels(b);
  const guint8 *pa = gdk_pixbuf_read_pixels(a), *pb = gdk_pixbuf_read_pixels(b);
  double sum = 0;

  ck_assert_int_eq(w, gdk_pixbuf_get_width(b));
  ck_assert_int_eq(h, gdk_pixbuf_get_height(b));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        sum += abs(pa[(size_t)y * gdk_pixbuf_get_rowstride(a) + (size_t)x * na + c] -
                   pb[(size_t)y * gdk_pixbuf_get_rowstride(b) + (size_t)x * nb + c]);
  return sum / ((double)w * h * 3);
}

static char *save_png(GdkPixbuf *pb, const char *name) {
  g_autoptr(GError) err = NULL;
  char *path = g_build_filename(tmpdir, name, NULL);

  ck_assert_msg(gdk_pixbuf_save(pb, path, "png", &err, NULL), "%s", err ? err->message : "");
  return path;
}

/* A w x h "screenshot": flat panels, lines of dark glyph-like marks. Few colours. */
static GdkPixbuf *make_graphic(int w, int h, bool alpha) {
  GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha, 8, w, h);
  int nc = alpha ? 4 : 3, stride = gdk_pixbuf_get_rowstride(pb);
  guint8 *px = gdk_pixbuf_get_pixels(pb);

  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      guint8 *p = px + (size_t)y * stride + (size_t)x * nc;
      bool panel = x < w / 5,
           glyph = (y % 24) < 14 && (x * 7 + y / 24 * 3) % 11 < 6 && (x / 40) % 5 != 4;

      p[0] = panel ? 40 : glyph ? 30 : 250;
      p[1] = panel ? 44 : glyph ? 90 : 250;
      p[2] = panel ? 52 : glyph ? 160 : 248;
      if (alpha)
        p[3] = y < h / 10 ? 0 : 255;
    }
  return pb;
}

/* Peak resident memory of this process in KiB (VmHWM). */
static long peak_rss_kib(void) {
  g_autofree char *status = NULL;
  const char *p;

  if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
    return -1;
  p = strstr(status, "VmHWM:");
  return p != NULL ? strtol(p + 6, NULL, 10) : -1;
}

static uint8_t *memdup(const void *p, size_t n) {
  uint8_t *d = g_malloc(n);

  memcpy(d, p, n);
  return d;
}

static double now_s(void) {
  return (double)g_get_monotonic_time() / G_USEC_PER_SEC;
}

/* ------------------------------------------------------------------ pass-through */

START_TEST(image_within_limits_goes_byte_for_byte) {
  g_autoptr(GdkPixbuf) pb = make_graphic(640, 400, false);
  g_autofree char *path = save_png(pb, "small.png");
  g_autofree char *file = NULL;
  g_autofree char *expect = NULL;
  gsize len;
  FileResult res;

  ck_assert(g_file_get_contents(path, &file, &len, NULL));
  expect = g_base64_encode((const guchar *)file, len);
  ck_assert_int_eq(read_image(path, 1568, NULL, &res), 0);
  ck_assert_ptr_null(res.code);
  ck_assert_uint_eq(res.n_images, 1);
  ck_assert_str_eq(res.images[0].media_type, "image/png");
  ck_assert_str_eq(res.images[0].data, expect);
  ck_assert_int_eq(res.images[0].width, 640);
  ck_assert_int_eq(res.images[0].height, 400);
  ck_assert_int_eq(res.images[0].original_width, 0);
  ck_assert(!res.animated);
  file_result_clear(&res);
}
END_TEST

/* A well-formed static GIF and a JPEG go as they are too. */
START_TEST(image_gif_and_jpeg_within_limits_go_as_they_are) {
  static const char *const files[] = {PIXBUF_TESTS "/test-images/randomly-modified/valid.1.gif",
                                      PIXBUF_TESTS "/dpi.jpeg"};

  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *file = NULL, *expect = NULL;
    gsize len;
    FileResult res;

    NEED_FILE(files[i]);
    ck_assert(g_file_get_contents(files[i], &file, &len, NULL));
    expect = g_base64_encode((const guchar *)file, len);
    ck_assert_int_eq(read_image(files[i], 1568, NULL, &res), 0);
    ck_assert_str_eq(res.images[0].data, expect);
    ck_assert_str_eq(res.images[0].media_type,
                     detect_media_type(detect_magic((uint8_t *)file, len)));
    file_result_clear(&res);
  }
}
END_TEST

/* ------------------------------------------------------------------ downscaling */

START_TEST(image_wallpaper_is_downscaled_to_max_dimension) {
  g_autoptr(GdkPixbuf) sent = NULL;
  FileResult res;

  NEED_FILE(WALLPAPER);
  ck_assert_int_eq(read_image(WALLPAPER, 1568, NULL, &res), 0);
  ck_assert_ptr_null(res.code);
  ck_assert_str_eq(res.images[0].media_type, "image/jpeg");
  ck_assert_int_eq(res.images[0].width, 1568);
  ck_assert_int_eq(res.images[0].height, 882); /* 3391 * 1568 / 6028, rounded */
  ck_assert_int_eq(res.images[0].original_width, 6028);
  ck_assert_int_eq(res.images[0].original_height, 3391);
  sent = decode_sent(&res.images[0]);
  file_result_clear(&res);
}
END_TEST

START_TEST(image_phone_photo_keeps_portrait_aspect) {
  g_autoptr(GdkPixbuf) sent = NULL;
  FileResult res;

  NEED_FILE(PHONE_PHOTO);
  ck_assert_int_eq(read_image(PHONE_PHOTO, 1000, NULL, &res), 0);
  ck_assert_int_eq(res.images[0].height, 1000);
  ck_assert_int_eq(res.images[0].width, 741); /* 3120 * 1000 / 4208 */
  ck_assert_int_eq(res.images[0].original_width, 3120);
  ck_assert_int_eq(res.images[0].original_height, 4208);
  sent = decode_sent(&res.images[0]);
  file_result_clear(&res);
}
END_TEST

/* The downscaled picture is the picture: compared with gdk-pixbuf's own full decode scaled. */
START_TEST(image_downscaled_pixels_match_the_source) {
  g_autoptr(GdkPixbuf) sent = NULL, full = NULL, ref = NULL;
  FileResult res;

  NEED_FILE(WALLPAPER_4K);
  ck_assert_int_eq(read_image(WALLPAPER_4K, 800, NULL, &res), 0);
  sent = decode_sent(&res.images[0]);
  full = gdk_pixbuf_new_from_file(WALLPAPER_4K, NULL);
  ref = gdk_pixbuf_scale_simple(full, res.images[0].width, res.images[0].height, GDK_INTERP_HYPER);
  ck_assert_double_lt(mean_difference(sent, ref), 4.0);
  file_result_clear(&res);
}
END_TEST

START_TEST(image_exif_orientation_matches_reference) {
  g_autoptr(GdkPixbuf) sent = NULL, ref = NULL;
  FileResult res;
  int fd;
  uint8_t buf[4096];
  ssize_t n;

  NEED_FILE(ROTATED);
  fd = open(ROTATED, O_RDONLY);
  n = read(fd, buf, sizeof(buf));
  close(fd);
  ck_assert_int_eq(image_header_jpeg_orientation(buf, (size_t)n), 6);
  ck_assert_int_eq(read_image(ROTATED, 1568, NULL, &res), 0);
  ck_assert_int_eq(res.images[0].width, 428); /* stored 640x428, shown upright */
  ck_assert_int_eq(res.images[0].height, 640);
  ck_assert_int_eq(res.images[0].original_width, 0); /* turned, not resized */
  sent = decode_sent(&res.images[0]);
  ref = gdk_pixbuf_new_from_file(PIXBUF_TESTS "/bug725582-testrotate.png", NULL);
  ck_assert_ptr_nonnull(ref);
  ck_assert_double_lt(mean_difference(sent, ref), 6.0);
  file_result_clear(&res);
}
END_TEST

/* ------------------------------------------------------------------ encoding choices */

START_TEST(image_graphics_stay_png_photos_become_jpeg) {
  g_autoptr(GdkPixbuf) shot = make_graphic(2880, 1800, false);
  g_autoptr(GdkPixbuf) photo = NULL, sent = NULL;
  g_autofree char *shot_path = save_png(shot, "shot.png");
  g_autofree char *photo_path = NULL;
  FileResult res;

  ck_assert_int_eq(read_image(shot_path, 1568, NULL, &res), 0);
  ck_assert_str_eq(res.images[0].media_type, "image/png");
  ck_assert_int_eq(res.images[0].width, 1568);
  ck_assert_int_eq(res.images[0].height, 980);
  sent = decode_sent(&res.images[0]);
  file_result_clear(&res);

  NEED_FILE(WALLPAPER_4K);
  photo = gdk_pixbuf_new_from_file(WALLPAPER_4K, NULL);
  photo_path = save_png(photo, "photo.png");
  ck_assert_int_eq(read_image(photo_path, 1568, NULL, &res), 0);
  ck_assert_str_eq(res.images[0].media_type, "image/jpeg");
  ck_assert_int_eq(res.images[0].original_width, 4096);
  file_result_clear(&res);
}
END_TEST

START_TEST(image_transparency_is_kept) {
  g_autoptr(GdkPixbuf) pb = make_graphic(3000, 1000, true);
  g_autoptr(GdkPixbuf) sent = NULL;
  g_autofree char *path = save_png(pb, "alpha.png");
  FileResult res;

  ck_assert_int_eq(read_image(path, 1500, NULL, &res), 0);
  ck_assert_str_eq(res.images[0].media_type, "image/png");
  sent = decode_sent(&res.images[0]);
  ck_assert(gdk_pixbuf_get_has_alpha(sent));
  ck_assert_int_eq(gdk_pixbuf_read_pixels(sent)[3], 0); /* the transparent band at the top */
  file_result_clear(&res);
}
END_TEST

START_TEST(image_noise_fits_five_mib) {
  g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, 2400, 2400);
  g_autoptr(GdkPixbuf) sent = NULL;
  g_autofree char *path = NULL;
  guint8 *px = gdk_pixbuf_get_pixels(pb);
  GRand *rand = g_rand_new_with_seed(7);
  FileResult res;

  for (size_t i = 0; i < (size_t)gdk_pixbuf_get_rowstride(pb) * 2400; i++)
    px[i] = (guint8)g_rand_int(rand);
  g_rand_free(rand);
  path = save_png(pb, "noise.png");
  read_image(path, 8000, NULL, &res);
  ck_assert_msg(res.code == NULL, "%s: %s", res.code, res.error);
  ck_assert_uint_le(res.images[0].data_len, IMAGE_MAX_BASE64);
  sent = decode_sent(&res.images[0]);
  file_result_clear(&res);
}
END_TEST

/* ------------------------------------------------------------------ other formats */

START_TEST(image_bmp_tiff_ico_are_converted) {
  static const char *const files[] = {
      PIXBUF_TESTS "/test-images/randomly-modified/valid.1.bmp",
      PIXBUF_TESTS "/test-images/randomly-modified/valid.1.tiff",
      PIXBUF_TESTS "/test-images/reftests/squares.ico",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autoptr(GdkPixbuf) ref = NULL, sent = NULL;
    FileResult res;

    NEED_FILE(files[i]);
    ref = gdk_pixbuf_new_from_file(files[i], NULL);
    ck_assert_ptr_nonnull(ref);
    ck_assert_int_eq(read_image(files[i], 1568, NULL, &res), 0);
    ck_assert_msg(res.code == NULL, "%s: %s", files[i], res.error);
    ck_assert(strcmp(res.images[0].media_type, "image/png") == 0 ||
              strcmp(res.images[0].media_type, "image/jpeg") == 0);
    sent = decode_sent(&res.images[0]);
    ck_assert_double_lt(mean_difference(sent, ref), 3.0);
    file_result_clear(&res);
  }
}
END_TEST

/* Large icons are PNGs inside the ICO, which gdk-pixbuf's ICO loader refuses. */
START_TEST(image_ico_with_png_inside) {
  g_autoptr(GdkPixbuf) big = make_graphic(256, 256, true);
  g_autofree char *png_path = save_png(big, "icon.png");
  g_autofree char *ico_path = g_build_filename(tmpdir, "icon.ico", NULL);
  g_autofree char *png = NULL;
  g_autoptr(GdkPixbuf) sent = NULL;
  GByteArray *ico = g_byte_array_new();
  gsize png_len;
  FileResult res;
  uint8_t dir[6 + 2 * 16] = {0, 0, 1, 0, 2, 0};
  size_t bmp_len = 40 + 16 * 16 * 4 + 16 * 4;
  g_autofree uint8_t *bmp = g_malloc0(bmp_len);
  uint32_t off1 = sizeof(dir), off2 = (uint32_t)(sizeof(dir) + bmp_len);

  ck_assert(g_file_get_contents(png_path, &png, &png_len, NULL));
  /* Entry 1: a 16x16 32-bit BMP; entry 2: the 256x256 PNG (size bytes 0 mean 256). */
  dir[6] = 16, dir[7] = 16, dir[10] = 1, dir[12] = 32;
  memcpy(dir + 14, &(uint32_t){(uint32_t)bmp_len}, 4);
  memcpy(dir + 18, &off1, 4);
  dir[22] = 0, dir[23] = 0, dir[26] = 1, dir[28] = 32;
  memcpy(dir + 30, &(uint32_t){(uint32_t)png_len}, 4);
  memcpy(dir + 34, &off2, 4);
  memcpy(bmp, &(uint32_t){40}, 4);
  memcpy(bmp + 4, &(int32_t){16}, 4);
  memcpy(bmp + 8, &(int32_t){32}, 4);
  bmp[12] = 1, bmp[14] = 32;
  g_byte_array_append(ico, dir, sizeof(dir));
  g_byte_array_append(ico, bmp, (guint)bmp_len);
  g_byte_array_append(ico, (const guint8 *)png, (guint)png_len);
  ck_assert(g_file_set_contents(ico_path, (const char *)ico->data, ico->len, NULL));
  g_byte_array_unref(ico);

  ck_assert_int_eq(read_image(ico_path, 1568, NULL, &res), 0);
  ck_assert_msg(res.code == NULL, "%s", res.error);
  ck_assert_int_eq(res.images[0].width, 256);
  ck_assert_int_eq(res.images[0].height, 256);
  sent = decode_sent(&res.images[0]);
  ck_assert_double_lt(mean_difference(sent, big), 1.0);
  file_result_clear(&res);
}
END_TEST

START_TEST(image_animated_gif_sends_first_frame) {
  static const char *gif = PIXBUF_TESTS "/1_partyanimsm2.gif";
  g_autoptr(GdkPixbufAnimation) anim = NULL;
  g_autoptr(GdkPixbuf) sent = NULL;
  GdkPixbuf *first;
  FileResult res;

  NEED_FILE(gif);
  anim = gdk_pixbuf_animation_new_from_file(gif, NULL);
  ck_assert(!gdk_pixbuf_animation_is_static_image(anim));
  first = gdk_pixbuf_animation_get_static_image(anim);
  ck_assert_int_eq(read_image(gif, 1568, NULL, &res), 0);
  ck_assert(res.animated);
  ck_assert_str_eq(res.images[0].media_type, "image/png");
  sent = decode_sent(&res.images[0]);
  ck_assert_double_lt(mean_difference(sent, first), 0.5);
  file_result_clear(&res);
}
END_TEST

START_TEST(image_svg_is_rendered_on_request) {
  static const char svg[] = "<?xml version='1.0'?>\n<!-- a drawing -->\n"
                            "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'>"
                            "<rect width='20' height='20' fill='#ff0000'/></svg>\n";
  g_autofree char *path = g_build_filename(tmpdir, "d.svg", NULL);
  g_autoptr(GdkPixbuf) sent = NULL;
  ImageOptions opt = {.max_dimension = 1568};
  struct stat st;
  FileResult res = {0};
  int fd;

  ck_assert(image_is_svg((const uint8_t *)svg, sizeof(svg) - 1));
  ck_assert(!image_is_svg((const uint8_t *)"int main() { /* <svg */ }", 24));
  if (!image_convert_has_loader("svg"))
    SKIP_CASE("image_svg_is_rendered_on_request: gdk-pixbuf has no SVG loader (Debian package "
              "librsvg2-common)");
  ck_assert(g_file_set_contents(path, svg, sizeof(svg) - 1, NULL));
  fd = open(path, O_RDONLY);
  fstat(fd, &st);
  ck_assert_int_eq(lseek(fd, 0, SEEK_END), (off_t)sizeof(svg) - 1); /* the head was read */
  image_read_svg(fd, &st, (const uint8_t *)svg, sizeof(svg) - 1, &opt, &res);
  close(fd);
  ck_assert_msg(res.code == NULL, "%s: %s", res.code, res.error);
  ck_assert_str_eq(res.images[0].media_type, "image/png");
  ck_assert_int_eq(res.images[0].width, IMAGE_SVG_MIN_EDGE); /* scaled up from 40x20 */
  ck_assert_int_eq(res.images[0].height, IMAGE_SVG_MIN_EDGE / 2);
  sent = decode_sent(&res.images[0]);
  ck_assert_int_eq(gdk_pixbuf_read_pixels(sent)[0], 255); /* the red square on the left */
  file_result_clear(&res);
}
END_TEST

/* Renders the SVG text `svg` (written to `name`) like reader.c does with `render: true`. */
static int read_svg(const char *name, const char *svg, int max_dimension,
                    const atomic_bool *cancelled, FileResult *res) {
  g_autofree char *path = g_build_filename(tmpdir, name, NULL);
  ImageOptions opt = {.max_dimension = max_dimension, .cancelled = cancelled};
  struct stat st;
  int fd, r;

  ck_assert(g_file_set_contents(path, svg, -1, NULL));
  fd = open(path, O_RDONLY | O_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(fstat(fd, &st), 0);
  memset(res, 0, sizeof(*res));
  res->path = g_strdup(path);
  r = image_read_svg(fd, &st, (const uint8_t *)"", 0, &opt, res);
  close(fd);
  return r;
}

/* n rectangles, each blurred by its own filter, on a 4000x4000 canvas: librsvg spends seconds
 * of CPU on each few dozen of them, inside one gdk-pixbuf call. */
static char *blurred_svg(int n) {
  GString *s = g_string_new("<svg xmlns='http://www.w3.org/2000/svg' width='4000' height='4000'>"
                            "<defs>");

  for (int i = 0; i < n; i++)
    g_string_append_printf(s, "<filter id='b%d'><feGaussianBlur stdDeviation='%d'/></filter>", i,
                           30 + i % 20);
  g_string_append(s, "</defs>");
  for (int i = 0; i < n; i++)
    g_string_append_printf(s,
                           "<rect x='%d' y='%d' width='1200' height='1200' fill='#%06x' "
                           "filter='url(#b%d)'/>",
                           (i * 373) % 2800, (i * 611) % 2800, (i * 2654435761u) & 0xffffff, i);
  g_string_append(s, "</svg>\n");
  return g_string_free(s, FALSE);
}

static void *cancel_later(void *flag) {
  g_usleep(200 * 1000);
  atomic_store((atomic_bool *)flag, true);
  return NULL;
}

START_TEST(image_svg_blur_is_stopped_at_the_budget) {
  g_autofree char *svg = blurred_svg(200);
  ImageCacheStats stats;
  FileResult res;
  double t0;

  if (!image_convert_has_loader("svg")) {
    printf("SKIP: gdk-pixbuf has no SVG loader\n");
    return;
  }
  g_setenv("READERD_IMAGE_TIMEOUT_MS", "500", TRUE);
  t0 = now_s();
  ck_assert_int_eq(read_svg("blur.svg", svg, 1568, NULL, &res), -ETIME);
  ck_assert_double_lt(now_s() - t0, 0.5 + 1.0);
  ck_assert_str_eq(res.code, CODE_CONVERSION_FAILED);
  ck_assert_msg(strstr(res.error, "500 ms time budget per image") != NULL, "%s", res.error);
  ck_assert_uint_eq(res.n_images, 0);
  file_result_clear(&res);
  g_unsetenv("READERD_IMAGE_TIMEOUT_MS");
  /* A budget that ran out depends on the moment: not cached. */
  image_cache_stats(&stats);
  ck_assert_uint_eq(stats.entries, 0);
}
END_TEST

START_TEST(image_svg_blur_is_stopped_on_cancel) {
  g_autofree char *svg = blurred_svg(200);
  atomic_bool cancelled;
  pthread_t t;
  FileResult res;
  double t0;

  if (!image_convert_has_loader("svg")) {
    printf("SKIP: gdk-pixbuf has no SVG loader\n");
    return;
  }
  atomic_init(&cancelled, false);
  ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, &cancelled), 0);
  t0 = now_s();
  ck_assert_int_eq(read_svg("blur.svg", svg, 1568, &cancelled, &res), -ECANCELED);
  /* Cancelled after 0.2 s; seen within the next 50 ms poll. */
  ck_assert_double_lt(now_s() - t0, 0.2 + 0.4);
  pthread_join(t, NULL);
  ck_assert_str_eq(res.code, CODE_CANCELLED);
  file_result_clear(&res);
}
END_TEST

/* An SVG whose stated size is far past the pixel limit is rendered at maxDimension, never as
 * a 1x1 picture. */
START_TEST(image_svg_huge_canvas_renders_at_max_dimension) {
  static const char svg[] = "<svg xmlns='http://www.w3.org/2000/svg' width='30000' height='20000'>"
                            "<rect width='15000' height='20000' fill='#ff0000'/>"
                            "<rect x='15000' width='15000' height='20000' fill='#0000ff'/></svg>\n";
  g_autoptr(GdkPixbuf) sent = NULL;
  const guint8 *px;
  FileResult res;
  int stride;

  if (!image_convert_has_loader("svg")) {
    printf("SKIP: gdk-pixbuf has no SVG loader\n");
    return;
  }
  ck_assert_int_eq(read_svg("huge.svg", svg, 1568, NULL, &res), 0);
  ck_assert_msg(res.code == NULL, "%s: %s", res.code, res.error);
  ck_assert_int_eq(res.images[0].width, 1568);
  ck_assert_int_eq(res.images[0].height, 1045);
  ck_assert_int_eq(res.images[0].original_width, 30000);
  ck_assert_int_eq(res.images[0].original_height, 20000);
  sent = decode_sent(&res.images[0]);
  px = gdk_pixbuf_read_pixels(sent);
  stride = gdk_pixbuf_get_rowstride(sent);
  /* Red on the left, blue on the right, in the middle row. */
  ck_assert_int_eq(px[(size_t)522 * stride + 0], 255);
  ck_assert_int_eq(px[(size_t)522 * stride + 2], 0);
  ck_assert_int_eq(px[(size_t)522 * stride + (size_t)1500 * gdk_pixbuf_get_n_channels(sent)], 0);
  ck_assert_int_eq(px[(size_t)522 * stride + (size_t)1500 * gdk_pixbuf_get_n_channels(sent) + 2],
                   255);
  file_result_clear(&res);
}
END_TEST

/* A worker script that writes the file `reply` (may be NULL), then runs the shell command
 * `then`. */
static char *fake_worker(const char *name, const GByteArray *reply, const char *then) {
  g_autofree char *reply_path = g_strdup_printf("%s/%s.bin", tmpdir, name);
  g_autofree char *script = NULL;
  char *path = g_build_filename(tmpdir, name, NULL);

  ck_assert(g_file_set_contents(reply_path, reply != NULL ? (const char *)reply->data : "",
                                reply != NULL ? (gssize)reply->len : 0, NULL));
  script = g_strdup_printf("#!/bin/sh\ncat '%s'\n%s\n", reply_path, then);
  ck_assert(g_file_set_contents(path, script, -1, NULL));
  ck_assert_int_eq(chmod(path, 0755), 0);
  return path;
}

/* Converts a BMP through the worker at `worker`. */
static void read_bmp_with_worker(const char *worker, FileResult *res) {
  g_autoptr(GdkPixbuf) pb = make_graphic(64, 48, false);
  g_autofree char *bmp = g_build_filename(tmpdir, "w.bmp", NULL);

  ck_assert(gdk_pixbuf_save(pb, bmp, "bmp", NULL, NULL));
  image_cache_clear();
  pdf_set_worker_path(worker);
  read_image(bmp, 1568, NULL, res);
  pdf_set_worker_path(getenv("READERD_WORKER"));
}

START_TEST(image_worker_failures_are_per_file_errors) {
  static const uint8_t zero_width[24] = {0, 0, 0, 0, 1, 0, 0, 0};
  g_autofree char *crash = fake_worker("crash", NULL, "kill -SEGV $$");
  g_autofree char *hang = fake_worker("hang", NULL, "exec sleep 30");
  g_autofree char *broken = NULL;
  GByteArray *b = g_byte_array_new();
  FileResult res;
  double t0;

  /* A decoder that crashes on the file: that file's error, with how the worker ended. */
  read_bmp_with_worker(crash, &res);
  ck_assert_str_eq(res.code, CODE_CORRUPTED_FILE);
  ck_assert_msg(strstr(res.error, "signal 11") != NULL, "%s", res.error);
  file_result_clear(&res);
  /* One that hangs is killed at the budget. */
  g_setenv("READERD_IMAGE_TIMEOUT_MS", "300", TRUE);
  t0 = now_s();
  read_bmp_with_worker(hang, &res);
  ck_assert_double_lt(now_s() - t0, 2.0);
  ck_assert_str_eq(res.code, CODE_CONVERSION_FAILED);
  ck_assert_msg(strstr(res.error, "300 ms time budget") != NULL, "%s", res.error);
  file_result_clear(&res);
  g_unsetenv("READERD_IMAGE_TIMEOUT_MS");
  /* One that answers a 0-pixel-wide picture is broken, not a success. */
  pdf_wire_put(b, PDF_RES_IMAGE, zero_width, sizeof(zero_width));
  pdf_wire_put(b, PDF_RES_END, NULL, 0);
  broken = fake_worker("broken", b, "exec sleep 30");
  read_bmp_with_worker(broken, &res);
  ck_assert_str_eq(res.code, CODE_CORRUPTED_FILE);
  ck_assert_msg(strstr(res.error, "broken reply") != NULL, "%s", res.error);
  file_result_clear(&res);
  g_byte_array_free(b, TRUE);
  /* The real worker converts it. */
  read_bmp_with_worker(getenv("READERD_WORKER"), &res);
  ck_assert_msg(res.code == NULL, "%s: %s", res.code, res.error);
  ck_assert_int_eq(res.images[0].width, 64);
  file_result_clear(&res);
}
END_TEST

/* ------------------------------------------------------------------ damage and bombs */

static void write_prefix(const char *src, const char *dst, double fraction) {
  g_autofree char *data = NULL;
  gsize len;

  ck_assert(g_file_get_contents(src, &data, &len, NULL));
  ck_assert(g_file_set_contents(dst, data, (gssize)(len * fraction), NULL));
}

START_TEST(image_truncated_files_are_corrupted) {
  g_autoptr(GdkPixbuf) pb = make_graphic(300, 200, false);
  g_autofree char *png = save_png(pb, "whole.png");
  g_autofree char *bmp = g_build_filename(tmpdir, "whole.bmp", NULL);
  const char *cut[] = {"cut.png", "cut.jpg", "cut.bmp", "cut.gif"};
  const char *src[] = {png, ROTATED, bmp, PIXBUF_TESTS "/aero.gif"};

  NEED_FILE(ROTATED);
  ck_assert(gdk_pixbuf_save(pb, bmp, "bmp", NULL, NULL));
  for (size_t i = 0; i < G_N_ELEMENTS(cut); i++) {
    g_autofree char *dst = g_build_filename(tmpdir, cut[i], NULL);
    FileResult res;

    if (!g_file_test(src[i], G_FILE_TEST_EXISTS)) {
      skip_note("%s is missing (Debian package gdk-pixbuf-tests)", src[i]);
      continue;
    }
    write_prefix(src[i], dst, 0.6);
    read_image(dst, 1568, NULL, &res);
    ck_assert_msg(g_strcmp0(res.code, CODE_CORRUPTED_FILE) == 0, "%s: %s %s", cut[i], res.code,
                  res.error);
    ck_assert_uint_eq(res.n_images, 0);
    file_result_clear(&res);
  }
}
END_TEST

START_TEST(image_bombs_are_refused_before_decoding) {
  static const char *const bombs[] = {PIXBUF_TESTS "/large.jpg", PIXBUF_TESTS "/large.png",
                                      PIXBUF_TESTS "/issue205.jpg"};
  long before = peak_rss_kib();

  for (size_t i = 0; i < G_N_ELEMENTS(bombs); i++) {
    double t0 = now_s();
    FileResult res;

    NEED_FILE(bombs[i]);
    read_image(bombs[i], 1568, NULL, &res);
    ck_assert_msg(g_strcmp0(res.code, CODE_FILE_TOO_LARGE) == 0, "%s: %s", bombs[i], res.code);
    ck_assert_ptr_nonnull(strstr(res.error, "megapixels"));
    ck_assert_double_lt(now_s() - t0, 2.0);
    file_result_clear(&res);
  }
  /* The files themselves are read (up to 9 MB); nothing near their pixel size is allocated. */
  ck_assert_int_lt(peak_rss_kib() - before, 64 * 1024);
}
END_TEST

/* Every file of gdk-pixbuf's hostile sets gets an answer, through the whole reader. */
START_TEST(image_hostile_sets_are_all_answered) {
  static const char *const dirs[] = {PIXBUF_TESTS "/test-images/fail",
                                     PIXBUF_TESTS "/test-images/randomly-modified", PIXBUF_TESTS};
  int answered = 0, images = 0;

  NEED_FILE(dirs[0]);
  for (size_t d = 0; d < G_N_ELEMENTS(dirs); d++) {
    g_autoptr(GDir) dir = g_dir_open(dirs[d], 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
      g_autofree char *path = g_build_filename(dirs[d], name, NULL);
      ReaderOptions o = {.path = path, .offset = 1, .limit = 2000, .max_dimension = 1568};
      FileResult res = {0};
      double t0;

      if (!g_file_test(path, G_FILE_TEST_IS_REGULAR) ||
          g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
        continue;
      t0 = now_s();
      reader_read(&o, NULL, NULL, &res);
      ck_assert_double_lt(now_s() - t0, (double)IMAGE_CPU_BUDGET_NS / 1e9 + 5);
      ck_assert(res.code != NULL || res.type != FILE_TYPE_UNKNOWN);
      if (res.type == FILE_TYPE_IMAGE) {
        images++;
        if (res.code == NULL) {
          /* What is sent decodes, at the size it declares (decode_sent checks). */
          g_object_unref(decode_sent(&res.images[0]));
        } else {
          ck_assert_msg(strcmp(res.code, CODE_CORRUPTED_FILE) == 0 ||
                            strcmp(res.code, CODE_FILE_TOO_LARGE) == 0 ||
                            strcmp(res.code, CODE_UNSUPPORTED_FORMAT) == 0 ||
                            strcmp(res.code, CODE_CONVERSION_FAILED) == 0,
                        "%s: %s", name, res.code);
        }
      }
      answered++;
      file_result_clear(&res);
    }
  }
  ck_assert_int_ge(answered, 60);
  ck_assert_int_ge(images, 40);
  ck_assert_int_lt(peak_rss_kib(), 768 * 1024);
  detect_thread_cleanup();
}
END_TEST

START_TEST(image_cancelled_conversion_stops) {
  atomic_bool cancelled = true;
  FileResult res;

  NEED_FILE(WALLPAPER);
  read_image(WALLPAPER, 1568, &cancelled, &res);
  ck_assert_str_eq(res.code, CODE_CANCELLED);
  file_result_clear(&res);
  /* A cancelled outcome is not cached: the next read converts. */
  ck_assert_int_eq(read_image(WALLPAPER, 1568, NULL, &res), 0);
  file_result_clear(&res);
}
END_TEST

/* ------------------------------------------------------------------ cache */

START_TEST(image_cache_second_read_is_a_hit) {
  FileResult a, b, c;
  ImageCacheStats s;
  double t0, first, second;

  NEED_FILE(WALLPAPER);
  image_cache_clear();
  t0 = now_s();
  ck_assert_int_eq(read_image(WALLPAPER, 1568, NULL, &a), 0);
  first = now_s() - t0;
  t0 = now_s();
  ck_assert_int_eq(read_image(WALLPAPER, 1568, NULL, &b), 0);
  second = now_s() - t0;
  image_cache_stats(&s);
  ck_assert_uint_eq(s.hits, 1);
  ck_assert_uint_eq(s.misses, 1);
  ck_assert_str_eq(a.images[0].data, b.images[0].data);
  ck_assert_int_eq(b.images[0].original_width, 6028);
  ck_assert_double_lt(second, first / 3);
  /* Other options are another entry. */
  ck_assert_int_eq(read_image(WALLPAPER, 1000, NULL, &c), 0);
  image_cache_stats(&s);
  ck_assert_uint_eq(s.misses, 2);
  ck_assert_uint_eq(s.entries, 2);
  ck_assert_int_eq(c.images[0].width, 1000);
  file_result_clear(&a);
  file_result_clear(&b);
  file_result_clear(&c);
}
END_TEST

START_TEST(image_cache_misses_after_the_file_changes) {
  g_autoptr(GdkPixbuf) pb = make_graphic(2000, 1000, false);
  g_autofree char *path = save_png(pb, "changing.png");
  FileResult res;
  ImageCacheStats s;

  image_cache_clear();
  ck_assert_int_eq(read_image(path, 500, NULL, &res), 0);
  file_result_clear(&res);
  g_usleep(20000);
  g_object_unref(pb);
  pb = make_graphic(1000, 2000, false);
  g_free(save_png(pb, "changing.png"));
  ck_assert_int_eq(read_image(path, 500, NULL, &res), 0);
  image_cache_stats(&s);
  ck_assert_uint_eq(s.hits, 0);
  ck_assert_int_eq(res.images[0].width, 250);
  ck_assert_int_eq(res.images[0].height, 500);
  file_result_clear(&res);
}
END_TEST

START_TEST(image_cache_is_bounded) {
  g_autoptr(GdkPixbuf) pb = make_graphic(1000, 900, false);
  g_autofree char *first = save_png(pb, "g0.png");
  ImageCacheStats s;
  FileResult res;
  size_t one;

  image_cache_clear();
  ck_assert_int_eq(read_image(first, 600, NULL, &res), 0);
  file_result_clear(&res);
  image_cache_stats(&s);
  one = s.bytes;
  ck_assert_uint_gt(one, 0);
  /* Room for four: six files with the same content are six entries (keyed by inode). */
  image_cache_set_capacity(one * 4 + one / 2);
  for (int i = 1; i < 6; i++) {
    g_autofree char *name = g_strdup_printf("g%d.png", i);
    g_autofree char *path = save_png(pb, name);

    ck_assert_int_eq(read_image(path, 600, NULL, &res), 0);
    file_result_clear(&res);
  }
  image_cache_stats(&s);
  ck_assert_uint_le(s.bytes, one * 4 + one / 2);
  ck_assert_uint_eq(s.entries, 4);
  ck_assert_uint_eq(s.evictions, 2);
  /* The oldest went first: the first file converts again, the last is still there. */
  ck_assert_int_eq(read_image(first, 600, NULL, &res), 0);
  file_result_clear(&res);
  image_cache_stats(&s);
  ck_assert_uint_eq(s.hits, 0);
  image_cache_set_capacity(0);
  image_cache_stats(&s);
  ck_assert_uint_eq(s.entries, 0);
  image_cache_set_capacity(IMAGE_CACHE_DEFAULT_CAPACITY);
}
END_TEST

static gpointer read_many_thread(gpointer user) {
  const char *path = user;

  for (int i = 0; i < 5; i++) {
    FileResult res;

    int r = read_image(path, 700 + 100 * (i % 2), NULL, &res);

    ck_assert_msg(r == 0, "read %d: %d, %s: %s", i, r, res.code, res.error);
    ck_assert_int_eq(MAX(res.images[0].width, res.images[0].height), 700 + 100 * (i % 2));
    file_result_clear(&res);
  }
  return NULL;
}

START_TEST(image_threads_share_the_cache) {
  g_autoptr(GdkPixbuf) pb = make_graphic(2400, 1600, false);
  g_autofree char *path = save_png(pb, "shared.png");
  GThread *threads[4];
  ImageCacheStats s;

  image_cache_clear();
  for (size_t i = 0; i < G_N_ELEMENTS(threads); i++)
    threads[i] = g_thread_new("reader", read_many_thread, path);
  for (size_t i = 0; i < G_N_ELEMENTS(threads); i++)
    g_thread_join(threads[i]);
  image_cache_stats(&s);
  ck_assert_uint_eq(s.hits + s.misses, 20);
  ck_assert_uint_ge(s.hits, 12);
  ck_assert_uint_eq(s.entries, 2);
}
END_TEST

/* A thread that reads one picture (starting a worker, which goes idle after it), then waits to
 * be told to end. */
typedef struct {
  const char *path;
  GMutex lock;
  GCond cond;
  bool read, end;
} Starter;

static gpointer read_then_wait(gpointer user) {
  Starter *st = user;
  FileResult res;
  int r = read_image(st->path, 400, NULL, &res);

  ck_assert_msg(r == 0, "%d, %s: %s", r, res.code, res.error);
  file_result_clear(&res);
  g_mutex_lock(&st->lock);
  st->read = true;
  g_cond_broadcast(&st->cond);
  while (!st->end)
    g_cond_wait(&st->cond, &st->lock);
  g_mutex_unlock(&st->lock);
  return NULL;
}

/* A read on a thread of its own: path in, res out. */
typedef struct {
  const char *path;
  FileResult res;
} ThreadRead;

static gpointer read_big(gpointer user) {
  ThreadRead *t = user;

  (void)read_image(t->path, 1000, NULL, &t->res);
  return NULL;
}

/* Idle workers are shared by every thread: the thread that started one may end while another
 * thread has it at work, and that must not end the worker (Linux's parent-death signal is
 * about the thread, not the process). */
START_TEST(image_worker_outlives_the_thread_that_started_it) {
  g_autoptr(GdkPixbuf) small = make_graphic(800, 600, false);
  g_autoptr(GdkPixbuf) big = make_graphic(6000, 4000, false);
  g_autofree char *small_path = save_png(small, "starter.png");
  g_autofree char *big_path = save_png(big, "big-after.png");
  Starter st = {.path = small_path};
  ThreadRead t = {.path = big_path};
  GThread *starter, *reader;

  image_cache_clear();
  g_mutex_init(&st.lock);
  g_cond_init(&st.cond);
  starter = g_thread_new("starter", read_then_wait, &st);
  g_mutex_lock(&st.lock);
  while (!st.read)
    g_cond_wait(&st.cond, &st.lock);
  g_mutex_unlock(&st.lock);
  /* The idle worker takes the big picture; its starter ends while it decodes. */
  reader = g_thread_new("reader", read_big, &t);
  g_usleep(50 * 1000);
  g_mutex_lock(&st.lock);
  st.end = true;
  g_cond_broadcast(&st.cond);
  g_mutex_unlock(&st.lock);
  g_thread_join(starter);
  g_thread_join(reader);
  ck_assert_msg(t.res.code == NULL, "%s: %s", t.res.code, t.res.error);
  ck_assert_int_eq(t.res.n_images, 1);
  file_result_clear(&t.res);
  g_mutex_clear(&st.lock);
  g_cond_clear(&st.cond);
}
END_TEST

/* ------------------------------------------------------------------ request budget */

/* A ReadResult of n copies of one image file read at max_dimension, with a text file first. */
static void result_of_copies(ReadResult *r, const char *path, int max_dimension, size_t n) {
  FileResult one;

  ck_assert_int_eq(read_image(path, max_dimension, NULL, &one), 0);
  r->n_files = n + 1;
  r->files = g_new0(FileResult, n + 1);
  r->files[0].path = g_strdup("notes.txt");
  r->files[0].type = FILE_TYPE_TEXT;
  r->files[0].content = g_strdup("hello\n");
  r->files[0].content_len = 6;
  for (size_t i = 1; i <= n; i++) {
    FileResult *f = &r->files[i];
    ImageOut *img;

    f->path = g_strdup(path);
    f->type = FILE_TYPE_IMAGE;
    img = file_result_add_image(f);
    *img = one.images[0];
    img->media_type = g_strdup(one.images[0].media_type);
    img->data = g_strdup(one.images[0].data);
  }
  file_result_clear(&one);
}

START_TEST(image_request_with_many_images_sends_2000_px) {
  g_autoptr(GdkPixbuf) pb = make_graphic(3000, 1500, false);
  g_autofree char *path = save_png(pb, "wide.png");
  ReadResult r = {0};

  result_of_copies(&r, path, 2400, IMAGE_MANY + 1);
  ck_assert_int_eq(r.files[1].images[0].width, 2400);
  image_request_budget(&r, READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES, NULL);
  for (size_t i = 1; i < r.n_files; i++) {
    g_autoptr(GdkPixbuf) sent = NULL;

    ck_assert_ptr_null(r.files[i].code);
    ck_assert_int_eq(r.files[i].images[0].width, IMAGE_MANY_MAX_DIMENSION);
    ck_assert_int_eq(r.files[i].images[0].height, 1000);
    ck_assert_int_eq(r.files[i].images[0].original_width, 3000);
    ck_assert_int_eq(r.files[i].images[0].original_height, 1500);
    if (i == 1)
      sent = decode_sent(&r.files[i].images[0]);
  }
  read_result_clear(&r);

  /* Twenty images: left as they are. */
  result_of_copies(&r, path, 2400, IMAGE_MANY);
  image_request_budget(&r, READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES, NULL);
  ck_assert_int_eq(r.files[IMAGE_MANY].images[0].width, 2400);
  read_result_clear(&r);
}
END_TEST

START_TEST(image_request_byte_budget_fails_the_rest_clearly) {
  g_autoptr(GdkPixbuf) pb = make_graphic(800, 600, false);
  g_autofree char *path = save_png(pb, "budget.png");
  ReadResult r = {0};
  size_t each;

  result_of_copies(&r, path, 1568, 4);
  each = r.files[1].images[0].data_len;
  image_request_budget(&r, (int64_t)(each * 2 + each / 2), NULL);
  ck_assert_ptr_null(r.files[0].code);
  ck_assert_ptr_null(r.files[1].code);
  ck_assert_ptr_null(r.files[2].code);
  for (size_t i = 3; i <= 4; i++) {
    ck_assert_str_eq(r.files[i].code, CODE_FILE_TOO_LARGE);
    ck_assert_ptr_nonnull(strstr(r.files[i].error, "image budget"));
    ck_assert_ptr_nonnull(strstr(r.files[i].error, "images.maxTotalBytes"));
    ck_assert_uint_eq(r.files[i].n_images, 0);
  }
  read_result_clear(&r);

  result_of_copies(&r, path, 1568, 2);
  image_request_budget(&r, 0, NULL);
  ck_assert_str_eq(r.files[1].code, CODE_FILE_TOO_LARGE);
  ck_assert_ptr_null(r.files[0].code);
  read_result_clear(&r);
}
END_TEST

/* ------------------------------------------------------------------ header structure */

START_TEST(image_header_info_walks_structures) {
  g_autoptr(GdkPixbuf) pb = make_graphic(64, 48, false);
  g_autofree char *path = save_png(pb, "s.png");
  g_autofree char *png = NULL, *gif = NULL;
  gsize len, gif_len;
  ImageHeaderInfo info;

  ck_assert(g_file_get_contents(path, &png, &len, NULL));
  ck_assert_int_eq(image_header_info(DETECT_PNG, (uint8_t *)png, len, &info), 0);
  ck_assert(info.complete);
  ck_assert_int_eq(info.width, 64);
  ck_assert_int_eq(info.frames, 1);
  ck_assert_int_eq(image_header_png_data_check((uint8_t *)png, len), 0);
  /* Every cut is incomplete, never an over-read (ASan watches). */
  for (size_t n = 33; n < len; n += 7) {
    g_autofree uint8_t *cut = memdup(png, n);

    ck_assert_int_eq(image_header_info(DETECT_PNG, cut, n, &info), 0);
    ck_assert(!info.complete);
  }
  png[23] ^= 0x01; /* the height, inside IHDR: a critical chunk's CRC no longer matches */
  ck_assert_int_eq(image_header_info(DETECT_PNG, (uint8_t *)png, len, &info), -EINVAL);

  NEED_FILE(PIXBUF_TESTS "/1_partyanimsm2.gif");
  ck_assert(g_file_get_contents(PIXBUF_TESTS "/1_partyanimsm2.gif", &gif, &gif_len, NULL));
  ck_assert_int_eq(image_header_info(DETECT_GIF, (uint8_t *)gif, gif_len, &info), 0);
  ck_assert(info.complete);
  ck_assert_int_gt(info.frames, 1);
  ck_assert_uint_lt(info.first_frame_end, gif_len);
  for (size_t n = 13, end = info.first_frame_end; n < gif_len; n += 997) {
    ImageHeaderInfo cut;
    int r = image_header_info(DETECT_GIF, (uint8_t *)gif, n, &cut);

    ck_assert(r == 0 || r == -EINVAL);
    if (n < end)
      ck_assert(!cut.complete);
  }
}
END_TEST

START_TEST(image_header_png_data_check_finds_short_data) {
  g_autoptr(GdkPixbuf) pb = make_graphic(200, 100, false);
  g_autofree char *path = save_png(pb, "short.png");
  g_autofree char *png = NULL;
  gsize len;
  uint8_t *idat;
  uint32_t idat_len;
  GByteArray *out = g_byte_array_new();
  uLong crc;

  ck_assert(g_file_get_contents(path, &png, &len, NULL));
  /* Rewrite the file with its IDAT halved but a valid CRC and IEND: only inflating tells. */
  idat = memmem(png, len, "IDAT", 4);
  ck_assert_ptr_nonnull(idat);
  idat_len = GUINT32_FROM_BE(*(uint32_t *)(void *)(idat - 4)) / 2;
  g_byte_array_append(out, (guint8 *)png, (guint)(idat - 4 - (uint8_t *)png));
  g_byte_array_append(out, (guint8[]){idat_len >> 24, idat_len >> 16, idat_len >> 8, idat_len}, 4);
  g_byte_array_append(out, idat, idat_len + 4);
  crc = crc32(0, idat, idat_len + 4);
  g_byte_array_append(out, (guint8[]){crc >> 24, crc >> 16, crc >> 8, crc}, 4);
  g_byte_array_append(out, (const guint8 *)"\0\0\0\0IEND\xae\x42\x60\x82", 12);
  ck_assert_int_eq(image_header_info(DETECT_PNG, out->data, out->len, &(ImageHeaderInfo){0}), 0);
  ck_assert_int_eq(image_header_png_data_check(out->data, out->len), -EINVAL);
  g_byte_array_unref(out);
}
END_TEST

static Suite *image_suite(void) {
  Suite *s = suite_create("image");
  TCase *tc = tcase_create("core");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, image_within_limits_goes_byte_for_byte);
  tcase_add_test(tc, image_gif_and_jpeg_within_limits_go_as_they_are);
  tcase_add_test(tc, image_wallpaper_is_downscaled_to_max_dimension);
  tcase_add_test(tc, image_phone_photo_keeps_portrait_aspect);
  tcase_add_test(tc, image_downscaled_pixels_match_the_source);
  tcase_add_test(tc, image_exif_orientation_matches_reference);
  tcase_add_test(tc, image_graphics_stay_png_photos_become_jpeg);
  tcase_add_test(tc, image_transparency_is_kept);
  tcase_add_test(tc, image_noise_fits_five_mib);
  tcase_add_test(tc, image_bmp_tiff_ico_are_converted);
  tcase_add_test(tc, image_ico_with_png_inside);
  tcase_add_test(tc, image_animated_gif_sends_first_frame);
  tcase_add_test(tc, image_svg_is_rendered_on_request);
  tcase_add_test(tc, image_svg_blur_is_stopped_at_the_budget);
  tcase_add_test(tc, image_svg_blur_is_stopped_on_cancel);
  tcase_add_test(tc, image_svg_huge_canvas_renders_at_max_dimension);
  tcase_add_test(tc, image_worker_failures_are_per_file_errors);
  tcase_add_test(tc, image_truncated_files_are_corrupted);
  tcase_add_test(tc, image_bombs_are_refused_before_decoding);
  tcase_add_test(tc, image_hostile_sets_are_all_answered);
  tcase_add_test(tc, image_cancelled_conversion_stops);
  tcase_add_test(tc, image_cache_second_read_is_a_hit);
  tcase_add_test(tc, image_cache_misses_after_the_file_changes);
  tcase_add_test(tc, image_cache_is_bounded);
  tcase_add_test(tc, image_threads_share_the_cache);
  tcase_add_test(tc, image_worker_outlives_the_thread_that_started_it);
  tcase_add_test(tc, image_request_with_many_images_sends_2000_px);
  tcase_add_test(tc, image_request_byte_budget_fails_the_rest_clearly);
  tcase_add_test(tc, image_header_info_walks_structures);
  tcase_add_test(tc, image_header_png_data_check_finds_short_data);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  const char *worker = getenv("READERD_WORKER");
  int failed;

  skip_init();
  /* Images are decoded in readerd's worker processes. */
  if (worker == NULL || !g_file_test(worker, G_FILE_TEST_IS_EXECUTABLE)) {
    printf("SKIP: READERD_WORKER does not name the readerd-worker binary\n");
    return 77;
  }
  pdf_set_worker_path(worker);
  failed = check_run(image_suite());
  pdf_spawn_cleanup();
  return skip_status(failed == 0 ? 0 : 1);
}
