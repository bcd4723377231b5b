/* Decoding, orienting, scaling and re-encoding one picture with gdk-pixbuf, so that a model
 * can take it. Thread-safe; readerd runs it in its worker process (image-worker.h), where a
 * decoder that spins can be killed: call image-remote.h there. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/image-tiles.h"
#include "formatters/result.h"

#define IMAGE_MAX_PIXELS ((int64_t)100 * 1000 * 1000)         /* refused above, before decoding */
#define IMAGE_MAX_BASE64 ((size_t)5 * 1024 * 1024)            /* base64 bytes of one sent image */
#define IMAGE_CPU_BUDGET_NS ((int64_t)5 * 1000 * 1000 * 1000) /* per image, decode + encode */
#define IMAGE_DECODE_MEMORY ((size_t)512 * 1024 * 1024)       /* decoded pixels, per process */
#define IMAGE_SVG_MIN_EDGE 512 /* a small SVG is rendered at least this large (long edge) */

typedef struct {
  const char *loader;           /* gdk-pixbuf loader: "png", "jpeg", "gif", "webp", "bmp", ... */
  int max_dimension;            /* long edge of the result, in pixels */
  bool photo;                   /* the source is a photo (JPEG): encode as JPEG unless alpha */
  bool vector;                  /* SVG: rendered at the target size, small ones scaled up */
  bool check_rows;              /* refuse a picture whose rows were not all decoded (BMP, ICO) */
  const atomic_bool *cancelled; /* may be NULL; checked between chunks and encoder steps */
  int64_t cpu_budget_ms;        /* CPU time of the conversion; 0: IMAGE_CPU_BUDGET_NS */
  ImageTileMode tile;           /* tall or wide pictures as tiles (image-tiles.h); never: 0 */
  ImageTileTarget tile_target;  /* the provider the tiles are sized for (image-tiles.h) */
} ImageConvertOptions;

/* Decodes the picture in data[0, len) (its first frame when animated) with the named loader,
 * applies its EXIF orientation, then either scales it so that its long edge is at most
 * max_dimension (aspect kept; a vector image is rendered at that size, so only the size
 * rendered counts against IMAGE_MAX_PIXELS), or, when opt->tile and image_tiles_plan() say
 * so, cuts it into overlapping tiles, each cropped and scaled within max_dimension. Each
 * picture is encoded as PNG (alpha, graphics with few colours) or JPEG (photos, quality 85
 * down to 45) within IMAGE_MAX_BASE64, scaling further down when needed. On success sets *ret
 * to a g_malloc'd list of *ret_n images (free with image_out_list_free): one, or one per
 * tile (tile set, original_width/height the whole picture's; the tiles past
 * IMAGE_TILES_MAX_BASE64 left out, so *ret_n may be below tile.count); media_type, data, width,
 * height, and original_width/height when the size changed. Sets *ret_animated. Returns 0, or
 * with *ret_error (g_malloc'd) set and no list:
 *   -EFBIG      more than IMAGE_MAX_PIXELS;      -ENOMEM  the decoder ran out of memory;
 *   -EBADMSG    damaged or truncated data, or a decoder that gave a picture of another size
 *               than the one it announced (or was asked for);  -ENOTSUP no loader;
 *   -ETIME      the CPU time budget was spent;   -ECANCELED cancelled;
 *   -EIO        the encoder failed. */
int image_convert(const uint8_t *data, size_t len, const ImageConvertOptions *opt,
                  ImageOut **ret, size_t *ret_n, bool *ret_animated, char **ret_error);

/* Decodes data with the named loader and nothing more, to check a file sent as it is. Returns
 * 0 when it decodes without any error, else a code of image_convert with *ret_error set. */
int image_convert_check(const uint8_t *data, size_t len, const char *loader,
                        const atomic_bool *cancelled, char **ret_error);

/* True when the gdk-pixbuf loader of that name is installed. */
bool image_convert_has_loader(const char *loader);
