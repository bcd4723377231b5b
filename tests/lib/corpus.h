/* Real files for the in-process and soak tests: Go's source tree (Debian package
 * golang-1.19-src, installed by scripts/setup.sh) and small files a test writes itself. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORPUS_GO_SRC "/usr/share/go-1.19/src"

/* True when Go's source tree is installed; otherwise prints "SKIP: ..." naming the package. */
bool corpus_go_present(void);

/* Up to max paths of .go files under CORPUS_GO_SRC, sorted, NULL-terminated; *ret_n (may be
 * NULL) is their number. NULL when the tree is missing. g_strfreev. */
char **corpus_go_files(size_t max, size_t *ret_n);

/* Lines in data as the contract counts them: every '\n', plus a last line without one. */
int64_t corpus_count_lines(const char *data, size_t len);

/* A new empty folder under $TMPDIR (mkdtemp); g_malloc'd. Aborts when it cannot be made. */
char *corpus_tmpdir(const char *name);

/* Writes dir/name with text; returns its path, g_malloc'd. Aborts on failure. */
char *corpus_write(const char *dir, const char *name, const char *text, size_t len);

/* Removes dir and the plain files in it; NULL is fine. */
void corpus_rmdir(const char *dir);
