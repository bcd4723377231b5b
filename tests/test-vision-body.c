/* Unit tests of the vision client's pure parts: the request bodies of both providers, the
 * endpoint URL, reading answers and error messages back, redaction, readImages' params, and the
 * version of libcurl the loader takes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/vision/curl-dl.h"
#include "daemon/vision/vision-body.h"
#include "daemon/vision/vision-target.h"
#include "ipc/read-images-params.h"
#include "tests/lib/check-run.h"

static JsonNode *parse(const char *text) {
  g_autoptr(JsonParser) p = json_parser_new();

  ck_assert_msg(json_parser_load_from_data(p, text, -1, NULL), "not JSON: %s", text);
  return json_node_copy(json_parser_get_root(p));
}

static const VisionImage images[] = {
    {"image/png", "iVBORw0KGgo=", 12, "low"},
    {"image/jpeg", "/9j/4AAQ", 8, "high"},
};

START_TEST(vision_body_openai) {
  VisionAsk ask = {VISION_PROVIDER_OPENAI, "gpt-x", "What \"is\" it?", 300, images, 2};
  size_t len;
  g_autofree char *body = vision_body_build(&ask, &len);
  g_autoptr(JsonNode) n = parse(body);
  JsonObject *o = json_node_get_object(n), *part;
  JsonArray *content;

  ck_assert_uint_eq(len, strlen(body));
  ck_assert_str_eq(json_object_get_string_member(o, "model"), "gpt-x");
  ck_assert_int_eq(json_object_get_int_member(o, "max_tokens"), 300);
  content = json_object_get_array_member(
      json_array_get_object_element(json_object_get_array_member(o, "messages"), 0), "content");
  ck_assert_uint_eq(json_array_get_length(content), 3);
  part = json_array_get_object_element(content, 0);
  ck_assert_str_eq(json_object_get_string_member(part, "text"), "What \"is\" it?");
  part = json_object_get_object_member(json_array_get_object_element(content, 2), "image_url");
  ck_assert_str_eq(json_object_get_string_member(part, "url"), "data:image/jpeg;base64,/9j/4AAQ");
  ck_assert_str_eq(json_object_get_string_member(part, "detail"), "high");
}
END_TEST

START_TEST(vision_body_anthropic) {
  VisionAsk ask = {VISION_PROVIDER_ANTHROPIC, "claude", "q", 10, images, 2};
  g_autofree char *body = vision_body_build(&ask, NULL);
  g_autoptr(JsonNode) n = parse(body);
  JsonArray *content = json_object_get_array_member(
      json_array_get_object_element(
          json_object_get_array_member(json_node_get_object(n), "messages"), 0),
      "content");
  JsonObject *src;

  ck_assert_uint_eq(json_array_get_length(content), 3);
  src = json_object_get_object_member(json_array_get_object_element(content, 0), "source");
  ck_assert_str_eq(json_object_get_string_member(src, "type"), "base64");
  ck_assert_str_eq(json_object_get_string_member(src, "media_type"), "image/png");
  ck_assert_str_eq(json_object_get_string_member(src, "data"), "iVBORw0KGgo=");
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(content, 2), "type"),
                   "text");
}
END_TEST

START_TEST(vision_endpoint_urls) {
  static const char *const cases[][3] = {
      {"http://127.0.0.1:8000/v1", "openai", "http://127.0.0.1:8000/v1/chat/completions"},
      {"http://localhost:11434/v1///", "openai", "http://localhost:11434/v1/chat/completions"},
      {"https://api.anthropic.com/v1/", "anthropic", "https://api.anthropic.com/v1/messages"},
      {"https://r.openai.azure.com/openai/deployments/d?api-version=2024-06-01", "openai",
       "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    VisionProvider p;
    g_autofree char *url = NULL;

    ck_assert_int_eq(vision_provider_from_name(cases[i][1], &p), 0);
    url = vision_endpoint_url(p, cases[i][0]);
    ck_assert_str_eq(url, cases[i][2]);
  }
}
END_TEST

/* The providers are named in one table: each name is found again, an unknown one is refused,
 * and messages list them all. */
