/* PPTX: each slide of ppt/presentation.xml, in order, as a <Slide number> section: the text of
 * its shapes paragraph by paragraph (a title as "# Title"), then its speaker notes as a
 * <Notes> part. Slide numbers, dates, footers and the notes page's slide picture are left out.
 * offset/limit pick slides; at most OFFICE_MAX_CONTENT bytes are shown.
 *
 * The order is presentation.xml's sldIdLst, each entry's r:id resolved through
 * ppt/_rels/presentation.xml.rels. Parts come in any order in the zip: a slide's text is kept
 * until the end, at most OFFICE_MAX_CONTENT of each slide or notes page and KEPT_MAX_BYTES in
 * all (when the order is known before a slide comes, only the slides of the window are kept).
 * Every slide is counted, kept or not; a slide whose text was not kept or was cut says so. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/readers/office-internal.h"
#include "basic/window.h"

#define KEPT_MAX_BYTES (OFFICE_MAX_CONTENT * 4) /* text kept of every slide and notes page */

typedef struct {
  GPtrArray *rids;   /* slide relationship ids, presentation order */
  GHashTable *texts; /* part name -> its text */
  GHashTable *seen;  /* every slide part read, kept or not */
  GHashTable *at;    /* slide part -> its 1-based position, once the list can be resolved */
  size_t kept;       /* bytes in texts */
} Pptx;

#define SLIDE_NOT_KEPT                                                                         \
  "[the text of this slide was not kept: the presentation holds more than 1 MiB of text]\n"
#define SLIDE_CUT "[the rest of this slide's text is not shown: it is over 256 KiB]\n"

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
  p->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  return p;
}

static int presentation_part(Office *of, Pptx *p, xmlTextReaderPtr r) {
  int rc;

  while ((rc = office_next(of, r)) == 1) {
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT && strcmp(local, "sldId") == 0 &&
        p->rids->len < OFFICE_MAX_ENTRIES)
      g_ptr_array_add(p->rids, office_rel_id(r));
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

/* The position of a slide part in the presentation, 1-based, when presentation.xml and its
 * relationships were read before it; 0 when not known yet or not a slide of the list. The
 * positions are looked up once, when the first entry of the list resolves. */
static int64_t slide_position(const Office *of, Pptx *p, const char *name) {
  const char *rid = p->rids->len > 0 ? g_ptr_array_index(p->rids, 0) : NULL;

  if (p->at == NULL && (rid == NULL || office_rel(of, "ppt/presentation.xml", rid) == NULL))
    return 0;
  if (p->at == NULL) {
    p->at = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (guint i = p->rids->len; i > 0; i--) {
      const char *id = g_ptr_array_index(p->rids, i - 1);
      const char *target = id != NULL ? office_rel(of, "ppt/presentation.xml", id) : NULL;

      /* Walked backwards: of two entries naming the same slide, the first wins. */
      if (target != NULL)
        g_hash_table_insert(p->at, g_strdup(target), GINT_TO_POINTER((gint)i));
    }
  }
  return GPOINTER_TO_INT(g_hash_table_lookup(p->at, name));
}

/* Whether a part's text is worth keeping: not a slide known to be out of the window. */
static bool part_wanted(const Office *of, Pptx *p, const char *name) {
  int64_t at = g_str_has_prefix(name, "ppt/slides/") ? slide_position(of, p, name) : 0;

  return at == 0 || (at >= of->o->offset && at <= window_last(of->o->offset, of->o->limit));
}

/* A slide's or notes page's text: one line per paragraph that has some, at most
 * OFFICE_MAX_CONTENT bytes, then a line saying the rest was cut. */
static int text_part(Office *of, Pptx *p, const char *name, xmlTextReaderPtr r) {
  GString *text = g_string_new(NULL), *para = g_string_new(NULL);
  const size_t max = OFFICE_MAX_CONTENT - sizeof SLIDE_CUT;
  size_t cut = 0;
  Shape sh = {0};
  int rc;

  if (g_hash_table_size(p->seen) < OFFICE_MAX_ENTRIES)
    g_hash_table_add(p->seen, g_strdup(name));

  while ((rc = office_next(of, r)) == 1) {
    int type = xmlTextReaderNodeType(r);
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (type == XML_READER_TYPE_ELEMENT) {
      shape_start(&sh, r, local, para);
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "t") == 0) {
      sh.in_t = false;
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "p") == 0) {
      if (!sh.skip && para->len > 0) {
        cut += office_append_max(text, sh.title ? "# " : "", max);
        cut += office_append_max(text, para->str, max);
        cut += office_append_max(text, "\n", max);
      }
      g_string_truncate(para, 0);
    } else if (sh.in_t && !sh.skip &&
               (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE)) {
      cut += office_append_max(para, (const char *)xmlTextReaderConstValue(r), max);
    }
  }
  if (cut > 0) {
    if (text->len > 0 && text->str[text->len - 1] != '\n')
      g_string_append_c(text, '\n');
    g_string_append(text, SLIDE_CUT);
  }
  if (rc >= 0 && p->kept + text->len <= KEPT_MAX_BYTES && !g_hash_table_contains(p->texts, name) &&
      part_wanted(of, p, name)) {
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
  g_hash_table_iter_init(&it, p->seen);
  while (g_hash_table_iter_next(&it, &key, NULL))
    if (slide_file_number(key) > 0)
      g_ptr_array_add(order, g_strdup(key));
  g_ptr_array_sort(order, by_slide_number);
  return order;
}

