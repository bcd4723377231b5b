/* pathBytes: a file name's exact bytes spelled as a string that JSON, XML and a terminal all
 * carry unchanged, for names that are not valid UTF-8 (docs/protocol.md, "Names that are not
 * UTF-8"). Pure.
 *
 * The spelling: every byte of a valid UTF-8 character is itself, except a backslash, written
 * "\\"; every other byte is "\xHH" (two lowercase hex digits): a byte that is not part of
 * valid UTF-8, and the bytes of the characters XML 1.0 or a terminal cannot take as they are
 * (C0 controls, DEL, C1 controls, U+FFFE, U+FFFF). It reads as a bash $'...' string does. */
#pragma once

#include <stdbool.h>

/* True when `path` cannot be carried exactly as a JSON string or XML attribute: it holds a
 * byte that its pathBytes spelling writes as "\xHH". NULL is false. */
bool path_bytes_needed(const char *path);

/* The pathBytes spelling of path, g_malloc'd, or NULL when path_bytes_needed() is false
 * (path then says the name exactly). */
char *path_bytes_escape(const char *path);

/* Decodes a pathBytes spelling into *ret (g_malloc'd, NUL-terminated). Returns 0, or -EINVAL
 * when s is not one: a backslash followed by neither "\" nor "x" and two hex digits, an
 * escaped NUL byte (no path holds one), or an empty result. */
int path_bytes_unescape(const char *s, char **ret);