START_TEST(vision_providers_named_once) {
  g_autofree char *plain = vision_provider_names("");
  g_autofree char *quoted = vision_provider_names("\"");
  VisionProvider p;

  for (int i = 0; i < VISION_PROVIDER_COUNT; i++) {
    ck_assert_int_eq(vision_provider_from_name(vision_provider_name((VisionProvider)i), &p), 0);
    ck_assert_int_eq(p, i);
    ck_assert(g_str_has_prefix(vision_provider_base_url(p), "https://"));
    ck_assert(strstr(plain, vision_provider_name(p)) != NULL);
  }
  ck_assert_int_eq(vision_provider_from_name("ollama", &p), -EINVAL);
  ck_assert_int_eq(vision_provider_from_name(NULL, &p), -EINVAL);
  ck_assert_str_eq(plain, "openai or anthropic");
  ck_assert_str_eq(quoted, "\"openai\" or \"anthropic\"");
  ck_assert_str_eq(vision_provider_base_url(VISION_PROVIDER_ANTHROPIC),
                   "https://api.anthropic.com/v1");
}
END_TEST

/* Parses body with status; returns the result code, the answer in *a, the error in *err. */
static int response(VisionProvider p, long status, const char *body, VisionAnswer *a, char **err) {
  *err = NULL;
  return vision_response_parse(p, status, body, strlen(body), a, err);
}

START_TEST(vision_response_answers) {
  VisionAnswer a;
  char *err;

  ck_assert_int_eq(response(VISION_PROVIDER_OPENAI, 200,
                            "{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"A bar "
                            "chart.\"}}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3}}",
                            &a, &err),
                   0);
  ck_assert_str_eq(a.answer, "A bar chart.");
  ck_assert_str_eq(a.model, "m");
  ck_assert_int_eq(a.input_tokens, 9);
  ck_assert_int_eq(a.output_tokens, 3);
  vision_answer_clear(&a);
  /* Content as parts (some servers), usage absent. */
  ck_assert_int_eq(response(VISION_PROVIDER_OPENAI, 200,
                            "{\"choices\":[{\"message\":{\"content\":[{\"type\":\"text\",\"text\":"
                            "\"one \"},{\"type\":\"text\",\"text\":\"two\"}]}}]}",
                            &a, &err),
                   0);
  ck_assert_str_eq(a.answer, "one two");
  ck_assert_ptr_null(a.model);
  ck_assert_int_eq(a.input_tokens, -1);
  vision_answer_clear(&a);
  ck_assert_int_eq(
      response(VISION_PROVIDER_ANTHROPIC, 200,
               "{\"model\":\"c\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"x\"},"
               "{\"type\":\"text\",\"text\":\"Yes.\"}],\"usage\":{\"input_tokens\":5,"
               "\"output_tokens\":1}}",
               &a, &err),
      0);
  ck_assert_str_eq(a.answer, "Yes.");
  ck_assert_int_eq(a.input_tokens, 5);
  vision_answer_clear(&a);
}
END_TEST

