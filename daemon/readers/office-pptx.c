/* PPTX: each slide of ppt/presentation.xml, in order, as a <Slide number> section: the text of
 * its shapes paragraph by paragraph (a title as "# Title"), then its speaker notes as a
 * <Notes> part. Slide numbers, dates, footers and the notes page's slide picture are left out.
 * offset/limit pick slides; at most OFFICE_MAX_CONTENT bytes are shown. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/readers/office-internal.h"

#define KEPT_MAX_BYTES (OFFICE_MAX_CONTENT * 4) /* text kept of every slide and notes page */

typedef struct {
  GPtrArray *rids;   /* slide relationship ids, presentation order */
  GHashTable *texts; /* part name -> its text */
  size_t kept;       /* bytes in texts */
} Pptx;

static bool pptx_wants(const char *name) {
  const char *const dirs[] = {"ppt/slides/", "ppt/notesSlides/"};

  if (strcmp(name, "ppt/presentation.xml") == 0)
    return true;
  for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++)
    if (g_str_has_prefix(name, dirs[i]) && g_str_has_suffix(name, ".xml") &&
        strchr(name + strlen(dirs[i]), '/') == NULL)
      return true;
  return false;
}

static Pptx *pptx_state(Office *of) {
  Pptx *p = of->state;

  if (p != NULL)
    return p;
  p = of->state = g_new0(Pptx, 1);
  p->rids = g_ptr_array_new_with_free_func(g_free);
  p->texts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  return p;
}

static int presentation_part(Office *of, Pptx *p, xmlTextReaderPtr r) {
  int rc;

  while ((rc = office_next(of, r)) == 1) {
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT && strcmp(local, "sldId") == 0 &&
        p->rids->len < OFFICE_MAX_ENTRIES)
      g_ptr_array_add(p->rids, office_attr(r, "id"));
  }
  return rc < 0 ? -EBADMSG : 0;
}

/* Placeholders whose text is not the slide's own: numbers, dates, footers, headers. */
static bool placeholder_skipped(const char *type) {
  static const char *const skipped[] = {"sldNum", "dt", "ftr", "hdr", "sldImg"};

  for (size_t i = 0; type != NULL && i < G_N_ELEMENTS(skipped); i++)
    if (strcmp(type, skipped[i]) == 0)
      return true;
  return false;
}

/* State of one shape while its text is read. */
typedef struct {
  bool skip;  /* a placeholder left out */
  bool title; /* a title placeholder: its paragraphs start with "# " */
  bool in_t;
} Shape;

static void shape_start(Shape *sh, xmlTextReaderPtr r, const char *local, GString *para) {
  if (strcmp(local, "sp") == 0 || strcmp(local, "graphicFrame") == 0) {
    *sh = (Shape){0};
  } else if (strcmp(local, "ph") == 0) {
    g_autofree char *type = office_attr(r, "type");

    sh->skip = placeholder_skipped(type);
    sh->title = g_strcmp0(type, "title") == 0 || g_strcmp0(type, "ctrTitle") == 0;
  } else if (strcmp(local, "p") == 0) {
    g_string_truncate(para, 0);
  } else if (strcmp(local, "t") == 0) {
    sh->in_t = xmlTextReaderIsEmptyElement(r) != 1;
  } else if (strcmp(local, "br") == 0) {
    g_string_append_c(para, '\n');
  }
}

/* A slide's or notes page's text: one line per paragraph that has some. */
static int text_part(Office *of, Pptx *p, const char *name, xmlTextReaderPtr r) {
  GString *text = g_string_new(NULL), *para = g_string_new(NULL);
  Shape sh = {0};
  int rc;

  while ((rc = office_next(of, r)) == 1) {
    int type = xmlTextReaderNodeType(r);
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (type == XML_READER_TYPE_ELEMENT) {
      shape_start(&sh, r, local, para);
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "t") == 0) {
      sh.in_t = false;
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "p") == 0) {
      if (!sh.skip && para->len > 0 && text->len < OFFICE_MAX_CONTENT) {
        g_string_append_printf(text, "%s%s\n", sh.title ? "# " : "", para->str);
      }
      g_string_truncate(para, 0);
    } else if (sh.in_t && !sh.skip &&
               (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE) &&
               para->len < OFFICE_MAX_CONTENT) {
      g_string_append(para, (const char *)xmlTextReaderConstValue(r));
    }
  }
  if (rc >= 0 && p->kept + text->len <= KEPT_MAX_BYTES && !g_hash_table_contains(p->texts, name)) {
    p->kept += text->len;
    g_hash_table_insert(p->texts, g_strdup(name), g_string_free(g_steal_pointer(&text), FALSE));
  }
  if (text != NULL)
    g_string_free(text, TRUE);
  g_string_free(para, TRUE);
  return rc < 0 ? -EBADMSG : 0;
}

