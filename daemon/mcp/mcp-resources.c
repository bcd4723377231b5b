/* `readerd mcp`'s resources (docs/mcp.md, "Resources"): the roots listed, the file:///{+path}
 * template, resources/read through the same read queue as read_files, and completion of the
 * template's path from a walk of the fence on the pool. */
#include <string.h>

#include <glib.h>

#include "daemon/request/expand-walk.h"
#include "daemon/mcp/mcp-internal.h"
#include "daemon/request/pool-gate.h"
#include "ipc/mcp/mcp-resources.h"

/* A walk of the fence serves the completions that follow it this long. */
#define FILES_FRESH_US (10 * G_USEC_PER_SEC)

static PoolGate completion_gate = POOL_GATE_INIT(1);

static const McpCache list_cache = {MCP_LIST_TTL_MS, "private"};
/* A file read may change at any time. */
static const McpCache read_cache = {0, "private"};

/* The folders reads may lie in: the fence's, once resolved. */
static const char *const *fence_folders(const Mcp *m) {
  return workspace_real_roots(m->ws);
}

static void list_fenced(Conn *c, JsonNode *id, JsonNode *params, const char *text, size_t text_len,
                        size_t len) {
  g_autofree char *result = mcp_resource_roots_json(fence_folders(mcp_of(c)));

  mcp_reply(c, id, result, &list_cache);
}

void mcp_resources_list(Conn *c, const JsonrpcMessage *msg, size_t len) {
  mcp_when_fenced(c, msg->id, NULL, NULL, 0, len, list_fenced);
}

void mcp_resources_templates_list(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *result = mcp_resource_templates_json();

  mcp_reply(c, msg->id, result, &list_cache);
}

void mcp_resources_read(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *err = NULL;
  const char *uri = NULL;
  ReadParams params;
  McpCall *call;

  read_params_init(&params);
  if (mcp_resource_read_parse(msg->params, mcp_of(c)->budget, &params, &uri, &err) < 0) {
    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS, err);
    return;
  }
  call = g_new0(McpCall, 1);
  call->uri = g_strdup(uri);
  call->log_level = mcp_of(c)->log_level;
  read_queue_add(mcp_of(c)->reads, msg->id, &params, len, call);
  mcp_progress(c);
}

void mcp_resources_answer(Conn *c, McpCall *call, JsonNode *id, GString **pieces, size_t n) {
  g_autofree char *envelope = NULL, *members = NULL;
  size_t head_len;
  char *head;

  for (size_t i = 0; i < n; i++)
    mcp_resource_contents(pieces[i], call->uri);
  members = mcp_of(c)->modern ? mcp_result_modern_members(&read_cache) : g_strdup("");
  envelope = jsonrpc_format_result_head(id, &head_len);
  head = g_strconcat(envelope, "{\"contents\":", NULL);
  g_string_append_printf(pieces[n - 1], "%s}}\n", members);
  conn_send_pieces(c, head, strlen(head), pieces, n, "", 0);
}

/* ---------------------------------------------------------------- completion */

typedef struct {
  PoolGateJob job;
  Mcp *m; /* NULL once detached */
  JsonNode *id;
  char *value;
  Workspace *ws;
  GPtrArray *files; /* out: absolute paths */
} McpCompletion;

static void completion_free(McpCompletion *j) {
  json_node_unref(j->id);
  g_free(j->value);
  workspace_unref(j->ws);
  if (j->files != NULL)
    g_ptr_array_unref(j->files);
  g_free(j);
}

/* Every file of the fence, ignore rules and exclude patterns kept, as a read of a folder
 * would find them. Pool thread. */
static void completion_work_cb(uv_work_t *w) {
  McpCompletion *j = w->data;
  const char *const *roots = workspace_real_roots(j->ws);

  j->files = g_ptr_array_new_with_free_func(g_free);
  for (size_t i = 0; roots != NULL && roots[i] != NULL; i++) {
    Walk walk = {.base = roots[i], .ws = j->ws};

    if (walk_run(&walk) == 0)
      for (guint k = 0; k < walk.files->len; k++)
        g_ptr_array_add(j->files, g_build_filename(roots[i], walk.files->pdata[k], NULL));
    walk_clear(&walk);
  }
}

static void answer_completion(Conn *c, JsonNode *id, const char *value) {
  Mcp *m = mcp_of(c);
  g_autofree char *result = mcp_completion_json(fence_folders(m), m->files, value);

  mcp_reply(c, id, result, NULL);
}

static void completion_after_cb(uv_work_t *w, int status) {
  McpCompletion *j = w->data;
  Mcp *m = j->m;

  if (m != NULL) {
    g_ptr_array_remove_fast(m->completing, j);
    if (j->files != NULL) {
      if (m->files != NULL)
        g_ptr_array_unref(m->files);
      m->files = g_steal_pointer(&j->files);
      m->files_us = g_get_monotonic_time();
    }
    if (m->files != NULL)
      answer_completion(m->conn, j->id, j->value);
    else
      reply_error(m->conn, j->id, JSONRPC_INTERNAL_ERROR, "the workspace could not be walked");
    conn_progress(m->conn);
  }
  completion_free(j);
}

void mcp_completion_detach_all(Mcp *m) {
  for (guint i = 0; i < m->completing->len; i++)
    ((McpCompletion *)m->completing->pdata[i])->m = NULL;
  g_ptr_array_set_size(m->completing, 0);
}

static void complete_fenced(Conn *c, JsonNode *id, JsonNode *params, const char *text,
                            size_t text_len, size_t len) {
  const char *value = "";
  Mcp *m = mcp_of(c);
  McpCompletion *j;

  mcp_completion_parse(params, &value);
  if (m->files != NULL && g_get_monotonic_time() - m->files_us < FILES_FRESH_US) {
    answer_completion(c, id, value);
    return;
  }
  j = g_new0(McpCompletion, 1);
  j->m = m;
  j->id = json_node_copy(id);
  j->value = g_strdup(value);
  j->ws = workspace_ref(m->ws);
  j->job.work.data = j;
  g_ptr_array_add(m->completing, j);
  pool_gate_queue(&completion_gate, conn_loop(c), &j->job, completion_work_cb, completion_after_cb);
}

/* completion/complete: only the template's path argument has values to offer. */
void mcp_completion_complete(Conn *c, const JsonrpcMessage *msg, size_t len) {
  const char *value;

  if (!mcp_completion_parse(msg->params, &value)) {
    /* Nothing to offer for what readerd does not have (prompts, other arguments). */
    mcp_reply(c, msg->id, "{\"completion\":{\"values\":[],\"total\":0,\"hasMore\":false}}", NULL);
    return;
  }
  mcp_when_fenced(c, msg->id, msg->params, NULL, 0, len, complete_fenced);
}
