/* Integration tests of tall and wide pictures sent as tiles (images.tile), through the real
 * binary over its socket: a screenshot-like PNG stacked from bands of a real photo, its tiles
 * decoded and compared pixel by pixel with the source's boxes; the image budget; never and
 * always; an animated GIF; an EXIF-rotated JPEG; every format's labels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <gdk-pixbuf/gdk-pixbuf.h>

#include "basic/image-tiles.h"
#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

#define PIXBUF_DIR "/usr/libexec/installed-tests/gdk-pixbuf"
#define PHOTO "/usr/share/backgrounds/Fossa_by_Jasper_Roks.jpg"
#define PHOTO_FALLBACK PIXBUF_DIR "/issue70.jpg"
#define SHOT_W 1080
#define SHOT_H 10800
#define BAND_H 1200

/* The worker's time per image here (READERD_IMAGE_TIMEOUT_MS, set in main), and how long a read
 * is waited for: that and the daemon's own work besides. */
#define IMAGE_TIMEOUT_MS "120000"
#define READ_WAIT_MS (120000 + RD_TIMEOUT_MS)

static RdDaemon *dmn;
static RdConn *conn;

static void tiles_setup(void) {
  rd_fixture_setup(&dmn, &conn);
}

static void tiles_teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

/* A scrolled screenshot's shape from a real photo: SHOT_W x SHOT_H, stacked from bands each
 * cropped at another place of the photo, so that a tile put in the wrong place shows. NULL when
 * no photo is installed. */
static GdkPixbuf *tall_picture(void) {
  GdkPixbuf *photo = gdk_pixbuf_new_from_file(PHOTO, NULL), *out;
  int pw, ph;

  if (photo == NULL)
    photo = gdk_pixbuf_new_from_file(PHOTO_FALLBACK, NULL);
  if (photo == NULL)
    return NULL;
  pw = gdk_pixbuf_get_width(photo);
  ph = gdk_pixbuf_get_height(photo);
  ck_assert(pw > SHOT_W && ph > BAND_H);
  out = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, SHOT_W, SHOT_H);
  for (int y = 0, i = 0; y < SHOT_H; y += BAND_H, i++)
    gdk_pixbuf_copy_area(photo, (i * 397) % (pw - SHOT_W), (i * 131) % (ph - BAND_H), SHOT_W,
                         MIN(BAND_H, SHOT_H - y), out, 0, y);
  g_object_unref(photo);
  return out;
}

/* A scrolled page of text, SHOT_W x SHOT_H: lines of glyph-like marks 20 px apart, each line's
 * marks placed otherwise. Cheaper to convert than tall_picture() (a busy machine must not
 * stop its conversion at the time budget), for the cases that look at tiles, not pixels. */
static GdkPixbuf *text_page(void) {
  GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, SHOT_W, SHOT_H);
  int stride = gdk_pixbuf_get_rowstride(pb);
  guint8 *px = gdk_pixbuf_get_pixels(pb);

  for (int y = 0; y < SHOT_H; y++)
    for (int x = 0; x < SHOT_W; x++) {
      bool ink = y % 20 >= 4 && y % 20 < 15 && x % 6 < 4 && (x / 6 * 7 + y / 20 * 13) % 11 < 7;

      memset(px + (size_t)y * stride + (size_t)x * 3, ink ? 30 : 250, 3);
    }
  return pb;
}

static char *save_png(GdkPixbuf *pb, const char *name) {
  g_autofree gchar *buf = NULL;
  gsize len = 0;

  ck_assert(gdk_pixbuf_save_to_buffer(pb, &buf, &len, "png", NULL, NULL));
  return rd_write_file(dmn->dir, name, buf, len);
}

/* A read's answer, waited for as long as its pictures may take. */
static JsonNode *call_read(const char *params) {
  g_autofree char *key = rd_conn_request(conn, "read", params, NULL);

  return rd_conn_wait(conn, key, READ_WAIT_MS);
}

static RdResult *read_paths(const char *const *paths, size_t n, const char *extra) {
  g_autofree char *arr = rd_json_paths(paths, n);
  g_autofree char *params =
      g_strdup_printf("{\"paths\":%s%s%s}", arr, extra ? "," : "", extra ? extra : "");

  return rd_result_new(call_read(params));
}

