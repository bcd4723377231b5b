/* Integration tests of the `format` param and `readerd read --format`: the real daemon over its
 * socket and the real command line, on one multi-file read (text, image, a PDF with a rendered
 * page, a missing file). Every shape is checked against the default (xml) answer of the same
 * read: same files, same <Content> elements, same pictures. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;
static RdConn *conn;

/* The read every test makes, relative to the daemon's folder. */
static const char *const read_paths[] = {"a.txt", "img.png", "gone.txt", "doc.pdf", "b.txt"};
static const char *const formats[] = {"anthropic", "openai", "toolresult", "text", "mcp"};

/* A two-page PDF: page 1 has text, page 2 only a filled rectangle (no text layer, so it is
 * rendered to a picture). */
static GString *make_pdf(void) {
  static const char *const contents[] = {"BT /F1 18 Tf 20 100 Td (Hello from page one) Tj ET",
                                         "0.2 0.4 0.8 rg 40 40 220 120 re f"};
  GString *out = g_string_new("%PDF-1.4\n");
  GPtrArray *objs = g_ptr_array_new_with_free_func(g_free);
  size_t offsets[8], xref;

  /* 1 catalog, 2 page tree, 3 font, then each page followed by its content stream. */
  g_ptr_array_add(objs, g_strdup("<< /Type /Catalog /Pages 2 0 R >>"));
  g_ptr_array_add(objs, g_strdup("<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>"));
  g_ptr_array_add(objs, g_strdup("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"));
  for (guint i = 0; i < G_N_ELEMENTS(contents); i++) {
    g_ptr_array_add(objs,
                    g_strdup_printf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] "
                                    "/Contents %u 0 R /Resources << /Font << /F1 3 0 R >> >> >>",
                                    objs->len + 2));
    g_ptr_array_add(objs, g_strdup_printf("<< /Length %zu >>\nstream\n%s\nendstream",
                                          strlen(contents[i]), contents[i]));
  }
  for (guint i = 0; i < objs->len; i++) {
    offsets[i] = out->len;
    g_string_append_printf(out, "%u 0 obj\n%s\nendobj\n", i + 1, (const char *)objs->pdata[i]);
  }
  xref = out->len;
  g_string_append_printf(out, "xref\n0 %u\n0000000000 65535 f \n", objs->len + 1);
  for (guint i = 0; i < objs->len; i++)
    g_string_append_printf(out, "%010zu 00000 n \n", offsets[i]);
  g_string_append_printf(out, "trailer\n<< /Size %u /Root 1 0 R >>\nstartxref\n%zu\n%%%%EOF\n",
                         objs->len + 1, xref);
  g_ptr_array_free(objs, TRUE);
  return out;
}

static void formats_setup(void) {
  size_t png_len;
  unsigned char *png = rd_make_png(32, 20, &png_len);
  GString *pdf = make_pdf();

  rd_fixture_setup(&dmn, &conn);
  g_free(rd_write_str(dmn->dir, "a.txt", "alpha one\nalpha two\n"));
  g_free(rd_write_str(dmn->dir, "b.txt", "tab\there & <b> ]]> \"q\"\n"));
  g_free(rd_write_file(dmn->dir, "img.png", png, png_len));
  g_free(rd_write_file(dmn->dir, "doc.pdf", pdf->str, pdf->len));
  g_free(png);
  g_string_free(pdf, TRUE);
}

static void formats_teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

/* read of read_paths with the given extra members; returns the response (caller unrefs). */
static JsonNode *call_read(const char *extra) {
  g_autofree char *paths = rd_json_paths(read_paths, G_N_ELEMENTS(read_paths));
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s,\"cwd\":%s%s%s}", paths, cwd,
                                            extra ? "," : "", extra ? extra : "");

  return rd_conn_call(conn, "read", params);
}

/* The default answer, validated by rd-client (schema, one <Content> per file). */
static RdResult *read_xml(void) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *extra = g_strdup_printf("\"cwd\":%s", cwd);

  return rd_read_paths(conn, read_paths, G_N_ELEMENTS(read_paths), extra);
}

