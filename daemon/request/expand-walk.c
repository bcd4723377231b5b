/* A folder walk with git's ignore rules.
 *
 * libgit2 finds the repository that holds the folder (its work tree, its .git folder, its
 * core.excludesFile); the rules themselves are read and matched here, with ignore-rules.h,
 * whose matcher takes time in proportion to the pattern times the name whatever the pattern
 * (libgit2's own backtracks without bound on a rule such as `*a*a*a*a*a*a*a*a*a*a*a*b`). As
 * git does, the .gitignore of the deepest folder that has a rule for a path decides, then
 * .git/info/exclude, then core.excludesFile; within one file the last rule that matches. The
 * walk names the rule that left each path out. `.ignore` files (ripgrep's and fd's
 * convention, gitignore syntax) come first: their `!rule` re-includes what git ignores.
 * Outside a repository git applies no .gitignore, and neither does the walk; .ignore files
 * still count. */
#include "daemon/request/expand-walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/request/expand.h"
#include "daemon/request/git-dl.h"
#include "daemon/readers/glob.h"
#include "daemon/readers/ignore-rules.h"

/* Bytes of one ignore file read at most: a larger one is read up to here. */
#define IGNORE_FILE_MAX (1024 * 1024)
/* How a message names an ignore file the fence refuses (above a confined root, inside .git,
 * excluded): its rules apply as git's do, but neither its name nor its lines are told. */
#define OUTSIDE_LABEL "ignore rules outside the workspace"
/* Rules named per ignore file in a message. */
#define TALLY_LINES 3

typedef struct {
  char *rel;        /* the folder relative to the top, "" for the top; owned */
  IgnoreRules *git; /* its .gitignore (in a repository), else NULL */
  IgnoreRules *dot; /* its .ignore, else NULL */
} Frame;

typedef struct {
  Walk *w;
  bool git;             /* in a repository whose ignore rules apply */
  IgnoreRules *exclude; /* .git/info/exclude */
  IgnoreRules *global;  /* core.excludesFile */
  char *top;            /* the repository's work tree (real path), else base */
  char *base_rel;       /* base relative to top, "" when it is the top */
  GPtrArray *frames;    /* Frame *, top first */
  GHashTable *by_label; /* label -> WalkTally * (in w->tallies) */
  int max_depth;        /* of the pattern, -1: any */
  size_t visits;
} WalkState;

static void frame_free(void *p) {
  Frame *f = p;

  g_free(f->rel);
  ignore_rules_free(f->git);
  ignore_rules_free(f->dot);
  g_free(f);
}

static void tally_free(void *p) {
  WalkTally *t = p;

  g_free(t->label);
  g_ptr_array_unref(t->lines);
  g_free(t);
}

static char *join(const char *a, const char *b) {
  if (*a == '\0')
    return g_strdup(b);
  if (*b == '\0')
    return g_strdup(a);
  return g_strconcat(a, "/", b, NULL);
}

/* The rules of the ignore file `name` in the folder open at dfd (AT_FDCWD: name is a path), or
 * NULL when there is none. A symlink is not followed, as git does not follow a .gitignore that
 * is one: its rules could come from anywhere. */
static IgnoreRules *load_rules(int dfd, const char *name, const char *label) {
  char buf[4096];
  GString *s;
  ssize_t n;
  int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
  struct stat st;
  IgnoreRules *r;

  if (fd < 0)
    return NULL;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return NULL;
  }
  s = g_string_new(NULL);
  while (s->len < IGNORE_FILE_MAX && (n = read(fd, buf, sizeof buf)) > 0)
    g_string_append_len(s, buf, n);
  close(fd);
  r = ignore_rules_parse(label, s->str, MIN(s->len, (size_t)IGNORE_FILE_MAX));
  g_string_free(s, TRUE);
  return r;
}

/* True when the file or folder at path (absolute) lies inside the walk's fence. */
static bool inside_fence(const WalkState *st, const char *path) {
  char *real;
  bool in;

  if (!workspace_fenced(st->w->ws))
    return true;
  real = realpath(path, NULL);
  in = real != NULL && workspace_allows_real(st->w->ws, real, path);
  free(real);
  return in;
}