static RdResult *read1(const char *path, const char *extra) {
  const char *paths[] = {path};

  return read_paths(paths, 1, extra);
}

static void assert_no_code(RdResult *r, guint i) {
  ck_assert_msg(rd_file_str(r, i, "code") == NULL, "%s failed: %s: %s", rd_file_str(r, i, "path"),
                rd_file_str(r, i, "code"), rd_file_str(r, i, "error"));
}

static GdkPixbuf *decode(GBytes *b) {
  g_autoptr(GdkPixbufLoader) l = gdk_pixbuf_loader_new();
  gsize n;
  const guchar *d = g_bytes_get_data(b, &n);
  GdkPixbuf *pb;

  ck_assert(gdk_pixbuf_loader_write(l, d, n, NULL));
  ck_assert(gdk_pixbuf_loader_close(l, NULL));
  pb = gdk_pixbuf_loader_get_pixbuf(l);
  ck_assert(pb != NULL);
  return g_object_ref(pb);
}

/* Mean absolute difference per channel (RGB) of two pictures of the same size. */
static double mean_diff(GdkPixbuf *a, GdkPixbuf *b) {
  int w = gdk_pixbuf_get_width(a), h = gdk_pixbuf_get_height(a);
  int na = gdk_pixbuf_get_n_channels(a), nb = gdk_pixbuf_get_n_channels(b);
  int sa = gdk_pixbuf_get_rowstride(a), sb = gdk_pixbuf_get_rowstride(b);
  const guint8 *pa = gdk_pixbuf_read_pixels(a), *pbx = gdk_pixbuf_read_pixels(b);
  double sum = 0;

  ck_assert_int_eq(gdk_pixbuf_get_width(b), w);
  ck_assert_int_eq(gdk_pixbuf_get_height(b), h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        sum += abs((int)pa[(size_t)y * sa + (size_t)x * na + c] -
                   (int)pbx[(size_t)y * sb + (size_t)x * nb + c]);
  return sum / ((double)w * h * 3);
}

/* The box (x, y, w, h) of src scaled to out_w x out_h, as a reference for a tile. */
static GdkPixbuf *box_scaled(GdkPixbuf *src, int x, int y, int w, int h, int out_w, int out_h) {
  GdkPixbuf *sub = gdk_pixbuf_new_subpixbuf(src, x, y, w, h);
  GdkPixbuf *s = gdk_pixbuf_scale_simple(sub, out_w, out_h, GDK_INTERP_BILINEAR);

  g_object_unref(sub);
  return s;
}

typedef struct {
  int x, y, width, height, index, count;
} Box;

/* images[k] of the answer; fails, naming what files[0] says, when the answer has fewer. */
static JsonObject *image_at(RdResult *r, guint k) {
  guint n = r->images != NULL ? json_array_get_length(r->images) : 0;
  const char *code = rd_file_str(r, 0, "code"), *error = rd_file_str(r, 0, "error");

  ck_assert_msg(k < n, "images[%u] asked, the answer has %u (files[0]: %s: %s)", k, n,
                code != NULL ? code : "no code", error != NULL ? error : "");
  return json_array_get_object_element(r->images, k);
}

static Box image_tile(RdResult *r, guint k) {
  JsonObject *img = image_at(r, k);
  JsonObject *t;

  ck_assert_msg(json_object_has_member(img, "tile"), "images[%u] is not a tile", k);
  t = json_object_get_object_member(img, "tile");
  return (Box){(int)json_object_get_int_member(t, "x"),
               (int)json_object_get_int_member(t, "y"),
               (int)json_object_get_int_member(t, "width"),
               (int)json_object_get_int_member(t, "height"),
               (int)json_object_get_int_member(img, "tileIndex"),
               (int)json_object_get_int_member(img, "tiles")};
}

/* <Tile> element i of Content 0; fails when missing. */
static xmlNodePtr tile_element(RdResult *r, int i) {
  int n = 0;

  for (xmlNodePtr c = rd_content(r, 0)->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE && xmlStrcmp(c->name, (const xmlChar *)"Tile") == 0 && n++ == i)
      return c;
  ck_abort_msg("no <Tile> %d", i);
  return NULL;
}

static int tile_attr(xmlNodePtr t, const char *name) {
  xmlChar *v = xmlGetProp(t, (const xmlChar *)name);
  int n;

  ck_assert_msg(v != NULL, "<Tile> has no %s", name);
  n = atoi((const char *)v);
  xmlFree(v);
  return n;
}

/* Every tile of files[0] against the upright source: the JSON box and the <Tile> agree, the
 * tiles cover the long side with overlap, each within max_dim and within the pixels Anthropic
 * takes unscaled (IMAGE_TILE_ANTHROPIC_PIXELS), and each decoded tile is the source's box
 * scaled (and not the box next to it). Returns the count. */
static int check_tiles(RdResult *r, GdkPixbuf *src, int max_dim, double min_scale) {
  int sw = gdk_pixbuf_get_width(src), sh = gdk_pixbuf_get_height(src);
  int first = (int)rd_file_int(r, 0, "image"), n = (int)rd_file_int(r, 0, "tiles"), end = 0;
  bool tall = sh >= sw;

  ck_assert_int_ge(n, 1);
  ck_assert_int_eq(rd_file_int(r, 0, "originalWidth"), sw);
  ck_assert_int_eq(rd_file_int(r, 0, "originalHeight"), sh);
  for (int i = 0; i < n; i++) {
    Box b = image_tile(r, (guint)(first + i));
    JsonObject *img = image_at(r, (guint)(first + i));
    int w = (int)json_object_get_int_member(img, "width");
    int h = (int)json_object_get_int_member(img, "height");
    xmlNodePtr t = tile_element(r, i);
    g_autoptr(GBytes) bytes = rd_image_bytes(r, (guint)(first + i));
    g_autoptr(GdkPixbuf) got = decode(bytes);
    g_autoptr(GdkPixbuf) want = NULL, shifted = NULL;
    double d, ds;
    int start = tall ? b.y : b.x, len = tall ? b.height : b.width;

    ck_assert_int_eq(b.index, i + 1);
    ck_assert_int_eq(b.count, n);
    ck_assert_int_eq(tile_attr(t, "image"), first + i);
    ck_assert(tile_attr(t, "x") == b.x && tile_attr(t, "y") == b.y &&
              tile_attr(t, "width") == b.width && tile_attr(t, "height") == b.height);
    ck_assert_int_eq(json_object_get_int_member(img, "originalWidth"), sw);
    ck_assert_int_eq(json_object_get_int_member(img, "originalHeight"), sh);
    ck_assert(b.x >= 0 && b.y >= 0 && b.x + b.width <= sw && b.y + b.height <= sh);
    ck_assert_int_eq(tall ? b.width : b.height, tall ? sw : sh);
    ck_assert_msg(MAX(w, h) <= max_dim, "tile %d is %dx%d", i, w, h);
    ck_assert_msg((int64_t)w * h <= IMAGE_TILE_ANTHROPIC_PIXELS, "tile %d is %dx%d: %d pixels", i,
                  w, h, w * h);
    ck_assert_msg((double)w / b.width >= min_scale, "tile %d at scale %f", i, (double)w / b.width);
    ck_assert(gdk_pixbuf_get_width(got) == w && gdk_pixbuf_get_height(got) == h);
    /* No gap, and (but for the first) an overlap of about a tenth with the tile before. */
    ck_assert_msg(start <= end, "tile %d starts at %d, after a gap from %d", i, start, end);
    if (i > 0)
      ck_assert_msg((end - start) * 100 >= len * 9, "tile %d overlaps by %d of %d", i, end - start,
                    len);
    end = start + len;
    want = box_scaled(src, b.x, b.y, b.width, b.height, w, h);
    d = mean_diff(got, want);
    ck_assert_msg(d < 6.0, "tile %d differs from its box by %.2f per channel", i, d);
    /* The comparison sees a misplaced tile: the box a band further on differs a lot more. */
    if (tall && b.y + b.height + BAND_H <= sh) {
      shifted = box_scaled(src, b.x, b.y + BAND_H / 2, b.width, b.height, w, h);
      ds = mean_diff(got, shifted);
      ck_assert_msg(ds > d * 3 + 1.5, "tile %d: %.2f against its box, %.2f shifted", i, d, ds);
    }
  }
  ck_assert_int_eq(end, tall ? sh : sw);
  return n;
}

START_TEST(tiles_tall_screenshot_readable) {
  g_autoptr(GdkPixbuf) src = tall_picture();
  g_autofree char *path = NULL;
  RdResult *r;

  if (src == NULL)
    SKIP_CASE("tiles_tall_screenshot_readable: no photo (lomiri-wallpapers or gdk-pixbuf-tests)");
  path = save_png(src, "scrolled.png");
  r = read1(path, NULL);
  assert_no_code(r, 0);
  ck_assert_int_eq(rd_file_int(r, 0, "tiles"), 10);
  ck_assert_int_eq(json_array_get_length(r->images), 10);
  ck_assert_int_eq(check_tiles(r, src, 1568, 0.9), 10);
  ck_assert(!rd_file_true(r, 0, "truncated"));
  /* Never one strip: each tile at least 0.9 of the width, 1.15 megapixels at most. */
  ck_assert_int_ge(rd_file_int(r, 0, "width"), 972);
  rd_result_free(r);

  /* The same picture again comes from the cache, the same. */
  r = read1(path, NULL);
  ck_assert_int_eq(check_tiles(r, src, 1568, 0.9), 10);
  rd_result_free(r);
}
END_TEST

START_TEST(tiles_never_and_always) {
  g_autoptr(GdkPixbuf) src = tall_picture();
  g_autofree char *path = NULL, *small = NULL, *bytes = NULL;
  g_autoptr(GBytes) sent = NULL;
  size_t len = 0;
  RdResult *r;

  if (src == NULL)
    SKIP_CASE("tiles_never_and_always: no photo (lomiri-wallpapers or gdk-pixbuf-tests)");
  path = save_png(src, "scrolled.png");
  r = read1(path, "\"images\":{\"tile\":\"never\"}");
  assert_no_code(r, 0);
  ck_assert(!json_object_has_member(rd_file(r, 0), "tiles"));
  ck_assert_int_eq(json_array_get_length(r->images), 1);
  ck_assert_int_eq(rd_file_int(r, 0, "width"), 157);
  ck_assert_int_eq(rd_file_int(r, 0, "height"), 1568);
  rd_result_free(r);

  /* always, a small picture: one tile, the whole picture, its bytes as they are. */
  small = g_strdup(PIXBUF_DIR "/test-image.png");
  bytes = rd_read_file(small, &len);
  if (bytes == NULL)
    SKIP_CASE("tiles_never_and_always: %s is missing (gdk-pixbuf-tests)", small);
  r = read1(small, "\"images\":{\"tile\":\"always\"}");
  assert_no_code(r, 0);
  ck_assert_int_eq(rd_file_int(r, 0, "tiles"), 1);
  ck_assert_int_eq(json_array_get_length(r->images), 1);
  {
    Box b = image_tile(r, 0);

    ck_assert(b.x == 0 && b.y == 0 && b.width == 89 && b.height == 96 && b.index == 1 &&
              b.count == 1);
  }
  sent = rd_image_bytes(r, 0);
  ck_assert(g_bytes_get_size(sent) == len && memcmp(g_bytes_get_data(sent, NULL), bytes, len) == 0);
  rd_result_free(r);
}
END_TEST

START_TEST(tiles_image_budget) {
  g_autoptr(GdkPixbuf) src = tall_picture();
  g_autofree char *path = NULL, *params = NULL, *text = NULL, *tiny = NULL;
  int64_t three = 0;
  RdResult *r;

  if (src == NULL)
    SKIP_CASE("tiles_image_budget: no photo (lomiri-wallpapers or gdk-pixbuf-tests)");
  path = save_png(src, "scrolled.png");
  r = read1(path, NULL);
  assert_no_code(r, 0);
  for (guint k = 0; k < 3; k++)
    three += (int64_t)strlen(json_object_get_string_member(image_at(r, k), "data"));
  rd_result_free(r);

  /* Room for three tiles: three are sent, and a notice names the rest and why. */
  params = g_strdup_printf("\"images\":{\"maxTotalBytes\":%" G_GINT64_FORMAT "}", three + 10);
  r = read1(path, params);
  assert_no_code(r, 0);
  ck_assert_int_eq(rd_file_int(r, 0, "tiles"), 10);
  ck_assert_int_eq(json_array_get_length(r->images), 3);
  ck_assert(rd_file_true(r, 0, "truncated"));
  text = rd_text(r, 0);
  ck_assert_msg(strstr(text, "tiles 4 to 10 of 10") != NULL && strstr(text, "maxTotalBytes"),
                "notice: %s", text);
  for (int i = 0; i < 3; i++)
    (void)tile_element(r, i);
  rd_result_free(r);

  /* Not even one tile: the file is refused, as an image too large for the budget. */
  tiny = g_strdup_printf("\"images\":{\"maxTotalBytes\":1000}");
  r = read1(path, tiny);
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "FILE_TOO_LARGE");
  ck_assert(strstr(rd_file_str(r, 0, "error"), "maxTotalBytes") != NULL);
  ck_assert_int_eq(json_array_get_length(r->images), 0);
  rd_result_free(r);
}
END_TEST