/* A copy of a kept text that is valid UTF-8; for a part that was read but not kept, a line
 * saying so. */
static char *valid_text(Pptx *p, const char *name, size_t *ret_len) {
  const char *text = name != NULL ? g_hash_table_lookup(p->texts, name) : NULL;
  char *valid;

  if (text == NULL && name != NULL && g_hash_table_contains(p->seen, name))
    text = SLIDE_NOT_KEPT;
  valid = g_utf8_make_valid(text != NULL ? text : "", -1);

  *ret_len = strlen(valid);
  return valid;
}

/* Cuts a text to at most max bytes at a character boundary, ending it with SLIDE_CUT. */
static void cut_text(char *text, size_t *len, size_t max) {
  size_t n;

  if (*len <= max)
    return;
  if (max < sizeof SLIDE_CUT) {
    text[0] = '\0';
    *len = 0;
    return;
  }
  n = max > sizeof SLIDE_CUT ? max - sizeof SLIDE_CUT : 0;
  while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
    n--;
  /* SLIDE_CUT is shorter than the bytes cut: it fits in place. */
  if (n + sizeof SLIDE_CUT <= *len) {
    memcpy(text + n, SLIDE_CUT, sizeof SLIDE_CUT);
    *len = n + sizeof SLIDE_CUT - 1;
  }
}

/* Slide i (1-based) as a section, its notes as a part. Returns the bytes it adds, or 0 when
 * it would take the answer past OFFICE_MAX_CONTENT (used so far) and is not the first. */
static size_t put_slide(Office *of, Pptx *p, const char *slide, int64_t i, size_t used) {
  const char *notes = office_rel(of, slide, "notesSlide");
  size_t text_len = 0, notes_len = 0;
  char *text = valid_text(p, slide, &text_len), *notes_text = valid_text(p, notes, &notes_len);
  SectionOut *sec;

  if (used > 0 && used + text_len + notes_len > OFFICE_MAX_CONTENT) {
    g_free(text);
    g_free(notes_text);
    return 0;
  }
  /* The first slide shown is cut to the cap, its notes first. */
  cut_text(text, &text_len, OFFICE_MAX_CONTENT);
  cut_text(notes_text, &notes_len, OFFICE_MAX_CONTENT - text_len);
  sec = file_result_add_section(of->res);
  sec->element = "Slide";
  sec->number = i;
  sec->text = text;
  sec->text_len = text_len;
  if (notes_len > 0) {
    SectionPart *part = section_add_part(sec);

    part->element = "Notes";
    part->text = notes_text;
    part->text_len = notes_len;
  } else {
    g_free(notes_text);
  }
  return MAX(text_len + notes_len, (size_t)1);
}

static int pptx_finish(Office *of) {
  Pptx *p = of->state;
  FileResult *res = of->res;
  g_autoptr(GPtrArray) order = NULL;
  int64_t n, first = of->o->offset, last, i;
  size_t used = 0, added;

  if (p == NULL) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a PPTX presentation: no slides");
    return -EBADMSG;
  }
  order = slide_order(of, p);
  n = (int64_t)order->len;
  last = MIN(window_last(first, of->o->limit), n);
  res->sections = n;
  for (i = first; i <= last; i++) {
    added = put_slide(of, p, g_ptr_array_index(order, (guint)(i - 1)), i, used);
    if (added == 0)
      break;
    used += added;
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
  g_hash_table_unref(p->seen);
  if (p->at != NULL)
    g_hash_table_unref(p->at);
  g_free(p);
}

const OfficeFormat office_pptx = {
    .wants = pptx_wants,
    .part = pptx_part,
    .finish = pptx_finish,
    .free = pptx_free,
};
