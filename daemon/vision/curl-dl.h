/* libcurl, opened with dlopen on the first transfer rather than linked: only readImages' vision
 * client (http.c) uses it, and linking it with what it brings (OpenSSL, GnuTLS, Kerberos, LDAP,
 * nghttp2, libssh2...) cost every `readerd` start, read or serve, a share of some 20 M
 * instructions of dynamic loading (docs/performance.md, "The CLI's start").
 *
 * readerd is compiled against libcurl's headers and loads the library whose SONAME meson read
 * from the one it found (LIBCURL_SONAME); READERD_LIBCURL, when set, names another file to load
 * instead, for the tests of a missing library (docs/architecture.md). Any thread. */
#pragma once

#include <stdbool.h>

#include <curl/curl.h>

/* The functions http.c calls, each with libcurl's own prototype (the setopt and getinfo calls
 * through them escape curl's compile-time type checks, which apply to the names alone). */
typedef struct {
  typeof(curl_easy_init) *easy_init;
  typeof(curl_easy_setopt) *easy_setopt;
  typeof(curl_easy_getinfo) *easy_getinfo;
  typeof(curl_easy_strerror) *easy_strerror;
  typeof(curl_easy_cleanup) *easy_cleanup;
  typeof(curl_multi_init) *multi_init;
  typeof(curl_multi_setopt) *multi_setopt;
  typeof(curl_multi_add_handle) *multi_add_handle;
  typeof(curl_multi_remove_handle) *multi_remove_handle;
  typeof(curl_multi_socket_action) *multi_socket_action;
  typeof(curl_multi_info_read) *multi_info_read;
  typeof(curl_multi_assign) *multi_assign;
  typeof(curl_multi_cleanup) *multi_cleanup;
  typeof(curl_slist_append) *slist_append;
  typeof(curl_slist_free_all) *slist_free_all;
} CurlDl;

/* Loads libcurl and runs curl_global_init(CURL_GLOBAL_DEFAULT), once per process: the first
 * caller does it, a caller on another thread meanwhile waits for it. Returns 0 with *ret_lib the
 * functions (static, never freed), or -ELIBACC when the library, one of its functions or its
 * global init failed, or it is older than LIBCURL_MIN_VERSION, the version meson requires
 * (every later call too); curl_dl_error() then says which. */
int curl_dl_open(const CurlDl **ret_lib);

/* Why curl_dl_open() failed, naming the library ("libcurl cannot be loaded: ..."); "" before a
 * failure. Static. */
const char *curl_dl_error(void);

/* Whether a libcurl whose curl_version_info() says version_num `have` (0xMMmmpp) is version
 * `min` ("7.85", "8.1.2") or later; false for a `min` that is no such version. Pure. */
bool curl_dl_version_at_least(unsigned int have, const char *min);
