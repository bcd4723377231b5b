#include "daemon/readers/workspace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include <glib.h>

struct Workspace {
  char *root;      /* as given */
  char **real_roots; /* resolved, when confined or excluding; no trailing '/' but for "/" */
  bool confine;
  GPtrArray *name_pats; /* GPatternSpec*: patterns without '/', matched against names */
  GPtrArray *path_pats; /* GPatternSpec*: patterns with '/', matched against relative paths */
  char **patterns;      /* the patterns as given, for messages */
};

static void workspace_free(Workspace *ws) {
  g_free(ws->root);
  g_strfreev(ws->real_roots);
  g_ptr_array_unref(ws->name_pats);
  g_ptr_array_unref(ws->path_pats);
  g_strfreev(ws->patterns);
}

/* Resolves every root; fails when one is not a folder. */
static int resolve_roots(Workspace *ws, const char *const *roots, char **ret_error) {
  size_t n = g_strv_length((char **)roots);
  struct stat st;

  ws->real_roots = g_new0(char *, n + 1);
  for (size_t i = 0; i < n; i++) {
    ws->real_roots[i] = realpath(roots[i], NULL);
    if (ws->real_roots[i] == NULL || stat(ws->real_roots[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
      *ret_error = g_strdup_printf("rootPath %s is not a folder", roots[i]);
      return -EINVAL;
    }
  }
  return 0;
}

int workspace_new(const char *root, bool confine, const char *const *exclude, Workspace **ret,
                  char **ret_error) {
  const char *const roots[] = {root, NULL};

  return workspace_new_roots(root != NULL ? roots : NULL, confine, exclude, ret, ret_error);
}

int workspace_new_roots(const char *const *roots, bool confine, const char *const *exclude,
                        Workspace **ret, char **ret_error) {
  Workspace *ws = g_atomic_rc_box_new0(Workspace);
  const char *root = roots != NULL ? roots[0] : NULL;

  ws->root = g_strdup(root);
  ws->confine = confine;
  ws->name_pats = g_ptr_array_new_with_free_func((GDestroyNotify)g_pattern_spec_free);
  ws->path_pats = g_ptr_array_new_with_free_func((GDestroyNotify)g_pattern_spec_free);
  ws->patterns = g_strdupv((char **)exclude);
  for (size_t i = 0; exclude != NULL && exclude[i] != NULL; i++) {
    const char *p = exclude[i];

    if (*p == '\0') {
      *ret_error = g_strdup_printf("exclude[%zu] is empty", i);
      goto fail;
    }
    /* "./x" and "/x" both mean x at the root. */
    while (p[0] == '.' && p[1] == '/')
      p += 2;
    p += p[0] == '/';
    g_ptr_array_add(strchr(p, '/') != NULL ? ws->path_pats : ws->name_pats, g_pattern_spec_new(p));
  }
  if (confine && roots == NULL) {
    *ret_error = g_strdup("confineToRoot needs a rootPath");
    goto fail;
  }
  /* Confined to no root at all, nothing may be read. */
  if (roots != NULL && (confine || ws->path_pats->len > 0) &&
      resolve_roots(ws, roots, ret_error) < 0)
    goto fail;
  *ret = ws;
  return 0;

fail:
  workspace_unref(ws);
  return -EINVAL;
}

Workspace *workspace_new_closed(void) {
  const char *const none[] = {NULL};
  Workspace *ws = NULL;
  g_autofree char *error = NULL;

  /* Over no root and with no pattern, nothing is resolved or parsed. */
  if (workspace_new_roots(none, true, NULL, &ws, &error) < 0)
    g_error("a closed workspace: %s", error);
  return ws;
}

Workspace *workspace_ref(Workspace *ws) {
  return ws != NULL ? g_atomic_rc_box_acquire(ws) : NULL;
}

void workspace_unref(Workspace *ws) {
  if (ws != NULL)
    g_atomic_rc_box_release_full(ws, (GDestroyNotify)workspace_free);
}

const char *workspace_root(const Workspace *ws) {
  return ws != NULL ? ws->root : NULL;
}

/* The path of real below root r, or NULL when r does not hold it. */
static const char *below(const char *r, const char *real) {
  size_t n = strlen(r);

  if (strcmp(r, "/") == 0)
    return real + 1;
  if (strncmp(real, r, n) == 0 && (real[n] == '/' || real[n] == '\0'))
    return real[n] == '/' ? real + n + 1 : real + n;
  return NULL;
}

/* The path below the first root that holds real, or NULL when none does. */
static const char *below_root(const Workspace *ws, const char *real) {
  for (size_t i = 0; ws->real_roots != NULL && ws->real_roots[i] != NULL; i++) {
    const char *rel = below(ws->real_roots[i], real);

    if (rel != NULL)
      return rel;
  }
  return NULL;
}

/* The last component of path. */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');

  return slash != NULL ? slash + 1 : path;
}

/* True when a name pattern matches name (a last component). */
static bool name_excluded(const Workspace *ws, const char *name) {
  for (guint i = 0; i < ws->name_pats->len; i++)
    if (g_pattern_spec_match_string(g_ptr_array_index(ws->name_pats, i), name))
      return true;
  return false;
}

/* True when a pattern with '/' refuses real as a path below ANY root that holds it: with roots
 * D and D/b, D/b/secrets/x.txt is both "b/secrets/x.txt" and "secrets/x.txt". */
static bool path_excluded(const Workspace *ws, const char *real) {
  for (size_t i = 0; ws->path_pats->len > 0 && ws->real_roots != NULL && ws->real_roots[i] != NULL;
       i++) {
    const char *rel = below(ws->real_roots[i], real);

    for (guint k = 0; rel != NULL && k < ws->path_pats->len; k++)
      if (g_pattern_spec_match_string(g_ptr_array_index(ws->path_pats, k), rel))
        return true;
  }
  return false;
}

/* True when a component of rel is ".git". */
static bool has_git_component(const char *rel) {
  for (const char *p = rel; p != NULL && *p != '\0';) {
    const char *slash = strchr(p, '/');
    size_t n = slash != NULL ? (size_t)(slash - p) : strlen(p);

    if (n == 4 && memcmp(p, ".git", 4) == 0)
      return true;
    p = slash != NULL ? slash + 1 : NULL;
  }
  return false;
}

/* The one answer for everything outside a confined root: the same code and words whatever lies
 * there (a file, a folder, nothing), and no path of the outside in it. res may be NULL. */
static bool deny_outside(FileResult *res) {
  if (res != NULL)
    file_result_fail(res, CODE_ACCESS_DENIED, "outside the workspace root (confineToRoot)");
  return false;
}

static bool deny(FileResult *res, const char *why) {
  if (res != NULL)
    file_result_fail(res, CODE_ACCESS_DENIED, "%s", why);
  return false;
}

/* The real path of the file open at fd into buf; false when it cannot be read. */
static bool fd_real_path(int fd, char *buf, size_t size) {
  static const char prefix[] = "/proc/self/fd/";
  char link[sizeof prefix + 16], digits[16];
  size_t k = 0;
  ssize_t n;

  /* Written by hand: snprintf took about 750 instructions here, twice for every file read. */
  if (fd < 0)
    return false;
  do
    digits[k++] = (char)('0' + fd % 10);
  while ((fd /= 10) > 0);
  memcpy(link, prefix, sizeof prefix - 1);
  for (size_t j = 0; j < k; j++)
    link[sizeof prefix - 1 + j] = digits[k - 1 - j];
  link[sizeof prefix - 1 + k] = '\0';
  n = readlink(link, buf, size - 1);
  if (n < 0)
    return false;
  buf[n] = '\0';
  return true;
}

/* The real path of a path that exists, in three system calls whatever its depth: a descriptor
 * of what it names (O_PATH: the file itself is not opened, a FIFO or a device included) and
 * the kernel's name for it. NULL when it cannot be opened so (nothing there, a dangling link,
 * no permission on the way, a loop) or named: resolve_far() walks it then. g_free. */
static char *resolve_existing(const char *path) {
  char real[PATH_MAX];
  int fd = open(path, O_PATH | O_CLOEXEC);
  bool named;

  if (fd < 0)
    return NULL;
  named = fd_real_path(fd, real, sizeof real);
  close(fd);
  /* A name that filled the buffer may be cut short; a file unlinked meanwhile is named
   * "... (deleted)": neither is a path. */
  if (!named || real[0] != '/' || strlen(real) >= sizeof real - 1 ||
      g_str_has_suffix(real, " (deleted)"))
    return NULL;
  return g_strdup(real);
}

/* Symlinks followed at most while resolving, as the kernel's limit. */
#define RESOLVE_MAX_LINKS 40

/* path resolved as far as it exists, and lexically past that: every symlink met is followed
 * (a dangling one too: its target is where the path would lead), "." and ".." are applied to
 * what is resolved so far, and from the first component that does not exist (or cannot be
 * looked at) on, the rest is taken as written. For an existing path it is realpath(3). Returns
 * NULL on a loop or a path too long. g_free. */
static char *resolve_far(const char *path) {
  g_autofree char *cwd = g_path_is_absolute(path) ? NULL : g_get_current_dir();
  char *rest = g_strconcat(cwd != NULL ? cwd : "", "/", path, NULL);
  GString *out = g_string_new(NULL); /* "" is "/" */
  const char *p = rest;
  char target[PATH_MAX];
  int links = 0;
  bool missing = false;

  for (;;) {
    const char *end;
    char *next;
    size_t n, keep;
    ssize_t t;

    while (*p == '/')
      p++;
    if (*p == '\0')
      break;
    end = strchrnul(p, '/');
    n = (size_t)(end - p);
    if (n == 1 && p[0] == '.') {
      p = end;
      continue;
    }
    if (n == 2 && p[0] == '.' && p[1] == '.') {
      char *slash = strrchr(out->str, '/');

      g_string_truncate(out, slash != NULL ? (size_t)(slash - out->str) : 0);
      p = end;
      continue;
    }
    keep = out->len;
    g_string_append_c(out, '/');
    g_string_append_len(out, p, (gssize)n);
    p = end;
    if (out->len >= PATH_MAX * 4)
      goto fail;
    if (missing)
      continue;
    t = readlink(out->str, target, sizeof target - 1);
    if (t < 0) {
      /* EINVAL: it exists and is no link. Anything else: resolved as far as it goes. */
      missing = errno != EINVAL;
      continue;
    }
    if (++links > RESOLVE_MAX_LINKS)
      goto fail;
    target[t] = '\0';
    /* The link's target takes its place: from the top when absolute, else from its folder. */
    g_string_truncate(out, target[0] == '/' ? 0 : keep);
    next = g_strconcat(target, "/", p, NULL);
    g_free(rest);
    rest = next;
    p = rest;
  }
  g_free(rest);
  if (out->len == 0)
    g_string_append_c(out, '/');
  return g_string_free(out, FALSE);

fail:
  g_free(rest);
  g_string_free(out, TRUE);
  return NULL;
}

/* The checks of the fence on a real path (every symlink resolved) found as `name`: inside a
 * root when confined, not in a .git folder below the root when confined, and no exclude
 * pattern on either name nor on its path below any root that holds it. */
static bool allows_real(const Workspace *ws, const char *real, const char *name, FileResult *res) {
  const char *rel = ws->real_roots != NULL ? below_root(ws, real) : NULL;
  const char *real_name = base_name(real), *given = name != NULL ? base_name(name) : NULL;

  if (ws->confine && rel == NULL)
    return deny_outside(res);
  if (ws->confine && has_git_component(rel))
    return deny(res, "inside a .git folder (confineToRoot)");
  /* Both names count: a link named notes.txt to .env is .env. Usually they are one name,
   * matched once. */
  if ((given != NULL && strcmp(given, real_name) != 0 && name_excluded(ws, given)) ||
      name_excluded(ws, real_name) || path_excluded(ws, real))
    return deny(res, "excluded by the workspace's exclude patterns");
  return true;
}

bool workspace_allows_path_real(const Workspace *ws, const char *path, FileResult *res,
                                char **ret_real) {
  g_autofree char *real = NULL;

  *ret_real = NULL;
  if (!workspace_fenced(ws))
    return true;
  /* Resolved as far as it goes, dangling links followed to where they point: whether a file or
   * a folder exists out there must not change the answer. What exists (most paths read) is
   * named by the kernel at once; resolve_far() would look up each of its folders again. */
  real = resolve_existing(path);
  if (real == NULL)
    real = resolve_far(path);
  if (real == NULL)
    return ws->confine ? deny_outside(res) : true;
  if (!allows_real(ws, real, path, res))
    return false;
  *ret_real = g_steal_pointer(&real);
  return true;
}

/* True when path is absolute and plain: no empty, "." or ".." component, no trailing '/'. Walked
 * without meeting a symlink, such a path is its own real path. */
static bool path_plain(const char *path) {
  if (path[0] != '/')
    return false;
  for (const char *p = path + 1;;) {
    const char *end = strchrnul(p, '/');
    size_t n = (size_t)(end - p);

    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
      return false;
    if (*end == '\0')
      return true;
    p = end + 1;
  }
}

int workspace_open_plain(const char *path, int flags) {
  struct open_how how = {.flags = (uint64_t)flags, .resolve = RESOLVE_NO_SYMLINKS};
  long fd;

  if (!path_plain(path))
    return -EINVAL;
  fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  return fd >= 0 ? (int)fd : -errno;
}

bool workspace_allows_plain(const Workspace *ws, const char *path, FileResult *res) {
  return !workspace_fenced(ws) || allows_real(ws, path, path, res);
}

/* A plain path is its real path: the check of workspace_allows_expanded() on it. */
bool workspace_allows_expanded_plain(const char *path, FileResult *res) {
  if (has_git_component(path + 1))
    return deny(res, "inside a .git folder: an expansion never reads one");
  return true;
}

bool workspace_allows_path(const Workspace *ws, const char *path, FileResult *res) {
  g_autofree char *real = NULL;

  return workspace_allows_path_real(ws, path, res, &real);
}

bool workspace_allows_real(const Workspace *ws, const char *real, const char *name) {
  return !workspace_fenced(ws) || allows_real(ws, real, name, NULL);
}

bool workspace_fenced(const Workspace *ws) {
  return ws != NULL && (ws->confine || ws->name_pats->len > 0 || ws->path_pats->len > 0);
}

bool workspace_allows_checked(const Workspace *ws, int fd, const char *path, const char *checked,
                              FileResult *res) {
  char real[PATH_MAX];

  if (!workspace_fenced(ws))
    return true;
  /* What was actually opened, every symlink resolved. */
  if (!fd_real_path(fd, real, sizeof real)) {
    file_result_fail(res, CODE_ACCESS_DENIED, "the file's real path cannot be checked: %s",
                     g_strerror(errno));
    return false;
  }
  /* The verdict depends on the real path and the name's last component alone. */
  if (checked != NULL && strcmp(real, checked) == 0)
    return true;
  return allows_real(ws, real, path, res);
}

bool workspace_allows(const Workspace *ws, int fd, const char *path, FileResult *res) {
  return workspace_allows_checked(ws, fd, path, NULL, res);
}

bool workspace_allows_expanded(int fd, FileResult *res) {
  char real[PATH_MAX];

  if (!fd_real_path(fd, real, sizeof real)) {
    file_result_fail(res, CODE_ACCESS_DENIED, "the file's real path cannot be checked: %s",
                     g_strerror(errno));
    return false;
  }
  return workspace_allows_expanded_plain(real, res);
}

bool workspace_path_in_git(const char *path) {
  return has_git_component(path[0] == '/' ? path + 1 : path);
}

bool workspace_closed(const Workspace *ws) {
  return ws != NULL && ws->confine && ws->real_roots != NULL && ws->real_roots[0] == NULL;
}

const char *const *workspace_real_roots(const Workspace *ws) {
  return ws != NULL ? (const char *const *)ws->real_roots : NULL;
}

const char *const *workspace_patterns(const Workspace *ws) {
  return ws != NULL ? (const char *const *)ws->patterns : NULL;
}
