/* Large answers written to a descriptor that may be a pipe (stdout): the pipe enlarged, so that
 * a large answer costs the writer and the reader a wake-up per megabyte rather than per 64 KiB,
 * and an answer's pieces written together with writev, never copied into one buffer. */
#pragma once

#include <stddef.h>

#include <glib.h>

/* What a pipe is enlarged to: Linux's default pipe-max-size, the most an unprivileged process
 * may ask for. */
#define OUT_FD_PIPE_SIZE (1024 * 1024)

/* Enlarges fd's pipe to OUT_FD_PIPE_SIZE when fd is a pipe and the system allows it; does
 * nothing otherwise (a socket, a file, a terminal, a limit reached). */
void out_fd_grow_pipe(int fd);

/* Writes the n pieces to fd in order, waiting when fd does not take more yet (a non-blocking
 * descriptor included). Returns 0 or a negative errno. The pieces stay the caller's. */
int out_fd_write_pieces(int fd, GString *const *pieces, size_t n);
