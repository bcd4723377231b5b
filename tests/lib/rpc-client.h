/* A client connection to readerd, over its socket or over two descriptors (its stdin and
 * stdout in stdio mode): sending bytes, receiving lines and JSON-RPC messages, requests with
 * ids, waiting for the response to one id while keeping the others for later.
 *
 * Every wait has a deadline; a function that cannot do its job fails the current check test
 * with a message saying why (the rd_conn_try_* and rd_conn_recv_line ones return -errno
 * instead). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <json-glib/json-glib.h>

/* Default deadline for one answer, in milliseconds. */
#define RD_TIMEOUT_MS 30000

/* One connection; opaque. */
typedef struct RdConn RdConn;

/* Connects to a socket, retrying up to timeout_ms. Returns the descriptor or -errno. */
int rd_socket_connect(const char *path, int timeout_ms);

/* A connection to the socket; fails the test when it cannot connect within 10 s. Freed with
 * rd_conn_free(). */
RdConn *rd_conn_new(const char *sock);

/* A connection over two descriptors (write to wfd, read from rfd); takes both. */
RdConn *rd_conn_new_fds(int rfd, int wfd);

/* Closes the connection and frees it; NULL is fine. */
void rd_conn_free(RdConn *c);

/* Stops writing: half-closes a socket, closes a pipe. */
void rd_conn_close_write(RdConn *c);

/* Writes everything (reading whatever arrives meanwhile, so that neither side blocks). Returns
 * 0, or -errno when the peer went away or nothing could be written for timeout_ms. */
int rd_conn_try_send(RdConn *c, const void *data, size_t len, int timeout_ms);

/* rd_conn_try_send() with RD_TIMEOUT_MS that fails the test on error. */
void rd_conn_send(RdConn *c, const void *data, size_t len);

/* rd_conn_send() of a NUL-terminated string (without its NUL). */
void rd_conn_send_str(RdConn *c, const char *s);

/* Receives one line (without its '\n'). Returns 1 with *ret_line g_malloc'd, 0 at end of
 * stream, -ETIMEDOUT when no full line came within timeout_ms, or another -errno. */
int rd_conn_recv_line(RdConn *c, int timeout_ms, char **ret_line);

/* Receives one message: fails the test unless it is a JSON object with "jsonrpc": "2.0".
 * Queued messages (received while waiting for another id) come first. The caller unrefs it. */
JsonNode *rd_conn_recv(RdConn *c, int timeout_ms);

/* True when the peer closes the connection within timeout_ms (messages that arrive first are
 * dropped). */
bool rd_conn_wait_closed(RdConn *c, int timeout_ms);

/* Sends a request. `params` is JSON text or NULL, `id` JSON text (a number or a string) or NULL
 * for the next integer. Returns the id's key (rd_id_key), g_malloc'd. */
char *rd_conn_request(RdConn *c, const char *method, const char *params, const char *id);

/* Sends a notification (no id); `params` is JSON text or NULL. */
void rd_conn_notify(RdConn *c, const char *method, const char *params);

/* Waits for the response whose id has key `key`; other responses are kept for later waits.
 * Fails the test after timeout_ms. The caller unrefs the message. */
JsonNode *rd_conn_wait(RdConn *c, const char *key, int timeout_ms);

/* rd_conn_request() then rd_conn_wait() with RD_TIMEOUT_MS. The caller unrefs the message. */
JsonNode *rd_conn_call(RdConn *c, const char *method, const char *params);

/* "n:7" for the number 7, "s:7" for the string "7", "null" for null or a missing id (id may be
 * NULL). g_malloc'd. */
char *rd_id_key(JsonNode *id);

/* The error code of a response, or 0 when it has none; fails the test when its error lacks a
 * code or a non-empty message. */
int rd_error_code(JsonNode *msg);

/* The result object of a response; fails the test (naming the error's code) when it has none.
 * Points into msg. */
JsonObject *rd_result_of(JsonNode *msg);

/* The response's id key (rd_id_key of its "id"). g_malloc'd. */
char *rd_msg_id_key(JsonNode *msg);
