/* Image headers and small image writers: see images.h. */
#include "tests/lib/images.h"

#include <string.h>

#include "tests/lib/rd-internal.h"

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le24(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static bool jpeg_size(const unsigned char *d, size_t len, int *ret_w, int *ret_h) {
  size_t i = 2;
  while (i + 4 <= len) {
    if (d[i] != 0xff)
      return false;
    while (i < len && d[i] == 0xff)
      i++;
    if (i >= len)
      return false;
    unsigned m = d[i++];
    if (m == 0x01 || (m >= 0xd0 && m <= 0xd8))
      continue;
    if (i + 2 > len || m == 0xd9 || m == 0xda)
      return false;
    size_t seg = (size_t)d[i] << 8 | d[i + 1];
    if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
      if (i + 7 > len)
        return false;
      *ret_h = d[i + 3] << 8 | d[i + 4];
      *ret_w = d[i + 5] << 8 | d[i + 6];
      return true;
    }
    i += seg;
  }
  return false;
}

bool rd_image_size(const unsigned char *d, size_t len, int *ret_w, int *ret_h) {
  if (len >= 24 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0) {
    *ret_w = (int)be32(d + 16);
    *ret_h = (int)be32(d + 20);
    return true;
  }
  if (len >= 10 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0)) {
    *ret_w = d[6] | d[7] << 8;
    *ret_h = d[8] | d[9] << 8;
    return true;
  }
  if (len >= 30 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) {
    if (memcmp(d + 12, "VP8 ", 4) == 0) {
      *ret_w = (d[26] | d[27] << 8) & 0x3fff;
      *ret_h = (d[28] | d[29] << 8) & 0x3fff;
      return true;
    }
    if (memcmp(d + 12, "VP8L", 4) == 0) {
      uint32_t b = d[21] | (uint32_t)d[22] << 8 | (uint32_t)d[23] << 16 | (uint32_t)d[24] << 24;
      *ret_w = (int)(b & 0x3fff) + 1;
      *ret_h = (int)((b >> 14) & 0x3fff) + 1;
      return true;
    }
    if (memcmp(d + 12, "VP8X", 4) == 0) {
      *ret_w = (int)le24(d + 24) + 1;
      *ret_h = (int)le24(d + 27) + 1;
      return true;
    }
    return false;
  }
  if (len >= 4 && d[0] == 0xff && d[1] == 0xd8)
    return jpeg_size(d, len, ret_w, ret_h);
  return false;
}

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++)
      crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

static void put_be32(GByteArray *a, uint32_t v) {
  guint8 b[4] = {v >> 24, v >> 16, v >> 8, v};
  g_byte_array_append(a, b, 4);
}

static void png_chunk(GByteArray *a, const char *type, const guint8 *data, size_t len) {
  put_be32(a, (uint32_t)len);
  guint start = a->len;
  g_byte_array_append(a, (const guint8 *)type, 4);
  g_byte_array_append(a, data, (guint)len);
  put_be32(a, crc32_update(0, a->data + start, len + 4));
}

