/* One file, start to finish, on a worker thread: open safely, classify, read. */
#pragma once

#include <stdatomic.h>

#include "formatters/result.h"
#include "ipc/read-params.h"

/* Reads params->paths[i] into res (which must be zeroed). Relative paths resolve against
 * params->cwd, else `root` (may be NULL), else the process's working directory. Never fails
 * as a whole: every problem is a per-file code in res. `cancelled` may be NULL. */
void reader_read(const ReadParams *params, size_t i, const char *root, const atomic_bool *cancelled,
                 FileResult *res);