/* Under a budget that holds only some of a tall picture's tiles, the tiles that fit are sent,
 * in order, and the notice names the offset to read on with; following it reaches the last tile
 * in a few requests, each tile sent once, and each answer within its budget. One past the last
 * tile is PAGE_OUT_OF_RANGE. */
START_TEST(tiles_budget_continuation) {
  g_autoptr(GdkPixbuf) src = text_page();
  g_autofree char *path = NULL, *past = NULL;
  int64_t offset = 1;
  int next = 1, requests = 0, n = 0;
  RdResult *r;

  path = save_png(src, "scrolled.png");
  for (;;) {
    g_autofree char *params = g_strdup_printf(
        "\"budget\":{\"tokens\":5000},\"offset\":%" G_GINT64_FORMAT, offset);
    g_autofree char *answer = NULL, *text = NULL, *want = NULL;
    guint sent;
    int first;

    r = read1(path, params);
    requests++;
    assert_no_code(r, 0);
    ck_assert_msg(rd_file_str(r, 0, "omitted") == NULL, "request %d left the picture out",
                  requests);
    n = (int)rd_file_int(r, 0, "tiles");
    ck_assert_int_eq(n, 10);
    answer = rd_attr(r, -1, "answerTokens");
    ck_assert_msg(answer != NULL && g_ascii_strtoll(answer, NULL, 10) <= 5000,
                  "request %d answers %s tokens", requests, answer);
    sent = json_array_get_length(r->images);
    ck_assert_uint_ge(sent, 1);
    first = (int)rd_file_int(r, 0, "image");
    for (guint k = 0; k < sent; k++) {
      Box b = image_tile(r, (guint)first + k);

      ck_assert_msg(b.index == next, "request %d sends tile %d where %d was next", requests,
                    b.index, next);
      (void)tile_element(r, (int)k);
      next++;
    }
    text = rd_text(r, 0);
    if (next > n) {
      ck_assert_msg(strstr(text, "read on with offset") == NULL, "after the last tile: %s", text);
      rd_result_free(r);
      break;
    }
    ck_assert(rd_file_true(r, 0, "truncated"));
    want = g_strdup_printf("not shown (budget of ");
    ck_assert_msg(strstr(text, want) != NULL, "notice: %s", text);
    g_free(want);
    want = g_strdup_printf("read on with offset %d", next);
    ck_assert_msg(strstr(text, want) != NULL, "request %d: no \"%s\" in: %s", requests, want,
                  text);
    rd_result_free(r);
    offset = next;
    ck_assert_msg(requests < 8, "not at the last tile after %d requests", requests);
  }
  ck_assert_int_eq(next, n + 1);
  ck_assert_int_ge(requests, 3);

  past = g_strdup_printf("\"offset\":%d", n + 1);
  r = read1(path, past);
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "PAGE_OUT_OF_RANGE");
  ck_assert_int_eq(json_array_get_length(r->images), 0);
  rd_result_free(r);
}
END_TEST

