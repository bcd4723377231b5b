/* The image reader: pictures a model can always take. Runs on a worker thread.
 *
 * PNG, JPEG, GIF and WebP files within the limits (long edge <= max_dimension, base64 within
 * IMAGE_MAX_BASE64, upright, one frame, whole) are sent byte for byte (a GIF up to the end of its
 * frame and a trailer: the same bytes when it is well formed). Everything else is decoded,
 * turned upright, scaled and re-encoded by image-convert.c in a worker process
 * (image-remote.h: killed at the time budget or on cancel); conversions are cached
 * (image-cache.c). image_request_budget() then applies the limits of a whole request. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "basic/image-tiles.h"
#include "daemon/readers/detect.h"
#include "formatters/result.h"

#define IMAGE_MAX_FILE_BYTES ((int64_t)20 * 1024 * 1024) /* image files larger are refused */
#define IMAGE_MANY 20                 /* a request with more images than this ... */
#define IMAGE_MANY_MAX_DIMENSION 2000 /* ... sends each at most this long edge */

typedef struct {
  int max_dimension;            /* long edge in pixels */
  ImageTileMode tile;           /* tall or wide pictures as tiles (image-tiles.h) */
  ImageTileTarget tile_target;  /* the provider the tiles are sized for (image-tiles.h) */
  int64_t first_tile;           /* a picture sent as tiles: the first one sent (1-based; 0 or 1:
                                   all of them); one past the last is INVALID_PARAMS */
  const atomic_bool *cancelled; /* may be NULL; watched every 50 ms while a worker decodes */
} ImageOptions;

/* Reads the image file open at fd (kind k by signature, size from st) into res: type, one
 * ImageOut in res->images, `animated`. `head` holds the first head_len bytes, already read,
 * and fd is positioned after them. Per-file failures are set in res. Returns 0 when the image
 * was read, else a negative errno-style value. */
int image_read(int fd, const struct stat *st, DetectKind k, const uint8_t *head, size_t head_len,
               const ImageOptions *opt, FileResult *res);

/* True when the head of a text file is an SVG document (an <svg> root element near the top). */
bool image_is_svg(const uint8_t *head, size_t n);

/* Like image_read for an SVG file: rendered with gdk-pixbuf's SVG loader (librsvg) to fit
 * max_dimension, small drawings scaled up to IMAGE_SVG_MIN_EDGE, sent as PNG. A missing loader
 * is UNSUPPORTED_FORMAT. */
int image_read_svg(int fd, const struct stat *st, const uint8_t *head, size_t head_len,
                   const ImageOptions *opt, FileResult *res);

/* Like image_read for a picture held in memory (an output embedded in a notebook): a PNG, JPEG,
 * GIF or WebP by its signature, refused, sent as it is or converted like an image file, not
 * cached. Other data is UNSUPPORTED_FORMAT. */
int image_read_bytes(const uint8_t *data, size_t len, const ImageOptions *opt, FileResult *res);

/* The limits of a whole request, applied once every file was read (on a worker thread):
 * when the request sends more than IMAGE_MANY images, those longer than
 * IMAGE_MANY_MAX_DIMENSION are scaled down to it; then, in request order, an image file
 * whose base64 no longer fits in what is left of max_total_bytes is answered FILE_TOO_LARGE
 * with a message saying so, instead of its image. `cancelled` may be NULL. */
void image_request_budget(ReadResult *r, int64_t max_total_bytes, const atomic_bool *cancelled);
