/* readImages on a connection, readerd's own (rpc.c) or MCP's (mcp.c, the read_images tool):
 * the vision settings initialize gave, the calls in flight (at most RPC_VISION_MAX_CALLS),
 * their answers in the protocol's shape, cancelling one by its id, and detaching them all when
 * the connection closes. Loop thread. */
#pragma once

#include <stdbool.h>

#include <json-glib/json-glib.h>

#include "daemon/conn.h"
#include "daemon/readers/workspace.h"
#include "daemon/vision/vision.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-images-params.h"

#define RPC_VISION_MAX_CALLS 4

typedef struct RpcVision RpcVision;

/* Answers call (ended, not cancelled) to request id on c, in the protocol's shape. */
typedef void (*RpcVisionAnswerFn)(Conn *c, JsonNode *id, VisionCall *call);

/* The readImages state of connection c; answer NULL: readerd's JSON-RPC shape (result, or an
 * error with data). A cancelled call is answered "request cancelled" in readerd's shape only. */
RpcVision *rpc_vision_new(Conn *c, RpcVisionAnswerFn answer);

/* Cancels and detaches the calls still running (they free themselves when they end) and
 * frees the state. NULL is fine. */
void rpc_vision_free(RpcVision *rv);

/* Takes initialize's `vision` settings from its params. Returns 0, or -EINVAL with *ret_error
 * (g_malloc'd); the settings are then unchanged. */
int rpc_vision_initialize(RpcVision *rv, JsonNode *params, char **ret_error);

/* Answers or starts one readImages request, in workspace ws (may be NULL). */
void rpc_vision_request(RpcVision *rv, const JsonrpcMessage *msg, Workspace *ws);

/* Starts a call for request id with params (taken, zeroed), in workspace ws (may be NULL).
 * Returns 0, or with *ret_error (g_malloc'd) -EINVAL when the settings name no model, -EBUSY
 * when RPC_VISION_MAX_CALLS run; nothing is answered then. */
int rpc_vision_start(RpcVision *rv, JsonNode *id, ReadImagesParams *params, Workspace *ws,
                     char **ret_error);

/* Cancels the call whose id has key `key`, when there is one: it answers "request cancelled". */
void rpc_vision_cancel(RpcVision *rv, const char *key);

/* The connection is closing: every call is cancelled and nothing more is answered. */
void rpc_vision_close(RpcVision *rv);

/* True when no call runs. */
bool rpc_vision_idle(const RpcVision *rv);
