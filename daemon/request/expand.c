/* Folders and globs in paths[] into the files under them; see expand.h. */
#include "daemon/request/expand.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/request/expand-probe.h"
#include "daemon/request/expand-walk.h"
#include "daemon/request/git-dl.h"
#include "daemon/readers/detect.h"
#include "daemon/readers/glob.h"

/* What one path of the request is to the expansion. */
typedef struct {
  char *shown;   /* what expanded paths start with: "src/", "" for the working folder; owned */
  char *base;    /* the folder walked, as resolved (absolute or relative to the process) */
  char *pattern; /* the glob below base, NULL for a folder; owned */
} Target;

static void target_clear(Target *t) {
  g_free(t->shown);
  g_free(t->base);
  g_free(t->pattern);
}

bool expand_wanted(const ReadParams *p) {
  return p->expand.on;
}

/* What `shown` an expansion of the folder written as path gets: the path as written with one
 * '/', and nothing for the working folder itself. */
static char *shown_prefix(const char *path) {
  size_t n = strlen(path);

  while (n > 1 && path[n - 1] == '/')
    n--;
  if ((n == 1 && path[0] == '.') || n == 0)
    return g_strdup("");
  if (n == 1 && path[0] == '/')
    return g_strdup("/");
  return g_strdup_printf("%.*s/", (int)n, path);
}

/* Decides whether spec->path expands: a folder, or a glob that names no file. Returns true
 * with *ret filled when it does. */
static bool target_of(const ReadParams *p, const Workspace *ws, const PathProbe *probe,
                      const char *path, Target *ret) {
  const char *slash, *magic;

  memset(ret, 0, sizeof *ret);
  if (probe->rc == 0) {
    if (!S_ISDIR(probe->st.st_mode))
      return false;
    ret->shown = shown_prefix(path);
    ret->base = expand_resolve(p, ws, path);
    return true;
  }
  if (!glob_has_magic(path))
    return false;
  /* The folder part is every segment before the first with a glob character. */
  magic = strpbrk(path, "*?[");
  for (slash = magic; slash > path && slash[-1] != '/'; slash--)
    ;
  ret->pattern = g_strdup(slash);
  if (slash == path) {
    ret->shown = g_strdup("");
    ret->base = expand_resolve(p, ws, ".");
  } else {
    g_autofree char *dir = g_strndup(path, (size_t)(slash - path));

    ret->shown = shown_prefix(dir);
    ret->base = expand_resolve(p, ws, dir);
  }
  return true;
}

static void spec_copy(const PathSpec *from, const char *path, PathSpec *ret) {
  *ret = (PathSpec){
      .path = g_strdup(path),
      .offset = from->offset,
      .limit = from->limit,
      .pages = g_strdup(from->pages),
      .render = from->render,
      .password = g_strdup(from->password),
      .encoding = from->encoding,
  };
}

/* Appends an entry; returns its item. */
static ExpandItem *push(GArray *specs, GArray *items, const PathSpec *from, const char *path) {
  PathSpec spec;
  ExpandItem item = {0};

  spec_copy(from, path, &spec);
  g_array_append_val(specs, spec);
  g_array_append_val(items, item);
  return &g_array_index(items, ExpandItem, items->len - 1);
}

/* A new answer for a path that is not read. */
static FileResult *answer_new(const char *path) {
  FileResult *f = g_new0(FileResult, 1);

  f->path = g_strdup(path);
  f->bytes = -1;
  f->modified_ms = RESULT_TIME_UNKNOWN;
  return f;
}

/* True when the file's head says binary as the text reader would refuse it: a NUL byte
 * without a UTF-16 or UTF-32 byte-order mark, in a file that is not a picture or a PDF (those
 * the reader reads). The file passes the fence on its descriptor before anything of it is
 * read: one refused (swapped since the walk) gets the refusal in f, and true. Fills bytes and
 * modified in f from the descriptor. */
static bool is_binary(const Workspace *ws, const char *path, const char *shown, FileResult *f) {
  uint8_t head[EXPAND_HEAD_BYTES];
  struct stat st;
  ssize_t n;
  bool binary = false;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  if (fd < 0)
    return false;
  if (!workspace_allows(ws, fd, shown, f) || !workspace_allows_expanded(fd, f)) {
    close(fd);
    return true;
  }
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (n = read(fd, head, sizeof head)) > 0) {
    bool bom =
        n >= 2 && ((head[0] == 0xFF && head[1] == 0xFE) || (head[0] == 0xFE && head[1] == 0xFF));

    bom = bom || (n >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 0xFE && head[3] == 0xFF);
    binary = !bom && detect_magic(head, (size_t)n) == DETECT_UNKNOWN &&
             memchr(head, '\0', (size_t)n) != NULL;
    if (binary) {
      f->bytes = (int64_t)st.st_size;
      f->modified_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
      f->omitted = OMITTED_BINARY;
    }
  }
  close(fd);
  return binary;
}

