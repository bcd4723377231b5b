#include "basic/pdf-select.h"

#include <errno.h>
#include <stdlib.h>

#include <glib.h>

/* Reads a page number 1..INT32_MAX at *s and moves past it. Returns false when there is none. */
static bool parse_number(const char **s, int32_t *ret) {
  int64_t v = 0;

  if (!g_ascii_isdigit(**s))
    return false;
  for (; g_ascii_isdigit(**s); (*s)++) {
    v = v * 10 + (**s - '0');
    if (v > INT32_MAX)
      return false;
  }
  *ret = (int32_t)v;
  return v >= 1;
}

/* Reads one item ("N", "N-M", "N-") with the spaces around it. */
static bool parse_item(const char **s, PdfRange *ret) {
  while (**s == ' ')
    (*s)++;
  if (!parse_number(s, &ret->first))
    return false;
  ret->last = ret->first;
  if (**s == '-') {
    (*s)++;
    ret->last = PDF_SELECT_OPEN_END;
    if (g_ascii_isdigit(**s) && (!parse_number(s, &ret->last) || ret->last < ret->first))
      return false;
  }
  while (**s == ' ')
    (*s)++;
  return true;
}

static int range_cmp(const void *a, const void *b) {
  const PdfRange *x = a, *y = b;

  return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorts the ranges and merges those that overlap or touch. */
static void normalize(PdfSelection *sel) {
  size_t out = 0;

  qsort(sel->ranges, sel->n, sizeof(PdfRange), range_cmp);
  for (size_t i = 0; i < sel->n; i++) {
    PdfRange r = sel->ranges[i];

    if (out > 0 && (int64_t)r.first <= (int64_t)sel->ranges[out - 1].last + 1) {
      if (r.last > sel->ranges[out - 1].last)
        sel->ranges[out - 1].last = r.last;
      continue;
    }
    sel->ranges[out++] = r;
  }
  sel->n = out;
}

/* Parses and normalizes a selection; see pdf-select.h. */
int pdf_select_parse(const char *spec, PdfSelection *ret) {
  GArray *a = g_array_new(FALSE, FALSE, sizeof(PdfRange));
  const char *s = spec != NULL ? spec : "1-";
  PdfRange r;

  ret->ranges = NULL;
  ret->n = 0;
  for (;;) {
    if (!parse_item(&s, &r)) {
      g_array_free(a, TRUE);
      return -EINVAL;
    }
    g_array_append_val(a, r);
    if (*s == '\0')
      break;
    if (*s != ',') {
      g_array_free(a, TRUE);
      return -EINVAL;
    }
    s++;
  }
  ret->n = a->len;
  ret->ranges = (PdfRange *)(void *)g_array_free(a, FALSE);
  normalize(ret);
  return 0;
}

/* Checks that every item starts inside the document; see pdf-select.h. */
int pdf_select_check(const PdfSelection *sel, int32_t n_pages, int32_t *ret_page) {
  for (size_t i = 0; i < sel->n; i++) {
    if (sel->ranges[i].first > n_pages) {
      if (ret_page != NULL)
        *ret_page = sel->ranges[i].first;
      return -ERANGE;
    }
  }
  return 0;
}

/* The first selected page after `after`, within the document; see pdf-select.h. */
int32_t pdf_select_next(const PdfSelection *sel, int32_t after, int32_t n_pages) {
  if (after >= PDF_SELECT_OPEN_END)
    return 0;
  for (size_t i = 0; i < sel->n; i++) {
    const PdfRange *r = &sel->ranges[i];
    int32_t p;

    if (r->last <= after)
      continue;
    p = r->first > after ? r->first : after + 1;
    return p <= n_pages ? p : 0;
  }
  return 0;
}

/* Counts the selected pages after `after`, within the document; see pdf-select.h. */
int64_t pdf_select_count_after(const PdfSelection *sel, int32_t after, int32_t n_pages) {
  int64_t n = 0;

  for (size_t i = 0; i < sel->n; i++) {
    int64_t first = MAX((int64_t)sel->ranges[i].first, (int64_t)after + 1);
    int64_t last = MIN((int64_t)sel->ranges[i].last, (int64_t)n_pages);

    if (last >= first)
      n += last - first + 1;
  }
  return n;
}

/* Writes what is left after `after`; see pdf-select.h. */
char *pdf_select_format_after(const PdfSelection *sel, int32_t after, int32_t n_pages) {
  GString *gs = g_string_new(NULL);

  for (size_t i = 0; i < sel->n && after < PDF_SELECT_OPEN_END; i++) {
    int32_t first = MAX(sel->ranges[i].first, after + 1);
    int32_t last = sel->ranges[i].last;

    if (n_pages > 0 && last > n_pages)
      last = n_pages;
    if (last < first || (n_pages > 0 && first > n_pages))
      continue;
    if (gs->len > 0)
      g_string_append_c(gs, ',');
    if (last == first)
      g_string_append_printf(gs, "%d", (int)first);
    else if (last == PDF_SELECT_OPEN_END)
      g_string_append_printf(gs, "%d-", (int)first);
    else
      g_string_append_printf(gs, "%d-%d", (int)first, (int)last);
  }
  return g_string_free(gs, FALSE);
}

/* Releases the ranges; see pdf-select.h. */
void pdf_select_clear(PdfSelection *sel) {
  if (sel == NULL)
    return;
  g_free(sel->ranges);
  sel->ranges = NULL;
  sel->n = 0;
}
