/* formatters/format.c and the formats: xml, anthropic, openai, toolresult, text, on results
 * built here. JSON output is parsed back with json-glib and checked member by member; the XML
 * inside is compared with what xml.c writes for the same file. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "formatters/format.h"
#include "formatters/result-json.h"
#include "formatters/result.h"
#include "tests/lib/check-run.h"
#include "tests/result-builder.h"
#include "formatters/xml.h"
#include "ipc/read-params.h"

#define FFFD "\xEF\xBF\xBD"

static const char *const agent_formats[] = {"anthropic", "openai", "mcp"};
static const char *const all_formats[] = {"xml",        "anthropic", "openai",
                                          "toolresult", "text",      "mcp"};

/* ---------------------------------------------------------------- building results */

static FileResult *add_text(ReadResult *r, const char *path, const char *content, int64_t lines) {
  FileResult *f = rb_add_file(r, path);

  f->type = FILE_TYPE_TEXT;
  f->content = g_strdup(content);
  f->content_len = strlen(content);
  f->bytes = 1000 + (int64_t)f->content_len;
  f->modified_ms = 1763803502123;
  f->lines = lines;
  f->encoding = "utf-8";
  f->eol = "lf";
  f->shown_first = lines > 0 ? 1 : 0;
  f->shown_last = lines;
  return f;
}

static FileResult *add_image(ReadResult *r, const char *path, const char *mt, const char *data) {
  FileResult *f = rb_add_file(r, path);

  f->type = FILE_TYPE_IMAGE;
  f->bytes = 48211;
  f->modified_ms = 1763803502000;
  rb_add_image_out(f, mt, data, 640, 400);
  return f;
}

/* A two-page PDF: page 1 text, page 2 rendered (its image is the file's only one). */
static FileResult *add_pdf(ReadResult *r, const char *path) {
  FileResult *f = rb_add_file(r, path);
  PageOut *p;
  ImageOut *img;

  f->type = FILE_TYPE_PDF;
  f->bytes = 1433122;
  f->modified_ms = 1763803502456;
  f->pages = 12;
  f->truncated = true;
  p = file_result_add_page(f);
  p->number = 1;
  p->text = g_strdup("Hello from page one");
  p->text_len = strlen(p->text);
  p = file_result_add_page(f);
  p->number = 2;
  p->text = g_strdup("");
  img = rb_add_image_out(f, "image/png", "UERGcGFnZTI=", 1224, 1584);
  img->page = 2;
  f->page_out[1].image = 0;
  return f;
}

/* The multi-file read every shape is checked on: text, image, failing file, PDF page. */
static void build_mixed(ReadResult *r) {
  memset(r, 0, sizeof(*r));
  add_text(r, "src/a.c",
           "     1\tint main(void) {\n     2\t  return 0; /* ]]> & <x> \"q\" */\n     3\t}\n", 3);
  add_image(r, "shot.png", "image/png", "iVBORw0KGgoAAAANSUhEUg==");
  rb_add_failed(r, "gone.txt", CODE_FILE_NOT_FOUND, "no such file");
  add_pdf(r, "doc.pdf");
}

/* ---------------------------------------------------------------- helpers */

static char *format_str(const char *name, const ReadResult *r, bool bare, const char *detail) {
  const Formatter *fmt = format_get(name);
  FormatOptions o = {.bare = bare, .detail = detail};
  size_t len = 0;
  char *s;

  ck_assert_msg(fmt != NULL, "no formatter %s", name);
  s = format_result(fmt, r, &o, &len);
  ck_assert_ptr_nonnull(s);
  ck_assert_uint_eq(strlen(s), len);
  return s;
}

static JsonNode *parse(const char *text) {
  JsonParser *p = json_parser_new();
  GError *err = NULL;
  JsonNode *root;

  ck_assert_msg(json_parser_load_from_data(p, text, -1, &err), "not JSON (%s): %.300s",
                err ? err->message : "?", text);
  root = json_node_copy(json_parser_get_root(p));
  g_object_unref(p);
  return root;
}

