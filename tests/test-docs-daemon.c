/* Integration tests of notebooks and office documents: the real daemon over its socket reads the
 * files LibreOffice wrote (tests/data/office/), the notebook with a PNG output
 * (tests/data/notebook/), and hostile archives written here (a zip bomb, 100,000 entries, a
 * truncated DOCX): each hostile file gets its own per-file error, quickly, and the daemon
 * serves on. Every answer is checked against the schema by the test library. */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;
static RdConn *conn;

static char *source_path(const char *a, const char *b, const char *c) {
  const char *root = getenv("READERD_SOURCE_ROOT");

  ck_assert_msg(root != NULL, "env READERD_SOURCE_ROOT is not set");
  return g_build_filename(root, a, b, c, NULL);
}

/* Copies a file of the source tree into the daemon's folder under its own name. */
static void copy_in(const char *a, const char *b, const char *name) {
  g_autofree char *src = source_path(a, b, name);
  g_autofree char *data = NULL;
  gsize len = 0;

  ck_assert_msg(g_file_get_contents(src, &data, &len, NULL), "cannot read %s", src);
  g_free(rd_write_file(dmn->dir, name, data, len));
}

static void docs_setup(void) {
  rd_fixture_setup(&dmn, &conn);
  copy_in("tests", "data/office", "report.docx");
  copy_in("tests", "data/office", "fruit.xlsx");
  copy_in("tests", "data/office", "roadmap.pptx");
  copy_in("tests", "data/notebook", "analysis.ipynb");
  g_free(rd_write_str(dmn->dir, "a.txt", "alpha\n"));
}

static void docs_teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

static RdResult *read_in_dir(const char *const *paths, size_t n, const char *more) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *extra =
      g_strdup_printf("\"cwd\":%s%s%s", cwd, more ? "," : "", more ? more : "");

  return rd_read_paths(conn, paths, n, extra);
}

/* The names of Content i's child elements, joined by spaces. g_malloc'd. */
static char *child_names(RdResult *r, guint i) {
  GString *s = g_string_new(NULL);

  for (xmlNodePtr c = rd_content(r, i)->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE)
      g_string_append_printf(s, "%s%s", s->len > 0 ? " " : "", (const char *)c->name);
  return g_string_free(s, FALSE);
}

/* An attribute of the k-th child element of Content i. g_malloc'd or NULL. */
static char *child_attr(RdResult *r, guint i, int k, const char *name) {
  for (xmlNodePtr c = rd_content(r, i)->children; c != NULL; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || k-- > 0)
      continue;
    xmlChar *v = xmlGetProp(c, (const xmlChar *)name);
    char *out = v != NULL ? g_strdup((const char *)v) : NULL;

    xmlFree(v);
    return out;
  }
  return NULL;
}

START_TEST(docs_daemon_reads_each_kind) {
  static const char *const paths[] = {"report.docx", "fruit.xlsx", "roadmap.pptx", "analysis.ipynb",
                                      "a.txt"};
  RdResult *r = read_in_dir(paths, G_N_ELEMENTS(paths), NULL);
  g_autofree char *docx = rd_text(r, 0);
  g_autofree char *sheets = child_names(r, 1);
  g_autofree char *slides = child_names(r, 2);
  g_autofree char *cells = child_names(r, 3);
  g_autofree char *sheet2 = child_attr(r, 1, 1, "name");

  ck_assert_str_eq(rd_file_str(r, 0, "type"), "document");
  ck_assert_str_eq(rd_file_str(r, 0, "format"), "docx");
  ck_assert_msg(g_str_has_prefix(docx, "# Quarterly report\n"), "%s", docx);
  ck_assert_msg(strstr(docx, "| Apples | 12 |\n") != NULL, "%s", docx);
  ck_assert_str_eq(rd_file_str(r, 1, "format"), "xlsx");
  ck_assert_int_eq(rd_file_int(r, 1, "sheets"), 2);
  ck_assert_str_eq(sheets, "Sheet Sheet");
  ck_assert_str_eq(sheet2, "Notes");
  ck_assert_str_eq(rd_file_str(r, 2, "format"), "pptx");
  ck_assert_int_eq(rd_file_int(r, 2, "slides"), 2);
  ck_assert_str_eq(slides, "Slide Slide");
  ck_assert_str_eq(rd_file_str(r, 3, "type"), "notebook");
  ck_assert_int_eq(rd_file_int(r, 3, "cells"), 6);
  ck_assert_str_eq(rd_file_str(r, 3, "language"), "python");
  ck_assert_str_eq(cells, "Cell Cell Cell Cell Cell Cell");
  ck_assert_str_eq(rd_file_str(r, 4, "type"), "text");
  rd_result_free(r);
}
END_TEST

