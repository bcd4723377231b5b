#include "daemon/worker/child/pdf-poppler.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <cairo.h>
#include <glib.h>

/* Pages are rendered smaller by this factor when their encoding is over budget. */
#define RENDER_SHRINK 0.7
#define RENDER_MIN_FACTOR 0.25

/* Appends s with CR (alone or before LF) as LF and other controls but tab and LF dropped;
 * invalid UTF-8 becomes U+FFFD. */
static void append_clean(GString *out, const char *s, size_t len) {
  g_autofree char *valid = g_utf8_make_valid(s, (gssize)len);

  for (const char *p = valid; *p != '\0'; p++) {
    unsigned char c = (unsigned char)*p;

    if (c == '\r') {
      if (p[1] != '\n')
        g_string_append_c(out, '\n');
      continue;
    }
    if (c < 0x20 && c != '\t' && c != '\n')
      continue;
    g_string_append_c(out, (char)c);
  }
}

/* Removes trailing white space (blank lines included). */
static void trim_end(GString *gs) {
  while (gs->len > 0 && g_ascii_isspace(gs->str[gs->len - 1]))
    g_string_truncate(gs, gs->len - 1);
}

/* Appends s with runs of white space (newlines too) as one space, cut at `max` bytes on a
 * character boundary. */
static void append_one_line(GString *out, const char *s, size_t max) {
  size_t start = out->len;
  bool space = false;

  for (const char *p = s; *p != '\0'; p = g_utf8_next_char(p)) {
    gunichar c = g_utf8_get_char(p);
    size_t n = (size_t)(g_utf8_next_char(p) - p);

    if (g_unichar_isspace(c) || c < 0x20) {
      space = out->len > start;
      continue;
    }
    if (out->len - start + n + (space ? 1 : 0) > max)
      break;
    if (space)
      g_string_append_c(out, ' ');
    space = false;
    g_string_append_len(out, p, (gssize)n);
  }
}

/* Appends one field's value: text, the state of a check box or radio button, the selected
 * items of a choice. Returns false for fields that hold no value (push buttons). */
static bool append_field_value(GString *out, PopplerFormField *field) {
  g_autofree char *text = NULL;

  switch (poppler_form_field_get_field_type(field)) {
  case POPPLER_FORM_FIELD_TEXT:
    text = poppler_form_field_text_get_text(field);
    append_one_line(out, text != NULL ? text : "", PDF_FIELD_VALUE_MAX);
    return true;
  case POPPLER_FORM_FIELD_BUTTON:
    if (poppler_form_field_button_get_button_type(field) == POPPLER_FORM_BUTTON_PUSH)
      return false;
    g_string_append(out, poppler_form_field_button_get_state(field) ? "checked" : "not checked");
    return true;
  case POPPLER_FORM_FIELD_CHOICE: {
    int n = poppler_form_field_choice_get_n_items(field);
    size_t start = out->len;

    for (int i = 0; i < n && out->len - start < PDF_FIELD_VALUE_MAX; i++) {
      g_autofree char *item = NULL;

      if (!poppler_form_field_choice_is_item_selected(field, i))
        continue;
      item = poppler_form_field_choice_get_item(field, i);
      if (out->len > start)
        g_string_append(out, ", ");
      append_one_line(out, item != NULL ? item : "", PDF_FIELD_VALUE_MAX);
    }
    if (out->len == start && poppler_form_field_choice_is_editable(field)) {
      text = poppler_form_field_choice_get_text(field);
      append_one_line(out, text != NULL ? text : "", PDF_FIELD_VALUE_MAX);
    }
    return true;
  }
  case POPPLER_FORM_FIELD_SIGNATURE:
    g_string_append(out, "(signature field)");
    return true;
  case POPPLER_FORM_FIELD_UNKNOWN:
  default:
    return false;
  }
}

