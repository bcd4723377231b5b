/* Where to cut a tall or wide picture into overlapping tiles, so that a scrolled screenshot or
 * a wide log capture reaches the model readable instead of scaled into a strip. Pure: numbers
 * in, boxes out; image-convert.c crops and scales what it says. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define IMAGE_TILES_MAX 32          /* tiles of one picture at most (the scale drops past it) */
#define IMAGE_TILE_OVERLAP_PCT 10   /* each tile overlaps the next by at least this much */
#define IMAGE_TILE_MIN_SCALE_PCT 90 /* of the best scale: a tile more goes before scaling below */
/* base64 bytes of all the tiles of one picture at most; the tiles past it are left out */
#define IMAGE_TILES_MAX_BASE64 ((size_t)32 * 1024 * 1024)

/* What the tiles are sized for: the provider that takes them, so that it does not scale them again.
 * Anthropic scales a picture past IMAGE_TILE_ANTHROPIC_PIXELS (or past 1568 px on its long edge,
 * images.maxDimension's default) down; OpenAI, at detail high, fits it into 2048 x 2048 and then
 * its short side into 768 px. */
typedef enum {
  IMAGE_TILE_FOR_ANTHROPIC = 0, /* every format but openai */
  IMAGE_TILE_FOR_OPENAI,
} ImageTileTarget;

#define IMAGE_TILE_ANTHROPIC_PIXELS 1150000 /* width x height of one tile at most */
#define IMAGE_TILE_OPENAI_LONG 2048         /* long edge at most */
#define IMAGE_TILE_OPENAI_SHORT 768         /* short edge at most */

/* `images.tile`. NEVER is the zero value: options built without a mode never tile. */
typedef enum {
  IMAGE_TILE_NEVER = 0, /* one picture, scaled to fit */
  IMAGE_TILE_AUTO,      /* tiles when fitting would shrink a tall or wide picture below half */
  IMAGE_TILE_ALWAYS,    /* tiles whenever the picture is larger than the long edge allowed;
                           a picture that fits is one tile: the whole picture, unscaled */
} ImageTileMode;

/* A tile's box in pixels of the upright original. */
typedef struct {
  int x, y, width, height;
} ImageTileBox;

typedef struct {
  size_t n;      /* tiles, 0 when the picture is not tiled */
  double scale;  /* output size of a tile = its box times this (at most 1) */
  int out_width; /* every tile's output size in pixels, each within the long edge allowed */
  int out_height;
  ImageTileBox boxes[IMAGE_TILES_MAX]; /* in order: top to bottom, or left to right */
} ImageTilePlan;

/* True when a picture of width x height is sent to `target` at its size: its long edge within
 * max_dimension and within what the target takes unscaled (IMAGE_TILE_ANTHROPIC_PIXELS; or
 * IMAGE_TILE_OPENAI_LONG and IMAGE_TILE_OPENAI_SHORT). */
bool image_tiles_fits(int width, int height, int max_dimension, ImageTileTarget target);

/* Plans the tiles of a width x height picture (upright) whose long edge may be at most
 * max_dimension once sent, for `target`. Returns true and fills *ret when the picture is sent
 * as tiles:
 *   auto:   when fitting it whole would scale it below 1/2 and one side is more than 2.5
 *           times the other;
 *   always: whenever it does not fit (image_tiles_fits); a picture that fits is one tile;
 *   never:  not at all.
 * Tiles span the short side whole and cut the long side into equal lengths that overlap by at
 * least IMAGE_TILE_OVERLAP_PCT; each is sent at a size the target takes unscaled
 * (image_tiles_fits of out_width x out_height is true); the fewest tiles are used that keep the
 * scale within IMAGE_TILE_MIN_SCALE_PCT of the best one (1, or what fits the short side in
 * max_dimension), at most IMAGE_TILES_MAX. Every pixel is in some tile. Any numbers are
 * accepted: sizes below 1 are never tiled. Returns false (ret->n 0) when the picture is not
 * tiled. */
bool image_tiles_plan(int width, int height, int max_dimension, ImageTileTarget target,
                      ImageTileMode mode, ImageTilePlan *ret);
