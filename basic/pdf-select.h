/* PDF page selections ("3", "2-5", "1,28-"): parsed, checked against a page count, walked,
 * and printed back for continuation notices. Pure: no I/O, no poppler. The one home of the
 * grammar: the `pages` param is validated with pdf_select_parse() too. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PDF_SELECT_OPEN_END INT32_MAX /* `last` of an open range such as "28-" */

typedef struct {
  int32_t first; /* 1-based, first <= last */
  int32_t last;  /* PDF_SELECT_OPEN_END when the range runs to the end of the document */
} PdfRange;

/* A set of pages as ascending, disjoint, non-adjacent ranges. */
typedef struct {
  PdfRange *ranges; /* owned */
  size_t n;
} PdfSelection;

/* Parses spec (the syntax of read_params_pages_valid: comma-separated "N", "N-M", "N-", spaces
 * allowed around items) into *ret, sorted and merged: "5,1-3,2" is 1-3,5. spec NULL selects
 * every page ("1-"). Returns 0, or -EINVAL (with *ret empty) when spec is not valid. */
int pdf_select_parse(const char *spec, PdfSelection *ret);

/* Checks sel against a document of n_pages pages: every item must start on a page that exists;
 * a range may run past the end and is then cut there ("28-40" of 30 pages shows 28-30).
 * Returns 0, or -ERANGE with *ret_page the first selected page beyond the document. */
int pdf_select_check(const PdfSelection *sel, int32_t n_pages, int32_t *ret_page);

/* The first selected page after `after` (0 for the first of all) that is <= n_pages, or 0
 * when there is none. */
int32_t pdf_select_next(const PdfSelection *sel, int32_t after, int32_t n_pages);

/* How many selected pages after `after` are <= n_pages. */
int64_t pdf_select_count_after(const PdfSelection *sel, int32_t after, int32_t n_pages);

/* The selected pages after `after` as a selection string, g_malloc'd. With n_pages > 0 the
 * ranges are cut at n_pages and written closed ("21-30", for telling a user what is left);
 * with n_pages 0 open ranges stay open ("21-", for a pages= value that reads on). Returns ""
 * (g_malloc'd) when nothing is left. */
char *pdf_select_format_after(const PdfSelection *sel, int32_t after, int32_t n_pages);

/* Releases the ranges and empties sel; NULL is fine. */
void pdf_select_clear(PdfSelection *sel);
