/* Glob patterns over paths, as git's wildmatch reads them: pure, no I/O.
 *
 * `*` matches any run of characters but '/', `?` one character but '/', `[...]` one character
 * of a class (`[!...]` or `[^...]` negated, ranges `a-z`, `]` first is literal), `\` makes the
 * next character literal, and `**` as a whole segment (alone, or between slashes, or at the start
 * before one, or at the end after one) matches any number of folders, none included; at the
 * end after a slash it matches what is inside the folder before it, one segment at least. Elsewhere
 * `**` is `*`. Used for the globs of `read` paths and for ignore files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Longest pattern glob_match() takes; a longer one matches nothing. */
#define GLOB_MAX_PATTERN 4096

/* True when path (relative, '/'-separated, no leading '/') matches pattern. Both are
 * NUL-terminated; neither may be NULL. */
bool glob_match(const char *pattern, const char *path);

/* True when s has a character that makes it a pattern: '*', '?' or '['. */
bool glob_has_magic(const char *s);

/* How many '/'-separated segments of pattern can match at most, or -1 when it has a `**`
 * segment (any depth). */
int glob_max_depth(const char *pattern);
