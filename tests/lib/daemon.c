/* The socket daemon's lifecycle: see daemon.h. */
#include "tests/lib/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/process.h"
#include "tests/lib/rpc-client.h"
#include "tests/lib/rd-internal.h"

char *rd_log_tail(const char *log) {
  char *data = NULL;
  size_t len = 0;
  if (!g_file_get_contents(log, &data, &len, NULL))
    return g_strdup("(no log)");
  if (len > 3000) {
    char *t = g_strdup(data + len - 3000);
    g_free(data);
    return t;
  }
  return data;
}

/* Spawns the daemon of d with stdout on out_fd and stderr on err_fd, and waits until it
 * accepts a connection. */
static void daemon_spawn(RdDaemon *d, int out_fd, int err_fd) {
  const char *argv[] = {rd_readerd(), "serve", "--socket", d->sock, NULL};
  d->pid = rd_spawn(d->dir, argv, -1, out_fd, err_fd);
  d->running = true;

  int64_t deadline = rd_now_ms() + 10000;
  for (;;) {
    int st;
    if (rd_wait_pid(d->pid, 0, &st)) {
      d->running = false;
      char *tail = rd_log_tail(d->log);
      ck_abort_msg("readerd serve exited at start-up with status %d; log:\n%s", rd_exit_code(st),
                   tail);
    }
    int fd = rd_socket_connect(d->sock, 0);
    if (fd >= 0) {
      close(fd);
      return;
    }
    if (rd_now_ms() >= deadline) {
      char *tail = rd_log_tail(d->log);
      ck_abort_msg("readerd did not accept connections on %s within 10 s; log:\n%s", d->sock, tail);
    }
    g_usleep(10000);
  }
}

static RdDaemon *daemon_new(const char *dir, const char *sock) {
  static int counter;
  RdDaemon *d = g_new0(RdDaemon, 1);
  d->dir = g_strdup(dir);
  d->sock = g_strdup(sock);
  d->log = g_strdup_printf("%s/readerd.%d.log", dir, counter++);
  return d;
}

RdDaemon *rd_daemon_start_at(const char *dir, const char *sock) {
  RdDaemon *d = daemon_new(dir, sock);
  int log_fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_msg(log_fd >= 0, "cannot create %s: %s", d->log, g_strerror(errno));
  daemon_spawn(d, log_fd, log_fd);
  close(log_fd);
  return d;
}

RdDaemon *rd_daemon_start_stderr(int err_fd) {
  char *dir = rd_tmpdir();
  char *sock = g_build_filename(dir, "s.sock", NULL);
  rd_track_dir(dir);
  RdDaemon *d = daemon_new(dir, sock);
  d->owns_dir = true;
  int log_fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_msg(log_fd >= 0, "cannot create %s: %s", d->log, g_strerror(errno));
  daemon_spawn(d, log_fd, err_fd);
  close(log_fd);
  g_free(sock);
  g_free(dir);
  return d;
}

RdDaemon *rd_daemon_start(void) {
  char *dir = rd_tmpdir();
  char *sock = g_build_filename(dir, "s.sock", NULL);
  rd_track_dir(dir);
  RdDaemon *d = rd_daemon_start_at(dir, sock);
  d->owns_dir = true;
  g_free(sock);
  g_free(dir);
  return d;
}

bool rd_daemon_alive(RdDaemon *d) {
  int st;
  if (d->running && rd_wait_pid(d->pid, 0, &st))
    d->running = false;
  return d->running;
}

int64_t rd_daemon_rss_kib(const RdDaemon *d) {
  char *path = g_strdup_printf("/proc/%d/status", (int)d->pid);
  char *data = NULL;
  const char *line;
  int64_t kib = -1;

  if (g_file_get_contents(path, &data, NULL, NULL) && (line = strstr(data, "\nVmRSS:")) != NULL)
    kib = g_ascii_strtoll(line + strlen("\nVmRSS:"), NULL, 10);
  g_free(data);
  ck_assert_msg(kib > 0, "no VmRSS in %s", path);
  g_free(path);
  return kib;
}

char *rd_daemon_log(const RdDaemon *d) {
  char *data = NULL;
  if (!g_file_get_contents(d->log, &data, NULL, NULL))
    data = g_strdup("");
  return data;
}

/* Fails the test when the log shows a sanitizer report. */
void rd_log_check_clean(const char *log) {
  char *data = NULL;
  if (!g_file_get_contents(log, &data, NULL, NULL))
    return;
  bool bad = strstr(data, "AddressSanitizer") || strstr(data, "LeakSanitizer") ||
             strstr(data, "runtime error:") || strstr(data, "ThreadSanitizer");
  if (bad)
    fprintf(stderr, "---- %s ----\n%s\n----\n", log, data);
  g_free(data);
  ck_assert_msg(!bad, "the daemon log %s shows a sanitizer report", log);
}

void rd_daemon_stop(RdDaemon *d) {
  int st = 0;
  ck_assert_msg(rd_daemon_alive(d), "the daemon is not running any more");
  ck_assert_int_eq(kill(d->pid, SIGTERM), 0);
  if (!rd_wait_pid(d->pid, 5000, &st)) {
    kill(d->pid, SIGKILL);
    rd_wait_pid(d->pid, 5000, NULL);
    d->running = false;
    char *tail = rd_log_tail(d->log);
    ck_abort_msg("the daemon did not exit within 5 s of SIGTERM; log:\n%s", tail);
  }
  d->running = false;
  rd_log_check_clean(d->log);
  if (rd_exit_code(st) != 0) {
    char *tail = rd_log_tail(d->log);
    ck_abort_msg("the daemon exited with %d after SIGTERM, not 0; log:\n%s", rd_exit_code(st),
                 tail);
  }
  struct stat sb;
  ck_assert_msg(lstat(d->sock, &sb) < 0 && errno == ENOENT,
                "the socket file %s is still there after SIGTERM", d->sock);
}

void rd_daemon_free(RdDaemon *d) {
  if (!d)
    return;
  if (d->running) {
    kill(d->pid, SIGKILL);
    rd_wait_pid(d->pid, 5000, NULL);
  }
  if (d->owns_dir) {
    rd_untrack_dir(d->dir);
    rd_rmtree(d->dir);
  }
  g_free(d->dir);
  g_free(d->sock);
  g_free(d->log);
  g_free(d);
}
