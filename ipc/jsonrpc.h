/* JSON-RPC 2.0 messages: parsing and validation of one line, and formatting of responses.
 * Pure, no I/O; json-glib for the JSON. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

enum {
  JSONRPC_PARSE_ERROR = -32700,
  JSONRPC_INVALID_REQUEST = -32600,
  JSONRPC_METHOD_NOT_FOUND = -32601,
  JSONRPC_INVALID_PARAMS = -32602,
  JSONRPC_INTERNAL_ERROR = -32603,
  JSONRPC_REQUEST_CANCELLED = -32800,
};

/* Deepest nesting of arrays and objects accepted in a message; deeper is a parse error. */
#define JSONRPC_MAX_DEPTH 128

typedef enum {
  JSONRPC_KIND_REQUEST,      /* has id and method: must be answered */
  JSONRPC_KIND_NOTIFICATION, /* method, no id: never answered */
  JSONRPC_KIND_RESPONSE,     /* result or error, no method: a client's answer; ignored */
} JsonrpcKind;

typedef struct {
  JsonrpcKind kind;
  const char *method; /* points into root; NULL for a response */
  JsonNode *id;       /* points into root: a number or string node; NULL for a notification */
  JsonNode *params;   /* points into root: object or array, NULL when absent or as text */
  /* With JSONRPC_PARSE_READ_TEXT, a `read` request's params (an object or an array) as they
   * are in the line, never built into a tree (params is NULL): strict JSON without a noted
   * value, for read_params_parse_json(). Valid while the line is. NULL otherwise. */
  const char *params_text;
  size_t params_len;
  /* With JSONRPC_PARSE_CALL_TEXT, a `tools/call` request's params.arguments (an object) as it
   * is in the line, never built into a tree (params holds the other members): strict JSON
   * without a noted value, for mcp_tool_call_parse(). Valid while the line is. NULL otherwise. */
  const char *arguments_text;
  size_t arguments_len;
  JsonNode *root;     /* owned */
  /* With JSONRPC_PARSE_KEEP_PARAM_VALUES: a value below the envelope's members (in params)
   * that json-glib could not keep as sent (static text), or NULL. */
  const char *value_error;
} JsonrpcMessage;

/* jsonrpc_parse_flags()'s flags. */
enum {
  /* A request whose only fault is a value json-glib cannot keep as sent (an integer beyond 64
   * bits, \u0000, an unpaired surrogate) inside a member of the envelope is returned with
   * msg->value_error set, for the handler to answer (MCP's tool errors), instead of as
   * JSONRPC_INVALID_REQUEST. */
  JSONRPC_PARSE_KEEP_PARAM_VALUES = 1 << 0,
  /* A `read` request's params are left as text (msg->params_text), not built: its paths are
   * most of a large line, and read_params_parse_json() takes them straight from the text. */
  JSONRPC_PARSE_READ_TEXT = 1 << 1,
  /* A `tools/call` request's params.arguments, when an object, are left as text
   * (msg->arguments_text), not built: read_files' paths are most of a large call, and
   * mcp_tool_call_parse() takes them straight from the text. */
  JSONRPC_PARSE_CALL_TEXT = 1 << 2,
};

/* Parses and validates one line. On success returns 0 and fills *ret_msg (clear it with
 * jsonrpc_message_clear). On failure returns JSONRPC_PARSE_ERROR or JSONRPC_INVALID_REQUEST,
 * sets *ret_error to a g_malloc'd message, and sets *ret_id to a copy of the request's id when
 * one could be read (else NULL; free with json_node_unref). Batches (arrays) are refused as
 * JSONRPC_INVALID_REQUEST. `line` need not be NUL-terminated. Only strict JSON is accepted (no
 * comments, no nesting deeper than JSONRPC_MAX_DEPTH); strings with \u0000 or unpaired
 * surrogates and integers beyond 64 bits make an invalid request. A null "params" is absent. */
int jsonrpc_parse(const char *line, size_t len, JsonrpcMessage *ret_msg, JsonNode **ret_id,
                  char **ret_error);

/* jsonrpc_parse() with flags (JSONRPC_PARSE_*). */
int jsonrpc_parse_flags(const char *line, size_t len, unsigned flags, JsonrpcMessage *ret_msg,
                        JsonNode **ret_id, char **ret_error);

/* Releases what the message owns and zeroes it; NULL is fine. */
void jsonrpc_message_clear(JsonrpcMessage *msg);

/* A canonical key for an id, so that 7 and "7" differ: "n:7", "s:7". g_malloc'd; NULL id or
 * an id that is neither number nor string gives NULL. */
char *jsonrpc_id_key(JsonNode *id);

/* One error response line, '\n'-terminated: {"jsonrpc":"2.0","id":ID|null,"error":{code,message}}.
 * id may be NULL (written as null). g_malloc'd; length in *ret_len when not NULL. */
char *jsonrpc_format_error(JsonNode *id, int code, const char *message, size_t *ret_len);

/* jsonrpc_format_error() with a "data" member after the message: data_json (serialized JSON,
 * embedded as it is; NULL: no data). */
char *jsonrpc_format_error_data(JsonNode *id, int code, const char *message,
                                const char *data_json, size_t *ret_len);

/* What ends a result response line after the result itself. */
#define JSONRPC_RESULT_TAIL "}\n"

/* The start of a result response line, up to and including `"result":`; the result and
 * JSONRPC_RESULT_TAIL complete it. Lets a caller send a huge result without copying it.
 * g_malloc'd; length in *ret_len when not NULL. */
char *jsonrpc_format_result_head(JsonNode *id, size_t *ret_len);

/* One result response line, '\n'-terminated, embedding result_json (already serialized JSON,
 * e.g. "null" or an object) verbatim, without copying it through a JSON tree. g_malloc'd. */
char *jsonrpc_format_result(JsonNode *id, const char *result_json, size_t result_len,
                            size_t *ret_len);
