#include "daemon/mcp.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "daemon/log.h"
#include "daemon/read-queue.h"
#include "daemon/reply.h"
#include "daemon/readers/workspace.h"
#include "daemon/request.h"
#include "daemon/rpc-vision.h"
#include "daemon/workspace-job.h"
#include "ipc/jsonrpc.h"
#include "ipc/mcp.h"

#define PROGRESS_EVERY_US (100 * 1000) /* at most one progress notification this often */
#define ROOTS_WAIT_MS 5000             /* reads wait this long for the client's roots, then go on */
#define ROOTS_ID_PREFIX "readerd-roots-"

const char *const mcp_default_excludes[] = {
    ".env",     ".env.*",     "*.pem",        "*.key",  "*.p12",  "id_rsa",  "id_rsa.*",
    "id_ecdsa", "id_ed25519", "id_ed25519.*", ".netrc", ".npmrc", ".pypirc", NULL,
};

static struct {
  char **roots;
  char **exclude; /* defaults and --exclude together */
} config;

/* A tools/call in flight: its progress token, when the client asked for progress. */
typedef struct {
  JsonNode *token;
  gint64 last_us;
} Call;

typedef struct {
  ReadQueue *reads;
  Workspace *ws;           /* the fence reads start in */
  WorkspaceJob *fencing;   /* the fence being built on the pool: reads wait */
  Workspace *unrooted;     /* ws when the client gave no usable root: reads answer why */
  char *unrooted_why;      /* what the client gave, said in those answers */
  ReplyParse *parsing;     /* a long line being parsed on the pool: the lines after it wait */
  bool client_roots;       /* the client offers roots/list */
  int64_t budget;          /* tokens of a read_files call that names none (by client) */
  bool roots_pending;      /* roots/list asked, not answered: reads wait */
  unsigned roots_asked;    /* roots/list requests sent */
  uv_timer_t *roots_timer; /* ends the wait for roots; allocated on first use, freed when closed */
  RpcVision *vision;       /* read_images calls */
  GPtrArray *vision_waiting; /* VisionWaiting *: read_images calls waiting for the roots */
  Conn *conn;
} Mcp;

void mcp_configure(const McpOptions *opt) {
  GPtrArray *ex = g_ptr_array_new();

  mcp_configure_clear();
  config.roots = opt->roots != NULL ? g_strdupv((char **)opt->roots) : NULL;
  for (size_t i = 0; !opt->no_default_excludes && mcp_default_excludes[i] != NULL; i++)
    g_ptr_array_add(ex, g_strdup(mcp_default_excludes[i]));
  for (size_t i = 0; opt->exclude != NULL && opt->exclude[i] != NULL; i++)
    g_ptr_array_add(ex, g_strdup(opt->exclude[i]));
  g_ptr_array_add(ex, NULL);
  config.exclude = (char **)g_ptr_array_free(ex, FALSE);
}

void mcp_configure_clear(void) {
  g_clear_pointer(&config.roots, g_strfreev);
  g_clear_pointer(&config.exclude, g_strfreev);
}

/* A read_images call made before the client said where its roots are. */
typedef struct {
  JsonNode *id;
  ReadImagesParams params;
} VisionWaiting;

static void vision_waiting_free(void *data) {
  VisionWaiting *w = data;

  json_node_unref(w->id);
  read_images_params_clear(&w->params);
  g_free(w);
}

static Mcp *mcp_of(const Conn *c) {
  return conn_state(c);
}

static void call_free(void *data) {
  Call *call = data;

  if (call->token != NULL)
    json_node_unref(call->token);
  g_free(call);
}

/* The client gave no root that can be used: reads from now on meet a fence over no folder
 * and answer why (a tool error), never the wider fence of the working directory. why is
 * taken. */
static void fence_unrooted(Mcp *m, char *why) {
  log_warning("mcp: %s: no file will be read", why);
  workspace_unref(m->ws);
  m->ws = workspace_new_closed();
  workspace_unref(m->unrooted);
  m->unrooted = workspace_ref(m->ws);
  g_free(m->unrooted_why);
  m->unrooted_why = why;
}

/* The tool's error of a call made in the fence of fence_unrooted(), or NULL when ws is another
 * fence. g_free the result. */
static char *unrooted_error(const Mcp *m, const Workspace *ws) {
  g_autofree char *text = NULL;

  if (m->unrooted == NULL || ws != m->unrooted)
    return NULL;
  text = g_strdup_printf("no file can be read: %s. Files are read once the client's roots/list "
                         "names a local folder (file:// URI).",
                         m->unrooted_why);
  return mcp_tool_error_json(text);
}

/* The fence is built: reads start in it. The job fails closed (workspace-job.h); should it
 * still bring no fence, reads meet one over no folder, never none. */
