/* XLSX: each sheet of xl/workbook.xml, in order, as a <Sheet number name rows> section whose
 * text is its rows, one line each: "<row number>: a | b | c", empty cells kept so that columns
 * line up, shared strings resolved. offset/limit pick rows by their number in every sheet, at
 * most OFFICE_MAX_SHEET_ROWS of each, at most OFFICE_MAX_CONTENT bytes in all; a line after
 * the rows says which were left and how to read on. A row longer than the cap, first in the
 * answer, is shown cut with a marker, so that reading on moves past it.
 *
 * Sheets may come before the shared strings in the archive: cells are kept as a string index
 * until the end. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "daemon/readers/office-internal.h"
#include "basic/window.h"

#define ROW_ROOM 512 /* bytes kept free under the cap for the lines after the rows */

#define SST_MAX_BYTES ((size_t)16 * 1024 * 1024) /* shared strings kept */
#define CELL_MAX_BYTES ((size_t)32 * 1024)       /* text kept of one cell */

typedef struct {
  int col;     /* 1-based column */
  int64_t sst; /* shared string index, or -1 when text holds the value */
  char *text;
} XCell;

typedef struct {
  int64_t number;
  GArray *cells; /* XCell */
  size_t bytes;  /* text of its cells */
} XRow;

typedef struct {
  GPtrArray *rows;     /* XRow *, the rows kept */
  int64_t total;       /* rows holding a value */
  int64_t next_number; /* the number of the first row not kept after the kept ones, or 0 */
  int64_t last_number; /* the number of the last row holding a value */
  bool wide;           /* some row had more than OFFICE_MAX_COLUMNS columns */
} XSheet;

typedef struct {
  GPtrArray *names;   /* sheet names, workbook order */
  GPtrArray *rids;    /* their relationship ids */
  GHashTable *sheets; /* part name -> XSheet * */
  GPtrArray *sst;     /* shared strings (NULL past SST_MAX_BYTES) */
  size_t sst_bytes;
  size_t kept_bytes; /* text of the rows kept, every sheet: past OFFICE_MAX_CONTENT none is */
  /* The sheet being parsed. */
  XSheet *cur;
  XRow *row;
  XCell cell;
  char *cell_type;
  GString *value;
  bool in_value;
} Xlsx;

static bool xlsx_wants(const char *name) {
  return strcmp(name, "xl/workbook.xml") == 0 || strcmp(name, "xl/sharedStrings.xml") == 0 ||
         (g_str_has_prefix(name, "xl/worksheets/") && g_str_has_suffix(name, ".xml") &&
          strchr(name + strlen("xl/worksheets/"), '/') == NULL);
}

static void row_free(void *p) {
  XRow *row = p;

  if (row == NULL)
    return;
  for (guint i = 0; i < row->cells->len; i++)
    g_free(g_array_index(row->cells, XCell, i).text);
  g_array_free(row->cells, TRUE);
  g_free(row);
}

static void sheet_free(void *p) {
  XSheet *s = p;

  if (s == NULL)
    return;
  g_ptr_array_free(s->rows, TRUE);
  g_free(s);
}

static Xlsx *xlsx_state(Office *of) {
  Xlsx *x = of->state;

  if (x != NULL)
    return x;
  x = of->state = g_new0(Xlsx, 1);
  x->names = g_ptr_array_new_with_free_func(g_free);
  x->rids = g_ptr_array_new_with_free_func(g_free);
  x->sheets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, sheet_free);
  x->sst = g_ptr_array_new_with_free_func(g_free);
  x->value = g_string_new(NULL);
  return x;
}

/* The column of a cell reference "BC12": 55; 0 when there is none. */
static int column_of(const char *ref) {
  int col = 0;

  for (; ref != NULL && g_ascii_isalpha(*ref) && col <= 16384; ref++)
    col = col * 26 + (g_ascii_toupper(*ref) - 'A' + 1);
  return col;
}

