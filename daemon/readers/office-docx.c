/* DOCX: word/document.xml as lines of text. A paragraph is a line; a heading starts with one
 * '#' per level ("# Title"), a list item with "- " indented two spaces per level; a table row
 * is one line "| a | b |", the paragraphs of a cell joined by spaces. offset/limit pick lines;
 * at most OFFICE_MAX_CONTENT bytes are shown. A paragraph longer than DOCX_LINE_MAX goes on in
 * the next line (the text is streamed there, never held whole), each cut line ending with a
 * marker, so that reading on with offset reaches all of it; a table row that long is cut with
 * a marker saying how much was left out. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "daemon/readers/office-internal.h"
#include "basic/window.h"

/* Bytes of one line: room is left under the content cap for a heading or list mark and the
 * marker, so that one line always fits. */
#define DOCX_LINE_MAX (OFFICE_MAX_CONTENT - 4096)
#define DOCX_GOES_ON " \u2026 [the paragraph goes on in the next line]"

typedef struct {
  GString *shown; /* the lines kept */
  int64_t lines;  /* lines seen */
  int64_t first;  /* first and last line kept */
  int64_t last;
  bool full;       /* the content cap was reached */
  GString *para;   /* the paragraph being read */
  GString *prefix; /* its heading or list mark */
  GString *row;    /* the table row being read, "| a | b" */
  GString *cell;   /* the table cell being read */
  int table;       /* depth of tables */
  bool in_text;    /* inside <w:t> */
  bool in_run;     /* inside <w:r> (a <w:tab> outside one is a tab stop, not a character) */
  bool blank;      /* the last line was empty */
  size_t row_cut;  /* bytes of the table row being read left out */
} Docx;

static bool docx_wants(const char *name) {
  return strcmp(name, "word/document.xml") == 0;
}

/* One line of output: counted, and kept when it falls in the window and the cap. */
static void docx_line(Office *of, Docx *d, const char *s, size_t len) {
  int64_t n;

  /* Runs of empty paragraphs read as one empty line. */
  if (len == 0 && (d->blank || d->lines == 0))
    return;
  d->blank = len == 0;
  n = ++d->lines;
  if (n < of->o->offset || n > window_last(of->o->offset, of->o->limit) || d->full)
    return;
  if (d->shown->len + len + 1 > OFFICE_MAX_CONTENT && d->first > 0) {
    d->full = true;
    return;
  }
  g_string_append_len(d->shown, s, (gssize)len);
  g_string_append_c(d->shown, '\n');
  if (d->first == 0)
    d->first = n;
  d->last = n;
}

/* Heading level of a paragraph style id: "Heading1" .. "Heading9", "Title" 1; else 0. */
static int heading_level(const char *style) {
  if (style == NULL)
    return 0;
  if (g_ascii_strcasecmp(style, "Title") == 0)
    return 1;
  if (g_ascii_strncasecmp(style, "Heading", 7) == 0 && g_ascii_isdigit(style[7]))
    return style[7] - '0' > 0 ? style[7] - '0' : 1;
  return 0;
}

/* The paragraph read so far as lines: all of it at its end, or, when `goes_on`, the part read
 * before it grew past DOCX_LINE_MAX, its last line marked as going on in the next. */
static void docx_put_para(Office *of, Docx *d, bool goes_on) {
  /* Trailing spaces say nothing; a heading's or list item's leading ones neither. */
  while (!goes_on && d->para->len > 0 && g_ascii_isspace(d->para->str[d->para->len - 1]))
    g_string_truncate(d->para, d->para->len - 1);
  if (d->para->len > 0 && d->prefix->len > 0) {
    size_t lead = 0;

    while (lead < d->para->len && g_ascii_isspace(d->para->str[lead]))
      lead++;
    g_string_erase(d->para, 0, (gssize)lead);
    g_string_prepend(d->para, d->prefix->str);
  }
  if (goes_on)
    g_string_append(d->para, DOCX_GOES_ON);
  /* A line break inside a paragraph makes more lines. */
  for (char *p = d->para->str, *nl; p != NULL; p = nl != NULL ? nl + 1 : NULL) {
    nl = strchr(p, '\n');
    docx_line(of, d, p, nl != NULL ? (size_t)(nl - p) : strlen(p));
  }
  /* What comes after a cut is the same paragraph: no mark again. */
  g_string_truncate(d->para, 0);
  g_string_truncate(d->prefix, 0);
}

