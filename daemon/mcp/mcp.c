#include "daemon/mcp/mcp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/log.h"
#include "daemon/mcp/mcp-internal.h"
#include "daemon/request/request.h"

#define PROGRESS_EVERY_US (100 * 1000) /* at most one progress notification this often */
#define ROOTS_WAIT_MS 5000             /* reads wait this long for the client's roots, then go on */
#define ROOTS_ID_PREFIX "readerd-roots-"

const char *const mcp_default_excludes[] = {
    ".env",     ".env.*",     "*.pem",        "*.key",  "*.p12",  "id_rsa",  "id_rsa.*",
    "id_ecdsa", "id_ed25519", "id_ed25519.*", ".netrc", ".npmrc", ".pypirc", NULL,
};

McpConfig mcp_config;

void mcp_configure(const McpOptions *opt) {
  GPtrArray *ex = g_ptr_array_new();

  mcp_configure_clear();
  mcp_config.roots = opt->roots != NULL ? g_strdupv((char **)opt->roots) : NULL;
  for (size_t i = 0; !opt->no_default_excludes && mcp_default_excludes[i] != NULL; i++)
    g_ptr_array_add(ex, g_strdup(mcp_default_excludes[i]));
  for (size_t i = 0; opt->exclude != NULL && opt->exclude[i] != NULL; i++)
    g_ptr_array_add(ex, g_strdup(opt->exclude[i]));
  g_ptr_array_add(ex, NULL);
  mcp_config.exclude = (char **)g_ptr_array_free(ex, FALSE);
}

void mcp_configure_clear(void) {
  g_clear_pointer(&mcp_config.roots, g_strfreev);
  g_clear_pointer(&mcp_config.exclude, g_strfreev);
}

Mcp *mcp_of(const Conn *c) {
  return conn_state(c);
}

static void call_free(void *data) {
  McpCall *call = data;

  if (call->token != NULL)
    json_node_unref(call->token);
  g_free(call->uri);
  g_free(call);
}

void mcp_reply(Conn *c, JsonNode *id, const char *result_json, const McpCache *cache) {
  g_autofree char *modern = NULL;

  if (!mcp_of(c)->modern) {
    reply_result(c, id, result_json);
    return;
  }
  modern = mcp_result_modern(result_json, cache);
  reply_result(c, id, modern);
}

/* A request other than a read, waiting for the fence. */
typedef struct {
  JsonNode *id;
  JsonNode *params; /* may be NULL */
  char *text;       /* may be NULL */
  size_t text_len;
  size_t len;
  McpWaitingFn fn;
} McpWaiting;

static void waiting_free(void *data) {
  McpWaiting *w = data;

  json_node_unref(w->id);
  if (w->params != NULL)
    json_node_unref(w->params);
  g_free(w->text);
  g_free(w);
}

void mcp_when_fenced(Conn *c, JsonNode *id, JsonNode *params, const char *text, size_t text_len,
                     size_t len, McpWaitingFn fn) {
  Mcp *m = mcp_of(c);
  McpWaiting *w;

  /* In order: none overtakes a call still waiting. */
  if (mcp_fence_ready(m) && m->waiting->len == 0) {
    fn(c, id, params, text, text_len, len);
    return;
  }
  w = g_new0(McpWaiting, 1);
  w->id = json_node_copy(id);
  w->params = params != NULL ? json_node_copy(params) : NULL;
  /* The line it points into is freed once dispatched. */
  w->text = text != NULL ? g_memdup2(text, text_len) : NULL;
  w->text_len = text_len;
  w->len = len;
  w->fn = fn;
  g_ptr_array_add(m->waiting, w);
}

/* The fence is built: reads start in it. The job fails closed (workspace-job.h); should it
 * still bring no fence, reads meet one over no folder, never none. */
