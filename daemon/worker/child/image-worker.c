#include "daemon/worker/child/image-worker.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/worker/child/image-convert.h"
#include "daemon/worker/child/worker-limits.h"
#include "daemon/worker/pdf-wire.h"

#define IDLE_KEEP ((size_t)32 * 1024 * 1024) /* free heap an idle worker may keep */
#define REQ_FIXED 12 /* flags, max_dim, budget_ms; the loader's name follows */

/* The descriptor's bytes from offset 0 into *ret (g_malloc'd) and *ret_len: at most
 * IMAGE_WORKER_MAX_INPUT, fewer when it ends early. Returns 0; -EBADF when no descriptor came;
 * -EFBIG when it holds more; another negative errno from fstat. */
static int read_input(int fd, uint8_t **ret, size_t *ret_len) {
  struct stat st;
  uint8_t *buf;
  size_t len = 0, size;

  if (fd < 0)
    return -EBADF;
  if (fstat(fd, &st) < 0)
    return -errno;
  if (st.st_size < 0 || (uint64_t)st.st_size > IMAGE_WORKER_MAX_INPUT)
    return -EFBIG;
  size = (size_t)st.st_size;
  buf = g_malloc(size + 1);
  while (len < size) {
    ssize_t n = pread(fd, buf + len, size - len, (off_t)len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    len += (size_t)n;
  }
  *ret = buf;
  *ret_len = len;
  return 0;
}

static void put_le32(GByteArray *b, uint32_t v) {
  uint32_t le = GUINT32_TO_LE(v);

  g_byte_array_append(b, (const guint8 *)&le, sizeof(le));
}

static void reply_error(GByteArray *out, int err, bool animated, const char *msg) {
  GByteArray *b = g_byte_array_new();

  put_le32(b, (uint32_t)-err);
  put_le32(b, animated ? 1 : 0);
  g_byte_array_append(b, (const guint8 *)msg, (guint)strlen(msg));
  pdf_wire_put(out, PDF_RES_IMAGE_ERROR, b->data, b->len);
  g_byte_array_free(b, TRUE);
}

static void reply_image(GByteArray *out, const ImageOut *img, bool animated) {
  GByteArray *b = g_byte_array_sized_new((guint)(48 + img->data_len));
  bool png = g_strcmp0(img->media_type, "image/png") == 0;

  put_le32(b, (uint32_t)img->width);
  put_le32(b, (uint32_t)img->height);
  put_le32(b, (uint32_t)img->original_width);
  put_le32(b, (uint32_t)img->original_height);
  put_le32(b, png ? PDF_MEDIA_PNG : PDF_MEDIA_JPEG);
  put_le32(b, animated ? 1 : 0);
  put_le32(b, (uint32_t)img->tile.x);
  put_le32(b, (uint32_t)img->tile.y);
  put_le32(b, (uint32_t)img->tile.width);
  put_le32(b, (uint32_t)img->tile.height);
  put_le32(b, (uint32_t)img->tile.index);
  put_le32(b, (uint32_t)img->tile.count);
  g_byte_array_append(b, (const guint8 *)img->data, (guint)img->data_len);
  pdf_wire_put(out, PDF_RES_IMAGE, b->data, b->len);
  g_byte_array_free(b, TRUE);
}

/* Runs the conversion the request asks for and puts its answer into out. */
static void convert(const uint8_t *req, size_t req_len, const uint8_t *data, size_t len,
                    GByteArray *out) {
  PdfRecord rec = {.data = req, .len = req_len};
  g_autofree char *loader = NULL, *error = NULL;
  uint32_t flags, max_dim, budget_ms;
  ImageConvertOptions opt = {0};
  ImageOut *imgs = NULL;
  size_t n = 0;
  bool animated = false;
  int r;

  if (pdf_wire_u32(&rec, 0, &flags) < 0 || pdf_wire_u32(&rec, 4, &max_dim) < 0 ||
      pdf_wire_u32(&rec, 8, &budget_ms) < 0 || max_dim < 1 || max_dim > 100000) {
    reply_error(out, -EINVAL, false, "the image request is malformed");
    return;
  }
  loader = g_strndup((const char *)req + REQ_FIXED, req_len - REQ_FIXED);
  worker_limits(budget_ms, IMAGE_WORKER_MAX_MEMORY);
  opt.loader = loader;
  opt.max_dimension = (int)max_dim;
  opt.photo = (flags & IMAGE_WORKER_PHOTO) != 0;
  opt.vector = (flags & IMAGE_WORKER_VECTOR) != 0;
  opt.check_rows = (flags & IMAGE_WORKER_CHECK_ROWS) != 0;
  opt.cpu_budget_ms = (int64_t)budget_ms;
  opt.tile = (flags & IMAGE_WORKER_TILE_ALWAYS) ? IMAGE_TILE_ALWAYS
             : (flags & IMAGE_WORKER_TILE_AUTO) ? IMAGE_TILE_AUTO
                                                : IMAGE_TILE_NEVER;
  opt.tile_target =
      (flags & IMAGE_WORKER_TILE_OPENAI) ? IMAGE_TILE_FOR_OPENAI : IMAGE_TILE_FOR_ANTHROPIC;
  if (flags & IMAGE_WORKER_CHECK_ONLY)
    r = image_convert_check(data, len, loader, NULL, &error);
  else
    r = image_convert(data, len, &opt, &imgs, &n, &animated, &error);
  if (r < 0)
    reply_error(out, r, animated, error != NULL ? error : "the image could not be converted");
  else if (flags & IMAGE_WORKER_CHECK_ONLY)
    pdf_wire_put(out, PDF_RES_IMAGE, NULL, 0);
  else
    for (size_t i = 0; i < n; i++)
      reply_image(out, &imgs[i], animated);
  image_out_list_free(imgs, n);
}

/* One image request; see image-worker.h. */
void image_worker_serve(const uint8_t *req, size_t req_len, int data_fd) {
  GByteArray *out = g_byte_array_new();
  g_autofree uint8_t *data = NULL;
  size_t len = 0;
  int r = read_input(data_fd, &data, &len);

  if (data_fd >= 0)
    close(data_fd);
  if (r < 0 || req_len < REQ_FIXED)
    reply_error(out, -EINVAL, false, "the image request came without its data");
  else
    convert(req, req_len, data, len, out);
  g_clear_pointer(&data, g_free);
  pdf_wire_put(out, PDF_RES_END, NULL, 0);
  /* readerd went away or gave up on us: nothing left to do. */
  if (pdf_wire_write_all(STDOUT_FILENO, out->data, out->len) < 0)
    _exit(1);
  g_byte_array_free(out, TRUE);
  /* An idle worker keeps the decoders loaded and, to spare the next photo its page faults
   * (about 10 ms of a 90 ms downscale), up to IDLE_KEEP of free heap, not a big picture's. */
  if (mallinfo2().fordblks > IDLE_KEEP)
    malloc_trim(0);
}