/* The end of a paragraph: a line of its own, or part of a table cell. */
static void docx_paragraph(Office *of, Docx *d) {
  if (d->table > 0) {
    if (d->cell->len > 0 && d->para->len > 0 && d->cell->len < DOCX_LINE_MAX)
      g_string_append_c(d->cell, ' ');
    d->row_cut += office_append_max(d->cell, d->para->str, DOCX_LINE_MAX);
    return;
  }
  docx_put_para(of, d, false);
}

/* Text of a <w:t>: into the paragraph; outside a table, a paragraph that grows past
 * DOCX_LINE_MAX is written out as a line that goes on in the next, and reading goes on. */
static void docx_text(Office *of, Docx *d, const char *v) {
  size_t len = strlen(v), left;

  if (d->table > 0) {
    d->row_cut += office_append_max(d->para, v, DOCX_LINE_MAX);
    return;
  }
  while ((left = office_append_max(d->para, v, DOCX_LINE_MAX)) > 0) {
    v += len - left;
    len = left;
    docx_put_para(of, d, true);
  }
}

/* The end of a table row: one line, cut with a marker past DOCX_LINE_MAX. */
static void docx_row(Office *of, Docx *d) {
  g_string_append_c(d->row, '|');
  if (d->row->len > DOCX_LINE_MAX) {
    size_t n = DOCX_LINE_MAX;

    while (n > 0 && ((unsigned char)d->row->str[n] & 0xC0) == 0x80)
      n--;
    d->row_cut += d->row->len - n;
    g_string_truncate(d->row, n);
  }
  if (d->row_cut > 0)
    g_string_append_printf(d->row, " \u2026 [row cut: %zu more bytes not shown]", d->row_cut);
  docx_line(of, d, d->row->str, d->row->len);
}

static void docx_start(Office *of, Docx *d, xmlTextReaderPtr r, const char *name, bool empty) {
  if (strcmp(name, "p") == 0) {
    g_string_truncate(d->para, 0);
    g_string_truncate(d->prefix, 0);
  } else if (strcmp(name, "pStyle") == 0) {
    g_autofree char *style = office_attr(r, "val");
    int level = heading_level(style);

    if (level > 0 && d->prefix->len == 0) {
      for (int i = 0; i < level; i++)
        g_string_append_c(d->prefix, '#');
      g_string_append_c(d->prefix, ' ');
    }
  } else if (strcmp(name, "ilvl") == 0) {
    g_autofree char *lvl = office_attr(r, "val");
    int64_t level = lvl != NULL ? g_ascii_strtoll(lvl, NULL, 10) : 0;

    g_string_truncate(d->prefix, 0);
    for (int64_t i = 0; i < level && i < 9; i++)
      g_string_append(d->prefix, "  ");
    g_string_append(d->prefix, "- ");
  } else if (strcmp(name, "numPr") == 0 && d->prefix->len == 0) {
    g_string_append(d->prefix, "- ");
  } else if (strcmp(name, "t") == 0) {
    d->in_text = !empty;
  } else if (strcmp(name, "r") == 0) {
    d->in_run = !empty;
  } else if (strcmp(name, "tab") == 0 && d->in_run) {
    docx_text(of, d, "\t");
  } else if (strcmp(name, "br") == 0 || strcmp(name, "cr") == 0) {
    docx_text(of, d, "\n");
  } else if (strcmp(name, "tbl") == 0) {
    d->table++;
  } else if (strcmp(name, "tr") == 0 && d->table == 1) {
    g_string_truncate(d->row, 0);
    d->row_cut = 0;
  } else if (strcmp(name, "tc") == 0 && d->table == 1) {
    g_string_truncate(d->cell, 0);
  }
}

