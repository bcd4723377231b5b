#include "daemon/readers/kind-cut.h"

#include <inttypes.h>
#include <string.h>

#include <glib.h>

size_t kind_cut_lines_prefix(const char *text, size_t len, size_t k) {
  size_t at = 0;

  for (size_t i = 0; i < k && at < len; i++) {
    const char *nl = memchr(text + at, '\n', len - at);

    at = nl != NULL ? (size_t)(nl - text) + 1 : len;
  }
  return at;
}

size_t kind_cut_count_lines(const char *text, size_t len) {
  size_t n = 0;

  for (size_t at = 0; at < len; n++) {
    const char *nl = memchr(text + at, '\n', len - at);

    at = nl != NULL ? (size_t)(nl - text) + 1 : len;
  }
  return n;
}

/* ---- a PDF by pages ---------------------------------------------------------------------- */

static size_t pages_count(Cut *c) {
  return c->f->n_page_out;
}

/* Pages come in order with their pictures: the highest index shown, plus one. */
static size_t pages_images(const Cut *c, size_t k) {
  int64_t top = -1;

  for (size_t i = 0; i < k; i++)
    top = MAX(top, (int64_t)c->f->page_out[i].image);
  return (size_t)(top + 1);
}

static char *pages_notice(const Cut *c, size_t k) {
  const FileResult *f = c->f;
  int64_t next = k > 0 ? f->page_out[k - 1].number + 1 : f->page_out[0].number;

  return g_strdup_printf("\u2026 %s from %" PRId64 " not shown (budget of %" PRId64
                         " tokens); continue with pages=%" PRId64 "-\n",
                         c->kind->pieces, next, c->budget, next);
}

static void pages_view(Cut *c, size_t k, FileResult *v) {
  (void)c;
  v->n_page_out = k;
}

static void pages_commit(Cut *c, size_t k) {
  FileResult *f = c->f;

  for (size_t i = k; i < f->n_page_out; i++)
    g_clear_pointer(&f->page_out[i].text, g_free);
  f->n_page_out = k;
}

static bool pages_first_text(Cut *c, char **ret_text, size_t **ret_len, bool *ret_drop_parts) {
  *ret_drop_parts = false;
  if (c->f->n_page_out > 0) {
    *ret_text = c->f->page_out[0].text;
    *ret_len = &c->f->page_out[0].text_len;
  }
  return true;
}

static void pages_extent(const FileResult *f, int64_t *ret_shown, int64_t *ret_all) {
  *ret_shown = (int64_t)f->n_page_out;
  *ret_all = f->pages;
}

const KindCut kind_cut_pages = {.count = pages_count,
                                .images = pages_images,
                                .notice = pages_notice,
                                .view = pages_view,
                                .commit = pages_commit,
                                .first_text = pages_first_text,
                                .extent = pages_extent};

/* ---- a notebook's cells, a PPTX's slides ------------------------------------------------- */

static size_t sections_count(Cut *c) {
  return c->f->n_section_out;
}

static size_t sections_images(const Cut *c, size_t k) {
  int64_t top = -1;

  for (size_t i = 0; i < k; i++)
    for (size_t j = 0; j < c->f->section_out[i].n_parts; j++)
      top = MAX(top, (int64_t)c->f->section_out[i].parts[j].image);
  return (size_t)(top + 1);
}

static char *sections_notice(const Cut *c, size_t k) {
  const FileResult *f = c->f;
  int64_t next = f->section_out[k].number, total = f->sections;

  return g_strdup_printf("[%s %" PRId64 "-%" PRId64 " of %" PRId64 " not shown (budget of %" PRId64
                         " tokens); read on with offset %" PRId64 "]",
                         c->kind->pieces, next, total, total, c->budget, next);
}

static void sections_view(Cut *c, size_t k, FileResult *v) {
  (void)c;
  v->n_section_out = k;
}

static void sections_commit(Cut *c, size_t k) {
  FileResult *f = c->f;

  while (f->n_section_out > k)
    section_out_clear(&f->section_out[--f->n_section_out]);
  f->shown_last = k > 0 ? f->section_out[k - 1].number : 0;
  if (k == 0)
    f->shown_first = 0;
}

static bool sections_first_text(Cut *c, char **ret_text, size_t **ret_len, bool *ret_drop_parts) {
  *ret_drop_parts = true;
  if (c->f->n_section_out > 0) {
    *ret_text = c->f->section_out[0].text;
    *ret_len = &c->f->section_out[0].text_len;
  }
  return true;
}

static void sections_extent(const FileResult *f, int64_t *ret_shown, int64_t *ret_all) {
  *ret_shown = (int64_t)f->n_section_out;
  *ret_all = f->sections;
}