START_TEST(vision_response_errors) {
  static const struct {
    long status;
    const char *body;
    int want;
    const char *message;
  } cases[] = {
      {401, "{\"error\":{\"message\":\"Invalid key\",\"type\":\"x\"}}", -EREMOTEIO, "Invalid key"},
      {404, "{\"error\":\"model \\\"llava\\\" not found\"}", -EREMOTEIO,
       "model \"llava\" not found"},
      {422, "{\"detail\":\"bad image\"}", -EREMOTEIO, "bad image"},
      {502, "<html>\n<b>Bad gateway</b>\n</html>", -EREMOTEIO, "<html> <b>Bad gateway</b> </html>"},
      {500, "", -EREMOTEIO, "no message"},
      {200, "not json", -EBADMSG,
       "the endpoint's answer is not JSON: line 1, column 1: expected a value"},
      {200, "[1]", -EBADMSG, "the endpoint's answer is not a JSON object"},
      {200, "{\"choices\":[]}", -EBADMSG,
       "the endpoint's answer has no choices[0].message.content"},
      {200, "{\"error\":{\"message\":\"overloaded\"}}", -EBADMSG, "overloaded"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    VisionAnswer a;
    char *err;

    ck_assert_int_eq(response(VISION_PROVIDER_OPENAI, cases[i].status, cases[i].body, &a, &err),
                     cases[i].want);
    ck_assert_str_eq(err, cases[i].message);
    ck_assert_ptr_null(a.answer);
    g_free(err);
  }
  /* Nesting that would run json-glib's recursion out of stack, plain or behind a comment. */
  for (int k = 0; k < 2; k++) {
    g_autoptr(GString) deep = g_string_new(k == 0 ? "{\"a\":" : "{/* \" */\"a\":");
    VisionAnswer a;
    char *err;

    for (int i = 0; i < 100000; i++)
      g_string_append_c(deep, '[');
    ck_assert_int_eq(vision_response_parse(VISION_PROVIDER_OPENAI, 200, deep->str, deep->len, &a,
                                           &err),
                     -EBADMSG);
    ck_assert_msg(g_str_has_prefix(err, "the endpoint's answer is not JSON: line 1, column "), "%s",
                  err);
    g_free(err);
  }
}
END_TEST

/* An error message is cut to VISION_MAX_ERROR_MESSAGE bytes at a character boundary. */
START_TEST(vision_response_long_error) {
  GString *body = g_string_new("{\"error\":{\"message\":\"");
  VisionAnswer a;
  char *err;

  for (int i = 0; i < 400; i++)
    g_string_append(body, "é");
  g_string_append(body, "\"}}");
  ck_assert_int_eq(response(VISION_PROVIDER_ANTHROPIC, 400, body->str, &a, &err), -EREMOTEIO);
  ck_assert_uint_le(strlen(err), VISION_MAX_ERROR_MESSAGE);
  ck_assert_uint_ge(strlen(err), VISION_MAX_ERROR_MESSAGE - 1);
  ck_assert(g_utf8_validate(err, -1, NULL));
  g_free(err);
  g_string_free(body, TRUE);
}
END_TEST

START_TEST(vision_redact_key) {
  g_autofree char *a = vision_redact("key sk-1 and sk-1 again", "sk-1");
  g_autofree char *b = vision_redact("nothing", NULL);
  g_autofree char *c = vision_redact("x", "");

  ck_assert_str_eq(a, "key [redacted] and [redacted] again");
  ck_assert_str_eq(b, "nothing");
  ck_assert_str_eq(c, "x");
  ck_assert_ptr_null(vision_redact(NULL, "k"));
}
END_TEST

/* A key with characters that a JSON string, a URL or an HTML page spell otherwise, echoed by a
 * body that is not JSON (so nothing unescaped it first). */
START_TEST(vision_redact_key_spellings) {
  static const char *key = "sk/a+b&c\\d";
  g_autofree char *json = vision_redact("<p>bad key \"sk\\/a+b&c\\\\d\"</p>", key);
  g_autofree char *url = vision_redact("GET /v1?key=sk%2Fa%2Bb%26c%5Cd denied", key);
  g_autofree char *html = vision_redact("<b>sk/a+b&amp;c\\d</b> and sk/a+b&c\\d", key);

  ck_assert_str_eq(json, "<p>bad key \"[redacted]\"</p>");
  ck_assert_str_eq(url, "GET /v1?key=[redacted] denied");
  ck_assert_str_eq(html, "<b>[redacted]</b> and [redacted]");
}
END_TEST

static int params(const char *text, ReadImagesParams *p, char **err) {
  g_autoptr(JsonNode) n = parse(text);

  *err = NULL;
  return read_images_params_parse(n, p, err);
}

START_TEST(vision_params_parse) {
  ReadImagesParams p;
  char *err;
  static const char *const bad[][2] = {
      {"{\"query\":\"q\"}", "paths must be an array of file paths"},
      {"{\"paths\":[\"\"],\"query\":\"q\"}", "paths[0] must be a non-empty string"},
      {"{\"paths\":[\"a\"],\"query\":\"\"}", "query must be a non-empty string of at most 65536 "
                                             "bytes"},
      {"{\"paths\":[\"a\"],\"query\":\"q\",\"detail\":\"max\"}",
       "detail must be one of \"auto\", \"low\", \"high\""},
      {"{\"paths\":[\"a\"],\"query\":\"q\",\"maxTokens\":200000}",
       "maxTokens must be an integer from 1 to 131072"},
      {"{\"paths\":[\"a\"],\"query\":\"q\",\"baseUrl\":\"http://x/\\nHost: y\"}",
       "baseUrl must be a non-empty string of at most 4096 bytes without control characters"},
      {"{\"paths\":[\"a\"],\"query\":\"q\",\"provider\":\"gemini\"}",
       "provider must be \"openai\" or \"anthropic\""},
  };

  ck_assert_int_eq(params("{\"paths\":[\"a.png\",\"b.pdf\"],\"query\":\"q\",\"detail\":\"low\","
                          "\"pages\":\"1-2\",\"model\":\"m\",\"maxTokens\":5,\"baseUrl\":\"u\","
                          "\"provider\":\"anthropic\",\"unknown\":1}",
                          &p, &err),
                   0);
  ck_assert_uint_eq(p.n_paths, 2);
  ck_assert_str_eq(p.paths[1], "b.pdf");
  ck_assert_int_eq(p.detail, READ_IMAGE_DETAIL_LOW);
  ck_assert_str_eq(p.pages, "1-2");
  ck_assert_int_eq(p.max_tokens, 5);
  ck_assert_str_eq(p.call.model, "m");
  ck_assert_str_eq(p.call.base_url, "u");
  ck_assert_str_eq(p.call.provider, "anthropic");
  ck_assert_ptr_null(p.call.api_key);
  read_images_params_clear(&p);
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    ck_assert_int_eq(params(bad[i][0], &p, &err), -EINVAL);
    ck_assert_str_eq(err, bad[i][1]);
    ck_assert_ptr_null(p.paths);
    g_free(err);
  }
}
END_TEST

