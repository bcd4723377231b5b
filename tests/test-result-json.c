/* formatters/result-json.c and formatters/result.c: the `read` result object and the helpers
 * of the internal result. Output is parsed back with json-glib and compared field by field. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "basic/path-bytes.h"
#include "formatters/result-json.h"
#include "formatters/result.h"
#include "tests/lib/check-run.h"
#include "tests/result-builder.h"
#include "formatters/xml.h"

#define FFFD "\xEF\xBF\xBD"

/* ---- building results ---- */

static FileResult *add_text(ReadResult *r, const char *path, const char *content) {
  FileResult *f = rb_add_file(r, path);

  f->type = FILE_TYPE_TEXT;
  f->content = g_strdup(content);
  f->content_len = strlen(content);
  f->bytes = (int64_t)f->content_len;
  f->lines = 1;
  f->encoding = "utf-8";
  f->eol = "lf";
  return f;
}

static FileResult *add_image(ReadResult *r, const char *path, const char *data) {
  FileResult *f = rb_add_file(r, path);

  f->type = FILE_TYPE_IMAGE;
  f->bytes = 4096;
  f->modified_ms = 1700000000123;
  rb_add_image_out(f, "image/png", data, 16, 9);
  return f;
}

/* ---- what a parser must read back, written independently of result-json.c ---- */

/* s with each byte of invalid UTF-8 replaced by U+FFFD; everything else unchanged. */
static char *expected_string(const char *s, size_t len) {
  GString *out = g_string_new(NULL);
  size_t i = 0;

  while (i < len) {
    size_t n = 0;

    for (size_t k = 1; k <= 4 && i + k <= len; k++) {
      if (g_utf8_validate_len(s + i, k, NULL)) {
        n = k;
        break;
      }
    }
    if (n == 0) {
      g_string_append(out, FFFD);
      i++;
    } else {
      g_string_append_len(out, s + i, (gssize)n);
      i += n;
    }
  }
  return g_string_free(out, FALSE);
}

static char *random_string(GRand *rand) {
  static const char *const pieces[] = {"\"",
                                       "\\",
                                       "\\u0000",
                                       "/",
                                       "\n",
                                       "\r",
                                       "\t",
                                       "\b",
                                       "\f",
                                       "\x01",
                                       "\x1F",
                                       "\x7F",
                                       "\xEF\xBF\xBE",
                                       "\xEF\xBF\xBD",
                                       "\xC3\xA9",
                                       "\xE2\x80\xA8",
                                       "\xF0\x9F\x98\x80",
                                       "\xED\xA0\x80",
                                       "\xC0\x80",
                                       "\xE2\x82",
                                       "\xF4\x90\x80\x80",
                                       "{\"a\":1}",
                                       "]",
                                       "a"};
  GString *s = g_string_new(NULL);
  int steps = g_rand_int_range(rand, 0, 40);

  for (int i = 0; i < steps; i++) {
    if (g_rand_boolean(rand))
      g_string_append_c(s, (char)g_rand_int_range(rand, 1, 256));
    else
      g_string_append(s, pieces[g_rand_int_range(rand, 0, G_N_ELEMENTS(pieces))]);
  }
  return g_string_free(s, FALSE);
}

/* ---- comparing ---- */

static char *member_names(JsonObject *o) {
  GList *names = json_object_get_members(o);
  GString *s = g_string_new(NULL);

  for (GList *l = names; l != NULL; l = l->next)
    g_string_append_printf(s, "%s%s", s->len > 0 ? " " : "", (const char *)l->data);
  g_list_free(names);
  return g_string_free(s, FALSE);
}

static void assert_members(JsonObject *o, const char *expected) {
  char *names = member_names(o);

  ck_assert_str_eq(names, expected);
  g_free(names);
}

static void assert_string_member(JsonObject *o, const char *key, const char *raw) {
  char *want = expected_string(raw != NULL ? raw : "", raw != NULL ? strlen(raw) : 0);

  ck_assert_msg(json_object_has_member(o, key), "no %s", key);
  ck_assert_str_eq(json_object_get_string_member(o, key), want);
  g_free(want);
}

static void assert_int_member(JsonObject *o, const char *key, int64_t want) {
  JsonNode *n = json_object_get_member(o, key);

  ck_assert_msg(n != NULL, "no %s", key);
  ck_assert_int_eq(json_node_get_value_type(n), G_TYPE_INT64);
  ck_assert_int_eq(json_node_get_int(n), want);
}

static void assert_true_member(JsonObject *o, const char *key, bool want) {
  JsonNode *n = json_object_get_member(o, key);

  ck_assert_msg(n != NULL, "no %s", key);
  ck_assert_int_eq(json_node_get_value_type(n), G_TYPE_BOOLEAN);
  ck_assert_int_eq(json_node_get_boolean(n), want);
}

/* The keys files[i] must have, in order, from the contract's rules. */
static char *expected_file_keys(const FileResult *f) {
  GString *k = g_string_new("path");
  bool ok = f->code == NULL;

  if (path_bytes_needed(f->path))
    g_string_append(k, " pathBytes");

  if (f->type != FILE_TYPE_UNKNOWN)
    g_string_append(k, " type");
  if (!ok)
    g_string_append(k, " code error");
  if (f->bytes >= 0)
    g_string_append(k, " bytes");
  if (f->modified_ms != RESULT_TIME_UNKNOWN)
    g_string_append(k, " modified");
  g_string_append(k, " tokens");
  if (ok && f->type == FILE_TYPE_TEXT) {
    g_string_append(k, " lines");
    g_string_append(k, f->encoding != NULL ? " encoding" : "");
    g_string_append(k, f->encoding_source != NULL ? " encodingSource" : "");
    g_string_append(k, f->bom ? " bom" : "");
    g_string_append(k, f->eol != NULL ? " eol" : "");
    g_string_append(k, " truncated");
    g_string_append(k, f->shown_first > 0 ? " shown" : "");
  }
  if (ok && f->type == FILE_TYPE_PDF) {
    g_string_append(k, " pages truncated");
    g_string_append(k, f->title != NULL ? " title" : "");
    g_string_append(k, f->author != NULL ? " author" : "");
  }
  if (ok && f->type == FILE_TYPE_IMAGE && f->n_images > 0) {
    g_string_append(k, " mediaType image width height");
    g_string_append(k, f->images[0].original_width > 0 ? " originalWidth originalHeight" : "");
    g_string_append(k, f->animated ? " animated" : "");
  }
  return g_string_free(k, FALSE);
}

