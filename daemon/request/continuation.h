/* Where a continuation starts. An answer cut short (by its budget or its byte cap) names the
 * `skip` that reads the rest: the same request again, whose first `skip` entries (after the
 * expansion) are left out. Counting those entries again would look up every path before them:
 * four calls that read 2,000 paths 500 at a time would look 6,000 of them up only to skip them.
 * So the daemon remembers, for the answers that named a skip lately, which of the request's
 * paths that entry came from and how many entries the paths before it made; the continuation
 * expands from that path on and leaves out only that path's entries before the cut.
 *
 * It also makes the continuation read exactly what the previous answer left out, even when a
 * folder among the entries already answered gained or lost files in between. Past the slots
 * kept (or in another process), the paths are expanded again from the first: the same entries
 * while nothing changed. Any thread. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/content-hash.h"
#include "daemon/readers/workspace.h"
#include "ipc/read-params.h"

/* Answers remembered: the least recently used goes first. */
#define CONTINUATION_SLOTS 64

/* What tells an expansion from another: p's paths as given, its cwd, its `expand` options and
 * ws's roots, fence and patterns (ws may be NULL). Not the skip, nor what is read of each file. */
ContentHash continuation_key(const ReadParams *p, const Workspace *ws);

/* Remembers that, for the request with this key, entry `skip` is the first of path `path`'s
 * that entries of paths before it (`before` of them) do not count: it is entry skip - before of
 * that path's expansion. */
void continuation_remember(ContentHash key, int64_t skip, size_t path, size_t before);

/* True, with *ret_path and *ret_before as continuation_remember() was given them, when an answer
 * of the request with this key named this skip. */
bool continuation_find(ContentHash key, int64_t skip, size_t *ret_path, size_t *ret_before);
