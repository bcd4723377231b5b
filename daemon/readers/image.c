#include "daemon/readers/image.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/readers/image-cache.h"
#include "daemon/worker/child/image-convert.h"
#include "daemon/readers/image-header.h"
#include "daemon/readers/image-remote.h"

#define SVG_SNIFF ((size_t)4096) /* the <svg> root element must start within this much */
#define VARIANT_SVG 100          /* cache variant of rendered SVGs (others: the DetectKind) */
#define VARIANT_TILE 1000        /* plus this times the ImageTileMode */
#define VARIANT_TARGET 10000     /* plus this times the ImageTileTarget (tiles are sized for it) */

/* Reads the rest of the file after `head` into one buffer of at most `cap` bytes: *ret
 * (g_malloc'd) and *ret_len. Returns 0, -EFBIG when the file holds more, or the negative errno
 * of a failed read. */
static int slurp(int fd, const uint8_t *head, size_t head_len, size_t size_hint, size_t cap,
                 uint8_t **ret, size_t *ret_len) {
  size_t cap_now = MAX(size_hint, head_len) + 1, len = head_len;
  uint8_t *buf;

  if (cap_now > cap + 1)
    cap_now = cap + 1;
  buf = g_malloc(cap_now);
  memcpy(buf, head, head_len);
  for (;;) {
    ssize_t n;

    if (len == cap_now) {
      if (cap_now > cap) { /* grew past the cap while we read it */
        g_free(buf);
        return -EFBIG;
      }
      cap_now = MIN(cap_now * 2, cap + 1);
      buf = g_realloc(buf, cap_now);
    }
    n = read(fd, buf + len, cap_now - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = -errno;

      g_free(buf);
      return err;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  *ret = buf;
  *ret_len = len;
  return 0;
}

/* The whole file (within IMAGE_MAX_FILE_BYTES) into *ret (g_malloc'd) and *ret_len. Returns 0,
 * or a negative errno with the failure set in res. */
static int read_whole(int fd, const struct stat *st, const uint8_t *head, size_t head_len,
                      FileResult *res, uint8_t **ret, size_t *ret_len) {
  int r;

  if (st->st_size > IMAGE_MAX_FILE_BYTES) {
    file_result_fail(res, CODE_FILE_TOO_LARGE, "image file is %jd bytes; the limit is %jd bytes",
                     (intmax_t)st->st_size, (intmax_t)IMAGE_MAX_FILE_BYTES);
    return -EFBIG;
  }
  r = slurp(fd, head, head_len, (size_t)st->st_size, (size_t)IMAGE_MAX_FILE_BYTES, ret, ret_len);
  if (r == -EFBIG)
    file_result_fail(res, CODE_FILE_TOO_LARGE, "image file grew past %jd bytes while read",
                     (intmax_t)IMAGE_MAX_FILE_BYTES);
  else if (r < 0)
    file_result_fail(res, CODE_READ_ERROR, "read failed: %s", g_strerror(-r));
  else
    res->bytes = (int64_t)*ret_len;
  return r;
}

/* The gdk-pixbuf loader for a signature kind; NULL for kinds that are not images we convert. */
static const char *loader_for(DetectKind k) {
  switch (k) {
  case DETECT_PNG:
    return "png";
  case DETECT_JPEG:
    return "jpeg";
  case DETECT_GIF:
    return "gif";
  case DETECT_WEBP:
    return "webp";
  case DETECT_BMP:
    return "bmp";
  case DETECT_TIFF:
    return "tiff";
  case DETECT_ICO:
    return "ico";
  default:
    return NULL;
  }
}

static size_t base64_len(size_t n) {
  return (n + 2) / 3 * 4;
}

/* Sets the failure of a conversion in res; returns err. */
static int convert_failed(FileResult *res, int err, const char *message) {
  const char *code;

  switch (err) {
  case -EFBIG:
  case -ENOMEM:
    code = CODE_FILE_TOO_LARGE;
    break;
  case -EBADMSG:
  case -ECHILD: /* the decoder crashed on it */
    code = CODE_CORRUPTED_FILE;
    break;
  case -ENOTSUP:
    code = CODE_UNSUPPORTED_FORMAT;
    break;
  case -ECANCELED:
    code = CODE_CANCELLED;
    break;
  default:
    code = CODE_CONVERSION_FAILED;
    break;
  }
  file_result_fail(res, code, "%s", message);
  return err;
}

/* The notice of a tiled picture whose tiles after the last one sent are not sent (`why` says
 * why, and `read_on` whether the same read from that tile on would send them), and truncated;
 * nothing when the last tile is there. */
static void tiles_notice(FileResult *res, const char *why, bool read_on) {
  const ImageOut *first, *last;
  const ImageTile *t;
  g_autofree char *which = NULL, *next = NULL;
  int from, to, k;
  bool tall;

  if (res->code != NULL || res->n_images == 0 ||
      res->images[res->n_images - 1].tile.index >= res->images[0].tile.count)
    return;
  first = &res->images[0];
  last = &res->images[res->n_images - 1];
  t = &first->tile;
  k = last->tile.index + 1; /* the first tile not sent */
  tall = t->width == first->original_width;
  res->truncated = true;
  /* The part of the long side no tile sent shows: from the end of the last one sent. */
  from = tall ? last->tile.y + last->tile.height : last->tile.x + last->tile.width;
  to = tall ? first->original_height : first->original_width;
  which = k == t->count ? g_strdup_printf("tile %d of %d", t->count, t->count)
                        : g_strdup_printf("tiles %d to %d of %d", k, t->count, t->count);
  next = read_on ? g_strdup_printf("; read on with offset %d", k) : g_strdup("");
  g_free(res->notice);
  res->notice = g_strdup_printf("%s (%s %d-%d of %dx%d) %s not shown: %s%s", which,
                                tall ? "y" : "x", from, to, first->original_width,
                                first->original_height, k == t->count ? "is" : "are", why, next);
}

#define TILES_CAP_WHY                                                                              \
  "their base64 passed the limit of one picture's tiles; read the picture with a smaller "       \
  "images.maxDimension"

/* A tiled picture read from tile `first` on (1-based): the tiles before it are dropped. One
 * past the last tile is PAGE_OUT_OF_RANGE; a picture sent whole (one tile, or not tiled) has no
 * tiles to skip and is sent as it is. */
static void from_tile(FileResult *res, int64_t first) {
  size_t drop;

  if (res->code != NULL || res->n_images == 0 || res->images[0].tile.count <= 1 || first <= 1)
    return;
  if (first > res->images[0].tile.count) {
    file_result_fail(res, CODE_PAGE_OUT_OF_RANGE,
                     "offset %" PRId64 " is past the last tile: the picture is sent as %d tiles",
                     first, res->images[0].tile.count);
    file_result_drop_images(res);
    return;
  }
  /* Tiles the worker left out past its cap are not there to send: the notice says so. */
  drop = MIN((size_t)(first - 1), res->n_images);
  if (drop == res->n_images) {
    file_result_fail(res, CODE_FILE_TOO_LARGE,
                     "tile %" PRId64 " is past the limit of one picture's tiles; read the "
                     "picture with a smaller images.maxDimension", first);
    file_result_drop_images(res);
    return;
  }
  for (size_t i = 0; i < drop; i++)
    image_out_clear(&res->images[i]);
  memmove(res->images, res->images + drop, (res->n_images - drop) * sizeof(res->images[0]));
  res->n_images -= drop;
}

/* Converts the picture in data into res (in a worker process), and caches the outcome unless
 * it depends on this request (cancellation) or on the moment (memory, time, the worker). */
static int convert(uint8_t *data, size_t len, ImageConvertOptions *copt, const ImageCacheKey *key,
                   FileResult *res) {
  g_autofree char *error = NULL;
  ImageOut *out = NULL;
  size_t n = 0;
  bool animated = false;
  int r = image_remote_convert(data, len, copt, &out, &n, &animated, &error);

  res->animated = res->animated || animated;
  if (r < 0)
    (void)convert_failed(res, r, error); /* r says the same */
  for (size_t i = 0; i < n; i++)
    *file_result_add_image(res) = out[i];
  g_free(out); /* its members now belong to res */
  if (r != -ECANCELED && r != -ENOMEM && r != -ETIME && r != -ENOEXEC)
    image_cache_put(key, res);
  tiles_notice(res, TILES_CAP_WHY, false);
  return r;
}

/* A GIF's first frame as a file of its own: the bytes up to the end of that frame and a
 * trailer (many GIFs lack theirs, which every viewer but gdk-pixbuf forgives). g_malloc'd,
 * end + 1 bytes. */
static uint8_t *gif_first_frame(const uint8_t *data, size_t end) {
  uint8_t *still = g_malloc(end + 1);

  memcpy(still, data, end);
  still[end] = 0x3b;
  return still;
}

/* Refuses a web image whose structure is damaged or cut, or that claims too many pixels, before
 * any decoding. Returns true when res now holds that failure. */
static bool web_refused(DetectKind k, const uint8_t *data, size_t len, ImageHeaderInfo *info,
                        FileResult *res) {
  const char *mt = detect_media_type(k);

  if (image_header_info(k, data, len, info) < 0)
    file_result_fail(res, CODE_CORRUPTED_FILE, "%s header or structure is damaged", mt);
  else if (!info->complete)
    file_result_fail(res, CODE_CORRUPTED_FILE,
                     "%s file is truncated: it ends before its image data does", mt);
  else if ((int64_t)info->width * info->height > IMAGE_MAX_PIXELS)
    file_result_fail(res, CODE_FILE_TOO_LARGE,
                     "image is %dx%d, %.0f megapixels; the limit is %d megapixels", info->width,
                     info->height, (double)info->width * info->height / 1e6,
                     (int)(IMAGE_MAX_PIXELS / 1000000));
  return res->code != NULL;
}

/* A web image: refused, sent as it is when within every limit, or left for conversion.
 * Returns true when res is complete (sent or failed), false when the file must be converted. */
static bool web_image(DetectKind k, const uint8_t *data, size_t len, const ImageOptions *opt,
                      ImageHeaderInfo *info, FileResult *res) {
  g_autofree uint8_t *still = NULL;
  g_autofree char *error = NULL;
  ImageOut *img;
  int r = 0;

  if (web_refused(k, data, len, info, res))
    return true;
  res->animated = info->frames > 1;
  /* A static GIF is sent up to the end of its frame and a trailer: the same bytes when it is
   * well formed; strict decoders refuse a GIF without trailer or with junk after its frame. */
  if (k == DETECT_GIF && info->frames == 1) {
    still = gif_first_frame(data, info->first_frame_end);
    data = still;
    len = info->first_frame_end + 1;
  }
  /* An animated PNG is a PNG to every reader (its first frame); animated GIF and WebP are
   * refused by some model APIs, so they are sent as their first frame. */
  if ((info->frames > 1 && k != DETECT_PNG) || info->orientation > 1 ||
      MAX(info->width, info->height) > opt->max_dimension || base64_len(len) > IMAGE_MAX_BASE64)
    return false;
  /* As one tile, it must be one the provider takes at its size. */
  if (opt->tile == IMAGE_TILE_ALWAYS &&
      !image_tiles_fits(info->width, info->height, opt->max_dimension, opt->tile_target))
    return false;
  /* What is sent must decode whole, or a model API refuses it (and the conversation breaks):
   * a PNG's data inflates to its full size; GIF and WebP hold no checksum: decode them once
   * (unchecked when no decoder is installed: they are sent as before). */
  if (k == DETECT_PNG && image_header_png_data_check(data, len) < 0)
    r = convert_failed(res, -EBADMSG, "image/png data is truncated or damaged");
  else if (k == DETECT_GIF || k == DETECT_WEBP)
    r = image_remote_check(data, len, loader_for(k), opt->cancelled, &error);
  if (r < 0 && r != -ENOTSUP && res->code == NULL)
    (void)convert_failed(res, r, error); /* the failure is in res */
  if (res->code != NULL)
    return true;
  img = file_result_add_image(res);
  img->media_type = g_strdup(detect_media_type(k));
  img->data = g_base64_encode(data, len);
  img->data_len = strlen(img->data);
  img->width = info->width;
  img->height = info->height;
  if (opt->tile == IMAGE_TILE_ALWAYS) { /* within the limits: one tile, the whole picture */
    img->tile = (ImageTile){.width = info->width, .height = info->height, .index = 1, .count = 1};
    img->original_width = info->width;
    img->original_height = info->height;
  }
  return true;
}

/* An ICO's largest picture: gdk-pixbuf's ICO loader cannot read PNG-compressed icons (all large
 * modern ones), so those go to the PNG loader alone. Returns the bytes to decode. */
static const uint8_t *ico_picture(const uint8_t *data, size_t *len, ImageConvertOptions *copt) {
  size_t off, n;
  bool png;

  if (image_header_ico_pick(data, *len, &off, &n, &png) < 0 || !png)
    return data; /* the ICO loader reports the damage, or picks its own BMP picture */
  copt->loader = "png";
  copt->check_rows = false;
  *len = n;
  return data + off;
}

/* One image file into res: refused, sent as it is, or converted, all its tiles. */
static int read_picture(int fd, const struct stat *st, DetectKind k, const uint8_t *head, size_t head_len,
               const ImageOptions *opt, FileResult *res) {
  ImageConvertOptions copt = {.loader = loader_for(k),
                              .max_dimension = opt->max_dimension,
                              .photo = k == DETECT_JPEG,
                              .cancelled = opt->cancelled,
                              .check_rows = k == DETECT_BMP || k == DETECT_ICO,
                              .tile = opt->tile,
                              .tile_target = opt->tile_target};
  ImageHeaderInfo info = {0};
  ImageCacheKey key;
  g_autofree uint8_t *data = NULL;
  const uint8_t *pic;
  size_t len = 0;
  int r;

  res->type = FILE_TYPE_IMAGE;
  if (copt.loader == NULL) {
    file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "%s images are not supported",
                     detect_media_type(k) != NULL ? detect_media_type(k) : "these");
    return -ENOTSUP;
  }
  if ((r = read_whole(fd, st, head, head_len, res, &data, &len)) < 0)
    return r;
  if (detect_is_web_image(k) && web_image(k, data, len, opt, &info, res))
    return res->code != NULL ? -EINVAL : 0;
  image_cache_key_init(&key, st, opt->max_dimension,
                       (int)k + VARIANT_TILE * (int)opt->tile +
                           VARIANT_TARGET * (int)opt->tile_target);
  if (image_cache_get(&key, res)) {
    tiles_notice(res, TILES_CAP_WHY, false);
    return res->code != NULL ? -EINVAL : 0;
  }
  pic = data;
  /* Decoded rows show where the data of a BMP, ICO or plain PNG stopped; an interlaced PNG's
   * rows do not: inflate it first. */
  copt.check_rows = copt.check_rows || (k == DETECT_PNG && !info.interlaced);
  if (k == DETECT_PNG && info.interlaced && image_header_png_data_check(data, len) < 0)
    return convert_failed(res, -EBADMSG, "image/png data is truncated or damaged");
  if (k == DETECT_GIF) {
    pic = gif_first_frame(data, info.first_frame_end);
    g_free(data);
    data = (uint8_t *)pic;
    len = info.first_frame_end + 1;
  } else if (k == DETECT_WEBP && memcmp(data + 12, "VP8 ", 4) == 0) {
    copt.photo = true; /* lossy */
  } else if (k == DETECT_ICO) {
    pic = ico_picture(data, &len, &copt);
  }
  return convert((uint8_t *)pic, len, &copt, &key, res);
}

/* A picture in memory into res; see image.h. */
int image_read_bytes(const uint8_t *data, size_t len, const ImageOptions *opt, FileResult *res) {
  DetectKind k = detect_magic(data, len);
  ImageConvertOptions copt = {.loader = loader_for(k),
                              .max_dimension = opt->max_dimension,
                              .photo = k == DETECT_JPEG,
                              .cancelled = opt->cancelled,
                              .check_rows = k == DETECT_PNG};
  g_autofree char *error = NULL;
  ImageHeaderInfo info = {0};
  g_autofree uint8_t *still = NULL;
  ImageOut *out = NULL;
  size_t n = 0;
  bool animated = false;
  int r;

  res->type = FILE_TYPE_IMAGE;
  if (!detect_is_web_image(k)) {
    file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "not a PNG, JPEG, GIF or WebP picture");
    return -ENOTSUP;
  }
  if (web_image(k, data, len, opt, &info, res))
    return res->code != NULL ? -EINVAL : 0;
  copt.check_rows = copt.check_rows && !info.interlaced;
  if (k == DETECT_PNG && info.interlaced && image_header_png_data_check(data, len) < 0)
    return convert_failed(res, -EBADMSG, "image/png data is truncated or damaged");
  if (k == DETECT_GIF) {
    still = gif_first_frame(data, info.first_frame_end);
    data = still;
    len = info.first_frame_end + 1;
  }
  /* Never tiled (copt.tile is IMAGE_TILE_NEVER): one picture for its place in the document. */
  r = image_remote_convert(data, len, &copt, &out, &n, &animated, &error);
  if (r < 0) {
    image_out_list_free(out, n);
    return convert_failed(res, r, error);
  }
  for (size_t i = 0; i < n; i++)
    *file_result_add_image(res) = out[i];
  g_free(out); /* its members now belong to res */
  return 0;
}