/* More than 20 pictures in a request: each is sent at most 2000 px long, tiles too, and a tile
 * scaled down keeps its box. */
START_TEST(tiles_many_images_keep_boxes) {
  g_autoptr(GdkPixbuf) shot = tall_picture();
  g_autoptr(GdkPixbuf) strip = NULL, src = NULL;
  g_autofree char *path = NULL;
  const char *paths[18];
  RdResult *r;

  if (shot == NULL)
    SKIP_CASE("tiles_many_images_keep_boxes: no photo (lomiri-wallpapers or gdk-pixbuf-tests)");
  /* A strip 400 px wide: its tiles are long enough for the 2000 px limit to matter. */
  strip = gdk_pixbuf_new_subpixbuf(shot, 300, 0, 400, SHOT_H);
  src = gdk_pixbuf_copy(strip);
  if (access(PIXBUF_DIR "/test-image.png", R_OK) != 0)
    SKIP_CASE("tiles_many_images_keep_boxes: " PIXBUF_DIR "/test-image.png is missing");
  path = save_png(src, "scrolled.png");
  paths[0] = path;
  for (size_t i = 1; i < G_N_ELEMENTS(paths); i++)
    paths[i] = PIXBUF_DIR "/test-image.png";
  /* At 3000 px: 4 tiles of 400x2919 (each 397x2897, within 1.15 megapixels), and 17 more
   * pictures. */
  r = read_paths(paths, G_N_ELEMENTS(paths), "\"images\":{\"maxDimension\":3000}");
  assert_no_code(r, 0);
  ck_assert_int_eq(rd_file_int(r, 0, "tiles"), 4);
  ck_assert_int_eq(json_array_get_length(r->images), 4 + 17);
  ck_assert_int_eq(check_tiles(r, src, 2000, 0.6), 4);
  ck_assert_int_eq(rd_file_int(r, 0, "height"), 2000);
  rd_result_free(r);
}
END_TEST