static void check_file(JsonObject *o, const FileResult *f, int64_t image_index) {
  char *keys = expected_file_keys(f);

  assert_members(o, keys);
  g_free(keys);
  assert_string_member(o, "path", f->path);
  if (path_bytes_needed(f->path)) {
    g_autofree char *bytes = path_bytes_escape(f->path);
    g_autofree char *back = NULL;

    assert_string_member(o, "pathBytes", bytes);
    ck_assert_int_eq(path_bytes_unescape(json_object_get_string_member(o, "pathBytes"), &back), 0);
    ck_assert_str_eq(back, f->path);
  }
  if (f->type != FILE_TYPE_UNKNOWN)
    assert_string_member(o, "type", file_type_name(f->type));
  if (f->code != NULL) {
    assert_string_member(o, "code", f->code);
    assert_string_member(o, "error", f->error);
  }
  if (f->bytes >= 0)
    assert_int_member(o, "bytes", f->bytes);
  if (f->modified_ms != RESULT_TIME_UNKNOWN)
    assert_int_member(o, "modified", f->modified_ms);
  if (f->code == NULL && f->type == FILE_TYPE_TEXT) {
    assert_int_member(o, "lines", f->lines);
    if (f->encoding != NULL)
      assert_string_member(o, "encoding", f->encoding);
    if (f->bom)
      assert_true_member(o, "bom", true);
    if (f->eol != NULL)
      assert_string_member(o, "eol", f->eol);
    assert_true_member(o, "truncated", f->truncated);
    if (f->shown_first > 0) {
      JsonArray *a = json_object_get_array_member(o, "shown");

      ck_assert_uint_eq(json_array_get_length(a), 2);
      ck_assert_int_eq(json_array_get_int_element(a, 0), f->shown_first);
      ck_assert_int_eq(json_array_get_int_element(a, 1), f->shown_last);
    }
  }
  if (f->code == NULL && f->type == FILE_TYPE_PDF) {
    assert_int_member(o, "pages", f->pages);
    assert_true_member(o, "truncated", f->truncated);
    if (f->title != NULL)
      assert_string_member(o, "title", f->title);
    if (f->author != NULL)
      assert_string_member(o, "author", f->author);
  }
  if (f->code == NULL && f->type == FILE_TYPE_IMAGE && f->n_images > 0) {
    const ImageOut *img = &f->images[0];

    assert_string_member(o, "mediaType", img->media_type);
    assert_int_member(o, "image", image_index);
    assert_int_member(o, "width", img->width);
    assert_int_member(o, "height", img->height);
    if (img->original_width > 0) {
      assert_int_member(o, "originalWidth", img->original_width);
      assert_int_member(o, "originalHeight", img->original_height);
    }
    if (f->animated)
      assert_true_member(o, "animated", true);
  }
}

static void check_image(JsonObject *o, const char *path, const ImageOut *img) {
  GString *keys = g_string_new(path_bytes_needed(path) ? "path pathBytes" : "path");

  g_string_append(keys, " mediaType data width height");

  if (img->original_width > 0)
    g_string_append(keys, " originalWidth originalHeight");
  if (img->page > 0)
    g_string_append(keys, " page");
  assert_members(o, keys->str);
  g_string_free(keys, TRUE);
  assert_string_member(o, "path", path);
  assert_string_member(o, "mediaType", img->media_type);
  assert_string_member(o, "data", img->data);
  assert_int_member(o, "width", img->width);
  assert_int_member(o, "height", img->height);
  if (img->original_width > 0) {
    assert_int_member(o, "originalWidth", img->original_width);
    assert_int_member(o, "originalHeight", img->original_height);
  }
  if (img->page > 0)
    assert_int_member(o, "page", img->page);
}

/* Formats r with xml, parses the output and compares everything with r. */
static void check_result(const ReadResult *r, const char *xml) {
  size_t len = 0, k = 0;
  char *json = result_json_format(r, xml, &len);
  JsonParser *parser = json_parser_new();
  GError *error = NULL;
  JsonObject *root;
  JsonArray *images, *files;
  int64_t bytes = 0, lines = 0, image_index = 0;

  ck_assert_ptr_nonnull(json);
  ck_assert_uint_eq(len, strlen(json));
  ck_assert_msg(g_utf8_validate(json, (gssize)len, NULL), "output is not UTF-8");
  ck_assert_msg(json_parser_load_from_data(parser, json, (gssize)len, &error), "bad JSON: %s\n%s",
                error != NULL ? error->message : "", json);
  root = json_node_get_object(json_parser_get_root(parser));
  assert_members(root, "xml images files bytes lines tokens");
  assert_string_member(root, "xml", xml);

  images = json_object_get_array_member(root, "images");
  files = json_object_get_array_member(root, "files");
  ck_assert_uint_eq(json_array_get_length(files), r->n_files);
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    check_file(json_array_get_object_element(files, (guint)i), f, image_index);
    if (f->code != NULL)
      continue;
    for (size_t j = 0; j < f->n_images; j++, k++) {
      ck_assert_uint_lt(k, json_array_get_length(images));
      check_image(json_array_get_object_element(images, (guint)k), f->path, &f->images[j]);
    }
    image_index += (int64_t)f->n_images;
    bytes += f->bytes > 0 ? f->bytes : 0;
    lines += f->type == FILE_TYPE_TEXT ? f->lines : 0;
  }
  ck_assert_uint_eq(json_array_get_length(images), k);
  assert_int_member(root, "bytes", bytes);
  assert_int_member(root, "lines", lines);
  g_object_unref(parser);
  g_free(json);
}