static int pptx_part(Office *of, const char *name, xmlTextReaderPtr r) {
  Pptx *p = pptx_state(of);

  if (strcmp(name, "ppt/presentation.xml") == 0)
    return p->rids->len == 0 ? presentation_part(of, p, r) : 0;
  return text_part(of, p, name, r);
}

/* The number in "ppt/slides/slide12.xml": 12. */
static int64_t slide_file_number(const char *name) {
  const char *digits = name + strlen("ppt/slides/slide");

  return g_str_has_prefix(name, "ppt/slides/slide") ? g_ascii_strtoll(digits, NULL, 10) : 0;
}

static gint by_slide_number(gconstpointer a, gconstpointer b) {
  int64_t x = slide_file_number(*(const char *const *)a);
  int64_t y = slide_file_number(*(const char *const *)b);

  return x < y ? -1 : x > y;
}

/* The slides' part names in presentation order; without presentation.xml or its relationships,
 * the slide files by their numbers. */
static GPtrArray *slide_order(Office *of, Pptx *p) {
  GPtrArray *order = g_ptr_array_new_with_free_func(g_free);
  GHashTableIter it;
  gpointer key;

  for (guint i = 0; i < p->rids->len; i++) {
    const char *rid = g_ptr_array_index(p->rids, i);
    const char *target = rid != NULL ? office_rel(of, "ppt/presentation.xml", rid) : NULL;

    if (target != NULL)
      g_ptr_array_add(order, g_strdup(target));
  }
  if (order->len > 0)
    return order;
  g_hash_table_iter_init(&it, p->texts);
  while (g_hash_table_iter_next(&it, &key, NULL))
    if (slide_file_number(key) > 0)
      g_ptr_array_add(order, g_strdup(key));
  g_ptr_array_sort(order, by_slide_number);
  return order;
}

/* Moves a kept text into a new string that is valid UTF-8. */
static char *valid_text(Pptx *p, const char *name, size_t *ret_len) {
  const char *text = name != NULL ? g_hash_table_lookup(p->texts, name) : NULL;
  char *valid = g_utf8_make_valid(text != NULL ? text : "", -1);

  *ret_len = strlen(valid);
  return valid;
}

static int pptx_finish(Office *of) {
  Pptx *p = of->state;
  FileResult *res = of->res;
  g_autoptr(GPtrArray) order = NULL;
  int64_t n, first = of->o->offset, last, i;
  size_t used = 0;

  if (p == NULL) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a PPTX presentation: no slides");
    return -EBADMSG;
  }
  order = slide_order(of, p);
  n = (int64_t)order->len;
  last = first + of->o->limit - 1 < n ? first + of->o->limit - 1 : n;
  res->sections = n;
  for (i = first; i <= last && (i == first || used < OFFICE_MAX_CONTENT); i++) {
    const char *slide = g_ptr_array_index(order, (guint)(i - 1));
    const char *notes = office_rel(of, slide, "notesSlide");
    SectionOut *sec = file_result_add_section(res);
    size_t notes_len = 0;
    char *notes_text = valid_text(p, notes, &notes_len);

    sec->element = "Slide";
    sec->number = i;
    sec->text = valid_text(p, slide, &sec->text_len);
    used += sec->text_len + notes_len;
    if (notes_len > 0) {
      SectionPart *part = section_add_part(sec);

      part->element = "Notes";
      part->text = notes_text;
      part->text_len = notes_len;
    } else {
      g_free(notes_text);
    }
  }
  if (first > n)
    res->notice = g_strdup_printf("[offset %" PRId64 " is past the last slide: the presentation "
                                  "has %" PRId64 " slides]",
                                  first, n);
  else {
    res->shown_first = first;
    res->shown_last = i - 1;
  }
  res->truncated = first > 1 || i - 1 < n;
  if (first <= n && i - 1 < n)
    res->notice = g_strdup_printf("[slides %" PRId64 "-%" PRId64 " of %" PRId64
                                  " not shown; read on with offset %" PRId64 "]",
                                  i, n, n, i);
  return 0;
}

static void pptx_free(void *state) {
  Pptx *p = state;

  if (p == NULL)
    return;
  g_ptr_array_free(p->rids, TRUE);
  g_hash_table_unref(p->texts);
  g_free(p);
}

const OfficeFormat office_pptx = {
    .wants = pptx_wants,
    .part = pptx_part,
    .finish = pptx_finish,
    .free = pptx_free,
};
