/* `readerd mcp`'s resources (docs/mcp.md, "Resources"): the roots listed, the file:///{+path}
 * template, resources/read through the same read queue as read_files, and completion of the
 * template's path from a walk of the fence on the pool. */
#include <string.h>

#include <glib.h>

#include "daemon/request/expand-walk.h"
#include "daemon/mcp/mcp-internal.h"
#include "daemon/request/pool-gate.h"
#include "ipc/mcp-resources.h"

/* A walk of the fence serves the completions that follow it this long. */
#define FILES_FRESH_US (10 * G_USEC_PER_SEC)

static PoolGate completion_gate = POOL_GATE_INIT(1);

static const McpCache list_cache = {MCP_LIST_TTL_MS, "private"};
/* A file read may change at any time. */
static const McpCache read_cache = {0, "private"};

static JsonObject *params_of(const JsonrpcMessage *msg) {
  return msg->params != NULL && JSON_NODE_HOLDS_OBJECT(msg->params)
             ? json_node_get_object(msg->params)
             : NULL;
}

/* The folders reads may lie in: the fence's, once resolved. */
static const char *const *fence_folders(const Mcp *m) {
  return workspace_real_roots(m->ws);
}

static void list_fenced(Conn *c, JsonNode *id, JsonNode *params, size_t len) {
  g_autofree char *result = mcp_resource_roots_json(fence_folders(mcp_of(c)));

  mcp_reply(c, id, result, &list_cache);
}

void mcp_resources_list(Conn *c, const JsonrpcMessage *msg, size_t len) {
  mcp_when_fenced(c, msg->id, NULL, len, list_fenced);
}

void mcp_resources_templates_list(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *result = mcp_resource_templates_json();

  mcp_reply(c, msg->id, result, &list_cache);
}

void mcp_resources_read(Conn *c, const JsonrpcMessage *msg, size_t len) {
  JsonObject *p = params_of(msg);
  const char *uri = p != NULL ? json_object_get_string_member_with_default(p, "uri", NULL) : NULL;
  g_autofree char *path = NULL, *err = NULL;
  g_autoptr(JsonNode) args = NULL;
  JsonObject *a;
  JsonArray *paths;
  ReadParams params;
  McpCall *call;
  bool folder;

  path = mcp_resource_path(uri, &folder);
  if (path == NULL) {
    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS,
                "uri must be a local file:// URI (file:///{+path})");
    return;
  }
  /* A file reads as read_files reads it; a folder lists what it holds (the plan). */
  args = json_node_new(JSON_NODE_OBJECT);
  json_node_take_object(args, json_object_new());
  a = json_node_get_object(args);
  paths = json_array_new();
  json_array_add_string_element(paths, path);
  json_object_set_array_member(a, "paths", paths);
  json_object_set_boolean_member(a, "expand", folder);
  if (folder)
    json_object_set_boolean_member(a, "plan", TRUE);
  read_params_init(&params);
  if (mcp_read_args_parse(args, mcp_of(c)->budget, &params, &err) < 0) {
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

static void complete_fenced(Conn *c, JsonNode *id, JsonNode *params, size_t len) {
  JsonObject *p = JSON_NODE_HOLDS_OBJECT(params) ? json_node_get_object(params) : NULL;
  JsonObject *arg = p != NULL && json_object_has_member(p, "argument") &&
                            JSON_NODE_HOLDS_OBJECT(json_object_get_member(p, "argument"))
                        ? json_object_get_object_member(p, "argument")
                        : NULL;
  const char *value =
      arg != NULL ? json_object_get_string_member_with_default(arg, "value", "") : "";
  Mcp *m = mcp_of(c);
  McpCompletion *j;

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
  JsonObject *p = params_of(msg);
  JsonObject *ref = p != NULL && json_object_has_member(p, "ref") &&
                            JSON_NODE_HOLDS_OBJECT(json_object_get_member(p, "ref"))
                        ? json_object_get_object_member(p, "ref")
                        : NULL;
  const char *type = ref != NULL ? json_object_get_string_member_with_default(ref, "type", "") : "";
  const char *uri = ref != NULL ? json_object_get_string_member_with_default(ref, "uri", "") : "";
  JsonObject *arg = p != NULL && json_object_has_member(p, "argument") &&
                            JSON_NODE_HOLDS_OBJECT(json_object_get_member(p, "argument"))
                        ? json_object_get_object_member(p, "argument")
                        : NULL;
  const char *name = arg != NULL ? json_object_get_string_member_with_default(arg, "name", "") : "";

  if (strcmp(type, "ref/resource") != 0 || strcmp(uri, MCP_RESOURCE_TEMPLATE) != 0 ||
      strcmp(name, "path") != 0) {
    /* Nothing to offer for what readerd does not have (prompts, other arguments). */
    mcp_reply(c, msg->id, "{\"completion\":{\"values\":[],\"total\":0,\"hasMore\":false}}", NULL);
    return;
  }
  mcp_when_fenced(c, msg->id, msg->params, len, complete_fenced);
}
