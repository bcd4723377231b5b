/* Fuzzes a whole connection: the input is sent to a real Conn over a socketpair in pieces of
 * at most 143 bytes (their sizes drawn from the input itself), with the loop running between
 * pieces and the answers read back, then the client half-closes. Inputs of a size with bit 1
 * set speak to the MCP handler, the others to readerd's own. Whatever the input, the
 * connection must close cleanly and leave the loop with nothing open. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include "daemon/conn.h"
#include "daemon/mcp/mcp.h"
#include "daemon/rpc.h"

#define PIECE_MAX 143

typedef struct {
  bool closed;
} FuzzState;

static void closed_cb(Conn *c, void *data) {
  FuzzState *st = data;

  st->closed = true;
}

/* Reads and drops whatever the daemon has answered so far; returns the bytes read. */
static size_t drain(int fd) {
  char buf[65536];
  size_t total = 0;
  ssize_t n;

  while ((n = read(fd, buf, sizeof(buf))) > 0)
    total += (size_t)n;
  return total;
}

/* Lets the daemon answer: runs the loop until it has been quiet for 50 ms (2 s at most). */
static void settle(uv_loop_t *loop, int fd) {
  uint64_t start = uv_hrtime(), quiet_since = start;

  while (uv_hrtime() - start < 2000000000u && uv_hrtime() - quiet_since < 50000000u) {
    uv_run(loop, UV_RUN_NOWAIT);
    if (drain(fd) > 0)
      quiet_since = uv_hrtime();
    usleep(1000);
  }
}

/* Sends all n bytes, running the loop whenever the socket is full. Returns false when the
 * connection has closed its end (after `exit`, or a protocol error that ends it). */
static bool send_piece(uv_loop_t *loop, int fd, const uint8_t *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

    if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
      return false;
    if (w < 0 && errno != EAGAIN && errno != EINTR)
      abort();
    if (w > 0) {
      p += w;
      n -= (size_t)w;
    }
    uv_run(loop, UV_RUN_NOWAIT);
    drain(fd);
  }
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzState st = {false};
  uv_loop_t loop;
  int sv[2], err = 0;
  Conn *c;

  /* As the daemon does (main.c): a peer that went away makes writes fail, not the process. */
  signal(SIGPIPE, SIG_IGN);
  if (uv_loop_init(&loop) != 0 ||
      socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
    abort();
  c = conn_open_fd(&loop, sv[0], (size & 2) ? &mcp_handler : &rpc_handler, closed_cb, &st, &err);
  if (c == NULL)
    abort();
  for (size_t off = 0; off < size;) {
    size_t n = 1 + data[off] % PIECE_MAX;

    if (n > size - off)
      n = size - off;
    if (!send_piece(&loop, sv[1], data + off, n))
      break;
    off += n;
  }
  /* Half of the inputs wait for their answers; the others hang up at once, so that the
   * connection closes with requests still running and cancels them. */
  if (size & 1)
    settle(&loop, sv[1]);
  /* End of input: the connection closes, cancelling what is still running. */
  shutdown(sv[1], SHUT_WR);
  while (uv_run(&loop, UV_RUN_NOWAIT) != 0 || !st.closed) {
    drain(sv[1]);
    uv_run(&loop, UV_RUN_ONCE);
  }
  drain(sv[1]);
  close(sv[1]);
  if (!st.closed || uv_loop_close(&loop) != 0) {
    fprintf(stderr, "the connection did not close cleanly\n");
    abort();
  }
  return 0;
}
