/* What the PDF worker asks of poppler-glib and cairo: a page's text and form fields, the
 * outline, the document info, a page rendered and encoded. Runs only in the worker process
 * (see pdf-worker.h), never in the daemon: poppler may crash or hang on hostile files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <poppler.h>

#include "daemon/worker/child/pdf-encode.h"

#define PDF_OUTLINE_MAX_ENTRIES 500
#define PDF_OUTLINE_MAX_DEPTH 8
#define PDF_OUTLINE_MAX_BYTES ((size_t)16 * 1024)
#define PDF_FIELDS_MAX 500       /* form fields listed per page */
#define PDF_FIELD_VALUE_MAX 2000 /* bytes of one field's value */
#define PDF_INFO_MAX 512         /* bytes of a title or author */

/* The page's text in reading order, then its form fields (when it has any) under a
 * "[form fields]" line as "label: value" lines. Valid UTF-8 without CR, form feeds or
 * trailing blank lines. g_free the result; never NULL. */
char *pdf_page_text(PopplerPage *page);

/* Characters of s (UTF-8) that are not white space. */
size_t pdf_text_visible_chars(const char *s);

/* The share of the page's area that raster images cover, 0 to 1 (overlaps count twice, the
 * sum is capped at 1). */
double pdf_page_image_coverage(PopplerPage *page);

/* The document outline as indented lines "  Title (page N)", at most PDF_OUTLINE_MAX_ENTRIES
 * entries, PDF_OUTLINE_MAX_DEPTH levels and PDF_OUTLINE_MAX_BYTES; NULL when the document has
 * none. g_free the result. */
char *pdf_outline_text(PopplerDocument *doc);

/* A document info string (poppler_document_get_title or _author's result, which this takes)
 * with its white space collapsed and cut to PDF_INFO_MAX bytes; NULL when empty. */
char *pdf_info_clean(char *s);

/* Renders page so that its long edge is max_dim pixels (less when the encoding does not fit
 * max_bytes at that size: the page is then rendered smaller, down to a quarter) and encodes it
 * (pdf_encode_page). With skip_blank, a page that renders to one colour gives no picture.
 * Returns 0 with *ret, *ret_w, *ret_h set (ret->data NULL for a skipped blank page); -EINVAL
 * when the page has no usable size; -EFBIG when it does not fit; -ENOMEM. */
int pdf_page_render(PopplerPage *page, int max_dim, size_t max_bytes, bool skip_blank,
                    PdfEncoded *ret, int *ret_w, int *ret_h);