/* result.xml without its <ReadResults> start tag and end tag: the <Content> elements. */
static char *xml_contents(RdResult *x) {
  const char *xml = json_object_get_string_member(x->result, "xml");
  const char *start = strchr(xml, '\n');
  const char *end = g_strrstr(xml, "</ReadResults>");

  ck_assert(start != NULL && end != NULL && end > start);
  return g_strndup(start + 1, (gsize)(end - start - 1));
}

static void assert_same_meta(JsonObject *res, RdResult *x, const char *name) {
  g_autofree char *keys = NULL;
  GList *members = json_object_get_members(res);
  GString *k = g_string_new(NULL);

  for (GList *l = members; l != NULL; l = l->next)
    g_string_append_printf(k, "%s%s", k->len ? " " : "", (const char *)l->data);
  g_list_free(members);
  keys = g_strdup_printf("%s files bytes lines tokens", name);
  ck_assert_str_eq(k->str, keys);
  g_string_free(k, TRUE);
  /* openai prices pictures by OpenAI's formula, text at nothing (it lists them, sends none),
   * the others by Anthropic's: tokens of an image or a PDF differ, everything else is the
   * same. Compared on copies: x is checked again. */
  {
    g_autofree char *ta = json_to_string(json_object_get_member(res, "files"), FALSE);
    g_autofree char *tb = json_to_string(json_object_get_member(x->result, "files"), FALSE);
    g_autoptr(JsonNode) na = json_from_string(ta, NULL);
    g_autoptr(JsonNode) nb = json_from_string(tb, NULL);
    JsonArray *a = json_node_get_array(na), *b = json_node_get_array(nb);

    bool pictures_apart = strcmp(name, "openai") == 0 || strcmp(name, "text") == 0;

    for (guint i = 0; pictures_apart && i < json_array_get_length(a) &&
                      i < json_array_get_length(b);
         i++) {
      JsonObject *fa = json_array_get_object_element(a, i);
      JsonObject *fb = json_array_get_object_element(b, i);

      if (g_strcmp0(json_object_get_string_member_with_default(fa, "type", ""), "text") != 0) {
        json_object_remove_member(fa, "tokens");
        json_object_remove_member(fb, "tokens");
      }
    }
    ck_assert_msg(json_node_equal(na, nb), "%s: files[] differ from the xml answer's", name);
  }
  ck_assert_int_eq(json_object_get_int_member(res, "bytes"),
                   json_object_get_int_member(x->result, "bytes"));
  ck_assert_int_eq(json_object_get_int_member(res, "lines"),
                   json_object_get_int_member(x->result, "lines"));
}

/* The picture k of the xml answer: its data and media type. */
static const char *image_data(RdResult *x, guint k) {
  return json_object_get_string_member(json_array_get_object_element(x->images, k), "data");
}

static const char *image_type(RdResult *x, guint k) {
  return json_object_get_string_member(json_array_get_object_element(x->images, k), "mediaType");
}

/* Checks the blocks of anthropic or openai against the xml answer: the text blocks put
 * together are its <Content> elements, the pictures are its images, in order, each after the
 * text block of its file. */
