#include "daemon/readers/image-header.h"

#include <errno.h>
#include <string.h>

#include <zlib.h>

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

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

static int png_size(const uint8_t *d, size_t n, uint32_t *ret_w, uint32_t *ret_h) {
  /* Signature, then the IHDR chunk: length, "IHDR", width, height. */
  if (n < 24 || d[12] != 'I' || d[13] != 'H' || d[14] != 'D' || d[15] != 'R')
    return -EINVAL;
  *ret_w = be32(d + 16);
  *ret_h = be32(d + 20);
  return 0;
}

static int gif_size(const uint8_t *d, size_t n, uint32_t *ret_w, uint32_t *ret_h) {
  if (n < 10)
    return -EINVAL;
  *ret_w = le16(d + 6);
  *ret_h = le16(d + 8);
  return 0;
}

static int webp_size(const uint8_t *d, size_t n, uint32_t *ret_w, uint32_t *ret_h) {
  if (n < 30)
    return -EINVAL;
  if (d[12] == 'V' && d[13] == 'P' && d[14] == '8' && d[15] == ' ') {
    /* Lossy: a key frame starts with the start code 9d 01 2a, then 14-bit sizes. */
    if (d[23] != 0x9d || d[24] != 0x01 || d[25] != 0x2a)
      return -EINVAL;
    *ret_w = le16(d + 26) & 0x3fff;
    *ret_h = le16(d + 28) & 0x3fff;
    return 0;
  }
  if (d[12] == 'V' && d[13] == 'P' && d[14] == '8' && d[15] == 'L') {
    /* Lossless: signature byte 0x2f, then width-1 and height-1 in 14 bits each. */
    uint32_t bits = le32(d + 21);

    if (d[20] != 0x2f)
      return -EINVAL;
    *ret_w = (bits & 0x3fff) + 1;
    *ret_h = ((bits >> 14) & 0x3fff) + 1;
    return 0;
  }
  if (d[12] == 'V' && d[13] == 'P' && d[14] == '8' && d[15] == 'X') {
    /* Extended: canvas width-1 and height-1 in 24 bits each. */
    *ret_w = le24(d + 24) + 1;
    *ret_h = le24(d + 27) + 1;
    return 0;
  }
  return -EINVAL;
}

static int jpeg_size(const uint8_t *d, size_t n, uint32_t *ret_w, uint32_t *ret_h) {
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
      *ret_h = be16(d + i + 5);
      *ret_w = be16(d + i + 7);
      return 0;
    }
    if (be16(d + i + 2) < 2)
      return -EINVAL;
    i += 2 + be16(d + i + 2);
  }
  return -EINVAL;
}

