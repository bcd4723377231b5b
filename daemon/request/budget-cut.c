#include "daemon/request/budget-cut.h"

#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "formatters/xml.h"

/* How a kind of file is cut: what its pieces are and the notice of a cut. */
typedef enum {
  CUT_NONE,
  CUT_PAGES,    /* a PDF: page_out */
  CUT_SECTIONS, /* a notebook's cells, a PPTX's slides: section_out */
  CUT_ROWS,     /* an XLSX: the rows below a number, in every sheet */
  CUT_LINES,    /* a DOCX: the lines of content */
} CutKind;

static CutKind cut_kind(const FileResult *f) {
  if (f->code != NULL || f->omitted != NULL || f->planned)
    return CUT_NONE;
  if (f->type == FILE_TYPE_PDF)
    return CUT_PAGES;
  if (f->type == FILE_TYPE_NOTEBOOK || (f->type == FILE_TYPE_DOCUMENT && f->n_section_out > 0 &&
                                        strcmp(f->section_out[0].element, "Slide") == 0))
    return CUT_SECTIONS;
  if (f->type == FILE_TYPE_DOCUMENT && g_strcmp0(f->format, "xlsx") == 0)
    return CUT_ROWS;
  if (f->type == FILE_TYPE_DOCUMENT && g_strcmp0(f->format, "docx") == 0)
    return CUT_LINES;
  return CUT_NONE;
}

bool budget_cut_applies(const FileResult *f) {
  return cut_kind(f) != CUT_NONE;
}

int64_t budget_cut_written(const FileResult *f, const TokensPricing *p) {
  FileResult v = *f;

  /* As the answer's last check prices it (budget_settle): the content and pictures, then the
   * markup with each text left out. */
  v.priced = NULL;
  file_result_count_tokens(&v, p);
  return v.tokens + MAX(xml_content_tokens(&v, 0, true), 0);
}

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

/* The bytes of text that hold its first k lines. */
static size_t lines_prefix(const char *text, size_t len, size_t k) {
  size_t at = 0;

  for (size_t i = 0; i < k && at < len; i++) {
    const char *nl = memchr(text + at, '\n', len - at);

    at = nl != NULL ? (size_t)(nl - text) + 1 : len;
  }
  return at;
}

static size_t count_lines(const char *text, size_t len) {
  size_t n = 0;

  for (size_t at = 0; at < len; n++) {
    const char *nl = memchr(text + at, '\n', len - at);

    at = nl != NULL ? (size_t)(nl - text) + 1 : len;
  }
  return n;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

  return (x > y) - (x < y);
}

/* A file and how it is cut: its pieces (pages, sections, row numbers, lines) and the copy of its
 * sections a cut of rows writes into. */
typedef struct {
  FileResult *f;
  CutKind kind;
  const TokensPricing *p;
  int64_t budget;
  size_t n;           /* pieces */
  int64_t *rows;      /* CUT_ROWS: the row numbers shown, sorted, without repeats */
  SectionOut *sheets; /* CUT_ROWS: the sections of a view */
  char *notice;       /* of the view last made */
} Cut;

/* The pictures the first k pieces show (they come in order: the highest index shown, plus one). */
static size_t images_of(const Cut *c, size_t k) {
  const FileResult *f = c->f;
  int64_t top = -1;

  if (c->kind == CUT_PAGES) {
    for (size_t i = 0; i < k; i++)
      top = MAX(top, (int64_t)f->page_out[i].image);
  } else if (c->kind == CUT_SECTIONS) {
    for (size_t i = 0; i < k; i++)
      for (size_t j = 0; j < f->section_out[i].n_parts; j++)
        top = MAX(top, (int64_t)f->section_out[i].parts[j].image);
  } else {
    return f->n_images;
  }
  return (size_t)(top + 1);
}

/* The notice of a cut that keeps k pieces (k < n). */
static char *cut_notice(const Cut *c, size_t k) {
  const FileResult *f = c->f;
  int64_t next, total = f->sections;

  switch (c->kind) {
  case CUT_PAGES:
    next = k > 0 ? f->page_out[k - 1].number + 1 : f->page_out[0].number;
    return g_strdup_printf("\u2026 pages from %" PRId64 " not shown (budget of %" PRId64
                           " tokens); continue with pages=%" PRId64 "-\n",
                           next, c->budget, next);
  case CUT_SECTIONS:
    next = f->section_out[k].number;
    return g_strdup_printf(
        "[%s %" PRId64 "-%" PRId64 " of %" PRId64 " not shown (budget of %" PRId64
        " tokens); read on with offset %" PRId64 "]",
        f->type == FILE_TYPE_NOTEBOOK ? "cells" : "slides", next, total, total, c->budget, next);
  case CUT_ROWS:
    next = c->rows[k];
    return g_strdup_printf("[rows from %" PRId64 " not shown in any sheet (budget of %" PRId64
                           " tokens); read on with offset %" PRId64 "]",
                           next, c->budget, next);
  case CUT_LINES:
    next = f->shown_first + (int64_t)k;
    total = MAX(f->lines, f->shown_last);
    return g_strdup_printf("[lines %" PRId64 "-%" PRId64 " of %" PRId64
                           " not shown (budget of %" PRId64 " tokens); read on with offset %" PRId64
                           "]",
                           next, total, total, c->budget, next);
  case CUT_NONE:
  default:
    return NULL;
  }
}

