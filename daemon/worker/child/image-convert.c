#include "daemon/worker/child/image-convert.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>

#include "basic/mutex.h"
#include "basic/image-tiles.h"

#define FEED_CHUNK ((size_t)64 * 1024) /* bytes given to the loader between budget checks */
#define FEW_COLOURS 16384              /* at most this many distinct colours: graphics, PNG */
#define MIN_EDGE 16                    /* never scaled below this to fit the byte limit */

static const int jpeg_qualities[] = {85, 75, 60, 45};

/* ------------------------------------------------------------------ budgets */

/* pthread rather than GMutex: ThreadSanitizer sees it (glib's futex locks are invisible to it). */
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mem_cond = PTHREAD_COND_INITIALIZER;
static size_t mem_in_use;

/* Reserves `want` bytes of the decode memory budget, waiting while other threads hold too
 * much. A single reservation is capped at the budget, so it is always granted eventually.
 * Returns 0 with what was reserved in *ret (to give back with mem_release), or -ECANCELED
 * when cancelled while waiting (*ret 0). */
static int mem_reserve(size_t want, const atomic_bool *cancelled, size_t *ret) {
  int r = 0;

  if (want > IMAGE_DECODE_MEMORY)
    want = IMAGE_DECODE_MEMORY;
  mutex_lock(&mem_lock);
  while (mem_in_use + want > IMAGE_DECODE_MEMORY) {
    struct timespec until;

    if (cancelled != NULL && atomic_load(cancelled)) {
      want = 0;
      r = -ECANCELED;
      break;
    }
    /* Wake up now and then to see a cancellation. */
    (void)clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000;
    }
    /* ETIMEDOUT is the point of the wait: the loop looks again either way. */
    (void)pthread_cond_timedwait(&mem_cond, &mem_lock, &until);
  }
  mem_in_use += want;
  mutex_unlock(&mem_lock);
  *ret = want;
  return r;
}

static void mem_release(size_t n) {
  if (n == 0)
    return;
  mutex_lock(&mem_lock);
  g_assert(mem_in_use >= n);
  mem_in_use -= n;
  pthread_cond_broadcast(&mem_cond);
  mutex_unlock(&mem_lock);
}