/* Appends "label: value" for one field; the label is its tooltip name, else its full name. */
static bool append_field(GString *out, PopplerFormField *field) {
  g_autofree char *label = poppler_form_field_get_alternate_ui_name(field);
  size_t start = out->len;

  if (label == NULL || *label == '\0') {
    g_free(label);
    label = poppler_form_field_get_name(field);
  }
  append_one_line(out, label != NULL && *label != '\0' ? label : "(unnamed field)", 200);
  g_string_append(out, ": ");
  if (!append_field_value(out, field)) {
    g_string_truncate(out, start);
    return false;
  }
  g_string_append_c(out, '\n');
  return true;
}

/* Appends the page's form fields under a "[form fields]" line, when it has any. */
static void append_fields(GString *out, PopplerPage *page) {
  GList *map = poppler_page_get_form_field_mapping(page);
  size_t header = 0;
  int n = 0;

  for (GList *l = map; l != NULL && n < PDF_FIELDS_MAX; l = l->next) {
    PopplerFormFieldMapping *m = l->data;

    if (n == 0) {
      header = out->len;
      g_string_append(out, out->len > 0 ? "\n\n[form fields]\n" : "[form fields]\n");
    }
    if (append_field(out, m->field))
      n++;
  }
  if (map != NULL && n == 0)
    g_string_truncate(out, header);
  trim_end(out);
  poppler_page_free_form_field_mapping(map);
}

/* The page's text and form fields; see pdf-poppler.h. */
char *pdf_page_text(PopplerPage *page) {
  g_autofree char *raw = poppler_page_get_text(page);
  GString *out = g_string_new(NULL);

  if (raw != NULL)
    append_clean(out, raw, strlen(raw));
  trim_end(out);
  append_fields(out, page);
  return g_string_free(out, FALSE);
}

/* Counts the characters that are not white space; see pdf-poppler.h. */
size_t pdf_text_visible_chars(const char *s) {
  size_t n = 0;

  for (const char *p = s; *p != '\0'; p = g_utf8_next_char(p))
    if (!g_unichar_isspace(g_utf8_get_char(p)))
      n++;
  return n;
}

/* The share of the page that images cover; see pdf-poppler.h. */
double pdf_page_image_coverage(PopplerPage *page) {
  GList *map = poppler_page_get_image_mapping(page);
  double pw = 0, ph = 0, covered = 0;

  poppler_page_get_size(page, &pw, &ph);
  for (GList *l = map; l != NULL; l = l->next) {
    const PopplerRectangle *a = &((PopplerImageMapping *)l->data)->area;
    double x1 = CLAMP(MIN(a->x1, a->x2), 0, pw), x2 = CLAMP(MAX(a->x1, a->x2), 0, pw);
    double y1 = CLAMP(MIN(a->y1, a->y2), 0, ph), y2 = CLAMP(MAX(a->y1, a->y2), 0, ph);

    covered += (x2 - x1) * (y2 - y1);
  }
  poppler_page_free_image_mapping(map);
  if (!(pw > 0 && ph > 0 && isfinite(covered)))
    return 0;
  return MIN(covered / (pw * ph), 1.0);
}

/* The 1-based page an outline entry points to, or 0 when it points nowhere in the document. */
static int outline_page(PopplerDocument *doc, PopplerAction *action) {
  PopplerDest *dest, *found;
  int page;

  if (action == NULL || action->type != POPPLER_ACTION_GOTO_DEST || action->goto_dest.dest == NULL)
    return 0;
  dest = action->goto_dest.dest;
  if (dest->type != POPPLER_DEST_NAMED)
    return dest->page_num;
  found = poppler_document_find_dest(doc, dest->named_dest);
  page = found != NULL ? found->page_num : 0;
  poppler_dest_free(found);
  return page;
}

typedef struct {
  PopplerDocument *doc;
  GString *out;
  int entries;
} Outline;

