/* A folder walk with git's ignore rules.
 *
 * Whether git ignores a path is libgit2's answer (git_ignore_path_is_ignored: .gitignore at
 * every level, .git/info/exclude, core.excludesFile), asked of the repository that holds the
 * folder. libgit2 says yes or no, not which rule: to tell the client what was left out, the
 * walk also reads the same files with ignore-rules.h and names the rule that matched. `.ignore`
 * files (ripgrep's and fd's convention, gitignore syntax) are read with ignore-rules.h alone,
 * and they come first: their `!rule` re-includes what git ignores. Outside a repository git
 * applies no .gitignore, and neither does the walk; .ignore files still count. */
#include "daemon/expand-walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "daemon/expand.h"
#include "daemon/readers/glob.h"
#include "daemon/readers/ignore-rules.h"

/* Bytes of one ignore file read at most: a larger one is read up to here. */
#define IGNORE_FILE_MAX (1024 * 1024)
/* Folders deep below the base are not entered: no real tree goes this deep. */
#define WALK_MAX_DEPTH 128
/* Rules named per ignore file in a message. */
#define TALLY_LINES 3

typedef struct {
  char *rel;        /* the folder relative to the top, "" for the top; owned */
  IgnoreRules *git; /* its .gitignore (in a repository), else NULL */
  IgnoreRules *dot; /* its .ignore, else NULL */
} Frame;