static void check_blocks(const char *name, JsonArray *blocks, RdResult *x, const char *detail) {
  g_autofree char *contents = xml_contents(x);
  GString *texts = g_string_new(NULL);
  guint k = 0, n = json_array_get_length(blocks);

  for (guint i = 0; i < n; i++) {
    JsonObject *b = json_array_get_object_element(blocks, i);
    const char *type = json_object_get_string_member(b, "type");

    if (strcmp(type, "text") == 0) {
      g_string_append(texts, json_object_get_string_member(b, "text"));
      continue;
    }
    ck_assert_uint_gt(i, 0);
    ck_assert_uint_lt(k, json_array_get_length(x->images));
    if (strcmp(name, "mcp") == 0) {
      ck_assert_str_eq(type, "image");
      ck_assert_str_eq(json_object_get_string_member(b, "mimeType"), image_type(x, k));
      ck_assert_str_eq(json_object_get_string_member(b, "data"), image_data(x, k));
    } else if (strcmp(name, "anthropic") == 0) {
      JsonObject *src = json_object_get_object_member(b, "source");

      ck_assert_str_eq(type, "image");
      ck_assert_str_eq(json_object_get_string_member(src, "type"), "base64");
      ck_assert_str_eq(json_object_get_string_member(src, "media_type"), image_type(x, k));
      ck_assert_str_eq(json_object_get_string_member(src, "data"), image_data(x, k));
    } else {
      JsonObject *u = json_object_get_object_member(b, "image_url");
      g_autofree char *url =
          g_strdup_printf("data:%s;base64,%s", image_type(x, k), image_data(x, k));

      ck_assert_str_eq(type, "image_url");
      ck_assert_str_eq(json_object_get_string_member(u, "url"), url);
      ck_assert_str_eq(json_object_get_string_member(u, "detail"), detail);
    }
    k++;
  }
  ck_assert_uint_eq(k, json_array_get_length(x->images));
  if (strcmp(name, "openai") == 0) {
    /* Pictures are priced by OpenAI's formula there: the tokens attributes differ. */
    g_autoptr(GRegex) re = g_regex_new(" tokens='[0-9]+'", 0, 0, NULL);
    g_autofree char *a = g_regex_replace_literal(re, texts->str, -1, 0, "", 0, NULL);
    g_autofree char *b = g_regex_replace_literal(re, contents, -1, 0, "", 0, NULL);

    ck_assert_str_eq(a, b);
  } else {
    ck_assert_str_eq(texts->str, contents);
  }
  g_string_free(texts, TRUE);
}

START_TEST(formats_daemon_capabilities) {
  JsonNode *msg = rd_conn_call(conn, "initialize", "{}");
  JsonObject *read = json_object_get_object_member(
      json_object_get_object_member(rd_result_of(msg), "capabilities"), "read");
  JsonArray *names = json_object_get_array_member(read, "formats");

  ck_assert_uint_eq(json_array_get_length(names), G_N_ELEMENTS(formats) + 1);
  ck_assert_str_eq(json_array_get_string_element(names, 0), "xml");
  for (guint i = 0; i < G_N_ELEMENTS(formats); i++)
    ck_assert_str_eq(json_array_get_string_element(names, i + 1), formats[i]);
  json_node_unref(msg);
}
END_TEST

/* The fixture really has what the shapes must carry: a text, a picture, a failure, a page. */
START_TEST(formats_daemon_fixture) {
  RdResult *x = read_xml();

  ck_assert_str_eq(rd_file_str(x, 1, "type"), "image");
  ck_assert_str_eq(rd_file_str(x, 2, "code"), "FILE_NOT_FOUND");
  ck_assert_msg(rd_file_str(x, 3, "code") == NULL, "doc.pdf: %s", rd_file_str(x, 3, "error"));
  ck_assert_str_eq(rd_file_str(x, 3, "type"), "pdf");
  ck_assert_uint_eq(json_array_get_length(x->images), 2);
  ck_assert_int_eq(json_object_get_int_member(json_array_get_object_element(x->images, 1), "page"),
                   2);
  rd_result_free(x);
}
END_TEST

START_TEST(formats_daemon_agent_shapes) {
  RdResult *x = read_xml();
  static const char *const names[] = {"anthropic", "openai", "mcp"};

  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *extra =
        g_strdup_printf("\"format\":\"%s\",\"images\":{\"detail\":\"low\"}", names[i]);
    JsonNode *msg = call_read(extra);
    JsonObject *res = rd_result_of(msg);
    JsonArray *blocks = json_object_get_array_member(res, names[i]);

    assert_same_meta(res, x, names[i]);
    /* a.txt, img.png + picture, gone.txt, doc.pdf + page 2, b.txt */
    ck_assert_uint_eq(json_array_get_length(blocks), 7);
    check_blocks(names[i], blocks, x, "low");
    json_node_unref(msg);
  }
  rd_result_free(x);
}
END_TEST

