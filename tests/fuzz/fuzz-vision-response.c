/* Fuzz target for the vision client's pure side (daemon/vision/vision-body.c, compiled in): the
 * first byte picks the provider and the HTTP status, the rest is the endpoint's body. An answer
 * must be text; an error message must be one line of valid UTF-8 within
 * VISION_MAX_ERROR_MESSAGE bytes. The same bytes as a question must make a body that parses
 * as JSON with the question in it. Any broken invariant aborts. */
#include <stdint.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/vision/vision-body.c"
#include "tests/fuzz/fuzz.h"

static const long statuses[] = {200, 201, 400, 401, 429, 500, 503, 302};

static void check_body(const char *query, VisionProvider p) {
  static const VisionImage img = {"image/png", "iVBORw0KGgo=", 12, "auto"};
  VisionAsk ask = {p, "m", query, 10, &img, 1};
  g_autofree char *body = vision_body_build(&ask, NULL);
  g_autoptr(JsonParser) parser = json_parser_new();

  fuzz_assert(json_parser_load_from_data(parser, body, -1, NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  VisionProvider p;
  VisionAnswer a;
  char *err = NULL;
  long status;
  int r;

  if (size == 0)
    return 0;
  p = (data[0] & 1) ? VISION_PROVIDER_ANTHROPIC : VISION_PROVIDER_OPENAI;
  status = statuses[(data[0] >> 1) % G_N_ELEMENTS(statuses)];
  r = vision_response_parse(p, status, (const char *)data + 1, size - 1, &a, &err);
  if (r == 0) {
    fuzz_assert(status >= 200 && status <= 299);
    fuzz_assert(a.answer != NULL && g_utf8_validate(a.answer, -1, NULL));
    vision_answer_clear(&a);
  } else {
    fuzz_assert(r == -EREMOTEIO || r == -EBADMSG);
    fuzz_assert(a.answer == NULL && a.model == NULL);
    fuzz_assert(err != NULL && *err != '\0' && strlen(err) <= VISION_MAX_ERROR_MESSAGE);
    fuzz_assert(g_utf8_validate(err, -1, NULL) && strchr(err, '\n') == NULL);
    g_free(err);
  }
  {
    g_autofree char *q = g_utf8_make_valid((const char *)data + 1, (gssize)(size - 1));

    /* json-glib cuts a string at U+0000: the question never holds one (params refuse it). */
    check_body(q, p);
  }
  return 0;
}