START_TEST(docs_daemon_notebook_picture_in_images) {
  static const char *const paths[] = {"analysis.ipynb"};
  RdResult *r = read_in_dir(paths, 1, NULL);
  g_autofree char *png_path = source_path("samples", "readerd.png", NULL);
  g_autofree char *png = NULL;
  gsize png_len = 0, got_len = 0;
  GBytes *got;
  JsonObject *img;
  xmlNodePtr cell5 = NULL;
  int k = 0;

  ck_assert(g_file_get_contents(png_path, &png, &png_len, NULL));
  ck_assert_uint_eq(json_array_get_length(r->images), 1);
  img = json_array_get_object_element(r->images, 0);
  ck_assert_str_eq(json_object_get_string_member(img, "mediaType"), "image/png");
  ck_assert_int_eq(json_object_get_int_member(img, "cell"), 5);
  /* Small and within every limit: sent byte for byte. */
  got = rd_image_bytes(r, 0);
  ck_assert_mem_eq(g_bytes_get_data(got, &got_len), png, png_len);
  ck_assert_uint_eq(got_len, png_len);
  g_bytes_unref(got);
  for (xmlNodePtr c = rd_content(r, 0)->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE && ++k == 5)
      cell5 = c;
  ck_assert_ptr_nonnull(cell5);
  for (xmlNodePtr o = cell5->children; o != NULL; o = o->next) {
    if (o->type != XML_ELEMENT_NODE)
      continue;
    xmlChar *image = xmlGetProp(o, (const xmlChar *)"image");

    ck_assert_str_eq((const char *)o->name, "Output");
    ck_assert_str_eq((const char *)image, "0");
    xmlFree(image);
  }
  rd_result_free(r);
}
END_TEST

/* A picture over images.maxDimension is converted in the worker process as an image file would
 * be; a damaged one is refused with a line in its output, and the notebook is still read. */
START_TEST(docs_daemon_notebook_pictures_through_pipeline) {
  static const char *const paths[] = {"plots.ipynb"};
  size_t png_len;
  unsigned char *png = rd_make_png(2000, 40, &png_len);
  g_autofree char *b64 = g_base64_encode(png, png_len);
  g_autofree char *nb = g_strdup_printf(
      "{\"nbformat\":4,\"metadata\":{},\"cells\":["
      "{\"cell_type\":\"code\",\"source\":\"wide()\",\"outputs\":[{\"output_type\":"
      "\"display_data\",\"data\":{\"image/png\":\"%s\"}}]},"
      "{\"cell_type\":\"code\",\"source\":\"broken()\",\"outputs\":[{\"output_type\":"
      "\"display_data\",\"data\":{\"image/png\":\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB\","
      "\"text/plain\":\"<broken>\"}}]}]}",
      b64);
  RdResult *r;
  JsonObject *img;
  g_autofree char *text = NULL;

  g_free(png);
  g_free(rd_write_str(dmn->dir, "plots.ipynb", nb));
  r = read_in_dir(paths, 1, "\"images\":{\"maxDimension\":500}");
  ck_assert_ptr_null(rd_file_str(r, 0, "code"));
  ck_assert_uint_eq(json_array_get_length(r->images), 1);
  img = json_array_get_object_element(r->images, 0);
  ck_assert_int_eq(json_object_get_int_member(img, "width"), 500);
  ck_assert_int_eq(json_object_get_int_member(img, "originalWidth"), 2000);
  ck_assert_int_eq(json_object_get_int_member(img, "cell"), 1);
  text = rd_text(r, 0);
  ck_assert_msg(strstr(text, "[image/png output not shown: CORRUPTED_FILE: ") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "<broken>") != NULL, "%s", text);
  rd_result_free(r);
}
END_TEST