START_TEST(vision_settings_from_initialize) {
  g_autoptr(JsonNode) ok = parse("{\"rootPath\":\"/\",\"vision\":{\"baseUrl\":\"http://h/v1\","
                                 "\"apiKey\":\"k\",\"model\":\"m\",\"provider\":\"openai\"}}");
  g_autoptr(JsonNode) none = parse("{\"rootPath\":\"/\"}");
  g_autoptr(JsonNode) bad = parse("{\"vision\":{\"apiKey\":5}}");
  VisionSettings s;
  char *err = NULL;

  ck_assert_int_eq(vision_settings_parse(ok, &s, &err), 0);
  ck_assert_str_eq(s.base_url, "http://h/v1");
  ck_assert_str_eq(s.api_key, "k");
  vision_settings_clear(&s);
  ck_assert_ptr_null(s.api_key);
  ck_assert_int_eq(vision_settings_parse(none, &s, &err), 0);
  ck_assert_ptr_null(s.model);
  ck_assert_int_eq(vision_settings_parse(NULL, &s, &err), 0);
  ck_assert_int_eq(vision_settings_parse(bad, &s, &err), -EINVAL);
  ck_assert_str_eq(err, "vision.apiKey must be a non-empty string of at most 4096 bytes without "
                        "control characters");
  g_free(err);
}
END_TEST

