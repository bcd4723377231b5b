/* The tile geometry of tall and wide pictures (basic/image-tiles.c): counts,
 * overlap, coverage, scale, and the modes, on the sizes of real screenshots and over a sweep. */
#include <check.h>
#include <limits.h>
#include <string.h>

#include <glib.h>

#include "basic/image-tiles.h"
#include "tests/lib/check-run.h"
#include "tests/lib/skip.h"

/* Everything a plan promises, checked from its boxes alone. */
static void check_plan_for(int w, int h, int max_dim, ImageTileTarget target,
                           const ImageTilePlan *p) {
  bool tall = h >= w;
  int len = tall ? h : w, across = tall ? w : h;
  int long_max = target == IMAGE_TILE_FOR_OPENAI ? MIN(max_dim, 2048) : max_dim;
  g_autofree unsigned char *covered = g_malloc0((size_t)len);
  double best = across <= long_max ? 1.0 : (double)long_max / across;

  ck_assert_msg(p->n >= 1 && p->n <= IMAGE_TILES_MAX, "%dx%d@%d: %zu tiles", w, h, max_dim, p->n);
  ck_assert(p->scale > 0 && p->scale <= 1.0);
  ck_assert_int_ge(p->out_width, 1);
  ck_assert_int_ge(p->out_height, 1);
  ck_assert_msg(p->out_width <= max_dim && p->out_height <= max_dim, "%dx%d@%d: tile %dx%d", w, h,
                max_dim, p->out_width, p->out_height);
  /* Sent at a size the provider takes as it is: Anthropic's pixels, OpenAI's edges. */
  if (target == IMAGE_TILE_FOR_OPENAI)
    ck_assert_msg(MAX(p->out_width, p->out_height) <= 2048 &&
                      MIN(p->out_width, p->out_height) <= 768,
                  "%dx%d@%d: tile %dx%d for OpenAI", w, h, max_dim, p->out_width, p->out_height);
  else
    ck_assert_msg((int64_t)p->out_width * p->out_height <= 1150000,
                  "%dx%d@%d: tile %dx%d is %d pixels", w, h, max_dim, p->out_width, p->out_height,
                  p->out_width * p->out_height);
  ck_assert(image_tiles_fits(p->out_width, p->out_height, max_dim, target));
  /* Below 90% of the best scale only when the tile count is at its cap. */
  if (p->n > 1 && p->n < IMAGE_TILES_MAX)
    ck_assert_msg(p->scale >= best * 0.9 - 1e-9, "%dx%d@%d: scale %f, best %f", w, h, max_dim,
                  p->scale, best);
  for (size_t i = 0; i < p->n; i++) {
    const ImageTileBox *b = &p->boxes[i];
    int start = tall ? b->y : b->x, tlen = tall ? b->height : b->width;

    /* The short side whole, inside the picture, all tiles the same size. */
    ck_assert_int_eq(tall ? b->x : b->y, 0);
    ck_assert_int_eq(tall ? b->width : b->height, across);
    ck_assert(start >= 0 && tlen >= 1 && start + tlen <= len);
    ck_assert_int_eq(b->width, p->boxes[0].width);
    ck_assert_int_eq(b->height, p->boxes[0].height);
    /* The output is the box at the plan's scale, to the pixel. */
    ck_assert(abs(p->out_width - (int)(b->width * p->scale + 0.5)) <= 1);
    ck_assert(abs(p->out_height - (int)(b->height * p->scale + 0.5)) <= 1);
    if (i > 0) {
      const ImageTileBox *a = &p->boxes[i - 1];
      int overlap = (tall ? a->y + a->height : a->x + a->width) - start;

      ck_assert_msg(overlap * 100 >= tlen * IMAGE_TILE_OVERLAP_PCT - 100 && overlap < tlen,
                    "%dx%d@%d: tiles %zu and %zu overlap by %d of %d", w, h, max_dim, i - 1, i,
                    overlap, tlen);
    }
    memset(covered + start, 1, (size_t)tlen);
  }
  ck_assert_int_eq(tall ? p->boxes[0].y : p->boxes[0].x, 0);
  {
    const unsigned char *gap = memchr(covered, 0, (size_t)len);

    ck_assert_msg(gap == NULL, "%dx%d@%d: pixel row %td is in no tile", w, h, max_dim,
                  gap - covered);
  }
}

/* The plan for the Anthropic-style formats, the default. */
static bool plan_anthropic(int w, int h, int max_dim, ImageTileMode mode, ImageTilePlan *p) {
  return image_tiles_plan(w, h, max_dim, IMAGE_TILE_FOR_ANTHROPIC, mode, p);
}

static void check_plan(int w, int h, int max_dim, const ImageTilePlan *p) {
  check_plan_for(w, h, max_dim, IMAGE_TILE_FOR_ANTHROPIC, p);
}

/* Anthropic scales a picture past 1.15 megapixels down: each tile is sent within them, at 0.9
 * of full scale or better. */
