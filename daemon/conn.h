/* One client connection: a Unix socket, or stdin/stdout. Frames lines, dispatches JSON-RPC
 * methods, writes responses. Lives on the loop thread. */
#pragma once

#include <stdbool.h>

#include <uv.h>

typedef struct Conn Conn;

/* Called once when the connection is fully closed, just before the Conn is freed. */
typedef void (*ConnClosedCb)(Conn *c, void *data);

/* Accepts a pending client of `server`. Returns the new connection (reading), or NULL with
 * *ret_err set to a libuv error code. */
Conn *conn_accept(uv_loop_t *loop, uv_stream_t *server, ConnClosedCb closed_cb, void *data,
                  int *ret_err);

/* A connection on a connected Unix socket the caller already has (an inherited socket, or
 * one end of a socketpair in tests). On success the connection owns fd; on failure (NULL,
 * *ret_err set) the caller still does. */
Conn *conn_open_fd(uv_loop_t *loop, int fd, ConnClosedCb closed_cb, void *data, int *ret_err);

/* A connection on two descriptors (pipes or a terminal), for `serve --stdio`. At end of
 * input the connection answers what it has, then closes. Returns NULL with *ret_err set when
 * a descriptor cannot be used. */
Conn *conn_open_stdio(uv_loop_t *loop, int in_fd, int out_fd, ConnClosedCb closed_cb, void *data,
                      int *ret_err);

/* Closes the connection: its requests are cancelled and detached (their work is freed when it
 * completes), its handles closed; closed_cb follows. Safe to call more than once. */
void conn_close(Conn *c);

#define CONN_EXIT_OUTPUT 3 /* an answer could not be written (stdio) */

/* The process exit status the client asked for: CONN_EXIT_OUTPUT when an answer could not
 * be written on a stdio connection, 1 when it sent exit without shutdown first, else 0. */
int conn_exit_status(const Conn *c);