static char *member_names(JsonObject *o) {
  GList *names = json_object_get_members(o);
  GString *s = g_string_new(NULL);

  for (GList *l = names; l != NULL; l = l->next)
    g_string_append_printf(s, "%s%s", s->len > 0 ? " " : "", (const char *)l->data);
  g_list_free(names);
  return g_string_free(s, FALSE);
}

static void assert_members(JsonObject *o, const char *expected) {
  g_autofree char *names = member_names(o);

  ck_assert_str_eq(names, expected);
}

/* The <Content> element xml.c writes for f. */
static char *content_xml(const FileResult *f, int64_t image_index) {
  GString *gs = g_string_new(NULL);

  ck_assert_int_eq(xml_format_content(gs, f, image_index), 0);
  return g_string_free(gs, FALSE);
}

/* The image index of every file, as the contract counts them. */
static int64_t image_index_of(const ReadResult *r, size_t i) {
  int64_t k = 0;

  for (size_t j = 0; j < i; j++)
    if (r->files[j].code == NULL)
      k += (int64_t)r->files[j].n_images;
  return k;
}

/* files[], bytes and lines of the contract's own result object. */
static JsonNode *contract_result(const ReadResult *r) {
  g_autofree char *xml = xml_format(r, NULL);
  g_autofree char *json = result_json_format(r, xml, NULL);

  return parse(json);
}

/* Checks a wrapped result object: {name: shape, files, bytes, lines}, with files, bytes and
 * lines equal to the contract's. Returns the shape (owned by root). */
static JsonNode *check_wrapped(JsonNode *root, const char *name, const ReadResult *r) {
  g_autoptr(JsonNode) want = contract_result(r);
  JsonObject *o = json_node_get_object(root), *w = json_node_get_object(want);
  g_autofree char *keys = g_strdup_printf("%s files bytes lines tokens", name);

  ck_assert(JSON_NODE_HOLDS_OBJECT(root));
  assert_members(o, keys);
  ck_assert_msg(
      json_node_equal(json_object_get_member(o, "files"), json_object_get_member(w, "files")),
      "%s: files differ from the contract's", name);
  ck_assert_int_eq(json_object_get_int_member(o, "bytes"), json_object_get_int_member(w, "bytes"));
  ck_assert_int_eq(json_object_get_int_member(o, "lines"), json_object_get_int_member(w, "lines"));
  return json_object_get_member(o, name);
}

/* ---------------------------------------------------------------- tests */

START_TEST(formats_lookup) {
  for (size_t i = 0; i < G_N_ELEMENTS(all_formats); i++) {
    const Formatter *fmt = format_get(all_formats[i]);

    ck_assert_ptr_nonnull(fmt);
    ck_assert_str_eq(fmt->name, all_formats[i]);
    ck_assert_ptr_nonnull(fmt->head);
    ck_assert_ptr_nonnull(fmt->file);
    ck_assert_ptr_nonnull(fmt->tail);
    /* The table lists them in this order, the default first. */
    ck_assert_ptr_eq(format_at(i), fmt);
  }
  ck_assert_ptr_null(format_at(G_N_ELEMENTS(all_formats)));
  ck_assert_ptr_null(format_get("XML"));
  ck_assert_ptr_null(format_get("json"));
  ck_assert_ptr_null(format_get(""));
  ck_assert_ptr_null(format_get(NULL));
}
END_TEST

/* The default format is the contract's result, byte for byte as xml.c and result-json.c
 * write it. */
START_TEST(formats_xml_is_the_contract) {
  ReadResult r;
  g_autofree char *xml = NULL, *json = NULL, *bare = NULL, *wrapped = NULL;

  build_mixed(&r);
  xml = xml_format(&r, NULL);
  json = result_json_format(&r, xml, NULL);
  bare = format_str("xml", &r, true, NULL);
  wrapped = format_str("xml", &r, false, NULL);
  ck_assert_str_eq(bare, xml);
  ck_assert_str_eq(wrapped, json);
  read_result_clear(&r);
}
END_TEST