START_TEST(docs_daemon_cells_window) {
  static const char *const paths[] = {"analysis.ipynb"};
  RdResult *r = read_in_dir(paths, 1, "\"offset\":4,\"limit\":1");
  g_autofree char *text = rd_text(r, 0);
  g_autofree char *index = child_attr(r, 0, 0, "index");

  ck_assert(rd_file_true(r, 0, "truncated"));
  ck_assert_str_eq(index, "4");
  ck_assert_msg(strstr(text, "read on with offset 5") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "\x1b") == NULL, "ANSI codes left in %s", text);
  ck_assert_uint_eq(json_array_get_length(r->images), 0);
  rd_result_free(r);
}
END_TEST

/* The agent formats carry the cells in their text block and the picture as their own block. */
START_TEST(docs_daemon_formats_show_cells) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params =
      g_strdup_printf("{\"paths\":[\"analysis.ipynb\"],\"cwd\":%s,\"format\":\"anthropic\"}", cwd);
  JsonNode *msg = rd_conn_call(conn, "read", params);
  JsonObject *res = rd_result_of(msg);
  JsonArray *blocks = json_object_get_array_member(res, "anthropic");
  JsonObject *text = json_array_get_object_element(blocks, 0);
  JsonObject *image = json_array_get_object_element(blocks, 1);

  ck_assert_uint_eq(json_array_get_length(blocks), 2);
  ck_assert_msg(strstr(json_object_get_string_member(text, "text"), "<Cell index='5'") != NULL,
                "no cell in the text block");
  ck_assert_str_eq(json_object_get_string_member(image, "type"), "image");
  json_node_unref(msg);

  g_free(params);
  params = g_strdup_printf(
      "{\"paths\":[\"analysis.ipynb\",\"fruit.xlsx\"],\"cwd\":%s,\"format\":\"text\"}", cwd);
  msg = rd_conn_call(conn, "read", params);
  res = rd_result_of(msg);
  const char *t = json_object_get_string_member(res, "text");
  ck_assert_msg(strstr(t, "--- cell 5 (code, python) ---\nplot(rows)\n[output display]\n[image 0: "
                          "image/png, 48x48") != NULL,
                "%s", t);
  ck_assert_msg(strstr(t, "--- sheet 2: Notes (2 rows) ---\n1: Apples | sold out on Friday\n"),
                "%s", t);
  json_node_unref(msg);
}
END_TEST

