#include "formatters/result.h"

#include <stdarg.h>
#include <string.h>

#include <glib.h>
#include "formatters/utf8.h"

/* Releases everything an ImageOut owns; the struct itself is not freed. NULL is fine. */
void image_out_clear(ImageOut *img) {
  if (img == NULL)
    return;
  g_free(img->media_type);
  g_free(img->data);
  memset(img, 0, sizeof(*img));
}

/* Releases everything a FileResult owns and zeroes it; NULL is fine. */
void file_result_clear(FileResult *f) {
  if (f == NULL)
    return;
  g_free(f->path);
  g_free(f->error);
  g_free(f->content);
  for (size_t i = 0; i < f->n_images; i++)
    image_out_clear(&f->images[i]);
  g_free(f->images);
  g_free(f->title);
  g_free(f->author);
  g_free(f->outline);
  for (size_t i = 0; i < f->n_page_out; i++)
    g_free(f->page_out[i].text);
  g_free(f->page_out);
  g_free(f->notice);
  memset(f, 0, sizeof(*f));
}

/* Sets f->code and a printf-formatted f->error (replacing any earlier ones). */
void file_result_fail(FileResult *f, const char *code, const char *fmt, ...) {
  va_list ap;
  char *msg;

  g_assert(code != NULL); /* a failure without a code would read as a success */
  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);

  g_free(f->error);
  f->error = msg;
  f->code = code;
}

/* Appends one zeroed image to f->images and returns it; the caller fills it in and f owns
 * whatever it puts there. Earlier entries may move, so pointers to them become stale. */
void file_result_drop_images(FileResult *f) {
  for (size_t k = 0; k < f->n_images; k++)
    image_out_clear(&f->images[k]);
  g_clear_pointer(&f->images, g_free);
  f->n_images = 0;
}

ImageOut *file_result_add_image(FileResult *f) {
  ImageOut *img;

  f->images = g_renew(ImageOut, f->images, f->n_images + 1);
  img = &f->images[f->n_images++];
  memset(img, 0, sizeof(*img));
  return img;
}

/* Appends one zeroed PageOut (image -1) to f->page_out and returns it; f owns what the
 * caller puts there. Earlier entries may move, so pointers to them become stale. */
PageOut *file_result_add_page(FileResult *f) {
  PageOut *p;

  f->page_out = g_renew(PageOut, f->page_out, f->n_page_out + 1);
  p = &f->page_out[f->n_page_out++];
  memset(p, 0, sizeof(*p));
  p->image = -1;
  return p;
}

/* Frees every file and the array; the ReadResult itself is zeroed, not freed. NULL is fine. */
void read_result_clear(ReadResult *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_files; i++)
    file_result_clear(&r->files[i]);
  g_free(r->files);
  memset(r, 0, sizeof(*r));
}

/* Sums bytes and lines over the files that were read (code NULL); unknown sizes (negative)
 * count as nothing and only text files have lines. Either output pointer may be NULL. */
void read_result_totals(const ReadResult *r, int64_t *ret_bytes, int64_t *ret_lines) {
  int64_t bytes = 0, lines = 0;

  for (size_t i = 0; r != NULL && i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    if (f->code != NULL)
      continue;
    if (f->bytes > 0)
      bytes += f->bytes;
    if (f->type == FILE_TYPE_TEXT && f->lines > 0)
      lines += f->lines;
  }
  if (ret_bytes != NULL)
    *ret_bytes = bytes;
  if (ret_lines != NULL)
    *ret_lines = lines;
}

/* The contract's lowercase name of a type: "text", "image", "pdf"; NULL for FILE_TYPE_UNKNOWN. */
const char *file_type_name(FileType t) {
  switch (t) {
  case FILE_TYPE_TEXT:
    return "text";
  case FILE_TYPE_IMAGE:
    return "image";
  case FILE_TYPE_PDF:
    return "pdf";
  case FILE_TYPE_UNKNOWN:
  default:
    return NULL;
  }
}

/* One UTF-8 character by the one decoder (utf8.h); see result.h. */
size_t result_utf8_decode(const char *s, size_t len, uint32_t *ret_cp) {
  size_t n;

  return utf8_decode((const uint8_t *)s, len, ret_cp, &n) == 1 ? n : 0;
}

/* v in decimal; see result.h. */
size_t result_format_int(char *buf, int64_t v) {
  char tmp[RESULT_INT_MAX];
  size_t i = sizeof tmp, n = 0;
  /* The magnitude as unsigned, so that INT64_MIN has one too. */
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

  do {
    tmp[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u > 0);
  if (v < 0)
    buf[n++] = '-';
  memcpy(buf + n, tmp + i, sizeof tmp - i);
  return n + sizeof tmp - i;
}
