/* JSON-RPC on a connection, for the handlers that speak it (rpc.c, mcp.c): answering, and
 * turning a line into a message for the handler's functions. Loop thread. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>
#include <uv.h>

#include "daemon/conn.h"
#include "ipc/jsonrpc.h"

/* A handler's functions for each kind of message; len is the line's length. */
typedef struct {
  void (*request)(Conn *c, const JsonrpcMessage *msg, size_t len);
  void (*notification)(Conn *c, const JsonrpcMessage *msg);
  void (*response)(Conn *c, const JsonrpcMessage *msg); /* may be NULL: ignored */
  unsigned parse_flags; /* jsonrpc_parse_flags()'s */
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

/* Lines this long or longer are parsed on the pool (reply_dispatch_line()): the parse takes
 * about 30 instructions a byte (a read's paths left as text: 3.7 M for 2,000 paths, some 0.3 ms),
 * and other lines' trees more, which the loop, serving
 * every client, must not spend. */
#define REPLY_POOL_LINE ((size_t)16 * 1024)

typedef struct ReplyParse ReplyParse;

/* reply_dispatch(), with a line of REPLY_POOL_LINE bytes or more parsed on the pool: returns the
 * job; later, on the loop, parsed(c) is called (the handler forgets the job), the message is
 * dispatched and the connection moved on (conn_progress). Meanwhile the handler holds the lines
 * after it: its busy() says true while it has the job. At most 2 long lines are parsed at once,
 * daemon-wide (pool-gate.h); the others wait their turn. A shorter line is dispatched at once,
 * and NULL returned. The line is copied. */
ReplyParse *reply_dispatch_line(Conn *c, const char *line, size_t len, const ReplyDispatch *d,
                                void (*parsed)(Conn *c));

/* Nothing will be dispatched (the connection is closing): a job still waiting for its turn is
 * freed now, one being parsed frees itself once the pool is done with it. NULL is fine. */
void reply_parse_detach(ReplyParse *p);
