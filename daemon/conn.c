#include "daemon/conn.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include <glib.h>

#include "daemon/hold.h"
#include "daemon/log.h"
#include "basic/macro.h"
#include "daemon/out-fd.h"
#include "ipc/frame.h"

#define CONN_READ_BUF ((size_t)64 * 1024)

typedef union {
  uv_handle_t handle;
  uv_stream_t stream;
  uv_pipe_t pipe;
  uv_tty_t tty;
} StreamHandle;

/* One uv_write: a line of its own, or a head, pieces and a tail. Everything here but the tail
 * is owned and freed when the write completes. */
typedef struct {
  uv_write_t req;
  Conn *conn;
  char *line;       /* a whole line, or the head */
  GString **pieces; /* or NULL */
  size_t n_pieces;
  uv_buf_t *bufs;
  unsigned int n_bufs;
  size_t bytes; /* the buffers' length, held until the write completes */
} WriteReq;

struct Conn {
  uv_loop_t *loop;
  StreamHandle in;
  StreamHandle out; /* stdio mode only; otherwise `in` is used both ways */
  uv_stream_t *out_stream;
  bool stdio;
  int handles_open;

  const ConnHandler *handler;
  void *state; /* the handler's */
  Framer *framer;
  size_t writes; /* uv_write requests not yet completed */
  size_t queued; /* their bytes */
  size_t held;   /* what the handler holds for the client (conn_hold) */
  bool taken;    /* a write completed: the client takes answers */
  HoldAccount hold;

  bool reading;
  bool eof;   /* end of input: answer what was asked, then close */
  bool ended; /* the client said it is done (exit): read nothing more */
  bool closing;
  bool output_failed; /* a write failed */
  int exit_status;

  ConnClosedCb closed_cb;
  void *data;
  char rbuf[CONN_READ_BUF];
};

static void conn_finish(Conn *c);
static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
  Conn *c = h->data;

  buf->base = c->rbuf;
  buf->len = sizeof(c->rbuf);
}

static void conn_free(Conn *c) {
  hold_leave(&c->hold);
  if (c->closed_cb != NULL)
    c->closed_cb(c, c->data);
  c->handler->free_state(c->state);
  framer_free(c->framer);
  g_free(c);
}

static void close_cb(uv_handle_t *h) {
  Conn *c = h->data;

  if (--c->handles_open == 0) {
    conn_free(c);
    /* Its part of the daemon's total is free for the others. */
    hold_wake();
  }
}

static void write_req_free(WriteReq *wr) {
  g_free(wr->line);
  for (size_t i = 0; i < wr->n_pieces; i++)
    g_string_free(wr->pieces[i], TRUE);
  g_free(wr->pieces);
  g_free(wr->bufs);
  g_free(wr);
}

/* Counts what the connection holds now in the daemon's total (nothing once closing). */
static void conn_recharge(Conn *c) {
  hold_set(&c->hold, c->closing ? 0 : c->queued + c->held + framer_pending(c->framer));
}

static void write_cb(uv_write_t *w, int status) {
  WriteReq *wr = container_of(w, WriteReq, req);
  Conn *c = wr->conn;

  c->queued -= wr->bytes;
  write_req_free(wr);
  c->writes--;
  conn_recharge(c);
  c->taken |= status == 0;
  if (status < 0 && status != UV_ECANCELED && !c->closing) {
    log_debug("write failed: %s", uv_strerror(status));
    c->output_failed = true;
    conn_close(c);
    return;
  }
  if (!c->closing)
    conn_progress(c);
}

/* Queues a write of wr's buffers; on failure frees wr and closes the connection. */
static void conn_write_req(Conn *c, WriteReq *wr) {
  int r =
      c->closing ? UV_ECANCELED : uv_write(&wr->req, c->out_stream, wr->bufs, wr->n_bufs, write_cb);

  if (r < 0) {
    if (r != UV_ECANCELED) {
      log_debug("write failed: %s", uv_strerror(r));
      c->output_failed = true;
    }
    write_req_free(wr);
    conn_close(c);
    return;
  }
  c->writes++;
  for (unsigned int i = 0; i < wr->n_bufs; i++)
    wr->bytes += wr->bufs[i].len;
  c->queued += wr->bytes;
  conn_recharge(c);
}

void conn_send_line(Conn *c, char *line, size_t len) {
  WriteReq *wr = g_new0(WriteReq, 1);

  wr->conn = c;
  wr->line = line;
  wr->bufs = g_new(uv_buf_t, 1);
  wr->n_bufs = 1;
  /* Set directly: uv_buf_init takes an unsigned int. */
  wr->bufs[0].base = line;
  wr->bufs[0].len = len;
  conn_write_req(c, wr);
}

