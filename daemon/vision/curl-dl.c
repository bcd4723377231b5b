#include "daemon/vision/curl-dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/request/dl-table.h"

#ifndef LIBCURL_SONAME
#error "LIBCURL_SONAME: the file to dlopen, set by meson.build"
#endif
#ifndef LIBCURL_MIN_VERSION
#error "LIBCURL_MIN_VERSION: the oldest libcurl to load, set by meson.build"
#endif

/* Each function of CurlDl by its name in the library. */
static const DlSymbol SYMBOLS[] = {
    {"curl_easy_init", offsetof(CurlDl, easy_init)},
    {"curl_easy_setopt", offsetof(CurlDl, easy_setopt)},
    {"curl_easy_getinfo", offsetof(CurlDl, easy_getinfo)},
    {"curl_easy_strerror", offsetof(CurlDl, easy_strerror)},
    {"curl_easy_cleanup", offsetof(CurlDl, easy_cleanup)},
    {"curl_multi_init", offsetof(CurlDl, multi_init)},
    {"curl_multi_setopt", offsetof(CurlDl, multi_setopt)},
    {"curl_multi_add_handle", offsetof(CurlDl, multi_add_handle)},
    {"curl_multi_remove_handle", offsetof(CurlDl, multi_remove_handle)},
    {"curl_multi_socket_action", offsetof(CurlDl, multi_socket_action)},
    {"curl_multi_info_read", offsetof(CurlDl, multi_info_read)},
    {"curl_multi_assign", offsetof(CurlDl, multi_assign)},
    {"curl_multi_cleanup", offsetof(CurlDl, multi_cleanup)},
    {"curl_slist_append", offsetof(CurlDl, slist_append)},
    {"curl_slist_free_all", offsetof(CurlDl, slist_free_all)},
};

/* See curl-dl.h. */
bool curl_dl_version_at_least(unsigned int have, const char *min) {
  unsigned long part[3] = {0, 0, 0};
  const char *p = min;
  char *end;
  int n = 0;

  /* Two or three numbers, each below 256, joined by dots. */
  for (;;) {
    if (n == 3 || *p < '0' || *p > '9')
      return false;
    part[n++] = strtoul(p, &end, 10);
    if (part[n - 1] > 255)
      return false;
    p = end;
    if (*p == '\0')
      break;
    if (*p++ != '.')
      return false;
  }
  if (n < 2)
    return false;
  return have >= (part[0] << 16 | part[1] << 8 | part[2]);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CurlDl lib;
static int result;
static char error[512];

/* Whether the library `file` at h is LIBCURL_MIN_VERSION or later, by its curl_version_info():
 * CURLOPT_PROTOCOLS_STR came with 7.85, and an older library would refuse it with a vague
 * "Invalid argument". If not, says so in error[]. */
static bool recent_enough(void *h, const char *file) {
  typeof(curl_version_info) *version_info = NULL;
  const curl_version_info_data *info;
  void *f = dlsym(h, "curl_version_info");

  if (f == NULL) {
    snprintf(error, sizeof error, "libcurl cannot be loaded: %s has no curl_version_info", file);
    return false;
  }
  memcpy(&version_info, &f, sizeof f);
  info = version_info(CURLVERSION_NOW);
  if (info != NULL && curl_dl_version_at_least(info->version_num, LIBCURL_MIN_VERSION))
    return true;
  snprintf(error, sizeof error,
           "libcurl cannot be loaded: %s is libcurl %s, and readerd needs libcurl %s or later",
           file, info != NULL && info->version != NULL ? info->version : "(no version)",
           LIBCURL_MIN_VERSION);
  return false;
}

/* curl_global_init() runs here, on the first vision call's pool thread, where curl's
 * documentation asks for it before any thread starts. pthread_once serialises it against
 * itself. Against the rest of the process: a libcurl with CURL_VERSION_THREADSAFE (7.84 and
 * later where atomics are available; Debian 12's 7.88.1 has it) guards its own global state;
 * what it sets up besides is OpenSSL 3 (whose init is thread-safe) and libssh2, whose
 * libssh2_init() libgit2's init (git-dl.c, on another pool thread) may call at the same time:
 * that races on a counter only libssh2_exit() reads, which readerd never calls, and its crypto
 * setup is OpenSSL's again. No other thread of readerd uses these libraries. */
static void load(void) {
  typeof(curl_global_init) *global_init = NULL;
  const char *file;
  void *h, *f;

  h = dl_table_open("libcurl", "READERD_LIBCURL", LIBCURL_SONAME, SYMBOLS,
                    sizeof SYMBOLS / sizeof SYMBOLS[0], &lib, &file, error, sizeof error);
  if (h == NULL) {
    result = -ELIBACC;
    return;
  }
  /* Before its global init: an older library is not set up at all. */
  if (!recent_enough(h, file))
    goto fail;
  if ((f = dlsym(h, "curl_global_init")) != NULL)
    memcpy(&global_init, &f, sizeof f);
  if (global_init == NULL || global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(error, sizeof error, "libcurl cannot be loaded: %s",
             global_init == NULL ? "it has no curl_global_init" : "curl_global_init failed");
    goto fail;
  }
  return;

fail:
  memset(&lib, 0, sizeof lib);
  dlclose(h);
  result = -ELIBACC;
}

int curl_dl_open(const CurlDl **ret_lib) {
  pthread_once(&once, load);
  *ret_lib = result == 0 ? &lib : NULL;
  return result;
}

const char *curl_dl_error(void) {
  return error;
}
