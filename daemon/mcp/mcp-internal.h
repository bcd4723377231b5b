/* What the files of `readerd mcp`'s connection side share (daemon/mcp*.c): the state of one
 * connection and the helpers that answer on it. Loop thread. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

#include "daemon/conn.h"
#include "daemon/read-queue.h"
#include "daemon/readers/workspace.h"
#include "daemon/reply.h"
#include "daemon/rpc-vision.h"
#include "daemon/workspace-job.h"
#include "ipc/jsonrpc.h"
#include "ipc/mcp/mcp.h"

typedef struct {
  ReadQueue *reads;
  Workspace *ws;           /* the fence reads start in */
  char **fence_roots;      /* the folders of that fence (NULL: the working directory) */
  char *fence_problem;     /* why no file can be read in it, or NULL */
  char *roots_unusable;    /* why the client's last roots answer could not be used, or NULL */
  WorkspaceJob *fencing;   /* the fence being built on the pool: reads wait */
  ReplyParse *parsing;     /* a long line being parsed on the pool: the lines after it wait */
  bool client_roots;       /* the client offers roots/list */
  bool modern;             /* the client speaks 2026-07-28: results say their resultType */
  bool modern_roots_known; /* a 2026-07-28 client sent its roots (inputResponses.roots) */
  int log_level;           /* notifications/message at this level and above; -1: none */
  int64_t budget;          /* tokens of a read_files call that names none (by client) */
  bool roots_pending;      /* roots/list asked, not answered: reads wait */
  unsigned roots_asked;    /* roots/list requests sent */
  uv_timer_t *roots_timer; /* ends the wait for roots; allocated on first use, freed when closed */
  RpcVision *vision;       /* read_images calls */
  GPtrArray *waiting;      /* McpWaiting *: calls that are not reads, waiting for the fence */
  GPtrArray *completing;   /* McpCompletion *: completion/complete walks on the pool */
  GPtrArray *files;        /* char *: the files of the fence, as the last walk found them */
  gint64 files_us;         /* when that walk was made */
  Conn *conn;
} Mcp;

/* The options the server was started with (mcp_configure). */
typedef struct {
  char **roots;
  char **exclude; /* defaults and --exclude together */
} McpConfig;

extern McpConfig mcp_config;

Mcp *mcp_of(const Conn *c);

/* Answers a request with result_json, which in the 2026-07-28 era gains resultType (and, with
 * a cache, ttlMs and cacheScope). */
void mcp_reply(Conn *c, JsonNode *id, const char *result_json, const McpCache *cache);

/* Sends text as notifications/message at `level` when the client asked for that level (by
 * default, warnings and above in the initialize era), and logs it on stderr. */
void mcp_log(Conn *c, McpLogLevel level, const char *text);

/* The same for what one request caused: at `threshold` (the level that request asked for, or
 * the connection's when it was made; -1: none) and above. */
void mcp_log_for(Conn *c, int threshold, McpLogLevel level, const char *text);

/* Starts what may start now that something changed (the handler's progress): reads and calls
 * waiting for the fence, once it is ready. */
void mcp_progress(Conn *c);

/* True once the client's roots are known and their fence is built. */
bool mcp_fence_ready(const Mcp *m);

/* A request that waits for the fence before it is answered (not a read: the read queue holds
 * those). text (text_len bytes; NULL: none) is the part of it left as text in its line
 * (tools/call's arguments, JSONRPC_PARSE_CALL_TEXT). */
typedef void (*McpWaitingFn)(Conn *c, JsonNode *id, JsonNode *params, const char *text,
                             size_t text_len, size_t len);

/* Runs fn(c, id, params, text, text_len, len) now when the fence is ready, else once it is
 * (len: the request's size). id, params and text are copied when it waits. */
void mcp_when_fenced(Conn *c, JsonNode *id, JsonNode *params, const char *text, size_t text_len,
                     size_t len, McpWaitingFn fn);

/* A read in flight: its progress token, and for resources/read the resource's URI. */
typedef struct {
  JsonNode *token;
  gint64 last_us;
  char *uri;     /* resources/read: the answer is the resource's contents */
  int log_level; /* notifications/message of this read at this level and above; -1: none */
} McpCall;

/* The params of a request as an object, or NULL. */
JsonObject *mcp_params(const JsonrpcMessage *msg);

/* Builds the fence over the folders of `roots` (NULL: the working directory) on the pool;
 * calls wait for it. A newer fence replaces one still being built. */
void mcp_fence(Mcp *m, const char *const *roots);

/* The fence from a client's roots answer (roots/list's result, or 2026-07-28's roots input):
 * each root taken on its own, the unusable ones left out and logged; none usable, a fence over
 * no folder that says why to every call. `what` names the answer in those words. */
void mcp_fence_roots_answer(Mcp *m, JsonNode *answer, const char *what);

/* A request's era from its _meta (mcp-era.c): 0, or -EPROTO when it named a revision readerd
 * does not speak and was answered -32022. */
int mcp_request_era(Conn *c, const JsonrpcMessage *msg);

/* In the 2026-07-28 era, asks a client that offers roots for them inside the answer to msg, or
 * takes them from msg's inputResponses. Returns true when msg was answered. */
bool mcp_modern_roots(Conn *c, const JsonrpcMessage *msg);

/* Says (mcp_log_for) how many of a read's files an exclude pattern refused, looking through
 * its output pieces. */
void mcp_log_excluded(Conn *c, int threshold, GString **pieces, size_t n);

/* The methods of the other files, by the table in mcp.c. */
void mcp_server_discover(Conn *c, const JsonrpcMessage *msg, size_t len);
void mcp_logging_set_level(Conn *c, const JsonrpcMessage *msg, size_t len);
void mcp_resources_list(Conn *c, const JsonrpcMessage *msg, size_t len);
void mcp_resources_templates_list(Conn *c, const JsonrpcMessage *msg, size_t len);
void mcp_resources_read(Conn *c, const JsonrpcMessage *msg, size_t len);
void mcp_completion_complete(Conn *c, const JsonrpcMessage *msg, size_t len);

/* resources/read's answer from a read's output (pieces taken). */
void mcp_resources_answer(Conn *c, McpCall *call, JsonNode *id, GString **pieces, size_t n);

/* Detaches the completion walks still on the pool (the connection is closing). */
void mcp_completion_detach_all(Mcp *m);

/* True when a vision model is configured: read_images is offered. */
bool mcp_vision_configured(void);

/* tools/list and tools/call (mcp-tools.c). */
void mcp_tools_list(Conn *c, const JsonrpcMessage *msg, size_t len);
void mcp_tools_call(Conn *c, const JsonrpcMessage *msg, size_t len);
