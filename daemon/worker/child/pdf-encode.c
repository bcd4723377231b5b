#include "daemon/worker/child/pdf-encode.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <jpeglib.h>
#include <png.h>

/* zlib level for PNG: text pages compress almost as well at 3 as at 9, several times faster. */
#define PNG_ZLIB_LEVEL 3

/* Lower JPEG qualities tried, in order, when a page does not fit its budget. */
static const int jpeg_fallback_quality[] = {70, 50, 35};

#define HASH_SLOTS 1024 /* a power of two, comfortably above PDF_PNG_MAX_COLORS */
#define HASH_EMPTY UINT32_MAX

static inline uint32_t pixel_at(const uint8_t *px, size_t stride, int x, int y) {
  uint32_t v;

  memcpy(&v, px + (size_t)y * stride + (size_t)x * 4, sizeof(v));
  return v & 0xFFFFFFu;
}

/* The colour table of a palette picture: colours in order of first appearance, and an open
 * addressing hash from colour to index. */
typedef struct {
  uint32_t keys[HASH_SLOTS];
  uint8_t idx[HASH_SLOTS];
  uint32_t colors[PDF_PNG_MAX_COLORS];
  int n;
} Palette;

/* The palette index of c, added when new. Returns -E2BIG when the palette is full. */
static int palette_index(Palette *p, uint32_t c) {
  uint32_t h = (c * 2654435761u) >> 22; /* top 10 bits: HASH_SLOTS */

  for (;;) {
    h &= HASH_SLOTS - 1;
    if (p->keys[h] == c)
      return p->idx[h];
    if (p->keys[h] == HASH_EMPTY)
      break;
    h++;
  }
  if (p->n == PDF_PNG_MAX_COLORS)
    return -E2BIG;
  p->keys[h] = c;
  p->idx[h] = (uint8_t)p->n;
  p->colors[p->n] = c;
  return p->n++;
}

/* Maps every pixel to its palette index in out (w * h bytes). Returns 0, or -E2BIG at the
 * first colour past PDF_PNG_MAX_COLORS. Runs of one colour, the usual case, skip the hash. */
static int palette_map(Palette *p, const uint8_t *px, int w, int h, size_t stride, uint8_t *out) {
  uint32_t last = HASH_EMPTY;
  int last_idx = 0;

  memset(p->keys, 0xFF, sizeof(p->keys));
  p->n = 0;
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      uint32_t c = pixel_at(px, stride, x, y);

      if (c != last) {
        last_idx = palette_index(p, c);
        if (last_idx < 0)
          return last_idx;
        last = c;
      }
      *out++ = (uint8_t)last_idx;
    }
  }
  return 0;
}

static void png_write_cb(png_structp png, png_bytep data, size_t len) {
  g_byte_array_append(png_get_io_ptr(png), data, (guint)len);
}

static void png_flush_cb(png_structp png) {
}

/* The libpng part, apart so that nothing it touches is a local of the function that calls
 * setjmp. Returns 0 or -ENOMEM. */
static int png_write_indexed(const Palette *pal, const uint8_t *index, int w, int h,
                             GByteArray *out) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
  png_color colors[PDF_PNG_MAX_COLORS];

  if (info == NULL) {
    png_destroy_write_struct(&png, NULL);
    return -ENOMEM;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return -ENOMEM;
  }
  for (int i = 0; i < pal->n; i++) {
    colors[i].red = (png_byte)(pal->colors[i] >> 16);
    colors[i].green = (png_byte)(pal->colors[i] >> 8);
    colors[i].blue = (png_byte)pal->colors[i];
  }
  png_set_write_fn(png, out, png_write_cb, png_flush_cb);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_PALETTE,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_PLTE(png, info, colors, pal->n);
  /* Palette pictures compress best unfiltered. */
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_compression_level(png, PNG_ZLIB_LEVEL);
  png_write_info(png, info);
  for (int y = 0; y < h; y++)
    png_write_row(png, index + (size_t)y * (size_t)w);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return 0;
}

