#include "daemon/image-header.h"

#include <errno.h>

static uint32_t be16(const uint8_t *p) {
  return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le16(const uint8_t *p) {
  return (uint32_t)p[1] << 8 | p[0];
}

static uint32_t le24(const uint8_t *p) {
  return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int png_size(const uint8_t *d, size_t n, uint32_t *w, uint32_t *h) {
  /* Signature, then the IHDR chunk: length, "IHDR", width, height. */
  if (n < 24 || d[12] != 'I' || d[13] != 'H' || d[14] != 'D' || d[15] != 'R')
    return -EINVAL;
  *w = be32(d + 16);
  *h = be32(d + 20);
  return 0;
}

static int gif_size(const uint8_t *d, size_t n, uint32_t *w, uint32_t *h) {
  if (n < 10)
    return -EINVAL;
  *w = le16(d + 6);
  *h = le16(d + 8);
  return 0;
}

static int webp_size(const uint8_t *d, size_t n, uint32_t *w, uint32_t *h) {
  if (n < 30)
    return -EINVAL;
  if (d[12] == 'V' && d[13] == 'P' && d[14] == '8' && d[15] == ' ') {
    /* Lossy: a key frame starts with the start code 9d 01 2a, then 14-bit sizes. */
    if (d[23] != 0x9d || d[24] != 0x01 || d[25] != 0x2a)
      return -EINVAL;
    *w = le16(d + 26) & 0x3fff;
    *h = le16(d + 28) & 0x3fff;
    return 0;
  }
  if (d[12] == 'V' && d[13] == 'P' && d[14] == '8' && d[15] == 'L') {
    /* Lossless: signature byte 0x2f, then width-1 and height-1 in 14 bits each. */
    uint32_t bits = le32(d + 21);

    if (d[20] != 0x2f)
      return -EINVAL;
    *w = (bits & 0x3fff) + 1;
    *h = ((bits >> 14) & 0x3fff) + 1;
    return 0;
  }
  if (d[12] == 'V' && d[13] == 'P' && d[14] == '8' && d[15] == 'X') {
    /* Extended: canvas width-1 and height-1 in 24 bits each. */
    *w = le24(d + 24) + 1;
    *h = le24(d + 27) + 1;
    return 0;
  }
  return -EINVAL;
}

static int jpeg_size(const uint8_t *d, size_t n, uint32_t *w, uint32_t *h) {
  size_t i = 2;

  /* Walk the marker segments up to the first start-of-frame. */
  while (i + 4 <= n) {
    uint8_t marker;

    if (d[i] != 0xff)
      return -EINVAL;
    marker = d[i + 1];
    if (marker == 0xff) { /* fill byte */
      i++;
      continue;
    }
    if (marker == 0xd8 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker == 0xd9 || marker == 0xda) /* end of image, or scan data before any frame */
      return -EINVAL;
    if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc) {
      if (i + 9 > n)
        return -EINVAL;
      *h = be16(d + i + 5);
      *w = be16(d + i + 7);
      return 0;
    }
    if (be16(d + i + 2) < 2)
      return -EINVAL;
    i += 2 + be16(d + i + 2);
  }
  return -EINVAL;
}

int image_header_size(DetectKind k, const uint8_t *data, size_t n, int *ret_width, int *ret_height) {
  uint32_t w = 0, h = 0;
  int r;

  switch (k) {
  case DETECT_PNG:
    r = png_size(data, n, &w, &h);
    break;
  case DETECT_GIF:
    r = gif_size(data, n, &w, &h);
    break;
  case DETECT_WEBP:
    r = webp_size(data, n, &w, &h);
    break;
  case DETECT_JPEG:
    r = jpeg_size(data, n, &w, &h);
    break;
  default:
    return -ENOTSUP;
  }
  if (r < 0)
    return r;
  if (w == 0 || h == 0 || w > INT32_MAX || h > INT32_MAX)
    return -EINVAL;
  *ret_width = (int)w;
  *ret_height = (int)h;
  return 0;
}