/* One image file into res, from its tile opt->first_tile on; see image.h. */
int image_read(int fd, const struct stat *st, DetectKind k, const uint8_t *head, size_t head_len,
               const ImageOptions *opt, FileResult *res) {
  int r = read_picture(fd, st, k, head, head_len, opt, res);

  from_tile(res, opt->first_tile);
  return res->code != NULL && r == 0 ? -EINVAL : r;
}

/* An <svg> element within the first SVG_SNIFF bytes of a file that starts with markup. */
bool image_is_svg(const uint8_t *head, size_t n) {
  size_t lim = MIN(n, SVG_SNIFF), i = 0;

  if (lim >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  while (i < lim && g_ascii_isspace(head[i]))
    i++;
  if (i >= lim || head[i] != '<')
    return false;
  /* After the XML declaration, comments and a DOCTYPE, the root element is <svg. */
  return memmem(head + i, lim - i, "<svg", 4) != NULL;
}

/* An SVG file rendered into res; see image.h. */
int image_read_svg(int fd, const struct stat *st, const uint8_t *head, size_t head_len,
                   const ImageOptions *opt, FileResult *res) {
  ImageConvertOptions copt = {.loader = "svg",
                              .max_dimension = opt->max_dimension,
                              .vector = true,
                              .cancelled = opt->cancelled};
  ImageCacheKey key;
  g_autofree uint8_t *data = NULL;
  size_t len = 0;
  int r;

  res->type = FILE_TYPE_IMAGE;
  if ((r = read_whole(fd, st, head, head_len, res, &data, &len)) < 0)
    return r;
  image_cache_key_init(&key, st, opt->max_dimension, VARIANT_SVG);
  if (image_cache_get(&key, res))
    return res->code != NULL ? -EINVAL : 0;
  return convert(data, len, &copt, &key, res);
}

/* ------------------------------------------------------------------ request budget */

/* Scales one sent image down to `edge` on its long side, from its own encoded data. */
static int rescale(ImageOut *img, int edge, const atomic_bool *cancelled, char **ret_error) {
  ImageConvertOptions copt = {.max_dimension = edge, .cancelled = cancelled};
  g_autofree guchar *raw = NULL;
  gsize raw_len = 0;
  ImageOut *list = NULL, out;
  size_t n = 0;
  bool animated;
  int r;

  raw = g_base64_decode(img->data, &raw_len);
  copt.loader = loader_for(detect_magic(raw, raw_len));
  copt.photo = g_strcmp0(copt.loader, "jpeg") == 0;
  if (copt.loader == NULL) {
    *ret_error = g_strdup("the image could not be scaled down: unknown format");
    return -ENOTSUP;
  }
  r = image_remote_convert(raw, raw_len, &copt, &list, &n, &animated, ret_error);
  if (r < 0)
    return r;
  g_assert(n == 1); /* never tiled */
  out = list[0];
  g_free(list);
  out.original_width = img->original_width > 0 ? img->original_width : img->width;
  out.original_height = img->original_height > 0 ? img->original_height : img->height;
  out.page = img->page;
  out.tile = img->tile;
  out.cell = img->cell;
  image_out_clear(img);
  *img = out;
  return 0;
}

/* More than IMAGE_MANY images: each at most IMAGE_MANY_MAX_DIMENSION on its long edge. */
static void limit_many(ReadResult *r, const atomic_bool *cancelled) {
  for (size_t i = 0; i < r->n_files; i++) {
    FileResult *f = &r->files[i];

    for (size_t k = 0; f->code == NULL && k < f->n_images; k++) {
      g_autofree char *error = NULL;
      ImageOut *img = &f->images[k];
      int err;

      if (MAX(img->width, img->height) <= IMAGE_MANY_MAX_DIMENSION)
        continue;
      err = rescale(img, IMAGE_MANY_MAX_DIMENSION, cancelled, &error);
      if (err < 0)
        (void)convert_failed(f, err, error); /* the failure is in f */
    }
  }
}

/* A tiled picture that does not fit whole in `left` bytes keeps the tiles that do, in order.
 * Returns their bytes of base64; 0, with every tile kept, when not even the first fits or the
 * file is not tiled. */
static int64_t keep_tiles(FileResult *f, int64_t left) {
  int64_t kept = 0;
  size_t k = 0;

  if (f->n_images == 0 || f->images[0].tile.count <= 1)
    return 0;
  while (k < f->n_images && kept + (int64_t)f->images[k].data_len <= left)
    kept += (int64_t)f->images[k++].data_len;
  if (k == 0)
    return 0;
  for (size_t j = k; j < f->n_images; j++)
    image_out_clear(&f->images[j]);
  f->n_images = k;
  return kept;
}

/* The request's limits on its images, in request order; see image.h. */
void image_request_budget(ReadResult *r, int64_t max_total_bytes, const atomic_bool *cancelled) {
  int64_t used = 0;

  if (read_result_image_count(r) > IMAGE_MANY)
    limit_many(r, cancelled);
  for (size_t i = 0; i < r->n_files; i++) {
    FileResult *f = &r->files[i];
    int64_t need = 0, kept;

    if (f->code != NULL || f->n_images == 0)
      continue;
    for (size_t k = 0; k < f->n_images; k++)
      need += (int64_t)f->images[k].data_len;
    if (f->type == FILE_TYPE_IMAGE && used + need > max_total_bytes &&
        (kept = keep_tiles(f, max_total_bytes - used)) > 0) {
      g_autofree char *why = g_strdup_printf(
          "the request's image budget (images.maxTotalBytes, %" PRId64
          ") is spent; read this file in another request or raise images.maxTotalBytes",
          max_total_bytes);

      tiles_notice(f, why, true);
      need = kept;
    } else if (f->type == FILE_TYPE_IMAGE && used + need > max_total_bytes) {
      file_result_fail(f, CODE_FILE_TOO_LARGE,
                       "the request's image budget is spent: this image is %" PRId64
                       " bytes of base64 and %" PRId64 " of images.maxTotalBytes (%" PRId64
                       ") are left; read it in another request or raise images.maxTotalBytes",
                       need, MAX(0, max_total_bytes - used), max_total_bytes);
      file_result_drop_images(f);
      continue;
    }
    used += need;
  }
}
