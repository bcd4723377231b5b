/* Rendered PDF pages to PNG or JPEG: whichever suits the picture, within a size budget.
 * Pure: pixels in, encoded bytes out (libpng, libjpeg), no poppler, no I/O.
 *
 * Pixels are what cairo's CAIRO_FORMAT_RGB24 holds: one native-endian uint32 per pixel,
 * 0x00RRGGBB (the top byte is ignored), rows `stride` bytes apart. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/worker/pdf-wire.h"

#define PDF_PNG_MAX_COLORS 256 /* pictures with more colours are photo-like: JPEG */
#define PDF_JPEG_QUALITY 85

typedef struct {
  uint8_t *data; /* g_malloc'd */
  size_t len;
  PdfWireMedia media; /* PDF_MEDIA_PNG or PDF_MEDIA_JPEG */
} PdfEncoded;

/* Encodes a picture of at most PDF_PNG_MAX_COLORS colours as an 8-bit palette PNG into
 * *ret_data (g_malloc'd) and *ret_len. Returns 0; -E2BIG when it has more colours (nothing is
 * allocated); -ENOMEM, -EINVAL (w or h < 1) on failure. */
int pdf_encode_png(const uint8_t *px, int w, int h, size_t stride, uint8_t **ret_data,
                   size_t *ret_len);

/* Encodes a picture as a baseline JPEG of the given quality (1-100) into *ret_data
 * (g_malloc'd) and *ret_len. Returns 0, or -ENOMEM, -EINVAL on failure. */
int pdf_encode_jpeg(const uint8_t *px, int w, int h, size_t stride, int quality, uint8_t **ret_data,
                    size_t *ret_len);

/* Encodes a rendered page the way that suits it: a palette PNG when it has few colours (text,
 * line art: sharp and small), else JPEG (scans, photos: far cheaper to encode and smaller).
 * When the result is over max_bytes, tries JPEG at lower qualities. Returns 0 with *ret
 * filled; -EFBIG when nothing fits in max_bytes; -ENOMEM, -EINVAL on failure. */
int pdf_encode_page(const uint8_t *px, int w, int h, size_t stride, size_t max_bytes,
                    PdfEncoded *ret);

/* True when every pixel has the same colour (a blank page). */
bool pdf_encode_is_uniform(const uint8_t *px, int w, int h, size_t stride);