/* Walks one level of the outline and, depth first, the levels under it. */
static void outline_walk(Outline *o, PopplerIndexIter *iter, int depth) {
  do {
    PopplerAction *action = poppler_index_iter_get_action(iter);
    const char *title = action != NULL && action->any.title != NULL ? action->any.title : "";
    int page = outline_page(o->doc, action);
    PopplerIndexIter *child;

    if (o->entries >= PDF_OUTLINE_MAX_ENTRIES || o->out->len >= PDF_OUTLINE_MAX_BYTES) {
      poppler_action_free(action);
      return;
    }
    o->entries++;
    for (int i = 0; i < depth; i++)
      g_string_append(o->out, "  ");
    append_one_line(o->out, *title != '\0' ? title : "(untitled)", 300);
    if (page > 0)
      g_string_append_printf(o->out, " (page %d)", page);
    g_string_append_c(o->out, '\n');
    poppler_action_free(action);
    child = depth + 1 < PDF_OUTLINE_MAX_DEPTH ? poppler_index_iter_get_child(iter) : NULL;
    if (child != NULL) {
      outline_walk(o, child, depth + 1);
      poppler_index_iter_free(child);
    }
  } while (poppler_index_iter_next(iter));
}

/* The outline as indented text; see pdf-poppler.h. */
char *pdf_outline_text(PopplerDocument *doc) {
  PopplerIndexIter *iter = poppler_index_iter_new(doc);
  Outline o = {.doc = doc, .out = g_string_new(NULL)};

  if (iter != NULL) {
    outline_walk(&o, iter, 0);
    poppler_index_iter_free(iter);
  }
  trim_end(o.out);
  if (o.out->len == 0) {
    g_string_free(o.out, TRUE);
    return NULL;
  }
  return g_string_free(o.out, FALSE);
}

/* Collapses and cuts an info string; see pdf-poppler.h. */
char *pdf_info_clean(char *s) {
  GString *out;

  if (s == NULL)
    return NULL;
  out = g_string_new(NULL);
  if (g_utf8_validate(s, -1, NULL))
    append_one_line(out, s, PDF_INFO_MAX);
  g_free(s);
  if (out->len == 0) {
    g_string_free(out, TRUE);
    return NULL;
  }
  return g_string_free(out, FALSE);
}

/* Renders at a scale and encodes; returns like pdf_page_render. */
static int render_at(PopplerPage *page, double scale, int w, int h, size_t max_bytes,
                     bool skip_blank, PdfEncoded *ret) {
  cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr;
  int r;

  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(s);
    return -ENOMEM;
  }
  cr = cairo_create(s);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_scale(cr, scale, scale);
  poppler_page_render(page, cr);
  cairo_destroy(cr);
  cairo_surface_flush(s);
  if (skip_blank && pdf_encode_is_uniform(cairo_image_surface_get_data(s), w, h,
                                          (size_t)cairo_image_surface_get_stride(s)))
    r = 0; /* *ret stays empty: no picture */
  else
    r = pdf_encode_page(cairo_image_surface_get_data(s), w, h,
                        (size_t)cairo_image_surface_get_stride(s), max_bytes, ret);
  cairo_surface_destroy(s);
  return r;
}

/* Renders and encodes a page to fit max_dim and max_bytes; see pdf-poppler.h. */
int pdf_page_render(PopplerPage *page, int max_dim, size_t max_bytes, bool skip_blank,
                    PdfEncoded *ret, int *ret_w, int *ret_h) {
  double pw = 0, ph = 0, factor = 1.0;
  int r = -EFBIG;

  *ret = (PdfEncoded){0};
  poppler_page_get_size(page, &pw, &ph);
  if (!isfinite(pw) || !isfinite(ph) || pw < 1 || ph < 1 || max_dim < 1)
    return -EINVAL;
  while (r == -EFBIG && factor >= RENDER_MIN_FACTOR) {
    double scale = max_dim * factor / MAX(pw, ph);
    int w = MAX(1, (int)lround(pw * scale)), h = MAX(1, (int)lround(ph * scale));

    r = render_at(page, scale, w, h, max_bytes, skip_blank, ret);
    if (r == 0) {
      *ret_w = w;
      *ret_h = h;
    }
    factor *= RENDER_SHRINK;
  }
  return r;
}
