/* Integration tests of readImages: the real readerd binary, over its socket and its command
 * line, asking a real HTTP server on 127.0.0.1 that the test starts (tests/vision-server.py,
 * OpenAI-shaped and Anthropic-shaped) and that records every request it receives. Nothing
 * here reaches the internet or a model. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <libxml/relaxng.h>

#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

#define KEY "sk-test-7f3a9c1e5b2d4f60"

/* The test's files and its server. */
static char *dir;  /* the files asked about */
static char *rec;  /* what the server recorded */
static char *base; /* http://127.0.0.1:PORT */
static GPid server_pid;

static void vision_setup(void) {
  dir = rd_tmpdir();
  rd_vision_server_start(&server_pid, &rec, &base);
  setenv("READERD_VISION_MODEL", "vision-1", 1);
  setenv("READERD_VISION_API_KEY", KEY, 1);
  unsetenv("READERD_VISION_PROVIDER");
  unsetenv("READERD_VISION_TIMEOUT_MS");
}

static void vision_teardown(void) {
  rd_vision_server_stop(&server_pid, &rec, &base);
  rd_rmtree(dir);
  g_clear_pointer(&dir, g_free);
}

/* Points READERD_VISION_BASE_URL at the server's mode (ok, status-401, hang...). */
static void use_mode(const char *mode) {
  g_autofree char *url = g_strdup_printf("%s/%s/v1", base, mode);

  setenv("READERD_VISION_BASE_URL", url, 1);
}

/* A PNG of w x h in the test's folder. g_malloc'd path. */
static char *png(const char *name, int w, int h) {
  size_t len;
  g_autofree unsigned char *data = rd_make_png(w, h, &len);

  return rd_write_file(dir, name, data, len);
}

/* How many requests the server recorded. */
static int recorded_count(void) {
  int n = 0;
  g_autofree char *p = NULL;

  for (;; n++) {
    g_free(p);
    p = g_strdup_printf("%s/%04d.json", rec, n + 1);
    if (!g_file_test(p, G_FILE_TEST_EXISTS))
      return n;
  }
}

/* Waits until the server has recorded n requests (it writes a file each), up to RD_TIMEOUT_MS:
 * a sanitized daemon on a busy machine may take seconds to send one. */
static void wait_recorded(int n) {
  gint64 deadline = g_get_monotonic_time() + (gint64)RD_TIMEOUT_MS * 1000;

  while (recorded_count() < n && g_get_monotonic_time() < deadline)
    g_usleep(25 * 1000);
}

/* The n-th request the server recorded (1-based): {path, headers, body}. Unref it. */
static JsonNode *recorded(int n) {
  g_autofree char *p = g_strdup_printf("%s/%04d.json", rec, n);
  size_t len;
  g_autofree char *text = rd_read_file(p, &len);

  return rd_json_parse(text, len);
}

static JsonObject *obj(JsonNode *n) {
  ck_assert(n != NULL && JSON_NODE_HOLDS_OBJECT(n));
  return json_node_get_object(n);
}

static const char *str_at(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);

  return n != NULL && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
             ? json_node_get_string(n)
             : NULL;
}

/* The recorded request's header (lowercase name), or NULL. */
static const char *header(JsonNode *r, const char *name) {
  return str_at(json_object_get_object_member(obj(r), "headers"), name);
}

/* The recorded body's message content parts. */
static JsonArray *content_parts(JsonNode *r) {
  JsonObject *body = json_object_get_object_member(obj(r), "body");
  JsonArray *messages = json_object_get_array_member(body, "messages");

  ck_assert_int_eq(json_array_get_length(messages), 1);
  return json_object_get_array_member(json_array_get_object_element(messages, 0), "content");
}

/* Decodes base64 and reads the picture's size from its header. */
static void picture_size(const char *b64, int *ret_w, int *ret_h) {
  gsize len;
  g_autofree guchar *bytes = g_base64_decode(b64, &len);

  ck_assert_msg(rd_image_size(bytes, len, ret_w, ret_h), "the image sent is not a picture");
}

/* An OpenAI image part: checks its data URL, and returns the picture's size and detail. */
static const char *openai_image(JsonArray *parts, guint i, int *ret_w, int *ret_h) {
  JsonObject *part = json_array_get_object_element(parts, i);
  JsonObject *image_url;
  const char *url;

  ck_assert_str_eq(str_at(part, "type"), "image_url");
  image_url = json_object_get_object_member(part, "image_url");
  url = str_at(image_url, "url");
  /* A picture sent as it is stays PNG; a scaled one may be JPEG. */
  ck_assert_msg(g_str_has_prefix(url, "data:image/png;base64,") ||
                    g_str_has_prefix(url, "data:image/jpeg;base64,"),
                "url %.40s", url);
  picture_size(strstr(url, ";base64,") + strlen(";base64,"), ret_w, ret_h);
  return str_at(image_url, "detail");
}

static RdDaemon *daemon_up(RdConn **ret_conn) {
  RdDaemon *d = rd_daemon_start();

  *ret_conn = rd_conn_new(d->sock);
  return d;
}

/* Sends readImages and waits for its answer (the caller unrefs it). */
static JsonNode *read_images(RdConn *c, const char *params) {
  return rd_conn_call(c, "readImages", params);
}

/* Fails the test unless xml is valid against docs/read-images-result.rng. */
static void assert_valid_xml(const char *xml) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *rng =
      g_build_filename(root != NULL ? root : ".", "docs", "read-images-result.rng", NULL);
  xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewParserCtxt(rng);
  xmlRelaxNGPtr schema = xmlRelaxNGParse(pc);
  xmlRelaxNGValidCtxtPtr vc = schema != NULL ? xmlRelaxNGNewValidCtxt(schema) : NULL;
  xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), "result.xml", NULL, XML_PARSE_NONET);

  ck_assert_msg(schema != NULL, "cannot read %s", rng);
  ck_assert_msg(doc != NULL, "not XML: %s", xml);
  ck_assert_msg(xmlRelaxNGValidateDoc(vc, doc) == 0, "not valid: %s", xml);
  xmlFreeDoc(doc);
  xmlRelaxNGFreeValidCtxt(vc);
  xmlRelaxNGFree(schema);
  xmlRelaxNGFreeParserCtxt(pc);
}