int image_header_size(DetectKind k, const uint8_t *data, size_t n, int *ret_width,
                      int *ret_height) {
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

/* ------------------------------------------------------------------ whole-file structure */

#define PNG_SIG_LEN 8

static bool png_chunk_is(const uint8_t *type, const char *name) {
  return memcmp(type, name, 4) == 0;
}

/* Critical chunks (upper-case first letter) must have a correct CRC, as decoders require. */
static bool png_crc_ok(const uint8_t *chunk, uint32_t len) {
  uLong crc;

  if (!(chunk[4] >= 'A' && chunk[4] <= 'Z'))
    return true;
  crc = crc32(0L, chunk + 4, (uInt)len + 4);
  return crc == be32(chunk + 8 + len);
}

static int png_walk(const uint8_t *d, size_t n, ImageHeaderInfo *ret) {
  size_t i = PNG_SIG_LEN;
  bool first = true;

  ret->interlaced = n > 28 && d[28] == 1;
  while (i + 8 <= n) {
    uint32_t len = be32(d + i);
    const uint8_t *type = d + i + 4;

    if (len > INT32_MAX || (first && !png_chunk_is(type, "IHDR")))
      return -EINVAL;
    first = false;
    if (n - i - 8 < (size_t)len + 4)
      return 0; /* cut short inside this chunk */
    if (!png_crc_ok(d + i, len))
      return -EINVAL;
    if (png_chunk_is(type, "acTL") && len >= 8 && be32(d + i + 8) > 1)
      ret->frames = be32(d + i + 8) > INT32_MAX ? INT32_MAX : (int)be32(d + i + 8);
    if (png_chunk_is(type, "IEND")) {
      ret->complete = true;
      return 0;
    }
    i += 12 + (size_t)len;
  }
  return 0;
}

static uint32_t tiff16(const uint8_t *p, bool le) {
  return le ? le16(p) : be16(p);
}

static uint32_t tiff32(const uint8_t *p, bool le) {
  return le ? le32(p) : be32(p);
}

/* The Orientation tag (0x0112) of IFD0 in a TIFF structure of n bytes (an EXIF block). */
static int exif_orientation(const uint8_t *t, size_t n) {
  bool le;
  uint32_t ifd, count;

  if (n < 8 || !((t[0] == 'I' && t[1] == 'I') || (t[0] == 'M' && t[1] == 'M')))
    return 0;
  le = t[0] == 'I';
  if (tiff16(t + 2, le) != 42)
    return 0;
  ifd = tiff32(t + 4, le);
  if (ifd > n - 2)
    return 0;
  count = tiff16(t + ifd, le);
  for (uint32_t e = 0; e < count; e++) {
    size_t at = (size_t)ifd + 2 + (size_t)e * 12;
    uint32_t v;

    if (at + 12 > n)
      return 0;
    if (tiff16(t + at, le) != 0x0112)
      continue;
    /* SHORT as the standard says; some writers use LONG or SLONG, which decoders accept. */
    switch (tiff16(t + at + 2, le)) {
    case 3:
      v = tiff16(t + at + 8, le);
      break;
    case 4:
    case 9:
      v = tiff32(t + at + 8, le);
      break;
    default:
      return 0;
    }
    return v >= 1 && v <= 8 ? (int)v : 0;
  }
  return 0;
}

/* The Orientation of the first Exif APP1 segment before the frame; see image-header.h. */
int image_header_jpeg_orientation(const uint8_t *d, size_t n) {
  size_t i = 2;

  if (n < 4 || d[0] != 0xff || d[1] != 0xd8)
    return 0;
  while (i + 4 <= n && d[i] == 0xff) {
    uint8_t marker = d[i + 1];
    size_t len;

    if (marker == 0xff) {
      i++;
      continue;
    }
    if (marker == 0xda || marker == 0xd9 ||
        (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc))
      return 0; /* the Exif segment comes before the frame, as the standard puts it */
    len = be16(d + i + 2);
    if (len < 2)
      return 0;
    /* The tag is near the start of the segment: a head that cuts the segment may do. */
    if (marker == 0xe1 && len >= 8 && i + 10 <= n && memcmp(d + i + 4, "Exif\0\0", 6) == 0)
      return exif_orientation(d + i + 10, MIN(len - 8, n - i - 10));
    i += 2 + len;
  }
  return 0;
}

/* Skips entropy-coded data from i to the next marker that is not a restart or a stuffed byte.
 * Returns its offset (at its 0xff), or n when the data ends first. */
static size_t jpeg_skip_scan(const uint8_t *d, size_t n, size_t i) {
  while (i < n) {
    const uint8_t *ff = memchr(d + i, 0xff, n - i);

    if (ff == NULL)
      return n;
    i = (size_t)(ff - d);
    while (i + 1 < n && d[i + 1] == 0xff) /* fill bytes */
      i++;
    if (i + 1 >= n)
      return n;
    if (d[i + 1] != 0x00 && !(d[i + 1] >= 0xd0 && d[i + 1] <= 0xd7))
      return i;
    i += 2;
  }
  return n;
}

/* Walks markers and scans to the end-of-image marker. Missing EOI means the file was cut. */
static int jpeg_walk(const uint8_t *d, size_t n, ImageHeaderInfo *ret) {
  size_t i = 2;

  ret->orientation = image_header_jpeg_orientation(d, n);
  while (i + 2 <= n) {
    uint8_t marker;
    size_t len;

    if (d[i] != 0xff)
      return -EINVAL;
    marker = d[i + 1];
    if (marker == 0xff) {
      i++;
      continue;
    }
    if (marker == 0xd9) {
      ret->complete = true;
      return 0;
    }
    if (marker == 0xd8 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (i + 4 > n)
      return 0;
    len = be16(d + i + 2);
    if (len < 2)
      return -EINVAL;
    i += 2 + len;
    if (i > n)
      return 0;
    if (marker == 0xda)
      i = jpeg_skip_scan(d, n, i);
  }
  return 0;
}

/* Skips GIF data sub-blocks from i; returns the offset after the terminator, or 0 when cut. */
static size_t gif_skip_blocks(const uint8_t *d, size_t n, size_t i) {
  while (i < n) {
    if (d[i] == 0)
      return i + 1;
    i += 1 + (size_t)d[i];
  }
  return 0;
}

static size_t gif_table_len(uint8_t packed) {
  return packed & 0x80 ? 3 * ((size_t)2 << (packed & 7)) : 0;
}

/* Walks the blocks to the trailer. A file that ends, or turns to junk, right after a whole
 * block with at least one image is complete (decoders show it); one cut inside a block is not. */
static int gif_walk(const uint8_t *d, size_t n, ImageHeaderInfo *ret) {
  size_t i;

  if (n < 13)
    return 0;
  i = 13 + gif_table_len(d[10]);
  ret->frames = 0;
  while (i < n) {
    if (d[i] == 0x3b)
      break;
    if (d[i] == 0x21) {
      if (i + 2 > n || (i = gif_skip_blocks(d, n, i + 2)) == 0)
        return 0;
    } else if (d[i] == 0x2c) {
      if (i + 11 > n)
        return 0;
      i += 10 + gif_table_len(d[i + 9]) + 1; /* descriptor, local table, LZW code size */
      if (i > n || (i = gif_skip_blocks(d, n, i)) == 0)
        return 0;
      if (ret->frames++ == 0)
        ret->first_frame_end = i;
    } else {
      break; /* junk after the last block */
    }
  }
  if (ret->frames == 0)
    return i < n && d[i] == 0x3b ? -EINVAL : 0;
  ret->complete = true;
  return 0;
}

static int webp_walk(const uint8_t *d, size_t n, ImageHeaderInfo *ret) {
  uint64_t riff = (uint64_t)le32(d + 4) + 8;

  if (riff < 20)
    return -EINVAL;
  ret->complete = n >= riff;
  if (memcmp(d + 12, "VP8X", 4) == 0 && (d[20] & 0x02))
    ret->frames = 2;
  return 0;
}

/* Size, orientation, frames and completeness of a web image; see image-header.h. */
int image_header_info(DetectKind k, const uint8_t *data, size_t n, ImageHeaderInfo *ret) {
  int r;

  memset(ret, 0, sizeof(*ret));
  if (k != DETECT_PNG && k != DETECT_JPEG && k != DETECT_GIF && k != DETECT_WEBP)
    return -ENOTSUP;
  r = image_header_size(k, data, n, &ret->width, &ret->height);
  if (r < 0)
    return r;
  ret->frames = 1;
  ret->first_frame_end = n;
  switch (k) {
  case DETECT_PNG:
    return png_walk(data, n, ret);
  case DETECT_JPEG:
    return jpeg_walk(data, n, ret);
  case DETECT_GIF:
    return gif_walk(data, n, ret);
  default:
    return webp_walk(data, n, ret);
  }
}

/* Bytes of filtered image data a PNG header promises: one filter byte per row, per pass. */
static uint64_t png_raw_size(const uint8_t *d) {
  static const int start_x[] = {0, 4, 0, 2, 0, 1, 0}, step_x[] = {8, 8, 4, 4, 2, 2, 1};
  static const int start_y[] = {0, 0, 4, 0, 2, 0, 1}, step_y[] = {8, 8, 8, 4, 4, 2, 2};
  uint64_t w = be32(d + 16), h = be32(d + 20), bits, total = 0;
  unsigned depth = d[24], channels;

  switch (d[25]) {
  case 0:
  case 3:
    channels = 1;
    break;
  case 2:
    channels = 3;
    break;
  case 4:
    channels = 2;
    break;
  default:
    channels = 4;
    break;
  }
  bits = (uint64_t)channels * depth;
  if (d[28] != 1)
    return h * (1 + (w * bits + 7) / 8);
  for (int p = 0; p < 7; p++) {
    uint64_t pw = w > (uint64_t)start_x[p] ? (w - start_x[p] + step_x[p] - 1) / step_x[p] : 0;
    uint64_t ph = h > (uint64_t)start_y[p] ? (h - start_y[p] + step_y[p] - 1) / step_y[p] : 0;

    if (pw > 0 && ph > 0)
      total += ph * (1 + (pw * bits + 7) / 8);
  }
  return total;
}

/* Inflates one IDAT chunk's bytes, discarding the output but counting it. */
static int png_inflate_chunk(z_stream *z, const uint8_t *in, uint32_t len, uint64_t want,
                             uint64_t *got, bool *ended) {
  uint8_t scratch[16384];

  z->next_in = (Bytef *)in;
  z->avail_in = len;
  /* Go on while input is left, or while the output was full (more may be pending). */
  do {
    int zr;

    z->next_out = scratch;
    z->avail_out = sizeof(scratch);
    zr = inflate(z, Z_NO_FLUSH);
    *got += sizeof(scratch) - z->avail_out;
    if (zr == Z_STREAM_END) {
      *ended = true;
      return 0;
    }
    if (zr == Z_BUF_ERROR) /* no progress possible: the next chunk brings more input */
      return 0;
    if (zr != Z_OK)
      return -EINVAL;
  } while ((z->avail_in > 0 || z->avail_out == 0) && *got < want);
  return 0;
}

/* Inflates the IDAT data and compares its size with the header's promise; see image-header.h. */
int image_header_png_data_check(const uint8_t *d, size_t n) {
  uint64_t want, got = 0;
  size_t i = PNG_SIG_LEN;
  bool ended = false;
  z_stream z;
  int r = 0;

  if (n < 33 || memcmp(d + 12, "IHDR", 4) != 0)
    return -EINVAL;
  want = png_raw_size(d);
  memset(&z, 0, sizeof(z));
  if (inflateInit(&z) != Z_OK)
    return -ENOMEM;
  while (r == 0 && i + 12 <= n && !ended && got < want) {
    uint32_t len = be32(d + i);

    if (len > n - i - 12)
      break;
    if (png_chunk_is(d + i + 4, "IDAT"))
      r = png_inflate_chunk(&z, d + i + 8, len, want, &got, &ended);
    i += 12 + (size_t)len;
  }
  inflateEnd(&z);
  if (r < 0)
    return r;
  return got >= want ? 0 : -EINVAL;
}

/* ------------------------------------------------------------------ ICO directory */

/* The largest picture of an ICO directory; see image-header.h. */
int image_header_ico_pick(const uint8_t *d, size_t n, size_t *ret_offset, size_t *ret_len,
                          bool *ret_png) {
  uint32_t count, best_px = 0, best_bpp = 0;
  size_t best = SIZE_MAX;

  if (n < 6 || le16(d) != 0 || le16(d + 2) != 1)
    return -EINVAL;
  count = le16(d + 4);
  if (count == 0 || 6 + (size_t)count * 16 > n)
    return -EINVAL;
  for (uint32_t e = 0; e < count; e++) {
    const uint8_t *ent = d + 6 + (size_t)e * 16;
    uint32_t w = ent[0] ? ent[0] : 256, h = ent[1] ? ent[1] : 256, bpp = le16(ent + 6);
    uint32_t len = le32(ent + 8), off = le32(ent + 12);

    if (len == 0 || off > n || len > n - off)
      continue; /* an entry pointing outside the file is skipped, not trusted */
    if (w * h > best_px || (w * h == best_px && bpp > best_bpp)) {
      best = e;
      best_px = w * h;
      best_bpp = bpp;
    }
  }
  if (best == SIZE_MAX)
    return -EINVAL;
  *ret_offset = le32(d + 6 + best * 16 + 12);
  *ret_len = le32(d + 6 + best * 16 + 8);
  *ret_png = *ret_len >= 8 && memcmp(d + *ret_offset, "\x89PNG\r\n\x1a\n", 8) == 0;
  return 0;
}