/* Pushes the frame of the folder rel (relative to the top), open at dfd, or at AT_FDCWD for a
 * folder above base (then its path is used). */
static void push_frame(WalkState *st, int dfd, const char *rel) {
  Frame *f = g_new0(Frame, 1);
  g_autofree char *dir = join(st->top, rel);
  g_autofree char *git_label = join(rel, ".gitignore");
  g_autofree char *dot_label = join(rel, ".ignore");
  g_autofree char *git_name =
      dfd == AT_FDCWD ? g_build_filename(dir, ".gitignore", NULL) : g_strdup(".gitignore");
  g_autofree char *dot_name =
      dfd == AT_FDCWD ? g_build_filename(dir, ".ignore", NULL) : g_strdup(".ignore");

  /* Outside a repository the walk's top is the folder the client named: say it as written. */
  if (!st->git && st->w->label_prefix != NULL) {
    char *prefixed = g_strconcat(st->w->label_prefix, dot_label, NULL);

    g_free(dot_label);
    dot_label = prefixed;
  }

  /* A folder above base may lie outside the fence: its files' rules count, unnamed. */
  if (dfd == AT_FDCWD && !inside_fence(st, dir)) {
    g_free(git_label);
    g_free(dot_label);
    git_label = g_strdup(OUTSIDE_LABEL);
    dot_label = g_strdup(OUTSIDE_LABEL);
  }
  f->rel = g_strdup(rel);
  if (st->git)
    f->git = load_rules(dfd, git_name, git_label);
  f->dot = load_rules(dfd, dot_name, dot_label);
  g_ptr_array_add(st->frames, f);
}

/* Counts one path left out by rule of the file label. */
static void tally(WalkState *st, const char *label, const IgnoreRule *rule) {
  WalkTally *t = g_hash_table_lookup(st->by_label, label);

  if (t == NULL) {
    t = g_new0(WalkTally, 1);
    t->label = g_strdup(label);
    t->lines = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(st->w->tallies, t);
    g_hash_table_insert(st->by_label, t->label, t);
  }
  t->count++;
  st->w->n_ignored++;
  if (t->lines->len >= TALLY_LINES || strcmp(label, OUTSIDE_LABEL) == 0)
    return;
  for (guint i = 0; i < t->lines->len; i++)
    if (strcmp(g_ptr_array_index(t->lines, i), rule->line) == 0)
      return;
  g_ptr_array_add(t->lines, g_strdup(rule->line));
}

/* path (relative to the top) as seen from frame f's folder. */
static const char *below(const Frame *f, const char *path) {
  return *f->rel == '\0' ? path : path + strlen(f->rel) + 1;
}

/* The rule that decides path (relative to the top), a folder when is_dir, among the first
 * n_frames frames (the folders above it): the .ignore files when dot, else git's rules. NULL
 * when no rule matches; *ret_rules gets the file of the rule. */
static const IgnoreRule *decide(const WalkState *st, const char *path, bool is_dir, bool dot,
                                guint n_frames, const IgnoreRules **ret_rules) {
  const IgnoreRules *files[] = {st->exclude, st->global};
  const IgnoreRule *rule;

  /* The deepest folder with a rule for the path decides. */
  for (guint i = n_frames; i-- > 0;) {
    const Frame *f = g_ptr_array_index(st->frames, i);
    const IgnoreRules *r = dot ? f->dot : f->git;

    if (r != NULL && (rule = ignore_rules_match(r, below(f, path), is_dir)) != NULL) {
      *ret_rules = r;
      return rule;
    }
  }
  for (size_t i = 0; !dot && i < G_N_ELEMENTS(files); i++)
    if (files[i] != NULL && (rule = ignore_rules_match(files[i], path, is_dir)) != NULL) {
      *ret_rules = files[i];
      return rule;
    }
  return NULL;
}

