#include "daemon/image.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/image-header.h"

/* Reads the rest of the file after `head` into one buffer of at most `cap` bytes.
 * Returns the buffer (g_malloc'd) and its length, or NULL with *ret_errno set. */
static uint8_t *slurp(int fd, const uint8_t *head, size_t head_len, size_t size_hint, size_t cap,
                      size_t *ret_len, int *ret_errno) {
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
        *ret_errno = EFBIG;
        return NULL;
      }
      cap_now = MIN(cap_now * 2, cap + 1);
      buf = g_realloc(buf, cap_now);
    }
    n = read(fd, buf + len, cap_now - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      *ret_errno = errno;
      g_free(buf);
      return NULL;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  *ret_len = len;
  return buf;
}

int image_read(int fd, const struct stat *st, DetectKind k, const uint8_t *head, size_t head_len,
               const ImageOptions *opt, FileResult *res) {
  uint8_t *data = NULL;
  size_t len = 0;
  int err = 0, w, h;
  ImageOut *img;

  res->type = FILE_TYPE_IMAGE;
  if (!detect_is_web_image(k)) {
    file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "%s images are not supported",
                     detect_media_type(k));
    return -ENOTSUP;
  }
  if (st->st_size > IMAGE_MAX_FILE_BYTES) {
    file_result_fail(res, CODE_FILE_TOO_LARGE, "image file is %jd bytes; the limit is %jd bytes",
                     (intmax_t)st->st_size, (intmax_t)IMAGE_MAX_FILE_BYTES);
    return -EFBIG;
  }
  data = slurp(fd, head, head_len, (size_t)st->st_size, (size_t)IMAGE_MAX_FILE_BYTES, &len, &err);
  if (data == NULL) {
    if (err == EFBIG)
      file_result_fail(res, CODE_FILE_TOO_LARGE, "image file grew past %jd bytes while read",
                       (intmax_t)IMAGE_MAX_FILE_BYTES);
    else
      file_result_fail(res, CODE_READ_ERROR, "read failed: %s", g_strerror(err));
    return -err;
  }
  res->bytes = (int64_t)len;
  if (image_header_size(k, data, len, &w, &h) < 0) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "%s header is missing or damaged",
                     detect_media_type(k));
    g_free(data);
    return -EINVAL;
  }
  img = file_result_add_image(res);
  img->media_type = g_strdup(detect_media_type(k));
  img->data = g_base64_encode(data, len);
  img->data_len = strlen(img->data);
  img->width = w;
  img->height = h;
  g_free(data);
  return 0;
}
