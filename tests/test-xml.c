/* formatters/xml.c: the <ReadResults> document. Every document produced here is parsed back
 * with libxml2 and validated against docs/read-results.rng (READERD_SCHEMA). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>

#include "formatters/result.h"
#include "tests/lib/check-run.h"
#include "tests/result-builder.h"
#include "formatters/xml.h"

#define FFFD "\xEF\xBF\xBD"

/* ---- building results ---- */

static FileResult *add_text(ReadResult *r, const char *path, const char *content, size_t len) {
  FileResult *f = rb_add_file_len(r, path, strlen(path));

  f->type = FILE_TYPE_TEXT;
  f->content = g_malloc(len + 1);
  memcpy(f->content, content, len);
  f->content[len] = '\0';
  f->content_len = len;
  f->bytes = (int64_t)len;
  f->lines = 1;
  f->encoding = "utf-8";
  return f;
}

static FileResult *add_image(ReadResult *r, const char *path, int w, int h) {
  FileResult *f = rb_add_file_len(r, path, strlen(path));
  ImageOut *img = file_result_add_image(f);

  f->type = FILE_TYPE_IMAGE;
  f->bytes = 1000;
  img->media_type = g_strdup("image/png");
  img->data = g_strdup("iVBORw0KGgo=");
  img->data_len = strlen(img->data);
  img->width = w;
  img->height = h;
  return f;
}

/* ---- what a parser must read back: written independently of xml.c, simply and slowly ---- */

