/* The daemon's two modes: a listener on a Unix socket for many clients, or one client on
 * stdin/stdout. Both run the loop until done. */
#pragma once

#include "daemon/conn.h"

/* The default socket: $XDG_RUNTIME_DIR/readerd.sock, else /tmp/readerd-UID/readerd.sock (the
 * folder created 0700 when missing). g_malloc'd; NULL with *ret_err on failure. */
char *server_default_socket_path(int *ret_err);

/* Listens on `path` (mode 0600; a stale socket file left by a dead daemon is replaced, a live
 * daemon's is not) and serves until SIGINT or SIGTERM, then removes the socket file. Returns
 * the process exit status. */
int server_run_socket(const char *path);

/* Serves on `fd`, a listening Unix stream socket made by a launcher (systemd's socket
 * activation; see socket-activation.h), until SIGINT or SIGTERM, or, when idle_exit_seconds is
 * not 0, until no client has been connected for that long. The socket file is the launcher's:
 * never removed. Returns the process exit status. */
int server_run_passed_socket(int fd, unsigned idle_exit_seconds);

/* Serves one client speaking `handler` (rpc_handler, mcp_handler) on stdin/stdout until it sends exit or closes stdin. Either may be a
 * pipe, a socket, a terminal, a regular file or a device (relayed by a thread). Returns the
 * exit status: 3 when an answer could not be written, 1 when exit came without shutdown
 * first, else 0. */
int server_run_stdio(const ConnHandler *handler);
