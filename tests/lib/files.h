/* Test files on disk and the text in them: writing and reading whole files, lines as the wire
 * contract counts them, `cat -n` numbering, comparing line lists, modification times. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes a file (dir/name), creating folders on the way; fails the test when it cannot.
 * Returns its path, g_malloc'd. */
char *rd_write_file(const char *dir, const char *name, const void *data, size_t len);

/* rd_write_file() of a NUL-terminated text (without its NUL). */
char *rd_write_str(const char *dir, const char *name, const char *text);

/* Reads a whole file; fails the test when it cannot. *ret_len (may be NULL) is its size.
 * g_malloc'd, NUL-terminated. */
char *rd_read_file(const char *path, size_t *ret_len);

/* Lines in data as the contract counts them: every '\n', plus a last line without one. */
int64_t rd_count_lines(const char *data, size_t len);

/* The lines of data without their '\n' (nor a '\r' before it), NULL-terminated. g_strfreev. */
char **rd_split_lines(const char *data, size_t len);

/* cat -n of lines[0..n): "%6d\t%s" numbered from `first`. g_strfreev. */
char **rd_numbered(const char *const *lines, size_t n, int64_t first);

/* True when both NULL-terminated lists have the same strings; on a difference prints both
 * around it to stderr (labelled `what`). */
bool rd_lines_equal(const char *what, const char *const *got, const char *const *want);

/* mtime of path (lstat: a symbolic link's own) in epoch milliseconds; fails the test when
 * path cannot be lstat'ed. */
int64_t rd_mtime_ms(const char *path);

/* ISO-8601 UTC with milliseconds of an epoch-milliseconds time. g_malloc'd. */
char *rd_iso_ms(int64_t ms);