/* Encodes a palette PNG; see pdf-encode.h. */
int pdf_encode_png(const uint8_t *px, int w, int h, size_t stride, uint8_t **ret_data,
                   size_t *ret_len) {
  Palette *pal = NULL;
  uint8_t *index = NULL;
  GByteArray *out = NULL;
  int r;

  if (w < 1 || h < 1)
    return -EINVAL;
  pal = g_new(Palette, 1);
  index = g_malloc((size_t)w * (size_t)h);
  r = palette_map(pal, px, w, h, stride, index);
  if (r < 0)
    goto finish;
  out = g_byte_array_sized_new((guint)((size_t)w * (size_t)h / 8 + 1024));
  r = png_write_indexed(pal, index, w, h, out);
  if (r == 0) {
    *ret_len = out->len;
    *ret_data = g_byte_array_free(out, FALSE);
    out = NULL;
  }

finish:
  if (out != NULL)
    g_byte_array_free(out, TRUE);
  g_free(index);
  g_free(pal);
  return r;
}

/* libjpeg's default error handler exits the process; this one jumps back instead. */
typedef struct {
  struct jpeg_error_mgr mgr;
  jmp_buf jump;
} JpegError;

static void jpeg_error_exit_cb(j_common_ptr cinfo) {
  longjmp(((JpegError *)(void *)cinfo->err)->jump, 1);
}

/* The libjpeg part; *ret_buf and *ret_len are libjpeg's malloc'd output (free() it, set or not
 * on failure). Returns 0 or -ENOMEM. */
static int jpeg_write(const uint8_t *px, int w, int h, size_t stride, int quality,
                      unsigned char **ret_buf, unsigned long *ret_len) {
  struct jpeg_compress_struct c;
  JpegError err;

  c.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpeg_error_exit_cb;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    return -ENOMEM;
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, ret_buf, ret_len);
  c.image_width = (JDIMENSION)w;
  c.image_height = (JDIMENSION)h;
  c.input_components = 4;
  /* cairo's RGB24 is a native-endian 0x00RRGGBB word: B, G, R, X bytes on little-endian. */
  c.in_color_space = G_BYTE_ORDER == G_LITTLE_ENDIAN ? JCS_EXT_BGRX : JCS_EXT_XRGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = (JSAMPROW)(px + (size_t)c.next_scanline * stride);

    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  return 0;
}

/* Encodes a JPEG; see pdf-encode.h. */
int pdf_encode_jpeg(const uint8_t *px, int w, int h, size_t stride, int quality, uint8_t **ret_data,
                    size_t *ret_len) {
  unsigned char *buf = NULL;
  unsigned long len = 0;
  int r;

  if (w < 1 || h < 1 || quality < 1 || quality > 100)
    return -EINVAL;
  r = jpeg_write(px, w, h, stride, quality, &buf, &len);
  if (r == 0) {
    *ret_data = g_memdup2(buf, len);
    *ret_len = len;
  }
  free(buf);
  return r;
}

static void encoded_set(PdfEncoded *ret, uint8_t *data, size_t len, PdfWireMedia media) {
  ret->data = data;
  ret->len = len;
  ret->media = media;
}

/* PNG when few colours, else JPEG, within max_bytes; see pdf-encode.h. */
int pdf_encode_page(const uint8_t *px, int w, int h, size_t stride, size_t max_bytes,
                    PdfEncoded *ret) {
  uint8_t *data = NULL;
  size_t len = 0;
  int r = pdf_encode_png(px, w, h, stride, &data, &len);

  if (r == 0 && len <= max_bytes) {
    encoded_set(ret, data, len, PDF_MEDIA_PNG);
    return 0;
  }
  g_free(data);
  if (r < 0 && r != -E2BIG)
    return r;
  r = pdf_encode_jpeg(px, w, h, stride, PDF_JPEG_QUALITY, &data, &len);
  for (size_t i = 0; r == 0 && len > max_bytes && i < G_N_ELEMENTS(jpeg_fallback_quality); i++) {
    g_free(data);
    data = NULL;
    r = pdf_encode_jpeg(px, w, h, stride, jpeg_fallback_quality[i], &data, &len);
  }
  if (r < 0)
    return r;
  if (len > max_bytes) {
    g_free(data);
    return -EFBIG;
  }
  encoded_set(ret, data, len, PDF_MEDIA_JPEG);
  return 0;
}

/* True when the picture has one colour; see pdf-encode.h. */
bool pdf_encode_is_uniform(const uint8_t *px, int w, int h, size_t stride) {
  uint32_t first;

  if (w < 1 || h < 1)
    return true;
  first = pixel_at(px, stride, 0, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (pixel_at(px, stride, x, y) != first)
        return false;
  return true;
}