/* True when ignore rules leave out path (relative to the top); tallies it. */
static bool is_ignored(WalkState *st, const char *path, bool is_dir) {
  const IgnoreRules *r = NULL;
  const IgnoreRule *rule = decide(st, path, is_dir, true, st->frames->len, &r);

  /* .ignore first: its `!rule` re-includes what git ignores. */
  if (rule == NULL && st->git)
    rule = decide(st, path, is_dir, false, st->frames->len, &r);
  if (rule == NULL || rule->negate)
    return false;
  tally(st, r->label, rule);
  return true;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the entries of list_dir by name (each starts with its type byte). */
static int cmp_entries(const void *a, const void *b) {
  return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

/* The entries of the folder, sorted by name so that what a walk says never depends on the
 * order of readdir(), "." ".." and ".git" (a folder or a file) left out: each is its d_type
 * plus one (never NUL) followed by its name. */
static GPtrArray *list_dir(DIR *d) {
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  struct dirent *de;

  while ((de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
        strcmp(de->d_name, ".git") == 0)
      continue;
    g_ptr_array_add(names, g_strdup_printf("%c%s", (char)(de->d_type + 1), de->d_name));
  }
  g_ptr_array_sort(names, cmp_entries);
  return names;
}

/* A symlink found in the folder open at dfd: 'f' when it leads to a regular file the fence
 * allows, else 0 (links to folders are not followed, as git does not). The link's target is
 * resolved through the descriptor and judged by the fence before anything of it is looked
 * at: a link to a file outside a confined root, to an excluded file or into a .git folder
 * is left out without a trace. */
static char link_kind(const WalkState *st, int dfd, const char *name) {
  g_autofree char *via = g_strdup_printf("/proc/self/fd/%d/%s", dfd, name);
  g_autofree char *real = realpath(via, NULL);
  struct stat sb;

  if (real == NULL || workspace_path_in_git(real) || !workspace_allows_real(st->w->ws, real, name))
    return 0;
  return stat(real, &sb) == 0 && S_ISREG(sb.st_mode) ? 'f' : 0;
}

/* What an entry of the folder open at dfd (whose real path is dir) is: 'f' a regular file
 * (a symlink to one too) the fence allows, 'd' a folder (never through a symlink), 0 anything
 * else. */
static char entry_kind(const WalkState *st, int dfd, const char *dir, const char *name,
                       unsigned char type) {
  struct stat sb;

  if (type == DT_UNKNOWN) {
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
      return 0;
    type = S_ISDIR(sb.st_mode)   ? DT_DIR
           : S_ISREG(sb.st_mode) ? DT_REG
           : S_ISLNK(sb.st_mode) ? DT_LNK
                                 : 0;
  }
  if (type == DT_DIR)
    return 'd';
  if (type == DT_LNK)
    return link_kind(st, dfd, name);
  if (type != DT_REG)
    return 0;
  {
    g_autofree char *real = g_strconcat(dir, "/", name, NULL);

    /* The folder is held open and was entered without following a link: dir/name is the
     * file's real path. */
    return workspace_allows_real(st->w->ws, real, name) ? 'f' : 0;
  }
}

static int walk_dir(WalkState *st, int dfd, const char *rel, int depth);

/* One entry of the folder open at dfd, rel below base: left out, added, or walked into. */
static int walk_entry(WalkState *st, int dfd, const char *rel, const char *name, unsigned char type,
                      int depth) {
  Walk *w = st->w;
  g_autofree char *child = join(rel, name);
  g_autofree char *top_path = join(st->base_rel, child);
  g_autofree char *dir = *rel == '\0' ? g_strdup(w->base) : g_strconcat(w->base, "/", rel, NULL);
  char kind = entry_kind(st, dfd, dir, name, type);
  int r, sub;

  if (kind == 0)
    return 0;
  /* A file the pattern does not take is not counted as ignored either. */
  if (kind == 'f' && w->pattern != NULL && !glob_match(w->pattern, child))
    return 0;
  /* A pattern without `**` reaches only so deep: a folder below is neither entered nor
   * counted as ignored. */
  if (kind == 'd' && st->max_depth >= 0 && depth + 2 > st->max_depth)
    return 0;
  if (!w->ignored && is_ignored(st, top_path, kind == 'd'))
    return 0;
  if (kind == 'f') {
    g_ptr_array_add(w->files, g_steal_pointer(&child));
    return 0;
  }
  if (depth + 1 >= WALK_MAX_DEPTH) {
    w->n_deep++;
    return 0;
  }
  /* Relative to the folder held open, never through a link: a folder swapped for a symlink
   * since it was listed is not entered. */
  sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  if (sub < 0)
    return 0;
  r = walk_dir(st, sub, child, depth + 1);
  return r;
}

/* Walks the folder open at dfd (taken: closed here), rel below base ("" is base), at depth (0
 * for base). */
static int walk_dir(WalkState *st, int dfd, const char *rel, int depth) {
  Walk *w = st->w;
  g_autofree char *top_rel = join(st->base_rel, rel);
  g_autoptr(GPtrArray) names = NULL;
  int r = 0;
  DIR *d = fdopendir(dfd);

  if (d == NULL) {
    r = -errno;
    close(dfd);
    return depth == 0 ? r : 0;
  }
  push_frame(st, dirfd(d), top_rel);
  names = list_dir(d);
  for (guint i = 0; i < names->len && r == 0; i++) {
    const char *entry = g_ptr_array_index(names, i);

    if (w->cancelled != NULL && atomic_load(w->cancelled)) {
      r = -ECANCELED;
      break;
    }
    if (++st->visits > EXPAND_MAX_VISITS) {
      w->stopped = true;
      break;
    }
    r = walk_entry(st, dirfd(d), rel, entry + 1, (unsigned char)(entry[0] - 1), depth);
  }
  closedir(d);
  g_ptr_array_remove_index(st->frames, st->frames->len - 1);
  return r;
}

/* The excludes file of git's configuration (core.excludesFile, else git's default
 * $XDG_CONFIG_HOME/git/ignore), or NULL. g_free. */
static char *global_excludes_path(const GitDl *git, git_repository *repo) {
  git_config *cfg = NULL;
  git_buf buf = {0};
  char *path = NULL;
  const char *xdg = g_getenv("XDG_CONFIG_HOME");

  if (git->repository_config_snapshot(&cfg, repo) == 0 &&
      git->config_get_path(&buf, cfg, "core.excludesfile") == 0 && buf.ptr != NULL)
    path = g_strdup(buf.ptr);
  git->buf_dispose(&buf);
  git->config_free(cfg);
  if (path != NULL)
    return path;
  if (xdg != NULL && *xdg != '\0')
    return g_build_filename(xdg, "git", "ignore", NULL);
  return g_getenv("HOME") != NULL
             ? g_build_filename(g_getenv("HOME"), ".config", "git", "ignore", NULL)
             : NULL;
}

/* Finds the repository that holds base: sets st->git, st->top and st->base_rel, and reads
 * info/exclude and core.excludesFile. Outside one (or in a bare one), the top is base. */
static void open_repo(WalkState *st, const GitDl *git) {
  Walk *w = st->w;
  git_repository *repo = NULL;
  g_autofree char *top = NULL;
  const char *workdir;
  size_t n;

  st->top = g_strdup(w->base);
  st->base_rel = g_strdup("");
  if (git->repository_open_ext(&repo, w->base, 0, NULL) < 0)
    return;
  workdir = git->repository_workdir(repo);
  top = workdir != NULL ? realpath(workdir, NULL) : NULL;
  n = top != NULL ? strlen(top) : 0;
  if (top == NULL || strncmp(w->base, top, n) != 0 ||
      (w->base[n] != '/' && w->base[n] != '\0' && strcmp(top, "/") != 0)) {
    git->repository_free(repo);
    return;
  }
  w->in_repo = true;
  st->git = true;
  g_free(st->base_rel);
  st->base_rel = g_strdup(strcmp(top, "/") == 0 ? w->base + 1 : w->base + n + (w->base[n] == '/'));
  g_free(st->top);
  st->top = g_steal_pointer(&top);
  {
    g_autofree char *exclude =
        g_build_filename(git->repository_commondir(repo), "info", "exclude", NULL);
    g_autofree char *global = global_excludes_path(git, repo);

    st->exclude = load_rules(AT_FDCWD, exclude,
                             inside_fence(st, exclude) ? ".git/info/exclude" : OUTSIDE_LABEL);
    if (global != NULL)
      st->global = load_rules(AT_FDCWD, global,
                              inside_fence(st, global) ? "git's excludes file (core.excludesFile)"
                                                       : OUTSIDE_LABEL);
  }
  git->repository_free(repo);
}

/* True when git ignores base or a folder above it below the top. */
static bool base_ignored(const WalkState *st) {
  g_auto(GStrv) parts = g_strsplit(st->base_rel, "/", -1);
  GString *rel = g_string_new(NULL);
  bool ignored = false;

  for (guint i = 0; *st->base_rel != '\0' && parts[i] != NULL && !ignored; i++) {
    const IgnoreRules *r;
    const IgnoreRule *rule;

    if (i > 0)
      g_string_append_c(rel, '/');
    g_string_append(rel, parts[i]);
    /* The frames of the folders above this one: the top's, and one per part before it. */
    rule = decide(st, rel->str, true, false, MIN(i + 1, st->frames->len), &r);
    ignored = rule != NULL && !rule->negate;
  }
  g_string_free(rel, TRUE);
  return ignored;
}

/* The frames of the folders from the top down to base's parent. */
static void load_above(WalkState *st) {
  g_auto(GStrv) parts = g_strsplit(st->base_rel, "/", -1);
  GString *rel = g_string_new(NULL);

  for (size_t i = 0; *st->base_rel != '\0' && parts[i] != NULL; i++) {
    push_frame(st, AT_FDCWD, rel->str);
    if (i > 0)
      g_string_append_c(rel, '/');
    g_string_append(rel, parts[i]);
  }
  g_string_free(rel, TRUE);
}

/* Git's rules off: the walk's top is base, .ignore files alone count. */
static void git_off(WalkState *st) {
  st->git = false;
  g_clear_pointer(&st->exclude, ignore_rules_free);
  g_clear_pointer(&st->global, ignore_rules_free);
  g_ptr_array_set_size(st->frames, 0);
  g_free(st->top);
  g_free(st->base_rel);
  st->top = g_strdup(st->w->base);
  st->base_rel = g_strdup("");
}

/* Opens base, which must still be the folder it was resolved to: a folder swapped for a link
 * since then is not walked. Returns the descriptor or a negative errno. */
static int open_base(const char *base) {
  char link[64], real[PATH_MAX];
  int fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
  ssize_t n;

  if (fd < 0)
    return -errno;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink(link, real, sizeof real - 1);
  if (n < 0 || (size_t)n != strlen(base) || memcmp(real, base, (size_t)n) != 0) {
    close(fd);
    return -ESTALE;
  }
  return fd;
}

int walk_run(Walk *w) {
  WalkState st = {.w = w};
  const GitDl *git = NULL;
  int r, fd;

  w->files = g_ptr_array_new_with_free_func(g_free);
  w->tallies = g_ptr_array_new_with_free_func(tally_free);
  st.frames = g_ptr_array_new_with_free_func(frame_free);
  st.by_label = g_hash_table_new(g_str_hash, g_str_equal);
  st.max_depth = w->pattern != NULL ? glob_max_depth(w->pattern) : -1;
  /* Without libgit2 the walk cannot tell which rules git applies: it stops, rather than take
   * files git ignores (a build tree, secrets in .env) for the ones it does not. */
  if (!w->ignored && git_dl_open(&git) < 0) {
    r = -ELIBACC;
    goto out;
  }
  if (w->ignored) {
    st.top = g_strdup(w->base);
    st.base_rel = g_strdup("");
  } else {
    open_repo(&st, git);
    load_above(&st);
    /* A folder git ignores that the client names is read all the same: inside it, git would
     * ignore everything, so its rules are off for this walk (.ignore files still count). */
    if (st.git && base_ignored(&st))
      git_off(&st);
  }
  fd = open_base(w->base);
  r = fd < 0 ? fd : walk_dir(&st, fd, "", 0);
  g_ptr_array_sort(w->files, cmp_names);

out:
  ignore_rules_free(st.exclude);
  ignore_rules_free(st.global);
  g_ptr_array_unref(st.frames);
  g_hash_table_destroy(st.by_label);
  g_free(st.top);
  g_free(st.base_rel);
  return r;
}

void walk_clear(Walk *w) {
  g_clear_pointer(&w->files, g_ptr_array_unref);
  g_clear_pointer(&w->tallies, g_ptr_array_unref);
}