static void fence_done_cb(void *data, Workspace *ws, char *error, char **warnings) {
  Mcp *m = data;

  m->fencing = NULL;
  /* Each warning reaches the client too: why a file is refused is not only on stderr. */
  for (size_t i = 0; warnings != NULL && warnings[i] != NULL; i++)
    mcp_log(m->conn, MCP_LOG_WARNING, warnings[i]);
  if (ws == NULL) {
    g_autofree char *text = g_strdup_printf("%s: no file will be read", error);

    mcp_log(m->conn, MCP_LOG_ERROR, text);
    ws = workspace_new_closed();
  }
  /* A fence over no folder says why to every call that meets it. */
  g_clear_pointer(&m->fence_problem, g_free);
  if (m->roots_unusable != NULL)
    mcp_log(m->conn, MCP_LOG_WARNING, m->roots_unusable);
  if (workspace_closed(ws)) {
    const char *why = m->roots_unusable != NULL ? m->roots_unusable
                      : warnings != NULL && warnings[0] != NULL
                          ? warnings[g_strv_length(warnings) - 1]
                      : error != NULL ? error
                                      : "the fence holds no folder";
    const char *tail = g_strrstr(why, ": no file will be read");

    m->fence_problem = g_strdup_printf(
        "No file can be read: %.*s. Start readerd mcp with --root FOLDER, or list a folder as a "
        "root in the client.",
        tail != NULL && tail[strlen(": no file will be read")] == '\0' ? (int)(tail - why)
                                                                       : (int)strlen(why),
        why);
  }
  g_clear_pointer(&m->roots_unusable, g_free);
  g_strfreev(warnings);
  g_free(error);
  workspace_unref(m->ws);
  m->ws = ws;
  conn_progress(m->conn);
}

/* Builds the fence over the folders of `roots` (NULL: the working directory) on the pool
 * (workspace-job.h); reads wait for it. A newer fence replaces one still being built. */
void mcp_fence(Mcp *m, const char *const *roots) {
  g_strfreev(m->fence_roots);
  m->fence_roots = roots != NULL ? g_strdupv((char **)roots) : NULL;
  workspace_job_detach(m->fencing);
  m->fencing = workspace_job_roots(conn_loop(m->conn), roots,
                                   (const char *const *)mcp_config.exclude, fence_done_cb, m);
}

/* Reads and read_images calls wait for the client's roots and for their fence. */
bool mcp_fence_ready(const Mcp *m) {
  return !m->roots_pending && m->fencing == NULL;
}

static void read_done_cb(Conn *c, ReadCall *rc, Request *req, int status) {
  g_autofree char *envelope = NULL, *tail = NULL;
  McpCall *call = rc->data;
  size_t head_len, n, chars = 0, tail_len;
  GString **pieces;
  char *head;

  /* A cancelled call is not answered (the client has moved on). */
  if (status != 0)
    return;
  pieces = request_take_output(req, &n);
  if (pieces == NULL) {
    reply_error(c, rc->id, JSONRPC_INTERNAL_ERROR, "formatting the result failed");
    return;
  }
  if (request_failed_count(req) > 0)
    mcp_log_excluded(c, call != NULL ? call->log_level : -1, pieces, n);
  if (call != NULL && call->uri != NULL) {
    mcp_resources_answer(c, call, rc->id, pieces, n);
    return;
  }
  /* A result past what the client keeps inline asks for room in its _meta. */
  for (size_t i = 0; i < n; i++)
    chars += pieces[i]->len;
  tail = mcp_read_result_tail(chars, mcp_of(c)->modern, &tail_len);
  envelope = jsonrpc_format_result_head(rc->id, &head_len);
  head = g_strconcat(envelope, MCP_READ_RESULT_HEAD, NULL);
  /* The tail goes with the last piece: conn_send_pieces() does not own a tail of its own. */
  g_string_append_len(pieces[n - 1], tail, (gssize)tail_len);
  conn_send_pieces(c, head, strlen(head), pieces, n, "", 0);
}

static void read_progress_cb(Conn *c, ReadCall *rc, size_t done, size_t total) {
  McpCall *call = rc->data;
  gint64 now = g_get_monotonic_time();
  size_t len;
  char *line;

  if (call == NULL || call->token == NULL ||
      (done < total && now - call->last_us < PROGRESS_EVERY_US))
    return;
  call->last_us = now;
  line = mcp_progress_line(call->token, done, total, &len);
  conn_send_line(c, line, len);
}

/* read_images' answer: the <ReadImagesResult> XML, or the endpoint's failure as the tool's
 * error, with what was read. */
static void vision_answer(Conn *c, JsonNode *id, VisionCall *call) {
  g_autofree char *xml = vision_call_result_xml(call), *text = NULL, *result = NULL;
  bool failed = vision_call_status(call) != 0;

  text = failed ? g_strdup_printf("%s\n%s", vision_call_error(call), xml) : g_steal_pointer(&xml);
  result = mcp_tool_text_json(text, failed);
  mcp_reply(c, id, result, NULL);
}

