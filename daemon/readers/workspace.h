/* A connection's workspace: the base of relative paths and, when asked, a fence around what
 * may be read (the root, and patterns of files never to read, such as .env or keys). */
#pragma once

#include <stdbool.h>

#include "formatters/result.h"

typedef struct Workspace Workspace;

/* A workspace rooted at `root` (NULL: relative paths use the working directory). With
 * `confine`, files must lie inside the root once every symlink is resolved; `exclude` is a
 * NULL-terminated list of glob patterns (may be NULL): a pattern without '/' matches a file's
 * name, one with '/' its path relative to the root ('*' and '?' as in the shell, '*' crossing
 * '/'). Returns 0 and *ret (free with workspace_unref), or -EINVAL with *ret_error (g_malloc'd)
 * when confine is asked without a root, the root does not resolve to a folder, or a pattern
 * is empty. */
int workspace_new(const char *root, bool confine, const char *const *exclude, Workspace **ret,
                  char **ret_error);

/* The same with several roots (roots: NULL-terminated, may be NULL): with `confine`, a file
 * must lie inside one of them (an empty list confines to nothing: every file is refused);
 * relative paths resolve against the first; a pattern with '/' matches a path relative to the
 * root that holds the file, under every root that holds it. With `confine`, a path inside a
 * folder named .git below a root is refused too. */
int workspace_new_roots(const char *const *roots, bool confine, const char *const *exclude,
                        Workspace **ret, char **ret_error);

/* A workspace confined to no folder at all, in which every file is refused: what a fence that
 * could not be built leaves, so that it fails closed. No I/O; never fails. */
Workspace *workspace_new_closed(void);

/* Reference counting: a request keeps its connection's workspace while it runs. NULL is fine. */
Workspace *workspace_ref(Workspace *ws);
void workspace_unref(Workspace *ws);

/* True when ws is confined to no folder at all: every file is refused. */
bool workspace_closed(const Workspace *ws);

/* The roots once resolved (NULL-terminated; NULL when the workspace resolved none: neither
 * confined nor excluding by path), and the exclude patterns as given (may be NULL). Owned by
 * ws. */
const char *const *workspace_real_roots(const Workspace *ws);
const char *const *workspace_patterns(const Workspace *ws);

/* The root as given, or NULL. */
const char *workspace_root(const Workspace *ws);

/* A first check of a path before it is opened, so that what lies outside a confined
 * workspace or what an exclude pattern refuses is refused without saying whether it is a
 * folder, a device, a file or nothing: false (and CODE_ACCESS_DENIED in res) when it is. The
 * path is resolved as far as it exists, every symlink followed, a dangling one too (to where
 * it points), and lexically past that: a link to a missing file outside and a link to an
 * existing one get the same answer. workspace_allows() on the descriptor is the check that
 * counts. */
bool workspace_allows_path(const Workspace *ws, const char *path, FileResult *res);

/* workspace_allows_path(), giving the real path it let through in *ret_real (g_free; NULL when
 * there was nothing to check or it was refused), for workspace_allows_checked(). */
bool workspace_allows_path_real(const Workspace *ws, const char *path, FileResult *res,
                                char **ret_real);

/* What workspace_allows() would say of a file whose real path (absolute, every symlink
 * resolved) is `real`, found under the name `name` (may be NULL): the check of a folder walk,
 * before anything of the file is read. ws may be NULL. */
bool workspace_allows_real(const Workspace *ws, const char *real, const char *name);

/* True when ws has anything for workspace_allows() to check: a root to confine to, or exclude
 * patterns. Without, every file is allowed and none needs opening to be checked. */
bool workspace_fenced(const Workspace *ws);

/* Checks the file open at fd, given as `path`: true when it may be read; otherwise res gets
 * CODE_ACCESS_DENIED and a message. The check uses the descriptor's real path, so symlinks and
 * ".." cannot get around it, and nothing can be swapped in between. ws may be NULL (no fence).
 * Thread-safe. */
bool workspace_allows(const Workspace *ws, int fd, const char *path, FileResult *res);

/* workspace_allows() of a descriptor opened from a path workspace_allows_path_real() let
 * through as `checked` (may be NULL): when the descriptor's real path is that one, its verdict
 * stands and the patterns are not matched again. The same `path` (or one ending with the same
 * name) must be given to both. */
bool workspace_allows_checked(const Workspace *ws, int fd, const char *path, const char *checked,
                              FileResult *res);

/* The check of a file a folder walk found, whatever the workspace: false (CODE_ACCESS_DENIED in
 * res) when the real path of the file open at fd passes through a folder named .git, which an
 * expansion never reads. */
bool workspace_allows_expanded(int fd, FileResult *res);

/* Opens path with open(2)'s flags when it is absolute and plain (no empty, "." or ".."
 * component, no trailing '/') and reaches its file without meeting a symlink (openat2's
 * RESOLVE_NO_SYMLINKS): the file's real path is then path itself, so the fence can judge the
 * string, with no lookup of the descriptor's name (workspace_allows_plain). Returns the
 * descriptor, or a negative errno: -EINVAL for a path that is not plain, -ELOOP for a symlink
 * on the way, -ENOSYS where the kernel has no openat2, or the walk's failure. Thread-safe. */
int workspace_open_plain(const char *path, int flags);

/* The fence's verdict on a file workspace_open_plain() opened from path, without a lookup: what
 * workspace_allows() would say of it. ws may be NULL. */
bool workspace_allows_plain(const Workspace *ws, const char *path, FileResult *res);

/* workspace_allows_expanded() of a file workspace_open_plain() opened from path. */
bool workspace_allows_expanded_plain(const char *path, FileResult *res);

/* True when a component of path (absolute or relative) is ".git". No I/O. */
bool workspace_path_in_git(const char *path);