/* A JPEG whose EXIF orientation is 6: the stored picture is src turned a quarter to the left;
 * shown upright it is src. */
static char *save_rotated_jpeg(GdkPixbuf *src, const char *name) {
  static const guint8 app1[] = {
      0xff, 0xe1, 0x00, 0x22, 'E',  'x',  'i',  'f',  0,    0,                /* APP1, 34 bytes */
      'I',  'I',  0x2a, 0x00, 0x08, 0x00, 0x00, 0x00,                         /* TIFF, IFD at 8 */
      0x01, 0x00,                                                             /* one entry */
      0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, /* orientation 6 */
      0x00, 0x00, 0x00, 0x00};                                                /* no next IFD */
  g_autoptr(GdkPixbuf) stored = gdk_pixbuf_rotate_simple(src, GDK_PIXBUF_ROTATE_COUNTERCLOCKWISE);
  g_autofree gchar *buf = NULL;
  g_autoptr(GByteArray) file = g_byte_array_new();
  gsize len = 0;

  ck_assert(gdk_pixbuf_save_to_buffer(stored, &buf, &len, "jpeg", NULL, "quality", "92", NULL));
  ck_assert(len > 2 && (guint8)buf[0] == 0xff && (guint8)buf[1] == 0xd8);
  g_byte_array_append(file, (const guint8 *)buf, 2);
  g_byte_array_append(file, app1, sizeof(app1));
  g_byte_array_append(file, (const guint8 *)buf + 2, (guint)(len - 2));
  return rd_write_file(dmn->dir, name, file->data, file->len);
}