START_TEST(docs_daemon_hostile_files_answered_alone) {
  static const char *const paths[] = {"bomb.docx", "flood.xlsx", "cut.docx", "bad.ipynb", "a.txt"};
  static const char *const codes[] = {"FILE_TOO_LARGE", "FILE_TOO_LARGE", "CORRUPTED_FILE",
                                      "CORRUPTED_FILE", NULL};
  g_autofree char *bomb = g_build_filename(dmn->dir, "bomb.docx", NULL);
  g_autofree char *flood = g_build_filename(dmn->dir, "flood.xlsx", NULL);
  g_autofree char *docx = source_path("tests", "data/office", "report.docx");
  g_autofree char *data = NULL;
  const char *doc;
  gsize len = 0;
  RdZip *z;
  RdResult *r;
  gint64 t0;

  z = rd_zip_new(bomb);
  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add_repeat(z, "word/document.xml", "<w:document><w:body>",
                    "<w:p><w:r><w:t>zip bombs are refused by their inflated size, not their "
                    "compressed size</w:t></w:r></w:p>",
                    (size_t)96 << 20, false);
  rd_zip_close(z);
  z = rd_zip_new(flood);
  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "xl/workbook.xml", "<workbook/>", 11);
  for (int i = 0; i < 100000; i++) {
    char name[32];

    g_snprintf(name, sizeof name, "xl/e%d", i);
    rd_zip_add(z, name, "", 0);
  }
  rd_zip_close(z);
  ck_assert(g_file_get_contents(docx, &data, &len, NULL));
  doc = memmem(data, len, "word/document.xml", 17);
  ck_assert_ptr_nonnull(doc);
  g_free(rd_write_file(dmn->dir, "cut.docx", data, (size_t)(doc - data) + 217));
  g_free(rd_write_str(dmn->dir, "bad.ipynb", "{\"cells\": [ {\"cell_type\": "));

  t0 = g_get_monotonic_time();
  r = read_in_dir(paths, G_N_ELEMENTS(paths), NULL);
  ck_assert_int_lt(g_get_monotonic_time() - t0, 60 * G_USEC_PER_SEC);
  for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
    ck_assert_msg(g_strcmp0(rd_file_str(r, i, "code"), codes[i]) == 0, "%s: %s (%s)", paths[i],
                  rd_file_str(r, i, "code"), rd_file_str(r, i, "error"));
  }
  ck_assert_msg(strstr(rd_file_str(r, 1, "error"), "10000 entries") != NULL, "%s",
                rd_file_str(r, 1, "error"));
  ck_assert_msg(g_str_has_prefix(rd_file_str(r, 3, "error"), "not a notebook: invalid JSON"), "%s",
                rd_file_str(r, 3, "error"));
  rd_result_free(r);

  /* And the daemon serves on. */
  r = read_in_dir((const char *const[]){"a.txt"}, 1, NULL);
  ck_assert_ptr_null(rd_file_str(r, 0, "code"));
  rd_result_free(r);
  ck_assert(rd_daemon_alive(dmn));
}
END_TEST

/* A deck whose slide list names its third slide file first, with each entry's plain id before
 * its r:id, as office suites write it. */
static void write_order_pptx(const char *path) {
  static const char pres[] =
      "<p:presentation xmlns:p='http://schemas.openxmlformats.org/presentationml/2006/main' "
      "xmlns:r='http://schemas.openxmlformats.org/officeDocument/2006/relationships'><p:sldIdLst>"
      "<p:sldId id='256' r:id='rId13'/><p:sldId id='257' r:id='rId11'/>"
      "<p:sldId id='258' r:id='rId12'/></p:sldIdLst></p:presentation>";
  static const char rels[] =
      "<Relationships xmlns='http://schemas.openxmlformats.org/package/2006/relationships'>"
      "<Relationship Id='rId11' Type='s' Target='slides/slide1.xml'/>"
      "<Relationship Id='rId12' Type='s' Target='slides/slide2.xml'/>"
      "<Relationship Id='rId13' Type='s' Target='slides/slide3.xml'/></Relationships>";
  RdZip *z = rd_zip_new(path);

  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "ppt/presentation.xml", pres, strlen(pres));
  rd_zip_add(z, "ppt/_rels/presentation.xml.rels", rels, strlen(rels));
  for (int k = 1; k <= 3; k++) {
    g_autofree char *name = g_strdup_printf("ppt/slides/slide%d.xml", k);
    g_autofree char *xml = g_strdup_printf(
        "<p:sld xmlns:p='http://schemas.openxmlformats.org/presentationml/2006/main' "
        "xmlns:a='http://schemas.openxmlformats.org/drawingml/2006/main'><p:cSld><p:spTree>"
        "<p:sp><p:txBody><a:p><a:r><a:t>slide file %d</a:t></a:r></a:p></p:txBody></p:sp>"
        "</p:spTree></p:cSld></p:sld>",
        k);

    rd_zip_add(z, name, xml, strlen(xml));
  }
  rd_zip_close(z);
}

