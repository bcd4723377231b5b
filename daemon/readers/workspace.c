#include "daemon/readers/workspace.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The path below the first root that holds real, or NULL when none does. */
static const char *below_root(const Workspace *ws, const char *real) {
  for (size_t i = 0; ws->real_roots != NULL && ws->real_roots[i] != NULL; i++) {
    const char *r = ws->real_roots[i];
    size_t n = strlen(r);

    if (strcmp(r, "/") == 0)
      return real + 1;
    if (strncmp(real, r, n) == 0 && (real[n] == '/' || real[n] == '\0'))
      return real[n] == '/' ? real + n + 1 : real + n;
  }
  return NULL;
}

static bool name_excluded(const Workspace *ws, const char *path) {
  const char *name = strrchr(path, '/');

  name = name != NULL ? name + 1 : path;
  for (guint i = 0; i < ws->name_pats->len; i++)
    if (g_pattern_spec_match_string(g_ptr_array_index(ws->name_pats, i), name))
      return true;
  return false;
}

static bool path_excluded(const Workspace *ws, const char *rel) {
  for (guint i = 0; rel != NULL && i < ws->path_pats->len; i++)
    if (g_pattern_spec_match_string(g_ptr_array_index(ws->path_pats, i), rel))
      return true;
  return false;
}

/* The one answer for everything outside a confined root: the same code and words whatever lies
 * there (a file, a folder, nothing), and no path of the outside in it. */
static bool deny_outside(FileResult *res) {
  file_result_fail(res, CODE_ACCESS_DENIED, "outside the workspace root (confineToRoot)");
  return false;
}

/* The real path of the deepest ancestor of path (path itself first) that resolves, or NULL when
 * none does. Components are stripped from the path as written, so ".." keeps its meaning after
 * a symlink, as the kernel gives it. */
static char *real_ancestor(const char *path) {
  g_autofree char *p = g_strdup(path);

  for (;;) {
    char *real = realpath(p, NULL), *slash;

    if (real != NULL)
      return real;
    slash = strrchr(p, '/');
    if (slash == NULL)
      return realpath(".", NULL);
    if (slash == p)
      return realpath("/", NULL);
    *slash = '\0';
  }
}

bool workspace_allows_path(const Workspace *ws, const char *path, FileResult *res) {
  g_autofree char *real = NULL;

  if (ws == NULL || !ws->confine)
    return true;
  /* A path that does not resolve is judged by its deepest ancestor that does: whether a file or
   * a folder exists out there must not change the answer. */
  real = real_ancestor(path);
  if (real == NULL || below_root(ws, real) == NULL)
    return deny_outside(res);
  return true;
}

bool workspace_excludes(const Workspace *ws, const char *path) {
  if (ws == NULL || (ws->name_pats->len == 0 && ws->path_pats->len == 0))
    return false;
  return name_excluded(ws, path) ||
         (ws->real_roots != NULL && path_excluded(ws, below_root(ws, path)));
}

bool workspace_fenced(const Workspace *ws) {
  return ws != NULL && (ws->confine || ws->name_pats->len > 0 || ws->path_pats->len > 0);
}

bool workspace_allows(const Workspace *ws, int fd, const char *path, FileResult *res) {
  char link[64], real[PATH_MAX];
  const char *rel = NULL;
  ssize_t n;

  if (ws == NULL || (!ws->confine && ws->name_pats->len == 0 && ws->path_pats->len == 0))
    return true;
  /* What was actually opened, every symlink resolved. */
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  n = readlink(link, real, sizeof(real) - 1);
  if (n < 0) {
    file_result_fail(res, CODE_ACCESS_DENIED, "the file's real path cannot be checked: %s",
                     g_strerror(errno));
    return false;
  }
  real[n] = '\0';
  if (ws->real_roots != NULL)
    rel = below_root(ws, real);
  if (ws->confine && rel == NULL)
    return deny_outside(res);
  /* Both names count: a link named notes.txt to .env is .env. */
  if (name_excluded(ws, path) || name_excluded(ws, real) || path_excluded(ws, rel)) {
    file_result_fail(res, CODE_ACCESS_DENIED, "excluded by the workspace's exclude patterns");
    return false;
  }
  return true;
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
