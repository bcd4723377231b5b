/* Where `readerd serve` may listen: a check of a socket path before it is bound. */
#pragma once

/* Checks that `path` names a socket in a folder of the user's own. Refused: NULL or empty,
 * an abstract name (a leading '@'; a leading NUL is the empty string here), a path longer
 * than a socket address holds, and a path whose folder is missing ("no such folder: DIR"),
 * is not a directory (a symlink included: the folder is lstat'ed), is not owned by the
 * effective uid, or is writable by group or others. A relative path's folder is ".".
 * Returns 0, or a negative errno with *ret_error (g_malloc'd) saying why. Never logs. */
int socket_path_check(const char *path, char **ret_error);
