#include "daemon/request/git-dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "daemon/request/dl-table.h"

#ifndef LIBGIT2_SONAME
#error "LIBGIT2_SONAME: the file to dlopen, set by meson.build"
#endif

/* Each function of GitDl by its name in the library. */
static const DlSymbol SYMBOLS[] = {
    {"git_repository_open_ext", offsetof(GitDl, repository_open_ext)},
    {"git_repository_workdir", offsetof(GitDl, repository_workdir)},
    {"git_repository_commondir", offsetof(GitDl, repository_commondir)},
    {"git_repository_config_snapshot", offsetof(GitDl, repository_config_snapshot)},
    {"git_repository_free", offsetof(GitDl, repository_free)},
    {"git_config_get_path", offsetof(GitDl, config_get_path)},
    {"git_config_free", offsetof(GitDl, config_free)},
    {"git_buf_dispose", offsetof(GitDl, buf_dispose)},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static GitDl lib;
static int result;
static char error[512];

static void load(void) {
  typeof(git_libgit2_init) *init = NULL;
  void *h, *f;

  h = dl_table_open("libgit2", "READERD_LIBGIT2", LIBGIT2_SONAME, SYMBOLS,
                    sizeof SYMBOLS / sizeof SYMBOLS[0], &lib, NULL, error, sizeof error);
  if (h == NULL) {
    result = -ELIBACC;
    return;
  }
  if ((f = dlsym(h, "git_libgit2_init")) != NULL)
    memcpy(&init, &f, sizeof f);
  if (init == NULL || init() < 0) {
    snprintf(error, sizeof error, "libgit2 cannot be loaded: %s",
             init == NULL ? "it has no git_libgit2_init" : "git_libgit2_init failed");
    goto fail;
  }
  return;

fail:
  memset(&lib, 0, sizeof lib);
  dlclose(h);
  result = -ELIBACC;
}

int git_dl_open(const GitDl **ret_lib) {
  pthread_once(&once, load);
  *ret_lib = result == 0 ? &lib : NULL;
  return result;
}

const char *git_dl_error(void) {
  return error;
}