/* The result of a response; its xml validated. */
static JsonObject *result_of(JsonNode *msg) {
  JsonObject *res;
  JsonNode *xml;

  ck_assert_msg(json_object_has_member(obj(msg), "result"), "no result: %s",
                json_to_string(msg, FALSE));
  res = json_object_get_object_member(obj(msg), "result");
  xml = json_object_get_member(res, "xml");
  /* A read's result (<ReadResults>) is the support library's to check. */
  if (xml != NULL && JSON_NODE_HOLDS_VALUE(xml) &&
      g_str_has_prefix(json_node_get_string(xml), "<ReadImagesResult"))
    assert_valid_xml(json_node_get_string(xml));
  return res;
}

static JsonObject *error_of(JsonNode *msg) {
  ck_assert_msg(json_object_has_member(obj(msg), "error"), "no error: %s",
                json_to_string(msg, FALSE));
  return json_object_get_object_member(obj(msg), "error");
}

/* files[i] of a result or of an error's data. */
static JsonObject *file_at(JsonObject *o, guint i) {
  return json_array_get_object_element(json_object_get_array_member(o, "files"), i);
}

START_TEST(vision_openai_request_body) {
  g_autofree char *wide = png("wide.png", 3000, 1000), *small = png("small.png", 300, 200);
  g_autofree char *text = rd_write_str(dir, "notes.txt", "not a picture\n");
  g_autofree char *params = NULL, *want = NULL;
  g_autoptr(JsonNode) msg = NULL, r = NULL;
  JsonObject *res, *body, *usage;
  JsonArray *parts;
  RdConn *c;
  RdDaemon *d;
  int w, h;

  use_mode("ok");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\",\"%s/missing.png\",\"%s\",\"%s\"],"
                           "\"query\":\"What does the chart show?\"}",
                           wide, dir, text, small);
  msg = read_images(c, params);
  res = result_of(msg);
  /* The server's answer names what it received. */
  ck_assert_str_eq(str_at(res, "answer"),
                   "asked 'What does the chart show?' about 2 image(s): high,low");
  ck_assert_str_eq(str_at(res, "model"), "vision-1-served");
  usage = json_object_get_object_member(res, "usage");
  ck_assert_int_eq(json_object_get_int_member(usage, "inputTokens"), 1234);
  ck_assert_int_eq(json_object_get_int_member(usage, "outputTokens"), 56);
  ck_assert_str_eq(str_at(file_at(res, 1), "code"), "FILE_NOT_FOUND");
  ck_assert_str_eq(str_at(file_at(res, 2), "code"), "UNSUPPORTED_FORMAT");
  ck_assert_ptr_null(str_at(file_at(res, 0), "code"));
  ck_assert_ptr_nonnull(strstr(str_at(res, "xml"), "<Answer>asked 'What does the chart show?'"));
  ck_assert_ptr_nonnull(strstr(str_at(res, "xml"), "code='FILE_NOT_FOUND'"));

  ck_assert_int_eq(recorded_count(), 1);
  r = recorded(1);
  ck_assert_str_eq(str_at(obj(r), "path"), "/ok/v1/chat/completions");
  want = g_strdup_printf("Bearer %s", KEY);
  ck_assert_str_eq(header(r, "authorization"), want);
  ck_assert_str_eq(header(r, "content-type"), "application/json");
  body = json_object_get_object_member(obj(r), "body");
  ck_assert_str_eq(str_at(body, "model"), "vision-1");
  ck_assert_int_eq(json_object_get_int_member(body, "max_tokens"), 1024);
  parts = content_parts(r);
  ck_assert_int_eq(json_array_get_length(parts), 3);
  ck_assert_str_eq(str_at(json_array_get_object_element(parts, 0), "type"), "text");
  ck_assert_str_eq(str_at(json_array_get_object_element(parts, 0), "text"),
                   "What does the chart show?");
  /* auto: the wide picture fit to 2048 on its long edge, sent as high; the small one as is. */
  ck_assert_str_eq(openai_image(parts, 1, &w, &h), "high");
  ck_assert_int_eq(w, 2048);
  ck_assert_int_eq(h, 683);
  ck_assert_str_eq(openai_image(parts, 2, &w, &h), "low");
  ck_assert_int_eq(w, 300);
  ck_assert_int_eq(h, 200);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* Writes v as n little-endian bytes at p. */
