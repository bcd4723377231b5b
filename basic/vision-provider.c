/* The table of vision providers: see vision-provider.h. */
#include "basic/vision-provider.h"

#include <errno.h>
#include <string.h>

#include <glib.h>

static const struct {
  const char *name;
  const char *base_url;
  const char *endpoint;
} providers[VISION_PROVIDER_COUNT] = {
    [VISION_PROVIDER_OPENAI] = {"openai", "https://api.openai.com/v1", "/chat/completions"},
    [VISION_PROVIDER_ANTHROPIC] = {"anthropic", "https://api.anthropic.com/v1", "/messages"},
};

int vision_provider_from_name(const char *name, VisionProvider *ret) {
  for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(providers); i++)
    if (strcmp(name, providers[i].name) == 0) {
      *ret = (VisionProvider)i;
      return 0;
    }
  return -EINVAL;
}

/* An unknown value reads as the first provider, the default. */
static size_t index_of(VisionProvider p) {
  return (size_t)p < G_N_ELEMENTS(providers) ? (size_t)p : 0;
}

const char *vision_provider_name(VisionProvider p) {
  return providers[index_of(p)].name;
}

const char *vision_provider_base_url(VisionProvider p) {
  return providers[index_of(p)].base_url;
}

const char *vision_provider_endpoint(VisionProvider p) {
  return providers[index_of(p)].endpoint;
}

char *vision_provider_names(const char *quote) {
  GString *out = g_string_new(NULL);

  for (size_t i = 0; i < G_N_ELEMENTS(providers); i++) {
    if (i > 0)
      g_string_append(out, i + 1 == G_N_ELEMENTS(providers) ? " or " : ", ");
    g_string_append_printf(out, "%s%s%s", quote, providers[i].name, quote);
  }
  return g_string_free(out, FALSE);
}