/* f as it would be with its first k pieces (k <= n): a shallow copy, sharing what it keeps. */
static FileResult view(Cut *c, size_t k) {
  FileResult v = *c->f;

  g_clear_pointer(&c->notice, g_free);
  if (k < c->n) {
    c->notice = cut_notice(c, k);
    v.notice = c->notice;
    v.truncated = true;
  }
  v.n_images = MIN(images_of(c, k), v.n_images);
  switch (c->kind) {
  case CUT_PAGES:
    v.n_page_out = k;
    break;
  case CUT_SECTIONS:
    v.n_section_out = k;
    break;
  case CUT_ROWS:
    for (size_t i = 0; i < v.n_section_out; i++) {
      c->sheets[i] = c->f->section_out[i];
      if (k < c->n)
        c->sheets[i].text_len = sheet_prefix(&c->sheets[i], c->rows[k]);
    }
    v.section_out = c->sheets;
    break;
  case CUT_LINES:
    v.content_len = lines_prefix(v.content, v.content_len, k);
    break;
  case CUT_NONE:
    break;
  }
  return v;
}

static int64_t price(Cut *c, size_t k) {
  FileResult v = view(c, k);

  return budget_cut_written(&v, c->p);
}

/* Makes the cut of k pieces f's own. */
static void commit(Cut *c, size_t k) {
  FileResult *f = c->f;

  if (k >= c->n)
    return;
  while (f->n_images > images_of(c, k))
    image_out_clear(&f->images[--f->n_images]);
  g_free(f->notice);
  f->notice = cut_notice(c, k);
  f->truncated = true;
  switch (c->kind) {
  case CUT_PAGES:
    for (size_t i = k; i < f->n_page_out; i++)
      g_clear_pointer(&f->page_out[i].text, g_free);
    f->n_page_out = k;
    break;
  case CUT_SECTIONS:
    while (f->n_section_out > k)
      section_out_clear(&f->section_out[--f->n_section_out]);
    f->shown_last = k > 0 ? f->section_out[k - 1].number : 0;
    if (k == 0)
      f->shown_first = 0;
    break;
  case CUT_ROWS:
    for (size_t i = 0; i < f->n_section_out; i++) {
      SectionOut *s = &f->section_out[i];

      s->text_len = sheet_prefix(s, c->rows[k]);
      if (s->text != NULL)
        s->text[s->text_len] = '\0';
    }
    break;
  case CUT_LINES:
    f->content_len = lines_prefix(f->content, f->content_len, k);
    f->content[f->content_len] = '\0';
    f->shown_last = f->shown_first + (int64_t)k - 1;
    break;
  case CUT_NONE:
    break;
  }
}

/* The text of the first piece, which a cut by lines shortens when it alone is over. */
static void first_text(Cut *c, char **ret_text, size_t **ret_len) {
  FileResult *f = c->f;

  *ret_text = NULL;
  *ret_len = NULL;
  if (c->kind == CUT_PAGES && f->n_page_out > 0) {
    *ret_text = f->page_out[0].text;
    *ret_len = &f->page_out[0].text_len;
  } else if ((c->kind == CUT_SECTIONS || c->kind == CUT_ROWS) && f->n_section_out > 0) {
    *ret_text = f->section_out[0].text;
    *ret_len = &f->section_out[0].text_len;
  } else if (c->kind == CUT_LINES) {
    *ret_text = f->content;
    *ret_len = &f->content_len;
  }
}

/* The first piece alone is over room: its text keeps the lines that fit (a line at least, cut on
 * a character when it alone is over), and its outputs or notes go; the notice says so. */