static void put_le(unsigned char *p, size_t v, int n) {
  for (int i = 0; i < n; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* A 24-bit BMP of w x h pixels. g_malloc'd path. */
static char *bmp(const char *name, int w, int h) {
  size_t row = ((size_t)w * 3 + 3) & ~(size_t)3, size = 54 + row * (size_t)h;
  g_autofree unsigned char *b = g_malloc0(size);
  char *path;

  b[0] = 'B';
  b[1] = 'M';
  put_le(b + 2, size, 4);
  put_le(b + 10, 54, 4);
  put_le(b + 14, 40, 4);
  put_le(b + 18, (uint32_t)w, 4);
  put_le(b + 22, (uint32_t)h, 4);
  put_le(b + 26, 1, 2);
  put_le(b + 28, 24, 2);
  for (size_t i = 54; i < size; i++)
    b[i] = (unsigned char)(i * 7);
  path = rd_write_file(dir, name, b, size);
  return path;
}

/* BMP and SVG files are converted as `read` converts them, and sent as pictures. */
START_TEST(vision_converted_formats) {
  g_autofree char *b = bmp("chart.bmp", 40, 30), *params = NULL;
  g_autofree char *svg = rd_write_str(dir, "plot.svg",
                                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" "
                                      "height=\"100\"><rect width=\"200\" height=\"50\" "
                                      "fill=\"red\"/></svg>\n");
  g_autoptr(JsonNode) msg = NULL, r = NULL;
  JsonObject *res;
  RdConn *c;
  RdDaemon *d;
  int w, h;

  use_mode("ok");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\",\"%s\"],\"query\":\"q\"}", b, svg);
  msg = read_images(c, params);
  res = result_of(msg);
  ck_assert_ptr_null(str_at(file_at(res, 0), "code"));
  r = recorded(1);
  openai_image(content_parts(r), 1, &w, &h);
  ck_assert_int_eq(w, 40);
  ck_assert_int_eq(h, 30);
  if (str_at(file_at(res, 1), "code") != NULL) {
    skip_note("SVG not rendered (%s): librsvg's gdk-pixbuf loader is missing",
              str_at(file_at(res, 1), "error"));
  } else {
    openai_image(content_parts(r), 2, &w, &h);
    ck_assert_int_eq(w, 2 * h);
  }
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* A PDF of two pages: portrait (612x792 points), then landscape (792x612), with a line each. */
static char *write_pdf(const char *name) {
  GString *pdf = g_string_new("%PDF-1.4\n");
  const char *objs[] = {
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
      "/Resources << /Font << /F1 6 0 R >> >> >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 792 612] /Contents 5 0 R "
      "/Resources << /Font << /F1 6 0 R >> >> >>",
      "<< /Length 44 >>\nstream\nBT /F1 24 Tf 72 300 Td (Figure one) Tj ET\nendstream",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  };
  size_t offs[6], xref;
  char *path;

  for (int i = 0; i < 6; i++) {
    offs[i] = pdf->len;
    g_string_append_printf(pdf, "%d 0 obj\n%s\nendobj\n", i + 1, objs[i]);
  }
  xref = pdf->len;
  g_string_append(pdf, "xref\n0 7\n0000000000 65535 f \n");
  for (int i = 0; i < 6; i++)
    g_string_append_printf(pdf, "%010zu 00000 n \n", offs[i]);
  g_string_append_printf(pdf, "trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n%zu\n%%%%EOF\n",
                         xref);
  path = rd_write_file(dir, name, pdf->str, pdf->len);
  g_string_free(pdf, TRUE);
  return path;
}

/* A PDF's selected page is rendered and sent, within high's limits (long edge 2048, short
 * side 768). */
START_TEST(vision_pdf_page) {
  g_autofree char *pdf = write_pdf("paper.pdf"), *params = NULL;
  g_autoptr(JsonNode) msg = NULL, r = NULL;
  JsonObject *sent;
  JsonArray *parts;
  RdConn *c;
  RdDaemon *d;
  int w, h;

  use_mode("ok");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"Caption?\",\"pages\":\"2\","
                           "\"detail\":\"high\"}",
                           pdf);
  msg = read_images(c, params);
  sent = json_array_get_object_element(json_object_get_array_member(result_of(msg), "images"), 0);
  ck_assert_int_eq(json_object_get_int_member(sent, "page"), 2);
  ck_assert_str_eq(str_at(file_at(result_of(msg), 0), "type"), "pdf");
  r = recorded(1);
  parts = content_parts(r);
  ck_assert_int_eq(json_array_get_length(parts), 2);
  ck_assert_str_eq(openai_image(parts, 1, &w, &h), "high");
  /* The landscape page, its short side at most 768 and not far below. */
  ck_assert_int_gt(w, h);
  ck_assert_int_le(w, 2048);
  ck_assert_int_le(h, 768);
  ck_assert_int_ge(h, 700);
  ck_assert_int_eq(json_object_get_int_member(sent, "width"), w);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* detail low: 512 on the long edge; high: 2048 on the long edge and 768 on the short side.
 * The call's model and maxTokens go into the body. */
START_TEST(vision_detail_sizes) {
  g_autofree char *photo = png("photo.png", 2000, 1500);
  static const struct {
    const char *detail;
    int w, h;
  } cases[] = {{"low", 512, 384}, {"high", 1024, 768}, {"auto", 1024, 768}};
  RdConn *c;
  RdDaemon *d;

  use_mode("ok");
  d = daemon_up(&c);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *params = g_strdup_printf(
        "{\"paths\":[\"%s\"],\"query\":\"q\",\"detail\":\"%s\",\"model\":\"other-%zu\","
        "\"maxTokens\":77}",
        photo, cases[i].detail, i);
    g_autofree char *model = g_strdup_printf("other-%zu", i);
    g_autoptr(JsonNode) msg = read_images(c, params), r = recorded((int)i + 1);
    JsonObject *body = json_object_get_object_member(obj(r), "body"), *sent;
    int w, h;

    result_of(msg);
    ck_assert_str_eq(str_at(body, "model"), model);
    ck_assert_int_eq(json_object_get_int_member(body, "max_tokens"), 77);
    ck_assert_str_eq(openai_image(content_parts(r), 1, &w, &h),
                     strcmp(cases[i].detail, "low") == 0 ? "low" : "high");
    ck_assert_int_eq(w, cases[i].w);
    ck_assert_int_eq(h, cases[i].h);
    /* What was sent, as the result says it. */
    sent = json_array_get_object_element(json_object_get_array_member(result_of(msg), "images"), 0);
    ck_assert_int_eq(json_object_get_int_member(sent, "width"), cases[i].w);
    ck_assert_int_eq(json_object_get_int_member(sent, "height"), cases[i].h);
    ck_assert_int_eq(json_object_get_int_member(sent, "originalWidth"), 2000);
  }
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* Provider anthropic from initialize: x-api-key and anthropic-version, image blocks then the
 * question, the answer and usage read from the Messages API's shape. */
START_TEST(vision_anthropic) {
  g_autofree char *a = png("a.png", 640, 480), *b = png("b.png", 100, 50);
  g_autofree char *init = NULL, *params = NULL;
  g_autoptr(JsonNode) im = NULL, msg = NULL, r = NULL;
  JsonObject *res, *block;
  JsonArray *parts;
  RdConn *c;
  RdDaemon *d;
  int w, h;

  unsetenv("READERD_VISION_BASE_URL");
  d = daemon_up(&c);
  init = g_strdup_printf("{\"vision\":{\"provider\":\"anthropic\",\"baseUrl\":\"%s/ok/v1/\","
                         "\"apiKey\":\"other-key-1\",\"model\":\"claude-x\"}}",
                         base);
  im = rd_conn_call(c, "initialize", init);
  result_of(im);
  params = g_strdup_printf("{\"paths\":[\"%s\",\"%s\"],\"query\":\"Compare them\"}", a, b);
  msg = read_images(c, params);
  res = result_of(msg);
  ck_assert_str_eq(str_at(res, "answer"),
                   "asked 'Compare them' about 2 image(s): image/png,image/png");
  {
    /* The same pictures by relative paths from cwd. */
    g_autofree char *rel = g_strdup_printf("{\"paths\":[\"a.png\"],\"query\":\"q\",\"cwd\":"
                                           "\"%s\"}",
                                           dir);
    g_autoptr(JsonNode) again = read_images(c, rel);

    ck_assert_ptr_null(str_at(file_at(result_of(again), 0), "code"));
  }
  ck_assert_str_eq(str_at(res, "provider"), "anthropic");
  ck_assert(!json_object_has_member(
      json_array_get_object_element(json_object_get_array_member(res, "images"), 0), "detail"));
  ck_assert_str_eq(str_at(res, "model"), "claude-x-served");
  ck_assert_int_eq(
      json_object_get_int_member(json_object_get_object_member(res, "usage"), "inputTokens"), 1234);
  r = recorded(1);
  ck_assert_str_eq(str_at(obj(r), "path"), "/ok/v1/messages");
  ck_assert_str_eq(header(r, "x-api-key"), "other-key-1");
  ck_assert_str_eq(header(r, "anthropic-version"), "2023-06-01");
  ck_assert_ptr_null(header(r, "authorization"));
  parts = content_parts(r);
  ck_assert_int_eq(json_array_get_length(parts), 3);
  for (guint i = 0; i < 2; i++) {
    block = json_array_get_object_element(parts, i);
    ck_assert_str_eq(str_at(block, "type"), "image");
    block = json_object_get_object_member(block, "source");
    ck_assert_str_eq(str_at(block, "type"), "base64");
    ck_assert_str_eq(str_at(block, "media_type"), "image/png");
    picture_size(str_at(block, "data"), &w, &h);
    ck_assert_int_eq(w, i == 0 ? 640 : 100);
    ck_assert_int_eq(h, i == 0 ? 480 : 50);
  }
  ck_assert_str_eq(str_at(json_array_get_object_element(parts, 2), "text"), "Compare them");
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* Asks with the daemon's log at debug; returns the error object's message (g_malloc'd) and
 * checks that the key is nowhere in the answer. */
static char *ask_error(RdConn *c, const char *path, int want_code, long want_status) {
  g_autofree char *params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\"}", path);
  g_autoptr(JsonNode) msg = read_images(c, params);
  g_autofree char *text = json_to_string(msg, FALSE);
  JsonObject *err = error_of(msg), *data;

  ck_assert_int_eq(json_object_get_int_member(err, "code"), want_code);
  ck_assert_msg(strstr(text, KEY) == NULL, "the key is in the answer: %s", text);
  data = json_object_get_object_member(err, "data");
  ck_assert_ptr_nonnull(data);
  assert_valid_xml(str_at(data, "xml"));
  if (want_status != 0)
    ck_assert_int_eq(json_object_get_int_member(data, "httpStatus"), want_status);
  else
    ck_assert(!json_object_has_member(data, "httpStatus"));
  ck_assert_ptr_null(str_at(file_at(data, 0), "code"));
  return g_strdup(str_at(err, "message"));
}

static void assert_contains(const char *text, const char *part) {
  ck_assert_msg(strstr(text, part) != NULL, "'%s' does not say '%s'", text, part);
}

/* HTTP errors name the status and the endpoint's message, with the key it quoted redacted. */
START_TEST(vision_http_errors) {
  g_autofree char *p = png("p.png", 64, 64), *log = NULL;
  static const long statuses[] = {401, 500, 404};
  RdConn *c;
  RdDaemon *d;

  setenv("READERD_LOG", "debug", 1);
  d = daemon_up(&c);
  for (size_t i = 0; i < G_N_ELEMENTS(statuses); i++) {
    g_autofree char *mode = g_strdup_printf("status-%ld", statuses[i]);
    g_autofree char *init = g_strdup_printf("{\"vision\":{\"baseUrl\":\"%s/%s/v1\",\"apiKey\":"
                                            "\"%s\"}}",
                                            base, mode, KEY);
    g_autofree char *want = g_strdup_printf("answered HTTP %ld: Incorrect API key provided: "
                                            "[redacted]. Check it.",
                                            statuses[i]);
    g_autoptr(JsonNode) im = rd_conn_call(c, "initialize", init);
    g_autofree char *m = NULL;

    result_of(im);
    m = ask_error(c, p, -32001, statuses[i]);
    assert_contains(m, want);
  }
  ck_assert_int_eq(recorded_count(), 3);
  rd_conn_free(c);
  rd_daemon_stop(d);
  log = rd_daemon_log(d);
  assert_contains(log, "answered HTTP 401");
  ck_assert_msg(strstr(log, KEY) == NULL, "the key is in the log: %s", log);
  rd_daemon_free(d);
}
END_TEST

/* 429 with Retry-After: 1 is tried once more after a second; a 503 every time ends after the
 * second attempt. */
START_TEST(vision_retry_after) {
  g_autofree char *p = png("p.png", 64, 64), *params = NULL, *m = NULL;
  g_autoptr(JsonNode) msg = NULL;
  gint64 t0;
  RdConn *c;
  RdDaemon *d;

  use_mode("429once-a");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"again\"}", p);
  t0 = g_get_monotonic_time();
  msg = read_images(c, params);
  ck_assert_str_eq(str_at(result_of(msg), "answer"), "asked 'again' about 1 image(s): low");
  ck_assert_int_ge(g_get_monotonic_time() - t0, 900 * 1000);
  ck_assert_int_eq(recorded_count(), 2);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);

  use_mode("503always-b");
  d = daemon_up(&c);
  m = ask_error(c, p, -32001, 503);
  assert_contains(m, "answered HTTP 503 (after one retry): slow down");
  ck_assert_int_eq(recorded_count(), 4);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* A server that never answers, one that drops the connection, a body that is not JSON, one
 * over the cap, and a port where nothing listens: each a clear error, and the daemon goes on. */
START_TEST(vision_endpoint_failures) {
  g_autofree char *p = png("p.png", 64, 64), *log = NULL;
  static const struct {
    const char *mode;
    long status;
    const char *says;
  } cases[] = {
      {"hang", 0, "did not answer in time"},
      {"drop", 0, "closed the connection without an answer"},
      {"malformed", 200, "answered HTTP 200 with no usable answer"},
      {"huge", 200, "answered more than 8 MiB: refused"},
  };
  RdConn *c;
  RdDaemon *d;
  gint64 t0;

  setenv("READERD_VISION_TIMEOUT_MS", "1500", 1);
  setenv("READERD_LOG", "debug", 1);
  d = daemon_up(&c);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *init =
        g_strdup_printf("{\"vision\":{\"baseUrl\":\"%s/%s/v1\"}}", base, cases[i].mode);
    g_autoptr(JsonNode) im = rd_conn_call(c, "initialize", init);
    g_autofree char *m = NULL;

    result_of(im);
    t0 = g_get_monotonic_time();
    m = ask_error(c, p, -32001, cases[i].status);
    assert_contains(m, cases[i].says);
    ck_assert_int_lt(g_get_monotonic_time() - t0, 10 * 1000 * 1000);
  }
  {
    /* Nothing listens on port 1. */
    g_autoptr(JsonNode) im = rd_conn_call(c, "initialize",
                                          "{\"vision\":{\"baseUrl\":"
                                          "\"http://127.0.0.1:1/v1\"}}");
    g_autofree char *m = NULL;

    ck_assert_int_eq(rd_error_code(im), 0);
    m = ask_error(c, p, -32001, 0);

    assert_contains(m, "cannot connect to the vision endpoint at http://127.0.0.1:1/v1");
  }
  rd_conn_free(c);
  rd_daemon_stop(d);
  log = rd_daemon_log(d);
  ck_assert_msg(strstr(log, KEY) == NULL, "the key is in the log: %s", log);
  rd_daemon_free(d);
}
END_TEST

/* $/cancelRequest stops the transfer: the call answers "request cancelled" at once, and the
 * daemon serves the same connection and the next client. */
START_TEST(vision_cancel_mid_request) {
  g_autofree char *p = png("p.png", 64, 64), *params = NULL, *key = NULL;
  g_autoptr(JsonNode) msg = NULL, ok = NULL, rd = NULL;
  RdConn *c, *c2;
  RdDaemon *d;
  gint64 t0;

  use_mode("hang");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\"}", p);
  key = rd_conn_request(c, "readImages", params, "\"slow\"");
  wait_recorded(1);
  ck_assert_int_eq(recorded_count(), 1);
  t0 = g_get_monotonic_time();
  rd_conn_notify(c, "$/cancelRequest", "{\"id\":\"slow\"}");
  msg = rd_conn_wait(c, key, RD_TIMEOUT_MS);
  ck_assert_int_eq(json_object_get_int_member(error_of(msg), "code"), -32800);
  ck_assert_int_lt(g_get_monotonic_time() - t0, 2 * 1000 * 1000);
  /* The same connection reads on; a new client is asked about its pictures. */
  {
    g_autofree char *read_params = g_strdup_printf("{\"paths\":[\"%s\"]}", p);

    rd = rd_conn_call(c, "read", read_params);
    ck_assert_ptr_null(str_at(file_at(result_of(rd), 0), "code"));
  }
  c2 = rd_conn_new(d->sock);
  {
    g_autofree char *init = g_strdup_printf("{\"vision\":{\"baseUrl\":\"%s/ok/v1\"}}", base);
    g_autoptr(JsonNode) im = rd_conn_call(c2, "initialize", init);

    result_of(im);
  }
  ok = read_images(c2, params);
  ck_assert_str_eq(str_at(result_of(ok), "answer"), "asked 'q' about 1 image(s): low");
  rd_conn_free(c2);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* At most 4 readImages run at once on a connection: a fifth is refused at once; the four are
 * cancelled together. Calls on another connection go on meanwhile. */
START_TEST(vision_concurrent_limit) {
  g_autofree char *p = png("p.png", 64, 64), *params = NULL;
  char *keys[5] = {0};
  g_autoptr(JsonNode) fifth = NULL;
  RdConn *c;
  RdDaemon *d;

  use_mode("hang");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\"}", p);
  for (int i = 0; i < 5; i++) {
    g_autofree char *id = g_strdup_printf("%d", 100 + i);

    keys[i] = rd_conn_request(c, "readImages", params, id);
  }
  fifth = rd_conn_wait(c, keys[4], RD_TIMEOUT_MS);
  ck_assert_int_eq(rd_error_code(fifth), -32600);
  wait_recorded(4);
  ck_assert_int_eq(recorded_count(), 4);
  for (int i = 0; i < 4; i++) {
    g_autofree char *cancel = g_strdup_printf("{\"id\":%d}", 100 + i);

    rd_conn_notify(c, "$/cancelRequest", cancel);
  }
  for (int i = 0; i < 4; i++) {
    g_autoptr(JsonNode) m = rd_conn_wait(c, keys[i], RD_TIMEOUT_MS);

    ck_assert_int_eq(rd_error_code(m), -32800);
  }
  for (int i = 0; i < 5; i++)
    g_free(keys[i]);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* A client that goes away mid-request costs nothing: the daemon stops cleanly after. */
START_TEST(vision_disconnect_mid_request) {
  g_autofree char *p = png("p.png", 64, 64), *params = NULL, *key = NULL;
  RdConn *c;
  RdDaemon *d;

  use_mode("hang");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\"}", p);
  key = rd_conn_request(c, "readImages", params, NULL);
  wait_recorded(1);
  rd_conn_free(c);
  c = rd_conn_new(d->sock);
  {
    g_autoptr(JsonNode) im = rd_conn_call(c, "initialize", NULL);

    result_of(im);
  }
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* Bad params, no model, a key in the call, and files none of which is a picture. */
START_TEST(vision_bad_calls) {
  g_autofree char *p = png("p.png", 64, 64), *none = NULL;
  static const char *const bad[] = {
      "{\"paths\":[\"x.png\"]}",
      "{\"paths\":[],\"query\":\"q\"}",
      "{\"paths\":[\"x.png\"],\"query\":\"q\",\"detail\":\"medium\"}",
      "{\"paths\":[\"x.png\"],\"query\":\"q\",\"apiKey\":\"k\"}",
      "{\"paths\":[\"x.png\"],\"query\":\"q\",\"maxTokens\":0}",
      "{\"paths\":[\"x.png\"],\"query\":\"q\",\"provider\":\"other\"}",
      "{\"paths\":[\"x.pdf\"],\"query\":\"q\",\"pages\":\"0-\"}",
      "{\"paths\":[\"x.png\"],\"query\":\"q\",\"baseUrl\":\"file:///etc/passwd\"}",
  };
  g_autoptr(JsonNode) msg = NULL;
  JsonObject *err;
  RdConn *c;
  RdDaemon *d;

  use_mode("ok");
  d = daemon_up(&c);
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autoptr(JsonNode) m = read_images(c, bad[i]);

    ck_assert_int_eq(rd_error_code(m), -32602);
  }
  none = g_strdup_printf("{\"paths\":[\"%s/a.png\",\"%s/b.png\"],\"query\":\"q\"}", dir, dir);
  msg = read_images(c, none);
  err = error_of(msg);
  ck_assert_int_eq(json_object_get_int_member(err, "code"), -32002);
  ck_assert_str_eq(str_at(file_at(json_object_get_object_member(err, "data"), 1), "code"),
                   "FILE_NOT_FOUND");
  ck_assert_int_eq(recorded_count(), 0);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);

  unsetenv("READERD_VISION_MODEL");
  d = daemon_up(&c);
  {
    g_autofree char *params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\"}", p);
    g_autoptr(JsonNode) m = read_images(c, params);

    ck_assert_int_eq(rd_error_code(m), -32602);
    assert_contains(str_at(error_of(m), "message"), "READERD_VISION_MODEL");
  }
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* The configured key goes to the configured endpoint only: a call naming another base URL
 * is sent without it. */
