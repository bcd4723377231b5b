/* Where a readImages call goes: the endpoint, model and key resolved from the environment
 * (READERD_VISION_*), the connection's initialize and the call, level over level. No I/O but
 * getenv(). */
#pragma once

#include "daemon/vision/vision-body.h"
#include "ipc/read-images-params.h"

/* Where a call goes, resolved from the environment, the connection and the call. */
typedef struct {
  VisionProvider provider;
  char *base_url; /* owned */
  char *model;    /* owned */
  char *api_key;  /* owned; NULL when none is sent */
  long connect_timeout_ms, timeout_ms;
} VisionTarget;

/* Resolves a call's target: each setting from the call (may be NULL), else the connection's
 * (may be NULL), else READERD_VISION_BASE_URL, _MODEL, _API_KEY, _PROVIDER (default openai);
 * the timeouts from READERD_VISION_CONNECT_TIMEOUT_MS and READERD_VISION_TIMEOUT_MS. A key
 * goes only to the base URL its level resolves to (given with it, or below it, or its
 * provider's default): a call whose base URL differs from it, by another level's base URL or
 * another provider's default, is sent without a key. The anthropic provider's default base URL is
 * https://api.anthropic.com/v1, openai's https://api.openai.com/v1. Returns 0, or -EINVAL with
 * *ret_error (g_malloc'd) when no model is set or a setting is wrong. Clear *ret with
 * vision_target_clear(). A base URL must be http:// or https://. */
int vision_target_resolve(const VisionSettings *conn, const VisionSettings *call, VisionTarget *ret,
                          char **ret_error);

/* Releases what a target owns (the key's bytes overwritten) and zeroes it. NULL is fine. */
void vision_target_clear(VisionTarget *t);