static void fence_done_cb(void *data, Workspace *ws, char *error) {
  Mcp *m = data;

  m->fencing = NULL;
  if (ws == NULL) {
    fence_unrooted(m, g_strdup_printf("the workspace could not be built: %s", error));
    g_free(error);
  } else if (error != NULL) {
    /* A closed fence, and why: no root the client gave is a folder. */
    workspace_unref(ws);
    fence_unrooted(m, error);
  } else {
    g_clear_pointer(&m->unrooted, workspace_unref);
    g_clear_pointer(&m->unrooted_why, g_free);
    workspace_unref(m->ws);
    m->ws = ws;
  }
  conn_progress(m->conn);
}

/* Builds the fence over the folders of `roots` (NULL: the working directory) on the pool
 * (workspace-job.h); reads wait for it. A newer fence replaces one still being built. */
static void fence(Mcp *m, const char *const *roots) {
  workspace_job_detach(m->fencing);
  m->fencing = workspace_job_roots(conn_loop(m->conn), roots, (const char *const *)config.exclude,
                                   fence_done_cb, m);
}

/* A fence still being built is dropped: the answer that came after it decides. */
static void fence_fresh(Mcp *m) {
  workspace_job_detach(g_steal_pointer(&m->fencing));
}

/* Reads and read_images calls wait for the client's roots and for their fence. */
static bool fence_ready(const Mcp *m) {
  return !m->roots_pending && m->fencing == NULL;
}

static void read_done_cb(Conn *c, ReadCall *call, Request *req, int status) {
  g_autofree char *envelope = NULL, *tail = NULL, *unrooted = NULL;
  size_t head_len, n, chars = 0, tail_len;
  GString **pieces;
  char *head;

  /* A cancelled call is not answered (the client has moved on). */
  if (status != 0)
    return;
  unrooted = unrooted_error(mcp_of(c), request_workspace(req));
  if (unrooted != NULL) {
    reply_result(c, call->id, unrooted);
    return;
  }
  pieces = request_take_output(req, &n);
  if (pieces == NULL) {
    reply_error(c, call->id, JSONRPC_INTERNAL_ERROR, "formatting the result failed");
    return;
  }
  /* A result past what the client keeps inline asks for room in its _meta. */
  for (size_t i = 0; i < n; i++)
    chars += pieces[i]->len;
  tail = mcp_read_result_tail(chars, &tail_len);
  envelope = jsonrpc_format_result_head(call->id, &head_len);
  head = g_strconcat(envelope, MCP_READ_RESULT_HEAD, NULL);
  /* The tail goes with the last piece: conn_send_pieces() does not own a tail of its own. */
  g_string_append_len(pieces[n - 1], tail, (gssize)tail_len);
  conn_send_pieces(c, head, strlen(head), pieces, n, "", 0);
}

static void read_progress_cb(Conn *c, ReadCall *rc, size_t done, size_t total) {
  Call *call = rc->data;
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
  reply_result(c, id, result);
}

/* True when a vision model is configured: read_images is offered. */
static bool vision_configured(void) {
  const char *model = getenv("READERD_VISION_MODEL");

  return model != NULL && *model != '\0';
}

static void *mcp_new_state(Conn *c) {
  Mcp *m = g_new0(Mcp, 1);

  m->conn = c;
  m->budget = mcp_client_budget(NULL);
  m->vision = rpc_vision_new(c, vision_answer);
  m->vision_waiting = g_ptr_array_new_with_free_func(vision_waiting_free);
  m->reads = read_queue_new(c, REQUEST_OUTPUT_BARE, read_done_cb, read_progress_cb, call_free);
  fence(m, (const char *const *)config.roots);
  return m;
}

static void mcp_free_state(void *state) {
  Mcp *m = state;

  workspace_job_detach(m->fencing);
  reply_parse_detach(m->parsing);
  read_queue_free(m->reads);
  rpc_vision_free(m->vision);
  g_ptr_array_free(m->vision_waiting, TRUE);
  workspace_unref(m->ws);
  workspace_unref(m->unrooted);
  g_free(m->unrooted_why);
  g_free(m);
}

static void vision_start(Conn *c, JsonNode *id, ReadImagesParams *params);

static void mcp_progress(Conn *c) {
  Mcp *m = mcp_of(c);

  /* Until the client says where its roots are and their fence is built, reads wait: they
   * would meet the wrong fence. */
  if (!fence_ready(m))
    return;
  read_queue_start(m->reads, m->ws);
  while (m->vision_waiting->len > 0) {
    VisionWaiting *w = g_ptr_array_steal_index(m->vision_waiting, 0);

    vision_start(c, w->id, &w->params);
    vision_waiting_free(w);
  }
}

static bool mcp_busy(Conn *c) {
  return mcp_of(c)->parsing != NULL || read_queue_busy(mcp_of(c)->reads);
}