typedef struct {
  Walk *w;
  git_repository *repo; /* NULL outside a repository, or when git's rules are off */
  IgnoreRules *exclude; /* .git/info/exclude, to name its rules */
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

/* The rules of the ignore file at dir/name, or NULL when there is none. */
static IgnoreRules *load_rules(const char *dir, const char *name, const char *label) {
  g_autofree char *path = g_build_filename(dir, name, NULL);
  char buf[4096];
  GString *s;
  ssize_t n;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
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

/* Pushes the frame of the folder rel (relative to the top). */
static void push_frame(WalkState *st, const char *rel) {
  Frame *f = g_new0(Frame, 1);
  g_autofree char *dir = join(st->top, rel);
  g_autofree char *git_label = join(rel, ".gitignore");
  g_autofree char *dot_label = join(rel, ".ignore");

  /* Outside a repository the walk's top is the folder the client named: say it as written. */
  if (st->repo == NULL && st->w->label_prefix != NULL) {
    char *prefixed = g_strconcat(st->w->label_prefix, dot_label, NULL);

    g_free(dot_label);
    dot_label = prefixed;
  }

  f->rel = g_strdup(rel);
  if (st->repo != NULL)
    f->git = load_rules(dir, ".gitignore", git_label);
  f->dot = load_rules(dir, ".ignore", dot_label);
  g_ptr_array_add(st->frames, f);
}

/* Counts one path left out by rule (NULL: a rule the walk cannot name) of the file label. */
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
  if (rule == NULL || t->lines->len >= TALLY_LINES)
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

/* Names the rule git applied to path: the deepest .gitignore first, then info/exclude. */
static void tally_git(WalkState *st, const char *path, bool is_dir) {
  const IgnoreRule *rule;

  for (guint i = st->frames->len; i-- > 0;) {
    const Frame *f = g_ptr_array_index(st->frames, i);

    if (f->git != NULL && (rule = ignore_rules_match(f->git, below(f, path), is_dir)) != NULL) {
      if (!rule->negate) {
        tally(st, f->git->label, rule);
        return;
      }
      break;
    }
  }
  if (st->exclude != NULL && (rule = ignore_rules_match(st->exclude, path, is_dir)) != NULL &&
      !rule->negate) {
    tally(st, st->exclude->label, rule);
    return;
  }
  tally(st, "git's excludes file (core.excludesFile)", NULL);
}

/* True when ignore rules leave out path (relative to the top); tallies it. */
static bool is_ignored(WalkState *st, const char *path, bool is_dir) {
  g_autofree char *git_path = NULL;
  int ignored = 0;

  for (guint i = st->frames->len; i-- > 0;) {
    const Frame *f = g_ptr_array_index(st->frames, i);
    const IgnoreRule *rule;

    if (f->dot == NULL || (rule = ignore_rules_match(f->dot, below(f, path), is_dir)) == NULL)
      continue;
    if (rule->negate)
      return false;
    tally(st, f->dot->label, rule);
    return true;
  }
  if (st->repo == NULL)
    return false;
  /* A trailing '/' tells libgit2 it is a folder, for rules like "build/". */
  git_path = is_dir ? g_strconcat(path, "/", NULL) : g_strdup(path);
  if (git_ignore_path_is_ignored(&ignored, st->repo, git_path) < 0 || !ignored)
    return false;
  tally_git(st, path, is_dir);
  return true;
}

/* What an entry is: 'f' a regular file (a symlink to one too), 'd' a folder (never through a
 * symlink: links to folders are not followed, as git does not), 0 anything else. */
static char entry_kind(int dfd, const struct dirent *de) {
  struct stat sb;

  if (de->d_type == DT_REG)
    return 'f';
  if (de->d_type == DT_DIR)
    return 'd';
  if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
    return 0;
  if (fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
    return 0;
  if (S_ISDIR(sb.st_mode))
    return 'd';
  if (S_ISLNK(sb.st_mode) && fstatat(dfd, de->d_name, &sb, 0) == 0 && S_ISREG(sb.st_mode))
    return 'f';
  return S_ISREG(sb.st_mode) ? 'f' : 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the entries of list_dir by name (each starts with its type byte). */
static int cmp_entries(const void *a, const void *b) {
  return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

/* The entries of the folder, sorted by name so that what a walk says never depends on the
 * order of readdir(), "." ".." and ".git" left out: each is its d_type plus one (never NUL)
 * followed by its name. */
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

static int walk_dir(WalkState *st, const char *rel, int depth);

/* One entry of a folder: left out, added, or walked into. */
static int walk_entry(WalkState *st, int dfd, const struct dirent *de, const char *rel, int depth) {
  Walk *w = st->w;
  g_autofree char *child = join(rel, de->d_name);
  g_autofree char *top_path = join(st->base_rel, child);
  char kind = entry_kind(dfd, de);

  if (kind == 0)
    return 0;
  if (kind == 'f' && w->ws != NULL) {
    g_autofree char *abs = g_strconcat(w->base, "/", child, NULL);

    if (workspace_excludes(w->ws, abs)) {
      w->n_fenced++;
      return 0;
    }
  }
  /* A file the pattern does not take is not counted as ignored either. */
  if (kind == 'f' && w->pattern != NULL && !glob_match(w->pattern, child))
    return 0;
  /* A pattern without `**` reaches only so deep: a folder below is neither entered nor
   * counted as ignored. */
  if (kind == 'd' &&
      (depth + 1 >= WALK_MAX_DEPTH || (st->max_depth >= 0 && depth + 2 > st->max_depth)))
    return 0;
  if (!w->ignored && is_ignored(st, top_path, kind == 'd'))
    return 0;
  if (kind == 'd')
    return walk_dir(st, child, depth + 1);
  g_ptr_array_add(w->files, g_steal_pointer(&child));
  return 0;
}

/* Walks the folder rel (relative to base; "" is base) at depth (0 for base). */
static int walk_dir(WalkState *st, const char *rel, int depth) {
  Walk *w = st->w;
  g_autofree char *path = *rel == '\0' ? g_strdup(w->base) : g_strconcat(w->base, "/", rel, NULL);
  g_autofree char *top_rel = join(st->base_rel, rel);
  g_autoptr(GPtrArray) names = NULL;
  int r = 0, dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
  DIR *d;

  if (dfd < 0)
    return depth == 0 ? -errno : 0;
  d = fdopendir(dfd);
  if (d == NULL) {
    r = -errno;
    close(dfd);
    return depth == 0 ? r : 0;
  }
  push_frame(st, top_rel);
  names = list_dir(d);
  for (guint i = 0; i < names->len && r == 0; i++) {
    const char *entry = g_ptr_array_index(names, i);
    struct dirent de = {.d_type = (unsigned char)(entry[0] - 1)};
    const char *name = entry + 1;

    if (w->cancelled != NULL && atomic_load(w->cancelled)) {
      r = -ECANCELED;
      break;
    }
    if (++st->visits > EXPAND_MAX_VISITS) {
      w->stopped = true;
      break;
    }
    if (strlen(name) >= sizeof de.d_name)
      continue;
    strcpy(de.d_name, name);
    r = walk_entry(st, dfd, &de, rel, depth);
  }
  closedir(d);
  g_ptr_array_remove_index(st->frames, st->frames->len - 1);
  return r;
}

/* Finds the repository that holds base and sets st->repo, st->top and st->base_rel; outside
 * one (or in a bare one), the top is base itself. */
static void open_repo(WalkState *st) {
  Walk *w = st->w;
  git_repository *repo = NULL;
  g_autofree char *top = NULL;
  const char *workdir;
  size_t n;
  int ignored = 0;

  st->top = g_strdup(w->base);
  st->base_rel = g_strdup("");
  if (git_repository_open_ext(&repo, w->base, 0, NULL) < 0)
    return;
  workdir = git_repository_workdir(repo);
  top = workdir != NULL ? realpath(workdir, NULL) : NULL;
  n = top != NULL ? strlen(top) : 0;
  if (top == NULL || strncmp(w->base, top, n) != 0 ||
      (w->base[n] != '/' && w->base[n] != '\0' && strcmp(top, "/") != 0)) {
    git_repository_free(repo);
    return;
  }
  w->in_repo = true;
  g_free(st->base_rel);
  st->base_rel = g_strdup(strcmp(top, "/") == 0 ? w->base + 1 : w->base + n + (w->base[n] == '/'));
  /* A folder git ignores that the client names is read all the same: inside it, git would
   * ignore everything, so its rules are off for this walk (.ignore files still count). */
  if (*st->base_rel != '\0') {
    g_autofree char *dir = g_strconcat(st->base_rel, "/", NULL);

    if (git_ignore_path_is_ignored(&ignored, repo, dir) < 0 || ignored) {
      git_repository_free(repo);
      return;
    }
  }
  g_free(st->top);
  st->top = g_steal_pointer(&top);
  st->repo = repo;
}

/* The frames of the folders from the top down to base's parent, and info/exclude. */
static void load_above(WalkState *st) {
  g_auto(GStrv) parts = g_strsplit(st->base_rel, "/", -1);
  GString *rel = g_string_new(NULL);

  if (st->repo != NULL) {
    g_autofree char *dir = g_build_filename(git_repository_commondir(st->repo), "info", NULL);

    st->exclude = load_rules(dir, "exclude", ".git/info/exclude");
  }
  for (size_t i = 0; *st->base_rel != '\0' && parts[i] != NULL; i++) {
    push_frame(st, rel->str);
    if (i > 0)
      g_string_append_c(rel, '/');
    g_string_append(rel, parts[i]);
  }
  g_string_free(rel, TRUE);
}

static void libgit2_init_once(void) {
  static gsize done = 0;

  if (g_once_init_enter(&done)) {
    git_libgit2_init();
    g_once_init_leave(&done, 1);
  }
}

int walk_run(Walk *w) {
  WalkState st = {.w = w};
  int r;

  libgit2_init_once();
  w->files = g_ptr_array_new_with_free_func(g_free);
  w->tallies = g_ptr_array_new_with_free_func(tally_free);
  st.frames = g_ptr_array_new_with_free_func(frame_free);
  st.by_label = g_hash_table_new(g_str_hash, g_str_equal);
  st.max_depth = w->pattern != NULL ? glob_max_depth(w->pattern) : -1;
  if (w->ignored) {
    st.top = g_strdup(w->base);
    st.base_rel = g_strdup("");
  } else {
    open_repo(&st);
    load_above(&st);
  }
  r = walk_dir(&st, "", 0);
  g_ptr_array_sort(w->files, cmp_names);
  git_repository_free(st.repo);
  ignore_rules_free(st.exclude);
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