static void cut_first_piece(Cut *c, int64_t room) {
  FileResult *f = c->f;
  size_t *len, lines, lo = 0, hi;
  char *text;
  g_autofree char *rest = NULL;

  commit(c, 1);
  first_text(c, &text, &len);
  if (text == NULL)
    return;
  if (c->kind == CUT_SECTIONS || c->kind == CUT_ROWS) {
    SectionOut *s = &f->section_out[0];

    for (size_t j = 0; j < s->n_parts; j++) {
      g_free(s->parts[j].name);
      g_free(s->parts[j].text);
    }
    g_clear_pointer(&s->parts, g_free);
    s->n_parts = 0;
    while (f->n_images > 0)
      image_out_clear(&f->images[--f->n_images]);
  }
  rest = g_strdup_printf(
      "%s[the rest of this %s is over the budget of %" PRId64 " tokens and not shown]\n",
      f->notice != NULL ? f->notice : "",
      c->kind == CUT_PAGES      ? "page"
      : c->kind == CUT_SECTIONS ? (f->type == FILE_TYPE_NOTEBOOK ? "cell" : "slide")
      : c->kind == CUT_ROWS     ? "sheet"
                                : "line",
      c->budget);
  g_free(f->notice);
  f->notice = g_steal_pointer(&rest);
  f->truncated = true;
  /* The most lines of it that fit, by bisection; then, for one line alone, bytes. */
  lines = count_lines(text, *len);
  hi = lines;
  {
    size_t full = *len;

    while (lo < hi) {
      size_t mid = (lo + hi + 1) / 2;

      *len = lines_prefix(text, full, mid);
      if (budget_cut_written(f, c->p) <= room)
        lo = mid;
      else
        hi = mid - 1;
    }
    *len = lines_prefix(text, full, lo);
    if (lo == 0) {
      size_t blo = 0, bhi = MIN(full, lines_prefix(text, full, 1));

      while (blo < bhi) {
        size_t mid = (blo + bhi + 1) / 2;

        *len = mid;
        if (budget_cut_written(f, c->p) <= room)
          blo = mid;
        else
          bhi = mid - 1;
      }
      /* On a character's start. */
      while (blo > 0 && ((unsigned char)text[blo] & 0xC0) == 0x80)
        blo--;
      *len = blo;
    }
    text[*len] = '\0';
  }
}

bool budget_cut(FileResult *f, int64_t room, int64_t budget, bool keep_one,
                const TokensPricing *p) {
  Cut c = {.f = f, .kind = cut_kind(f), .p = p, .budget = budget};
  size_t lo, hi;
  bool fits;

  if (c.kind == CUT_NONE || budget_cut_written(f, p) <= room)
    return true;
  switch (c.kind) {
  case CUT_PAGES:
    c.n = f->n_page_out;
    break;
  case CUT_SECTIONS:
    c.n = f->n_section_out;
    break;
  case CUT_ROWS: {
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(int64_t));

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
    c.n = 0;
    for (guint i = 0; i < rows->len; i++)
      if (c.n == 0 || g_array_index(rows, int64_t, i) != g_array_index(rows, int64_t, c.n - 1))
        g_array_index(rows, int64_t, c.n++) = g_array_index(rows, int64_t, i);
    c.rows = (int64_t *)(void *)g_array_free(rows, FALSE);
    c.sheets = g_new0(SectionOut, MAX(f->n_section_out, 1));
    break;
  }
  case CUT_LINES:
    c.n = count_lines(f->content, f->content_len);
    break;
  case CUT_NONE:
    break;
  }
  /* A PDF's outline goes before its first page does: the pages are the document. */
  if (c.kind == CUT_PAGES && f->outline != NULL && c.n > 0 && price(&c, 1) > room)
    g_clear_pointer(&f->outline, g_free);
  /* The most pieces that fit, by bisection: the price grows with them. */
  lo = 0;
  hi = c.n;
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;

    if (price(&c, mid) <= room)
      lo = mid;
    else
      hi = mid - 1;
  }
  fits = lo > 0;
  if (fits)
    commit(&c, lo);
  else if (keep_one && c.n > 0)
    cut_first_piece(&c, room);
  g_free(c.notice);
  g_free(c.rows);
  g_free(c.sheets);
  if (fits || keep_one)
    file_result_count_tokens(f, p);
  return fits || keep_one;
}

int64_t budget_cut_whole(const FileResult *f, const TokensPricing *p, int64_t floor) {
  return MAX(budget_cut_extrapolate(f, budget_cut_written(f, p)), floor);
}

int64_t budget_cut_extrapolate(const FileResult *f, int64_t written) {
  int64_t shown = 0, all = 0, whole = written;

  switch (cut_kind(f)) {
  case CUT_PAGES:
    shown = (int64_t)f->n_page_out;
    all = f->pages;
    break;
  case CUT_SECTIONS:
    shown = (int64_t)f->n_section_out;
    all = f->sections;
    break;
  case CUT_ROWS:
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
    break;
  case CUT_LINES:
    shown = f->shown_first > 0 ? f->shown_last - f->shown_first + 1 : 0;
    all = f->lines;
    break;
  case CUT_NONE:
    break;
  }
  if (shown > 0 && all > shown)
    whole = (int64_t)((double)written * (double)all / (double)shown);
  return whole;
}