static bool mcp_idle(Conn *c) {
  return mcp_of(c)->parsing == NULL && read_queue_idle(mcp_of(c)->reads) &&
         rpc_vision_idle(mcp_of(c)->vision) && mcp_of(c)->vision_waiting->len == 0;
}

static void timer_free_cb(uv_handle_t *h) {
  g_free(h);
}

static void mcp_closing(Conn *c) {
  Mcp *m = mcp_of(c);

  read_queue_close(m->reads);
  rpc_vision_close(m->vision);
  g_ptr_array_set_size(m->vision_waiting, 0);
  workspace_job_detach(g_steal_pointer(&m->fencing));
  reply_parse_detach(g_steal_pointer(&m->parsing));
  /* Freed in its own close callback: the state goes before the timer is done closing. */
  if (m->roots_timer != NULL)
    uv_close((uv_handle_t *)g_steal_pointer(&m->roots_timer), timer_free_cb);
}

/* The client did not answer roots/list in time: reads go on in the fence they had. */
static void roots_timeout_cb(uv_timer_t *t) {
  Mcp *m = t->data;

  if (!m->roots_pending)
    return;
  log_warning("mcp: the client did not answer roots/list within %d ms; reading in the fence "
              "the server started with",
              ROOTS_WAIT_MS);
  m->roots_pending = false;
  conn_progress(m->conn);
}

/* Asks the client for its roots, when it offers them and no --root was given. */
static void ask_roots(Conn *c) {
  Mcp *m = mcp_of(c);
  g_autofree char *id = NULL;
  size_t len;
  char *line;

  if (!m->client_roots || config.roots != NULL)
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

/* The client's answer to the last roots/list: the new fence for reads from now on. */
static void handle_response(Conn *c, const JsonrpcMessage *msg) {
  Mcp *m = mcp_of(c);
  g_autofree char *want = g_strdup_printf("s:" ROOTS_ID_PREFIX "%u", m->roots_asked);
  g_autofree char *key = jsonrpc_id_key(msg->id);
  g_autofree char *err = NULL;
  JsonObject *o = json_node_get_object(msg->root);
  g_auto(GStrv) roots = NULL, skipped = NULL;

  if (key == NULL || strcmp(key, want) != 0)
    return; /* not ours, or an older roots/list's */
  m->roots_pending = false;
  if (!json_object_has_member(o, "result")) {
    log_warning("mcp: roots/list failed (the client answered an error); reading in the fence "
                "reads had");
  } else if (mcp_roots_parse(json_object_get_member(o, "result"), &roots, &skipped, &err) < 0) {
    fence_fresh(m);
    fence_unrooted(m, g_strdup_printf("no usable workspace root was given (%s)", err));
  } else {
    for (char **s = skipped; *s != NULL; s++)
      log_warning("mcp: %s", *s);
    fence_fresh(m);
    if (roots[0] == NULL)
      fence_unrooted(m, g_strdup(skipped[0] != NULL
                                     ? "no usable workspace root was given (roots/list named no "
                                       "local folder; see the server's log)"
                                     : "no usable workspace root was given (roots/list is empty)"));
    else
      fence(m, (const char *const *)roots);
  }
  if (m->roots_timer != NULL)
    uv_timer_stop(m->roots_timer);
  /* The reads that waited for the roots start now. */
  mcp_progress(c);
}

static void handle_initialize(Conn *c, const JsonrpcMessage *msg) {
  g_autofree char *result = NULL;
  JsonObject *p = msg->params != NULL && JSON_NODE_HOLDS_OBJECT(msg->params)
                      ? json_node_get_object(msg->params)
                      : NULL;
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
  result = mcp_initialize_result_json(mcp_protocol_version(asked));
  reply_result(c, msg->id, result);
}

/* Starts a read_images call (params taken) in the fence reads have now; no model to ask is
 * the tool's error. */
static void vision_start(Conn *c, JsonNode *id, ReadImagesParams *params) {
  g_autofree char *err = NULL, *result = unrooted_error(mcp_of(c), mcp_of(c)->ws);
  Mcp *m = mcp_of(c);

  if (result != NULL) {
    read_images_params_clear(params);
    reply_result(c, id, result);
    return;
  }
  if (rpc_vision_start(m->vision, id, params, m->ws, &err) == 0)
    return;
  result = mcp_tool_error_json(err);
  reply_result(c, id, result);
}

/* read_images: bad arguments are the tool's error; the call waits for the client's roots as
 * reads do. */
static void handle_read_images(Conn *c, const JsonrpcMessage *msg, JsonNode *arguments) {
  g_autofree char *err = NULL, *result = NULL;
  ReadImagesParams params;
  Mcp *m = mcp_of(c);
  VisionWaiting *w;

  if (mcp_read_images_args_parse(arguments, &params, &err) < 0) {
    result = mcp_tool_error_json(err);
    reply_result(c, msg->id, result);
    return;
  }
  if (fence_ready(m)) {
    vision_start(c, msg->id, &params);
    return;
  }
  w = g_new0(VisionWaiting, 1);
  w->id = json_node_copy(msg->id);
  w->params = params;
  g_ptr_array_add(m->vision_waiting, w);
}

/* tools/call: bad arguments are the tool's error (the model reads it and can try again); an
 * unknown tool is the protocol's. */
static void handle_call(Conn *c, const JsonrpcMessage *msg, size_t len) {
  JsonObject *p = msg->params != NULL && JSON_NODE_HOLDS_OBJECT(msg->params)
                      ? json_node_get_object(msg->params)
                      : NULL;
  JsonNode *name = p != NULL ? json_object_get_member(p, "name") : NULL;
  JsonNode *meta = p != NULL ? json_object_get_member(p, "_meta") : NULL;
  g_autofree char *err = NULL;
  ReadParams params;
  Call *call;

  if (name != NULL && JSON_NODE_HOLDS_VALUE(name) &&
      json_node_get_value_type(name) == G_TYPE_STRING &&
      strcmp(json_node_get_string(name), MCP_TOOL_READ_IMAGES) == 0 && vision_configured()) {
    handle_read_images(c, msg, json_object_get_member(p, "arguments"));
    return;
  }
  if (name == NULL || !JSON_NODE_HOLDS_VALUE(name) ||
      json_node_get_value_type(name) != G_TYPE_STRING ||
      strcmp(json_node_get_string(name), MCP_TOOL_READ_FILES) != 0) {
    g_autofree char *text =
        g_strdup_printf("unknown tool: %s", name != NULL && JSON_NODE_HOLDS_VALUE(name) &&
                                                    json_node_get_value_type(name) == G_TYPE_STRING
                                                ? json_node_get_string(name)
                                                : "(no name)");

    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS, text);
    return;
  }
  read_params_init(&params);
  if (mcp_read_args_parse(json_object_get_member(p, "arguments"), mcp_of(c)->budget, &params,
                          &err) < 0) {
    g_autofree char *result = mcp_tool_error_json(err);

    reply_result(c, msg->id, result);
    return;
  }
  call = g_new0(Call, 1);
  if (meta != NULL && JSON_NODE_HOLDS_OBJECT(meta) &&
      json_object_has_member(json_node_get_object(meta), "progressToken"))
    call->token =
        json_node_copy(json_object_get_member(json_node_get_object(meta), "progressToken"));
  read_queue_add(mcp_of(c)->reads, msg->id, &params, len, call);
  mcp_progress(c);
}