const KindCut kind_cut_sections = {.count = sections_count,
                                   .images = sections_images,
                                   .notice = sections_notice,
                                   .view = sections_view,
                                   .commit = sections_commit,
                                   .first_text = sections_first_text,
                                   .extent = sections_extent};

/* ---- an XLSX by rows, the same in every sheet -------------------------------------------- */

/* The row number a sheet's line starts with ("12: a | b"), or -1 for another line (a notice). */
static int64_t row_number(const char *line, size_t len) {
  int64_t n = 0;
  size_t i = 0;

  while (i < len && line[i] >= '0' && line[i] <= '9' && n < INT64_MAX / 10)
    n = n * 10 + (line[i++] - '0');
  return i > 0 && i < len && line[i] == ':' ? n : -1;
}

/* The bytes of a sheet's text before its first row numbered `below` or more. */
static size_t sheet_prefix(const SectionOut *s, int64_t below) {
  size_t at = 0;

  while (at < s->text_len) {
    const char *nl = memchr(s->text + at, '\n', s->text_len - at);
    size_t end = nl != NULL ? (size_t)(nl - s->text) + 1 : s->text_len;
    int64_t row = row_number(s->text + at, end - at);

    if (row >= below)
      return at;
    at = end;
  }
  return s->text_len;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

  return (x > y) - (x < y);
}

static size_t rows_count(Cut *c) {
  const FileResult *f = c->f;
  GArray *rows = g_array_new(FALSE, FALSE, sizeof(int64_t));
  size_t n = 0;

  for (size_t i = 0; i < f->n_section_out; i++) {
    const SectionOut *s = &f->section_out[i];

    for (size_t at = 0; at < s->text_len;) {
      const char *nl = memchr(s->text + at, '\n', s->text_len - at);
      size_t end = nl != NULL ? (size_t)(nl - s->text) + 1 : s->text_len;
      int64_t row = row_number(s->text + at, end - at);

      if (row >= 0)
        g_array_append_val(rows, row);
      at = end;
    }
  }
  g_array_sort(rows, cmp_i64);
  for (guint i = 0; i < rows->len; i++)
    if (n == 0 || g_array_index(rows, int64_t, i) != g_array_index(rows, int64_t, n - 1))
      g_array_index(rows, int64_t, n++) = g_array_index(rows, int64_t, i);
  g_free(c->rows);
  c->rows = (int64_t *)(void *)g_array_free(rows, FALSE);
  g_free(c->sheets);
  c->sheets = g_new0(SectionOut, MAX(f->n_section_out, 1));
  return n;
}

static size_t rows_images(const Cut *c, size_t k) {
  (void)k;
  return c->f->n_images;
}

static char *rows_notice(const Cut *c, size_t k) {
  return g_strdup_printf("[%s from %" PRId64 " not shown in any sheet (budget of %" PRId64
                         " tokens); read on with offset %" PRId64 "]",
                         c->kind->pieces, c->rows[k], c->budget, c->rows[k]);
}

static void rows_view(Cut *c, size_t k, FileResult *v) {
  for (size_t i = 0; i < v->n_section_out; i++) {
    c->sheets[i] = c->f->section_out[i];
    c->sheets[i].text_len = sheet_prefix(&c->sheets[i], c->rows[k]);
  }
  v->section_out = c->sheets;
}

static void rows_commit(Cut *c, size_t k) {
  FileResult *f = c->f;

  for (size_t i = 0; i < f->n_section_out; i++) {
    SectionOut *s = &f->section_out[i];

    s->text_len = sheet_prefix(s, c->rows[k]);
    if (s->text != NULL)
      s->text[s->text_len] = '\0';
  }
}

static void rows_extent(const FileResult *f, int64_t *ret_shown, int64_t *ret_all) {
  int64_t shown = 0, all = 0;

  for (size_t i = 0; i < f->n_section_out; i++) {
    const SectionOut *s = &f->section_out[i];

    all += s->rows;
    for (size_t at = 0; at < s->text_len;) {
      const char *nl = memchr(s->text + at, '\n', s->text_len - at);
      size_t end = nl != NULL ? (size_t)(nl - s->text) + 1 : s->text_len;

      shown += row_number(s->text + at, end - at) >= 0;
      at = end;
    }
  }
  *ret_shown = shown;
  *ret_all = all;
}

const KindCut kind_cut_rows = {.count = rows_count,
                               .images = rows_images,
                               .notice = rows_notice,
                               .view = rows_view,
                               .commit = rows_commit,
                               .first_text = sections_first_text,
                               .extent = rows_extent};

/* ---- a DOCX by lines --------------------------------------------------------------------- */