static void *mcp_new_state(Conn *c) {
  Mcp *m = g_new0(Mcp, 1);

  m->conn = c;
  m->budget = mcp_client_budget(NULL);
  m->log_level = MCP_LOG_WARNING;
  m->vision = rpc_vision_new(c, vision_answer);
  m->waiting = g_ptr_array_new_with_free_func(waiting_free);
  m->completing = g_ptr_array_new();
  m->reads = read_queue_new(c, REQUEST_OUTPUT_BARE, read_done_cb, read_progress_cb, call_free);
  mcp_fence(m, (const char *const *)mcp_config.roots);
  return m;
}

static void mcp_free_state(void *state) {
  Mcp *m = state;

  workspace_job_detach(m->fencing);
  reply_parse_detach(m->parsing);
  read_queue_free(m->reads);
  rpc_vision_free(m->vision);
  g_ptr_array_free(m->waiting, TRUE);
  mcp_completion_detach_all(m);
  g_ptr_array_free(m->completing, TRUE);
  if (m->files != NULL)
    g_ptr_array_unref(m->files);
  workspace_unref(m->ws);
  g_strfreev(m->fence_roots);
  g_free(m->fence_problem);
  g_free(m->roots_unusable);
  g_free(m);
}

void mcp_progress(Conn *c) {
  Mcp *m = mcp_of(c);

  /* Until the client says where its roots are and their fence is built, reads wait: they
   * would meet the wrong fence. */
  if (!mcp_fence_ready(m))
    return;
  read_queue_start(m->reads, m->ws);
  while (m->waiting->len > 0 && mcp_fence_ready(m)) {
    McpWaiting *w = g_ptr_array_steal_index(m->waiting, 0);

    w->fn(c, w->id, w->params, w->text, w->text_len, w->len);
    waiting_free(w);
  }
}

static bool mcp_busy(Conn *c) {
  Mcp *m = mcp_of(c);

  /* Calls waiting for the fence count as reads waiting: the connection stops reading. */
  return m->parsing != NULL || read_queue_busy(m->reads) ||
         m->waiting->len >= READ_QUEUE_MAX_WAITING;
}

static bool mcp_idle(Conn *c) {
  Mcp *m = mcp_of(c);

  return m->parsing == NULL && read_queue_idle(m->reads) && rpc_vision_idle(m->vision) &&
         m->waiting->len == 0 && m->completing->len == 0;
}

static void timer_free_cb(uv_handle_t *h) {
  g_free(h);
}

static void mcp_closing(Conn *c) {
  Mcp *m = mcp_of(c);

  read_queue_close(m->reads);
  rpc_vision_close(m->vision);
  g_ptr_array_set_size(m->waiting, 0);
  mcp_completion_detach_all(m);
  workspace_job_detach(g_steal_pointer(&m->fencing));
  reply_parse_detach(g_steal_pointer(&m->parsing));
  /* Freed in its own close callback: the state goes before the timer is done closing. */
  if (m->roots_timer != NULL)
    uv_close((uv_handle_t *)g_steal_pointer(&m->roots_timer), timer_free_cb);
}

/* The client did not answer roots/list in time: reads go on in the fence they had. */
static void roots_timeout_cb(uv_timer_t *t) {
  Mcp *m = t->data;
  g_autofree char *text = NULL;

  if (!m->roots_pending)
    return;
  text = g_strdup_printf("the client did not answer roots/list within %d ms; reading in the "
                         "fence the server started with",
                         ROOTS_WAIT_MS);
  mcp_log(m->conn, MCP_LOG_WARNING, text);
  m->roots_pending = false;
  conn_progress(m->conn);
}

/* Asks the client for its roots, when it offers them, no --root was given, and it speaks the
 * initialize era (a 2026-07-28 server sends no request of its own on stdio). */
