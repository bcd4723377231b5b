/* What each path of a request is, looked up on several threads; see expand-probe.h. */
#include "daemon/request/expand-probe.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "basic/mutex.h"

struct ExpandProbes {
  const ReadParams *p;
  const Workspace *ws;
  const atomic_bool *cancelled;
  PathProbe *probes; /* p->n_paths of them */
  size_t first;      /* the first path looked up */
  size_t n_chunks;
  atomic_size_t next; /* the next chunk to claim */
  atomic_int refs;
  /* pthread rather than GMutex: ThreadSanitizer sees it (glib's futex locks are invisible to
   * it). */
  pthread_mutex_t lock;
  pthread_cond_t done_cond;
  size_t done; /* chunks looked up; under lock */
};

/* Paths at which helpers are queued: below, one thread looks them up in about a millisecond. */
#define EXPAND_PROBE_SHARED (4 * EXPAND_PROBE_CHUNK)

/* The folder of the last path looked at, held open (O_PATH) by one thread while it looks up its
 * chunks: paths listed folder by folder are then looked up from it a name each, where stat(2)
 * walks each path from the top (a deep tree's paths have ten folders or more). A folder
 * reached with no symlink on its way (workspace_open_plain) also tells, by an lstat of the
 * name, that a regular file in it has none: that lstat is the reader's probe (expand.h), so
 * the file is not walked to again to be judged, and a file past the answer's cap not at all. A
 * folder renamed while the paths are looked up can at worst give such a file the size and
 * etag it had there; the reader walks again, with no symlink allowed, to read it. */
typedef struct {
  char *dir;  /* the folder as written, without its last '/'; NULL before the first */
  int fd;     /* -1 when it could not be opened: stat(2) then says why */
  bool plain; /* reached with no symlink on the way */
} DirCache;

#define DIR_CACHE_INIT {NULL, -1, false}

static void dir_cache_clear(DirCache *c) {
  if (c->fd >= 0)
    close(c->fd);
  g_free(c->dir);
  *c = (DirCache)DIR_CACHE_INIT;
}

/* stat(full) by way of c, into ret. */
static void dir_cache_probe(DirCache *c, const char *full, PathProbe *ret) {
  const char *slash = strrchr(full, '/');
  struct stat *st = &ret->st;
  size_t n;

  ret->probed = false;
  if (slash == NULL || slash == full || slash[1] == '\0') {
    ret->rc = stat(full, st);
    return;
  }
  n = (size_t)(slash - full);
  if (c->dir == NULL || strncmp(c->dir, full, n) != 0 || c->dir[n] != '\0') {
    dir_cache_clear(c);
    c->dir = g_strndup(full, n);
    c->fd = workspace_open_plain(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    c->plain = c->fd >= 0;
    if (c->fd < 0)
      c->fd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  if (c->fd < 0) {
    ret->rc = stat(full, st);
    return;
  }
  if (c->plain && strcmp(slash + 1, ".") != 0 && strcmp(slash + 1, "..") != 0) {
    ret->rc = fstatat(c->fd, slash + 1, st, AT_SYMLINK_NOFOLLOW);
    if (ret->rc < 0 || !S_ISLNK(st->st_mode)) {
      ret->probed = ret->rc == 0 && S_ISREG(st->st_mode);
      return;
    }
  }
  ret->rc = fstatat(c->fd, slash + 1, st, 0);
}

char *expand_resolve(const ReadParams *p, const Workspace *ws, const char *path) {
  const char *base = p->cwd != NULL ? p->cwd : workspace_root(ws);

  if (g_path_is_absolute(path) || base == NULL)
    return g_strdup(path);
  return g_build_filename(base, path, NULL);
}

ExpandProbes *expand_probes_new(const ReadParams *p, size_t first, const Workspace *ws,
                                const atomic_bool *cancelled) {
  ExpandProbes *e = g_new0(ExpandProbes, 1);

  first = MIN(first, p->n_paths);
  e->p = p;
  e->first = first;
  e->ws = ws;
  e->cancelled = cancelled;
  e->probes = g_new0(PathProbe, MAX(p->n_paths, 1));
  e->n_chunks = (p->n_paths - first + EXPAND_PROBE_CHUNK - 1) / EXPAND_PROBE_CHUNK;
  atomic_init(&e->next, 0);
  atomic_init(&e->refs, 1);
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->done_cond, NULL);
  return e;
}

ExpandProbes *expand_probes_ref(ExpandProbes *e) {
  atomic_fetch_add(&e->refs, 1);
  return e;
}

void expand_probes_unref(ExpandProbes *e) {
  if (e == NULL || atomic_fetch_sub(&e->refs, 1) != 1)
    return;
  g_free(e->probes);
  pthread_mutex_destroy(&e->lock);
  pthread_cond_destroy(&e->done_cond);
  g_free(e);
}

bool expand_probes_shared(const ReadParams *p, size_t first) {
  return first < p->n_paths && p->n_paths - first >= EXPAND_PROBE_SHARED;
}

void expand_probes_help(ExpandProbes *e) {
  DirCache dirs = DIR_CACHE_INIT;
  size_t k;

  /* The claim comes first: a helper that starts once every chunk is claimed touches nothing
   * of a request that may be gone. */
  while ((k = atomic_fetch_add(&e->next, 1)) < e->n_chunks) {
    size_t end = MIN(e->first + (k + 1) * EXPAND_PROBE_CHUNK, e->p->n_paths);

    for (size_t i = e->first + k * EXPAND_PROBE_CHUNK; i < end; i++) {
      g_autofree char *full = NULL;

      /* Cancelled: the chunk still counts as done, so that nobody waits for it. */
      if (e->cancelled != NULL && atomic_load(e->cancelled))
        break;
      full = expand_resolve(e->p, e->ws, e->p->paths[i].path);
      dir_cache_probe(&dirs, full, &e->probes[i]);
    }
    mutex_lock(&e->lock);
    if (++e->done == e->n_chunks)
      pthread_cond_broadcast(&e->done_cond);
    mutex_unlock(&e->lock);
  }
  dir_cache_clear(&dirs);
}

const PathProbe *expand_probes_wait(ExpandProbes *e) {
  expand_probes_help(e);
  mutex_lock(&e->lock);
  while (e->done < e->n_chunks)
    pthread_cond_wait(&e->done_cond, &e->lock);
  mutex_unlock(&e->lock);
  return e->probes;
}
