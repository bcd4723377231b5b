#include "formatters/result.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include "formatters/price-memo.h"
#include "formatters/tokens.h"
#include "basic/utf8.h"

/* Releases everything an ImageOut owns; the struct itself is not freed. NULL is fine. */
void image_out_clear(ImageOut *img) {
  if (img == NULL)
    return;
  g_free(img->media_type);
  g_free(img->data);
  memset(img, 0, sizeof(*img));
}

/* "tile 2 of 7: x 0-1080, y 1519-3207 of 1080x10800"; see result.h. */
bool image_tile_label(const ImageOut *img, char *buf) {
  const ImageTile *t = &img->tile;

  buf[0] = '\0';
  if (t->count <= 0)
    return false;
  (void)snprintf(buf, IMAGE_TILE_LABEL_MAX, "tile %d of %d: x %d-%d, y %d-%d of %dx%d", t->index,
                 t->count, t->x, t->x + t->width, t->y, t->y + t->height, img->original_width,
                 img->original_height);
  return true;
}

/* Frees the images and the array; see result.h. */
void image_out_list_free(ImageOut *list, size_t n) {
  for (size_t i = 0; list != NULL && i < n; i++)
    image_out_clear(&list[i]);
  g_free(list);
}

void section_out_clear(SectionOut *s) {
  g_free(s->language);
  g_free(s->name);
  g_free(s->text);
  for (size_t k = 0; k < s->n_parts; k++) {
    g_free(s->parts[k].name);
    g_free(s->parts[k].text);
  }
  g_free(s->parts);
  memset(s, 0, sizeof *s);
}

