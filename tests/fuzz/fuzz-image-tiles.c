/* Fuzz target for the tile geometry: the input is a picture's width and height as a decoder
 * states them (any 32-bit numbers, negative ones too), the long edge allowed and the mode, as
 * four little-endian 32-bit words, and a fifth for the provider the tiles are sized for.
 *
 * Whatever the numbers, a plan stays within IMAGE_TILES_MAX tiles, every tile's box lies in
 * the picture and its output within the long edge allowed (and, for a long edge a request may
 * set, a size the provider takes unscaled), consecutive tiles overlap by at
 * least IMAGE_TILE_OVERLAP_PCT and never skip a pixel, and the last tile ends at the far edge;
 * a picture that is not tiled gets no plan. */
#include <string.h>

#include "basic/image-tiles.h"
#include "tests/fuzz/fuzz.h"

static int32_t word(const uint8_t *data, size_t size, size_t i) {
  uint32_t v = 0;

  for (size_t k = 0; k < 4 && 4 * i + k < size; k++)
    v |= (uint32_t)data[4 * i + k] << (8 * k);
  return (int32_t)v;
}

static void check_tiles(int w, int h, int max_dim, ImageTileTarget target, const ImageTilePlan *p) {
  int tall = h >= w, len = tall ? h : w, across = tall ? w : h;
  int64_t end = 0;

  fuzz_assert(w >= 1 && h >= 1 && max_dim >= 1);
  fuzz_assert(p->n >= 1 && p->n <= IMAGE_TILES_MAX);
  fuzz_assert(p->scale > 0 && p->scale <= 1.0);
  fuzz_assert(p->out_width >= 1 && p->out_width <= max_dim);
  fuzz_assert(p->out_height >= 1 && p->out_height <= max_dim);
  if (max_dim <= 8000)
    fuzz_assert(image_tiles_fits(p->out_width, p->out_height, max_dim, target));
  for (size_t i = 0; i < p->n; i++) {
    const ImageTileBox *b = &p->boxes[i];
    int start = tall ? b->y : b->x, tlen = tall ? b->height : b->width;

    fuzz_assert((tall ? b->x : b->y) == 0 && (tall ? b->width : b->height) == across);
    fuzz_assert(start >= 0 && tlen >= 1 && (int64_t)start + tlen <= len);
    fuzz_assert(start <= end); /* no pixel skipped */
    if (i > 0)
      fuzz_assert((end - start) * 100 >= (int64_t)tlen * IMAGE_TILE_OVERLAP_PCT - 100 &&
                  end - start < tlen);
    end = (int64_t)start + tlen;
  }
  fuzz_assert((tall ? p->boxes[0].y : p->boxes[0].x) == 0);
  fuzz_assert(end == len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int w = word(data, size, 0), h = word(data, size, 1), max_dim = word(data, size, 2);
  ImageTileMode mode = (ImageTileMode)((uint32_t)word(data, size, 3) % 3);
  ImageTileTarget target = (ImageTileTarget)((uint32_t)word(data, size, 4) % 2);
  ImageTilePlan p;
  bool tiled;

  /* The long edge as a request may set it, and as anything at all. */
  tiled = image_tiles_plan(w, h, max_dim, target, mode, &p);
  if (tiled)
    check_tiles(w, h, max_dim, target, &p);
  else
    fuzz_assert(p.n == 0);
  if (mode == IMAGE_TILE_NEVER || w < 1 || h < 1 || max_dim < 1)
    fuzz_assert(!tiled);
  if (mode == IMAGE_TILE_ALWAYS && w >= 1 && h >= 1 && max_dim >= 1)
    fuzz_assert(tiled);
  return 0;
}