/* The most common extension among files (".c"), or NULL when none has one. */
static const char *common_extension(GPtrArray *files) {
  g_autoptr(GHashTable) counts = g_hash_table_new(g_str_hash, g_str_equal);
  const char *best = NULL;
  guint best_n = 0;

  for (guint i = 0; i < files->len; i++) {
    const char *name = g_ptr_array_index(files, i), *dot;
    guint n;

    name = strrchr(name, '/') != NULL ? strrchr(name, '/') + 1 : name;
    dot = strrchr(name, '.');
    if (dot == NULL || dot == name)
      continue;
    n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, dot)) + 1;
    g_hash_table_insert(counts, (char *)dot, GUINT_TO_POINTER(n));
    if (n > best_n) {
      best_n = n;
      best = dot;
    }
  }
  return best;
}

/* What ignore rules and the fence left out, as words: "" when nothing was. */
static void describe_left_out(GString *s, const Walk *w) {
  if (w->n_ignored > 0) {
    g_string_append_printf(s, "%zu %s left out by ignore rules (", w->n_ignored,
                           w->n_ignored == 1 ? "path" : "paths");
    for (guint i = 0; i < w->tallies->len; i++) {
      const WalkTally *t = g_ptr_array_index(w->tallies, i);

      g_string_append_printf(s, "%s%s: %zu", i > 0 ? "; " : "", t->label, t->count);
      for (guint k = 0; k < t->lines->len; k++)
        g_string_append_printf(s, "%s%s", k == 0 ? " by " : ", ",
                               (const char *)g_ptr_array_index(t->lines, k));
    }
    g_string_append(s, "); expand.ignored: true reads them");
  }
  if (w->n_deep > 0)
    g_string_append_printf(s, "%s%zu %s deeper than %d levels not entered: name a folder below",
                           s->len > 0 ? "; " : "", w->n_deep, w->n_deep == 1 ? "folder" : "folders",
                           WALK_MAX_DEPTH);
  if (w->stopped)
    g_string_append_printf(s, "%sthe walk stopped after %d entries: name a smaller folder",
                           s->len > 0 ? "; " : "", EXPAND_MAX_VISITS);
}

/* The answer for a pattern that gave no file. */
static void answer_nothing(ExpandItem *item, const char *path, const Target *t, const Walk *w,
                           int r) {
  g_autoptr(GString) why = g_string_new(NULL);
  g_autoptr(GString) left = g_string_new(NULL);

  item->answer = answer_new(path);
  if (r == -ELIBACC) {
    file_result_fail(item->answer, CODE_READ_ERROR,
                     "%s; the %s is not expanded without git's ignore rules (expand.ignored: true "
                     "expands it without them)",
                     git_dl_error(), t->pattern != NULL ? "pattern" : "folder");
    return;
  }
  if (r < 0 && t->pattern != NULL)
    g_string_printf(why, "no file matches the pattern: %s is not a folder that can be read (%s)",
                    *t->shown != '\0' ? t->shown : "the working folder", g_strerror(-r));
  else if (r < 0)
    g_string_printf(why, "the folder cannot be read: %s", g_strerror(-r));
  else if (t->pattern != NULL)
    g_string_assign(why, "no file matches the pattern");
  else
    g_string_assign(why, "the folder holds no file to read");
  describe_left_out(left, w);
  if (left->len > 0)
    g_string_append_printf(why, ": %s", left->str);
  file_result_fail(item->answer, r == -EACCES ? CODE_ACCESS_DENIED : CODE_FILE_NOT_FOUND, "%s",
                   why->str);
}

/* The notices after the last file of an expansion. */
static void add_notices(ExpandItem *last, const char *path, size_t from, const Walk *w,
                        size_t shown, int64_t max_files, const char *shown_prefix, bool glob) {
  g_autoptr(GString) s = g_string_new(NULL);
  FileResult tmp = {0};

  if (shown < w->files->len) {
    const char *ext = common_extension(w->files);

    g_string_printf(s, "%zu of %u files shown: %u more left out past maxFiles (%" PRId64 "); ",
                    shown, w->files->len, w->files->len - (guint)shown, max_files);
    if (glob)
      g_string_append(s, "narrow the pattern (a subfolder, or a more precise glob)");
    else
      g_string_append_printf(s, "narrow it (a subfolder, or a glob such as \"%s**/*%s\")",
                             shown_prefix, ext != NULL ? ext : "");
    g_string_append(s, " or raise expand.maxFiles");
    if (max_files > (int64_t)shown)
      g_string_append_printf(s, " (the request holds at most %d paths)", READ_MAX_PATHS);
    file_result_add_notice(&tmp, path, from, s->str);
    g_string_truncate(s, 0);
  }
  describe_left_out(s, w);
  if (s->len > 0)
    file_result_add_notice(&tmp, path, from, s->str);
  last->notices = g_steal_pointer(&tmp.notices);
  last->n_notices = tmp.n_notices;
}