/* Pieces formatted one by one, as the request does, give the whole answer. */
START_TEST(formats_pieces_make_the_whole) {
  ReadResult r;

  build_mixed(&r);
  for (size_t i = 0; i < G_N_ELEMENTS(all_formats); i++) {
    for (int bare = 0; bare <= 1; bare++) {
      const Formatter *fmt = format_get(all_formats[i]);
      FormatOptions o = {.bare = bare, .detail = "high"};
      g_autofree char *whole = format_str(all_formats[i], &r, bare, "high");
      GString *joined = g_string_new(NULL);

      fmt->head(joined, &r, &o);
      for (size_t k = 0; k < r.n_files; k++) {
        GString *p = format_file_piece(fmt, &r.files[k], k, image_index_of(&r, k), &o);

        ck_assert_ptr_nonnull(p);
        g_string_append_len(joined, p->str, (gssize)p->len);
        g_string_free(p, TRUE);
      }
      fmt->tail(joined, &r, &o);
      ck_assert_str_eq(joined->str, whole);
      g_string_free(joined, TRUE);
    }
  }
  read_result_clear(&r);
}
END_TEST

/* One text block per file holding its <Content>, then one block per picture. */
static void check_agent_blocks(const char *name, JsonArray *blocks, const ReadResult *r,
                               const char *detail) {
  guint b = 0;

  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];
    g_autofree char *want = content_xml(f, image_index_of(r, i));
    JsonObject *o;

    ck_assert_uint_lt(b, json_array_get_length(blocks));
    o = json_array_get_object_element(blocks, b++);
    assert_members(o, "type text");
    ck_assert_str_eq(json_object_get_string_member(o, "type"), "text");
    ck_assert_str_eq(json_object_get_string_member(o, "text"), want);
    for (size_t k = 0; f->code == NULL && k < f->n_images; k++) {
      const ImageOut *img = &f->images[k];

      ck_assert_uint_lt(b, json_array_get_length(blocks));
      o = json_array_get_object_element(blocks, b++);
      assert_members(o, strcmp(name, "anthropic") == 0 ? "type source"
                        : strcmp(name, "mcp") == 0     ? "type data mimeType"
                                                       : "type image_url");
      if (strcmp(name, "mcp") == 0) {
        ck_assert_str_eq(json_object_get_string_member(o, "type"), "image");
        ck_assert_str_eq(json_object_get_string_member(o, "mimeType"), img->media_type);
        ck_assert_str_eq(json_object_get_string_member(o, "data"), img->data);
      } else if (strcmp(name, "anthropic") == 0) {
        JsonObject *src = json_object_get_object_member(o, "source");

        ck_assert_str_eq(json_object_get_string_member(o, "type"), "image");
        assert_members(src, "type media_type data");
        ck_assert_str_eq(json_object_get_string_member(src, "type"), "base64");
        ck_assert_str_eq(json_object_get_string_member(src, "media_type"), img->media_type);
        ck_assert_str_eq(json_object_get_string_member(src, "data"), img->data);
      } else {
        JsonObject *u = json_object_get_object_member(o, "image_url");
        g_autofree char *url = g_strdup_printf("data:%s;base64,%s", img->media_type, img->data);

        ck_assert_str_eq(json_object_get_string_member(o, "type"), "image_url");
        assert_members(u, "url detail");
        ck_assert_str_eq(json_object_get_string_member(u, "url"), url);
        ck_assert_str_eq(json_object_get_string_member(u, "detail"), detail);
      }
    }
  }
  ck_assert_uint_eq(b, json_array_get_length(blocks));
}

START_TEST(formats_agent_blocks) {
  ReadResult r;

  build_mixed(&r);
  for (size_t i = 0; i < G_N_ELEMENTS(agent_formats); i++) {
    g_autofree char *bare = format_str(agent_formats[i], &r, true, NULL);
    g_autofree char *wrapped = format_str(agent_formats[i], &r, false, NULL);
    g_autoptr(JsonNode) b = parse(bare);
    g_autoptr(JsonNode) w = parse(wrapped);
    JsonNode *shape = check_wrapped(w, agent_formats[i], &r);

    ck_assert(JSON_NODE_HOLDS_ARRAY(b));
    /* text, text + image, text (failed), text + rendered page */
    ck_assert_uint_eq(json_array_get_length(json_node_get_array(b)), 6);
    check_agent_blocks(agent_formats[i], json_node_get_array(b), &r, "auto");
    ck_assert(json_node_equal(shape, b));
  }
  read_result_clear(&r);
}
END_TEST

