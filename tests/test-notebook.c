/* Unit tests of the notebook reader (daemon/readers/notebook.c): the notebook in
 * tests/data/notebook/ (markdown, code, stream output, an error with ANSI colours, a PNG
 * output, a raw cell) and notebooks written here, through notebook_parse() with a picture hook
 * that records what it is given. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <glib.h>

#include "daemon/readers/notebook.h"
#include "tests/lib/check-run.h"

/* The hook: appends a fake image that records the bytes' size, or refuses when told to. */
typedef struct {
  int calls;
  size_t last_len;
  bool refuse;
} Hook;

static int hook_cb(void *ctx, const char *media_type, const uint8_t *data, size_t len,
                   FileResult *res, char **ret_error) {
  Hook *h = ctx;
  ImageOut *img;

  h->calls++;
  h->last_len = len;
  if (h->refuse) {
    *ret_error = g_strdup("CORRUPTED_FILE: damaged");
    return -EBADMSG;
  }
  img = file_result_add_image(res);
  img->media_type = g_strdup(media_type);
  img->data = g_base64_encode(data, len);
  img->data_len = strlen(img->data);
  img->width = img->height = 1;
  return 0;
}

static char *fixture_text(gsize *ret_len) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *path = NULL;
  char *data = NULL;

  ck_assert_msg(root != NULL, "env READERD_SOURCE_ROOT is not set");
  path = g_build_filename(root, "tests", "data", "notebook", "analysis.ipynb", NULL);
  ck_assert(g_file_get_contents(path, &data, ret_len, NULL));
  return data;
}

static int parse(const char *json, size_t len, int64_t offset, int64_t limit, Hook *h,
                 FileResult *res) {
  NotebookOptions o = {.offset = offset,
                       .limit = limit,
                       .max_image_bytes = 1 << 20,
                       .image = h != NULL ? hook_cb : NULL,
                       .image_ctx = h};
  int r;

  memset(res, 0, sizeof *res);
  r = notebook_parse(json, len, &o, res);
  ck_assert_int_eq(r == 0, res->code == NULL);
  ck_assert_int_eq(res->type, FILE_TYPE_NOTEBOOK);
  return r;
}

START_TEST(notebook_cells_in_order) {
  gsize len;
  g_autofree char *json = fixture_text(&len);
  Hook h = {0};
  FileResult f;
  const SectionOut *c;

  ck_assert(notebook_sniff((const uint8_t *)json, len));
  ck_assert_int_eq(parse(json, len, 1, 2000, &h, &f), 0);
  ck_assert_str_eq(f.language, "python");
  ck_assert_int_eq(f.sections, 6);
  ck_assert_uint_eq(f.n_section_out, 6);
  c = f.section_out;
  ck_assert_str_eq(c[0].element, "Cell");
  ck_assert_int_eq(c[0].number, 1);
  ck_assert_str_eq(c[0].kind, "markdown");
  ck_assert_str_eq(c[0].language, "markdown");
  ck_assert_str_eq(c[0].text, "# Analysis\nLoad the data and plot it.");
  ck_assert_str_eq(c[1].kind, "code");
  ck_assert_str_eq(c[1].language, "python");
  ck_assert_str_eq(c[1].text, "rows = [1, 2, 3]\nprint(f'loaded {len(rows)} rows')\nprint('done')");
  ck_assert_uint_eq(c[1].n_parts, 1);
  ck_assert_str_eq(c[1].parts[0].kind, "stream");
  ck_assert_str_eq(c[1].parts[0].name, "stdout");
  ck_assert_str_eq(c[1].parts[0].text, "loaded 3 rows\ndone\n");
  ck_assert_str_eq(c[2].parts[0].kind, "result");
  ck_assert_str_eq(c[2].parts[0].text, "6");
  ck_assert_str_eq(c[5].kind, "raw");
  ck_assert_ptr_null(c[5].language);
  ck_assert(!f.truncated);
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);
}
END_TEST

START_TEST(notebook_traceback_without_ansi) {
  gsize len;
  g_autofree char *json = fixture_text(&len);
  FileResult f;
  const SectionPart *p;

  ck_assert_int_eq(parse(json, len, 1, 2000, NULL, &f), 0);
  p = &f.section_out[3].parts[0];
  ck_assert_str_eq(p->kind, "error");
  ck_assert_str_eq(p->name, "ZeroDivisionError");
  ck_assert_ptr_null(strchr(p->text, '\x1b'));
  ck_assert_msg(strstr(p->text, "----> 1 1/0\n") != NULL, "%s", p->text);
  ck_assert_msg(g_str_has_suffix(p->text, "ZeroDivisionError: division by zero\n"), "%s", p->text);
  file_result_clear(&f);
}
END_TEST

