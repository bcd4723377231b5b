#include "daemon/pdf/worker/image-tiles.h"

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

/* Output pixels of `len` source pixels at `scale`: rounded, within [1, max_dimension]. */
static int scaled(int len, double scale, int max_dimension) {
  double v = len * scale + 0.5;

  if (v >= max_dimension)
    return max_dimension;
  return imax(1, (int)v);
}

/* The whole picture as one tile, scaled to fit. */
static void plan_one(int width, int height, int max_dimension, ImageTilePlan *ret) {
  int long_side = imax(width, height);

  ret->n = 1;
  ret->scale = long_side <= max_dimension ? 1.0 : (double)max_dimension / long_side;
  ret->boxes[0] = (ImageTileBox){0, 0, width, height};
  ret->out_width = scaled(width, ret->scale, max_dimension);
  ret->out_height = scaled(height, ret->scale, max_dimension);
}

/* The tiles along the long side; see image-tiles.h. */
bool image_tiles_plan(int width, int height, int max_dimension, ImageTileMode mode,
                      ImageTilePlan *ret) {
  int long_side = imax(width, height), short_side = imin(width, height), t;
  bool tall = height >= width;
  double best, scale;
  size_t n;

  memset(ret, 0, sizeof(*ret));
  if (width < 1 || height < 1 || max_dimension < 1 || mode == IMAGE_TILE_NEVER)
    return false;
  if (long_side <= max_dimension) {
    if (mode != IMAGE_TILE_ALWAYS)
      return false;
    plan_one(width, height, max_dimension, ret);
    return true;
  }
  /* auto: fitting would shrink it below half (long > 2 * max) and it is elongated beyond
   * 2.5:1 (2 * long > 5 * short), in 64 bits: the sides may be anything. */
  if (mode == IMAGE_TILE_AUTO && !((int64_t)long_side > 2 * (int64_t)max_dimension &&
                                   2 * (int64_t)long_side > 5 * (int64_t)short_side))
    return false;
  best = short_side <= max_dimension ? 1.0 : (double)max_dimension / short_side;
  /* The fewest tiles whose length, at 90% of the best scale, fits in max_dimension. */
  for (n = 1; n < IMAGE_TILES_MAX; n++)
    if ((double)tile_length(long_side, n) * best * IMAGE_TILE_MIN_SCALE_PCT / 100 <= max_dimension)
      break;
  if (n == 1) {
    plan_one(width, height, max_dimension, ret);
    return true;
  }
  t = imin(tile_length(long_side, n), long_side);
  /* A few pixels long (a tiny max_dimension): no two tiles may start at the same place. */
  if ((int64_t)n - 1 > (int64_t)long_side - t)
    n = (size_t)(long_side - t) + 1;
  scale = (double)max_dimension / t;
  if (scale > best)
    scale = best;
  ret->n = n;
  ret->scale = scale;
  for (size_t i = 0; i < n; i++) {
    /* Spread evenly: the first starts at 0, the last ends at the far edge. */
    int start = (int)(((int64_t)i * (long_side - t) + (int64_t)(n - 1) / 2) / (int64_t)(n - 1));

    ret->boxes[i] = tall ? (ImageTileBox){0, start, width, t} : (ImageTileBox){start, 0, t, height};
  }
  ret->out_width = scaled(ret->boxes[0].width, scale, max_dimension);
  ret->out_height = scaled(ret->boxes[0].height, scale, max_dimension);
  return true;
}