START_TEST(formats_openai_detail) {
  static const char *const details[] = {"low", "high", "auto"};
  ReadResult r;

  build_mixed(&r);
  for (size_t i = 0; i < G_N_ELEMENTS(details); i++) {
    g_autofree char *out = format_str("openai", &r, true, details[i]);
    g_autoptr(JsonNode) b = parse(out);

    check_agent_blocks("openai", json_node_get_array(b), &r, details[i]);
  }
  read_result_clear(&r);
}
END_TEST

/* The formats that write pictures per file must not need them again in the tail: the request
 * frees each image's base64 once its file's piece is formatted. */
START_TEST(formats_tail_without_image_data) {
  ReadResult r;

  build_mixed(&r);
  for (size_t i = 0; i < G_N_ELEMENTS(all_formats); i++) {
    const Formatter *fmt = format_get(all_formats[i]);
    FormatOptions o = {.bare = false};
    GString *with = g_string_new(NULL), *without = g_string_new(NULL);
    ReadResult blank = r;

    if (fmt->tail_uses_image_data) {
      g_string_free(with, TRUE);
      g_string_free(without, TRUE);
      continue;
    }
    blank.files = g_new(FileResult, r.n_files);
    memcpy(blank.files, r.files, r.n_files * sizeof(FileResult));
    for (size_t k = 0; k < r.n_files; k++) {
      FileResult *f = &blank.files[k];

      f->images = g_new0(ImageOut, f->n_images + 1);
      if (f->n_images > 0)
        memcpy(f->images, r.files[k].images, f->n_images * sizeof(ImageOut));
      for (size_t j = 0; j < f->n_images; j++)
        f->images[j].data = NULL;
    }
    fmt->tail(with, &r, &o);
    fmt->tail(without, &blank, &o);
    ck_assert_str_eq(with->str, without->str);
    for (size_t k = 0; k < r.n_files; k++)
      g_free(blank.files[k].images);
    g_free(blank.files);
    g_string_free(with, TRUE);
    g_string_free(without, TRUE);
  }
  ck_assert(format_get("xml")->tail_uses_image_data);
  ck_assert(format_get("toolresult")->tail_uses_image_data);
  read_result_clear(&r);
}
END_TEST

START_TEST(formats_toolresult_shape) {
  ReadResult r;
  g_autofree char *bare = NULL, *wrapped = NULL, *xml = NULL;
  g_autoptr(JsonNode) b = NULL, w = NULL;
  JsonObject *o;
  JsonArray *images;

  build_mixed(&r);
  bare = format_str("toolresult", &r, true, NULL);
  wrapped = format_str("toolresult", &r, false, NULL);
  xml = xml_format(&r, NULL);
  b = parse(bare);
  w = parse(wrapped);
  ck_assert(json_node_equal(check_wrapped(w, "toolresult", &r), b));
  o = json_node_get_object(b);
  assert_members(o, "success content error shortResult images");
  ck_assert(json_object_get_boolean_member(o, "success"));
  ck_assert_str_eq(json_object_get_string_member(o, "content"), xml);
  ck_assert_str_eq(json_object_get_string_member(o, "error"),
                   "1 of 4 files could not be read: gone.txt: FILE_NOT_FOUND: no such file");
  ck_assert_str_eq(json_object_get_string_member(o, "shortResult"),
                   "Read 3 files (2 images), 1 error");
  images = json_object_get_array_member(o, "images");
  ck_assert_uint_eq(json_array_get_length(images), 2);
  assert_members(json_array_get_object_element(images, 0), "data mediaType");
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(images, 0), "data"),
                   r.files[1].images[0].data);
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(images, 1), "data"),
                   r.files[3].images[0].data);
  ck_assert_str_eq(
      json_object_get_string_member(json_array_get_object_element(images, 1), "mediaType"),
      "image/png");
  read_result_clear(&r);
}
END_TEST