START_TEST(tiles_exif_rotated_jpeg) {
  g_autoptr(GdkPixbuf) src = tall_picture();
  g_autofree char *path = NULL;
  RdResult *r;

  if (src == NULL)
    SKIP_CASE("tiles_exif_rotated_jpeg: no photo (lomiri-wallpapers or gdk-pixbuf-tests)");
  path = save_rotated_jpeg(src, "rotated.jpg");
  r = read1(path, NULL);
  assert_no_code(r, 0);
  /* Stored 10800x1080, shown 1080x10800: tiled top to bottom, as it is seen. */
  ck_assert_int_eq(rd_file_int(r, 0, "originalWidth"), SHOT_W);
  ck_assert_int_eq(rd_file_int(r, 0, "originalHeight"), SHOT_H);
  ck_assert_int_eq(check_tiles(r, src, 1568, 0.9), 10);
  ck_assert_str_eq(rd_file_str(r, 0, "mediaType"), "image/jpeg");
  rd_result_free(r);
}
END_TEST

START_TEST(tiles_animated_gif_first_frame) {
  const char *path = PIXBUF_DIR "/aero.gif";
  g_autoptr(GdkPixbuf) first = gdk_pixbuf_new_from_file(path, NULL);
  RdResult *r;

  if (first == NULL)
    SKIP_CASE("tiles_animated_gif_first_frame: %s is missing (gdk-pixbuf-tests)", path);
  /* 350x189, 56 frames: at a long edge of 64, always cuts it into two tiles of frame 1. */
  r = read1(path, "\"images\":{\"tile\":\"always\",\"maxDimension\":64}");
  assert_no_code(r, 0);
  ck_assert(rd_file_true(r, 0, "animated"));
  ck_assert_int_eq(check_tiles(r, first, 64, 0.3), 2);
  rd_result_free(r);
  /* auto leaves it whole: it is not elongated. */
  r = read1(path, "\"images\":{\"maxDimension\":64}");
  ck_assert(!json_object_has_member(rd_file(r, 0), "tiles"));
  rd_result_free(r);
}
END_TEST

