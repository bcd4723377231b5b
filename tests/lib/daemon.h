/* The socket daemon's lifecycle: `readerd serve --socket` started in a temporary folder with
 * its output in a log file, then stopped (SIGTERM, a clean exit and no socket file left), or
 * killed. Connect to it with rd_conn_new(d->sock) (rpc-client.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* A running (or finished) daemon. */
typedef struct {
  char *dir;  /* temporary folder, the daemon's working directory */
  char *sock; /* dir/s.sock */
  char *log;  /* dir/readerd.log: the daemon's stdout and stderr */
  GPid pid;
  bool running;
  bool owns_dir; /* rd_daemon_start made dir: rd_daemon_free removes it */
} RdDaemon;

/* Starts `readerd serve --socket DIR/s.sock` in a new temporary folder and waits (up to 10 s)
 * until it accepts a connection. Freed with rd_daemon_free(). */
RdDaemon *rd_daemon_start(void);

/* Same, in an existing folder `dir` (kept) with the socket at `sock`. */
RdDaemon *rd_daemon_start_at(const char *dir, const char *sock);

/* rd_daemon_start(), with the daemon's stderr on err_fd (the caller keeps it) and only its
 * stdout in `log`. */
RdDaemon *rd_daemon_start_stderr(int err_fd);

/* Sends SIGTERM and asserts that the daemon exits 0 within 5 s, that its log shows no
 * sanitizer report and that its socket file is gone. */
void rd_daemon_stop(RdDaemon *d);

/* True while the daemon process runs. */
bool rd_daemon_alive(RdDaemon *d);

/* The daemon's log so far ("" when it cannot be read). g_malloc'd. */
char *rd_daemon_log(const RdDaemon *d);

/* The daemon's resident memory (VmRSS of /proc/PID/status) in KiB; fails the test when it
 * cannot be read. */
int64_t rd_daemon_rss_kib(const RdDaemon *d);

/* Kills the daemon if it still runs and removes its folder (when rd_daemon_start made it).
 * NULL is fine. */
void rd_daemon_free(RdDaemon *d);