void file_result_drop_sections(FileResult *f) {
  for (size_t i = 0; i < f->n_section_out; i++)
    section_out_clear(&f->section_out[i]);
  g_clear_pointer(&f->section_out, g_free);
  f->n_section_out = 0;
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
  for (size_t i = 0; i < f->n_notices; i++) {
    g_free(f->notices[i].path);
    g_free(f->notices[i].message);
  }
  g_free(f->notices);
  g_free(f->language);
  for (size_t i = 0; i < f->n_section_out; i++)
    section_out_clear(&f->section_out[i]);
  g_free(f->section_out);
  g_free(f->summary);
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

void file_result_fail_text(FileResult *f, const char *code, const char *message) {
  g_assert(code != NULL);
  g_free(f->error);
  f->error = g_strdup(message);
  f->code = code;
}

/* v in lowercase hex at buf; returns its length. */
static size_t format_hex(char *buf, uint64_t v) {
  char tmp[16];
  size_t i = sizeof tmp;

  do {
    tmp[--i] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v > 0);
  memcpy(buf, tmp + i, sizeof tmp - i);
  return sizeof tmp - i;
}

/* Formatted by hand: a request naming thousands of files formats an etag for each, and
 * printf's formatting was most of the cost of a stat. */
/* Writes a time as nanoseconds since the epoch, or as seconds.nanoseconds when that does not
 * fit in 64 bits, at p. Returns the characters written (at most RESULT_INT_MAX + 10). */
static size_t format_time(char *p, int64_t sec, int64_t nsec) {
  const int64_t giga = 1000000000;
  uint64_t frac = (uint64_t)CLAMP(nsec, 0, giga - 1);
  size_t n;

  if (sec > INT64_MIN / giga + 1 && sec < INT64_MAX / giga - 1)
    return result_format_int(p, sec * giga + nsec);
  n = result_format_int(p, sec);
  p[n++] = '.';
  for (int k = 8; k >= 0; k--, frac /= 10)
    p[n + (size_t)k] = (char)('0' + frac % 10);
  return n + 9;
}

void file_result_set_etag(FileResult *f, uint64_t dev, uint64_t ino, int64_t size, int64_t sec,
                          int64_t nsec) {
  char *p = f->etag;

  /* Three hex numbers and their dashes, a time of up to 20 + 1 + 9 characters, the NUL, and
   * room for the second time file_result_etag_add_time() appends. */
  G_STATIC_ASSERT(RESULT_ETAG_MAX >= 3 * 17 + 2 * (RESULT_INT_MAX + 1 + 9 + 1) + 1);
  p += format_hex(p, dev);
  *p++ = '-';
  p += format_hex(p, ino);
  *p++ = '-';
  p += format_hex(p, (uint64_t)size);
  *p++ = '-';
  p += format_time(p, sec, nsec);
  *p = '\0';
}

void file_result_etag_add_time(FileResult *f, int64_t sec, int64_t nsec) {
  char *p = f->etag + strlen(f->etag);

  *p++ = '-';
  p += format_time(p, sec, nsec);
  *p = '\0';
}

void file_result_drop_images(FileResult *f) {
  for (size_t k = 0; k < f->n_images; k++)
    image_out_clear(&f->images[k]);
  g_clear_pointer(&f->images, g_free);
  f->n_images = 0;
}

/* Appends one zeroed image to f->images and returns it; the caller fills it in and f owns
 * whatever it puts there. Earlier entries may move, so pointers to them become stale. */
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

void file_result_add_notice(FileResult *f, const char *path, size_t from, const char *message) {
  f->notices = g_renew(ResultNotice, f->notices, f->n_notices + 1);
  f->notices[f->n_notices++] = (ResultNotice){
      .path = g_strdup(path),
      .from = from,
      .message = g_strdup(message),
  };
}

/* Appends one zeroed SectionOut to f->section_out and returns it; see result.h. */
SectionOut *file_result_add_section(FileResult *f) {
  SectionOut *s;

  f->section_out = g_renew(SectionOut, f->section_out, f->n_section_out + 1);
  s = &f->section_out[f->n_section_out++];
  memset(s, 0, sizeof(*s));
  return s;
}

/* Appends one zeroed SectionPart (image -1) to s->parts and returns it; see result.h. */
SectionPart *section_add_part(SectionOut *s) {
  SectionPart *p;

  s->parts = g_renew(SectionPart, s->parts, s->n_parts + 1);
  p = &s->parts[s->n_parts++];
  memset(p, 0, sizeof(*p));
  p->image = -1;
  return p;
}

/* "cells", "slides" or "sheets"; see result.h. */
const char *file_result_sections_name(const FileResult *f) {
  if (f->type == FILE_TYPE_NOTEBOOK)
    return "cells";
  if (f->type == FILE_TYPE_DOCUMENT && g_strcmp0(f->format, "pptx") == 0)
    return "slides";
  if (f->type == FILE_TYPE_DOCUMENT && g_strcmp0(f->format, "xlsx") == 0)
    return "sheets";
  return NULL;
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

size_t read_result_image_count(const ReadResult *r) {
  size_t n = 0;

  for (size_t i = 0; i < r->n_files; i++)
    if (r->files[i].code == NULL)
      n += r->files[i].n_images;
  return n;
}

/* Sums bytes and lines over the files that were read (code and omitted NULL, not unchanged);
 * unknown sizes (negative) count as nothing and only text files have lines. Either output pointer may be NULL. */
void read_result_totals(const ReadResult *r, int64_t *ret_bytes, int64_t *ret_lines) {
  int64_t bytes = 0, lines = 0;

  for (size_t i = 0; r != NULL && i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    if (f->code != NULL || f->unchanged || (f->omitted != NULL && !r->plan))
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
  case FILE_TYPE_NOTEBOOK:
    return "notebook";
  case FILE_TYPE_DOCUMENT:
    return "document";
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

void read_result_tokens(const ReadResult *r, int64_t *ret_tokens, int64_t *ret_total) {
  int64_t tokens = 0, total = 0;

  for (size_t i = 0; r != NULL && i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    tokens += f->tokens;
    if (r->plan && f->code == NULL && f->tokens_total > 0)
      total += f->tokens_total;
  }
  if (ret_tokens != NULL)
    *ret_tokens = tokens;
  if (ret_total != NULL)
    *ret_total = total;
}

void file_result_count_tokens(FileResult *f, const TokensPricing *p) {
  /* Large contents are looked up in the daemon's price memo, if it has one (price-memo.h). */
  PriceMemo *memo = price_memo_installed();
  int64_t milli = 0, images = 0;

  if (f->code != NULL || f->omitted != NULL || f->planned) {
    if (f->code != NULL)
      f->tokens = 0;
    return;
  }
  /* Content its reader priced is not priced again. */
  if (f->priced != NULL && f->priced == f->content && f->priced_len == f->content_len)
    milli += f->priced_milli;
  else
    milli += price_memo_text_milli(memo, f->content, f->content_len);
  milli += tokens_text_milli(f->outline, f->outline != NULL ? strlen(f->outline) : 0);
  milli += tokens_text_milli(f->notice, f->notice != NULL ? strlen(f->notice) : 0);
  for (size_t i = 0; i < f->n_page_out; i++)
    milli += price_memo_text_milli(memo, f->page_out[i].text, f->page_out[i].text_len);
  for (size_t i = 0; i < f->n_section_out; i++) {
    const SectionOut *s = &f->section_out[i];

    milli += price_memo_text_milli(memo, s->text, s->text_len);
    for (size_t k = 0; k < s->n_parts; k++)
      milli += price_memo_text_milli(memo, s->parts[k].text, s->parts[k].text_len);
  }
  for (size_t i = 0; i < f->n_images; i++)
    images += tokens_image(p, f->images[i].width, f->images[i].height);
  f->tokens = tokens_from_milli(milli) + images;
}

/* See result.h. */
bool file_result_listed(const FileResult *f) {
  return f->code == NULL && (f->planned || g_strcmp0(f->omitted, OMITTED_BUDGET) == 0);
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
