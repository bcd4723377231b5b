#include "basic/image-tiles.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static int imin(int a, int b) {
  return a < b ? a : b;
}

static int imax(int a, int b) {
  return a > b ? a : b;
}

/* The length of each of n tiles over a long side of `len` pixels, so that consecutive tiles
 * overlap by IMAGE_TILE_OVERLAP_PCT of a tile: len = T + (n - 1) * T * (1 - overlap). */
static int tile_length(int len, size_t n) {
  int64_t den = 100 + (int64_t)(n - 1) * (100 - IMAGE_TILE_OVERLAP_PCT);
  int64_t t = ((int64_t)len * 100 + den - 1) / den;

  return (int)(t < 1 ? 1 : t);
}

/* What a tile may be once sent: its long edge, its short edge and its pixels at most. */
typedef struct {
  double long_max, short_max, pixels;
} Limits;

static Limits limits_of(int max_dimension, ImageTileTarget target) {
  if (target == IMAGE_TILE_FOR_OPENAI)
    return (Limits){imin(max_dimension, IMAGE_TILE_OPENAI_LONG), IMAGE_TILE_OPENAI_SHORT, HUGE_VAL};
  return (Limits){max_dimension, HUGE_VAL, IMAGE_TILE_ANTHROPIC_PIXELS};
}

/* The largest scale (at most 1) at which an a x b box is sent within the limits. */
static double scale_within(double a, double b, const Limits *l) {
  double s = 1.0, lo = a < b ? a : b, hi = a < b ? b : a;

  s = fmin(s, l->long_max / hi);
  s = fmin(s, l->short_max / lo);
  s = fmin(s, sqrt(l->pixels / (a * b)));
  return s;
}

bool image_tiles_fits(int width, int height, int max_dimension, ImageTileTarget target) {
  Limits l = limits_of(max_dimension, target);

  return width >= 1 && height >= 1 && imax(width, height) <= l.long_max &&
         imin(width, height) <= l.short_max && (double)width * height <= l.pixels;
}

/* Output pixels of `len` source pixels at `scale`: rounded, within [1, max]. */
static int scaled(int len, double scale, double max) {
  double v = len * scale + 0.5;

  if (v >= max)
    return (int)max;
  return imax(1, (int)v);
}

/* The output size of a box at ret->scale: rounded, or rounded down where rounding would pass
 * a limit (the exact size is within them). */
static void out_size(const ImageTileBox *b, const Limits *l, ImageTilePlan *ret) {
  int w = scaled(b->width, ret->scale, l->long_max), h = scaled(b->height, ret->scale, l->long_max);

  if ((double)w * h > l->pixels || imin(w, h) > l->short_max) {
    w = imax(1, (int)(b->width * ret->scale));
    h = imax(1, (int)(b->height * ret->scale));
  }
  ret->out_width = w;
  ret->out_height = h;
}

/* The whole picture as one tile, scaled to fit. */
static void plan_one(int width, int height, const Limits *l, ImageTilePlan *ret) {
  ret->n = 1;
  ret->scale = scale_within(width, height, l);
  ret->boxes[0] = (ImageTileBox){0, 0, width, height};
  out_size(&ret->boxes[0], l, ret);
}

/* The tiles along the long side; see image-tiles.h. */
bool image_tiles_plan(int width, int height, int max_dimension, ImageTileTarget target,
                      ImageTileMode mode, ImageTilePlan *ret) {
  int long_side = imax(width, height), short_side = imin(width, height), t;
  bool tall = height >= width;
  double best, scale;
  Limits l;
  size_t n;

  memset(ret, 0, sizeof(*ret));
  if (width < 1 || height < 1 || max_dimension < 1 || mode == IMAGE_TILE_NEVER)
    return false;
  l = limits_of(max_dimension, target);
  if (long_side <= max_dimension) {
    if (mode != IMAGE_TILE_ALWAYS)
      return false;
    if (image_tiles_fits(width, height, max_dimension, target)) {
      plan_one(width, height, &l, ret);
      return true;
    }
  }
  /* auto: fitting would shrink it below half (long > 2 * max) and it is elongated beyond
   * 2.5:1 (2 * long > 5 * short), in 64 bits: the sides may be anything. */
  if (mode == IMAGE_TILE_AUTO && !((int64_t)long_side > 2 * (int64_t)max_dimension &&
                                   2 * (int64_t)long_side > 5 * (int64_t)short_side))
    return false;
  /* The best scale: a tile short enough is limited by the short side alone. */
  best = fmin(1.0, l.long_max / short_side);
  /* The fewest tiles whose scale within the limits is at least 90% of the best. */
  for (n = 1; n < IMAGE_TILES_MAX; n++)
    if (scale_within(short_side, imin(tile_length(long_side, n), long_side), &l) >=
        best * IMAGE_TILE_MIN_SCALE_PCT / 100 * (1 - 1e-12))
      break;
  if (n == 1) {
    plan_one(width, height, &l, ret);
    return true;
  }
  t = imin(tile_length(long_side, n), long_side);
  /* A few pixels long (a tiny max_dimension): no two tiles may start at the same place. */
  if ((int64_t)n - 1 > (int64_t)long_side - t)
    n = (size_t)(long_side - t) + 1;
  scale = scale_within(short_side, t, &l);
  ret->n = n;
  ret->scale = scale;
  for (size_t i = 0; i < n; i++) {
    /* Spread evenly: the first starts at 0, the last ends at the far edge. */
    int start = (int)(((int64_t)i * (long_side - t) + (int64_t)(n - 1) / 2) / (int64_t)(n - 1));

    ret->boxes[i] = tall ? (ImageTileBox){0, start, width, t} : (ImageTileBox){start, 0, t, height};
  }
  out_size(&ret->boxes[0], &l, ret);
  return true;
}