START_TEST(vision_key_stays_with_its_endpoint) {
  g_autofree char *p = png("p.png", 64, 64), *params = NULL;
  g_autoptr(JsonNode) msg = NULL, r = NULL;
  RdConn *c;
  RdDaemon *d;

  setenv("READERD_VISION_BASE_URL", "http://127.0.0.1:1/v1", 1);
  d = daemon_up(&c);
  params =
      g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\",\"baseUrl\":\"%s/ok/v1\"}", p, base);
  msg = read_images(c, params);
  result_of(msg);
  r = recorded(1);
  ck_assert_ptr_null(header(r, "authorization"));
  ck_assert_ptr_null(header(r, "x-api-key"));
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* The connection's fence holds for readImages: a picture outside confineToRoot's root is
 * ACCESS_DENIED and never sent, the one inside is asked about. Over stdio too, answered before
 * the end of input closes the connection. */
START_TEST(vision_fence_and_stdio) {
  g_autofree char *in_root = png("in.png", 64, 64), *init = NULL, *params = NULL, *line = NULL;
  g_autofree char *outside = NULL;
  const char *argv[] = {rd_readerd(), "serve", "--stdio", NULL};
  g_autoptr(JsonNode) im = NULL, msg = NULL, answer = NULL;
  JsonObject *res;
  RdRun run = {0};
  RdConn *c;
  RdDaemon *d;

  {
    size_t len;
    g_autofree unsigned char *data = rd_make_png(32, 32, &len);

    outside = rd_write_file(rec, "out.png", data, len);
  }
  use_mode("ok");
  d = daemon_up(&c);
  init = g_strdup_printf("{\"rootPath\":\"%s\",\"confineToRoot\":true}", dir);
  im = rd_conn_call(c, "initialize", init);
  result_of(im);
  params = g_strdup_printf("{\"paths\":[\"%s\",\"in.png\"],\"query\":\"q\"}", outside);
  msg = read_images(c, params);
  res = result_of(msg);
  ck_assert_str_eq(str_at(file_at(res, 0), "code"), "ACCESS_DENIED");
  ck_assert_ptr_null(str_at(file_at(res, 1), "code"));
  ck_assert_str_eq(str_at(res, "answer"), "asked 'q' about 1 image(s): low");
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);

  line = g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"readImages\",\"params\":"
                         "{\"paths\":[\"%s\"],\"query\":\"stdio\"}}\n",
                         in_root);
  rd_run(dir, argv, line, strlen(line), 30000, &run);
  ck_assert_int_eq(run.code, 0);
  answer = rd_json_parse(run.out, run.out_len);
  ck_assert_str_eq(str_at(result_of(answer), "answer"), "asked 'stdio' about 1 image(s): low");
  rd_run_clear(&run);
}
END_TEST

