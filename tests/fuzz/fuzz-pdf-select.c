/* Fuzz target for PDF page selections: the input is a `pages` value as a client sends it.
 *
 * The two readers of the grammar must agree: read_params_pages_valid (what a request may say,
 * checked alone and through read_params_parse) accepts exactly what pdf_select_parse parses.
 * A parsed selection must be sorted, disjoint and non-adjacent; printed back it must parse to
 * itself; walking it with pdf_select_next must visit as many pages as pdf_select_count_after
 * says, and what pdf_select_format_after prints for the rest must count the same. */
#include <errno.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "basic/pdf-select.h"
#include "ipc/read-params.h"
#include "tests/fuzz/fuzz.h"

/* Validates {"paths": [{"path": "a.pdf", "pages": spec}]} through the whole params reader. */
static bool params_accept(const char *spec) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *error = NULL;
  ReadParams p;
  int r;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "paths");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "path");
  json_builder_add_string_value(b, "a.pdf");
  json_builder_set_member_name(b, "pages");
  json_builder_add_string_value(b, spec);
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_end_object(b);
  node = json_builder_get_root(b);

  read_params_init(&p);
  r = read_params_parse(node, &p, &error);
  fuzz_assert((r == 0) == (error == NULL));
  if (r == 0) {
    fuzz_assert(p.n_paths == 1 && strcmp(p.paths[0].pages, spec) == 0);
  } else {
    fuzz_assert(r == -EINVAL);
    fuzz_assert(strstr(error, "pages") != NULL);
  }
  read_params_clear(&p);
  return r == 0;
}

static void check_normal(const PdfSelection *sel) {
  fuzz_assert(sel->n >= 1);
  for (size_t i = 0; i < sel->n; i++) {
    fuzz_assert(sel->ranges[i].first >= 1);
    fuzz_assert(sel->ranges[i].first <= sel->ranges[i].last);
    if (i > 0)
      fuzz_assert((int64_t)sel->ranges[i - 1].last + 1 < sel->ranges[i].first);
  }
}

/* Walks the pages after `after` of an n_pages document one by one (small documents only). */
static void check_walk(const PdfSelection *sel, int32_t after, int32_t n_pages) {
  int64_t count = pdf_select_count_after(sel, after, n_pages), walked = 0;
  g_autofree char *rest = pdf_select_format_after(sel, after, n_pages);
  PdfSelection again;

  fuzz_assert(count >= 0 && count <= n_pages);
  for (int32_t p = pdf_select_next(sel, after, n_pages); p != 0;
       p = pdf_select_next(sel, p, n_pages)) {
    fuzz_assert(p > after && p <= n_pages);
    walked++;
    fuzz_assert(walked <= count);
  }
  fuzz_assert(walked == count);
  /* What is left, printed closed, selects those same pages. */
  if (count == 0) {
    fuzz_assert(rest[0] == '\0');
    return;
  }
  fuzz_assert(read_params_pages_valid(rest));
  fuzz_assert(pdf_select_parse(rest, &again) == 0);
  fuzz_assert(pdf_select_count_after(&again, 0, n_pages) == count);
  fuzz_assert(pdf_select_count_after(&again, 0, PDF_SELECT_OPEN_END) == count);
  pdf_select_clear(&again);
}

static void check_selection(const PdfSelection *sel) {
  g_autofree char *all = pdf_select_format_after(sel, 0, 0);
  PdfSelection again;
  int32_t page = 0;
  static const int32_t sizes[] = {1, 2, 3, 7, 100, 1000};

  check_normal(sel);
  /* Printed with open ranges left open, it parses back to itself. */
  fuzz_assert(read_params_pages_valid(all));
  fuzz_assert(pdf_select_parse(all, &again) == 0);
  fuzz_assert(again.n == sel->n);
  fuzz_assert(memcmp(again.ranges, sel->ranges, sel->n * sizeof(PdfRange)) == 0);
  pdf_select_clear(&again);

  for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
    int32_t n_pages = sizes[i];
    int r = pdf_select_check(sel, n_pages, &page);

    fuzz_assert(r == 0 || r == -ERANGE);
    fuzz_assert((r == 0) == (sel->ranges[sel->n - 1].first <= n_pages));
    if (r < 0)
      fuzz_assert(page > n_pages);
    check_walk(sel, 0, n_pages);
    check_walk(sel, sel->ranges[0].first, n_pages);
    check_walk(sel, n_pages / 2, n_pages);
  }
  /* Huge documents and page numbers near the top: counts only, no walk. */
  fuzz_assert(pdf_select_next(sel, PDF_SELECT_OPEN_END, PDF_SELECT_OPEN_END) == 0);
  fuzz_assert(pdf_select_count_after(sel, PDF_SELECT_OPEN_END, PDF_SELECT_OPEN_END) == 0);
  g_free(pdf_select_format_after(sel, PDF_SELECT_OPEN_END - 1, PDF_SELECT_OPEN_END));
  g_free(pdf_select_format_after(sel, PDF_SELECT_OPEN_END, 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_autofree char *spec = g_strndup((const char *)data, size); /* stops at a NUL, as JSON does */
  PdfSelection sel;
  bool valid = read_params_pages_valid(spec);
  int r = pdf_select_parse(spec, &sel);

  fuzz_assert(r == 0 || r == -EINVAL);
  fuzz_assert((r == 0) == valid);
  if (g_utf8_validate(spec, -1, NULL))
    fuzz_assert(params_accept(spec) == valid);
  if (r == 0)
    check_selection(&sel);
  else
    fuzz_assert(sel.n == 0 && sel.ranges == NULL);
  pdf_select_clear(&sel);
  return 0;
}