static void handle_request(Conn *c, const JsonrpcMessage *msg, size_t len) {
  const char *m = msg->method;

  if (msg->value_error != NULL) {
    /* The MCP specification: errors in a tool's arguments are the tool's result, with isError;
     * a malformed request of another method stays the protocol's error. */
    g_autofree char *text = g_strdup_printf(
        strcmp(m, "tools/call") == 0 ? "invalid arguments: %s" : "invalid request: %s",
        msg->value_error);
    g_autofree char *result = NULL;

    if (strcmp(m, "tools/call") == 0) {
      result = mcp_tool_error_json(text);
      reply_result(c, msg->id, result);
    } else {
      reply_error(c, msg->id, JSONRPC_INVALID_REQUEST, text);
    }
    return;
  }

  if (strcmp(m, "initialize") == 0) {
    handle_initialize(c, msg);
  } else if (strcmp(m, "ping") == 0) {
    reply_result(c, msg->id, "{}");
  } else if (strcmp(m, "tools/list") == 0) {
    reply_result(c, msg->id,
                 vision_configured() ? mcp_tools_list_vision_json() : mcp_tools_list_json());
  } else if (strcmp(m, "tools/call") == 0) {
    handle_call(c, msg, len);
  } else {
    g_autofree char *text = g_strdup_printf("unknown method: %s", m);

    reply_error(c, msg->id, JSONRPC_METHOD_NOT_FOUND, text);
  }
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
      GPtrArray *waiting = mcp_of(c)->vision_waiting;

      read_queue_cancel(mcp_of(c)->reads, key);
      rpc_vision_cancel(mcp_of(c)->vision, key);
      for (guint i = waiting->len; i > 0; i--) {
        g_autofree char *k = jsonrpc_id_key(((VisionWaiting *)waiting->pdata[i - 1])->id);

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
    /* A tools/call argument json-glib cannot keep is the tool's error, which the model reads. */
    .parse_flags = JSONRPC_PARSE_KEEP_PARAM_VALUES,
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