/* The size of a picture in an agent format's image block: Anthropic's and MCP's base64 `data`,
 * or OpenAI's data URL. */
static void block_image_size(JsonObject *block, int *ret_w, int *ret_h) {
  const char *data = NULL;
  g_autofree guchar *bytes = NULL;
  gsize len = 0;
  g_autoptr(GdkPixbuf) pb = NULL;

  if (json_object_has_member(block, "image_url"))
    data = strstr(json_object_get_string_member(json_object_get_object_member(block, "image_url"),
                                                "url"),
                  "base64,") +
           7;
  else if (json_object_has_member(block, "source"))
    data = json_object_get_string_member(json_object_get_object_member(block, "source"), "data");
  else
    data = json_object_get_string_member(block, "data");
  bytes = g_base64_decode(data, &len);
  {
    g_autoptr(GBytes) b = g_bytes_new(bytes, len);

    pb = decode(b);
  }
  *ret_w = gdk_pixbuf_get_width(pb);
  *ret_h = gdk_pixbuf_get_height(pb);
}

/* The text block before each tile in the agent formats, and the labels elsewhere. Each format's
 * tiles are sent at a size its provider takes as it is: within 1.15 megapixels for Anthropic
 * (and MCP), within 2048 px and 768 px on the short side for OpenAI. */