static void check_with_xml(const ReadResult *r) {
  char *xml = xml_format(r, NULL);

  ck_assert_ptr_nonnull(xml);
  check_result(r, xml);
  g_free(xml);
}

/* ---- result-json ---- */

START_TEST(result_json_fields_match) {
  ReadResult r = {0};
  FileResult *f;
  ImageOut *img;

  f = add_text(&r, "src/a.c", "     1\thello\n");
  f->lines = 2;
  f->modified_ms = 1700000000123;
  f->bom = true;
  f->eol = "crlf";
  f->truncated = true;
  f->shown_first = 10;
  f->shown_last = 14;
  f = add_text(&r, "one-line", "x");
  f->eol = NULL;
  f->encoding = NULL;
  f->modified_ms = 0;
  f = add_image(&r, "shot.png", "iVBORw0KGgo=");
  f = add_image(&r, "x.gif", "R0lGODlh");
  f->animated = true;
  f->images[0].original_width = 4000;
  f->images[0].original_height = 3000;
  f = rb_add_failed(&r, "gone.txt", CODE_FILE_NOT_FOUND, "No such file or directory");
  f = rb_add_failed(&r, "bin.dat", CODE_UNSUPPORTED_FORMAT, "binary");
  f->type = FILE_TYPE_TEXT;
  f->bytes = 2048;
  f->modified_ms = 1;
  f->lines = 99;
  f = add_image(&r, "broken.png", "AAAA"); /* failed: its image is not sent */
  file_result_fail(f, CODE_CORRUPTED_FILE, "bad %s", "header");
  f = add_image(&r, "pages", "QUJD"); /* several images: the file shows the first */
  img = rb_add_image_out(f, "image/jpeg", "/9j/", 8, 6);
  img->page = 2;
  add_image(&r, "last.png", "iVBO");
  check_with_xml(&r);
  read_result_clear(&r);
}
END_TEST

static FileResult *add_pdf(ReadResult *r, const char *path, int64_t pages) {
  FileResult *f = rb_add_file(r, path);
  PageOut *p = file_result_add_page(f);

  f->type = FILE_TYPE_PDF;
  f->bytes = 10000;
  f->modified_ms = 1700000000123;
  f->pages = pages;
  p->number = 1;
  p->text = g_strdup("page one");
  p->text_len = strlen(p->text);
  return f;
}

START_TEST(result_json_pdf_fields) {
  ReadResult r = {0};
  FileResult *f;
  ImageOut *img;

  add_image(&r, "first.png", "iVBO"); /* image 0 */
  f = add_pdf(&r, "doc.pdf", 134);
  f->truncated = true;
  f->title = g_strdup("A \"title\"\twith\x01controls");
  f->author = g_strdup("Ann \xC3\xA9 Author");
  img = rb_add_image_out(f, "image/png", "iVBORw0K", 1109, 1568);
  img->page = 1;
  f->page_out[0].image = 0;
  img = rb_add_image_out(f, "image/jpeg", "/9j/", 1109, 1568);
  img->page = 7;
  f = add_pdf(&r, "short.pdf", 1); /* whole: truncated false, no title or author */
  f = add_pdf(&r, "locked.pdf", 3);
  f->title = g_strdup("not shown");
  rb_add_image_out(f, "image/png", "AAAA", 1, 1); /* failed: its image is not sent */
  file_result_fail(f, CODE_PASSWORD_PROTECTED, "needs a password");
  add_image(&r, "last.png", "iVBO"); /* image 3 */
  check_with_xml(&r);
  read_result_clear(&r);
}
END_TEST

START_TEST(result_add_page_zeroed_and_grows) {
  FileResult f = {0};
  PageOut *p;

  for (int i = 1; i <= 40; i++) {
    p = file_result_add_page(&f);
    ck_assert_int_eq(p->number, 0);
    ck_assert_ptr_null(p->text);
    ck_assert_int_eq(p->image, -1);
    p->number = i;
    p->text = g_strdup_printf("page %d", i);
    p->text_len = strlen(p->text);
  }
  ck_assert_uint_eq(f.n_page_out, 40);
  ck_assert_int_eq(f.page_out[0].number, 1);
  ck_assert_str_eq(f.page_out[39].text, "page 40");
  f.title = g_strdup("t");
  f.author = g_strdup("a");
  f.outline = g_strdup("o");
  f.notice = g_strdup("n");
  file_result_clear(&f); /* frees every PDF member: the ASan run checks for leaks */
  ck_assert_ptr_null(f.page_out);
  ck_assert_uint_eq(f.n_page_out, 0);
  ck_assert_ptr_null(f.title);
}
END_TEST