void conn_send_pieces(Conn *c, char *head, size_t head_len, GString **pieces, size_t n,
                      const char *tail, size_t tail_len) {
  WriteReq *wr = g_new0(WriteReq, 1);

  wr->conn = c;
  wr->line = head;
  wr->pieces = pieces;
  wr->n_pieces = n;
  wr->bufs = g_new(uv_buf_t, n + 2);
  wr->bufs[0].base = head;
  wr->bufs[0].len = head_len;
  for (size_t i = 0; i < n; i++) {
    wr->bufs[i + 1].base = pieces[i]->str;
    wr->bufs[i + 1].len = pieces[i]->len;
  }
  /* libuv only reads the buffers. */
  wr->bufs[n + 1].base = (char *)tail;
  wr->bufs[n + 1].len = tail_len;
  wr->n_bufs = (unsigned int)(n + 2);
  conn_write_req(c, wr);
}

size_t conn_unsent(const Conn *c) {
  return c->out_stream->write_queue_size;
}

void conn_hold(Conn *c, size_t bytes) {
  c->held += bytes;
  conn_recharge(c);
}

void conn_release(Conn *c, size_t bytes) {
  g_assert(bytes <= c->held);
  c->held -= bytes;
  conn_recharge(c);
}

bool conn_may_hold(Conn *c, size_t bytes, bool idle) {
  conn_recharge(c);
  return hold_allows(&c->hold, bytes, idle && c->taken && c->queued == 0);
}

void *conn_state(const Conn *c) {
  return c->state;
}

uv_loop_t *conn_loop(const Conn *c) {
  return c->loop;
}

bool conn_is_closing(const Conn *c) {
  return c->closing;
}

void conn_set_exit_status(Conn *c, int status) {
  c->exit_status = status;
}

int conn_exit_status(const Conn *c) {
  if (c->stdio && c->output_failed)
    return CONN_EXIT_OUTPUT;
  return c->exit_status;
}

static void drain_lines(Conn *c) {
  const char *line;
  size_t len;
  int r;

  /* Lines stay in the framer while the handler is busy: reading is paused then, so they are
   * at most one read's worth. */
  while (!c->closing && !c->ended && !c->handler->busy(c) &&
         (r = framer_next(c->framer, &line, &len)) != 0) {
    if (r == -E2BIG) {
      c->handler->oversized(c);
      continue;
    }
    /* Empty lines, and lines of only spaces, tabs and CRs, are ignored. */
    if (frame_line_has_content(line, len))
      c->handler->line(c, line, len);
  }
}

/* Reading pauses while the handler is busy or the client has not taken its answers, or while
 * the daemon holds all it may and this connection at least its fair part. */
static bool overloaded(Conn *c) {
  conn_recharge(c);
  return c->handler->busy(c) || conn_unsent(c) >= CONN_MAX_UNSENT || hold_over(&c->hold);
}

static void pause_reading(Conn *c) {
  if (c->reading) {
    uv_read_stop(&c->in.stream);
    c->reading = false;
  }
}

void conn_progress(Conn *c) {
  if (c->closing)
    return;
  c->handler->progress(c);
  drain_lines(c);
  if (!c->closing) {
    if (c->eof || c->ended)
      conn_finish(c);
    else if (overloaded(c))
      pause_reading(c);
    else if (!c->reading && uv_read_start(&c->in.stream, alloc_cb, read_cb) == 0)
      c->reading = true;
  }
  /* What this connection gave back may let others go on. */
  hold_wake();
}

/* The daemon has room again: this connection, which was waiting for it, goes on. */
static void hold_wake_cb(HoldAccount *a) {
  conn_progress(container_of(a, Conn, hold));
}

void conn_end(Conn *c) {
  c->ended = true;
  conn_finish(c);
}

/* True when the peer of a socket closed both ways (not only its writing side): then
 * nobody would read the answers. */
static bool peer_gone(Conn *c) {
  struct pollfd p = {.events = POLLOUT};

  if (uv_fileno(&c->in.handle, &p.fd) < 0)
    return true;
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)) != 0;
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
  Conn *c = s->data;

  if (nread > 0) {
    framer_feed(c->framer, buf->base, (size_t)nread);
    conn_progress(c);
    return;
  }
  if (nread == 0)
    return;
  if (nread != UV_EOF)
    log_debug("read failed: %s", uv_strerror((int)nread));
  pause_reading(c);
  if (nread == UV_EOF && (c->stdio || !peer_gone(c))) {
    /* A client that stops writing (stdin closed, or a socket shut down for writing) still
     * gets the answers to what it asked, a last line without its newline included. */
    c->eof = true;
    framer_end(c->framer);
    conn_progress(c);
  } else {
    /* Nobody is left to answer: the work is cancelled. */
    conn_close(c);
  }
}

/* Closes once nothing is left to answer or to write. After exit, or at the end of input
 * (stdin closed, a socket shut down for writing), what was already received is still
 * answered: a client that wants it dropped disconnects instead. */