static JsonObject *toolresult_of(const ReadResult *r, JsonNode **ret_root) {
  g_autofree char *s = format_str("toolresult", r, true, NULL);

  *ret_root = parse(s);
  return json_node_get_object(*ret_root);
}

/* success is false only when every file failed; error only when one did. */
START_TEST(formats_toolresult_success_and_summary) {
  ReadResult r = {0};
  JsonNode *root;
  JsonObject *o;

  o = toolresult_of(&r, &root);
  ck_assert(json_object_get_boolean_member(o, "success"));
  ck_assert_str_eq(json_object_get_string_member(o, "shortResult"), "Read 0 files");
  ck_assert(!json_object_has_member(o, "error"));
  json_node_unref(root);

  add_text(&r, "one.txt", "     1\tx\n", 1);
  o = toolresult_of(&r, &root);
  ck_assert(json_object_get_boolean_member(o, "success"));
  ck_assert_str_eq(json_object_get_string_member(o, "shortResult"), "Read 1 file");
  assert_members(o, "success content shortResult images");
  json_node_unref(root);
  read_result_clear(&r);

  for (int i = 0; i < 13; i++) {
    g_autofree char *p = g_strdup_printf("missing-%d", i);

    rb_add_failed(&r, p, i % 2 ? CODE_ACCESS_DENIED : CODE_FILE_NOT_FOUND, "nope");
  }
  o = toolresult_of(&r, &root);
  ck_assert(!json_object_get_boolean_member(o, "success"));
  ck_assert_str_eq(json_object_get_string_member(o, "shortResult"), "Read 0 files, 13 errors");
  ck_assert(g_str_has_prefix(json_object_get_string_member(o, "error"),
                             "13 of 13 files could not be read: missing-0: FILE_NOT_FOUND: nope; "
                             "missing-1: ACCESS_DENIED: nope; "));
  ck_assert(g_str_has_suffix(json_object_get_string_member(o, "error"),
                             "missing-9: ACCESS_DENIED: nope; and 3 more"));
  json_node_unref(root);

  add_image(&r, "a.png", "image/png", "AAAA");
  o = toolresult_of(&r, &root);
  ck_assert(json_object_get_boolean_member(o, "success"));
  ck_assert_str_eq(json_object_get_string_member(o, "shortResult"),
                   "Read 1 file (1 image), 13 errors");
  json_node_unref(root);
  read_result_clear(&r);
}
END_TEST

/* The lines of s (without a last empty one). */
static char **lines_of(const char *s) {
  char **l = g_strsplit(s, "\n", -1);
  guint n = g_strv_length(l);

  if (n > 0 && l[n - 1][0] == '\0') {
    g_free(l[n - 1]);
    l[n - 1] = NULL;
  }
  return l;
}

START_TEST(formats_text_shape) {
  ReadResult r;
  g_autofree char *bare = NULL, *wrapped = NULL;
  g_autoptr(JsonNode) w = NULL;
  char **l;
  char time[XML_TIME_MAX];

  build_mixed(&r);
  bare = format_str("text", &r, true, NULL);
  wrapped = format_str("text", &r, false, NULL);
  w = parse(wrapped);
  ck_assert_str_eq(json_node_get_string(check_wrapped(w, "text", &r)), bare);
  l = lines_of(bare);
  xml_format_time(r.files[0].modified_ms, time);
  {
    g_autofree char *h = g_strdup_printf("==> src/a.c (text, 3 lines, %" G_GINT64_FORMAT
                                         " bytes, utf-8, lf, modified %s) <==",
                                         r.files[0].bytes, time);
    ck_assert_str_eq(l[0], h);
  }
  ck_assert_str_eq(l[1], "     1\tint main(void) {");
  ck_assert_str_eq(l[3], "     3\t}");
  ck_assert_str_eq(l[4], "");
  ck_assert(g_str_has_prefix(l[5], "==> shot.png (image, 48211 bytes, modified "));
  ck_assert_str_eq(l[6], "[image 0: image/png, 640x400, 24 bytes of base64]");
  ck_assert_str_eq(l[7], "");
  ck_assert_str_eq(l[8], "==> gone.txt (error FILE_NOT_FOUND: no such file) <==");
  ck_assert_str_eq(l[9], "");
  ck_assert(
      g_str_has_prefix(l[10], "==> doc.pdf (pdf, 12 pages, 1433122 bytes, truncated, modified "));
  ck_assert_str_eq(l[11], "--- page 1 ---");
  ck_assert_str_eq(l[12], "Hello from page one");
  ck_assert_str_eq(l[13], "--- page 2 [image 1: image/png, 1224x1584, 12 bytes of base64] ---");
  ck_assert_ptr_null(l[14]);
  g_strfreev(l);
  read_result_clear(&r);
}
END_TEST