unsigned char *rd_make_png(int w, int h, size_t *ret_len) {
  GByteArray *png = g_byte_array_new();
  GByteArray *raw = g_byte_array_new();
  GByteArray *z = g_byte_array_new();
  guint8 ihdr[13] = {0};

  for (int y = 0; y < h; y++) {
    guint8 filter = 0;
    g_byte_array_append(raw, &filter, 1);
    for (int x = 0; x < w; x++) {
      guint8 px[3] = {(guint8)(x * 40), (guint8)(y * 60), 128};
      g_byte_array_append(raw, px, 3);
    }
  }
  /* A zlib stream of stored deflate blocks, with its Adler-32. */
  g_byte_array_append(z, (const guint8 *)"\x78\x01", 2);
  uint32_t s1 = 1, s2 = 0;
  for (guint off = 0; off < raw->len || off == 0;) {
    guint n = MIN(raw->len - off, 65535u);
    guint8 hdr[5] = {off + n == raw->len, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff};
    g_byte_array_append(z, hdr, 5);
    g_byte_array_append(z, raw->data + off, n);
    off += n;
    if (off == raw->len)
      break;
  }
  for (guint i = 0; i < raw->len; i++) {
    s1 = (s1 + raw->data[i]) % 65521;
    s2 = (s2 + s1) % 65521;
  }
  put_be32(z, s2 << 16 | s1);

  g_byte_array_append(png, (const guint8 *)"\x89PNG\r\n\x1a\n", 8);
  ihdr[0] = (guint8)(w >> 24), ihdr[1] = (guint8)(w >> 16), ihdr[2] = (guint8)(w >> 8);
  ihdr[3] = (guint8)w, ihdr[4] = (guint8)(h >> 24), ihdr[5] = (guint8)(h >> 16);
  ihdr[6] = (guint8)(h >> 8), ihdr[7] = (guint8)h, ihdr[8] = 8, ihdr[9] = 2;
  png_chunk(png, "IHDR", ihdr, 13);
  png_chunk(png, "IDAT", z->data, z->len);
  png_chunk(png, "IEND", NULL, 0);
  g_byte_array_free(raw, TRUE);
  g_byte_array_free(z, TRUE);
  *ret_len = png->len;
  return g_byte_array_free(png, FALSE);
}

/* Bits packed least significant first, as VP8L reads them. */
typedef struct {
  GByteArray *out;
  uint32_t acc;
  int n;
} BitWriter;

static void bits_put(BitWriter *b, uint32_t v, int nbits) {
  for (int i = 0; i < nbits; i++) {
    b->acc |= ((v >> i) & 1u) << b->n;
    if (++b->n == 8) {
      guint8 byte = (guint8)b->acc;
      g_byte_array_append(b->out, &byte, 1);
      b->acc = 0;
      b->n = 0;
    }
  }
}

static void put_le32(GByteArray *a, uint32_t v) {
  guint8 b[4] = {v, v >> 8, v >> 16, v >> 24};
  g_byte_array_append(a, b, 4);
}

unsigned char *rd_make_webp(int w, int h, size_t *ret_len) {
  GByteArray *bits = g_byte_array_new();
  BitWriter b = {bits, 0, 0};
  const uint32_t argb[4] = {0x40 /* green */, 0xc0 /* red */, 0x80 /* blue */, 0xff /* alpha */};

  bits_put(&b, 0x2f, 8); /* VP8L signature */
  bits_put(&b, (uint32_t)(w - 1), 14);
  bits_put(&b, (uint32_t)(h - 1), 14);
  bits_put(&b, 0, 1); /* no alpha */
  bits_put(&b, 0, 3); /* version */
  bits_put(&b, 0, 1); /* no transform */
  bits_put(&b, 0, 1); /* no color cache */
  bits_put(&b, 0, 1); /* no meta prefix codes */
  /* Five simple prefix codes of one symbol each: every pixel then takes no bits at all. */
  for (int i = 0; i < 4; i++) {
    bits_put(&b, 1, 1);
    bits_put(&b, 0, 1);
    bits_put(&b, 1, 1);
    bits_put(&b, argb[i], 8);
  }
  bits_put(&b, 1, 1);
  bits_put(&b, 0, 1);
  bits_put(&b, 0, 1);
  bits_put(&b, 0, 1);
  if (b.n)
    bits_put(&b, 0, 8 - b.n);
  if (bits->len % 2)
    bits_put(&b, 0, 8);

  GByteArray *out = g_byte_array_new();
  g_byte_array_append(out, (const guint8 *)"RIFF", 4);
  put_le32(out, 4 + 8 + bits->len);
  g_byte_array_append(out, (const guint8 *)"WEBPVP8L", 8);
  put_le32(out, bits->len);
  g_byte_array_append(out, bits->data, bits->len);
  g_byte_array_free(bits, TRUE);
  *ret_len = out->len;
  return g_byte_array_free(out, FALSE);
}