/* Settings level over level; the key stays with the base URL it came with. */
START_TEST(vision_target_levels) {
  VisionSettings conn = {0}, call = {0};
  VisionTarget t;
  char *err = NULL;

  setenv("READERD_VISION_BASE_URL", "http://env/v1", 1);
  setenv("READERD_VISION_MODEL", "env-model", 1);
  setenv("READERD_VISION_API_KEY", "env-key", 1);
  unsetenv("READERD_VISION_PROVIDER");
  ck_assert_int_eq(vision_target_resolve(NULL, NULL, &t, &err), 0);
  ck_assert_str_eq(t.base_url, "http://env/v1");
  ck_assert_str_eq(t.api_key, "env-key");
  ck_assert_int_eq(t.provider, VISION_PROVIDER_OPENAI);
  vision_target_clear(&t);
  /* The same base URL again keeps the key; another drops it. */
  call.base_url = "http://env/v1";
  call.model = "call-model";
  ck_assert_int_eq(vision_target_resolve(NULL, &call, &t, &err), 0);
  ck_assert_str_eq(t.api_key, "env-key");
  ck_assert_str_eq(t.model, "call-model");
  vision_target_clear(&t);
  call.base_url = "http://elsewhere/v1";
  ck_assert_int_eq(vision_target_resolve(NULL, &call, &t, &err), 0);
  ck_assert_ptr_null(t.api_key);
  vision_target_clear(&t);
  /* A connection's own base URL and key; the call's provider on top. */
  conn.base_url = "https://conn/v1";
  conn.api_key = "conn-key";
  call.base_url = NULL;
  call.provider = "anthropic";
  ck_assert_int_eq(vision_target_resolve(&conn, &call, &t, &err), 0);
  ck_assert_str_eq(t.base_url, "https://conn/v1");
  ck_assert_str_eq(t.api_key, "conn-key");
  ck_assert_int_eq(t.provider, VISION_PROVIDER_ANTHROPIC);
  vision_target_clear(&t);
  /* A connection's base URL without a key drops the environment's. */
  conn.api_key = NULL;
  ck_assert_int_eq(vision_target_resolve(&conn, NULL, &t, &err), 0);
  ck_assert_ptr_null(t.api_key);
  vision_target_clear(&t);
  /* The provider's default base URL; no model is an error. */
  unsetenv("READERD_VISION_BASE_URL");
  setenv("READERD_VISION_PROVIDER", "anthropic", 1);
  ck_assert_int_eq(vision_target_resolve(NULL, NULL, &t, &err), 0);
  ck_assert_str_eq(t.base_url, "https://api.anthropic.com/v1");
  vision_target_clear(&t);
  unsetenv("READERD_VISION_MODEL");
  ck_assert_int_eq(vision_target_resolve(NULL, NULL, &t, &err), -EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "READERD_VISION_MODEL"));
  g_free(err);
  setenv("READERD_VISION_PROVIDER", "gemini", 1);
  setenv("READERD_VISION_MODEL", "m", 1);
  ck_assert_int_eq(vision_target_resolve(NULL, NULL, &t, &err), -EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "READERD_VISION_PROVIDER"));
  g_free(err);
  /* A call's provider is checked before it gets here; it overrides the environment's. */
  ck_assert_int_eq(vision_target_resolve(NULL, &call, &t, &err), 0);
  vision_target_clear(&t);
}
END_TEST

/* A key set for a provider's default endpoint does not follow a call to another provider's:
 * a key for OpenAI's API is never sent to Anthropic's because a call says provider anthropic. */
