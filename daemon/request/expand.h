/* The first phase of a `read` with `expand` on: every folder or glob in paths[] becomes the
 * files under it, sorted by the bytes of their relative paths (as `git ls-files` lists them),
 * without what ignore rules leave out (.gitignore at every level, .git/info/exclude and git's
 * excludes file through libgit2, .ignore files), without .git/ and without what the
 * workspace's exclude patterns refuse; binary files are listed, not read. Blocking I/O: it
 * runs on a pool thread. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "daemon/readers/workspace.h"
#include "daemon/request/expand-probe.h"
#include "formatters/result.h"
#include "ipc/read-params.h"

/* Entries one expansion visits at most (files and folders, ignored ones included): a walk past
 * it stops, and a notice says so. */
#define EXPAND_MAX_VISITS 200000

/* Bytes of a file's head read to tell a binary file from text. */
#define EXPAND_HEAD_BYTES 8192

/* What an entry of the new paths[] carries besides its PathSpec. */
typedef struct {
  bool expanded;         /* it came from a folder or glob */
  size_t from;           /* index into the request's original paths[] */
  FileResult *answer;    /* answered already (a binary file listed, a pattern that matched
                            nothing or that the fence refused): not read; owned, NULL otherwise */
  ResultNotice *notices; /* notices that follow this file; owned */
  size_t n_notices;
  bool probed;       /* a path as given that is a regular file with no symlink on its way */
  struct stat probe; /* then its lstat, for the reader (ReaderOptions.probe) */
} ExpandItem;

typedef struct {
  PathSpec *paths; /* the new paths[]; owned; NULL when no path expanded: they are the
                      request's own from `first` on */
  size_t first;    /* the request's paths before it were not expanded (a continuation) */
  size_t n_paths;
  ExpandItem *items; /* n_paths of them; owned */
} Expansion;

/* True when the request's paths go through expand_paths() first: expand is on (any path may
 * name a folder, which only a stat on the pool can tell). */
bool expand_wanted(const ReadParams *p);

/* Expands p->paths from p->paths[first] on into *ret (zeroed by the caller): paths that are
 * neither folders nor globs stay as they are (a glob that names an existing file is that file);
 * relative paths resolve against p->cwd, else the workspace's root (ws may be NULL), else the
 * working directory. The paths before `first` made `before` entries, which are not looked at
 * again (a continuation, continuation.h; 0 and 0 otherwise). At most READ_MAX_PATHS entries in
 * all, those before included. Items' `from` indexes p->paths. probes (may be NULL: looked up
 * here alone) are the lookups of p's paths from `first` on that other threads may share
 * (expand-probe.h). Returns 0, or -ECANCELED when *cancelled was set (then *ret is cleared). */
int expand_paths(const ReadParams *p, size_t first, size_t before, const Workspace *ws,
                 const atomic_bool *cancelled, ExpandProbes *probes, Expansion *ret);

/* Replaces p's paths with e's (freeing p's own, and those before e->first when e keeps p's
 * own); e keeps its items for the request's life. */
void expansion_take_paths(Expansion *e, ReadParams *p);

/* When entry i is answered without reading, moves that answer into f (zeroed) and returns
 * true. */
bool expansion_answer(Expansion *e, size_t i, FileResult *f);

/* Moves item i's metadata (from, notices) into f, a result the reader filled. */
void expansion_apply(Expansion *e, size_t i, FileResult *f);

/* Drops the first k items (at most all), with their paths when e still owns them: the
 * request's `skip`. Their notices go too. */
void expansion_drop_first(Expansion *e, size_t k);

/* Releases what e owns and zeroes it. NULL is fine. */
void expansion_clear(Expansion *e);