static void docx_end(Office *of, Docx *d, const char *name) {
  if (strcmp(name, "t") == 0) {
    d->in_text = false;
  } else if (strcmp(name, "r") == 0) {
    d->in_run = false;
  } else if (strcmp(name, "p") == 0) {
    docx_paragraph(of, d);
  } else if (strcmp(name, "tc") == 0 && d->table == 1 && d->row->len > DOCX_LINE_MAX) {
    d->row_cut += d->cell->len;
  } else if (strcmp(name, "tc") == 0 && d->table == 1) {
    g_string_append(d->row, "| ");
    office_put_cell(d->row, d->cell->str);
    g_string_append_c(d->row, ' ');
  } else if (strcmp(name, "tr") == 0 && d->table == 1) {
    docx_row(of, d);
  } else if (strcmp(name, "tbl") == 0 && d->table > 0) {
    d->table--;
  }
}

static int docx_part(Office *of, const char *name, xmlTextReaderPtr r) {
  Docx *d;
  int rc;

  /* A second word/document.xml (a crafted archive) is not read. */
  if (of->state != NULL)
    return 0;
  d = of->state = g_new0(Docx, 1);
  d->shown = g_string_new(NULL);
  d->para = g_string_new(NULL);
  d->prefix = g_string_new(NULL);
  d->row = g_string_new(NULL);
  d->cell = g_string_new(NULL);
  while ((rc = office_next(of, r)) == 1) {
    int type = xmlTextReaderNodeType(r);
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (type == XML_READER_TYPE_ELEMENT) {
      bool empty = xmlTextReaderIsEmptyElement(r) == 1;

      docx_start(of, d, r, local, empty);
      if (empty && strcmp(local, "p") == 0)
        docx_paragraph(of, d);
    } else if (type == XML_READER_TYPE_END_ELEMENT) {
      docx_end(of, d, local);
    } else if (d->in_text &&
               (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE ||
                type == XML_READER_TYPE_CDATA)) {
      const char *v = (const char *)xmlTextReaderConstValue(r);

      if (v != NULL)
        docx_text(of, d, v);
    }
  }
  return rc < 0 ? -EBADMSG : 0;
}

static int docx_finish(Office *of) {
  Docx *d = of->state;
  FileResult *res = of->res;

  if (d == NULL) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a DOCX document: no word/document.xml");
    return -EBADMSG;
  }
  res->lines = d->lines; /* what a cut to a budget counts its lines from */
  res->shown_first = d->first;
  res->shown_last = d->last;
  res->truncated = d->first > 1 || d->last < d->lines;
  if (d->first == 0 && of->o->offset > 1)
    res->notice = g_strdup_printf("[offset %" PRId64
                                  " is past the last line: the document has %" PRId64 " lines]",
                                  of->o->offset, d->lines);
  else if (d->last < d->lines)
    res->notice = g_strdup_printf("[lines %" PRId64 "-%" PRId64 " of %" PRId64
                                  " not shown; read on with offset %" PRId64 "]",
                                  d->last + 1, d->lines, d->lines, d->last + 1);
  res->content_len = d->shown->len;
  res->content = g_utf8_make_valid(d->shown->str, (gssize)d->shown->len);
  res->content_len = strlen(res->content);
  return 0;
}

static void docx_free(void *state) {
  Docx *d = state;

  if (d == NULL)
    return;
  g_string_free(d->shown, TRUE);
  g_string_free(d->para, TRUE);
  g_string_free(d->prefix, TRUE);
  g_string_free(d->row, TRUE);
  g_string_free(d->cell, TRUE);
  g_free(d);
}

const OfficeFormat office_docx = {
    .wants = docx_wants,
    .part = docx_part,
    .finish = docx_finish,
    .free = docx_free,
};
