/* A program that links, for once, a library readerd opens with dlopen (meson.build): the
 * package's build asks dpkg-shlibdeps which package it needs (debian/rules), since
 * dpkg-shlibdeps reads DT_NEEDED and cannot see a dlopen. Never installed. */
#if defined(NEEDS_LIBGIT2)
#include <git2.h>

int main(void) {
  return git_libgit2_init() < 0;
}
#elif defined(NEEDS_LIBCURL)
#include <curl/curl.h>

int main(void) {
  return curl_version() == NULL;
}
#else
#error "NEEDS_LIBGIT2 or NEEDS_LIBCURL"
#endif
