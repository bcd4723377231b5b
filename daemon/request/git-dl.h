/* libgit2, opened with dlopen on its first use rather than linked: a plain read never needs it,
 * and linking it (with libcurl's share of the 31 libraries it brings: OpenSSL, GnuTLS, Kerberos,
 * LDAP, libssh2...) cost every `readerd` start some 20 M instructions of dynamic loading
 * (docs/performance.md, "The CLI's start"). Only the folder walk (expand-walk.c) uses it.
 *
 * readerd is compiled against libgit2's headers and loads the library whose SONAME meson read
 * from the one it found (LIBGIT2_SONAME); READERD_LIBGIT2, when set, names another file to load
 * instead, for the tests of a missing library (docs/architecture.md). Any thread. */
#pragma once

#include <git2.h>

/* The functions readerd calls, each with libgit2's own prototype. */
typedef struct {
  typeof(git_repository_open_ext) *repository_open_ext;
  typeof(git_repository_workdir) *repository_workdir;
  typeof(git_repository_commondir) *repository_commondir;
  typeof(git_repository_config_snapshot) *repository_config_snapshot;
  typeof(git_repository_free) *repository_free;
  typeof(git_config_get_path) *config_get_path;
  typeof(git_config_free) *config_free;
  typeof(git_buf_dispose) *buf_dispose;
} GitDl;

/* Loads libgit2 and runs git_libgit2_init(), once per process: the first caller does it, a
 * caller on another thread meanwhile waits for it. Returns 0 with *ret_lib the functions (static,
 * never freed), or -ELIBACC when the library, one of its functions or its init failed (every
 * later call too); git_dl_error() then says which. */
int git_dl_open(const GitDl **ret_lib);

/* Why git_dl_open() failed, naming the library ("libgit2 cannot be loaded: ..."); "" before a
 * failure. Static. */
const char *git_dl_error(void);