START_TEST(result_json_escapes_every_control) {
  ReadResult r = {0};
  GString *path = g_string_new(NULL), *escaped = g_string_new("\"path\":\"");
  size_t len;
  char *json;

  /* Expected escapes, per the JSON grammar: short forms where they exist, else \u00XX. */
  for (int c = 1; c < 0x20; c++) {
    g_string_append_c(path, (char)c);
    switch (c) {
    case '\b':
      g_string_append(escaped, "\\b");
      break;
    case '\t':
      g_string_append(escaped, "\\t");
      break;
    case '\n':
      g_string_append(escaped, "\\n");
      break;
    case '\f':
      g_string_append(escaped, "\\f");
      break;
    case '\r':
      g_string_append(escaped, "\\r");
      break;
    default:
      g_string_append_printf(escaped, "\\u%04x", c);
      break;
    }
  }
  g_string_append(path, "\"\\/\x7F\xC3\xA9\xE2\x80\xA8\xEF\xBF\xBE");
  g_string_append(escaped, "\\\"\\\\/\x7F\xC3\xA9\xE2\x80\xA8\xEF\xBF\xBE\"");
  rb_add_failed(&r, path->str, CODE_ACCESS_DENIED, path->str);
  add_text(&r, path->str, "x\n");
  check_result(&r, path->str);

  json = result_json_format(&r, "", &len);
  for (size_t i = 0; i < len; i++)
    ck_assert_msg((unsigned char)json[i] >= 0x20, "raw control byte at %zu", i);
  ck_assert_ptr_nonnull(strstr(json, escaped->str));
  g_free(json);
  g_string_free(path, TRUE);
  g_string_free(escaped, TRUE);
  read_result_clear(&r);
}
END_TEST

START_TEST(result_json_invalid_utf8_replaced) {
  static const char bad[] = "bad\xC3(\xED\xA0\x80)\xF5\x80|\xC0\xAF|\xE2\x82";
  ReadResult r = {0};
  char *want = expected_string(bad, strlen(bad));

  /* The test's model first: one U+FFFD per byte of an invalid sequence. */
  ck_assert_str_eq(want, "bad" FFFD "(" FFFD FFFD FFFD ")" FFFD FFFD "|" FFFD FFFD "|" FFFD FFFD);
  rb_add_failed(&r, bad, CODE_READ_ERROR, bad);
  check_result(&r, bad);
  g_free(want);
  read_result_clear(&r);
}
END_TEST

START_TEST(result_json_random_strings) {
  GRand *rand = g_rand_new_with_seed(424242);

  for (int iter = 0; iter < 2000; iter++) {
    ReadResult r = {0};
    char *path = random_string(rand);
    char *msg = random_string(rand);
    char *xml = random_string(rand);
    FileResult *f;

    rb_add_failed(&r, path, CODE_READ_ERROR, msg);
    f = add_text(&r, msg, "text\n");
    f->eol = iter % 2 ? "lf" : NULL;
    add_image(&r, path, xml);
    check_result(&r, xml);
    read_result_clear(&r);
    g_free(path);
    g_free(msg);
    g_free(xml);
  }
  g_rand_free(rand);
}
END_TEST

/* A long string like code: plain runs of any length between the bytes that need a look, so
 * that escapes fall at every place of a 16-byte block and at the ends of the escaper's steps. */
static GString *random_long_string(GRand *rand, size_t want) {
  static const char *const odd[] = {"\t", "\n", "\"", "\\", "\x01", "\x1F", "\r",
                                    "\xC3\xA9", "\xE2\x80\xA8", "\xF0\x9F\x98\x80", "\xC3", "\xFF"};
  GString *s = g_string_new(NULL);

  while (s->len < want) {
    int plain = g_rand_int_range(rand, 0, g_rand_boolean(rand) ? 8 : 60);

    for (int k = 0; k < plain; k++)
      g_string_append_c(s, (char)g_rand_int_range(rand, 0x20, 0x7F));
    g_string_append(s, odd[g_rand_int_range(rand, 0, G_N_ELEMENTS(odd))]);
  }
  return s;
}

START_TEST(result_json_escape_long_strings) {
  GRand *rand = g_rand_new_with_seed(7);

  for (int iter = 0; iter < 300; iter++) {
    GString *s = random_long_string(rand, (size_t)g_rand_int_range(rand, 0, iter < 290 ? 3000 : 300000));
    /* Escaped after a prefix, into a string with room for some of it or none. */
    GString *out = g_string_sized_new((gsize)g_rand_int_range(rand, 1, (gint32)(s->len * 2 + 64)));
    JsonParser *parser = json_parser_new();
    GError *error = NULL;
    char *want = expected_string(s->str, s->len);

    g_string_append(out, "{\"s\":\"");
    result_json_escape(out, s->str, s->len);
    g_string_append(out, "\"}");
    ck_assert_msg(json_parser_load_from_data(parser, out->str, (gssize)out->len, &error),
                  "bad JSON: %s", error != NULL ? error->message : "");
    ck_assert_str_eq(
        json_object_get_string_member(json_node_get_object(json_parser_get_root(parser)), "s"),
        want);
    g_free(want);
    g_object_unref(parser);
    g_string_free(out, TRUE);
    g_string_free(s, TRUE);
  }
  g_rand_free(rand);
}
END_TEST

/* ---- every escaping path against a reference written from the JSON grammar ---- */

/* The length of the well-formed UTF-8 sequence at s[0..len) by Unicode's table 3-7 (no
 * overlong forms, surrogates or code points past U+10FFFF), 0 when there is none. */
static size_t ref_utf8_len(const unsigned char *s, size_t len) {
  unsigned char c = s[0], lo = 0x80, hi = 0xBF; /* the range of the second byte */
  size_t n;

  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c == 0xE0)
    n = 3, lo = 0xA0;
  else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    n = 3;
  else if (c == 0xED)
    n = 3, hi = 0x9F;
  else if (c == 0xF0)
    n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3)
    n = 4;
  else if (c == 0xF4)
    n = 4, hi = 0x8F;
  else
    return 0;
  if (len < n || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t k = 2; k < n; k++) {
    if (s[k] < 0x80 || s[k] > 0xBF)
      return 0;
  }
  return n;
}

