/* Processes and temporary folders for the tests: see process.h. */
#include "tests/lib/process.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include <libxml/parser.h>

#include "tests/lib/check-run.h"
#include "tests/lib/rd-internal.h"

/* Processes and folders a test made, for a test process that ends without freeing them. A
 * failing check assertion ends the test process with _exit(): check then kills its process
 * group (the daemons with it; PR_SET_PDEATHSIG too), and the folders stay until rd_finish()
 * removes the run's base folder. */
static char *base_dir;
static GMutex reg_lock;
static GArray *reg_pids;
static GPtrArray *reg_dirs;

static void reg_add_pid(GPid pid) {
  g_mutex_lock(&reg_lock);
  if (!reg_pids)
    reg_pids = g_array_new(FALSE, FALSE, sizeof(GPid));
  g_array_append_val(reg_pids, pid);
  g_mutex_unlock(&reg_lock);
}

static void reg_del_pid(GPid pid) {
  g_mutex_lock(&reg_lock);
  for (guint i = 0; reg_pids && i < reg_pids->len; i++) {
    if (g_array_index(reg_pids, GPid, i) == pid) {
      g_array_remove_index_fast(reg_pids, i);
      break;
    }
  }
  g_mutex_unlock(&reg_lock);
}

void rd_track_dir(const char *dir) {
  g_mutex_lock(&reg_lock);
  if (!reg_dirs)
    reg_dirs = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(reg_dirs, g_strdup(dir));
  g_mutex_unlock(&reg_lock);
}

void rd_untrack_dir(const char *dir) {
  g_mutex_lock(&reg_lock);
  for (guint i = 0; reg_dirs && i < reg_dirs->len; i++) {
    if (strcmp(g_ptr_array_index(reg_dirs, i), dir) == 0) {
      g_ptr_array_remove_index_fast(reg_dirs, i);
      break;
    }
  }
  g_mutex_unlock(&reg_lock);
}