static void ask_roots(Conn *c) {
  Mcp *m = mcp_of(c);
  g_autofree char *id = NULL;
  size_t len;
  char *line;

  if (!m->client_roots || mcp_config.roots != NULL || m->modern)
    return;
  id = g_strdup_printf(ROOTS_ID_PREFIX "%u", ++m->roots_asked);
  line = mcp_request_line(id, "roots/list", &len);
  m->roots_pending = true;
  if (m->roots_timer == NULL) {
    m->roots_timer = g_new0(uv_timer_t, 1);
    uv_timer_init(conn_loop(c), m->roots_timer);
    m->roots_timer->data = m;
  }
  uv_timer_start(m->roots_timer, roots_timeout_cb, ROOTS_WAIT_MS, 0);
  conn_send_line(c, line, len);
}

void mcp_fence_roots_answer(Mcp *m, JsonNode *answer, const char *what) {
  g_autofree char *err = NULL;
  g_auto(GStrv) roots = NULL, skipped = NULL;

  /* Each root on its own: one that cannot be used is left out and said, never a reason to
   * keep a wider fence. */
  if (mcp_roots_parse(answer, &roots, &skipped, &err) < 0) {
    g_free(m->roots_unusable);
    m->roots_unusable = g_strdup_printf("the client's %s cannot be used (%s)", what, err);
    mcp_fence(m, (const char *const *)(char *[]){NULL});
    return;
  }
  for (size_t i = 0; skipped != NULL && skipped[i] != NULL; i++)
    mcp_log(m->conn, MCP_LOG_WARNING, skipped[i]);
  if (roots[0] == NULL && skipped != NULL && skipped[0] != NULL) {
    g_free(m->roots_unusable);
    m->roots_unusable = g_strdup_printf("the client's %s names no local folder (%s)", what,
                                        skipped[0]);
  }
  mcp_fence(m, (const char *const *)roots);
}

/* The client's answer to the last roots/list: the new fence for reads from now on. */
static void handle_response(Conn *c, const JsonrpcMessage *msg) {
  Mcp *m = mcp_of(c);
  g_autofree char *want = g_strdup_printf("s:" ROOTS_ID_PREFIX "%u", m->roots_asked);
  g_autofree char *key = jsonrpc_id_key(msg->id);
  JsonObject *o = json_node_get_object(msg->root);

  if (key == NULL || strcmp(key, want) != 0)
    return; /* not ours, or an older roots/list's */
  m->roots_pending = false;
  if (!json_object_has_member(o, "result")) {
    mcp_log(c, MCP_LOG_WARNING,
            "roots/list failed (the client answered an error); reading in "
            "the fence the server started with");
  } else {
    mcp_fence_roots_answer(m, json_object_get_member(o, "result"), "roots/list answer");
  }
  if (m->roots_timer != NULL)
    uv_timer_stop(m->roots_timer);
  /* The reads that waited for the roots start now. */
  mcp_progress(c);
}

JsonObject *mcp_params(const JsonrpcMessage *msg) {
  return msg->params != NULL && JSON_NODE_HOLDS_OBJECT(msg->params)
             ? json_node_get_object(msg->params)
             : NULL;
}

static void handle_initialize(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *result = NULL;
  JsonObject *p = mcp_params(msg);
  const char *asked = NULL;
  JsonNode *caps, *info;

  if (p != NULL && json_object_has_member(p, "protocolVersion") &&
      JSON_NODE_HOLDS_VALUE(json_object_get_member(p, "protocolVersion")) &&
      json_node_get_value_type(json_object_get_member(p, "protocolVersion")) == G_TYPE_STRING)
    asked = json_object_get_string_member(p, "protocolVersion");
  caps = p != NULL ? json_object_get_member(p, "capabilities") : NULL;
  mcp_of(c)->client_roots = caps != NULL && JSON_NODE_HOLDS_OBJECT(caps) &&
                            json_object_has_member(json_node_get_object(caps), "roots");
  info = p != NULL ? json_object_get_member(p, "clientInfo") : NULL;
  if (info != NULL && JSON_NODE_HOLDS_OBJECT(info))
    mcp_of(c)->budget = mcp_client_budget(
        json_object_get_string_member_with_default(json_node_get_object(info), "name", NULL));
  /* A client that probed with server/discover and fell back speaks the initialize era. */
  mcp_of(c)->modern = false;
  result = mcp_initialize_result_json(mcp_protocol_version(asked));
  reply_result(c, msg->id, result);
}

static void handle_ping(Conn *c, const JsonrpcMessage *msg, size_t len) {
  mcp_reply(c, msg->id, "{}", NULL);
}