START_TEST(notebook_png_output_is_an_image_of_its_cell) {
  gsize len, png_len;
  g_autofree char *json = fixture_text(&len);
  g_autofree char *png = NULL;
  g_autofree char *png_path =
      g_build_filename(getenv("READERD_SOURCE_ROOT"), "samples", "readerd.png", NULL);
  Hook h = {0};
  FileResult f;
  const SectionPart *p;

  ck_assert(g_file_get_contents(png_path, &png, &png_len, NULL));
  ck_assert_int_eq(parse(json, len, 1, 2000, &h, &f), 0);
  ck_assert_int_eq(h.calls, 1);
  ck_assert_uint_eq(h.last_len, png_len);
  ck_assert_uint_eq(f.n_images, 1);
  ck_assert_int_eq(f.images[0].cell, 5);
  p = &f.section_out[4].parts[0];
  ck_assert_str_eq(p->kind, "display");
  ck_assert_int_eq(p->image, 0);
  file_result_clear(&f);

  /* Refused by the pipeline: the cell says why, the notebook is still read. */
  h = (Hook){.refuse = true};
  ck_assert_int_eq(parse(json, len, 1, 2000, &h, &f), 0);
  ck_assert_uint_eq(f.n_images, 0);
  p = &f.section_out[4].parts[0];
  ck_assert_int_eq(p->image, -1);
  ck_assert_msg(strstr(p->text, "[image/png output not shown: CORRUPTED_FILE: damaged]") != NULL,
                "%s", p->text);
  ck_assert_msg(strstr(p->text, "<Figure size 640x480 with 1 Axes>") != NULL, "%s", p->text);
  file_result_clear(&f);
}
END_TEST

