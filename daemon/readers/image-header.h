/* Image dimensions from the header bytes alone, without decoding. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/readers/detect.h"

/* Reads width and height of an image of kind k from its first n bytes (a JPEG may need
 * everything up to its frame header). Returns 0, or -EINVAL when the header is missing,
 * cut short or claims a zero size; -ENOTSUP for kinds it does not parse. */
int image_header_size(DetectKind k, const uint8_t *data, size_t n, int *ret_width, int *ret_height);

/* What the whole file says about itself, from its structure alone (no pixel is decoded). */
typedef struct {
  int width, height;      /* as stored, before any EXIF orientation */
  int orientation;        /* JPEG EXIF orientation 1-8; 0 when the file carries none */
  int frames;             /* 1; more for an animated GIF or APNG; 2 for an animated WebP */
  bool complete;          /* the structure runs to its proper end (IEND, EOI, GIF trailer, RIFF
                           * size); false when the file was cut short */
  size_t first_frame_end; /* GIF: bytes up to the end of the first image's data; else n */
  bool interlaced;        /* PNG: Adam7 */
} ImageHeaderInfo;

/* Walks a whole PNG, JPEG, GIF or WebP file of n bytes: its size (as image_header_size), JPEG
 * EXIF orientation, frame count, and whether it is complete. Critical PNG chunks must have
 * correct CRCs. Returns 0 (a file cut short is 0 with complete == false), -EINVAL when the
 * header or the structure is damaged, -ENOTSUP for other kinds. Pure; never reads past n. */
int image_header_info(DetectKind k, const uint8_t *data, size_t n, ImageHeaderInfo *ret);

/* The EXIF orientation (1-8) of a JPEG's first APP1 Exif segment, 0 when there is none or it is
 * unreadable. Pure. */
int image_header_jpeg_orientation(const uint8_t *data, size_t n);

/* Picks the largest picture of an ICO file (most pixels, then most bits per pixel) from its
 * directory: its bytes are data[*ret_offset, *ret_offset + *ret_len), *ret_png tells whether
 * they are a PNG (else a BMP without file header). Returns 0, or -EINVAL when the directory is
 * damaged or points outside the file. Pure. */
int image_header_ico_pick(const uint8_t *data, size_t n, size_t *ret_offset, size_t *ret_len,
                          bool *ret_png);

/* Inflates the image data (IDAT chunks) of a PNG of n bytes whose structure is complete, and
 * checks that it holds at least the bytes its header promises: a file whose compressed data
 * was cut, even with a proper IEND after it, is refused. Costs about what decoding costs.
 * Returns 0, or -EINVAL when the data is short or does not inflate. Pure. */
int image_header_png_data_check(const uint8_t *data, size_t n);
