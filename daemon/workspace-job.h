/* A connection's workspace built on the thread pool. Resolving its roots (stat(2), realpath(3))
 * can block for as long as the filesystem under them does (a hung network mount): the loop,
 * which serves every client, must never wait on that. The callback runs on the loop. */
#pragma once

#include <stdbool.h>

#include <uv.h>

#include "daemon/readers/workspace.h"

typedef struct WorkspaceJob WorkspaceJob;

/* The job's outcome, on the loop: the workspace (the callee's to unref), or NULL and a message
 * (the callee's to g_free); and what the fence left out and why, already logged (a
 * NULL-terminated array, or NULL when nothing was; the callee's to g_strfreev). */
typedef void (*WorkspaceJobCb)(void *data, Workspace *ws, char *error, char **warnings);

/* readerd's initialize: `root` (may be NULL) must be an existing folder, fence or not, since
 * relative paths would otherwise resolve against nothing ("rootPath R is not a folder"); then
 * workspace_new(root, confine, exclude). The arguments are copied. */
WorkspaceJob *workspace_job_root(uv_loop_t *loop, const char *root, bool confine,
                                 const char *const *exclude, WorkspaceJobCb cb, void *data);

/* MCP's fence over the folders of `roots` (NULL: the working directory), confined, with
 * `exclude`. A root that is not a folder is left out with a warning, never replaced: when none
 * is left, nothing may be read. It fails closed: when the working directory is gone, or a
 * root goes while it is resolved, the fence is over no folder at all (never GLib's "/" for a
 * lost working directory, never no fence). The arguments are copied. */
WorkspaceJob *workspace_job_roots(uv_loop_t *loop, const char *const *roots,
                                  const char *const *exclude, WorkspaceJobCb cb, void *data);

/* The callback will not be called (the connection is going, or a newer job replaces this one):
 * a job still waiting for its turn (at most 2 are built at once, daemon-wide: pool-gate.h) is
 * freed now, one being built frees itself and what it built once the pool is done with it. */
void workspace_job_detach(WorkspaceJob *j);