/* The methods, by name. */
static const struct {
  const char *method;
  void (*handle)(Conn *c, const JsonrpcMessage *msg, size_t len);
} methods[] = {
    {"initialize", handle_initialize},
    {"server/discover", mcp_server_discover},
    {"ping", handle_ping},
    {"logging/setLevel", mcp_logging_set_level},
    {"tools/list", mcp_tools_list},
    {"tools/call", mcp_tools_call},
    {"resources/list", mcp_resources_list},
    {"resources/templates/list", mcp_resources_templates_list},
    {"resources/read", mcp_resources_read},
    {"completion/complete", mcp_completion_complete},
};

static void handle_request(Conn *c, const JsonrpcMessage *msg, size_t len) {
  g_autofree char *text = NULL;

  if (strcmp(msg->method, "server/discover") != 0 && mcp_request_era(c, msg) < 0)
    return;
  if (msg->value_error != NULL) {
    /* The MCP specification: errors in a tool's arguments are the tool's result, with isError;
     * a malformed request of another method stays the protocol's error. */
    if (strcmp(msg->method, "tools/call") == 0) {
      g_autofree char *why = g_strdup_printf("invalid arguments: %s", msg->value_error);
      g_autofree char *result = mcp_tool_error_json(why);

      mcp_reply(c, msg->id, result, NULL);
    } else {
      text = g_strdup_printf("invalid request: %s", msg->value_error);
      reply_error(c, msg->id, JSONRPC_INVALID_REQUEST, text);
    }
    return;
  }
  if (mcp_modern_roots(c, msg))
    return;
  for (size_t i = 0; i < G_N_ELEMENTS(methods); i++) {
    if (strcmp(msg->method, methods[i].method) == 0) {
      methods[i].handle(c, msg, len);
      return;
    }
  }
  text = g_strdup_printf("unknown method: %s", msg->method);
  reply_error(c, msg->id, JSONRPC_METHOD_NOT_FOUND, text);
}

static void handle_notification(Conn *c, const JsonrpcMessage *msg) {
  const char *m = msg->method;

  if (strcmp(m, "notifications/initialized") == 0 ||
      strcmp(m, "notifications/roots/list_changed") == 0) {
    ask_roots(c);
  } else if (strcmp(m, "notifications/cancelled") == 0 && msg->params != NULL &&
             JSON_NODE_HOLDS_OBJECT(msg->params)) {
    JsonNode *id = json_object_get_member(json_node_get_object(msg->params), "requestId");
    g_autofree char *key = id != NULL ? jsonrpc_id_key(id) : NULL;

    if (key != NULL) {
      GPtrArray *waiting = mcp_of(c)->waiting;

      read_queue_cancel(mcp_of(c)->reads, key);
      rpc_vision_cancel(mcp_of(c)->vision, key);
      /* A call still waiting for the fence is dropped: nothing is answered for it. */
      for (guint i = waiting->len; i > 0; i--) {
        g_autofree char *k = jsonrpc_id_key(((McpWaiting *)waiting->pdata[i - 1])->id);

        if (g_strcmp0(k, key) == 0)
          g_ptr_array_remove_index(waiting, i - 1);
      }
    }
  }
  /* Other notifications are never answered. */
}

static const ReplyDispatch mcp_dispatch = {
    .request = handle_request,
    .notification = handle_notification,
    .response = handle_response,
    /* A tools/call argument json-glib cannot keep is the tool's error, which the model reads;
     * a tools/call's arguments are taken from the line's text (mcp-tools.c). */
    .parse_flags = JSONRPC_PARSE_KEEP_PARAM_VALUES | JSONRPC_PARSE_CALL_TEXT,
};

static void mcp_parsed(Conn *c) {
  mcp_of(c)->parsing = NULL;
}

static void mcp_line(Conn *c, const char *line, size_t len) {
  mcp_of(c)->parsing = reply_dispatch_line(c, line, len, &mcp_dispatch, mcp_parsed);
}

const ConnHandler mcp_handler = {
    .new_state = mcp_new_state,
    .free_state = mcp_free_state,
    .line = mcp_line,
    .oversized = reply_oversized,
    .busy = mcp_busy,
    .progress = mcp_progress,
    .idle = mcp_idle,
    .closing = mcp_closing,
};