START_TEST(notebook_offset_limit_pick_cells) {
  gsize len;
  g_autofree char *json = fixture_text(&len);
  FileResult f;

  ck_assert_int_eq(parse(json, len, 3, 2, NULL, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 2);
  ck_assert_int_eq(f.section_out[0].number, 3);
  ck_assert_int_eq(f.section_out[1].number, 4);
  ck_assert(f.truncated);
  ck_assert_int_eq(f.shown_first, 3);
  ck_assert_int_eq(f.shown_last, 4);
  ck_assert_str_eq(f.notice, "[cells 5-6 of 6 not shown; read on with offset 5]");
  file_result_clear(&f);

  ck_assert_int_eq(parse(json, len, 9, 2, NULL, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 0);
  ck_assert_str_eq(f.notice, "[offset 9 is past the last cell: the notebook has 6 cells]");
  file_result_clear(&f);
}
END_TEST

/* A limit near 2^63 does not wrap offset + limit around: the cells from offset are shown. */
START_TEST(notebook_huge_limit_shows_the_rest) {
  gsize len;
  g_autofree char *json = fixture_text(&len);
  FileResult f;

  ck_assert_int_eq(parse(json, len, 5, INT64_MAX, NULL, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 2);
  ck_assert_int_eq(f.section_out[0].number, 5);
  ck_assert_int_eq(f.shown_last, 6);
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);
}
END_TEST

START_TEST(notebook_long_output_cut) {
  GString *json =
      g_string_new("{\"nbformat\":4,\"cells\":[{\"cell_type\":\"code\",\"source\":\"x\","
                   "\"outputs\":[{\"output_type\":\"stream\",\"name\":\"stderr\","
                   "\"text\":\"");
  FileResult f;

  for (int i = 0; i < 5000; i++)
    g_string_append(json, "warning: é\\n");
  g_string_append(json, "\"}]}]}");
  ck_assert_int_eq(parse(json->str, json->len, 1, 10, NULL, &f), 0);
  ck_assert_uint_le(f.section_out[0].parts[0].text_len, NOTEBOOK_MAX_OUTPUT + 100);
  ck_assert(g_utf8_validate(f.section_out[0].parts[0].text, -1, NULL));
  ck_assert_msg(strstr(f.section_out[0].parts[0].text, "more bytes of this output not shown"),
                "no cut marker");
  ck_assert_ptr_null(f.language);
  file_result_clear(&f);
  g_string_free(json, TRUE);
}
END_TEST

START_TEST(notebook_malformed_is_corrupted) {
  static const char *const bad[] = {"",
                                    "{",
                                    "[1,2]",
                                    "{\"nbformat\":4}",
                                    "{\"nbformat\":4,\"cells\":{}}",
                                    "{\"nbformat\":4,\"cells\":[1]}"};
  static const char old[] = "{\"nbformat\":3,\"worksheets\":[]}";
  GString *deep = g_string_new(NULL);
  FileResult f;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    ck_assert_int_lt(parse(bad[i], strlen(bad[i]), 1, 10, NULL, &f), 0);
    ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
    ck_assert_msg(g_str_has_prefix(f.error, "not a notebook") || strstr(f.error, "cell 1"),
                  "%s: %s", bad[i], f.error);
    file_result_clear(&f);
  }
  /* Nesting that would run json-glib's recursion out of stack. */
  for (int i = 0; i < 100000; i++)
    g_string_append_c(deep, '[');
  ck_assert_int_lt(parse(deep->str, deep->len, 1, 10, NULL, &f), 0);
  ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
  ck_assert_msg(strstr(f.error, "nested too deeply"), "%s", f.error);
  file_result_clear(&f);
  g_string_free(deep, TRUE);

  ck_assert_int_eq(parse(old, strlen(old), 1, 10, NULL, &f), -ENOTSUP);
  ck_assert_str_eq(f.code, CODE_UNSUPPORTED_FORMAT);
  file_result_clear(&f);
}
END_TEST

/* Brackets hidden from a count that skips only double-quoted strings: json-glib also takes
 * single-quoted strings and comments, and a '"' inside either would hide the 100,000 brackets
 * after it from such a count, but not from json-glib's recursion. */
START_TEST(notebook_hidden_nesting_is_corrupted) {
  static const char *const covers[] = {"{'a\"':", "{/* \" */\"a\":", "{// \"\n\"a\":"};

  for (size_t k = 0; k < G_N_ELEMENTS(covers); k++) {
    g_autoptr(GString) s = g_string_new(covers[k]);
    FileResult f;

    for (int i = 0; i < 100000; i++)
      g_string_append_c(s, '[');
    ck_assert_int_eq(parse(s->str, s->len, 1, 10, NULL, &f), -EBADMSG);
    ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
    ck_assert_msg(g_str_has_prefix(f.error, "not a notebook: invalid JSON: line 1, column 2"),
                  "%s", f.error);
    file_result_clear(&f);
  }
}
END_TEST

/* A value before the notebook's object: json-glib would parse both and lose the tree of the
 * second (a leak as large as the file, on every read); it must never see such a text. Run
 * under AddressSanitizer, the leak check proves it. */
START_TEST(notebook_value_before_the_object_is_corrupted) {
  gsize len;
  g_autofree char *nb = fixture_text(&len);
  g_autofree char *s = g_strconcat("6", nb, NULL);

  for (int i = 0; i < 20; i++) {
    FileResult f;

    ck_assert_int_eq(parse(s, len + 1, 1, 10, NULL, &f), -EBADMSG);
    ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
    ck_assert_msg(strstr(f.error, "unexpected data after the JSON value"), "%s", f.error);
    file_result_clear(&f);
  }
}
END_TEST

/* Outputs whose "data" is missing or not an object show nothing, and GLib is never handed a
 * NULL object (its criticals are made fatal here). */
START_TEST(notebook_output_without_data) {
  static const char json[] =
      "{\"nbformat\":4,\"metadata\":{},\"cells\":[{\"cell_type\":\"code\",\"source\":\"x\","
      "\"outputs\":[{\"output_type\":\"execute_result\"},"
      "{\"output_type\":\"display_data\",\"data\":7}]}]}";
  GLogLevelFlags old = g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  FileResult f;

  ck_assert_int_eq(parse(json, sizeof json - 1, 1, 2000, NULL, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 1);
  ck_assert_str_eq(f.section_out[0].text, "x");
  for (size_t i = 0; i < f.section_out[0].n_parts; i++)
    ck_assert_int_eq(f.section_out[0].parts[i].image, -1);
  file_result_clear(&f);
  g_log_set_always_fatal(old);
}
END_TEST

START_TEST(notebook_sniff_by_content) {
  static const char nb[] = "  {\"cells\": [], \"nbformat\": 4}";
  static const char json[] = "{\"cells\": []}";

  ck_assert(notebook_sniff((const uint8_t *)nb, strlen(nb)));
  ck_assert(!notebook_sniff((const uint8_t *)json, strlen(json)));
  ck_assert(!notebook_sniff((const uint8_t *)"cells nbformat", 14));
}
END_TEST

static Suite *notebook_suite(void) {
  Suite *s = suite_create("notebook");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, notebook_cells_in_order);
  tcase_add_test(tc, notebook_traceback_without_ansi);
  tcase_add_test(tc, notebook_png_output_is_an_image_of_its_cell);
  tcase_add_test(tc, notebook_offset_limit_pick_cells);
  tcase_add_test(tc, notebook_huge_limit_shows_the_rest);
  tcase_add_test(tc, notebook_long_output_cut);
  tcase_add_test(tc, notebook_malformed_is_corrupted);
  tcase_add_test(tc, notebook_hidden_nesting_is_corrupted);
  tcase_add_test(tc, notebook_value_before_the_object_is_corrupted);
  tcase_add_test(tc, notebook_output_without_data);
  tcase_add_test(tc, notebook_sniff_by_content);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(notebook_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
