#include "daemon/worker/worker-path.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib.h>

#ifndef READERD_WORKER_PATH
#error "READERD_WORKER_PATH: the installed worker's path, set by daemon/worker/meson.build"
#endif

/* readerd-worker in the folder of the running executable, when it is there and executable;
 * else NULL. */
static char *beside_self(void) {
  g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
  g_autofree char *dir = NULL;
  char *path;

  /* A replaced or deleted executable reads as "PATH (deleted)": its folder is still right. */
  if (self == NULL || !g_path_is_absolute(self))
    return NULL;
  dir = g_path_get_dirname(self);
  path = g_build_filename(dir, WORKER_EXE_NAME, NULL);
  if (access(path, X_OK) == 0)
    return path;
  g_free(path);
  return NULL;
}

/* The worker to start; see worker-path.h. */
char *worker_path_find(void) {
  const char *env = getenv(WORKER_PATH_ENV);
  char *path;

  /* Absolute, so that it still names the same file once `serve` has changed folder. */
  if (env != NULL && *env != '\0')
    return g_canonicalize_filename(env, NULL);
  if ((path = beside_self()) != NULL)
    return path;
  return g_strdup(READERD_WORKER_PATH);
}

/* The worker, kept open; see worker-path.h. */
char *worker_path_pin(const char *path) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  char *pinned;

  if (fd < 0)
    return NULL;
  /* The daemon's own pid, not "self": the worker execs it after closing every descriptor
   * from 3 up (pdf-spawn.c), while readerd still holds this one. */
  pinned = g_strdup_printf("/proc/%d/fd/%d", (int)getpid(), fd);
  if (access(pinned, X_OK) != 0) {
    (void)close(fd);
    g_free(pinned);
    return NULL;
  }
  return pinned;
}