static int workbook_part(Office *of, Xlsx *x, xmlTextReaderPtr r) {
  int rc;

  while ((rc = office_next(of, r)) == 1) {
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT || strcmp(local, "sheet") != 0 ||
        x->names->len >= OFFICE_MAX_ENTRIES)
      continue;
    g_ptr_array_add(x->names, office_attr(r, "name"));
    g_ptr_array_add(x->rids, office_attr(r, "id"));
  }
  return rc < 0 ? -EBADMSG : 0;
}

/* Shared strings: each <si>'s text runs (<t>), phonetic runs (<rPh>) left out. */
static int sst_part(Office *of, Xlsx *x, xmlTextReaderPtr r) {
  GString *si = g_string_new(NULL);
  bool in_t = false, in_rph = false;
  int rc;

  while ((rc = office_next(of, r)) == 1) {
    int type = xmlTextReaderNodeType(r);
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (type == XML_READER_TYPE_ELEMENT && strcmp(local, "si") == 0) {
      g_string_truncate(si, 0);
      if (xmlTextReaderIsEmptyElement(r) == 1)
        g_ptr_array_add(x->sst, g_strdup(""));
    } else if (type == XML_READER_TYPE_ELEMENT && strcmp(local, "rPh") == 0) {
      in_rph = xmlTextReaderIsEmptyElement(r) != 1;
    } else if (type == XML_READER_TYPE_ELEMENT && strcmp(local, "t") == 0) {
      in_t = xmlTextReaderIsEmptyElement(r) != 1;
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "t") == 0) {
      in_t = false;
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "rPh") == 0) {
      in_rph = false;
    } else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "si") == 0) {
      x->sst_bytes += si->len;
      g_ptr_array_add(x->sst, x->sst_bytes <= SST_MAX_BYTES ? g_strndup(si->str, si->len) : NULL);
    } else if (in_t && !in_rph &&
               (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE)) {
      (void)office_append_max(si, (const char *)xmlTextReaderConstValue(r), CELL_MAX_BYTES);
    }
  }
  g_string_free(si, TRUE);
  return rc < 0 ? -EBADMSG : 0;
}

/* The end of a <c>: its value into the row, when it has one. */
static void cell_end(Xlsx *x) {
  XCell c = x->cell;
  const char *t = x->cell_type;

  if (x->value->len == 0 || x->row == NULL)
    return;
  if (c.col > OFFICE_MAX_COLUMNS) {
    x->cur->wide = true;
    return;
  }
  c.sst = -1;
  if (g_strcmp0(t, "s") == 0)
    c.sst = g_ascii_strtoll(x->value->str, NULL, 10);
  else if (g_strcmp0(t, "b") == 0)
    c.text = g_strdup(strcmp(x->value->str, "0") == 0 ? "FALSE" : "TRUE");
  else
    c.text = g_strndup(x->value->str, x->value->len);
  if (c.sst < -1)
    c.sst = -1;
  x->row->bytes += x->value->len + 3;
  g_array_append_val(x->row->cells, c);
}

/* The end of a <row>: counted when it holds a value, kept when it falls in the window. */
static void row_end(Office *of, Xlsx *x) {
  XRow *row = x->row;
  XSheet *s = x->cur;
  int64_t cap = MIN(of->o->limit, (int64_t)OFFICE_MAX_SHEET_ROWS);

  x->row = NULL;
  if (row->cells->len == 0) {
    row_free(row);
    return;
  }
  s->total++;
  s->last_number = row->number;
  /* A row over the cap is kept when it comes first: it is shown cut (put_sheet). */
  if (row->number >= of->o->offset && (int64_t)s->rows->len < cap &&
      (x->kept_bytes + row->bytes <= OFFICE_MAX_CONTENT || x->kept_bytes == 0)) {
    x->kept_bytes += row->bytes;
    g_ptr_array_add(s->rows, row);
    return;
  }
  if (row->number >= of->o->offset && s->next_number == 0)
    s->next_number = row->number;
  row_free(row);
}

