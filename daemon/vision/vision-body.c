#include "daemon/vision/vision-body.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "ipc/json-parse.h"

static void add_text_part(JsonBuilder *b, const char *text) {
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "text");
  json_builder_set_member_name(b, "text");
  json_builder_add_string_value(b, text);
  json_builder_end_object(b);
}

static void add_openai_image(JsonBuilder *b, const VisionImage *img) {
  g_autofree char *url = g_strconcat("data:", img->media_type, ";base64,", img->data, NULL);

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "image_url");
  json_builder_set_member_name(b, "image_url");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "url");
  json_builder_add_string_value(b, url);
  json_builder_set_member_name(b, "detail");
  json_builder_add_string_value(b, img->detail != NULL ? img->detail : "auto");
  json_builder_end_object(b);
  json_builder_end_object(b);
}

static void add_anthropic_image(JsonBuilder *b, const VisionImage *img) {
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "image");
  json_builder_set_member_name(b, "source");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "base64");
  json_builder_set_member_name(b, "media_type");
  json_builder_add_string_value(b, img->media_type);
  json_builder_set_member_name(b, "data");
  json_builder_add_string_value(b, img->data);
  json_builder_end_object(b);
  json_builder_end_object(b);
}

char *vision_body_build(const VisionAsk *ask, size_t *ret_len) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;
  bool anthropic = ask->provider == VISION_PROVIDER_ANTHROPIC;
  gsize len;
  char *text;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "model");
  json_builder_add_string_value(b, ask->model);
  json_builder_set_member_name(b, "max_tokens");
  json_builder_add_int_value(b, ask->max_tokens);
  json_builder_set_member_name(b, "messages");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "role");
  json_builder_add_string_value(b, "user");
  json_builder_set_member_name(b, "content");
  json_builder_begin_array(b);
  /* Anthropic advises pictures before the question; OpenAI's examples ask first. */
  if (!anthropic)
    add_text_part(b, ask->query);
  for (size_t i = 0; i < ask->n_images; i++) {
    if (anthropic)
      add_anthropic_image(b, &ask->images[i]);
    else
      add_openai_image(b, &ask->images[i]);
  }
  if (anthropic)
    add_text_part(b, ask->query);
  json_builder_end_array(b);
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  text = json_generator_to_data(gen, &len);
  if (ret_len != NULL)
    *ret_len = len;
  return text;
}

char *vision_endpoint_url(VisionProvider p, const char *base_url) {
  const char *query = strchr(base_url, '?');
  size_t n = query != NULL ? (size_t)(query - base_url) : strlen(base_url);

  /* A query (Azure's ?api-version=...) stays at the end. */
  while (n > 0 && base_url[n - 1] == '/')
    n--;
  return g_strdup_printf("%.*s%s%s", (int)n, base_url, vision_provider_endpoint(p),
                         query != NULL ? query : "");
}

/* text as one line of valid UTF-8 of at most VISION_MAX_ERROR_MESSAGE bytes. g_malloc'd. */
static char *clean_message(const char *text, size_t len) {
  g_autofree char *valid = g_utf8_make_valid(text, (gssize)len);
  char *s = g_strstrip(valid), *end;

  for (char *q = s; *q != '\0'; q++)
    if ((unsigned char)*q < 0x20 || *q == 0x7f)
      *q = ' ';
  if (strlen(s) > VISION_MAX_ERROR_MESSAGE) {
    end = g_utf8_find_prev_char(s, s + VISION_MAX_ERROR_MESSAGE + 1);
    *end = '\0';
  }
  return g_strdup(*s != '\0' ? s : "no message");
}

