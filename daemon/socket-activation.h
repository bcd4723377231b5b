/* Socket activation: the listening socket systemd (or any launcher speaking its protocol) hands
 * `readerd serve` as file descriptor 3, with LISTEN_FDS and LISTEN_PID in the environment. */
#pragma once

#include <stdbool.h>

/* The descriptor a passed socket arrives on (SD_LISTEN_FDS_START). */
#define SOCKET_ACTIVATION_FD 3

/* Whether this build can take a passed socket (it was built with libsystemd). */
bool socket_activation_supported(void);

/* Looks for a socket passed to this process. Returns 0 when none was (no LISTEN_FDS, or
 * LISTEN_PID names another process), 1 with *ret_fd when exactly one was and it is a listening
 * AF_UNIX stream socket (then marked close-on-exec, so that worker processes do not inherit
 * it), or a negative errno with *ret_error (g_malloc'd) saying why it cannot be used: several
 * descriptors, one that is not a listening Unix stream socket, a malformed LISTEN_FDS, or a
 * build without libsystemd. LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES are removed from the
 * environment in every case. Never logs. */
int socket_activation_take(int *ret_fd, char **ret_error);