static void conn_finish(Conn *c) {
  pause_reading(c);
  if (c->closing)
    return;
  /* With lines held back by a busy handler, those requests are still to come. */
  if (c->handler->idle(c) && c->writes == 0 && (c->ended || framer_pending(c->framer) == 0))
    conn_close(c);
}

void conn_close(Conn *c) {
  if (c->closing)
    return;
  c->closing = true;
  pause_reading(c);
  /* The answers still being written are freed as their writes are cancelled. */
  hold_leave(&c->hold);
  c->handler->closing(c);
  uv_close(&c->in.handle, close_cb);
  if (c->stdio)
    uv_close(&c->out.handle, close_cb);
}

static Conn *conn_new(uv_loop_t *loop, const ConnHandler *handler, ConnClosedCb closed_cb,
                      void *data) {
  Conn *c = g_new0(Conn, 1);

  c->loop = loop;
  c->handler = handler;
  c->framer = framer_new(FRAME_MAX_LINE);
  c->closed_cb = closed_cb;
  c->data = data;
  c->in.handle.data = c;
  c->out.handle.data = c;
  c->out_stream = &c->in.stream;
  hold_join(&c->hold, hold_wake_cb);
  c->state = handler->new_state(c);
  return c;
}

static int conn_start(Conn *c) {
  int r = uv_read_start(&c->in.stream, alloc_cb, read_cb);

  if (r == 0)
    c->reading = true;
  return r;
}

/* Starts reading a socket connection whose handle was just set up (r: how that went). */
static Conn *conn_socket_start(Conn *c, int r, int *ret_err) {
  if (r == 0)
    r = conn_start(c);
  if (r < 0) {
    c->closed_cb = NULL;
    conn_close(c);
    *ret_err = r;
    return NULL;
  }
  return c;
}

Conn *conn_accept(uv_loop_t *loop, uv_stream_t *server, const ConnHandler *handler,
                  ConnClosedCb closed_cb, void *data, int *ret_err) {
  Conn *c = conn_new(loop, handler, closed_cb, data);

  uv_pipe_init(loop, &c->in.pipe, 0);
  c->in.handle.data = c;
  c->handles_open = 1;
  return conn_socket_start(c, uv_accept(server, &c->in.stream), ret_err);
}

Conn *conn_open_fd(uv_loop_t *loop, int fd, const ConnHandler *handler, ConnClosedCb closed_cb,
                   void *data, int *ret_err) {
  Conn *c = conn_new(loop, handler, closed_cb, data);

  uv_pipe_init(loop, &c->in.pipe, 0);
  c->in.handle.data = c;
  c->handles_open = 1;
  return conn_socket_start(c, uv_pipe_open(&c->in.pipe, fd), ret_err);
}

/* Opens fd as a libuv stream: a pipe or socket, or a terminal. *ret_inited tells whether the
 * handle was initialized (and so must be closed), even when opening failed. */
static int open_stream(uv_loop_t *loop, StreamHandle *h, int fd, bool readable, bool *ret_inited) {
  int r;

  *ret_inited = false;
  switch (uv_guess_handle(fd)) {
  case UV_NAMED_PIPE:
    /* A large answer then takes a wake-up of the loop per megabyte, not per 64 KiB. */
    if (!readable)
      out_fd_grow_pipe(fd);
    uv_pipe_init(loop, &h->pipe, 0);
    *ret_inited = true;
    return uv_pipe_open(&h->pipe, fd);
  case UV_TTY:
    r = uv_tty_init(loop, &h->tty, fd, readable);
    *ret_inited = r == 0;
    return r;
  default:
    return UV_EINVAL;
  }
}

Conn *conn_open_stdio(uv_loop_t *loop, int in_fd, int out_fd, const ConnHandler *handler,
                      ConnClosedCb closed_cb, void *data, int *ret_err) {
  Conn *c = conn_new(loop, handler, closed_cb, data);
  bool in_inited = false, out_inited = false;
  int r;

  c->stdio = true;
  r = open_stream(loop, &c->in, in_fd, true, &in_inited);
  if (r == 0)
    r = open_stream(loop, &c->out, out_fd, false, &out_inited);
  c->handles_open = (int)in_inited + (int)out_inited;
  c->in.handle.data = c;
  c->out.handle.data = c;
  c->out_stream = &c->out.stream;
  if (r == 0)
    r = conn_start(c);
  if (r == 0)
    return c;
  *ret_err = r;
  c->closed_cb = NULL;
  c->closing = true;
  if (c->handles_open == 0) {
    conn_free(c);
    return NULL;
  }
  if (in_inited)
    uv_close(&c->in.handle, close_cb);
  if (out_inited)
    uv_close(&c->out.handle, close_cb);
  return NULL;
}