static void rd_atexit(void) {
  g_mutex_lock(&reg_lock);
  for (guint i = 0; reg_pids && i < reg_pids->len; i++) {
    GPid pid = g_array_index(reg_pids, GPid, i);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
  for (guint i = 0; reg_dirs && i < reg_dirs->len; i++)
    rd_rmtree(g_ptr_array_index(reg_dirs, i));
  if (reg_pids)
    g_array_free(reg_pids, TRUE);
  if (reg_dirs)
    g_ptr_array_free(reg_dirs, TRUE);
  reg_pids = NULL;
  reg_dirs = NULL;
  g_mutex_unlock(&reg_lock);
}

void rd_init(void) {
  GError *err = NULL;
  signal(SIGPIPE, SIG_IGN);
  xmlInitParser();
  base_dir = g_dir_make_tmp("readerd-tests-XXXXXX", &err);
  if (!base_dir) {
    fprintf(stderr, "cannot make a temporary folder: %s\n", err->message);
    exit(EXIT_FAILURE);
  }
  atexit(rd_atexit);
}

int rd_finish(int failed) {
  if (getenv("READERD_TEST_KEEP")) {
    printf("test folders kept in %s\n", base_dir);
  } else {
    if (failed)
      printf("set READERD_TEST_KEEP=1 to keep the test folders and daemon logs\n");
    rd_rmtree(base_dir);
  }
  g_free(base_dir);
  base_dir = NULL;
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char *rd_readerd(void) {
  const char *p = getenv("READERD");
  ck_assert_msg(p && *p, "env READERD (the readerd binary) is not set; run through meson test");
  ck_assert_msg(access(p, X_OK) == 0, "READERD=%s is not executable: %s", p, g_strerror(errno));
  return p;
}

int rd_run_suite(Suite *s) {
  return rd_finish(check_run(s));
}

char *rd_tmpdir(void) {
  ck_assert_msg(base_dir, "rd_init() was not called");
  char *dir = g_build_filename(base_dir, "t-XXXXXX", NULL);
  ck_assert_msg(g_mkdtemp(dir) != NULL, "mkdtemp in %s: %s", base_dir, g_strerror(errno));
  return dir;
}

static int rmtree_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  remove(path);
  return 0;
}

void rd_rmtree(const char *dir) {
  if (dir)
    nftw(dir, rmtree_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void child_setup(gpointer data) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  signal(SIGPIPE, SIG_DFL);
}

GPid rd_spawn(const char *cwd, const char *const *argv, int in_fd, int out_fd, int err_fd) {
  GError *err = NULL;
  GPid pid = 0;
  int null_fd = -1;

  if (in_fd < 0) {
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(null_fd, 0);
    in_fd = null_fd;
  }
  gboolean ok = g_spawn_async_with_fds(cwd, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                       child_setup, NULL, &pid, in_fd, out_fd, err_fd, &err);
  if (null_fd >= 0)
    close(null_fd);
  ck_assert_msg(ok, "cannot start %s: %s", argv[0], err ? err->message : "?");
  reg_add_pid(pid);
  return pid;
}

bool rd_wait_pid(GPid pid, int timeout_ms, int *ret_status) {
  int64_t deadline = rd_now_ms() + timeout_ms;
  for (;;) {
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) {
      reg_del_pid(pid);
      if (ret_status)
        *ret_status = st;
      return true;
    }
    ck_assert_msg(r == 0 || errno == EINTR, "waitpid(%d): %s", (int)pid, g_strerror(errno));
    if (rd_now_ms() >= deadline)
      return false;
    g_usleep(5000);
  }
}

int rd_exit_code(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return -WTERMSIG(status);
  return -1000;
}

void rd_make_pipe(int fds[2]) {
  ck_assert_msg(pipe2(fds, O_CLOEXEC) == 0, "pipe2: %s", g_strerror(errno));
}

void rd_set_nonblock(int fd) {
  int fl = fcntl(fd, F_GETFL);
  ck_assert_int_ge(fl, 0);
  ck_assert_int_eq(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

/* Reads what is available from fd into buf; returns false at end of stream. */
static bool drain_fd(int fd, GByteArray *buf) {
  char tmp[65536];
  ssize_t n = read(fd, tmp, sizeof tmp);
  if (n > 0) {
    g_byte_array_append(buf, (const guint8 *)tmp, (guint)n);
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return true;
  return false;
}

static char *byte_array_steal_str(GByteArray *buf, size_t *ret_len) {
  if (ret_len)
    *ret_len = buf->len;
  g_byte_array_append(buf, (const guint8 *)"", 1);
  return (char *)g_byte_array_free(buf, FALSE);
}

void rd_run(const char *cwd, const char *const *argv, const char *in, size_t in_len, int timeout_ms,
            RdRun *ret) {
  int in_p[2] = {-1, -1}, out_p[2], err_p[2];
  int64_t deadline = rd_now_ms() + timeout_ms;
  GByteArray *out = g_byte_array_new(), *err = g_byte_array_new();
  size_t in_off = 0;
  int status = 0;

  if (in)
    rd_make_pipe(in_p);
  rd_make_pipe(out_p);
  rd_make_pipe(err_p);
  GPid pid = rd_spawn(cwd, argv, in_p[0], out_p[1], err_p[1]);
  if (in) {
    close(in_p[0]);
    rd_set_nonblock(in_p[1]);
    if (in_len == 0) {
      close(in_p[1]);
      in_p[1] = -1;
    }
  }
  close(out_p[1]);
  close(err_p[1]);
  int ofd = out_p[0], efd = err_p[0], wfd = in ? in_p[1] : -1;
  while (ofd >= 0 || efd >= 0) {
    struct pollfd p[3] = {{ofd, POLLIN, 0}, {efd, POLLIN, 0}, {wfd, POLLOUT, 0}};
    int left = rd_remaining_ms(deadline);
    if (left == 0 || poll(p, 3, left) < 0) {
      if (errno == EINTR && left > 0)
        continue;
      kill(pid, SIGKILL);
      ck_abort_msg("%s %s did not finish within %d ms", argv[0], argv[1] ? argv[1] : "",
                   timeout_ms);
    }
    if (p[0].revents && !drain_fd(ofd, out)) {
      close(ofd);
      ofd = -1;
    }
    if (p[1].revents && !drain_fd(efd, err)) {
      close(efd);
      efd = -1;
    }
    if (wfd >= 0 && p[2].revents) {
      ssize_t n = write(wfd, in + in_off, in_len - in_off);
      if (n > 0)
        in_off += (size_t)n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || in_off == in_len) {
        close(wfd);
        wfd = -1;
      }
    }
  }
  if (wfd >= 0)
    close(wfd);
  if (!rd_wait_pid(pid, rd_remaining_ms(deadline) + 1, &status)) {
    kill(pid, SIGKILL);
    ck_abort_msg("%s closed its output but did not exit within %d ms", argv[0], timeout_ms);
  }
  ret->code = rd_exit_code(status);
  ret->out = byte_array_steal_str(out, &ret->out_len);
  ret->err = byte_array_steal_str(err, NULL);
}

void rd_run_clear(RdRun *r) {
  if (!r)
    return;
  g_free(r->out);
  g_free(r->err);
  memset(r, 0, sizeof *r);
}