static bool xml_allowed(gunichar c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* s with each character XML 1.0 forbids replaced by U+FFFD, each byte of invalid UTF-8 too. */
static char *expected_text(const char *s, size_t len) {
  GString *out = g_string_new(NULL);
  size_t i = 0;

  while (i < len) {
    size_t n = 0;

    /* The shortest prefix glib accepts is exactly one character. */
    for (size_t k = 1; k <= 4 && i + k <= len; k++) {
      if (g_utf8_validate_len(s + i, k, NULL)) {
        n = k;
        break;
      }
    }
    if (n == 0) {
      g_string_append(out, FFFD);
      i++;
      continue;
    }
    if (xml_allowed(g_utf8_get_char(s + i)))
      g_string_append_len(out, s + i, (gssize)n);
    else
      g_string_append(out, FFFD);
    i += n;
  }
  return g_string_free(out, FALSE);
}

/* ---- reading documents back ---- */

static xmlDocPtr parse(const char *xml, size_t len) {
  xmlDocPtr doc;

  ck_assert_msg(g_utf8_validate(xml, (gssize)len, NULL), "output is not UTF-8");
  ck_assert_msg(memchr(xml, '\r', len) == NULL, "a raw CR in the output");
  doc = xmlReadMemory(xml, (int)len, "result.xml", NULL, XML_PARSE_NONET);
  ck_assert_msg(doc != NULL, "not well-formed:\n%s", xml);
  return doc;
}

static xmlRelaxNGPtr schema(void) {
  static xmlRelaxNGPtr rng;
  const char *path = g_getenv("READERD_SCHEMA");
  xmlRelaxNGParserCtxtPtr ctx;

  if (rng != NULL)
    return rng;
  ck_assert_msg(path != NULL, "READERD_SCHEMA is not set");
  ctx = xmlRelaxNGNewParserCtxt(path);
  rng = xmlRelaxNGParse(ctx);
  xmlRelaxNGFreeParserCtxt(ctx);
  ck_assert_msg(rng != NULL, "cannot load the schema %s", path);
  return rng;
}

static void collect_error(void *ctx, xmlErrorPtr err) {
  g_string_append_printf(ctx, "line %d: %s", err->line, err->message);
}

/* Whether doc matches the schema; the validator's complaints go to *ret_errors (may be NULL). */
static bool schema_accepts(xmlDocPtr doc, char **ret_errors) {
  xmlRelaxNGValidCtxtPtr ctx = xmlRelaxNGNewValidCtxt(schema());
  GString *errors = g_string_new(NULL);
  int rc;

  xmlRelaxNGSetValidStructuredErrors(ctx, collect_error, errors);
  rc = xmlRelaxNGValidateDoc(ctx, doc);
  xmlRelaxNGFreeValidCtxt(ctx);
  if (ret_errors != NULL)
    *ret_errors = g_strdup(errors->str);
  g_string_free(errors, TRUE);
  return rc == 0;
}

static void assert_valid(xmlDocPtr doc, const char *xml) {
  char *errors;

  ck_assert_msg(schema_accepts(doc, &errors), "schema rejects the output: %s\n%s", errors, xml);
  g_free(errors);
}

/* Formats r, checks the output is well-formed and valid, returns the parsed document. */
static xmlDocPtr format_and_parse(const ReadResult *r, char **ret_xml) {
  size_t len = 0;
  char *xml = xml_format(r, &len);
  xmlDocPtr doc;

  ck_assert_ptr_nonnull(xml);
  ck_assert_uint_eq(len, strlen(xml));
  doc = parse(xml, len);
  assert_valid(doc, xml);
  if (ret_xml != NULL)
    *ret_xml = xml;
  else
    g_free(xml);
  return doc;
}

static xmlNodePtr content_node(xmlDocPtr doc, size_t index) {
  xmlNodePtr root = xmlDocGetRootElement(doc);
  size_t i = 0;

  ck_assert_str_eq((const char *)root->name, "ReadResults");
  for (xmlNodePtr n = root->children; n != NULL; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    ck_assert_str_eq((const char *)n->name, "Content");
    if (i++ == index)
      return n;
  }
  ck_abort_msg("no Content #%zu", index);
  return NULL;
}

static size_t content_count(xmlDocPtr doc) {
  size_t i = 0;

  for (xmlNodePtr n = xmlDocGetRootElement(doc)->children; n != NULL; n = n->next)
    i += n->type == XML_ELEMENT_NODE;
  return i;
}

static void assert_attr(xmlNodePtr node, const char *name, const char *expected) {
  xmlChar *v = xmlGetProp(node, (const xmlChar *)name);

  if (expected == NULL) {
    ck_assert_msg(v == NULL, "unexpected %s='%s'", name, (char *)v);
    return;
  }
  ck_assert_msg(v != NULL, "no attribute %s", name);
  ck_assert_str_eq((const char *)v, expected);
  xmlFree(v);
}

/* The attribute names of node in document order, space-separated. */
static char *attr_names(xmlNodePtr node) {
  GString *s = g_string_new(NULL);

  for (xmlAttrPtr a = node->properties; a != NULL; a = a->next)
    g_string_append_printf(s, "%s%s", s->len > 0 ? " " : "", (const char *)a->name);
  return g_string_free(s, FALSE);
}

static void assert_attr_names(xmlNodePtr node, const char *expected) {
  char *names = attr_names(node);

  ck_assert_str_eq(names, expected);
  g_free(names);
}

/* The text of a Content must be "\n" + the sanitized content, plus "\n" when it lacked one. */
static void assert_content_text(xmlNodePtr node, const char *content, size_t len) {
  char *want = expected_text(content, len);
  char *full;
  xmlChar *got;

  if (len == 0) {
    ck_assert_msg(node->children == NULL, "empty content must give an empty element");
    g_free(want);
    return;
  }
  full = g_strconcat("\n", want, content[len - 1] == '\n' ? "" : "\n", NULL);
  got = xmlNodeGetContent(node);
  ck_assert_str_eq((const char *)got, full);
  xmlFree(got);
  g_free(full);
  g_free(want);
}

static void assert_path(xmlNodePtr node, const char *path, size_t len) {
  char *want = expected_text(path, len);

  assert_attr(node, "path", want);
  g_free(want);
}

/* ---- random input ---- */

/* Random bytes, heavy on what is hard for XML: CDATA ends, CRs, controls, bad UTF-8. */
static char *random_string(GRand *rand, size_t *ret_len, bool allow_nul) {
  static const char *const pieces[] = {"]]>",
                                       "]]",
                                       "]",
                                       ">",
                                       "\r",
                                       "\r\n",
                                       "\n",
                                       "\t",
                                       "<",
                                       "&",
                                       "'",
                                       "\"",
                                       "&amp;",
                                       "<![CDATA[",
                                       "&#13;",
                                       "\xEF\xBF\xBE",
                                       "\xEF\xBF\xBF",
                                       "\xEF\xBF\xBD",
                                       "\xC3\xA9",
                                       "\xF0\x9F\x98\x80",
                                       "\xED\xA0\x80",
                                       "\xC0\x80",
                                       "\xE2\x82",
                                       "\xF4\x90\x80\x80",
                                       "a",
                                       "\x7F",
                                       "\xC2\x85",
                                       "\xE2\x80\xA8",
                                       /* plain runs longer than a SIMD block, so that what
                                        * follows them is met inside a block of 16 or 32 */
                                       "Lorem ipsum dolor sit amet, consectetur",
                                       "\tif (x) {\n\t\treturn y;\n\t}\n\tz := 1\n"};
  GString *s = g_string_new(NULL);
  int steps = g_rand_int_range(rand, 0, 48);

  for (int i = 0; i < steps; i++) {
    if (g_rand_boolean(rand)) {
      char c = (char)g_rand_int_range(rand, 0, 256);

      if (c == '\0' && !allow_nul)
        c = '\x01';
      g_string_append_c(s, c);
    } else {
      g_string_append(s, pieces[g_rand_int_range(rand, 0, G_N_ELEMENTS(pieces))]);
    }
  }
  *ret_len = s->len;
  return g_string_free(s, FALSE);
}

/* ---- tests ---- */

START_TEST(xml_expected_text_helper) {
  /* The test's own model of the replacement, checked on known cases first. */
  static const struct {
    const char *in;
    size_t len;
    const char *out;
  } cases[] = {
      {"plain", 5, "plain"},
      {"a\x01z", 3, "a" FFFD "z"},
      {"\t\n\r", 3, "\t\n\r"},
      {"\0", 1, FFFD},
      {"\xEF\xBF\xBE|\xEF\xBF\xBF", 7, FFFD "|" FFFD},
      {"\xEF\xBF\xBD\xC3\xA9", 5, "\xEF\xBF\xBD\xC3\xA9"},
      {"\xE2\x82"
       "A",
       3, FFFD FFFD "A"},
      {"\xC0\xAF", 2, FFFD FFFD},
      {"\xED\xA0\x80", 3, FFFD FFFD FFFD},
      {"\xF0\x9F\x98\x80", 4, "\xF0\x9F\x98\x80"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *got = expected_text(cases[i].in, cases[i].len);

    ck_assert_str_eq(got, cases[i].out);
    g_free(got);
  }
}
END_TEST

START_TEST(xml_exact_output) {
  /* The shape the contract and the project's docs show, byte for byte. */
  static const char content[] = "     1\thello\n     2\tworld\n";
  static const char want[] =
      "<ReadResults bytes='12' lines='2' tokens='0'>\n"
      "<Content path='a.c' type='text' bytes='12' lines='2' modified='2026-11-22T09:15:02.123Z'"
      " tokens='0' encoding='utf-8' eol='lf' shown='1-2'>\n"
      "<![CDATA[     1\thello\n     2\tworld\n]]></Content>\n"
      "<Content path='gone.txt' code='FILE_NOT_FOUND' error='No such file' tokens='0'/>\n"
      "</ReadResults>";
  ReadResult r = {0};
  FileResult *f = add_text(&r, "a.c", content, strlen(content));
  char *xml;
  size_t len;

  f->bytes = 12;
  f->lines = 2;
  f->modified_ms = 1795338902123; /* 2026-11-22T09:15:02.123Z */
  f->eol = "lf";
  f->shown_first = 1;
  f->shown_last = 2;
  rb_add_failed(&r, "gone.txt", CODE_FILE_NOT_FOUND, "No such file");
  xml = xml_format(&r, &len);
  ck_assert_str_eq(xml, want);
  ck_assert_uint_eq(len, strlen(want));
  g_free(xml);
  read_result_clear(&r);
}
END_TEST

/* The etag's shape (hex device, inode, size; decimal nanoseconds of the modification and status
 * change times), on a file read and on one
 * answered unchanged, which carries nothing but its metadata; both valid against the schema. */
START_TEST(xml_etag_and_unchanged) {
  static const char want[] =
      "<ReadResults bytes='6' lines='1' tokens='0'>\n"
      "<Content path='a.c' type='text' bytes='6' lines='1' modified='2026-11-22T09:15:02.123Z'"
      " etag='803-1a2b3c-6-1795338902123456789-1795338903000000001' tokens='0' encoding='utf-8'>\n"
      "<![CDATA[hello\n]]></Content>\n"
      "<Content path='b.c' unchanged='true' etag='803-ff-1f40-1795338902123456789--1000000000' bytes='8000'"
      " modified='2026-11-22T09:15:02.123Z' tokens='0'/>\n"
      "</ReadResults>";
  ReadResult r = {0};
  FileResult *f = add_text(&r, "a.c", "hello\n", 6);
  xmlDocPtr doc;
  char *xml;

  f->bytes = 6;
  f->lines = 1;
  f->modified_ms = 1795338902123;
  file_result_set_etag(f, 0x803, 0x1a2b3c, 6, 1795338902, 123456789);
  file_result_etag_add_time(f, 1795338903, 1);
  f = rb_add_file(&r, "b.c");
  f->bytes = 8000;
  f->modified_ms = 1795338902123;
  f->unchanged = true;
  file_result_set_etag(f, 0x803, 0xff, 8000, 1795338902, 123456789);
  file_result_etag_add_time(f, -1, 0);
  doc = format_and_parse(&r, &xml);
  ck_assert_str_eq(xml, want);
  xmlFreeDoc(doc);
  g_free(xml);
  /* Before 1970 the nanoseconds are negative; past 2262 they no longer fit and are written as
   * seconds.nanoseconds. */
  file_result_set_etag(f, 1, 2, 3, -1, 500000000);
  ck_assert_str_eq(f->etag, "1-2-3--500000000");
  file_result_set_etag(f, 1, 2, 3, INT64_C(10000000000), 7);
  ck_assert_str_eq(f->etag, "1-2-3-10000000000.000000007");
  /* The widest of each part, whole. */
  file_result_set_etag(f, UINT64_MAX, UINT64_MAX, INT64_MAX, INT64_MIN, 999999999);
  ck_assert_str_eq(f->etag, "ffffffffffffffff-ffffffffffffffff-7fffffffffffffff-"
                            "-9223372036854775808.999999999");
  file_result_etag_add_time(f, INT64_MIN, 999999999);
  ck_assert_str_eq(f->etag, "ffffffffffffffff-ffffffffffffffff-7fffffffffffffff-"
                            "-9223372036854775808.999999999--9223372036854775808.999999999");
  doc = format_and_parse(&r, NULL);
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_hostile_content_round_trips) {
  static const struct {
    const char *s;
    size_t len;
  } cases[] = {
#define C(lit) {lit, sizeof(lit) - 1}
      C("]]>"),
      C("]]]]>>"),
      C("a]]>b]]>c\n"),
      C("]]"),
      C(">start"),
      C("]\r]>"),
      C("]]\r>"),
      C("]]\x01>"),
      C("<b>&amp;</b>\n"),
      C("a\rb"),
      C("\r"),
      C("line\r\nline\r\n"),
      C("\x01\x02\x08\x0B\x0C\x1B\x1F\x7F\tok\n"),
      C("\xEF\xBF\xBE and \xEF\xBF\xBF\n"),
      C("bad \xC0\xAF \xED\xA0\x80 \xF5\x80\x80\x80 \xE2\x82"),
      C("nul \0 inside\n"),
      C("no newline at end"),
      C(""),
      C("\n"),
      C("<![CDATA[x]]>"),
      C("&#13; stays text\n"),
      C("caf\xC3\xA9 \xF0\x9F\x98\x80\n"),
#undef C
  };
  ReadResult r = {0};
  xmlDocPtr doc;
  char *xml;

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    add_text(&r, "f.txt", cases[i].s, cases[i].len);
  doc = format_and_parse(&r, &xml);
  ck_assert_uint_eq(content_count(doc), G_N_ELEMENTS(cases));
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    assert_content_text(content_node(doc, i), cases[i].s, cases[i].len);

  /* Split as specified: a section ends after "]]" and the next starts before ">"; a CR is a
   * character reference between sections. */
  ck_assert_ptr_nonnull(strstr(xml, "<![CDATA[a]]]]><![CDATA[>b]]]]><![CDATA[>c\n]]>"));
  ck_assert_ptr_nonnull(strstr(xml, "<![CDATA[a]]>&#13;<![CDATA[b]]>"));
  g_free(xml);
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_hostile_attributes_round_trip) {
  static const char *const paths[] = {
      "it's",     "a\"b",         "<&>",     "tab\there",   "new\nline", "cr\rhere",
      "\x01\x1F", "\xEF\xBF\xBE", "bad\xC3", "caf\xC3\xA9", "&amp;",     "]]>",
  };
  ReadResult r = {0};
  xmlDocPtr doc;

  for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
    rb_add_failed(&r, paths[i], CODE_ACCESS_DENIED, paths[i]);
  doc = format_and_parse(&r, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
    xmlNodePtr n = content_node(doc, i);
    char *want = expected_text(paths[i], strlen(paths[i]));

    assert_attr(n, "path", want);
    assert_attr(n, "error", want);
    g_free(want);
  }
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_random_round_trips) {
  GRand *rand = g_rand_new_with_seed(20261122);

  for (int iter = 0; iter < 2000; iter++) {
    ReadResult r = {0};
    size_t clen, plen, elen;
    char *content = random_string(rand, &clen, true);
    char *path = random_string(rand, &plen, false);
    char *msg = random_string(rand, &elen, false);
    FileResult *f;
    xmlDocPtr doc;

    f = add_text(&r, "x", content, clen);
    g_free(f->path);
    f->path = g_strdup(path);
    f = rb_add_file_len(&r, path, plen);
    file_result_fail(f, CODE_READ_ERROR, "%s", msg);
    doc = format_and_parse(&r, NULL);
    assert_content_text(content_node(doc, 0), content, clen);
    assert_path(content_node(doc, 0), path, plen);
    assert_path(content_node(doc, 1), path, plen);
    {
      char *want = expected_text(msg, elen);

      assert_attr(content_node(doc, 1), "error", want);
      g_free(want);
    }
    xmlFreeDoc(doc);
    read_result_clear(&r);
    g_free(content);
    g_free(path);
    g_free(msg);
  }
  g_rand_free(rand);
}
END_TEST

START_TEST(xml_text_attributes) {
  ReadResult r = {0};
  FileResult *f;
  xmlDocPtr doc;
  xmlNodePtr n;

  f = add_text(&r, "big.log", "    10\tx\n", 9);
  f->bytes = 123456;
  f->lines = 5000;
  f->modified_ms = 1700000000123;
  f->bom = true;
  f->eol = "crlf";
  f->truncated = true;
  f->shown_first = 10;
  f->shown_last = 14;
  f = add_text(&r, "plain", "x", 1);
  f->lines = 1; /* no eol, not truncated, no modified, nothing shown */
  f = add_text(&r, "empty", "", 0);
  f->lines = 0;
  f->bytes = 0;
  f->modified_ms = 0;
  doc = format_and_parse(&r, NULL);

  n = content_node(doc, 0);
  assert_attr_names(n, "path type bytes lines modified tokens encoding bom eol truncated shown");
  assert_attr(n, "type", "text");
  assert_attr(n, "bytes", "123456");
  assert_attr(n, "lines", "5000");
  assert_attr(n, "modified", "2023-11-14T22:13:20.123Z");
  assert_attr(n, "encoding", "utf-8");
  assert_attr(n, "bom", "true");
  assert_attr(n, "eol", "crlf");
  assert_attr(n, "truncated", "true");
  assert_attr(n, "shown", "10-14");

  n = content_node(doc, 1);
  assert_attr_names(n, "path type bytes lines tokens encoding");

  n = content_node(doc, 2);
  assert_attr_names(n, "path type bytes lines modified tokens encoding");
  assert_attr(n, "modified", "1970-01-01T00:00:00.000Z");
  ck_assert_ptr_null(n->children);
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_image_attributes) {
  ReadResult r = {0};
  FileResult *f;
  xmlDocPtr doc;
  xmlNodePtr n;

  f = add_image(&r, "shot.png", 3, 2);
  f->modified_ms = 1700000000123;
  f = add_image(&r, "x.png", 1568, 1176);
  f->images[0].original_width = 4000;
  f->images[0].original_height = 3000;
  f->animated = true;
  g_free(f->images[0].media_type);
  f->images[0].media_type = g_strdup("image/gif");
  doc = format_and_parse(&r, NULL);

  n = content_node(doc, 0);
  assert_attr_names(n, "path type bytes modified tokens mediaType width height image");
  assert_attr(n, "type", "image");
  assert_attr(n, "mediaType", "image/png");
  assert_attr(n, "width", "3");
  assert_attr(n, "height", "2");
  assert_attr(n, "image", "0");
  ck_assert_ptr_null(n->children);

  n = content_node(doc, 1);
  assert_attr_names(n, "path type bytes tokens mediaType width height originalWidth originalHeight "
                       "animated image");
  assert_attr(n, "mediaType", "image/gif");
  assert_attr(n, "width", "1568");
  assert_attr(n, "height", "1176");
  assert_attr(n, "originalWidth", "4000");
  assert_attr(n, "originalHeight", "3000");
  assert_attr(n, "animated", "true");
  assert_attr(n, "image", "1");
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_failure_attributes) {
  ReadResult r = {0};
  FileResult *f;
  xmlDocPtr doc;
  xmlNodePtr n;

  rb_add_failed(&r, "gone.txt", CODE_FILE_NOT_FOUND, "gone.txt: No such file or directory");
  f = rb_add_failed(&r, "bin.dat", CODE_UNSUPPORTED_FORMAT, "binary file");
  f->type = FILE_TYPE_TEXT;
  f->bytes = 2048;
  f->modified_ms = 1700000000123;
  /* Whatever a reader left behind before failing is not shown. */
  f->content = g_strdup("half read\n");
  f->content_len = strlen(f->content);
  f->lines = 7;
  f->encoding = "utf-8";
  f->truncated = true;
  doc = format_and_parse(&r, NULL);

  n = content_node(doc, 0);
  assert_attr_names(n, "path code error tokens");
  assert_attr(n, "code", "FILE_NOT_FOUND");
  assert_attr(n, "error", "gone.txt: No such file or directory");

  n = content_node(doc, 1);
  assert_attr_names(n, "path type code error bytes modified tokens");
  assert_attr(n, "type", "text");
  assert_attr(n, "code", "UNSUPPORTED_FORMAT");
  assert_attr(n, "bytes", "2048");
  ck_assert_ptr_null(n->children);
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_image_indices_span_files) {
  ReadResult r = {0};
  FileResult *f;
  ImageOut *img;
  xmlDocPtr doc;

  add_image(&r, "a.png", 1, 1);          /* image 0 */
  add_text(&r, "t.txt", "x\n", 2);       /* none */
  f = add_image(&r, "broken.png", 1, 1); /* failed: its image is not sent */
  file_result_fail(f, CODE_CORRUPTED_FILE, "bad");
  f = add_image(&r, "two.png", 5, 5); /* images 1 and 2; image='1' */
  img = file_result_add_image(f);
  img->media_type = g_strdup("image/png");
  img->data = g_strdup("AAAA");
  img->data_len = 4;
  img->width = 2;
  img->height = 2;
  add_image(&r, "c.png", 7, 7); /* image 3 */
  doc = format_and_parse(&r, NULL);
  assert_attr(content_node(doc, 0), "image", "0");
  assert_attr(content_node(doc, 1), "image", NULL);
  assert_attr(content_node(doc, 2), "image", NULL);
  assert_attr(content_node(doc, 2), "width", NULL);
  assert_attr(content_node(doc, 3), "image", "1");
  assert_attr(content_node(doc, 3), "width", "5");
  assert_attr(content_node(doc, 4), "image", "3");
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_totals_exclude_failed) {
  ReadResult r = {0};
  FileResult *f;
  xmlDocPtr doc;
  xmlNodePtr root;

  f = add_text(&r, "a", "a\nb\n", 4);
  f->bytes = 100;
  f->lines = 40;
  f = add_image(&r, "i.png", 2, 2);
  f->bytes = 1000;
  f = rb_add_failed(&r, "bin", CODE_UNSUPPORTED_FORMAT, "binary");
  f->bytes = 2048;
  f->lines = 9;
  f = add_text(&r, "unknown-size", "z", 1);
  f->bytes = -1;
  f->lines = 2;
  doc = format_and_parse(&r, NULL);
  root = xmlDocGetRootElement(doc);
  assert_attr_names(root, "bytes lines tokens");
  assert_attr(root, "bytes", "1100");
  assert_attr(root, "lines", "42");
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_empty_result) {
  ReadResult r = {0};
  xmlDocPtr doc;
  char *xml;

  doc = format_and_parse(&r, &xml);
  ck_assert_str_eq(xml, "<ReadResults bytes='0' lines='0' tokens='0'>\n</ReadResults>");
  ck_assert_uint_eq(content_count(doc), 0);
  g_free(xml);
  xmlFreeDoc(doc);
}
END_TEST

START_TEST(xml_modified_format) {
  static const struct {
    int64_t ms;
    const char *iso;
  } cases[] = {
      {0, "1970-01-01T00:00:00.000Z"},
      {1700000000123, "2023-11-14T22:13:20.123Z"},
      {-1, "1969-12-31T23:59:59.999Z"},
      {-1000, "1969-12-31T23:59:59.000Z"},
      {-1001, "1969-12-31T23:59:58.999Z"},
      {-86400000, "1969-12-31T00:00:00.000Z"},
      {-2208988800000, "1900-01-01T00:00:00.000Z"},
      {951782400000, "2000-02-29T00:00:00.000Z"},
      {4107542400000, "2100-03-01T00:00:00.000Z"},
      {253402300799999, "9999-12-31T23:59:59.999Z"},
  };
  char buf[XML_TIME_MAX];
  GRand *rand = g_rand_new_with_seed(7);

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    ck_assert_uint_eq(xml_format_time(cases[i].ms, buf), strlen(cases[i].iso));
    ck_assert_str_eq(buf, cases[i].iso);
  }
  /* Against GLib's calendar over years 1 to 9999. */
  for (int i = 0; i < 20000; i++) {
    int64_t ms = (int64_t)g_rand_double_range(rand, -62135596800000.0, 253402300799999.0);
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    GDateTime *dt = g_date_time_new_from_unix_utc(secs);
    char *date = g_date_time_format(dt, "-%m-%dT%H:%M:%S");
    /* %Y does not pad years before 1000. */
    char *want =
        g_strdup_printf("%04d%s.%03dZ", g_date_time_get_year(dt), date, (int)(ms - secs * 1000));

    xml_format_time(ms, buf);
    ck_assert_str_eq(buf, want);
    g_free(want);
    g_free(date);
    g_date_time_unref(dt);
  }
  /* The extremes still fit the buffer. */
  ck_assert_uint_lt(xml_format_time(INT64_MIN, buf), XML_TIME_MAX);
  ck_assert_uint_lt(xml_format_time(INT64_MAX, buf), XML_TIME_MAX);
  g_rand_free(rand);
}
END_TEST

static void assert_schema_verdict(const char *doc_text, bool want) {
  xmlDocPtr doc = xmlReadMemory(doc_text, (int)strlen(doc_text), "t.xml", NULL, XML_PARSE_NONET);
  char *errors;

  ck_assert_ptr_nonnull(doc);
  ck_assert_msg(schema_accepts(doc, &errors) == want, "schema %s: %s\n%s",
                want ? "rejects" : "accepts", errors, doc_text);
  g_free(errors);
  xmlFreeDoc(doc);
}

START_TEST(xml_schema_rejects_wrong_documents) {
  static const char *const bad[] = {
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' code='BOGUS' error='e'/></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content tokens='0' code='FILE_NOT_FOUND' error='e'/></ReadResults>",
      "<ReadResults bytes='0'></ReadResults>",
      "<ReadResults bytes='-1' lines='0'></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='text' bytes='1'>t</Content>"
      "</ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='text' lines='1' "
      "modified='2023-11-14T22:13:20Z'/></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='text' lines='1' shown='3'/>"
      "</ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='image' mediaType='image/png' "
      "width='1' height='1'/></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='image' mediaType='image/png' "
      "width='1' height='1' image='0'>text</Content></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='image' mediaType='image/png' "
      "width='1' height='1' image='0'><Tile image='0' x='0' y='0' width='1' height='1'/>"
      "</Content></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='image' mediaType='image/png' "
      "width='1' height='1' image='0' tiles='2'>text</Content></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='image' mediaType='image/png' "
      "width='1' height='1' image='0' tiles='1'><Tile image='0' x='-1' y='0' width='1' "
      "height='1'/></Content></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' type='video' code='READ_ERROR' "
      "error='e'/></ReadResults>",
      "<ReadResults bytes='0' lines='0' tokens='0'><Other/></ReadResults>",
  };
  static const char *const good[] = {
      "<ReadResults bytes='0' lines='0' tokens='0'><Content path='x' tokens='0' code='CANCELLED' error=''/>"
      "</ReadResults>",
      "<ReadResults bytes='9' lines='0' tokens='3'><Content path='d.pdf' tokens='3' type='pdf' bytes='9' pages='12' "
      "title='T' author='A' truncated='true'><Page number='1'>one</Page>"
      "<Page number='2' image='0'>two</Page></Content></ReadResults>",
      "<ReadResults bytes='9' lines='0' tokens='0'><Content path='s.png' tokens='0' type='image' "
      "bytes='9' mediaType='image/png' width='90' height='160' originalWidth='100' originalHeight='1000' "
      "image='0' tiles='7' truncated='true'><Tile image='0' x='0' y='0' width='100' "
      "height='178'/><Tile image='1' x='0' y='137' width='100' height='178'/>tiles 3 to 7 of 7 "
      "(y 315-1000 of 100x1000) are not shown</Content></ReadResults>",
  };

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    assert_schema_verdict(bad[i], false);
  for (size_t i = 0; i < G_N_ELEMENTS(good); i++)
    assert_schema_verdict(good[i], true);
}
END_TEST

START_TEST(xml_many_files) {
  ReadResult r = {0};
  GString *body = g_string_new(NULL);
  xmlDocPtr doc;

  for (int i = 0; i < 300; i++)
    g_string_append_printf(body, "%6d\tline ]]> with & and <tags> \r\n", i + 1);
  for (int i = 0; i < 2000; i++) {
    char path[32];

    g_snprintf(path, sizeof(path), "dir/file-%d.c", i);
    if (i % 10 == 9)
      add_image(&r, path, 10, 10);
    else
      add_text(&r, path, body->str, body->len);
  }
  doc = format_and_parse(&r, NULL);
  ck_assert_uint_eq(content_count(doc), 2000);
  assert_content_text(content_node(doc, 1234), body->str, body->len);
  assert_attr(content_node(doc, 1999), "image", "199");
  xmlFreeDoc(doc);
  read_result_clear(&r);
  g_string_free(body, TRUE);
}
END_TEST

/* ---- PDFs ---- */

static PageOut *add_page(FileResult *f, int number, const char *text) {
  PageOut *p = file_result_add_page(f);

  p->number = number;
  p->text = g_strdup(text);
  p->text_len = strlen(text);
  return p;
}

static FileResult *add_pdf(ReadResult *r, const char *path, int64_t pages) {
  FileResult *f = rb_add_file_len(r, path, strlen(path));

  f->type = FILE_TYPE_PDF;
  f->bytes = 5000;
  f->modified_ms = 1700000000123;
  f->pages = pages;
  return f;
}

/* The element children of node with the given name. */
static GPtrArray *children_named(xmlNodePtr node, const char *name) {
  GPtrArray *a = g_ptr_array_new();

  for (xmlNodePtr n = node->children; n != NULL; n = n->next)
    if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0)
      g_ptr_array_add(a, n);
  return a;
}

