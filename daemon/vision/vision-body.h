/* The messages of a vision endpoint, as pure functions: the request body for each provider,
 * the endpoint's URL, and its answer (or its error message) read back. No I/O; json-glib for
 * the JSON. The HTTP side is http.h, the request's orchestration vision.h. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "basic/vision-provider.h"


/* The Messages API version sent as anthropic-version. */
#define VISION_ANTHROPIC_VERSION "2023-06-01"
/* Bytes of an endpoint's error message kept (cut at a character boundary). */
#define VISION_MAX_ERROR_MESSAGE 512
/* Deepest nesting of arrays and objects read in an endpoint's answer; deeper is no answer. */
#define VISION_MAX_DEPTH 64

/* One picture to send; every member borrowed. */
typedef struct {
  const char *media_type; /* "image/png", ... */
  const char *data;       /* base64, NUL-terminated */
  size_t data_len;
  const char *detail; /* "low", "high" or "auto": the openai image_url detail */
} VisionImage;

/* What to ask; every member borrowed. */
typedef struct {
  VisionProvider provider;
  const char *model;
  const char *query;
  int64_t max_tokens;
  const VisionImage *images;
  size_t n_images;
} VisionAsk;

/* The request body for ask: for openai one user message with the query as a text part, then
 * one image_url part per picture ({url: "data:<type>;base64,<data>", detail}); for anthropic
 * one user message with one image block per picture ({type: base64, media_type, data}), then
 * the query as a text block. g_free the result; its length in *ret_len (may be NULL). */
char *vision_body_build(const VisionAsk *ask, size_t *ret_len);

/* The URL to POST to: base_url without its trailing slashes, then "/chat/completions" (openai)
 * or "/messages" (anthropic), then base_url's query when it has one ("?api-version=...").
 * g_free the result. */
char *vision_endpoint_url(VisionProvider p, const char *base_url);

/* What the model answered. */
typedef struct {
  char *answer; /* the text parts joined, owned */
  char *model;  /* the model the endpoint says answered, owned; NULL when it did not say */
  int64_t input_tokens, output_tokens; /* -1 when not given */
} VisionAnswer;

/* Reads an endpoint's response: HTTP status and body. Returns 0 with *ret filled (clear with
 * vision_answer_clear) for a 2xx answer with text; -EREMOTEIO for any other status, with
 * *ret_error the endpoint's error message (error.message, or an error string, else the start
 * of the body, else "no message"); -EBADMSG for a 2xx body that is not an answer (not strict
 * JSON, nested deeper than VISION_MAX_DEPTH, not an object, no text), with
 * *ret_error saying what is wrong. *ret_error is g_malloc'd valid UTF-8 of at most
 * VISION_MAX_ERROR_MESSAGE bytes. *ret is zeroed on failure. */
int vision_response_parse(VisionProvider p, long status, const char *body, size_t len,
                          VisionAnswer *ret, char **ret_error);

/* Releases what an answer owns and zeroes it; NULL is fine. */
void vision_answer_clear(VisionAnswer *a);

/* A copy of text with every occurrence of secret (when not NULL nor empty) replaced by
 * "[redacted]": an endpoint may quote the key it was sent, as sent or spelled as a JSON
 * string, a URL or an HTML page writes it. g_free the result; text may be NULL (then NULL). */
char *vision_redact(const char *text, const char *secret);