START_TEST(formats_daemon_toolresult) {
  RdResult *x = read_xml();
  JsonNode *msg = call_read("\"format\":\"toolresult\"");
  JsonObject *res = rd_result_of(msg);
  JsonObject *t = json_object_get_object_member(res, "toolresult");
  JsonArray *images = json_object_get_array_member(t, "images");

  assert_same_meta(res, x, "toolresult");
  ck_assert(json_object_get_boolean_member(t, "success"));
  ck_assert_str_eq(json_object_get_string_member(t, "content"),
                   json_object_get_string_member(x->result, "xml"));
  ck_assert_str_eq(json_object_get_string_member(t, "shortResult"),
                   "Read 4 files (2 images), 1 error");
  ck_assert_str_eq(json_object_get_string_member(t, "error"),
                   "1 of 5 files could not be read: gone.txt: FILE_NOT_FOUND: no such file");
  ck_assert_uint_eq(json_array_get_length(images), 2);
  for (guint k = 0; k < 2; k++) {
    JsonObject *img = json_array_get_object_element(images, k);

    ck_assert_str_eq(json_object_get_string_member(img, "data"), image_data(x, k));
    ck_assert_str_eq(json_object_get_string_member(img, "mediaType"), image_type(x, k));
  }
  json_node_unref(msg);
  rd_result_free(x);
}
END_TEST

START_TEST(formats_daemon_text) {
  RdResult *x = read_xml();
  JsonNode *msg = call_read("\"format\":\"text\"");
  JsonObject *res = rd_result_of(msg);
  const char *text = json_object_get_string_member(res, "text");
  char **lines = g_strsplit(text, "\n", -1);
  JsonObject *png = json_array_get_object_element(x->images, 0);
  g_autofree char *png_line = g_strdup_printf(
      "[image 0: image/png, %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ", %zu bytes of base64]",
      json_object_get_int_member(png, "width"), json_object_get_int_member(png, "height"),
      strlen(image_data(x, 0)));

  assert_same_meta(res, x, "text");
  ck_assert(g_str_has_prefix(lines[0], "==> a.txt (text, 2 lines, 20 bytes, utf-8, lf, modified "));
  ck_assert_str_eq(lines[1], "     1\talpha one");
  ck_assert_str_eq(lines[2], "     2\talpha two");
  ck_assert_str_eq(lines[3], "");
  ck_assert(g_str_has_prefix(lines[4], "==> img.png (image, "));
  ck_assert_str_eq(lines[5], png_line);
  ck_assert_str_eq(lines[7], "==> gone.txt (error FILE_NOT_FOUND: no such file) <==");
  ck_assert(g_str_has_prefix(lines[9], "==> doc.pdf (pdf, 2 pages, "));
  ck_assert_str_eq(lines[10], "--- page 1 ---");
  ck_assert_str_eq(lines[11], "Hello from page one");
  ck_assert(g_str_has_prefix(lines[12], "--- page 2 [image 1: image/png, "));
  ck_assert(g_str_has_prefix(lines[14], "==> b.txt (text, 1 line, "));
  ck_assert_str_eq(lines[15], "     1\ttab\there & <b> ]]> \"q\"");
  ck_assert_str_eq(lines[16], "");
  ck_assert_ptr_null(lines[17]);
  g_strfreev(lines);
  json_node_unref(msg);
  rd_result_free(x);
}
END_TEST

START_TEST(formats_daemon_bad_params) {
  JsonNode *msg = call_read("\"format\":\"json\"");
  const char *m;

  ck_assert_int_eq(rd_error_code(msg), -32602);
  m = json_object_get_string_member(
      json_object_get_object_member(json_node_get_object(msg), "error"), "message");
  ck_assert(g_str_has_prefix(m, "format must be one of"));
  json_node_unref(msg);
  msg = call_read("\"images\":{\"detail\":\"medium\"}");
  ck_assert_int_eq(rd_error_code(msg), -32602);
  json_node_unref(msg);
  /* The connection serves on. */
  msg = call_read("\"format\":null");
  ck_assert(json_object_has_member(rd_result_of(msg), "xml"));
  json_node_unref(msg);
}
END_TEST

/* Runs readerd with the given arguments (NULL-terminated) in the daemon's folder. */
static void run(RdRun *ret, const char *arg, ...) {
  GPtrArray *argv = g_ptr_array_new();
  va_list ap;

  g_ptr_array_add(argv, (gpointer)rd_readerd());
  va_start(ap, arg);
  for (const char *a = arg; a; a = va_arg(ap, const char *))
    g_ptr_array_add(argv, (gpointer)a);
  va_end(ap);
  g_ptr_array_add(argv, NULL);
  rd_run(dmn->dir, (const char *const *)argv->pdata, NULL, 0, 30000, ret);
  g_ptr_array_free(argv, TRUE);
}

