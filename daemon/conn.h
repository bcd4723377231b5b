/* One client connection, the transport: a Unix socket, or stdin/stdout. Reads and frames
 * lines, hands each to the connection's handler (the protocol it speaks: rpc.h for readerd's
 * own methods), writes what the handler sends, pauses reading while the handler or the client
 * is behind, and closes once everything asked was answered. Lives on the loop thread. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <uv.h>

typedef struct Conn Conn;

/* Reading pauses while this much is queued for the client and not written. */
#define CONN_MAX_UNSENT ((size_t)8 * 1024 * 1024)

/* The protocol side of a connection. Every callback runs on the loop thread. */
typedef struct {
  /* Sets up the handler's state for a new connection; freed by free_state. */
  void *(*new_state)(Conn *c);
  void (*free_state)(void *state);
  /* One line with content (empty lines and lines of only blanks are not handed on). */
  void (*line)(Conn *c, const char *line, size_t len);
  /* A line over FRAME_MAX_LINE was skipped. */
  void (*oversized)(Conn *c);
  /* True while the handler holds so much not yet started that no more lines should be read. */
  bool (*busy)(Conn *c);
  /* Something changed (an answer was written, a line read): start what may start now. */
  void (*progress)(Conn *c);
  /* True when everything received was answered. */
  bool (*idle)(Conn *c);
  /* The connection is closing: cancel and detach what is under way; nothing may be sent. */
  void (*closing)(Conn *c);
} ConnHandler;

/* Called once when the connection is fully closed, just before the Conn is freed. */
typedef void (*ConnClosedCb)(Conn *c, void *data);

/* Accepts a pending client of `server`, speaking `handler`. Returns the new connection
 * (reading), or NULL with *ret_err set to a libuv error code. */
Conn *conn_accept(uv_loop_t *loop, uv_stream_t *server, const ConnHandler *handler,
                  ConnClosedCb closed_cb, void *data, int *ret_err);

/* A connection on a connected Unix socket the caller already has (an inherited socket, or
 * one end of a socketpair in tests). On success the connection owns fd; on failure (NULL,
 * *ret_err set) the caller still does. */
Conn *conn_open_fd(uv_loop_t *loop, int fd, const ConnHandler *handler, ConnClosedCb closed_cb,
                   void *data, int *ret_err);

/* A connection on two descriptors (pipes or a terminal), for `serve --stdio`. At end of
 * input the connection answers what it has, then closes. Returns NULL with *ret_err set when
 * a descriptor cannot be used. */
Conn *conn_open_stdio(uv_loop_t *loop, int in_fd, int out_fd, const ConnHandler *handler,
                      ConnClosedCb closed_cb, void *data, int *ret_err);

/* The handler's state, as its new_state() made it. */
void *conn_state(const Conn *c);

/* The connection's loop. */
uv_loop_t *conn_loop(const Conn *c);

/* Queues one line (with its '\n'); takes ownership of line (g_malloc'd), even on failure. */
void conn_send_line(Conn *c, char *line, size_t len);

/* Queues head, the pieces and tail in one vectored write, without copying them: takes
 * ownership of head (g_malloc'd), the pieces and their array (g_free); tail is static. */
void conn_send_pieces(Conn *c, char *head, size_t head_len, GString **pieces, size_t n,
                      const char *tail, size_t tail_len);

/* Bytes queued for the client and not yet written. */
size_t conn_unsent(const Conn *c);

/* The handler holds `bytes` more for the client (a waiting read, a running read's
 * reservation), or gives them back: counted with the connection's unsent output and partial
 * line in what the daemon holds (daemon/hold.h). */
void conn_hold(Conn *c, size_t bytes);
void conn_release(Conn *c, size_t bytes);

/* True when the connection may hold `bytes` more: the daemon has room, or the connection is
 * within its fair part, or (`idle`: the handler runs nothing for it) its client has taken
 * every answer it was sent, one at least, and the daemon is within twice its cap. When not,
 * the connection is moved on (conn_progress) once there is room. */
bool conn_may_hold(Conn *c, size_t bytes, bool idle);

/* True once the connection is closing: nothing more can be sent. */
bool conn_is_closing(const Conn *c);

/* The client is done (an `exit` notification): nothing more is read; the connection closes
 * once what it had asked is answered and written. */
void conn_end(Conn *c);

/* Moves the connection on after the handler changed something outside a callback (a request
 * finished): starts what may start, reads on or closes. */
void conn_progress(Conn *c);

/* Closes the connection: the handler cancels and detaches its work, the handles close;
 * closed_cb follows. Safe to call more than once. */
void conn_close(Conn *c);

#define CONN_EXIT_OUTPUT 3 /* an answer could not be written (stdio) */

/* Sets the process exit status the client asked for (stdio mode), 0 by default. */
void conn_set_exit_status(Conn *c, int status);

/* The process exit status: CONN_EXIT_OUTPUT when an answer could not be written on a stdio
 * connection, else what the handler set. */
int conn_exit_status(const Conn *c);
