#include "daemon/workspace-job.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/log.h"
#include "daemon/request/pool-gate.h"

static PoolGate workspace_gate = POOL_GATE_INIT(POOL_GATE_WORKSPACE_SLOTS);

struct WorkspaceJob {
  PoolGateJob job;
  bool many;      /* MCP's fence over roots; else initialize's one root */
  char *root;     /* initialize: rootPath, or NULL */
  char **roots;   /* MCP: the client's roots, or NULL for the working directory */
  bool confine;   /* initialize's confineToRoot */
  char **exclude; /* NULL-terminated, or NULL */
  Workspace *ws;
  char *error;
  GPtrArray *warnings; /* char *: what the fence left out and why, for the client too */
  WorkspaceJobCb cb;   /* NULL once detached */
  void *data;
};

static void build_root(WorkspaceJob *j) {
  struct stat st;

  if (j->root != NULL && (stat(j->root, &st) != 0 || !S_ISDIR(st.st_mode))) {
    j->error = g_strdup_printf("rootPath %s is not a folder", j->root);
    return;
  }
  if (workspace_new(j->root, j->confine, (const char *const *)j->exclude, &j->ws, &j->error) < 0)
    j->ws = NULL;
}

/* The fence over the client's roots (or the working directory). It fails closed: a working
 * directory that is gone (getcwd fails; GLib would answer "/") or a root removed while it was
 * resolved leaves a fence over no folder at all, in which nothing is read. */
/* Logs a warning and keeps it for the callback. */
static void warn(WorkspaceJob *j, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static void warn(WorkspaceJob *j, const char *fmt, ...) {
  va_list ap;
  char *text;

  va_start(ap, fmt);
  text = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  log_warning("mcp: %s", text);
  g_ptr_array_add(j->warnings, text);
}

static void build_fence(WorkspaceJob *j) {
  g_autofree char *cwd = j->roots == NULL ? getcwd(NULL, 0) : NULL;
  g_autoptr(GPtrArray) ok = g_ptr_array_new();

  if (j->roots == NULL && cwd == NULL)
    warn(j, "the working directory is gone (%s): no file will be read", g_strerror(errno));
  for (size_t i = 0; j->roots != NULL && j->roots[i] != NULL; i++) {
    if (g_file_test(j->roots[i], G_FILE_TEST_IS_DIR))
      g_ptr_array_add(ok, j->roots[i]);
    else
      warn(j, "the root %s is not a folder: files under it are not read", j->roots[i]);
  }
  if (cwd != NULL)
    g_ptr_array_add(ok, cwd);
  g_ptr_array_add(ok, NULL);
  if (j->roots != NULL && ok->len == 1)
    warn(j, j->roots[0] == NULL ? "the client listed no roots: no file will be read"
                                : "no root is a folder: no file will be read");
  if (workspace_new_roots((const char *const *)ok->pdata, true, (const char *const *)j->exclude,
                          &j->ws, &j->error) == 0)
    return;
  warn(j, "%s: no file will be read", j->error);
  g_clear_pointer(&j->error, g_free);
  j->ws = workspace_new_closed();
}

static void work_cb(uv_work_t *w) {
  WorkspaceJob *j = w->data;

  if (j->many)
    build_fence(j);
  else
    build_root(j);
}

static void job_free(WorkspaceJob *j) {
  workspace_unref(j->ws);
  g_free(j->error);
  g_free(j->root);
  g_strfreev(j->roots);
  g_strfreev(j->exclude);
  g_ptr_array_unref(j->warnings);
  g_free(j);
}

static void after_cb(uv_work_t *w, int status) {
  WorkspaceJob *j = w->data;

  if (status != 0 && j->ws == NULL && j->error == NULL)
    j->error = g_strdup(uv_strerror(status));
  if (j->cb != NULL) {
    char **warnings = NULL;

    if (j->warnings->len > 0) {
      g_ptr_array_add(j->warnings, NULL);
      warnings = (char **)g_ptr_array_steal(j->warnings, NULL);
    }
    j->cb(j->data, g_steal_pointer(&j->ws), g_steal_pointer(&j->error), warnings);
  }
  job_free(j);
}

static WorkspaceJob *job_start(uv_loop_t *loop, WorkspaceJob *j) {
  j->job.work.data = j;
  j->warnings = g_ptr_array_new_with_free_func(g_free);
  pool_gate_queue(&workspace_gate, loop, &j->job, work_cb, after_cb);
  return j;
}

WorkspaceJob *workspace_job_root(uv_loop_t *loop, const char *root, bool confine,
                                 const char *const *exclude, WorkspaceJobCb cb, void *data) {
  WorkspaceJob *j = g_new0(WorkspaceJob, 1);

  j->root = g_strdup(root);
  j->confine = confine;
  j->exclude = g_strdupv((char **)exclude);
  j->cb = cb;
  j->data = data;
  return job_start(loop, j);
}

WorkspaceJob *workspace_job_roots(uv_loop_t *loop, const char *const *roots,
                                  const char *const *exclude, WorkspaceJobCb cb, void *data) {
  WorkspaceJob *j = g_new0(WorkspaceJob, 1);

  j->many = true;
  j->roots = g_strdupv((char **)roots);
  j->exclude = g_strdupv((char **)exclude);
  j->cb = cb;
  j->data = data;
  return job_start(loop, j);
}

void workspace_job_detach(WorkspaceJob *j) {
  if (j == NULL)
    return;
  if (pool_gate_withdraw(&j->job))
    job_free(j); /* never started */
  else
    j->cb = NULL;
}
