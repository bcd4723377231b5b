/* readImages' params and initialize's vision settings, member by member. As for `read`, a
 * null member is absent and unknown members are ignored. */
#include "ipc/read-images-params.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "basic/vision-provider.h"

static int fail(char **ret_error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static int fail(char **ret_error, const char *format, ...) {
  va_list ap;

  va_start(ap, format);
  *ret_error = g_strdup_vprintf(format, ap);
  va_end(ap);
  return -EINVAL;
}

static JsonNode *member(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);

  return n != NULL && !JSON_NODE_HOLDS_NULL(n) ? n : NULL;
}

/* A non-empty UTF-8 string of at most max bytes, or NULL. */
static const char *string_of(JsonNode *n, size_t max) {
  const char *s;

  if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  s = json_node_get_string(n);
  if (*s == '\0' || strlen(s) > max || !g_utf8_validate(s, -1, NULL))
    return NULL;
  return s;
}

/* A setting: a non-empty string without control characters (it goes into an HTTP header or
 * a URL). Absent leaves *ret NULL. */
static int setting(JsonObject *o, const char *name, const char *where, char **ret,
                   char **ret_error) {
  JsonNode *n = member(o, name);
  VisionProvider provider;
  const char *s;

  if (n == NULL)
    return 0;
  s = string_of(n, VISION_MAX_SETTING);
  for (const char *q = s; q != NULL && *q != '\0'; q++)
    if ((unsigned char)*q < 0x20 || *q == 0x7f)
      s = NULL;
  if (s == NULL)
    return fail(ret_error,
                "%s%s must be a non-empty string of at most %zu bytes without control "
                "characters",
                where, name, VISION_MAX_SETTING);
  if (strcmp(name, "provider") == 0 && vision_provider_from_name(s, &provider) < 0) {
    g_autofree char *names = vision_provider_names("\"");

    return fail(ret_error, "%sprovider must be %s", where, names);
  }
  *ret = g_strdup(s);
  return 0;
}

static int parse_paths(JsonObject *o, ReadImagesParams *ret, char **ret_error) {
  JsonNode *n = member(o, "paths");
  JsonArray *a;
  guint len;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY(n))
    return fail(ret_error, "paths must be an array of file paths");
  a = json_node_get_array(n);
  len = json_array_get_length(a);
  if (len == 0 || len > READ_IMAGES_MAX_PATHS)
    return fail(ret_error, "paths must have from 1 to %d items (%u given)", READ_IMAGES_MAX_PATHS,
                len);
  ret->paths = g_new0(char *, len + 1);
  for (guint i = 0; i < len; i++) {
    const char *s = string_of(json_array_get_element(a, i), G_MAXSIZE);

    if (s == NULL)
      return fail(ret_error, "paths[%u] must be a non-empty string", i);
    ret->paths[i] = g_strdup(s);
  }
  ret->n_paths = len;
  return 0;
}

static int parse_members(JsonObject *o, ReadImagesParams *ret, char **ret_error) {
  JsonNode *n;
  const char *s;

  if (parse_paths(o, ret, ret_error) < 0)
    return -EINVAL;
  n = member(o, "query");
  if (n == NULL || (s = string_of(n, READ_IMAGES_MAX_QUERY)) == NULL)
    return fail(ret_error, "query must be a non-empty string of at most %zu bytes",
                READ_IMAGES_MAX_QUERY);
  ret->query = g_strdup(s);
  if ((n = member(o, "detail")) != NULL &&
      ((s = string_of(n, 16)) == NULL || read_image_detail_from_name(s, &ret->detail) < 0))
    return fail(ret_error, "detail must be one of \"auto\", \"low\", \"high\"");
  if ((n = member(o, "pages")) != NULL) {
    s = string_of(n, 4096);
    if (s == NULL || !read_params_pages_valid(s))
      return fail(ret_error, "pages must be a page selection like \"3\", \"2-5\" or \"1,28-\"");
    ret->pages = g_strdup(s);
  }
  if ((n = member(o, "cwd")) != NULL) {
    if ((s = string_of(n, G_MAXSIZE)) == NULL)
      return fail(ret_error, "cwd must be a non-empty string");
    ret->cwd = g_strdup(s);
  }
  if ((n = member(o, "maxTokens")) != NULL) {
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64 ||
        json_node_get_int(n) < 1 || json_node_get_int(n) > READ_IMAGES_MAX_MAX_TOKENS)
      return fail(ret_error, "maxTokens must be an integer from 1 to %d",
                  READ_IMAGES_MAX_MAX_TOKENS);
    ret->max_tokens = json_node_get_int(n);
  }
  if (member(o, "apiKey") != NULL)
    return fail(ret_error, "apiKey is not a readImages param: give it to initialize (vision) or "
                           "in READERD_VISION_API_KEY");
  if (setting(o, "model", "", &ret->call.model, ret_error) < 0 ||
      setting(o, "baseUrl", "", &ret->call.base_url, ret_error) < 0 ||
      setting(o, "provider", "", &ret->call.provider, ret_error) < 0)
    return -EINVAL;
  return 0;
}

int read_images_params_parse(JsonNode *params, ReadImagesParams *ret, char **ret_error) {
  memset(ret, 0, sizeof(*ret));
  ret->max_tokens = READ_IMAGES_DEFAULT_MAX_TOKENS;
  if (params == NULL || !JSON_NODE_HOLDS_OBJECT(params))
    return fail(ret_error, "params must be an object with paths and query");
  if (parse_members(json_node_get_object(params), ret, ret_error) < 0) {
    read_images_params_clear(ret);
    return -EINVAL;
  }
  return 0;
}

void read_images_params_clear(ReadImagesParams *p) {
  if (p == NULL)
    return;
  g_strfreev(p->paths);
  g_free(p->query);
  g_free(p->pages);
  g_free(p->cwd);
  vision_settings_clear(&p->call);
  memset(p, 0, sizeof(*p));
}

int vision_settings_parse(JsonNode *initialize_params, VisionSettings *ret, char **ret_error) {
  JsonNode *n;
  JsonObject *o;

  memset(ret, 0, sizeof(*ret));
  if (initialize_params == NULL || !JSON_NODE_HOLDS_OBJECT(initialize_params))
    return 0;
  n = member(json_node_get_object(initialize_params), "vision");
  if (n == NULL)
    return 0;
  if (!JSON_NODE_HOLDS_OBJECT(n))
    return fail(ret_error, "vision must be an object");
  o = json_node_get_object(n);
  if (setting(o, "baseUrl", "vision.", &ret->base_url, ret_error) < 0 ||
      setting(o, "model", "vision.", &ret->model, ret_error) < 0 ||
      setting(o, "apiKey", "vision.", &ret->api_key, ret_error) < 0 ||
      setting(o, "provider", "vision.", &ret->provider, ret_error) < 0) {
    vision_settings_clear(ret);
    return -EINVAL;
  }
  return 0;
}

void vision_settings_clear(VisionSettings *s) {
  if (s == NULL)
    return;
  if (s->api_key != NULL)
    explicit_bzero(s->api_key, strlen(s->api_key));
  g_free(s->base_url);
  g_free(s->model);
  g_free(s->api_key);
  g_free(s->provider);
  memset(s, 0, sizeof(*s));
}
