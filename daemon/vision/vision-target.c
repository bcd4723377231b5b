#include "daemon/vision/vision-target.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

/* READERD_VISION_* as a setting: NULL when unset or empty. */
static const char *env(const char *name) {
  const char *v = getenv(name);

  return v != NULL && *v != '\0' ? v : NULL;
}

static long env_ms(const char *name) {
  const char *v = env(name);
  char *end;
  long n;

  if (v == NULL)
    return 0;
  n = strtol(v, &end, 10);
  return *end == '\0' && n > 0 ? n : 0;
}

/* True when s holds a control character: it would break the HTTP header or URL it goes in. */
static bool has_control(const char *s) {
  for (; s != NULL && *s != '\0'; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return true;
  return false;
}

/* The base URL a call of these settings goes to: the one given, else the provider's default
 * (openai's when the provider is unknown: resolving refuses it anyway). */
static const char *base_url_of(const VisionSettings *acc) {
  VisionProvider p = VISION_PROVIDER_OPENAI;

  if (acc->base_url != NULL)
    return acc->base_url;
  if (acc->provider != NULL && vision_provider_from_name(acc->provider, &p) < 0)
    p = VISION_PROVIDER_OPENAI;
  return vision_provider_base_url(p);
}

/* One level of settings over what is below it. A key is bound to the base URL its level
 * resolves to (its own, the one below, or the provider's default), so that it goes to no
 * other: *key_url is that URL. */
static void settings_over(const char *base_url, const char *model, const char *api_key,
                          const char *provider, VisionSettings *acc, char **key_url) {
  if (base_url != NULL)
    g_free(acc->base_url), acc->base_url = g_strdup(base_url);
  if (model != NULL)
    g_free(acc->model), acc->model = g_strdup(model);
  if (provider != NULL)
    g_free(acc->provider), acc->provider = g_strdup(provider);
  if (api_key != NULL) {
    g_free(acc->api_key), acc->api_key = g_strdup(api_key);
    g_free(*key_url), *key_url = g_strdup(base_url_of(acc));
  }
}

int vision_target_resolve(const VisionSettings *conn, const VisionSettings *call, VisionTarget *ret,
                          char **ret_error) {
  VisionSettings acc = {0};
  g_autofree char *key_url = NULL;
  int r = -EINVAL;

  memset(ret, 0, sizeof(*ret));
  settings_over(env("READERD_VISION_BASE_URL"), env("READERD_VISION_MODEL"),
                env("READERD_VISION_API_KEY"), env("READERD_VISION_PROVIDER"), &acc, &key_url);
  if (conn != NULL)
    settings_over(conn->base_url, conn->model, conn->api_key, conn->provider, &acc, &key_url);
  if (call != NULL)
    settings_over(call->base_url, call->model, NULL, call->provider, &acc, &key_url);
  if (acc.provider != NULL && vision_provider_from_name(acc.provider, &ret->provider) < 0) {
    g_autofree char *names = vision_provider_names("\"");

    *ret_error = g_strdup_printf("READERD_VISION_PROVIDER must be %s", names);
    goto out;
  }
  if (has_control(acc.base_url) || has_control(acc.model) || has_control(acc.api_key)) {
    *ret_error = g_strdup("a vision setting (READERD_VISION_BASE_URL, _MODEL or _API_KEY) holds "
                          "a control character");
    goto out;
  }
  if (acc.base_url != NULL && g_ascii_strncasecmp(acc.base_url, "http://", 7) != 0 &&
      g_ascii_strncasecmp(acc.base_url, "https://", 8) != 0) {
    *ret_error = g_strdup("the vision base URL must start with http:// or https://");
    goto out;
  }
  if (acc.model == NULL) {
    *ret_error = g_strdup("no vision model: set READERD_VISION_MODEL, initialize's vision.model "
                          "or the call's model");
    goto out;
  }
  ret->base_url = g_strdup(base_url_of(&acc));
  ret->model = g_steal_pointer(&acc.model);
  /* The key travels only to the base URL it was given for: another level naming another
   * endpoint, or another provider's default endpoint, gets none. */
  if (key_url != NULL && strcmp(key_url, ret->base_url) == 0)
    ret->api_key = g_steal_pointer(&acc.api_key);
  ret->connect_timeout_ms = env_ms("READERD_VISION_CONNECT_TIMEOUT_MS");
  ret->timeout_ms = env_ms("READERD_VISION_TIMEOUT_MS");
  r = 0;
out:
  vision_settings_clear(&acc);
  return r;
}

void vision_target_clear(VisionTarget *t) {
  if (t == NULL)
    return;
  if (t->api_key != NULL)
    explicit_bzero(t->api_key, strlen(t->api_key));
  g_free(t->api_key);
  g_free(t->base_url);
  g_free(t->model);
  memset(t, 0, sizeof(*t));
}
