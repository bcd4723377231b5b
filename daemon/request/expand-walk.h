/* The walk under one folder for daemon/expand.c: every file below it that a pattern takes,
 * with ignore rules applied and tallied per ignore file. Private to the expansion.
 *
 * Folders are opened relative to their parent's descriptor, never following a symlink, so a
 * folder swapped for a link during the walk cannot lead it elsewhere; entries named .git are
 * neither entered nor listed; every file passes the workspace's fence (on its real path, a
 * link's target resolved) before anything of it is looked at, and one the fence refuses
 * leaves no trace in the outputs. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "daemon/readers/workspace.h"

/* Folders deep below the base are not entered: no real tree goes this deep. */
#define WALK_MAX_DEPTH 128

typedef struct {
  char *label;      /* the ignore file, relative to the repository's top ("src/.gitignore") */
  size_t count;     /* files and folders it left out */
  GPtrArray *lines; /* the first few of its rules that matched (char *, owned) */
} WalkTally;

typedef struct {
  /* In. */
  const char *base;    /* the folder walked: a real path (no symlink, absolute) */
  const char *pattern; /* glob relative to base that files must match; NULL takes every file */
  bool ignored;        /* ignore rules off (expand.ignored) */
  const Workspace *ws; /* its exclude patterns leave files out; may be NULL */
  const atomic_bool *cancelled; /* may be NULL */
  const char *label_prefix;     /* outside a repository, what ignore files' names start with
                                   (the folder as the client wrote it, "src/"); may be NULL */

  /* Out. */
  GPtrArray *files;   /* char *: paths relative to base, sorted by their bytes */
  GPtrArray *tallies; /* WalkTally *, in the order ignore files first left something out */
  size_t n_ignored;   /* files and folders ignore rules left out */
  size_t n_deep;      /* folders not entered, deeper than WALK_MAX_DEPTH below base */
  bool stopped;       /* the walk stopped at EXPAND_MAX_VISITS */
  bool in_repo;       /* base is inside a git work tree (its .gitignore rules applied) */
} Walk;

/* Walks w->base. Returns 0, -ECANCELED, -ELIBACC when libgit2, which git's rules need, cannot
 * be loaded (git_dl_error() says why; w->ignored needs no libgit2), or a negative errno when
 * base cannot be opened as a folder. The outputs are set in every case; free them with
 * walk_clear. */
int walk_run(Walk *w);

/* Releases the outputs. */
void walk_clear(Walk *w);
