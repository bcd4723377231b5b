/* One file, start to finish, on a worker thread: open safely, classify, read. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>

#include "daemon/workspace.h"
#include "formatters/result.h"
#include "ipc/read-params.h"

/* Reads params->paths[i] into res (which must be zeroed). Relative paths resolve against
 * params->cwd, else the workspace's root, else the process's working directory; the workspace
 * (may be NULL) also decides what may be read at all (workspace_allows). Never fails as a
 * whole: every problem is a per-file code in res. `cancelled` may be NULL. */
void reader_read(const ReadParams *params, size_t i, const Workspace *ws,
                 const atomic_bool *cancelled, FileResult *res);

/* Reads params->paths[i] as reader_read() does when it is text, or fails before its kind is
 * known; never waits on a decoder or a worker process. Returns false, with res zeroed, when the
 * file is a picture, a PDF or an SVG to render: the caller then reads it with reader_read()
 * where blocking is allowed. */
bool reader_read_text(const ReadParams *params, size_t i, const Workspace *ws,
                      const atomic_bool *cancelled, FileResult *res);
