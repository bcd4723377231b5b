/* The `readImages` method's params, and the vision settings of `initialize`, validated into
 * plain C: pure, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

#include "ipc/read-params.h"

#define READ_IMAGES_MAX_PATHS 100
#define READ_IMAGES_MAX_QUERY ((size_t)64 * 1024) /* bytes of the question */
#define READ_IMAGES_DEFAULT_MAX_TOKENS 1024
#define READ_IMAGES_MAX_MAX_TOKENS 131072
#define VISION_MAX_SETTING ((size_t)4096) /* bytes of a base URL, model name or key */

/* Where to ask: each NULL when not set at this level; owned. */
typedef struct {
  char *base_url;
  char *model;
  char *api_key;
  char *provider; /* a provider's name (basic/vision-provider.h) */
} VisionSettings;

typedef struct {
  char **paths; /* NULL-terminated, each non-empty; owned */
  size_t n_paths;
  char *query;            /* non-empty; owned */
  ReadImageDetail detail; /* default READ_IMAGE_DETAIL_AUTO */
  char *pages;            /* the page selection of every PDF, NULL when absent; owned */
  char *cwd;              /* base of relative paths, NULL when absent; owned */
  int64_t max_tokens;     /* default READ_IMAGES_DEFAULT_MAX_TOKENS */
  VisionSettings call;    /* model, baseUrl, provider of this call (never an api key) */
} ReadImagesParams;

/* Validates readImages' params (an object; NULL is invalid) into *ret. Returns 0, or -EINVAL
 * with *ret_error (g_malloc'd) naming the field; *ret is then left cleared. Unknown members are
 * ignored; null is the same as absent. */
int read_images_params_parse(JsonNode *params, ReadImagesParams *ret, char **ret_error);

/* Releases what the params own and zeroes them; NULL is fine. */
void read_images_params_clear(ReadImagesParams *p);

/* The `vision` member of initialize's params ({baseUrl, model, apiKey, provider}, all optional
 * strings), into *ret (zeroed first). params may be NULL or lack the member: all unset. Returns
 * 0, or -EINVAL with *ret_error; *ret is then cleared. */
int vision_settings_parse(JsonNode *initialize_params, VisionSettings *ret, char **ret_error);

/* Releases what the settings own and zeroes them (the key's bytes overwritten first); NULL is
 * fine. */
void vision_settings_clear(VisionSettings *s);