START_TEST(vision_target_key_stays_with_default_endpoint) {
  VisionSettings conn = {0}, call = {.provider = "anthropic"};
  VisionTarget t;
  char *err = NULL;

  unsetenv("READERD_VISION_BASE_URL");
  unsetenv("READERD_VISION_PROVIDER");
  setenv("READERD_VISION_MODEL", "m", 1);
  setenv("READERD_VISION_API_KEY", "openai-key", 1);
  ck_assert_int_eq(vision_target_resolve(NULL, &call, &t, &err), 0);
  ck_assert_str_eq(t.base_url, "https://api.anthropic.com/v1");
  ck_assert_ptr_null(t.api_key);
  vision_target_clear(&t);
  /* The same from a connection's key, both ways. */
  unsetenv("READERD_VISION_API_KEY");
  conn.api_key = "conn-key";
  conn.provider = "anthropic";
  call.provider = "openai";
  ck_assert_int_eq(vision_target_resolve(&conn, &call, &t, &err), 0);
  ck_assert_str_eq(t.base_url, "https://api.openai.com/v1");
  ck_assert_ptr_null(t.api_key);
  vision_target_clear(&t);
  /* The provider the key was given for keeps it, and so does a base URL that names its
   * default endpoint. */
  call.provider = "anthropic";
  ck_assert_int_eq(vision_target_resolve(&conn, &call, &t, &err), 0);
  ck_assert_str_eq(t.api_key, "conn-key");
  vision_target_clear(&t);
  call.provider = NULL;
  call.base_url = "https://api.anthropic.com/v1";
  ck_assert_int_eq(vision_target_resolve(&conn, &call, &t, &err), 0);
  ck_assert_str_eq(t.api_key, "conn-key");
  vision_target_clear(&t);
  unsetenv("READERD_VISION_MODEL");
}
END_TEST

/* The loader's test of libcurl's version against meson's requirement (curl-dl.c), by
 * curl_version_info()'s 0xMMmmpp. */
START_TEST(vision_curl_version) {
  static const char *const not_versions[] = {"", "7", "7.", "7.85.", ".85", "7..85", "x.85",
                                             "7.85x", "7.256", "7.85.0.1", "-7.85", "7. 85"};

  ck_assert(curl_dl_version_at_least(0x075500, "7.85"));
  ck_assert(curl_dl_version_at_least(0x075501, "7.85"));
  ck_assert(curl_dl_version_at_least(0x075801, "7.85"));
  ck_assert(curl_dl_version_at_least(0x080b00, "7.85"));
  ck_assert(!curl_dl_version_at_least(0x0754ff, "7.85"));
  ck_assert(!curl_dl_version_at_least(0x071002, "7.85"));
  ck_assert(!curl_dl_version_at_least(0x065500, "7.85"));
  ck_assert(curl_dl_version_at_least(0x075502, "7.85.2"));
  ck_assert(!curl_dl_version_at_least(0x075501, "7.85.2"));
  ck_assert(curl_dl_version_at_least(0x080000, "8.0"));
  ck_assert(!curl_dl_version_at_least(0x07ffff, "8.0"));
  for (size_t i = 0; i < G_N_ELEMENTS(not_versions); i++)
    ck_assert_msg(!curl_dl_version_at_least(0xffffff, not_versions[i]), "\"%s\" taken",
                  not_versions[i]);
  /* The headers built against, and the library loaded here, are what meson requires. */
  ck_assert(curl_dl_version_at_least(LIBCURL_VERSION_NUM, LIBCURL_MIN_VERSION));
  {
    const CurlDl *lib;

    ck_assert_msg(curl_dl_open(&lib) == 0, "%s", curl_dl_error());
    ck_assert_ptr_nonnull(lib);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("vision-body");
  TCase *tc = tcase_create("vision-body");
  int failed;

  tcase_add_test(tc, vision_body_openai);
  tcase_add_test(tc, vision_body_anthropic);
  tcase_add_test(tc, vision_endpoint_urls);
  tcase_add_test(tc, vision_providers_named_once);
  tcase_add_test(tc, vision_response_answers);
  tcase_add_test(tc, vision_response_errors);
  tcase_add_test(tc, vision_response_long_error);
  tcase_add_test(tc, vision_redact_key);
  tcase_add_test(tc, vision_redact_key_spellings);
  tcase_add_test(tc, vision_params_parse);
  tcase_add_test(tc, vision_settings_from_initialize);
  tcase_add_test(tc, vision_target_levels);
  tcase_add_test(tc, vision_target_key_stays_with_default_endpoint);
  tcase_add_test(tc, vision_curl_version);
  suite_add_tcase(s, tc);
  failed = check_run(s);
  return failed == 0 ? 0 : 1;
}