static size_t lines_count(Cut *c) {
  return kind_cut_count_lines(c->f->content, c->f->content_len);
}

static size_t lines_images(const Cut *c, size_t k) {
  (void)k;
  return c->f->n_images;
}

static char *lines_notice(const Cut *c, size_t k) {
  const FileResult *f = c->f;
  int64_t next = f->shown_first + (int64_t)k, total = MAX(f->lines, f->shown_last);

  return g_strdup_printf("[%s %" PRId64 "-%" PRId64 " of %" PRId64 " not shown (budget of %" PRId64
                         " tokens); read on with offset %" PRId64 "]",
                         c->kind->pieces, next, total, total, c->budget, next);
}

static void lines_view(Cut *c, size_t k, FileResult *v) {
  (void)c;
  v->content_len = kind_cut_lines_prefix(v->content, v->content_len, k);
}

static void lines_commit(Cut *c, size_t k) {
  FileResult *f = c->f;

  f->content_len = kind_cut_lines_prefix(f->content, f->content_len, k);
  f->content[f->content_len] = '\0';
  f->shown_last = f->shown_first + (int64_t)k - 1;
}

static bool lines_first_text(Cut *c, char **ret_text, size_t **ret_len, bool *ret_drop_parts) {
  *ret_drop_parts = false;
  *ret_text = c->f->content;
  *ret_len = &c->f->content_len;
  return true;
}

static void lines_extent(const FileResult *f, int64_t *ret_shown, int64_t *ret_all) {
  *ret_shown = f->shown_first > 0 ? f->shown_last - f->shown_first + 1 : 0;
  *ret_all = f->lines;
}

const KindCut kind_cut_lines = {.count = lines_count,
                                .images = lines_images,
                                .notice = lines_notice,
                                .view = lines_view,
                                .commit = lines_commit,
                                .first_text = lines_first_text,
                                .extent = lines_extent};

/* ---- a picture by tiles ------------------------------------------------------------------ */

/* Only a picture sent as two tiles or more is cut; one tile is the whole picture. */
static bool tiles_apply(const FileResult *f) {
  return f->type == FILE_TYPE_IMAGE && f->n_images > 0 && f->images[0].tile.count > 1;
}

static size_t tiles_count(Cut *c) {
  return c->f->n_images;
}

static size_t tiles_images(const Cut *c, size_t k) {
  (void)c;
  return k;
}

/* "tiles 4 to 10 of 10 (y 3337-10800 of 1080x10800) are not shown (budget of L tokens); read
 * on with offset 4": the part of the long side no tile kept shows, from the end of the last. */
static char *tiles_notice(const Cut *c, size_t k) {
  const ImageOut *first = &c->f->images[0], *next = &c->f->images[k];
  const ImageTile *t = &next->tile;
  bool tall = first->tile.width == first->original_width;
  const ImageTile *last = k > 0 ? &c->f->images[k - 1].tile : NULL;
  int from =
      last == NULL ? (tall ? t->y : t->x) : (tall ? last->y + last->height : last->x + last->width);
  int to = tall ? first->original_height : first->original_width;
  g_autofree char *which =
      t->index == t->count ? g_strdup_printf("tile %d of %d", t->count, t->count)
                           : g_strdup_printf("tiles %d to %d of %d", t->index, t->count, t->count);

  return g_strdup_printf(
      "%s (%s %d-%d of %dx%d) %s not shown (budget of %" PRId64 " tokens); read on with offset %d",
      which, tall ? "y" : "x", from, to, first->original_width, first->original_height,
      t->index == t->count ? "is" : "are", c->budget, t->index);
}

static void tiles_view(Cut *c, size_t k, FileResult *v) {
  (void)c;
  (void)k;
  (void)v; /* the engine keeps the first k pictures */
}

static void tiles_commit(Cut *c, size_t k) {
  (void)c;
  (void)k;
}

static bool tiles_first_text(Cut *c, char **ret_text, size_t **ret_len, bool *ret_drop_parts) {
  (void)c;
  (void)ret_text;
  (void)ret_len;
  *ret_drop_parts = false;
  return false;
}

static void tiles_extent(const FileResult *f, int64_t *ret_shown, int64_t *ret_all) {
  *ret_shown = (int64_t)f->n_images;
  *ret_all = f->n_images > 0 ? f->images[0].tile.count : 0;
}

const KindCut kind_cut_tiles = {.applies = tiles_apply,
                                .count = tiles_count,
                                .images = tiles_images,
                                .notice = tiles_notice,
                                .view = tiles_view,
                                .commit = tiles_commit,
                                .first_text = tiles_first_text,
                                .extent = tiles_extent};