/* A file cannot drive the terminal: controls become U+FFFD, tabs and newlines stay; in the
 * header a newline of the path is replaced too. */
START_TEST(formats_text_controls_replaced) {
  ReadResult r = {0};
  g_autofree char *out = NULL;
  FileResult *f = add_text(&r, "evil\npath\x1b[2J",
                           "a\x1b[31mred\r\x7f\xc2\x9b"
                           "b\tc\xe2\x82\xac\n",
                           1);
  char **l;

  f->modified_ms = RESULT_TIME_UNKNOWN;
  f->bytes = 9;
  out = format_str("text", &r, true, NULL);
  l = lines_of(out);
  ck_assert_str_eq(l[0], "==> evil" FFFD "path" FFFD "[2J (text, 1 line, 9 bytes, utf-8, lf, "
                        "pathBytes evil\\x0apath\\x1b[2J) <==");
  ck_assert_str_eq(l[1], "a" FFFD "[31mred" FFFD FFFD FFFD "b\tc\xe2\x82\xac");
  ck_assert_ptr_null(l[2]);
  g_strfreev(l);
  read_result_clear(&r);
}
END_TEST

/* Every format's JSON parses whatever the strings hold, and the XML inside stays intact. */
START_TEST(formats_hostile_strings_stay_json) {
  static const char *const nasty[] = {"\"",         "\\",           "\x01\x1f",
                                      "\xff\xfe",   "\xed\xa0\x80", "]]>",
                                      "</Content>", "\xe2\x80\xa8", "'&<>"};
  ReadResult r = {0};

  for (size_t i = 0; i < G_N_ELEMENTS(nasty); i++) {
    g_autofree char *path = g_strdup_printf("p%s%zu", nasty[i], i);
    g_autofree char *text = g_strdup_printf("     1\t%s\n", nasty[i]);

    add_text(&r, path, text, 1);
    rb_add_failed(&r, path, CODE_ACCESS_DENIED, nasty[i]);
  }
  add_image(&r, "i\"mg.png", "image/png", "AAAA");
  for (size_t i = 0; i < G_N_ELEMENTS(all_formats); i++) {
    for (int bare = 0; bare <= 1; bare++) {
      g_autofree char *s = NULL;

      if (bare && (strcmp(all_formats[i], "xml") == 0 || strcmp(all_formats[i], "text") == 0))
        continue;
      s = format_str(all_formats[i], &r, bare, NULL);
      json_node_unref(parse(s));
    }
  }
  read_result_clear(&r);
}
END_TEST

START_TEST(formats_empty_result) {
  ReadResult r = {0};

  for (size_t i = 0; i < G_N_ELEMENTS(agent_formats); i++) {
    g_autofree char *bare = format_str(agent_formats[i], &r, true, NULL);
    g_autofree char *wrapped = format_str(agent_formats[i], &r, false, NULL);
    g_autofree char *want =
        g_strdup_printf("{\"%s\":[],\"files\":[],\"bytes\":0,\"lines\":0,\"tokens\":0}", agent_formats[i]);

    ck_assert_str_eq(bare, "[]");
    ck_assert_str_eq(wrapped, want);
  }
  {
    g_autofree char *t = format_str("text", NULL, true, NULL);
    g_autofree char *tw = format_str("text", NULL, false, NULL);

    ck_assert_str_eq(t, "");
    ck_assert_str_eq(tw, "{\"text\":\"\",\"files\":[],\"bytes\":0,\"lines\":0,\"tokens\":0}");
  }
}
END_TEST

