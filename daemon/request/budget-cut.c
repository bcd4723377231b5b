#include "daemon/request/budget-cut.h"

#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/kind-cut.h"
#include "formatters/xml.h"

/* A cut under way: the file and its row's way of cutting, and the answer's pricing. */
typedef struct {
  Cut c;
  const KindCut *how;
  const TokensPricing *p;
} Engine;

/* How f is cut: its row's way (kinds.h), when it was read, shows content and can be cut. */
static const KindCut *cut_of(const FileResult *f, const Kind **ret_kind) {
  const Kind *k;

  if (f->code != NULL || f->omitted != NULL || f->planned)
    return NULL;
  k = kinds_of_result(f);
  if (k == NULL || k->cut == NULL || (k->cut->applies != NULL && !k->cut->applies(f)))
    return NULL;
  if (ret_kind != NULL)
    *ret_kind = k;
  return k->cut;
}

bool budget_cut_applies(const FileResult *f) {
  return cut_of(f, NULL) != NULL;
}

int64_t budget_cut_written(const FileResult *f, const TokensPricing *p) {
  FileResult v = *f;

  /* As the answer's last check prices it (budget_settle): the content and pictures, then the
   * markup with each text left out. */
  v.priced = NULL;
  file_result_count_tokens(&v, p);
  return v.tokens + MAX(xml_content_tokens(&v, 0, true), 0);
}

/* f as it would be with its first k pieces (k <= n): a shallow copy, sharing what it keeps. */
static FileResult view(Engine *e, size_t k) {
  FileResult v = *e->c.f;

  g_clear_pointer(&e->c.notice, g_free);
  v.n_images = MIN(e->how->images(&e->c, k), v.n_images);
  if (k < e->c.n) {
    e->c.notice = e->how->notice(&e->c, k);
    v.notice = e->c.notice;
    v.truncated = true;
    e->how->view(&e->c, k, &v);
  }
  return v;
}

static int64_t price(Engine *e, size_t k) {
  FileResult v = view(e, k);

  return budget_cut_written(&v, e->p);
}

/* Makes the cut of k pieces f's own. */
static void commit(Engine *e, size_t k) {
  FileResult *f = e->c.f;

  if (k >= e->c.n)
    return;
  /* The notice first: it may name the first picture left out. */
  g_free(f->notice);
  f->notice = e->how->notice(&e->c, k);
  f->truncated = true;
  while (f->n_images > e->how->images(&e->c, k))
    image_out_clear(&f->images[--f->n_images]);
  e->how->commit(&e->c, k);
}

/* The most bytes of text[0, full) that keep f within room: whole lines by bisection, then, for
 * one line alone, bytes cut on a character's start. */
static size_t fit_text(Engine *e, char *text, size_t full, size_t *len, int64_t room) {
  size_t lo = 0, hi = kind_cut_count_lines(text, full);

  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;

    *len = kind_cut_lines_prefix(text, full, mid);
    if (budget_cut_written(e->c.f, e->p) <= room)
      lo = mid;
    else
      hi = mid - 1;
  }
  *len = kind_cut_lines_prefix(text, full, lo);
  if (lo == 0) {
    size_t blo = 0, bhi = MIN(full, kind_cut_lines_prefix(text, full, 1));

    while (blo < bhi) {
      size_t mid = (blo + bhi + 1) / 2;

      *len = mid;
      if (budget_cut_written(e->c.f, e->p) <= room)
        blo = mid;
      else
        bhi = mid - 1;
    }
    /* On a character's start. */
    while (blo > 0 && ((unsigned char)text[blo] & 0xC0) == 0x80)
      blo--;
    *len = blo;
  }
  return *len;
}

/* The first piece alone is over room: its text keeps the lines that fit (a line at least, cut on
 * a character when it alone is over), and its outputs or notes go; the notice says so. A piece
 * without text (a tile) cannot be cut inside: false. */
static bool cut_first_piece(Engine *e, int64_t room) {
  FileResult *f = e->c.f;
  char *text = NULL;
  size_t *len = NULL;
  bool drop_parts = false;
  g_autofree char *rest = NULL;

  if (!e->how->first_text(&e->c, &text, &len, &drop_parts))
    return false;
  commit(e, 1);
  (void)e->how->first_text(&e->c, &text, &len, &drop_parts);
  if (text == NULL)
    return true;
  if (drop_parts) {
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
  rest = g_strdup_printf("%s[the rest of this %s is over the budget of %" PRId64
                         " tokens and not shown]\n",
                         f->notice != NULL ? f->notice : "", e->c.kind->piece, e->c.budget);
  g_free(f->notice);
  f->notice = g_steal_pointer(&rest);
  f->truncated = true;
  text[fit_text(e, text, *len, len, room)] = '\0';
  return true;
}

bool budget_cut(FileResult *f, int64_t room, int64_t budget, bool keep_one,
                const TokensPricing *p) {
  Engine e = {.c = {.f = f, .budget = budget}, .p = p};
  size_t lo, hi;
  bool fits, kept = false;

  e.how = cut_of(f, &e.c.kind);
  if (e.how == NULL || budget_cut_written(f, p) <= room)
    return true;
  e.c.n = e.how->count(&e.c);
  /* A PDF's outline goes before its first page does: the pages are the document. */
  if (f->outline != NULL && e.c.n > 0 && price(&e, 1) > room)
    g_clear_pointer(&f->outline, g_free);
  /* The most pieces that fit, by bisection: the price grows with them. */
  lo = 0;
  hi = e.c.n;
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;

    if (price(&e, mid) <= room)
      lo = mid;
    else
      hi = mid - 1;
  }
  fits = lo > 0;
  if (fits)
    commit(&e, lo);
  else if (keep_one && e.c.n > 0)
    kept = cut_first_piece(&e, room);
  g_free(e.c.notice);
  g_free(e.c.rows);
  g_free(e.c.sheets);
  if (fits || kept)
    file_result_count_tokens(f, p);
  return fits || kept;
}

int64_t budget_cut_whole(const FileResult *f, const TokensPricing *p, int64_t floor) {
  /* Once: MAX() would write and price the whole element twice. */
  int64_t whole = budget_cut_extrapolate(f, budget_cut_written(f, p));

  return MAX(whole, floor);
}

int64_t budget_cut_extrapolate(const FileResult *f, int64_t written) {
  const KindCut *how = cut_of(f, NULL);
  int64_t shown = 0, all = 0;

  if (how != NULL)
    how->extent(f, &shown, &all);
  if (shown > 0 && all > shown)
    return (int64_t)((double)written * (double)all / (double)shown);
  return written;
}