/* `readerd read --format F` prints what the daemon's result holds under F, and `--json` the
 * whole result object. */
START_TEST(formats_cli_matches_daemon) {
  for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
    g_autofree char *extra = g_strdup_printf("\"format\":\"%s\"", formats[i]);
    JsonNode *msg = call_read(extra);
    JsonObject *res = rd_result_of(msg);
    RdRun o, j;

    run(&o, "read", "--format", formats[i], "a.txt", "img.png", "gone.txt", "doc.pdf", "b.txt",
        NULL);
    ck_assert_msg(o.code == 1, "%s: exit %d (a file failed): %s", formats[i], o.code, o.err);
    if (strcmp(formats[i], "text") == 0) {
      ck_assert_str_eq(o.out, json_object_get_string_member(res, "text"));
    } else {
      JsonNode *printed = rd_json_parse(o.out, o.out_len);

      ck_assert_msg(json_node_equal(printed, json_object_get_member(res, formats[i])),
                    "%s: the CLI's shape differs from the daemon's", formats[i]);
      ck_assert_msg(o.out_len > 0 && o.out[o.out_len - 1] == '\n', "no final newline");
      json_node_unref(printed);
    }
    run(&j, "read", "--json", "a.txt", "img.png", "gone.txt", "doc.pdf", "b.txt", "--format",
        formats[i], NULL);
    ck_assert_int_eq(j.code, 1);
    {
      JsonNode *printed = rd_json_parse(j.out, j.out_len);
      JsonNode *want = json_object_get_member(json_node_get_object(msg), "result");

      ck_assert_msg(json_node_equal(printed, want), "%s: --json differs from the daemon's result",
                    formats[i]);
      json_node_unref(printed);
    }
    rd_run_clear(&o);
    rd_run_clear(&j);
    json_node_unref(msg);
  }
}
END_TEST

START_TEST(formats_cli_options) {
  RdRun o;
  JsonNode *printed;
  JsonArray *parts;
  guint n;

  run(&o, "read", "--format", "bogus", "a.txt", NULL);
  ck_assert_int_eq(o.code, 2);
  ck_assert_msg(strstr(o.err, "--format") != NULL, "stderr: %s", o.err);
  rd_run_clear(&o);
  run(&o, "read", "--image-detail", "medium", "a.txt", NULL);
  ck_assert_int_eq(o.code, 2);
  rd_run_clear(&o);
  run(&o, "read", "--format", "openai", "--image-detail", "high", "img.png", NULL);
  ck_assert_msg(o.code == 0, "exit %d: %s", o.code, o.err);
  printed = rd_json_parse(o.out, o.out_len);
  parts = json_node_get_array(printed);
  n = json_array_get_length(parts);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(
      json_object_get_string_member(
          json_object_get_object_member(json_array_get_object_element(parts, 1), "image_url"),
          "detail"),
      "high");
  json_node_unref(printed);
  rd_run_clear(&o);
  /* The default is still the XML alone, and text ends with exactly one newline. */
  run(&o, "read", "a.txt", NULL);
  ck_assert(g_str_has_prefix(o.out, "<ReadResults "));
  ck_assert(g_str_has_suffix(o.out, "</ReadResults>\n"));
  rd_run_clear(&o);
  run(&o, "read", "--format", "text", "a.txt", NULL);
  ck_assert(g_str_has_suffix(o.out, "     2\talpha two\n"));
  ck_assert(!g_str_has_suffix(o.out, "\n\n"));
  rd_run_clear(&o);
}
END_TEST

static Suite *formats_daemon_suite(void) {
  Suite *s = suite_create("formats-daemon");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, formats_setup, formats_teardown);
  tcase_add_test(tc, formats_daemon_capabilities);
  tcase_add_test(tc, formats_daemon_fixture);
  tcase_add_test(tc, formats_daemon_agent_shapes);
  tcase_add_test(tc, formats_daemon_toolresult);
  tcase_add_test(tc, formats_daemon_text);
  tcase_add_test(tc, formats_daemon_bad_params);
  tcase_add_test(tc, formats_cli_matches_daemon);
  tcase_add_test(tc, formats_cli_options);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(formats_daemon_suite());
}
