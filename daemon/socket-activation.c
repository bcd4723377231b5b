#include "daemon/socket-activation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

bool socket_activation_supported(void) {
#ifdef HAVE_LIBSYSTEMD
  return true;
#else
  return false;
#endif
}

#ifdef HAVE_LIBSYSTEMD
/* Says what the single passed descriptor is when it is not what readerd can listen on. */
static int check_socket(int fd, char **ret_error) {
  int type = 0;
  socklen_t len = sizeof(type);

  if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0)
    return 0;
  if (sd_is_socket(fd, AF_UNSPEC, 0, -1) <= 0) {
    *ret_error = g_strdup_printf("the descriptor %d passed by LISTEN_FDS is not a socket", fd);
    return -ENOTSOCK;
  }
  if (sd_is_socket(fd, AF_UNIX, 0, -1) <= 0) {
    *ret_error = g_strdup_printf("the socket passed on descriptor %d is not a Unix socket "
                                 "(readerd listens only on Unix sockets: ListenStream= a path)",
                                 fd);
    return -EAFNOSUPPORT;
  }
  getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
  if (type != SOCK_STREAM) {
    *ret_error = g_strdup_printf("the Unix socket passed on descriptor %d is not a stream "
                                 "socket (use ListenStream=, not ListenDatagram= or "
                                 "ListenSequentialPacket=)",
                                 fd);
    return -EPROTOTYPE;
  }
  *ret_error = g_strdup_printf("the Unix socket passed on descriptor %d is not listening "
                               "(a connection, as with Accept=yes, which readerd does not take)",
                               fd);
  return -EINVAL;
}
#endif

int socket_activation_take(int *ret_fd, char **ret_error) {
#ifdef HAVE_LIBSYSTEMD
  int n, r;

  /* Unsets the variables, so that no worker process believes it was given sockets. */
  n = sd_listen_fds(1);
  if (n == 0)
    return 0;
  if (n < 0) {
    *ret_error = g_strdup_printf("LISTEN_FDS cannot be used: %s", g_strerror(-n));
    return n;
  }
  if (n > 1) {
    *ret_error = g_strdup_printf("%d sockets were passed (LISTEN_FDS=%d); readerd listens on "
                                 "exactly one",
                                 n, n);
    return -E2BIG;
  }
  r = check_socket(SOCKET_ACTIVATION_FD, ret_error);
  if (r < 0)
    return r;
  if (fcntl(SOCKET_ACTIVATION_FD, F_SETFD, FD_CLOEXEC) < 0) {
    r = -errno;
    *ret_error = g_strdup_printf("cannot use descriptor %d: %s", SOCKET_ACTIVATION_FD,
                                 g_strerror(-r));
    return r;
  }
  *ret_fd = SOCKET_ACTIVATION_FD;
  return 1;
#else
  const char *pid = g_getenv("LISTEN_PID");
  bool ours = g_getenv("LISTEN_FDS") != NULL && pid != NULL &&
              strtoul(pid, NULL, 10) == (unsigned long)getpid();

  g_unsetenv("LISTEN_PID");
  g_unsetenv("LISTEN_FDS");
  g_unsetenv("LISTEN_FDNAMES");
  if (!ours)
    return 0;
  *ret_error = g_strdup("a socket was passed (LISTEN_FDS), but this readerd was built without "
                        "libsystemd and cannot take it; rebuild with libsystemd-dev installed, "
                        "or start readerd serve without socket activation");
  return -ENOTSUP;
#endif
}
