/* JSON-RPC on a connection, for the handlers that speak it (rpc.c, mcp.c): answering, and
 * turning a line into a message for the handler's functions. Loop thread. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

#include "daemon/conn.h"
#include "ipc/jsonrpc.h"

/* A handler's functions for each kind of message; len is the line's length. */
typedef struct {
  void (*request)(Conn *c, const JsonrpcMessage *msg, size_t len);
  void (*notification)(Conn *c, const JsonrpcMessage *msg);
  void (*response)(Conn *c, const JsonrpcMessage *msg); /* may be NULL: ignored */
} ReplyDispatch;

/* Parses one line and hands it to d; a line that is not a valid message is answered with its
 * error (-32700 or -32600). */
void reply_dispatch(Conn *c, const char *line, size_t len, const ReplyDispatch *d);

/* Sends an error response; id may be NULL (null). */
void reply_error(Conn *c, JsonNode *id, int code, const char *message);

/* Sends a result response embedding result_json (serialized JSON) as it is. */
void reply_result(Conn *c, JsonNode *id, const char *result_json);

/* Answers a line over FRAME_MAX_LINE (-32600, id null). */
void reply_oversized(Conn *c);
