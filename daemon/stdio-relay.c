#include "daemon/stdio-relay.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>
#include <uv.h>

#define RELAY_BUF ((size_t)64 * 1024)

struct StdioRelay {
  GThread *thread;
  int fd;   /* the caller's descriptor: read (input) or written (output) */
  int sock; /* the relay's end of the socketpair; the thread closes it */
  bool input;
  int error; /* 0, or the negative errno of a failed write to fd (output) */
};

/* Writes all of buf to fd (send() without SIGPIPE when it is a socket). 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len, bool sock) {
  while (len > 0) {
    ssize_t n = sock ? send(fd, buf, len, MSG_NOSIGNAL) : write(fd, buf, len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? -errno : -EIO;
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Copies from one descriptor to the other until end of input or an error. */
static gpointer relay_thread(gpointer data) {
  StdioRelay *r = data;
  int from = r->input ? r->fd : r->sock, to = r->input ? r->sock : r->fd;
  char *buf = g_malloc(RELAY_BUF);

  for (;;) {
    ssize_t n = read(from, buf, RELAY_BUF);
    int w;

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    w = write_all(to, buf, (size_t)n, r->input);
    if (w < 0) {
      /* For input, the loop closed its end: nothing more is wanted. */
      if (!r->input)
        r->error = w;
      break;
    }
  }
  /* Input: the loop sees end of input. Output: the loop's further writes fail. */
  if (r->input)
    shutdown(r->sock, SHUT_WR);
  close(r->sock);
  g_free(buf);
  return NULL;
}

int stdio_relay_open(int fd, bool input, int *ret_fd, StdioRelay **ret) {
  StdioRelay *r;
  int sv[2];

  *ret = NULL;
  *ret_fd = fd;
  /* Anything else (a regular file, a device, a TCP socket) is relayed. */
  if (uv_guess_handle(fd) == UV_NAMED_PIPE || uv_guess_handle(fd) == UV_TTY)
    return 0;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return -errno;
  /* The loop's end is one-way: the unused direction is shut at once. */
  shutdown(sv[0], input ? SHUT_WR : SHUT_RD);
  r = g_new0(StdioRelay, 1);
  r->fd = fd;
  r->sock = sv[1];
  r->input = input;
  r->thread = g_thread_new(input ? "stdin-relay" : "stdout-relay", relay_thread, r);
  *ret_fd = sv[0];
  *ret = r;
  return 0;
}

int stdio_relay_finish(StdioRelay *r) {
  int err;

  if (r == NULL)
    return 0;
  g_thread_join(r->thread);
  err = r->error;
  g_free(r);
  return err;
}