/* A DOCX of one paragraph of `len` bytes in a single run. */
static void write_long_docx(const char *path, size_t len) {
  GString *doc = g_string_new("<w:document xmlns:w='http://schemas.openxmlformats.org/"
                              "wordprocessingml/2006/main'><w:body><w:p><w:r><w:t>");
  RdZip *z = rd_zip_new(path);

  for (size_t i = 0; i < len; i++)
    g_string_append_c(doc, "long "[i % 5]);
  g_string_append(doc, "</w:t></w:r></w:p></w:body></w:document>");
  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "word/document.xml", doc->str, doc->len);
  rd_zip_close(z);
  g_string_free(doc, TRUE);
}

/* Hostile input, through the daemon: slides in the deck's order, windows up to 2^63 - 1 that
 * do not wrap, a 9 MB paragraph answered within the cap, an 11 MB run FILE_TOO_LARGE. */
START_TEST(docs_daemon_order_windows_and_caps) {
  g_autofree char *order = g_build_filename(dmn->dir, "order.pptx", NULL);
  g_autofree char *lng = g_build_filename(dmn->dir, "long.docx", NULL);
  g_autofree char *run = g_build_filename(dmn->dir, "run.docx", NULL);
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params = g_strdup_printf(
      "{\"cwd\":%s,\"paths\":[\"order.pptx\",\"long.docx\",\"run.docx\","
      "{\"path\":\"roadmap.pptx\",\"offset\":2,\"limit\":9223372036854775807},"
      "{\"path\":\"report.docx\",\"offset\":9,\"limit\":9223372036854775807},"
      "{\"path\":\"analysis.ipynb\",\"offset\":5,\"limit\":9223372036854775806}]}",
      cwd);
  g_autofree char *deck = NULL, *text = NULL, *shown_deck = NULL, *shown_doc = NULL;
  g_autofree char *shown_nb = NULL, *shown_long = NULL;
  const char *one, *two, *three;
  RdResult *r;

  write_order_pptx(order);
  write_long_docx(lng, 9 * 1000 * 1000);
  write_long_docx(run, 11 * 1000 * 1000);
  r = rd_read(conn, params);

  deck = rd_text(r, 0);
  three = strstr(deck, "slide file 3");
  one = strstr(deck, "slide file 1");
  two = strstr(deck, "slide file 2");
  ck_assert_msg(three != NULL && one != NULL && two != NULL && three < one && one < two, "%s",
                deck);
  ck_assert_int_eq(rd_file_int(r, 0, "slides"), 3);

  text = rd_text(r, 1);
  ck_assert_msg(strlen(text) < 256 * 1024 + 200, "%zu bytes", strlen(text));
  ck_assert_msg(strstr(text, "[the paragraph goes on in the next line]") != NULL, "no marker");
  shown_long = rd_attr(r, 1, "shown");
  ck_assert_str_eq(shown_long, "1-1");

  ck_assert_str_eq(rd_file_str(r, 2, "code"), "FILE_TOO_LARGE");

  shown_deck = rd_attr(r, 3, "shown");
  ck_assert_str_eq(shown_deck, "2-2");
  shown_doc = rd_attr(r, 4, "shown");
  ck_assert_str_eq(shown_doc, "9-10");
  shown_nb = rd_attr(r, 5, "shown");
  ck_assert_str_eq(shown_nb, "5-6");
  rd_result_free(r);
}
END_TEST

/* Notebooks of hostile JSON: 100,000 brackets behind a '"' that only a single-quoted string or
 * a comment holds (a bracket count that skips double-quoted strings would miss them, json-glib's
 * recursion would not), and a value before the notebook's object (json-glib would leak the
 * whole tree of each read). Each is a per-file error; the daemon serves the next client and its
 * memory does not grow with the reads. */
