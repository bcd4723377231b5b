/* The first step of an expansion (expand.h): what each path of the request is, a folder or
 * not, looked up before the paths are expanded in order. A long list is cut into chunks that
 * every thread taking part claims in turn: the expansion's own, and helpers the request queues
 * beside it, so that 2,000 paths are not looked up one after another on one thread. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "daemon/readers/workspace.h"
#include "ipc/read-params.h"

/* Paths a chunk holds. */
#define EXPAND_PROBE_CHUNK 64

/* What one path is. */
typedef struct {
  int rc;         /* 0, or -1 when it could not be looked up (nothing there, no permission) */
  bool probed;    /* a regular file with no symlink on its way: st is its lstat (ExpandItem) */
  struct stat st; /* its stat when rc is 0 */
} PathProbe;

typedef struct ExpandProbes ExpandProbes;

/* path as the reader resolves it (reader.c): against p->cwd, else ws's root. g_free. */
char *expand_resolve(const ReadParams *p, const Workspace *ws, const char *path);

/* The lookups of p's paths from `first` on (those before it are not looked up: a continuation,
 * continuation.h), none made yet. p, ws and cancelled must outlive every expand_probes_wait();
 * the object itself lives while a reference does (helpers that start after the wait find nothing
 * left and touch none of them). */
ExpandProbes *expand_probes_new(const ReadParams *p, size_t first, const Workspace *ws,
                                const atomic_bool *cancelled);
ExpandProbes *expand_probes_ref(ExpandProbes *e);
void expand_probes_unref(ExpandProbes *e);

/* True when p has enough paths from `first` on for helpers to be worth queueing. */
bool expand_probes_shared(const ReadParams *p, size_t first);

/* Claims chunks and looks their paths up until none is left. Any thread; blocking I/O. */
void expand_probes_help(ExpandProbes *e);

/* expand_probes_help(), then waits for the chunks other threads hold; returns the lookups,
 * indexed like p->paths (those before `first` untouched), valid while e is. Once, from the
 * expansion's thread. */
const PathProbe *expand_probes_wait(ExpandProbes *e);