/* Expands paths[i] into the entries of its files. */
static int expand_one(const ReadParams *p, const Workspace *ws, const atomic_bool *cancelled,
                      const PathProbe *probe, size_t i, size_t room, GArray *specs,
                      GArray *items) {
  const PathSpec *spec = &p->paths[i];
  g_autofree char *base_real = NULL;
  FileResult fence = {0};
  Target t;
  Walk w = {0};
  size_t shown;
  int r;

  if (!target_of(p, ws, probe, spec->path, &t)) {
    ExpandItem *item = push(specs, items, spec, spec->path);

    item->from = i;
    item->probed = probe->probed;
    item->probe = probe->st;
    return 0;
  }
  /* A folder outside a confined workspace is refused as the reader refuses a file there. */
  if (!workspace_allows_path(ws, t.base, &fence)) {
    ExpandItem *item = push(specs, items, spec, spec->path);

    item->answer = answer_new(spec->path);
    file_result_fail(item->answer, fence.code, "%s", fence.error);
    file_result_clear(&fence);
    target_clear(&t);
    return 0;
  }
  base_real = realpath(t.base, NULL);
  /* Nor is a .git folder expanded, whatever the fence: it holds a repository's configuration
   * and hooks, not its files. */
  if (base_real != NULL && workspace_path_in_git(base_real)) {
    ExpandItem *item = push(specs, items, spec, spec->path);

    item->answer = answer_new(spec->path);
    file_result_fail(item->answer, CODE_ACCESS_DENIED,
                     "inside a .git folder: an expansion never reads one");
    target_clear(&t);
    return 0;
  }
  w.base = base_real != NULL ? base_real : t.base;
  w.pattern = t.pattern;
  w.ignored = p->expand.ignored;
  w.ws = ws;
  w.cancelled = cancelled;
  w.label_prefix = t.shown;
  r = base_real != NULL ? walk_run(&w) : -errno;
  if (r == -ECANCELED)
    goto out;
  shown = MIN(w.files != NULL ? w.files->len : 0, MIN((size_t)p->expand.max_files, room));
  if (shown == 0) {
    if (w.files == NULL) {
      w.files = g_ptr_array_new();
      w.tallies = g_ptr_array_new();
    }
    answer_nothing(push(specs, items, spec, spec->path), spec->path, &t, &w, r);
    r = 0;
    goto out;
  }
  for (size_t k = 0; k < shown; k++) {
    const char *rel = g_ptr_array_index(w.files, k);
    g_autofree char *path = g_strconcat(t.shown, rel, NULL);
    ExpandItem *item = push(specs, items, spec, path);

    item->expanded = true;
    item->from = i;
    if (cancelled != NULL && atomic_load(cancelled)) {
      r = -ECANCELED;
      goto out;
    }
    if (!p->expand.binary) {
      g_autofree char *full = g_strconcat(w.base, "/", rel, NULL);
      FileResult *f = answer_new(path);

      if (is_binary(ws, full, path, f)) {
        item->answer = f;
      } else {
        file_result_clear(f);
        g_free(f);
      }
    }
  }
  add_notices(&g_array_index(items, ExpandItem, items->len - 1), spec->path, i, &w, shown,
              p->expand.max_files, t.shown, t.pattern != NULL);
  r = 0;

out:
  walk_clear(&w);
  target_clear(&t);
  return r;
}

/* True when no path from first on expands: none is a folder, and none that names nothing is a
 * glob. */
static bool expansion_is_identity(const ReadParams *p, size_t first, const PathProbe *probe) {
  for (size_t i = first; i < p->n_paths; i++)
    if (probe[i].rc == 0 ? S_ISDIR(probe[i].st.st_mode) : glob_has_magic(p->paths[i].path))
      return false;
  return true;
}

/* The expansion of paths none of which expands: p's own paths from first on stay (paths NULL,
 * see expansion_take_paths), an item each with its probe. */
static void expansion_identity(const ReadParams *p, size_t first, const PathProbe *probe,
                               Expansion *ret) {
  ret->paths = NULL;
  ret->n_paths = p->n_paths - first;
  ret->items = g_new0(ExpandItem, MAX(ret->n_paths, 1));
  for (size_t i = first; i < p->n_paths; i++) {
    ret->items[i - first].from = i;
    ret->items[i - first].probed = probe[i].probed;
    ret->items[i - first].probe = probe[i].st;
  }
}