/* What result_json_escape() must append for s[0..len), byte by byte: '"' and '\\' and the
 * controls escaped (the short form where JSON has one, else \u00xx), other ASCII as it is,
 * well-formed UTF-8 as it is, and U+FFFD for each byte that starts no well-formed sequence. */
static GString *ref_escape(const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  GString *out = g_string_new(NULL);

  for (size_t i = 0; i < len; i++) {
    unsigned char c = u[i];
    size_t n;

    if (c == '"')
      g_string_append(out, "\\\"");
    else if (c == '\\')
      g_string_append(out, "\\\\");
    else if (c == '\b')
      g_string_append(out, "\\b");
    else if (c == '\f')
      g_string_append(out, "\\f");
    else if (c == '\n')
      g_string_append(out, "\\n");
    else if (c == '\r')
      g_string_append(out, "\\r");
    else if (c == '\t')
      g_string_append(out, "\\t");
    else if (c < 0x20)
      g_string_append_printf(out, "\\u%04x", c);
    else if (c < 0x80)
      g_string_append_c(out, (char)c);
    else if ((n = ref_utf8_len(u + i, len - i)) > 0) {
      g_string_append_len(out, s + i, (gssize)n);
      i += n - 1;
    } else
      g_string_append(out, FFFD);
  }
  return out;
}

static const ResultJsonEscapePath escape_paths[] = {
    RESULT_JSON_ESCAPE_BEST, RESULT_JSON_ESCAPE_SCALAR, RESULT_JSON_ESCAPE_SSE2,
    RESULT_JSON_ESCAPE_SSSE3, RESULT_JSON_ESCAPE_AVX2};

/* Escapes s[0..len) through every path this machine has, after `prefix` bytes of a string first
 * allocated with `alloc` bytes (which sets where the escaper's steps end), and compares each
 * output with the reference, byte for byte. */
static void check_escape_paths(const char *s, size_t len, size_t prefix, size_t alloc) {
  GString *want = ref_escape(s, len);

  for (size_t p = 0; p < G_N_ELEMENTS(escape_paths); p++) {
    GString *out = g_string_sized_new(alloc);
    size_t at = 0;

    for (size_t k = 0; k < prefix; k++)
      g_string_append_c(out, 'p');
    if (!result_json_escape_with(out, s, len, escape_paths[p])) {
      ck_assert_uint_eq(out->len, prefix);
      g_string_free(out, TRUE);
      continue;
    }
    while (at < want->len && prefix + at < out->len && out->str[prefix + at] == want->str[at])
      at++;
    ck_assert_msg(out->len == prefix + want->len && at == want->len,
                  "path %d, input of %zu bytes (prefix %zu, alloc %zu): output differs at %zu "
                  "of %zu (got %zu bytes)",
                  (int)escape_paths[p], len, prefix, alloc, at, want->len, out->len - prefix);
    g_string_free(out, TRUE);
  }
  g_string_free(want, TRUE);
}

START_TEST(result_json_escape_paths_available) {
  GString *out = g_string_new(NULL);
  bool ssse3 = false, avx2 = false;

  /* The paths this machine must have, so that none goes untested silently; a path it has not
   * appends nothing. */
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
  ssse3 = __builtin_cpu_supports("ssse3") != 0;
  avx2 = ssse3 && __builtin_cpu_supports("avx2") != 0;
#endif
  ck_assert(result_json_escape_with(out, "a", 1, RESULT_JSON_ESCAPE_BEST));
  ck_assert(result_json_escape_with(out, "b", 1, RESULT_JSON_ESCAPE_SCALAR));
#ifdef __SSE2__
  ck_assert(result_json_escape_with(out, "c", 1, RESULT_JSON_ESCAPE_SSE2));
#else
  ck_assert(!result_json_escape_with(out, "c", 1, RESULT_JSON_ESCAPE_SSE2));
  g_string_append_c(out, 'c');
#endif
  ck_assert(result_json_escape_with(out, "d", 1, RESULT_JSON_ESCAPE_SSSE3) == ssse3);
  if (!ssse3)
    g_string_append_c(out, 'd');
  ck_assert(result_json_escape_with(out, "e", 1, RESULT_JSON_ESCAPE_AVX2) == avx2);
  if (!avx2)
    g_string_append_c(out, 'e');
  ck_assert(!result_json_escape_with(out, "f", 1, (ResultJsonEscapePath)99));
  ck_assert_str_eq(out->str, "abcde");
  g_string_free(out, TRUE);
}
END_TEST

START_TEST(result_json_escape_every_byte_everywhere) {
  char buf[64];

  /* Each byte value at each place of the first three 16-byte blocks (and the first 32-byte
   * one) of plain text. */
  for (int c = 0; c < 256; c++) {
    for (size_t off = 0; off < 48; off++) {
      for (size_t k = 0; k < sizeof(buf); k++)
        buf[k] = (char)('a' + k % 26);
      buf[off] = (char)c;
      check_escape_paths(buf, sizeof(buf), 0, 0);
    }
  }
}
END_TEST

/* Appends one piece of a random input: mostly what code has (runs of plain text, tabs,
 * newlines, quotes, backslashes), then other controls and valid and invalid UTF-8. */
