/* readerd serve --stdio driven over pipes: see stdio-mode.h. */
#include "tests/lib/stdio-mode.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/process.h"
#include "tests/lib/rd-internal.h"

RdStdio *rd_stdio_start(void) {
  RdStdio *s = g_new0(RdStdio, 1);
  int in_p[2], out_p[2];
  s->dir = rd_tmpdir();
  rd_track_dir(s->dir);
  s->log = g_build_filename(s->dir, "stderr.log", NULL);
  int log_fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_int_ge(log_fd, 0);
  rd_make_pipe(in_p);
  rd_make_pipe(out_p);
  const char *argv[] = {rd_readerd(), "serve", "--stdio", NULL};
  s->pid = rd_spawn(s->dir, argv, in_p[0], out_p[1], log_fd);
  close(in_p[0]);
  close(out_p[1]);
  close(log_fd);
  s->conn = rd_conn_new_fds(out_p[0], in_p[1]);
  return s;
}

int rd_stdio_wait(RdStdio *s, int timeout_ms) {
  int st;
  if (!rd_wait_pid(s->pid, timeout_ms, &st)) {
    char *tail = rd_log_tail(s->log);
    ck_abort_msg("readerd serve --stdio did not exit within %d ms; stderr:\n%s", timeout_ms, tail);
  }
  s->pid = 0;
  rd_log_check_clean(s->log);
  return rd_exit_code(st);
}

void rd_stdio_free(RdStdio *s) {
  if (!s)
    return;
  if (s->pid > 0) {
    kill(s->pid, SIGKILL);
    rd_wait_pid(s->pid, 5000, NULL);
  }
  rd_conn_free(s->conn);
  rd_untrack_dir(s->dir);
  rd_rmtree(s->dir);
  g_free(s->dir);
  g_free(s->log);
  g_free(s);
}
