/* readImages on a readerd connection (rpc.c): the vision settings initialize gave, the calls in
 * flight (at most RPC_VISION_MAX_CALLS), their answers, cancelling one by its id, and detaching
 * them all when the connection closes. Loop thread. */
#pragma once

#include <stdbool.h>

#include <json-glib/json-glib.h>

#include "daemon/conn.h"
#include "daemon/readers/workspace.h"
#include "ipc/jsonrpc.h"

#define RPC_VISION_MAX_CALLS 4

typedef struct RpcVision RpcVision;

/* The readImages state of connection c. */
RpcVision *rpc_vision_new(Conn *c);

/* Cancels and detaches the calls still running (they free themselves when they end) and
 * frees the state. NULL is fine. */
void rpc_vision_free(RpcVision *rv);

/* Takes initialize's `vision` settings from its params. Returns 0, or -EINVAL with *ret_error
 * (g_malloc'd); the settings are then unchanged. */
int rpc_vision_initialize(RpcVision *rv, JsonNode *params, char **ret_error);

/* Answers or starts one readImages request, in workspace ws (may be NULL). */
void rpc_vision_request(RpcVision *rv, const JsonrpcMessage *msg, Workspace *ws);

/* Cancels the call whose id has key `key`, when there is one: it answers "request cancelled". */
void rpc_vision_cancel(RpcVision *rv, const char *key);

/* The connection is closing: every call is cancelled and nothing more is answered. */
void rpc_vision_close(RpcVision *rv);

/* True when no call runs. */
bool rpc_vision_idle(const RpcVision *rv);