int expand_paths(const ReadParams *p, size_t first, size_t before, const Workspace *ws,
                 const atomic_bool *cancelled, ExpandProbes *probes, Expansion *ret) {
  ExpandProbes *own;
  const PathProbe *probe;
  GArray *specs, *items;
  int r = 0;

  first = MIN(first, p->n_paths);
  before = MIN(before, READ_MAX_PATHS - (p->n_paths - first));
  own = probes == NULL ? expand_probes_new(p, first, ws, cancelled) : NULL;
  probe = expand_probes_wait(probes != NULL ? probes : own);
  ret->first = first;
  if (cancelled != NULL && atomic_load(cancelled)) {
    expand_probes_unref(own);
    return -ECANCELED;
  }
  if (expansion_is_identity(p, first, probe)) {
    expansion_identity(p, first, probe, ret);
    expand_probes_unref(own);
    return 0;
  }
  /* Most paths are files: an entry each. */
  specs = g_array_sized_new(FALSE, TRUE, sizeof(PathSpec), (guint)(p->n_paths - first));
  items = g_array_sized_new(FALSE, TRUE, sizeof(ExpandItem), (guint)(p->n_paths - first));
  for (size_t i = first; i < p->n_paths && r == 0; i++) {
    /* Every later path keeps one entry at least. */
    size_t room = READ_MAX_PATHS - before - specs->len - (p->n_paths - i - 1);

    if (cancelled != NULL && atomic_load(cancelled))
      r = -ECANCELED;
    else
      r = expand_one(p, ws, cancelled, &probe[i], i, room, specs, items);
  }
  expand_probes_unref(own);
  ret->n_paths = specs->len;
  ret->paths = (PathSpec *)(void *)g_array_free(specs, FALSE);
  ret->items = (ExpandItem *)(void *)g_array_free(items, FALSE);
  if (r < 0)
    expansion_clear(ret);
  return r;
}

/* Frees what paths [from, to) own. */
static void specs_clear(PathSpec *paths, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    g_free(paths[i].path);
    g_free(paths[i].pages);
    g_free(paths[i].password);
  }
}

void expansion_take_paths(Expansion *e, ReadParams *p) {
  /* Nothing expanded: the paths are p's own, from e->first on. */
  if (e->paths == NULL) {
    specs_clear(p->paths, 0, e->first);
    memmove(p->paths, p->paths + e->first, (p->n_paths - e->first) * sizeof *p->paths);
    p->n_paths -= e->first;
    e->first = 0;
    return;
  }
  specs_clear(p->paths, 0, p->n_paths);
  g_free(p->paths);
  p->paths = g_steal_pointer(&e->paths);
  p->n_paths = e->n_paths;
}

bool expansion_answer(Expansion *e, size_t i, FileResult *f) {
  FileResult *a = e->items != NULL ? e->items[i].answer : NULL;

  if (a == NULL)
    return false;
  *f = *a;
  g_free(a);
  e->items[i].answer = NULL;
  return true;
}

void expansion_apply(Expansion *e, size_t i, FileResult *f) {
  ExpandItem *item = &e->items[i];

  f->expanded = item->expanded;
  f->from = item->from;
  f->notices = g_steal_pointer(&item->notices);
  f->n_notices = item->n_notices;
  item->n_notices = 0;
}

/* Releases what one item owns. */
static void item_clear(ExpandItem *item) {
  if (item->answer != NULL) {
    file_result_clear(item->answer);
    g_free(item->answer);
  }
  for (size_t k = 0; k < item->n_notices; k++) {
    g_free(item->notices[k].path);
    g_free(item->notices[k].message);
  }
  g_free(item->notices);
}

void expansion_drop_first(Expansion *e, size_t k) {
  k = MIN(k, e->n_paths);
  if (e->paths != NULL)
    specs_clear(e->paths, 0, k);
  for (size_t i = 0; i < k; i++)
    item_clear(&e->items[i]);
  if (e->paths != NULL)
    memmove(e->paths, e->paths + k, (e->n_paths - k) * sizeof *e->paths);
  memmove(e->items, e->items + k, (e->n_paths - k) * sizeof *e->items);
  e->n_paths -= k;
}

void expansion_clear(Expansion *e) {
  if (e == NULL)
    return;
  if (e->paths != NULL)
    specs_clear(e->paths, 0, e->n_paths);
  for (size_t i = 0; i < e->n_paths; i++)
    item_clear(&e->items[i]);
  g_free(e->paths);
  g_free(e->items);
  memset(e, 0, sizeof *e);
}