START_TEST(image_tiles_scrolled_screenshot_readable) {
  ImageTilePlan p;

  ck_assert(plan_anthropic(1080, 10800, 1568, IMAGE_TILE_AUTO, &p));
  check_plan(1080, 10800, 1568, &p);
  ck_assert_uint_eq(p.n, 10);
  ck_assert_msg(p.scale >= 0.9, "scale %f", p.scale);
  ck_assert_int_le((int64_t)p.out_width * p.out_height, IMAGE_TILE_ANTHROPIC_PIXELS);
  ck_assert_int_eq(p.out_width, (int)(1080 * p.scale + 0.5));
  /* About 10% overlap: 10 to 12% of a tile. */
  for (size_t i = 1; i < p.n; i++) {
    int overlap = p.boxes[i - 1].y + p.boxes[i - 1].height - p.boxes[i].y;

    ck_assert_msg(overlap * 100 >= p.boxes[i].height * 10 - 100 &&
                      overlap * 100 <= p.boxes[i].height * 12,
                  "overlap %d of %d", overlap, p.boxes[i].height);
  }
  ck_assert_int_eq(p.boxes[p.n - 1].y + p.boxes[p.n - 1].height, 10800);
}
END_TEST

/* OpenAI (detail high) fits a picture into 2048 x 2048, then its short side into 768: the
 * screenshot's tiles are short enough to be that side, at 0.9 of full scale or better. */
START_TEST(image_tiles_scrolled_screenshot_for_openai) {
  ImageTilePlan p;

  ck_assert(image_tiles_plan(1080, 10800, 1568, IMAGE_TILE_FOR_OPENAI, IMAGE_TILE_AUTO, &p));
  check_plan_for(1080, 10800, 1568, IMAGE_TILE_FOR_OPENAI, &p);
  ck_assert_msg(p.scale >= 0.9, "scale %f", p.scale);
  ck_assert_int_le(p.out_height, 768);
  ck_assert_int_eq(p.out_width, (int)(1080 * p.scale + 0.5));
  ck_assert_uint_eq(p.n, 14);
  /* A long edge past 2048 is cut to it for OpenAI, not for Anthropic. */
  ck_assert(image_tiles_plan(3000, 30000, 8000, IMAGE_TILE_FOR_OPENAI, IMAGE_TILE_AUTO, &p));
  check_plan_for(3000, 30000, 8000, IMAGE_TILE_FOR_OPENAI, &p);
  ck_assert(image_tiles_plan(3000, 30000, 8000, IMAGE_TILE_FOR_ANTHROPIC, IMAGE_TILE_AUTO, &p));
  check_plan_for(3000, 30000, 8000, IMAGE_TILE_FOR_ANTHROPIC, &p);
}
END_TEST

START_TEST(image_tiles_wide_capture_left_to_right) {
  ImageTilePlan p;

  ck_assert(plan_anthropic(12000, 900, 1568, IMAGE_TILE_AUTO, &p));
  check_plan(12000, 900, 1568, &p);
  /* Held by the pixels, not the long edge: 900 rows of full scale or nearly. */
  ck_assert_int_lt(p.out_width, 1568);
  ck_assert(p.scale >= 0.9);
  for (size_t i = 1; i < p.n; i++)
    ck_assert_int_gt(p.boxes[i].x, p.boxes[i - 1].x);
}
END_TEST

START_TEST(image_tiles_auto_thresholds) {
  ImageTilePlan p;

  /* Fits: never tiled. */
  ck_assert(!plan_anthropic(1000, 1568, 1568, IMAGE_TILE_AUTO, &p));
  ck_assert_uint_eq(p.n, 0);
  /* 3.2:1 but scaled to 0.52: still readable, not tiled. */
  ck_assert(!plan_anthropic(940, 3000, 1568, IMAGE_TILE_AUTO, &p));
  /* Below half, but only 2.4:1 (a big photo): not tiled. */
  ck_assert(!plan_anthropic(2000, 4800, 1568, IMAGE_TILE_AUTO, &p));
  /* Below half and beyond 2.5:1: tiled, either way round. */
  ck_assert(plan_anthropic(1000, 3200, 1568, IMAGE_TILE_AUTO, &p));
  check_plan(1000, 3200, 1568, &p);
  ck_assert(plan_anthropic(3200, 1000, 1568, IMAGE_TILE_AUTO, &p));
  check_plan(3200, 1000, 1568, &p);
  /* Exactly 2.5:1 is not beyond it. */
  ck_assert(!plan_anthropic(1600, 4000, 1568, IMAGE_TILE_AUTO, &p));
}
END_TEST

