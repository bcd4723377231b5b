/* Where readerd finds its worker executable (`readerd-worker`, daemon/worker/child/), which it
 * starts for PDFs and picture conversions. The worker is an executable of its own so that
 * readerd itself links neither poppler nor cairo nor gdk-pixbuf: the dynamic linking of those
 * is paid by the worker processes only, never by a CLI run or a daemon's start. */
#pragma once

#define WORKER_EXE_NAME "readerd-worker"
/* Names the worker to start, overriding the rules below (tests, unusual installs). */
#define WORKER_PATH_ENV "READERD_WORKER"

/* The worker executable to start, in this order: $READERD_WORKER when set and not empty (made
 * absolute against the current folder); else readerd-worker beside the running executable
 * (the build folder, daemon/readerd beside daemon/readerd-worker) when that file is there and
 * executable; else the path the build configured (READERD_WORKER_PATH, under meson's
 * libexecdir), whether or not it exists: a worker that cannot be started is each PDF's or
 * picture's error, not readerd's. Never NULL; the caller frees it with g_free(). */
char *worker_path_find(void);

/* Opens the worker executable `path` for the rest of the process's life and returns a path
 * that starts that very file (/proc/PID/fd/N, newly allocated), so that the workers a daemon
 * starts stay the ones of its own version when an upgrade replaces the file at `path` (dpkg
 * renames the new one over it) while the daemon runs: the two talk pdf-wire.h's records,
 * which may change between versions. Returns NULL, leaving nothing open, when `path` cannot
 * be opened or is not executable, or /proc is not there: then start `path` itself, and each
 * read that needs a worker says why it could not start. */
char *worker_path_pin(const char *path);
