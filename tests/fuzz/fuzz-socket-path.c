/* socket_path_check on any bytes as a path: it never crashes, and it refuses or accepts with
 * its contract (an error message exactly when it refuses). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "daemon/socket-path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A C string, as from argv: up to the first NUL. */
  g_autofree char *path = g_strndup((const char *)data, size);
  g_autofree char *err = NULL;
  int r = socket_path_check(path, &err);

  if ((r == 0) != (err == NULL) || r > 0)
    abort();
  if (r == 0 && (*path == '\0' || *path == '@' || strlen(path) >= 108))
    abort();
  return 0;
}