START_TEST(tiles_labels_in_every_format) {
  g_autoptr(GdkPixbuf) src = tall_picture();
  static const struct {
    const char *name;
    int tiles, height; /* of each tile's box */
  } agents[] = {{"anthropic", 10, 1187}, {"openai", 14, 851}, {"mcp", 10, 1187}};
  g_autofree char *path = NULL, *quoted = NULL;

  if (src == NULL)
    SKIP_CASE("tiles_labels_in_every_format: no photo (lomiri-wallpapers or gdk-pixbuf-tests)");
  path = save_png(src, "scrolled.png");
  quoted = rd_json_quote(path);
  for (size_t f = 0; f < G_N_ELEMENTS(agents); f++) {
    g_autofree char *params =
        g_strdup_printf("{\"paths\":[%s],\"format\":\"%s\"}", quoted, agents[f].name);
    JsonNode *msg = call_read(params);
    JsonObject *res = rd_result_of(msg);
    JsonArray *blocks = json_object_get_array_member(res, agents[f].name);
    int labels = 0, n = agents[f].tiles;

    ck_assert_int_eq(json_array_get_length(blocks), 1 + 2 * n);
    for (guint b = 1; b < json_array_get_length(blocks); b += 2) {
      JsonObject *label = json_array_get_object_element(blocks, b);
      JsonObject *image = json_array_get_object_element(blocks, b + 1);
      g_autofree char *want = NULL;
      int k = (int)(b - 1) / 2, step, count, w, h;

      ck_assert_str_eq(json_object_get_string_member(label, "type"), "text");
      ck_assert_str_ne(json_object_get_string_member(image, "type"), "text");
      /* "tile 2 of 7: x 0-1080, y 1519-3207 of 1080x10800" */
      ck_assert_int_eq(sscanf(json_object_get_string_member(label, "text"),
                              "tile %*d of %d: x 0-1080, y %d-", &count, &step),
                       2);
      ck_assert_int_eq(count, n);
      want = g_strdup_printf("tile %d of %d: x 0-1080, y %d-%d of 1080x10800", k + 1, n, step,
                             step + agents[f].height);
      ck_assert_str_eq(json_object_get_string_member(label, "text"), want);
      block_image_size(image, &w, &h);
      ck_assert_msg(w >= 972, "%s: tile %d is %dx%d", agents[f].name, k + 1, w, h);
      if (strcmp(agents[f].name, "openai") == 0)
        ck_assert_msg(MAX(w, h) <= IMAGE_TILE_OPENAI_LONG && MIN(w, h) <= IMAGE_TILE_OPENAI_SHORT,
                      "openai: tile %d is %dx%d", k + 1, w, h);
      else
        ck_assert_msg((int64_t)w * h <= IMAGE_TILE_ANTHROPIC_PIXELS, "%s: tile %d is %dx%d",
                      agents[f].name, k + 1, w, h);
      labels++;
    }
    ck_assert_int_eq(labels, n);
    json_node_unref(msg);
  }
  {
    g_autofree char *params = g_strdup_printf("{\"paths\":[%s],\"format\":\"toolresult\"}", quoted);
    JsonNode *msg = call_read(params);
    JsonObject *res = rd_result_of(msg);
    JsonArray *imgs =
        json_object_get_array_member(json_object_get_object_member(res, "toolresult"), "images");

    ck_assert_int_eq(json_array_get_length(imgs), 10);
    ck_assert(g_str_has_prefix(
        json_object_get_string_member(json_array_get_object_element(imgs, 9), "label"),
        "tile 10 of 10: x 0-1080, y 9613-10800"));
    json_node_unref(msg);
  }
  {
    g_autofree char *params = g_strdup_printf("{\"paths\":[%s],\"format\":\"text\"}", quoted);
    JsonNode *msg = call_read(params);
    JsonObject *res = rd_result_of(msg);
    const char *text = json_object_get_string_member(res, "text");

    ck_assert_msg(strstr(text, "tile 1 of 10: x 0-1080, y 0-1187 of 1080x10800") != NULL &&
                      strstr(text, "[image 9: ") != NULL,
                  "%s", text);
    json_node_unref(msg);
  }
}
END_TEST

START_TEST(tiles_bad_mode_names_the_field) {
  JsonNode *msg =
      call_read("{\"paths\":[\"a.png\"],\"images\":{\"tile\":\"yes\"}}");
  JsonObject *err = json_object_get_object_member(json_node_get_object(msg), "error");

  ck_assert_int_eq(rd_error_code(msg), -32602);
  ck_assert_str_eq(json_object_get_string_member(err, "message"),
                   "images.tile must be one of \"auto\", \"never\", \"always\"");
  json_node_unref(msg);
}
END_TEST

static Suite *tiles_suite(void) {
  Suite *s = suite_create("tiles");
  TCase *tc = tcase_create("core");

  tcase_add_checked_fixture(tc, tiles_setup, tiles_teardown);
  tcase_add_test(tc, tiles_tall_screenshot_readable);
  tcase_add_test(tc, tiles_never_and_always);
  tcase_add_test(tc, tiles_image_budget);
  tcase_add_test(tc, tiles_budget_continuation);
  tcase_add_test(tc, tiles_many_images_keep_boxes);
  tcase_add_test(tc, tiles_exif_rotated_jpeg);
  tcase_add_test(tc, tiles_animated_gif_first_frame);
  tcase_add_test(tc, tiles_labels_in_every_format);
  tcase_add_test(tc, tiles_bad_mode_names_the_field);
  tcase_set_timeout(tc, 600);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  /* A 10800-pixel photo takes its worker seconds to convert, many times that on a busy
   * machine or under a sanitizer: the per-image time budget guards the daemon (test-image
   * checks it), it is not what these tests measure. */
  g_setenv("READERD_IMAGE_TIMEOUT_MS", IMAGE_TIMEOUT_MS, TRUE);
  return skip_status(rd_run_suite(tiles_suite()));
}