START_TEST(docs_daemon_hostile_json_notebooks) {
  static const char *const covers[] = {"{\"nbformat\":4,\"cells\":[],'\"':",
                                       "{\"nbformat\":4,\"cells\":[], /* \" */ \"a\":"};
  const char *const names[] = {"quote.ipynb", "comment.ipynb"};
  g_autoptr(GString) big = g_string_new("6{\"nbformat\":4,\"nbformat_minor\":5,\"metadata\":{},"
                                        "\"cells\":[");
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *extra = g_strdup_printf("\"cwd\":%s", cwd);
  int64_t before, after;
  RdConn *next;
  RdResult *r;

  for (size_t k = 0; k < G_N_ELEMENTS(covers); k++) {
    g_autoptr(GString) s = g_string_new(covers[k]);

    for (int i = 0; i < 100000; i++)
      g_string_append_c(s, '[');
    g_free(rd_write_file(dmn->dir, names[k], s->str, s->len));
  }
  r = read_in_dir(names, G_N_ELEMENTS(names), NULL);
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    ck_assert_str_eq(rd_file_str(r, i, "code"), "CORRUPTED_FILE");
    ck_assert_msg(g_str_has_prefix(rd_file_str(r, i, "error"), "not a notebook: invalid JSON"),
                  "%s", rd_file_str(r, i, "error"));
  }
  rd_result_free(r);
  ck_assert(rd_daemon_alive(dmn));
  next = rd_conn_new(dmn->sock);
  r = rd_read_paths(next, (const char *const[]){"a.txt"}, 1, extra);
  ck_assert_ptr_null(rd_file_str(r, 0, "code"));
  rd_result_free(r);
  rd_conn_free(next);

  /* 8 MB of cells after a "6". */
  for (int i = 0; i < 4000; i++) {
    g_string_append_printf(big, "%s{\"cell_type\":\"code\",\"metadata\":{},\"source\":[", i ? "," : "");
    for (int j = 0; j < 40; j++)
      g_string_append_printf(big, "%s\"x = [%d, %d]\\n\"", j ? "," : "", i, j);
    g_string_append(big, "],\"outputs\":[],\"execution_count\":1}");
  }
  g_string_append(big, "]}");
  g_free(rd_write_file(dmn->dir, "six.ipynb", big->str, big->len));
  r = read_in_dir((const char *const[]){"six.ipynb"}, 1, NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "CORRUPTED_FILE");
  rd_result_free(r);
  before = rd_daemon_rss_kib(dmn);
  for (int i = 0; i < 10; i++) {
    r = read_in_dir((const char *const[]){"six.ipynb"}, 1, NULL);
    ck_assert_msg(strstr(rd_file_str(r, 0, "error"), "unexpected data after the JSON value"),
                  "%s", rd_file_str(r, 0, "error"));
    rd_result_free(r);
  }
  after = rd_daemon_rss_kib(dmn);
  ck_assert_msg(after - before < 64 * 1024, "%zu bytes read 10 times: RSS %" G_GINT64_FORMAT
                " KiB -> %" G_GINT64_FORMAT " KiB", big->len, before, after);
}
END_TEST

static Suite *docs_suite(void) {
  Suite *s = suite_create("docs-daemon");
  TCase *tc = tcase_create("core");

  tcase_add_checked_fixture(tc, docs_setup, docs_teardown);
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, docs_daemon_reads_each_kind);
  tcase_add_test(tc, docs_daemon_notebook_picture_in_images);
  tcase_add_test(tc, docs_daemon_notebook_pictures_through_pipeline);
  tcase_add_test(tc, docs_daemon_cells_window);
  tcase_add_test(tc, docs_daemon_formats_show_cells);
  tcase_add_test(tc, docs_daemon_hostile_files_answered_alone);
  tcase_add_test(tc, docs_daemon_order_windows_and_caps);
  tcase_add_test(tc, docs_daemon_hostile_json_notebooks);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(docs_suite());
}