/* Runs `readerd read-images ARGS...` in dir. */
static void run_cli(RdRun *ret, const char *arg, ...) {
  GPtrArray *argv = g_ptr_array_new();
  va_list ap;

  g_ptr_array_add(argv, (gpointer)rd_readerd());
  g_ptr_array_add(argv, (gpointer) "read-images");
  va_start(ap, arg);
  for (const char *a = arg; a != NULL; a = va_arg(ap, const char *))
    g_ptr_array_add(argv, (gpointer)a);
  va_end(ap);
  g_ptr_array_add(argv, NULL);
  rd_run(dir, (const char *const *)argv->pdata, NULL, 0, 30000, ret);
  g_ptr_array_free(argv, TRUE);
}

START_TEST(vision_cli) {
  g_autofree char *ok_url = g_strdup_printf("%s/ok/v1", base);
  g_autofree char *bad_url = g_strdup_printf("%s/status-401/v1", base);
  g_autoptr(JsonNode) json = NULL, r = NULL;
  RdRun run = {0};
  int w, h;

  g_free(png("fig.png", 900, 600)); /* in dir: read by its relative name */

  unsetenv("READERD_VISION_BASE_URL");
  run_cli(&run, "--query", "Which axis?", "--detail", "low", "--base-url", ok_url, "fig.png",
          "gone.png", NULL);
  ck_assert_int_eq(run.code, 0);
  ck_assert_str_eq(run.out, "asked 'Which axis?' about 1 image(s): low\n");
  assert_contains(run.err, "gone.png: FILE_NOT_FOUND");
  r = recorded(1);
  ck_assert_str_eq(openai_image(content_parts(r), 1, &w, &h), "low");
  ck_assert_int_eq(w, 512);
  ck_assert_int_eq(h, 341);
  rd_run_clear(&run);

  run_cli(&run, "--json", "--query", "q", "--model", "m9", "--base-url", ok_url, "fig.png", NULL);
  ck_assert_int_eq(run.code, 0);
  json = rd_json_parse(run.out, run.out_len);
  ck_assert_str_eq(str_at(obj(json), "model"), "m9-served");
  ck_assert_ptr_nonnull(str_at(obj(json), "xml"));
  rd_run_clear(&run);

  run_cli(&run, "--query", "q", "--base-url", bad_url, "fig.png", NULL);
  ck_assert_int_eq(run.code, 1);
  ck_assert_str_eq(run.out, "");
  assert_contains(run.err, "HTTP 401: Incorrect API key provided: [redacted]");
  ck_assert_msg(strstr(run.err, KEY) == NULL, "the key is on stderr: %s", run.err);
  rd_run_clear(&run);

  run_cli(&run, "--query", "q", "--base-url", ok_url, "gone.png", NULL);
  ck_assert_int_eq(run.code, 1);
  assert_contains(run.err, "no image could be read");
  rd_run_clear(&run);

  run_cli(&run, "fig.png", NULL);
  ck_assert_int_eq(run.code, 2);
  assert_contains(run.err, "--query");
  rd_run_clear(&run);
  run_cli(&run, "--query", "q", "--detail", "huge", "fig.png", NULL);
  ck_assert_int_eq(run.code, 2);
  rd_run_clear(&run);
  /* A key that would add a header line is refused, and not echoed. */
  setenv("READERD_VISION_API_KEY", KEY "\r\nX-Injected: 1", 1);
  run_cli(&run, "--query", "q", "--base-url", ok_url, "fig.png", NULL);
  ck_assert_int_eq(run.code, 2);
  assert_contains(run.err, "control character");
  ck_assert(strstr(run.err, KEY) == NULL);
  rd_run_clear(&run);
  ck_assert_int_eq(recorded_count(), 3);
}
END_TEST