static void sheet_start(Office *of, Xlsx *x, xmlTextReaderPtr r, const char *local) {
  if (strcmp(local, "row") == 0) {
    g_autofree char *num = office_attr(r, "r");
    int64_t prev = x->cur->last_number;

    if (x->row != NULL)
      row_free(x->row);
    x->row = g_new0(XRow, 1);
    x->row->cells = g_array_new(FALSE, FALSE, sizeof(XCell));
    x->row->number = num != NULL ? g_ascii_strtoll(num, NULL, 10) : window_add(prev, 1);
    if (x->row->number < 1)
      x->row->number = window_add(prev, 1);
    if (xmlTextReaderIsEmptyElement(r) == 1)
      row_end(of, x);
  } else if (strcmp(local, "c") == 0 && x->row != NULL) {
    g_autofree char *ref = office_attr(r, "r");
    int last = x->row->cells->len > 0
                   ? g_array_index(x->row->cells, XCell, x->row->cells->len - 1).col
                   : 0;

    g_free(x->cell_type);
    x->cell_type = office_attr(r, "t");
    x->cell.col = ref != NULL && column_of(ref) > 0 ? column_of(ref) : last + 1;
    g_string_truncate(x->value, 0);
  } else if (strcmp(local, "v") == 0 || strcmp(local, "t") == 0) {
    x->in_value = xmlTextReaderIsEmptyElement(r) != 1;
  }
}

static int sheet_part(Office *of, Xlsx *x, const char *name, xmlTextReaderPtr r) {
  int rc;

  if (g_hash_table_contains(x->sheets, name))
    return 0;
  x->cur = g_new0(XSheet, 1);
  x->cur->rows = g_ptr_array_new_with_free_func(row_free);
  g_hash_table_insert(x->sheets, g_strdup(name), x->cur);
  while ((rc = office_next(of, r)) == 1) {
    int type = xmlTextReaderNodeType(r);
    const char *local = (const char *)xmlTextReaderConstLocalName(r);

    if (type == XML_READER_TYPE_ELEMENT)
      sheet_start(of, x, r, local);
    else if (type == XML_READER_TYPE_END_ELEMENT &&
             (strcmp(local, "v") == 0 || strcmp(local, "t") == 0))
      x->in_value = false;
    else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "c") == 0)
      cell_end(x);
    else if (type == XML_READER_TYPE_END_ELEMENT && strcmp(local, "row") == 0 && x->row != NULL)
      row_end(of, x);
    else if (x->in_value &&
             (type == XML_READER_TYPE_TEXT || type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE))
      (void)office_append_max(x->value, (const char *)xmlTextReaderConstValue(r),
                              CELL_MAX_BYTES);
  }
  if (x->row != NULL)
    row_free(g_steal_pointer(&x->row));
  x->cur = NULL;
  x->in_value = false;
  return rc < 0 ? -EBADMSG : 0;
}

static int xlsx_part(Office *of, const char *name, xmlTextReaderPtr r) {
  Xlsx *x = xlsx_state(of);

  if (strcmp(name, "xl/workbook.xml") == 0)
    return x->names->len == 0 ? workbook_part(of, x, r) : 0;
  if (strcmp(name, "xl/sharedStrings.xml") == 0)
    return x->sst->len == 0 ? sst_part(of, x, r) : 0;
  return sheet_part(of, x, name, r);
}

/* One row as "<number>: a | b | c", columns from A, shared strings resolved. */
static void put_row(GString *out, const Xlsx *x, const XRow *row) {
  int col = 1;

  g_string_append_printf(out, "%" PRId64 ":", row->number);
  for (guint i = 0; i < row->cells->len; i++) {
    const XCell *c = &g_array_index(row->cells, XCell, i);
    const char *v = c->text;

    if (c->col < col)
      continue; /* out of order: the first value of a column stays */
    for (; col < c->col; col++)
      g_string_append(out, col == 1 ? " " : " | ");
    if (c->sst >= 0)
      v = (guint64)c->sst < x->sst->len ? g_ptr_array_index(x->sst, (guint)c->sst) : NULL;
    g_string_append(out, col == 1 ? " " : " | ");
    if (v != NULL)
      office_put_cell(out, v);
    else if (c->sst >= 0)
      g_string_append(out, "[shared string not loaded]");
    col++;
  }
  g_string_append_c(out, '\n');
}