static void append_random_piece(GString *s, GRand *rand) {
  static const char *const invalid[] = {"\x80",
                                        "\xBF",
                                        "\xC0\x80",
                                        "\xC1\xBF",
                                        "\xC3",
                                        "\xE2\x82",
                                        "\xED\xA0\x80",
                                        "\xED\xBF\xBF",
                                        "\xE0\x80\xAF",
                                        "\xF0\x8F\xBF\xBF",
                                        "\xF4\x90\x80\x80",
                                        "\xF5\x80\x80\x80",
                                        "\xF8",
                                        "\xFE",
                                        "\xFF",
                                        "\xF0\x9F\x98",
                                        "\xC3\xC3\xA9"};
  int pick = g_rand_int_range(rand, 0, 100);

  if (pick < 30) {
    int n = g_rand_int_range(rand, 0, g_rand_boolean(rand) ? 6 : 40);

    for (int k = 0; k < n; k++)
      g_string_append_c(s, (char)g_rand_int_range(rand, 0x20, 0x7F));
  } else if (pick < 45)
    g_string_append_c(s, '\t');
  else if (pick < 57)
    g_string_append_c(s, '\n');
  else if (pick < 65)
    g_string_append_c(s, '"');
  else if (pick < 71)
    g_string_append_c(s, '\\');
  else if (pick < 75)
    g_string_append_c(s, "\r\b\f"[g_rand_int_range(rand, 0, 3)]);
  else if (pick < 81)
    g_string_append_c(s, (char)(g_rand_boolean(rand) ? g_rand_int_range(rand, 0, 0x20) : 0x7F));
  else if (pick < 91) {
    gunichar c;
    char buf[8];

    do
      c = (gunichar)g_rand_int_range(rand, 0x80, 0x110000);
    while (c >= 0xD800 && c <= 0xDFFF);
    g_string_append_len(s, buf, g_unichar_to_utf8(c, buf));
  } else if (pick < 97)
    g_string_append(s, invalid[g_rand_int_range(rand, 0, G_N_ELEMENTS(invalid))]);
  else
    g_string_append_c(s, (char)g_rand_int_range(rand, 0x80, 0x100));
}

START_TEST(result_json_escape_random_inputs) {
  static const size_t allocs[] = {0, 100, 512, 1024, 2048};
  GRand *rand = g_rand_new_with_seed(20261127);

  for (int iter = 0; iter < 20000; iter++) {
    size_t want = (size_t)g_rand_int_range(rand, 0, 301);
    GString *s = g_string_new(NULL);

    while (s->len < want)
      append_random_piece(s, rand);
    g_string_truncate(s, want); /* may cut a sequence short: one more invalid end */
    check_escape_paths(s->str, s->len, (size_t)g_rand_int_range(rand, 0, 300),
                       allocs[g_rand_int_range(rand, 0, G_N_ELEMENTS(allocs))]);
    g_string_free(s, TRUE);
  }
  g_rand_free(rand);
}
END_TEST

START_TEST(result_json_escape_pieces_at_block_edges) {
  static const char *const pieces[] = {
      "\t",   "\"\\",         "\x01",         "\xC3\xA9", "\xE2\x80\xA8", "\xF0\x9F\x98\x80",
      "\xC3", "\xED\xA0\x80", "\xF0\x9F\x98", "\xFF\t\n"};
  /* An input's length and the first place a piece starts; the pieces start at 72 places. */
  static const size_t windows[][2] = {{80, 0}, {4200, 4096 - 36}};
  GRand *rand = g_rand_new_with_seed(31);

  /* Each piece starting at each place around the edges of 16- and 32-byte blocks, in plain text
   * and in text like code (a tab, newline or quote every few bytes), and around the end of the
   * escaper's first step (4096 bytes for a string with little room). */
  for (size_t w = 0; w < G_N_ELEMENTS(windows); w++) {
    size_t len = windows[w][0];

    for (size_t p = 0; p < G_N_ELEMENTS(pieces); p++) {
      for (size_t off = windows[w][1]; off < windows[w][1] + 72; off++) {
        for (int code = 0; code < 2; code++) {
          GString *s = g_string_new(NULL);

          while (s->len < len)
            g_string_append_c(s, code && g_rand_int_range(rand, 0, 4) == 0
                                     ? "\t\n\""[g_rand_int_range(rand, 0, 3)]
                                     : (char)('a' + s->len % 26));
          memcpy(s->str + off, pieces[p], strlen(pieces[p]));
          check_escape_paths(s->str, s->len, 0, 0);
          g_string_free(s, TRUE);
        }
      }
    }
  }
  g_rand_free(rand);
}
END_TEST

/* s as readerd's XML shows a file: each line as "     N\t<line>\n". */
static GString *numbered(const char *s, size_t len) {
  GString *out = g_string_new(NULL);
  size_t line = 1, i = 0;

  while (i < len) {
    const char *nl = memchr(s + i, '\n', len - i);
    size_t n = nl != NULL ? (size_t)(nl - (s + i)) : len - i;

    g_string_append_printf(out, "%6zu\t", line++);
    g_string_append_len(out, s + i, (gssize)n);
    g_string_append_c(out, '\n');
    i += n + 1;
  }
  return out;
}