/* Hostile answers: any client of `serve` may name the endpoint of its call, so an answer nested
 * 100,000 arrays deep is that call's error and the daemon serves the next client; an answer
 * quoting the key it was sent shows "[redacted]" in its place, through the daemon and the CLI. */
START_TEST(vision_hostile_answers) {
  g_autofree char *p = png("p.png", 64, 64), *params = NULL, *quote_url = NULL;
  g_autoptr(JsonNode) deep = NULL, quoted = NULL, sent = NULL;
  g_autofree char *text = NULL;
  JsonObject *err, *res;
  RdConn *c, *c2;
  RdDaemon *d;
  RdRun run = {0};

  use_mode("quotekey");
  d = daemon_up(&c);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\",\"baseUrl\":\"%s/deep/v1\"}",
                           p, base);
  deep = read_images(c, params);
  err = error_of(deep);
  ck_assert_int_eq(json_object_get_int_member(err, "code"), -32001);
  assert_contains(str_at(err, "message"), "nested too deeply");
  ck_assert(rd_daemon_alive(d));

  g_free(params);
  params = g_strdup_printf("{\"paths\":[\"%s\"],\"query\":\"q\"}", p);
  c2 = rd_conn_new(d->sock);
  quoted = read_images(c2, params);
  res = result_of(quoted);
  ck_assert_str_eq(str_at(res, "answer"), "you sent the key [redacted], keep it");
  ck_assert_str_eq(str_at(res, "model"), "m-[redacted]");
  text = json_to_string(quoted, FALSE);
  ck_assert_msg(strstr(text, KEY) == NULL, "the key is in the answer: %s", text);
  sent = recorded(2);
  ck_assert_str_eq(header(sent, "authorization"), "Bearer " KEY);
  rd_conn_free(c2);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);

  unsetenv("READERD_VISION_BASE_URL");
  quote_url = g_strdup_printf("%s/quotekey/v1", base);
  run_cli(&run, "--json", "--query", "q", "--base-url", quote_url, p, NULL);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, KEY) == NULL, "the key is in the output: %s", run.out);
  assert_contains(run.out, "you sent the key [redacted], keep it");
  rd_run_clear(&run);
}
END_TEST