/* CPU time of this thread: a loaded machine slows an image down without spending its budget. */
static int64_t cpu_now_ns(void) {
  struct timespec ts;

  (void)clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

typedef struct {
  const ImageConvertOptions *opt;
  int64_t cpu_start;
  char *error; /* g_malloc'd message of the first failure */
} Job;

static int job_fail(Job *job, int err, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static int job_fail(Job *job, int err, const char *fmt, ...) {
  va_list ap;

  if (job->error == NULL) {
    va_start(ap, fmt);
    job->error = g_strdup_vprintf(fmt, ap);
    va_end(ap);
  }
  return err;
}

/* 0 while the image may go on, else -ECANCELED or -ETIME with the message set. */
static int job_check(Job *job) {
  int64_t budget_ns =
      job->opt->cpu_budget_ms > 0 ? job->opt->cpu_budget_ms * 1000000 : IMAGE_CPU_BUDGET_NS;

  if (job->opt->cancelled != NULL && atomic_load(job->opt->cancelled))
    return job_fail(job, -ECANCELED, "request cancelled");
  if (cpu_now_ns() - job->cpu_start > budget_ns)
    return job_fail(job, -ETIME, "converting the image took more than %" PRId64 " ms of CPU time",
                    budget_ns / 1000000);
  return 0;
}

/* The size that fits w x h into a square of `edge` pixels, aspect kept, at least 1x1. */
static void fit(int w, int h, int edge, int *ret_w, int *ret_h) {
  double s = (double)edge / MAX(w, h);

  *ret_w = MAX(1, (int)(w * s + 0.5));
  *ret_h = MAX(1, (int)(h * s + 0.5));
}

/* ------------------------------------------------------------------ decoding */

typedef struct {
  Job *job;
  int width, height;  /* as the file states, before orientation */
  int want_w, want_h; /* the size the picture must come out at */
  bool too_large;
  bool cancelled;
  size_t reserved;          /* bytes of the decode memory budget held */
  int rows_first, rows_end; /* union of the rows the loader reported as decoded */
} Decode;

/* The picture will be cut into tiles (whichever way it turns: the plan is symmetric), so it is
 * decoded at full size. A vector image is rendered at the size asked, never tiled. */
static bool tiled(const ImageConvertOptions *opt, int w, int h) {
  ImageTilePlan plan;

  return !opt->vector && image_tiles_plan(w, h, opt->max_dimension, opt->tile_target, opt->tile, &plan);
}

static void size_prepared_cb(GdkPixbufLoader *loader, int w, int h, gpointer user) {
  Decode *d = user;
  const ImageConvertOptions *opt = d->job->opt;
  int tw = w, th = h, fw, fh;
  size_t want;

  d->width = w;
  d->height = h;
  /* JPEG decodes at 1/2, 1/4 or 1/8 scale when asked for a smaller size; SVG renders at any. */
  if (w > 0 && h > 0 && opt->vector && MAX(w, h) < IMAGE_SVG_MIN_EDGE)
    fit(w, h, MIN(IMAGE_SVG_MIN_EDGE, opt->max_dimension), &tw, &th);
  else if (w > 0 && h > 0 && (opt->vector || strcmp(opt->loader, "jpeg") == 0) &&
           MAX(w, h) > opt->max_dimension && !tiled(opt, w, h))
    fit(w, h, opt->max_dimension, &tw, &th);
  /* A vector image costs the pixels it is rendered at, whatever size it states. */
  if (w <= 0 || h <= 0 ||
      (int64_t)(opt->vector ? tw : w) * (opt->vector ? th : h) > IMAGE_MAX_PIXELS) {
    d->too_large = w > 0 && h > 0;
    gdk_pixbuf_loader_set_size(loader, 0, 0); /* loaders stop before allocating anything */
    return;
  }
  d->want_w = tw;
  d->want_h = th;
  if (tw != w || th != h)
    gdk_pixbuf_loader_set_size(loader, tw, th);
  fw = tw;
  fh = th;
  /* Decoded at full size (JPEG: at most twice the target each way), plus the scaled result. */
  if (MAX(tw, th) > opt->max_dimension)
    fit(tw, th, opt->max_dimension, &fw, &fh);
  want = (size_t)w * (size_t)h * 4;
  if (strcmp(opt->loader, "jpeg") == 0 || opt->vector)
    want = MIN(want, (size_t)tw * (size_t)th * 4 * 4);
  want += (size_t)fw * (size_t)fh * 4;
  if (tiled(opt, w, h)) /* one tile at a time, scaled */
    want += (size_t)opt->max_dimension * (size_t)opt->max_dimension * 4;
  /* Some loaders (SVG) say their size twice. */
  mem_release(d->reserved);
  if (mem_reserve(want, opt->cancelled, &d->reserved) < 0) {
    d->cancelled = true;
    gdk_pixbuf_loader_set_size(loader, 0, 0);
  }
}

static void area_updated_cb(GdkPixbufLoader *loader, int x, int y, int w, int h, gpointer user) {
  Decode *d = user;

  d->rows_first = MIN(d->rows_first, y);
  d->rows_end = MAX(d->rows_end, y + h);
}

/* Maps a loader error to our codes; a loader told to stop by size_prepared_cb says "zero size". */
static int decode_error(Decode *d, GError *err) {
  Job *job = d->job;

  if (d->cancelled)
    return job_fail(job, -ECANCELED, "request cancelled");
  if (d->too_large)
    return job_fail(job, -EFBIG, "image is %dx%d, %.0f megapixels; the limit is %d megapixels",
                    d->width, d->height, (double)d->width * d->height / 1e6,
                    (int)(IMAGE_MAX_PIXELS / 1000000));
  if (err != NULL && err->domain == GDK_PIXBUF_ERROR &&
      err->code == GDK_PIXBUF_ERROR_INSUFFICIENT_MEMORY)
    return job_fail(job, -ENOMEM, "not enough memory to decode the image: %s", err->message);
  return job_fail(job, -EBADMSG, "image data is damaged: %s",
                  err != NULL ? err->message : "the decoder gave no picture");
}

/* Gives the data to the loader in chunks, checking the budgets between them. The loader is
 * closed on return, whatever happens. Returns 0 or a negative errno (message set). */
static int feed(GdkPixbufLoader *loader, Decode *d, const uint8_t *data, size_t len) {
  g_autoptr(GError) err = NULL;
  int r = 0;

  for (size_t off = 0; off < len; off += FEED_CHUNK) {
    size_t n = MIN(FEED_CHUNK, len - off);

    if ((r = job_check(d->job)) < 0)
      break;
    /* A failed write closes the loader itself. */
    if (!gdk_pixbuf_loader_write(loader, data + off, n, &err))
      return decode_error(d, err);
    if (d->too_large || d->cancelled) /* a loader that ignored the stop request */
      r = decode_error(d, NULL);
    if (r < 0)
      break;
  }
  if (!gdk_pixbuf_loader_close(loader, r < 0 ? NULL : &err) && r == 0)
    r = decode_error(d, err);
  /* Loaders that decode everything at close (SVG, TIFF) may ignore the stop request and give
   * a picture of some other size (librsvg: 1x1). */
  if (r == 0 && (d->too_large || d->cancelled))
    r = decode_error(d, NULL);
  return r;
}

static pthread_once_t pixbuf_once = PTHREAD_ONCE_INIT;

/* gdk-pixbuf registers its types and reads its loader list on first use. Doing that once, before
 * any decoding, under pthread_once lets ThreadSanitizer see the order glib's own locks give. */
static void pixbuf_init(void) {
  GSList *formats = gdk_pixbuf_get_formats();

  g_slist_free(formats);
  g_type_ensure(GDK_TYPE_PIXBUF_LOADER);
  g_type_ensure(GDK_TYPE_PIXBUF);
}

/* Decodes data into *ret (a new reference) with the loader named in the options. */
static int decode(Job *job, const uint8_t *data, size_t len, Decode *d, GdkPixbuf **ret,
                  bool *ret_animated) {
  g_autoptr(GError) err = NULL;
  GdkPixbufLoader *loader;
  GdkPixbufAnimation *anim;
  GdkPixbuf *pb;
  int r;

  pthread_once(&pixbuf_once, pixbuf_init);
  loader = gdk_pixbuf_loader_new_with_type(job->opt->loader, &err);
  if (loader == NULL)
    return job_fail(job, -ENOTSUP, "no decoder for %s images is installed", job->opt->loader);
  d->job = job;
  d->rows_first = G_MAXINT;
  g_signal_connect(loader, "size-prepared", G_CALLBACK(size_prepared_cb), d);
  g_signal_connect(loader, "area-updated", G_CALLBACK(area_updated_cb), d);
  r = feed(loader, d, data, len);
  pb = r < 0 ? NULL : gdk_pixbuf_loader_get_pixbuf(loader);
  if (r == 0 && pb == NULL)
    r = decode_error(d, NULL);
  if (r == 0 && d->want_w > 0 &&
      (gdk_pixbuf_get_width(pb) != d->want_w || gdk_pixbuf_get_height(pb) != d->want_h))
    r = job_fail(job, -EBADMSG,
                 "image data is damaged: the decoder gave a %dx%d picture instead of %dx%d",
                 gdk_pixbuf_get_width(pb), gdk_pixbuf_get_height(pb), d->want_w, d->want_h);
  if (r == 0 && job->opt->check_rows && (d->rows_first > 0 || d->rows_end < d->height))
    r = job_fail(job, -EBADMSG, "image data is truncated: only rows %d to %d of %d were decoded",
                 d->rows_first == G_MAXINT ? 0 : d->rows_first, d->rows_end, d->height);
  if (r == 0) {
    anim = gdk_pixbuf_loader_get_animation(loader);
    *ret_animated = anim != NULL && !gdk_pixbuf_animation_is_static_image(anim);
    *ret = g_object_ref(pb);
  }
  g_object_unref(loader);
  return r;
}

/* ------------------------------------------------------------------ analysis */

/* True when some pixel is not fully opaque. */
static bool alpha_used(const GdkPixbuf *pb) {
  const guint8 *px = gdk_pixbuf_read_pixels(pb);
  int w = gdk_pixbuf_get_width(pb), h = gdk_pixbuf_get_height(pb);
  int stride = gdk_pixbuf_get_rowstride(pb);

  if (!gdk_pixbuf_get_has_alpha(pb) || gdk_pixbuf_get_n_channels(pb) != 4)
    return false;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (px[(size_t)y * stride + (size_t)x * 4 + 3] != 255)
        return true;
  return false;
}

/* The same picture without its (unused) alpha channel, so that PNG stores 3 bytes a pixel. */
static GdkPixbuf *drop_alpha(GdkPixbuf *pb) {
  int w = gdk_pixbuf_get_width(pb), h = gdk_pixbuf_get_height(pb);
  int sstride = gdk_pixbuf_get_rowstride(pb), dstride;
  const guint8 *src = gdk_pixbuf_read_pixels(pb);
  GdkPixbuf *out = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, w, h);
  guint8 *dst;

  if (out == NULL)
    return NULL;
  dst = gdk_pixbuf_get_pixels(out);
  dstride = gdk_pixbuf_get_rowstride(out);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      memcpy(dst + (size_t)y * dstride + (size_t)x * 3, src + (size_t)y * sstride + (size_t)x * 4,
             3);
  return out;
}

/* True when the picture has at most FEW_COLOURS distinct colours: screenshots, diagrams and
 * charts, which PNG keeps sharp and small; photos have far more. */
static bool few_colours(const GdkPixbuf *pb) {
  enum { SLOTS = FEW_COLOURS * 4 }; /* open addressing, kept at most a quarter full */
  const guint8 *px = gdk_pixbuf_read_pixels(pb);
  int w = gdk_pixbuf_get_width(pb), h = gdk_pixbuf_get_height(pb);
  int stride = gdk_pixbuf_get_rowstride(pb), nc = gdk_pixbuf_get_n_channels(pb);
  g_autofree uint32_t *set = g_new0(uint32_t, SLOTS);
  int count = 0;

  for (int y = 0; y < h; y++) {
    const guint8 *row = px + (size_t)y * stride;

    for (int x = 0; x < w; x++) {
      const guint8 *p = row + (size_t)x * nc;
      uint32_t c = 0x1000000u | (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
      uint32_t slot = (c * 2654435761u) & (SLOTS - 1);

      while (set[slot] != 0 && set[slot] != c)
        slot = (slot + 1) & (SLOTS - 1);
      if (set[slot] == 0) {
        if (++count > FEW_COLOURS)
          return false;
        set[slot] = c;
      }
    }
  }
  return true;
}

/* ------------------------------------------------------------------ encoding */

/* Encodes pb; *ret_buf is g_malloc'd. Returns 0 or -EIO (message set). */
static int save(Job *job, GdkPixbuf *pb, bool png, int quality, gchar **ret_buf, gsize *ret_len) {
  g_autoptr(GError) err = NULL;
  char q[8];
  gboolean ok;

  if (png) {
    ok = gdk_pixbuf_save_to_buffer(pb, ret_buf, ret_len, "png", &err, "compression", "6", NULL);
  } else {
    g_snprintf(q, sizeof(q), "%d", quality);
    ok = gdk_pixbuf_save_to_buffer(pb, ret_buf, ret_len, "jpeg", &err, "quality", q, NULL);
  }
  if (!ok)
    return job_fail(job, -EIO, "encoding the image as %s failed: %s", png ? "PNG" : "JPEG",
                    err != NULL ? err->message : "unknown error");
  return 0;
}

static bool fits(gsize len) {
  return (len + 2) / 3 * 4 <= IMAGE_MAX_BASE64;
}

/* Tries PNG (when chosen) then the JPEG quality ladder at the size of pb. Returns 0, with
 * *ret_buf set when something fits and NULL when nothing does at this size, or a negative
 * errno (message set). */
static int encode_at_size(Job *job, GdkPixbuf *pb, bool png, bool alpha, gchar **ret_buf,
                          gsize *ret_len, bool *ret_png) {
  int r;

  *ret_buf = NULL;
  if (png) {
    if ((r = save(job, pb, true, 0, ret_buf, ret_len)) < 0)
      return r;
    *ret_png = true;
    if (fits(*ret_len))
      return 0;
    g_clear_pointer(ret_buf, g_free);
    if (alpha) /* JPEG would lose the transparency: scale down instead */
      return 0;
  }
  *ret_png = false;
  for (size_t i = 0; i < G_N_ELEMENTS(jpeg_qualities); i++) {
    if ((r = job_check(job)) < 0 ||
        (r = save(job, pb, false, jpeg_qualities[i], ret_buf, ret_len)) < 0)
      return r;
    if (fits(*ret_len))
      return 0;
    g_clear_pointer(ret_buf, g_free);
  }
  return 0;
}

/* Encodes pb (consumed) into img within IMAGE_MAX_BASE64, scaling down by 3/4 steps until it
 * fits. Sets data, media_type, width and height. */
static int encode(Job *job, GdkPixbuf *pb, ImageOut *img) {
  bool alpha = alpha_used(pb), png, is_png = false;
  gchar *buf = NULL;
  gsize len = 0;
  int r;

  if (!alpha && gdk_pixbuf_get_has_alpha(pb)) {
    GdkPixbuf *rgb = drop_alpha(pb);

    g_object_unref(pb);
    if ((pb = rgb) == NULL)
      return job_fail(job, -ENOMEM, "not enough memory to encode the image");
  }
  png = alpha || (!job->opt->photo && few_colours(pb));
  while ((r = encode_at_size(job, pb, png, alpha, &buf, &len, &is_png)) == 0 && buf == NULL) {
    int w = gdk_pixbuf_get_width(pb), h = gdk_pixbuf_get_height(pb), tw, th;
    GdkPixbuf *smaller;

    if (MAX(w, h) <= MIN_EDGE) {
      r = job_fail(job, -EIO, "the image does not fit in %zu bytes of base64", IMAGE_MAX_BASE64);
      break;
    }
    fit(w, h, MAX(MIN_EDGE, MAX(w, h) * 3 / 4), &tw, &th);
    smaller = gdk_pixbuf_scale_simple(pb, tw, th, GDK_INTERP_BILINEAR);
    g_object_unref(pb);
    if ((pb = smaller) == NULL)
      return job_fail(job, -ENOMEM, "not enough memory to scale the image");
  }
  if (r == 0) {
    g_assert(buf != NULL); /* the loop ends with r == 0 only when something fits */
    img->media_type = g_strdup(is_png ? "image/png" : "image/jpeg");
    img->data = g_base64_encode((const guchar *)buf, len);
    img->data_len = strlen(img->data);
    img->width = gdk_pixbuf_get_width(pb);
    img->height = gdk_pixbuf_get_height(pb);
  }
  g_free(buf);
  g_object_unref(pb);
  return r;
}

/* ------------------------------------------------------------------ the pipeline */

/* Scales the upright picture to fit max_dimension. Consumes upright. */
static GdkPixbuf *scale_to_fit(GdkPixbuf *upright, int max_dimension) {
  int w = gdk_pixbuf_get_width(upright), h = gdk_pixbuf_get_height(upright), tw, th;
  GdkPixbuf *pb;

  if (MAX(w, h) <= max_dimension)
    return upright;
  fit(w, h, max_dimension, &tw, &th);
  pb = gdk_pixbuf_scale_simple(upright, tw, th, GDK_INTERP_BILINEAR);
  g_object_unref(upright);
  return pb;
}

/* The orientation tag says the stored picture is on its side (5 to 8: width and height swap). */
static bool orientation_swaps(const GdkPixbuf *pb) {
  const char *o = gdk_pixbuf_get_option((GdkPixbuf *)pb, "orientation");

  return o != NULL && o[0] >= '5' && o[0] <= '8' && o[1] == '\0';
}

/* Appends a zeroed image to the list *ret of *ret_n images and returns it. */
static ImageOut *list_add(ImageOut **ret, size_t *ret_n) {
  *ret = g_renew(ImageOut, *ret, *ret_n + 1);
  memset(&(*ret)[*ret_n], 0, sizeof(ImageOut));
  return &(*ret)[(*ret_n)++];
}

/* One tile of the upright picture, cropped and scaled as the plan says (a view of its pixels
 * when the scale is 1). Returns a new reference, or NULL when out of memory. */
static GdkPixbuf *tile_pixbuf(GdkPixbuf *upright, const ImageTilePlan *plan, size_t i) {
  const ImageTileBox *b = &plan->boxes[i];
  GdkPixbuf *sub = gdk_pixbuf_new_subpixbuf(upright, b->x, b->y, b->width, b->height), *pb;

  if (sub == NULL || (plan->out_width == b->width && plan->out_height == b->height))
    return sub;
  pb = gdk_pixbuf_scale_simple(sub, plan->out_width, plan->out_height, GDK_INTERP_BILINEAR);
  g_object_unref(sub);
  return pb;
}

/* Encodes the plan's tiles of upright, in order, into *ret: each labelled with its box and
 * the whole picture's size. The tiles past IMAGE_TILES_MAX_BASE64 of base64 are left out (the
 * first is always kept): the caller sees fewer images than tile.count. Consumes upright. */
static int encode_tiles(Job *job, GdkPixbuf *upright, const ImageTilePlan *plan, ImageOut **ret,
                        size_t *ret_n) {
  int w = gdk_pixbuf_get_width(upright), h = gdk_pixbuf_get_height(upright), r = 0;
  size_t total = 0;

  for (size_t i = 0; i < plan->n; i++) {
    const ImageTileBox *b = &plan->boxes[i];
    ImageOut img = {0};
    GdkPixbuf *pb;

    if ((r = job_check(job)) < 0)
      break;
    if ((pb = tile_pixbuf(upright, plan, i)) == NULL) {
      r = job_fail(job, -ENOMEM, "not enough memory to cut the image into tiles");
      break;
    }
    if ((r = encode(job, pb, &img)) < 0)
      break;
    if (i > 0 && total + img.data_len > IMAGE_TILES_MAX_BASE64) {
      image_out_clear(&img);
      break;
    }
    total += img.data_len;
    img.original_width = w;
    img.original_height = h;
    img.tile = (ImageTile){.x = b->x,
                           .y = b->y,
                           .width = b->width,
                           .height = b->height,
                           .index = (int)i + 1,
                           .count = (int)plan->n};
    *list_add(ret, ret_n) = img;
  }
  g_object_unref(upright);
  return r;
}

/* The upright picture scaled to fit and encoded as one image. Consumes upright. */
static int encode_whole(Job *job, GdkPixbuf *upright, int ow, int oh, ImageOut **ret,
                        size_t *ret_n) {
  GdkPixbuf *pb = scale_to_fit(upright, job->opt->max_dimension);
  ImageOut *img;
  int r;

  if (pb == NULL)
    return job_fail(job, -ENOMEM, "not enough memory to scale the image");
  if ((r = job_check(job)) < 0) {
    g_object_unref(pb);
    return r;
  }
  img = list_add(ret, ret_n);
  r = encode(job, pb, img);
  if (r == 0 && (img->width != ow || img->height != oh)) {
    img->original_width = ow;
    img->original_height = oh;
  }
  return r;
}

/* Decode, orient, then scale or tile, encode; see image-convert.h. The decode memory reserved
 * is given back before returning. */
int image_convert(const uint8_t *data, size_t len, const ImageConvertOptions *opt, ImageOut **ret,
                  size_t *ret_n, bool *ret_animated, char **ret_error) {
  Job job = {.opt = opt, .cpu_start = cpu_now_ns()};
  Decode d = {0};
  GdkPixbuf *pb = NULL, *upright;
  ImageTilePlan plan;
  int r, ow, oh;

  *ret = NULL;
  *ret_n = 0;
  *ret_animated = false;
  r = decode(&job, data, len, &d, &pb, ret_animated);
  if (r < 0)
    goto finish;
  /* The original size, upright; a vector image's is its natural size. */
  ow = d.width;
  oh = d.height;
  if (orientation_swaps(pb)) {
    ow = d.height;
    oh = d.width;
  }
  /* EXIF orientation first: tiles are cut from the picture as it is meant to be seen. */
  upright = gdk_pixbuf_apply_embedded_orientation(pb);
  g_object_unref(pb);
  if (upright == NULL) {
    r = job_fail(&job, -ENOMEM, "not enough memory to orient the image");
    goto finish;
  }
  if (!opt->vector &&
      image_tiles_plan(gdk_pixbuf_get_width(upright), gdk_pixbuf_get_height(upright),
                       opt->max_dimension, opt->tile_target, opt->tile, &plan))
    r = encode_tiles(&job, upright, &plan, ret, ret_n);
  else
    r = encode_whole(&job, upright, ow, oh, ret, ret_n);

finish:
  mem_release(d.reserved);
  if (r < 0) {
    image_out_list_free(*ret, *ret_n);
    *ret = NULL;
    *ret_n = 0;
    *ret_error = g_steal_pointer(&job.error);
    if (*ret_error == NULL)
      *ret_error = g_strdup("the image could not be converted");
  }
  g_free(job.error);
  return r;
}

/* Looks the loader up in gdk-pixbuf's list, without starting it. */
bool image_convert_has_loader(const char *loader) {
  GSList *formats = gdk_pixbuf_get_formats();
  bool found = false;

  for (GSList *l = formats; l != NULL && !found; l = l->next) {
    g_autofree char *name = gdk_pixbuf_format_get_name(l->data);

    found = g_strcmp0(name, loader) == 0;
  }
  g_slist_free(formats);
  return found;
}

/* Decodes once and drops the picture; see image-convert.h. */
int image_convert_check(const uint8_t *data, size_t len, const char *loader,
                        const atomic_bool *cancelled, char **ret_error) {
  ImageConvertOptions opt = {.loader = loader, .max_dimension = G_MAXINT, .cancelled = cancelled};
  Job job = {.opt = &opt, .cpu_start = cpu_now_ns()};
  Decode d = {0};
  GdkPixbuf *pb = NULL;
  bool animated;
  int r = decode(&job, data, len, &d, &pb, &animated);

  mem_release(d.reserved);
  if (pb != NULL)
    g_object_unref(pb);
  if (r < 0)
    *ret_error = g_steal_pointer(&job.error);
  g_free(job.error);
  return r;
}
