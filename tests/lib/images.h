/* Images for and from the tests: sizes read from PNG, GIF, JPEG and WebP headers independently
 * of the daemon, and small valid PNG and WebP files written without any image library. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Width and height parsed from the header of PNG, GIF, JPEG or WebP bytes. Returns false for
 * anything else. */
bool rd_image_size(const unsigned char *data, size_t len, int *ret_w, int *ret_h);

/* A valid RGB PNG of w x h pixels (stored deflate, real CRCs); *ret_len is its size.
 * g_malloc'd. */
unsigned char *rd_make_png(int w, int h, size_t *ret_len);

/* A valid lossless WebP (VP8L) of w x h pixels of one colour; *ret_len is its size.
 * g_malloc'd. */
unsigned char *rd_make_webp(int w, int h, size_t *ret_len);