START_TEST(image_tiles_never_and_always) {
  ImageTilePlan p;

  ck_assert(!plan_anthropic(1080, 10800, 1568, IMAGE_TILE_NEVER, &p));
  ck_assert_uint_eq(p.n, 0);
  /* always, a picture that fits: one tile, the whole picture, unscaled. */
  ck_assert(plan_anthropic(640, 400, 1568, IMAGE_TILE_ALWAYS, &p));
  ck_assert_uint_eq(p.n, 1);
  ck_assert(p.scale == 1.0);
  ck_assert(p.boxes[0].x == 0 && p.boxes[0].y == 0 && p.boxes[0].width == 640 &&
            p.boxes[0].height == 400);
  ck_assert(p.out_width == 640 && p.out_height == 400);
  /* always, a big photo: as many tiles as keep 90% of the best scale (0.46, its short side in
   * 1568 px) within 1.15 megapixels each. */
  ck_assert(plan_anthropic(6028, 3391, 1568, IMAGE_TILE_ALWAYS, &p));
  check_plan(6028, 3391, 1568, &p);
  ck_assert_uint_eq(p.n, 4);
  /* always, slightly too many pixels: one tile, scaled to them. */
  ck_assert(plan_anthropic(1100, 1100, 1568, IMAGE_TILE_ALWAYS, &p));
  check_plan(1100, 1100, 1568, &p);
  ck_assert_uint_eq(p.n, 1);
  ck_assert_int_eq(p.out_width, 1072);
  /* always, within the long edge but past the pixels by far: tiles at full scale. */
  ck_assert(plan_anthropic(1500, 1400, 1568, IMAGE_TILE_ALWAYS, &p));
  check_plan(1500, 1400, 1568, &p);
  ck_assert_uint_eq(p.n, 2);
  ck_assert(p.scale >= 0.9);
  /* always, past the long edge: tiles, since one would be scaled below 90%. */
  ck_assert(plan_anthropic(1700, 1600, 1568, IMAGE_TILE_ALWAYS, &p));
  check_plan(1700, 1600, 1568, &p);
  ck_assert_uint_eq(p.n, 2);
}
END_TEST

START_TEST(image_tiles_capped_count) {
  ImageTilePlan p;

  /* 100 megapixels in a strip: the count stops at the cap and the scale gives way. */
  ck_assert(plan_anthropic(1000, 100000, 1568, IMAGE_TILE_AUTO, &p));
  check_plan(1000, 100000, 1568, &p);
  ck_assert_uint_eq(p.n, IMAGE_TILES_MAX);
  ck_assert(p.scale < 0.9);
}
END_TEST

START_TEST(image_tiles_nonsense_sizes) {
  static const int bad[][3] = {{0, 100, 1568},  {100, 0, 1568}, {-5, 100000, 1568},
                               {100, -1, 1568}, {1, 90000, 0},  {1, 90000, -3}};
  ImageTilePlan p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    for (int mode = IMAGE_TILE_NEVER; mode <= IMAGE_TILE_ALWAYS; mode++) {
      ck_assert(!plan_anthropic(bad[i][0], bad[i][1], bad[i][2], (ImageTileMode)mode, &p));
      ck_assert_uint_eq(p.n, 0);
    }
  /* Huge numbers do not overflow. */
  ck_assert(plan_anthropic(1, INT_MAX, 1568, IMAGE_TILE_AUTO, &p));
  ck_assert(p.n == IMAGE_TILES_MAX && p.out_height <= 1568 && p.out_width >= 1);
  ck_assert(plan_anthropic(INT_MAX, INT_MAX / 3, 8000, IMAGE_TILE_ALWAYS, &p));
  ck_assert(p.out_width <= 8000 && p.out_height <= 8000);
}
END_TEST

START_TEST(image_tiles_sweep) {
  static const int dims[] = {16, 200, 1568, 2000, 8000};
  size_t plans = 0;

  for (size_t d = 0; d < G_N_ELEMENTS(dims); d++)
    for (int w = 1; w <= 24000; w = w * 3 / 2 + 7)
      for (int h = 1; h <= 90000; h = h * 5 / 3 + 11)
        for (int mode = IMAGE_TILE_AUTO; mode <= IMAGE_TILE_ALWAYS; mode++) {
          ImageTilePlan p;

          for (int target = IMAGE_TILE_FOR_ANTHROPIC; target <= IMAGE_TILE_FOR_OPENAI; target++) {
            if (image_tiles_plan(w, h, dims[d], (ImageTileTarget)target, (ImageTileMode)mode, &p)) {
              check_plan_for(w, h, dims[d], (ImageTileTarget)target, &p);
              plans++;
            } else {
              ck_assert(mode == IMAGE_TILE_AUTO && p.n == 0);
            }
          }
        }
  ck_assert_uint_gt(plans, 1000);
}
END_TEST

static Suite *image_tiles_suite(void) {
  Suite *s = suite_create("image-tiles");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, image_tiles_scrolled_screenshot_readable);
  tcase_add_test(tc, image_tiles_scrolled_screenshot_for_openai);
  tcase_add_test(tc, image_tiles_wide_capture_left_to_right);
  tcase_add_test(tc, image_tiles_auto_thresholds);
  tcase_add_test(tc, image_tiles_never_and_always);
  tcase_add_test(tc, image_tiles_capped_count);
  tcase_add_test(tc, image_tiles_nonsense_sizes);
  tcase_add_test(tc, image_tiles_sweep);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  skip_init();
  failed = check_run(image_tiles_suite());
  return skip_status(failed == 0 ? 0 : 1);
}
