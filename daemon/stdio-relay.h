/* `serve --stdio` on descriptors libuv cannot watch: a regular file or a device such as
 * /dev/null as stdin or stdout (`readerd serve --stdio < requests.jsonl > answers.jsonl`).
 * Such a descriptor is relayed through a socketpair by a small thread doing blocking I/O,
 * never on the loop; the loop gets the other end of the pair, a socket it can watch. */
#pragma once

#include <stdbool.h>

typedef struct StdioRelay StdioRelay;

/* When fd can be a libuv stream as it is (a pipe, a socket or a terminal), sets *ret_fd to fd
 * and *ret to NULL. Otherwise starts a thread that copies fd to a new socket (input: reading
 * fd to its end, then shutting the socket down for writing) or the socket to fd (output: until
 * the socket's other end is closed), and sets *ret_fd to the socket's other end (owned by the
 * caller; close it, or give it to a handle that does) and *ret to the relay. Returns 0 or a
 * negative errno. fd stays the caller's. */
int stdio_relay_open(int fd, bool input, int *ret_fd, StdioRelay **ret);

/* Waits for the relay's thread and frees it; call once the descriptor given in *ret_fd is
 * closed, so that an output relay has written everything to fd. Returns 0, or the negative
 * errno of a write to fd that failed (an output relay then stops and closes its socket, so
 * that the loop's writes fail too). NULL is fine (returns 0). */
int stdio_relay_finish(StdioRelay *r);