static const char *object_string(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

static JsonObject *object_object(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static int64_t object_int(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64)
    return -1;
  return json_node_get_int(n);
}

/* The endpoint's error message in a JSON body: {"error": {"message": ...}} (OpenAI, Anthropic,
 * vLLM), {"error": "..."} (Ollama), {"message": ...}, {"detail": "..."}. */
static char *error_message(JsonObject *o, const char *body, size_t len) {
  const char *m = object_string(object_object(o, "error"), "message");

  if (m == NULL)
    m = object_string(o, "error");
  if (m == NULL)
    m = object_string(o, "message");
  if (m == NULL)
    m = object_string(o, "detail");
  return m != NULL ? clean_message(m, strlen(m)) : clean_message(body, len);
}

/* The text of a content array: the "text" of every part of type "text", joined. */
static char *content_text(JsonArray *parts) {
  GString *s = g_string_new(NULL);
  bool any = false;

  for (guint i = 0; i < json_array_get_length(parts); i++) {
    JsonNode *n = json_array_get_element(parts, i);
    JsonObject *part = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
    const char *type = object_string(part, "type"), *text = object_string(part, "text");

    if (text == NULL || (type != NULL && strcmp(type, "text") != 0))
      continue;
    g_string_append(s, text);
    any = true;
  }
  if (!any) {
    g_string_free(s, TRUE);
    return NULL;
  }
  return g_string_free(s, FALSE);
}

/* The answer of an OpenAI chat completion: choices[0].message.content, a string or parts. */
static char *openai_answer(JsonObject *o) {
  JsonNode *choices = json_object_get_member(o, "choices"), *first, *content;
  JsonObject *message;

  if (choices == NULL || !JSON_NODE_HOLDS_ARRAY(choices) ||
      json_array_get_length(json_node_get_array(choices)) == 0)
    return NULL;
  first = json_array_get_element(json_node_get_array(choices), 0);
  message =
      JSON_NODE_HOLDS_OBJECT(first) ? object_object(json_node_get_object(first), "message") : NULL;
  content = message != NULL ? json_object_get_member(message, "content") : NULL;
  if (content != NULL && JSON_NODE_HOLDS_VALUE(content) &&
      json_node_get_value_type(content) == G_TYPE_STRING)
    return g_strdup(json_node_get_string(content));
  if (content != NULL && JSON_NODE_HOLDS_ARRAY(content))
    return content_text(json_node_get_array(content));
  return NULL;
}

static char *anthropic_answer(JsonObject *o) {
  JsonNode *content = json_object_get_member(o, "content");

  if (content == NULL || !JSON_NODE_HOLDS_ARRAY(content))
    return NULL;
  return content_text(json_node_get_array(content));
}

int vision_response_parse(VisionProvider p, long status, const char *body, size_t len,
                          VisionAnswer *ret, char **ret_error) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *invalid = NULL;
  JsonObject *o = NULL, *usage;
  bool anthropic = p == VISION_PROVIDER_ANTHROPIC;

  memset(ret, 0, sizeof(*ret));
  /* Any client of `serve` may name the endpoint: its answer is hostile JSON like a client's. */
  if (json_parse_bounded(body, len, VISION_MAX_DEPTH, &root, &invalid) == 0 &&
      JSON_NODE_HOLDS_OBJECT(root))
    o = json_node_get_object(root);
  if (status < 200 || status > 299) {
    *ret_error = error_message(o, body, len);
    return -EREMOTEIO;
  }
  if (o == NULL) {
    g_autofree char *why = invalid != NULL
                               ? g_strdup_printf("the endpoint's answer is not JSON: %s", invalid)
                               : g_strdup("the endpoint's answer is not a JSON object");

    *ret_error = clean_message(why, strlen(why));
    return -EBADMSG;
  }
  ret->answer = anthropic ? anthropic_answer(o) : openai_answer(o);
  if (ret->answer == NULL) {
    *ret_error =
        object_object(o, "error") != NULL
            ? error_message(o, body, len)
            : g_strdup(anthropic ? "the endpoint's answer has no text content"
                                 : "the endpoint's answer has no choices[0].message.content");
    return -EBADMSG;
  }
  ret->model = g_strdup(object_string(o, "model"));
  usage = object_object(o, "usage");
  ret->input_tokens = object_int(usage, anthropic ? "input_tokens" : "prompt_tokens");
  ret->output_tokens = object_int(usage, anthropic ? "output_tokens" : "completion_tokens");
  return 0;
}

void vision_answer_clear(VisionAnswer *a) {
  if (a == NULL)
    return;
  g_free(a->answer);
  g_free(a->model);
  memset(a, 0, sizeof(*a));
}

/* text with every plain occurrence of needle replaced by "[redacted]". */
static char *redact_spelling(const char *text, const char *needle) {
  GString *s = g_string_new(NULL);
  size_t n = strlen(needle);
  const char *at;

  while ((at = strstr(text, needle)) != NULL) {
    g_string_append_len(s, text, at - text);
    g_string_append(s, "[redacted]");
    text = at + n;
  }
  g_string_append(s, text);
  return g_string_free(s, FALSE);
}

/* secret as a JSON string writes it when "/" is escaped, as some servers do. */
static char *json_spelling(const char *secret) {
  GString *s = g_string_new(NULL);

  for (const char *p = secret; *p != '\0'; p++) {
    if (*p == '/' || *p == '"' || *p == '\\')
      g_string_append_c(s, '\\');
    g_string_append_c(s, *p);
  }
  return g_string_free(s, FALSE);
}

char *vision_redact(const char *text, const char *secret) {
  char *spellings[4];
  char *out;

  if (text == NULL)
    return NULL;
  if (secret == NULL || *secret == '\0')
    return g_strdup(text);
  /* An error page may echo the key as sent, or as a JSON string, a URL or HTML writes it. */
  spellings[0] = g_strdup(secret);
  spellings[1] = json_spelling(secret);
  spellings[2] = g_uri_escape_string(secret, NULL, FALSE);
  spellings[3] = g_markup_escape_text(secret, -1);
  out = g_strdup(text);
  for (size_t i = 0; i < G_N_ELEMENTS(spellings); i++) {
    char *next = redact_spelling(out, spellings[i]);

    g_free(out);
    out = next;
    g_free(spellings[i]);
  }
  return out;
}