/* The response with id `id` among the lines of out. Unref it. */
static JsonNode *line_with_id(const char *out, int id) {
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);

  for (char **l = lines; *l != NULL; l++) {
    JsonNode *n;

    if (**l == '\0')
      continue;
    n = rd_json_parse(*l, strlen(*l));
    if (json_object_has_member(obj(n), "id") && json_object_get_int_member(obj(n), "id") == id)
      return n;
    json_node_unref(n);
  }
  ck_abort_msg("no answer with id %d in %s", id, out);
  return NULL;
}

/* The text of a tools/call result, and whether it is an error. */
static const char *tool_text(JsonNode *msg, bool *ret_error) {
  JsonObject *res = result_of(msg);

  *ret_error = json_object_get_boolean_member(res, "isError");
  return str_at(json_array_get_object_element(json_object_get_array_member(res, "content"), 0),
                "text");
}

/* `readerd mcp` offers read_images when a model is configured, and answers it with the
 * <ReadImagesResult> XML; the endpoint's failure is the tool's error; an endpoint or a key in
 * the arguments is refused. */
START_TEST(vision_mcp_tool) {
  g_autofree char *in = NULL;
  const char *argv[] = {rd_readerd(), "mcp", "--root", dir, NULL};
  g_autoptr(JsonNode) list = NULL, ok = NULL, bad = NULL, failed = NULL;
  JsonArray *tools;
  const char *text;
  bool is_error;
  RdRun run = {0};

  g_free(png("fig.png", 300, 200)); /* in dir: read by its relative name */

  use_mode("ok");
  in = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_images\",\"arguments\":{\"paths\":[\"fig.png\",\"nope.png\"],\"query\":\"Axes?\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_images\",\"arguments\":{\"paths\":[\"fig.png\"],\"query\":\"q\",\"baseUrl\":"
      "\"http://127.0.0.1:1/v1\"}}}\n");
  rd_run(dir, argv, in, strlen(in), 30000, &run);
  ck_assert_int_eq(run.code, 0);
  list = line_with_id(run.out, 2);
  tools = json_object_get_array_member(result_of(list), "tools");
  ck_assert_int_eq(json_array_get_length(tools), 4);
  ck_assert_str_eq(str_at(json_array_get_object_element(tools, 3), "name"), "read_images");
  ok = line_with_id(run.out, 3);
  text = tool_text(ok, &is_error);
  ck_assert(!is_error);
  assert_contains(text, "<Answer>asked 'Axes?' about 1 image(s): low</Answer>");
  assert_contains(text, "path='nope.png' code='FILE_NOT_FOUND'");
  assert_valid_xml(text);
  bad = line_with_id(run.out, 4);
  text = tool_text(bad, &is_error);
  ck_assert(is_error);
  assert_contains(text, "unknown argument baseUrl");
  ck_assert_int_eq(recorded_count(), 1);
  rd_run_clear(&run);

  use_mode("status-401");
  rd_run(dir, argv, in, strlen(in), 30000, &run);
  failed = line_with_id(run.out, 3);
  text = tool_text(failed, &is_error);
  ck_assert(is_error);
  assert_contains(text, "answered HTTP 401");
  ck_assert_msg(strstr(run.out, KEY) == NULL && strstr(run.err, KEY) == NULL, "the key leaked");
  rd_run_clear(&run);

  /* Without a model, the tool is not offered. */
  unsetenv("READERD_VISION_MODEL");
  rd_run(dir, argv, in, strlen(in), 30000, &run);
  json_node_unref(list);
  list = line_with_id(run.out, 2);
  ck_assert_int_eq(json_array_get_length(json_object_get_array_member(result_of(list), "tools")),
                   3);
  rd_run_clear(&run);
}
END_TEST