/* Image indices count over files in order, failed files' pictures left out, in every format:
 * the text block's image='k' names the k-th picture block. */
START_TEST(formats_image_indices_span_files) {
  ReadResult r = {0};
  g_autofree char *out = NULL;
  g_autoptr(JsonNode) b = NULL;
  JsonArray *blocks;
  FileResult *failed;

  add_image(&r, "a.png", "image/png", "QUFB");
  failed = add_image(&r, "b.png", "image/png", "QkJC");
  file_result_fail(failed, CODE_FILE_TOO_LARGE, "over the request's image budget");
  add_pdf(&r, "c.pdf");
  add_image(&r, "d.webp", "image/webp", "RERE");
  out = format_str("anthropic", &r, true, NULL);
  b = parse(out);
  blocks = json_node_get_array(b);
  /* a: text image; b: text; c: text image; d: text image */
  ck_assert_uint_eq(json_array_get_length(blocks), 7);
  ck_assert(strstr(json_object_get_string_member(json_array_get_object_element(blocks, 0), "text"),
                   "image='0'"));
  ck_assert(strstr(json_object_get_string_member(json_array_get_object_element(blocks, 2), "text"),
                   "code='FILE_TOO_LARGE'"));
  ck_assert(strstr(json_object_get_string_member(json_array_get_object_element(blocks, 3), "text"),
                   "<Page number='2' image='1'/>"));
  ck_assert(strstr(json_object_get_string_member(json_array_get_object_element(blocks, 5), "text"),
                   "image='2'"));
  ck_assert_str_eq(
      json_object_get_string_member(
          json_object_get_object_member(json_array_get_object_element(blocks, 6), "source"),
          "data"),
      "RERE");
  read_result_clear(&r);
}
END_TEST

/* Random results: every format stays parseable and its pieces add up. */
START_TEST(formats_random_results) {
  GRand *rand = g_rand_new_with_seed(0x6f726d61);

  for (int round = 0; round < 200; round++) {
    ReadResult r = {0};
    int n = g_rand_int_range(rand, 0, 6);

    for (int i = 0; i < n; i++) {
      char buf[24];
      int len = g_rand_int_range(rand, 0, (int)sizeof(buf));

      for (int k = 0; k < len; k++)
        buf[k] = (char)g_rand_int_range(rand, 1, 256);
      buf[len] = '\0';
      switch (g_rand_int_range(rand, 0, 4)) {
      case 0:
        add_text(&r, buf, buf, 1);
        break;
      case 1:
        add_image(&r, buf, "image/jpeg", "/9j/");
        break;
      case 2:
        rb_add_failed(&r, buf, CODE_READ_ERROR, buf);
        break;
      default:
        add_pdf(&r, buf);
      }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(all_formats); i++) {
      g_autofree char *s = format_str(all_formats[i], &r, false, "low");

      json_node_unref(parse(s));
    }
    read_result_clear(&r);
  }
  g_rand_free(rand);
}
END_TEST

static Suite *formats_suite(void) {
  Suite *s = suite_create("formats");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, formats_lookup);
  tcase_add_test(tc, formats_xml_is_the_contract);
  tcase_add_test(tc, formats_pieces_make_the_whole);
  tcase_add_test(tc, formats_agent_blocks);
  tcase_add_test(tc, formats_openai_detail);
  tcase_add_test(tc, formats_tail_without_image_data);
  tcase_add_test(tc, formats_toolresult_shape);
  tcase_add_test(tc, formats_toolresult_success_and_summary);
  tcase_add_test(tc, formats_text_shape);
  tcase_add_test(tc, formats_text_controls_replaced);
  tcase_add_test(tc, formats_hostile_strings_stay_json);
  tcase_add_test(tc, formats_empty_result);
  tcase_add_test(tc, formats_image_indices_span_files);
  tcase_add_test(tc, formats_random_results);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(formats_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