/* Cuts the one row in text (its line ends with '\n') to max bytes at a character boundary,
 * with a marker saying how much was left out. */
static void cut_row(GString *text, size_t max) {
  size_t n = max - 128, cut;

  while (n > 0 && ((unsigned char)text->str[n] & 0xC0) == 0x80)
    n--;
  cut = text->len - 1 - n;
  g_string_truncate(text, n);
  g_string_append_printf(text, " \u2026 [row cut: %zu more bytes not shown]\n", cut);
}

/* One sheet's section: its rows within the cap, then what was left. */
static void put_sheet(Office *of, const Xlsx *x, SectionOut *sec, const XSheet *s, size_t *used) {
  GString *text = g_string_new(NULL);
  int64_t next = s->next_number;

  for (guint i = 0; i < s->rows->len; i++) {
    const XRow *row = g_ptr_array_index(s->rows, i);
    size_t before = text->len;

    put_row(text, x, row);
    if (*used + text->len + ROW_ROOM <= OFFICE_MAX_CONTENT)
      continue;
    if (i > 0 || *used > 0) {
      g_string_truncate(text, before);
      next = row->number;
      break;
    }
    cut_row(text, OFFICE_MAX_CONTENT - ROW_ROOM);
    of->res->truncated = true;
    next = s->rows->len > 1 ? ((const XRow *)g_ptr_array_index(s->rows, 1))->number : next;
    break;
  }
  *used += text->len;
  if (next > 0) {
    g_string_append_printf(text,
                           "[rows %" PRId64 "-%" PRId64 " of this sheet not shown; read on with "
                           "offset %" PRId64 "]\n",
                           next, s->last_number, next);
    of->res->truncated = true;
  }
  if (s->wide)
    g_string_append_printf(text, "[columns after %d not shown]\n", OFFICE_MAX_COLUMNS);
  sec->text = g_utf8_make_valid(text->str, (gssize)text->len);
  sec->text_len = strlen(sec->text);
  g_string_free(text, TRUE);
}

static int xlsx_finish(Office *of) {
  Xlsx *x = of->state;
  FileResult *res = of->res;
  size_t used = 0;

  if (x == NULL || x->names->len == 0) {
    file_result_fail(res, CODE_CORRUPTED_FILE,
                     "not an XLSX workbook: no sheets in xl/workbook.xml");
    return -EBADMSG;
  }
  res->sections = x->names->len;
  res->truncated = of->o->offset > 1;
  for (guint i = 0; i < x->names->len; i++) {
    const char *rid = g_ptr_array_index(x->rids, i);
    const char *target = rid != NULL ? office_rel(of, "xl/workbook.xml", rid) : NULL;
    g_autofree char *guess = g_strdup_printf("xl/worksheets/sheet%u.xml", i + 1);
    const XSheet *s = g_hash_table_lookup(x->sheets, target != NULL ? target : guess);
    SectionOut *sec = file_result_add_section(res);
    const char *name = g_ptr_array_index(x->names, i);

    sec->element = "Sheet";
    sec->number = i + 1;
    sec->name = g_utf8_make_valid(name != NULL ? name : "", -1);
    if (s == NULL)
      continue;
    sec->rows = s->total;
    put_sheet(of, x, sec, s, &used);
  }
  return 0;
}

static void xlsx_free(void *state) {
  Xlsx *x = state;

  if (x == NULL)
    return;
  g_ptr_array_free(x->names, TRUE);
  g_ptr_array_free(x->rids, TRUE);
  g_hash_table_unref(x->sheets);
  g_ptr_array_free(x->sst, TRUE);
  if (x->row != NULL)
    row_free(x->row);
  g_free(x->cell_type);
  g_string_free(x->value, TRUE);
  g_free(x);
}

const OfficeFormat office_xlsx = {
    .wants = xlsx_wants,
    .part = xlsx_part,
    .finish = xlsx_finish,
    .free = xlsx_free,
};