START_TEST(result_json_escape_real_files) {
  static const char *const repo[] = {"formatters/result-json.c", "tests/test-result-json.c",
                                     "docs/protocol.md", "README.md"};
  static const char *const go[] = {"fmt/print.go", "net/http/server.go",
                                   "unicode/utf8/utf8_test.go", "strings/strings_test.go",
                                   "go/printer/testdata/comments.golden"};
  const char *root = g_getenv("READERD_SOURCE_ROOT");
  int checked = 0;

  for (size_t k = 0; k < G_N_ELEMENTS(repo) + G_N_ELEMENTS(go); k++) {
    bool in_repo = k < G_N_ELEMENTS(repo);
    g_autofree char *path =
        in_repo ? g_build_filename(root != NULL ? root : ".", repo[k], NULL)
                : g_build_filename("/usr/share/go-1.19/src", go[k - G_N_ELEMENTS(repo)], NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    GString *lines;

    if (!g_file_get_contents(path, &text, &len, NULL)) {
      /* The repository's own files must be there; Go's are read when Go is installed. */
      ck_assert_msg(!in_repo, "cannot read %s", path);
      continue;
    }
    check_escape_paths(text, len, 0, 0);
    check_escape_paths(text, len, 7, len / 3);
    lines = numbered(text, len);
    check_escape_paths(lines->str, lines->len, 0, 0);
    g_string_free(lines, TRUE);
    checked++;
  }
  ck_assert_int_ge(checked, 3);
}
END_TEST

START_TEST(result_format_int_matches_printf) {
  static const int64_t edges[] = {0, 1, -1, 9, 10, -10, 99999, 100000, INT64_MAX, INT64_MIN,
                                  INT64_MIN + 1};
  GRand *rand = g_rand_new_with_seed(11);

  for (size_t i = 0; i < G_N_ELEMENTS(edges) + 1000; i++) {
    int64_t v = i < G_N_ELEMENTS(edges)
                    ? edges[i]
                    : (int64_t)(((uint64_t)g_rand_int(rand) << 32 | g_rand_int(rand)) >> (i % 64));
    char buf[RESULT_INT_MAX + 1], *want = g_strdup_printf("%" G_GINT64_FORMAT, v);
    size_t n = result_format_int(buf, v);

    buf[n] = '\0';
    ck_assert_str_eq(buf, want);
    g_free(want);
  }
  g_rand_free(rand);
}
END_TEST

START_TEST(result_json_hundreds_of_files) {
  GRand *rand = g_rand_new_with_seed(99);
  ReadResult r = {0};

  for (int i = 0; i < 600; i++) {
    char path[64];
    FileResult *f;

    g_snprintf(path, sizeof(path), "dir %d/\"file\"\t%d", i / 50, i);
    switch (i % 4) {
    case 0: {
      guchar raw[300];
      char *b64;

      for (size_t j = 0; j < sizeof(raw); j++)
        raw[j] = (guchar)g_rand_int_range(rand, 0, 256);
      b64 = g_base64_encode(raw, sizeof(raw));
      f = add_image(&r, path, b64);
      f->images[0].width = g_rand_int_range(rand, 1, 5000);
      g_free(b64);
      break;
    }
    case 1:
      f = add_text(&r, path, "line\r\n\"quoted\"\n");
      f->lines = g_rand_int_range(rand, 0, 100000);
      f->truncated = g_rand_boolean(rand);
      f->shown_first = 1;
      f->shown_last = f->lines;
      break;
    case 2:
      f = rb_add_failed(&r, path, CODE_FILE_TOO_LARGE, "too large");
      f->bytes = g_rand_int_range(rand, 0, 1 << 30);
      break;
    default:
      f = add_text(&r, path, "");
      f->lines = 0;
      f->bytes = (int64_t)g_rand_int_range(rand, 0, 1 << 30) << 8;
      f->modified_ms = -(int64_t)i;
      break;
    }
  }
  check_with_xml(&r);
  read_result_clear(&r);
  g_rand_free(rand);
}
END_TEST

START_TEST(result_json_empty_and_compact) {
  ReadResult r = {0};
  char *json = result_json_format(&r, "", NULL);
  bool in_string = false;
  size_t len;

  ck_assert_str_eq(json, "{\"xml\":\"\",\"images\":[],\"files\":[],\"bytes\":0,\"lines\":0,\"tokens\":0}");
  g_free(json);
  json = result_json_format(NULL, NULL, &len);
  ck_assert_str_eq(json, "{\"xml\":\"\",\"images\":[],\"files\":[],\"bytes\":0,\"lines\":0,\"tokens\":0}");
  ck_assert_uint_eq(len, strlen(json));
  g_free(json);

  add_text(&r, "a b.c", "x y\n");
  add_image(&r, "i j.png", "QQ==");
  rb_add_failed(&r, "g h", CODE_IS_DIRECTORY, "is a directory");
  json = result_json_format(&r, "<ReadResults bytes='1' lines='1'>\n</ReadResults>", &len);
  /* Compact: no whitespace outside strings, and no trailing newline. */
  for (size_t i = 0; i < len; i++) {
    if (json[i] == '\\' && in_string) {
      i++;
      continue;
    }
    if (json[i] == '"')
      in_string = !in_string;
    ck_assert_msg(in_string || !g_ascii_isspace(json[i]), "whitespace at %zu: %s", i, json);
  }
  ck_assert_int_eq(json[len - 1], '}');
  g_free(json);
  read_result_clear(&r);
}
END_TEST

/* ---- result.c ---- */

START_TEST(result_fail_replaces_message) {
  FileResult f = {0};

  file_result_fail(&f, CODE_FILE_NOT_FOUND, "%s: %d", "first", 1);
  ck_assert_str_eq(f.code, CODE_FILE_NOT_FOUND);
  ck_assert_str_eq(f.error, "first: 1");
  file_result_fail(&f, CODE_READ_ERROR, "second %s", "try");
  ck_assert_str_eq(f.code, CODE_READ_ERROR);
  ck_assert_str_eq(f.error, "second try");
  file_result_clear(&f);
  ck_assert_ptr_null(f.error);
  ck_assert_ptr_null(f.code);
}
END_TEST

START_TEST(result_add_image_zeroed_and_grows) {
  FileResult f = {0};

  for (int i = 0; i < 50; i++) {
    ImageOut *img = file_result_add_image(&f);
    ImageOut zero = {0};

    ck_assert_uint_eq(f.n_images, (size_t)i + 1);
    ck_assert_ptr_eq(img, &f.images[i]);
    ck_assert_int_eq(memcmp(img, &zero, sizeof(zero)), 0);
    img->media_type = g_strdup("image/png");
    img->data = g_strdup_printf("%d", i);
    img->data_len = strlen(img->data);
    img->width = i;
  }
  for (int i = 0; i < 50; i++)
    ck_assert_int_eq(f.images[i].width, i);
  file_result_clear(&f);
  ck_assert_ptr_null(f.images);
  ck_assert_uint_eq(f.n_images, 0);
}
END_TEST

START_TEST(result_clear_accepts_null) {
  ReadResult r = {0};
  ImageOut img = {0};

  image_out_clear(NULL);
  file_result_clear(NULL);
  read_result_clear(NULL);
  read_result_clear(&r);
  img.media_type = g_strdup("image/png");
  img.data = g_strdup("QQ==");
  image_out_clear(&img);
  ck_assert_ptr_null(img.media_type);
  ck_assert_ptr_null(img.data);
  add_text(&r, "a", "b");
  add_image(&r, "c", "QQ==");
  read_result_clear(&r);
  ck_assert_ptr_null(r.files);
  ck_assert_uint_eq(r.n_files, 0);
}
END_TEST

START_TEST(result_totals_sum_read_files) {
  ReadResult r = {0};
  FileResult *f;
  int64_t bytes = -5, lines = -5;

  read_result_totals(&r, &bytes, &lines);
  ck_assert_int_eq(bytes, 0);
  ck_assert_int_eq(lines, 0);
  f = add_text(&r, "a", "x");
  f->bytes = 10;
  f->lines = 3;
  f = add_image(&r, "b", "QQ==");
  f->bytes = 200;
  f->lines = 1000; /* not a text file: its lines do not count */
  f = rb_add_failed(&r, "c", CODE_FILE_TOO_LARGE, "big");
  f->bytes = 1 << 30;
  f->lines = 7;
  f = add_text(&r, "d", "x");
  f->bytes = -1;
  f->lines = 4;
  read_result_totals(&r, &bytes, &lines);
  ck_assert_int_eq(bytes, 210);
  ck_assert_int_eq(lines, 7);
  read_result_totals(&r, NULL, &lines);
  read_result_totals(&r, &bytes, NULL);
  read_result_clear(&r);
}
END_TEST

START_TEST(result_file_type_names) {
  ck_assert_str_eq(file_type_name(FILE_TYPE_TEXT), "text");
  ck_assert_str_eq(file_type_name(FILE_TYPE_IMAGE), "image");
  ck_assert_str_eq(file_type_name(FILE_TYPE_PDF), "pdf");
  ck_assert_ptr_null(file_type_name(FILE_TYPE_UNKNOWN));
}
END_TEST

START_TEST(result_utf8_decode_matches_glib) {
  GRand *rand = g_rand_new_with_seed(5);
  char buf[8];
  uint32_t cp;

  /* Every code point GLib can encode: surrogates must be refused, the rest decoded. */
  for (gunichar c = 1; c <= 0x10FFFF; c++) {
    int n = g_unichar_to_utf8(c, buf);
    size_t got = result_utf8_decode(buf, (size_t)n, &cp);

    if (c >= 0xD800 && c <= 0xDFFF) {
      ck_assert_uint_eq(got, 0);
      continue;
    }
    ck_assert_uint_eq(got, (size_t)n);
    ck_assert_uint_eq(cp, c);
    /* Cut short, it is incomplete. */
    if (n > 1)
      ck_assert_uint_eq(result_utf8_decode(buf, (size_t)n - 1, NULL), 0);
  }
  /* Random bytes: the length is the shortest prefix GLib accepts, or 0. */
  for (int i = 0; i < 300000; i++) {
    size_t want = 0;

    for (int j = 0; j < 4; j++)
      buf[j] = (char)g_rand_int_range(rand, 1, 256);
    for (size_t k = 1; k <= 4; k++) {
      if (g_utf8_validate_len(buf, k, NULL)) {
        want = k;
        break;
      }
    }
    ck_assert_uint_eq(result_utf8_decode(buf, 4, NULL), want);
  }
  ck_assert_uint_eq(result_utf8_decode("\xC0\x80", 2, NULL), 0);
  ck_assert_uint_eq(result_utf8_decode("\xE0\x80\x80", 3, NULL), 0);
  ck_assert_uint_eq(result_utf8_decode("\xF4\x90\x80\x80", 4, NULL), 0);
  ck_assert_uint_eq(result_utf8_decode("\0", 1, &cp), 1);
  ck_assert_uint_eq(cp, 0);
  g_rand_free(rand);
}
END_TEST

static Suite *result_json_suite(void) {
  Suite *s = suite_create("result-json");
  TCase *tc = tcase_create("result-json");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, result_json_fields_match);
  tcase_add_test(tc, result_json_pdf_fields);
  tcase_add_test(tc, result_add_page_zeroed_and_grows);
  tcase_add_test(tc, result_json_escapes_every_control);
  tcase_add_test(tc, result_json_invalid_utf8_replaced);
  tcase_add_test(tc, result_json_random_strings);
  tcase_add_test(tc, result_json_hundreds_of_files);
  tcase_add_test(tc, result_json_empty_and_compact);
  tcase_add_test(tc, result_fail_replaces_message);
  tcase_add_test(tc, result_add_image_zeroed_and_grows);
  tcase_add_test(tc, result_clear_accepts_null);
  tcase_add_test(tc, result_totals_sum_read_files);
  tcase_add_test(tc, result_file_type_names);
  tcase_add_test(tc, result_utf8_decode_matches_glib);
  tcase_add_test(tc, result_json_escape_long_strings);
  tcase_add_test(tc, result_format_int_matches_printf);
  tcase_add_test(tc, result_json_escape_paths_available);
  tcase_add_test(tc, result_json_escape_every_byte_everywhere);
  tcase_add_test(tc, result_json_escape_random_inputs);
  tcase_add_test(tc, result_json_escape_pieces_at_block_edges);
  tcase_add_test(tc, result_json_escape_real_files);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(result_json_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