START_TEST(xml_pdf_pages_outline_notice) {
  ReadResult r = {0};
  FileResult *f;
  ImageOut *img;
  GPtrArray *pages;
  xmlDocPtr doc;
  xmlNodePtr n, last;
  GString *after = g_string_new(NULL);

  add_image(&r, "before.png", 4, 4); /* image 0: the PDF's images count from 1 */
  f = add_pdf(&r, "doc.pdf", 30);
  f->title = g_strdup("A 'quoted' <title> & more");
  f->author = g_strdup("Ann Author");
  f->truncated = true;
  f->outline = g_strdup("Intro (page 1)\n  Part ]]> two (page 2)");
  add_page(f, 1, "first page ]]> text\r\nwith CRLF");
  add_page(f, 2, "")->image = 0;
  img = file_result_add_image(f);
  img->media_type = g_strdup("image/jpeg");
  img->data = g_strdup("AAAA");
  img->data_len = 4;
  img->width = 10;
  img->height = 20;
  img->page = 2;
  f->notice = g_strdup("… pages 3-30 not shown; continue with pages=\"3-\"");
  add_image(&r, "after.png", 4, 4); /* image 2 */
  f = &r.files[1];                  /* adding a file moved the array */
  doc = format_and_parse(&r, NULL);

  n = content_node(doc, 1);
  assert_attr_names(n, "path type bytes modified tokens pages title author truncated");
  assert_attr(n, "pages", "30");
  assert_attr(n, "title", "A 'quoted' <title> & more");
  assert_attr(n, "truncated", "true");
  pages = children_named(n, "Page");
  ck_assert_uint_eq(pages->len, 2);
  assert_attr(pages->pdata[0], "number", "1");
  assert_attr(pages->pdata[0], "image", NULL);
  assert_content_text(pages->pdata[0], f->page_out[0].text, f->page_out[0].text_len);
  assert_attr(pages->pdata[1], "number", "2");
  assert_attr(pages->pdata[1], "image", "1");
  g_ptr_array_free(pages, TRUE);
  pages = children_named(n, "Outline");
  ck_assert_uint_eq(pages->len, 1);
  assert_content_text(pages->pdata[0], f->outline, strlen(f->outline));
  ck_assert_ptr_eq(pages->pdata[0], xmlFirstElementChild(n));
  g_ptr_array_free(pages, TRUE);
  /* The notice is the text after the last page. */
  last = xmlLastElementChild(n);
  ck_assert_str_eq((const char *)last->name, "Page");
  for (xmlNodePtr t = last->next; t != NULL; t = t->next) {
    xmlChar *text = xmlNodeGetContent(t);

    g_string_append(after, (const char *)text);
    xmlFree(text);
  }
  ck_assert_str_eq(after->str, "\n… pages 3-30 not shown; continue with pages=\"3-\"\n");
  g_string_free(after, TRUE);
  assert_attr(content_node(doc, 2), "image", "2");
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

/* A notebook's cells and an XLSX's sheets: attributes in order, the cell's source before its
 * outputs, hostile text kept intact, image='k' counted from the file's first image. */
START_TEST(xml_sections_cells_and_sheets) {
  ReadResult r = {0};
  FileResult *f;
  SectionOut *s;
  SectionPart *p;
  ImageOut *img;
  GPtrArray *cells, *outputs;
  xmlDocPtr doc;
  xmlNodePtr n;

  add_image(&r, "before.png", 4, 4); /* image 0 */
  f = rb_add_file_len(&r, "nb.ipynb", 8);
  f->type = FILE_TYPE_NOTEBOOK;
  f->bytes = 100;
  f->modified_ms = 1700000000123;
  f->sections = 3;
  f->language = g_strdup("python");
  f->truncated = true;
  f->shown_first = 1;
  f->shown_last = 2;
  s = file_result_add_section(f);
  s->element = "Cell";
  s->number = 1;
  s->kind = "code";
  s->language = g_strdup("python");
  s->text = g_strdup("x = ']]>'\r\n");
  s->text_len = strlen(s->text);
  p = section_add_part(s);
  p->element = "Output";
  p->kind = "stream";
  p->name = g_strdup("std'out");
  p->text = g_strdup("a < b & c\n");
  p->text_len = strlen(p->text);
  p = section_add_part(s);
  p->element = "Output";
  p->kind = "display";
  p->image = 0;
  s = file_result_add_section(f);
  s->element = "Cell";
  s->number = 2;
  s->kind = "raw";
  img = file_result_add_image(f);
  img->media_type = g_strdup("image/png");
  img->data = g_strdup("AAAA");
  img->data_len = 4;
  img->width = img->height = 2;
  img->cell = 1;
  f->notice = g_strdup("[cells 3-3 of 3 not shown; read on with offset 3]");
  f = rb_add_file_len(&r, "b.xlsx", 6);
  f->type = FILE_TYPE_DOCUMENT;
  f->format = "xlsx";
  f->bytes = 10;
  f->sections = 1;
  s = file_result_add_section(f);
  s->element = "Sheet";
  s->number = 1;
  s->name = g_strdup("Q<1>");
  s->rows = 1;
  s->text = g_strdup("1: a | b\n");
  s->text_len = strlen(s->text);
  doc = format_and_parse(&r, NULL);

  n = content_node(doc, 1);
  assert_attr_names(n, "path type bytes modified tokens cells language truncated shown");
  assert_attr(n, "cells", "3");
  assert_attr(n, "shown", "1-2");
  cells = children_named(n, "Cell");
  ck_assert_uint_eq(cells->len, 2);
  assert_attr_names(cells->pdata[0], "index kind language");
  assert_attr(cells->pdata[1], "kind", "raw");
  assert_attr(cells->pdata[1], "language", NULL);
  outputs = children_named(cells->pdata[0], "Output");
  ck_assert_uint_eq(outputs->len, 2);
  assert_attr(outputs->pdata[0], "name", "std'out");
  assert_content_text(outputs->pdata[0], "a < b & c\n", 10);
  assert_attr(outputs->pdata[1], "image", "1");
  g_ptr_array_free(outputs, TRUE);
  g_ptr_array_free(cells, TRUE);
  n = content_node(doc, 2);
  assert_attr_names(n, "path type bytes tokens format sheets");
  cells = children_named(n, "Sheet");
  assert_attr_names(cells->pdata[0], "number name rows");
  assert_attr(cells->pdata[0], "name", "Q<1>");
  g_ptr_array_free(cells, TRUE);
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_pdf_failed_shows_no_pages) {
  ReadResult r = {0};
  FileResult *f;
  xmlDocPtr doc;
  xmlNodePtr n;

  f = add_pdf(&r, "locked.pdf", 3);
  f->title = g_strdup("left behind");
  add_page(f, 1, "must not show");
  f->notice = g_strdup("nor this");
  file_result_fail(f, CODE_PASSWORD_PROTECTED, "needs a password");
  f = add_pdf(&r, "empty-page.pdf", 1);
  add_page(f, 1, "");
  doc = format_and_parse(&r, NULL);
  n = content_node(doc, 0);
  assert_attr_names(n, "path type code error bytes modified tokens");
  ck_assert_ptr_null(xmlFirstElementChild(n));
  n = content_node(doc, 1);
  assert_attr(n, "truncated", NULL);
  assert_attr(xmlFirstElementChild(n), "number", "1");
  xmlFreeDoc(doc);
  read_result_clear(&r);
}
END_TEST

START_TEST(xml_pdf_random_page_text_round_trips) {
  GRand *rand = g_rand_new_with_seed(20261122);

  for (int round = 0; round < 200; round++) {
    ReadResult r = {0};
    FileResult *f = add_pdf(&r, "r.pdf", 9);
    GPtrArray *pages;
    xmlDocPtr doc;
    int n = g_rand_int_range(rand, 1, 5);

    for (int i = 0; i < n; i++) {
      PageOut *p = file_result_add_page(f);

      p->number = i + 1;
      p->text = random_string(rand, &p->text_len, false);
    }
    doc = format_and_parse(&r, NULL);
    pages = children_named(content_node(doc, 0), "Page");
    ck_assert_uint_eq(pages->len, (guint)n);
    for (int i = 0; i < n; i++)
      assert_content_text(pages->pdata[i], f->page_out[i].text, f->page_out[i].text_len);
    g_ptr_array_free(pages, TRUE);
    xmlFreeDoc(doc);
    read_result_clear(&r);
  }
  g_rand_free(rand);
}
END_TEST

static Suite *xml_suite(void) {
  Suite *s = suite_create("xml");
  TCase *tc = tcase_create("xml");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, xml_expected_text_helper);
  tcase_add_test(tc, xml_exact_output);
  tcase_add_test(tc, xml_etag_and_unchanged);
  tcase_add_test(tc, xml_hostile_content_round_trips);
  tcase_add_test(tc, xml_hostile_attributes_round_trip);
  tcase_add_test(tc, xml_random_round_trips);
  tcase_add_test(tc, xml_text_attributes);
  tcase_add_test(tc, xml_image_attributes);
  tcase_add_test(tc, xml_failure_attributes);
  tcase_add_test(tc, xml_image_indices_span_files);
  tcase_add_test(tc, xml_totals_exclude_failed);
  tcase_add_test(tc, xml_empty_result);
  tcase_add_test(tc, xml_modified_format);
  tcase_add_test(tc, xml_schema_rejects_wrong_documents);
  tcase_add_test(tc, xml_many_files);
  tcase_add_test(tc, xml_pdf_pages_outline_notice);
  tcase_add_test(tc, xml_sections_cells_and_sheets);
  tcase_add_test(tc, xml_pdf_failed_shows_no_pages);
  tcase_add_test(tc, xml_pdf_random_page_text_round_trips);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  xmlInitParser();
  failed = check_run(xml_suite());
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