/* A read_images call made before the client answered roots/list waits for its roots: the
 * relative path resolves in the root the client gives, not in the server's folder. */
START_TEST(vision_mcp_waits_for_roots) {
  g_autofree char *in = NULL;
  const char *argv[] = {rd_readerd(), "mcp", NULL};
  g_autoptr(JsonNode) ok = NULL;
  const char *text;
  bool is_error;
  RdRun run = {0};

  g_free(png("fig.png", 300, 200)); /* in dir: read by its relative name */

  use_mode("ok");
  in = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{\"roots\":{}},\"clientInfo\":{\"name\":\"t\","
      "\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_images\",\"arguments\":{\"paths\":[\"fig.png\"],\"query\":\"Axes?\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":\"readerd-roots-1\",\"result\":{\"roots\":[{\"uri\":"
      "\"file://%s\"}]}}\n",
      dir);
  /* The server runs in another folder: fig.png is only in the client's root. */
  rd_run(rec, argv, in, strlen(in), 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ok = line_with_id(run.out, 3);
  text = tool_text(ok, &is_error);
  ck_assert(!is_error);
  assert_contains(text, "<Answer>asked 'Axes?' about 1 image(s): low</Answer>");
  rd_run_clear(&run);
}
END_TEST

static Suite *vision_suite(void) {
  Suite *s = suite_create("vision");
  TCase *tc = tcase_create("vision");

  tcase_add_checked_fixture(tc, vision_setup, vision_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, vision_openai_request_body);
  tcase_add_test(tc, vision_detail_sizes);
  tcase_add_test(tc, vision_pdf_page);
  tcase_add_test(tc, vision_converted_formats);
  tcase_add_test(tc, vision_anthropic);
  tcase_add_test(tc, vision_http_errors);
  tcase_add_test(tc, vision_retry_after);
  tcase_add_test(tc, vision_endpoint_failures);
  tcase_add_test(tc, vision_cancel_mid_request);
  tcase_add_test(tc, vision_disconnect_mid_request);
  tcase_add_test(tc, vision_concurrent_limit);
  tcase_add_test(tc, vision_bad_calls);
  tcase_add_test(tc, vision_key_stays_with_its_endpoint);
  tcase_add_test(tc, vision_fence_and_stdio);
  tcase_add_test(tc, vision_cli);
  tcase_add_test(tc, vision_hostile_answers);
  tcase_add_test(tc, vision_mcp_tool);
  tcase_add_test(tc, vision_mcp_waits_for_roots);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(vision_suite()));
}
