/* Validation of the `initialize` method's params into plain C: pure, no I/O. */
#pragma once

#include <stdbool.h>

#include <json-glib/json-glib.h>

#define INITIALIZE_MAX_EXCLUDE 1000 /* exclude patterns */

typedef struct {
  char *root_path; /* rootPath, NULL when absent; owned */
  bool confine;    /* confineToRoot */
  char **exclude;  /* exclude: NULL-terminated, NULL when absent; owned */
} InitializeParams;

/* Validates `params` (an object, or NULL/absent: all defaults) and fills *ret. Returns 0, or
 * -EINVAL with *ret_error (g_malloc'd) naming the field; *ret is then left cleared. Unknown
 * members (clientInfo, ...) are ignored; null is the same as absent. */
int initialize_params_parse(JsonNode *params, InitializeParams *ret, char **ret_error);

/* Releases what the params own and zeroes them; NULL is fine. */
void initialize_params_clear(InitializeParams *p);
