#include "daemon/out-fd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>

void out_fd_grow_pipe(int fd) {
  struct stat st;

  if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && fcntl(fd, F_GETPIPE_SZ) < OUT_FD_PIPE_SIZE)
    (void)fcntl(fd, F_SETPIPE_SZ, OUT_FD_PIPE_SIZE); /* best effort: EPERM past the user's limit */
}

/* Waits until fd takes more. 0 or a negative errno. */
static int wait_writable(int fd) {
  struct pollfd p = {.fd = fd, .events = POLLOUT};

  while (poll(&p, 1, -1) < 0)
    if (errno != EINTR)
      return -errno;
  return 0;
}

int out_fd_write_pieces(int fd, GString *const *pieces, size_t n) {
  struct iovec iov[IOV_MAX];
  size_t next = 0, skip = 0; /* the first piece not fully written, and its bytes written */

  while (next < n) {
    int k = 0;
    ssize_t w;

    for (size_t i = next; i < n && k < IOV_MAX; i++) {
      size_t off = i == next ? skip : 0;

      if (pieces[i]->len > off)
        iov[k++] = (struct iovec){.iov_base = pieces[i]->str + off,
                                  .iov_len = pieces[i]->len - off};
    }
    if (k == 0)
      return 0;
    w = writev(fd, iov, k);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      int r = wait_writable(fd);

      if (r < 0)
        return r;
      continue;
    }
    if (w < 0)
      return -errno;
    /* Moves past what was written: whole pieces, then part of one. */
    for (size_t left = (size_t)w; next < n; next++, skip = 0) {
      size_t rest = pieces[next]->len - skip;

      if (left < rest) {
        skip += left;
        break;
      }
      left -= rest;
    }
  }
  return 0;
}
