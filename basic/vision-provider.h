/* The vision providers readerd speaks to, named once: the API each is, its name in options,
 * settings and results, its default base URL and the path of its endpoint. Pure. */
#pragma once

typedef enum {
  VISION_PROVIDER_OPENAI = 0, /* chat completions: image_url parts holding data URLs */
  VISION_PROVIDER_ANTHROPIC,  /* the Messages API: base64 image blocks */
  VISION_PROVIDER_COUNT,
} VisionProvider;

/* The provider called name ("openai", "anthropic"). Returns 0, or -EINVAL when there is none
 * (name may be NULL). */
int vision_provider_from_name(const char *name, VisionProvider *ret);

/* The provider's name; static. */
const char *vision_provider_name(VisionProvider p);

/* The base URL a provider's calls go to when none is set; static. */
const char *vision_provider_base_url(VisionProvider p);

/* The path appended to the base URL to reach its endpoint ("/chat/completions"); static. */
const char *vision_provider_endpoint(VisionProvider p);

/* The names for a message: each between `quote` and `quote`, the last two joined by " or ",
 * the others by ", " (openai or anthropic). g_free the result. */
char *vision_provider_names(const char *quote);
