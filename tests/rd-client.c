/* The integration tests' client library: see rd-client.h. */
#include "tests/rd-client.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>

/* ---------------------------------------------------------------- what to clean up at exit */

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

static void reg_add_dir(const char *dir) {
  g_mutex_lock(&reg_lock);
  if (!reg_dirs)
    reg_dirs = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(reg_dirs, g_strdup(dir));
  g_mutex_unlock(&reg_lock);
}

static void reg_del_dir(const char *dir) {
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

static int64_t now_ms(void) {
  return g_get_monotonic_time() / 1000;
}

static int remaining_ms(int64_t deadline) {
  int64_t left = deadline - now_ms();
  return left < 0 ? 0 : (int)left;
}

/* ---------------------------------------------------------------- processes */

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
  int64_t deadline = now_ms() + timeout_ms;
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
    if (now_ms() >= deadline)
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

static void make_pipe(int fds[2]) {
  ck_assert_msg(pipe2(fds, O_CLOEXEC) == 0, "pipe2: %s", g_strerror(errno));
}

static void set_nonblock(int fd) {
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
  int64_t deadline = now_ms() + timeout_ms;
  GByteArray *out = g_byte_array_new(), *err = g_byte_array_new();
  size_t in_off = 0;
  int status = 0;

  if (in)
    make_pipe(in_p);
  make_pipe(out_p);
  make_pipe(err_p);
  GPid pid = rd_spawn(cwd, argv, in_p[0], out_p[1], err_p[1]);
  if (in) {
    close(in_p[0]);
    set_nonblock(in_p[1]);
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
    int left = remaining_ms(deadline);
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
  if (!rd_wait_pid(pid, remaining_ms(deadline) + 1, &status)) {
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

/* ---------------------------------------------------------------- the socket daemon */

int rd_socket_connect(const char *path, int timeout_ms) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  int64_t deadline = now_ms() + timeout_ms;

  if (strlen(path) >= sizeof sa.sun_path)
    return -ENAMETOOLONG;
  strcpy(sa.sun_path, path);
  for (;;) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
      return fd;
    int e = errno;
    close(fd);
    /* EAGAIN: the listen backlog is full; the others: not listening (yet). */
    if (e != EAGAIN && e != ECONNREFUSED && e != ENOENT && e != EINTR)
      return -e;
    if (now_ms() >= deadline)
      return -e;
    g_usleep(10000);
  }
}

static char *log_tail(const char *log) {
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

  int64_t deadline = now_ms() + 10000;
  for (;;) {
    int st;
    if (rd_wait_pid(d->pid, 0, &st)) {
      d->running = false;
      char *tail = log_tail(d->log);
      ck_abort_msg("readerd serve exited at start-up with status %d; log:\n%s", rd_exit_code(st),
                   tail);
    }
    int fd = rd_socket_connect(d->sock, 0);
    if (fd >= 0) {
      close(fd);
      return;
    }
    if (now_ms() >= deadline) {
      char *tail = log_tail(d->log);
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
  reg_add_dir(dir);
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
  reg_add_dir(dir);
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
static void check_log_clean(const char *log) {
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
    char *tail = log_tail(d->log);
    ck_abort_msg("the daemon did not exit within 5 s of SIGTERM; log:\n%s", tail);
  }
  d->running = false;
  check_log_clean(d->log);
  if (rd_exit_code(st) != 0) {
    char *tail = log_tail(d->log);
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
    reg_del_dir(d->dir);
    rd_rmtree(d->dir);
  }
  g_free(d->dir);
  g_free(d->sock);
  g_free(d->log);
  g_free(d);
}

/* ---------------------------------------------------------------- connections */

struct RdConn {
  int rfd, wfd;
  bool is_socket;
  bool eof;
  GByteArray *buf; /* received bytes not yet taken */
  size_t scanned;  /* bytes of buf known to hold no '\n' */
  GQueue queued;   /* JsonNode*: messages received while waiting for another */
  int64_t next_id;
};

RdConn *rd_conn_new_fds(int rfd, int wfd) {
  RdConn *c = g_new0(RdConn, 1);
  c->rfd = rfd;
  c->wfd = wfd;
  c->is_socket = rfd == wfd;
  c->buf = g_byte_array_new();
  g_queue_init(&c->queued);
  c->next_id = 1;
  set_nonblock(rfd);
  if (wfd >= 0 && wfd != rfd)
    set_nonblock(wfd);
  return c;
}

RdConn *rd_conn_new(const char *sock) {
  int fd = rd_socket_connect(sock, 10000);
  ck_assert_msg(fd >= 0, "cannot connect to %s: %s", sock, g_strerror(-fd));
  return rd_conn_new_fds(fd, fd);
}

void rd_conn_free(RdConn *c) {
  if (!c)
    return;
  if (c->wfd >= 0 && c->wfd != c->rfd)
    close(c->wfd);
  if (c->rfd >= 0)
    close(c->rfd);
  g_byte_array_free(c->buf, TRUE);
  g_queue_clear_full(&c->queued, (GDestroyNotify)json_node_unref);
  g_free(c);
}

void rd_conn_close_write(RdConn *c) {
  if (c->is_socket) {
    shutdown(c->wfd, SHUT_WR);
  } else if (c->wfd >= 0) {
    close(c->wfd);
    c->wfd = -1;
  }
}

/* Reads what is available. Returns 0, or -errno on a read error (end of stream sets eof). */
static int conn_pump(RdConn *c) {
  guint old = c->buf->len;
  g_byte_array_set_size(c->buf, old + 262144);
  ssize_t n = read(c->rfd, c->buf->data + old, 262144);
  int e = errno;
  g_byte_array_set_size(c->buf, old + (n > 0 ? (guint)n : 0));
  if (n == 0)
    c->eof = true;
  if (n < 0 && e != EAGAIN && e != EINTR) {
    c->eof = true;
    return -e;
  }
  return 0;
}

int rd_conn_try_send(RdConn *c, const void *data, size_t len, int timeout_ms) {
  const char *p = data;
  int64_t deadline = now_ms() + timeout_ms;

  if (c->wfd < 0)
    return -EBADF;
  while (len > 0) {
    ssize_t n =
        c->is_socket ? send(c->wfd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) : write(c->wfd, p, len);
    if (n > 0) {
      p += n;
      len -= (size_t)n;
      deadline = now_ms() + timeout_ms;
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR)
      return -errno;
    struct pollfd pf[2] = {{c->wfd, POLLOUT, 0}, {c->eof ? -1 : c->rfd, POLLIN, 0}};
    int left = remaining_ms(deadline);
    if (left == 0)
      return -ETIMEDOUT;
    if (c->is_socket) {
      pf[0].events |= c->eof ? 0 : POLLIN;
      pf[1].fd = -1;
    }
    if (poll(pf, 2, left) < 0 && errno != EINTR)
      return -errno;
    if (((pf[0].revents & POLLIN) && c->is_socket) || (pf[1].revents & (POLLIN | POLLHUP)))
      conn_pump(c);
  }
  return 0;
}

void rd_conn_send(RdConn *c, const void *data, size_t len) {
  int r = rd_conn_try_send(c, data, len, RD_TIMEOUT_MS);
  ck_assert_msg(r == 0, "sending %zu bytes to readerd failed: %s", len, g_strerror(-r));
}

void rd_conn_send_str(RdConn *c, const char *s) {
  rd_conn_send(c, s, strlen(s));
}

int rd_conn_recv_line(RdConn *c, int timeout_ms, char **ret_line) {
  int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    guint8 *nl = c->buf->len > c->scanned
                     ? memchr(c->buf->data + c->scanned, '\n', c->buf->len - c->scanned)
                     : NULL;
    if (nl) {
      size_t n = (size_t)(nl - c->buf->data);
      *ret_line = g_strndup((const char *)c->buf->data, n);
      g_byte_array_remove_range(c->buf, 0, (guint)(n + 1));
      c->scanned = 0;
      return 1;
    }
    c->scanned = c->buf->len;
    if (c->eof)
      return 0;
    struct pollfd pf = {c->rfd, POLLIN, 0};
    int left = remaining_ms(deadline);
    if (left == 0)
      return -ETIMEDOUT;
    int r = poll(&pf, 1, left);
    if (r < 0 && errno != EINTR)
      return -errno;
    if (r > 0) {
      int e = conn_pump(c);
      if (e < 0 && e != -ECONNRESET)
        return e;
    }
  }
}

static JsonNode *parse_message(const char *line) {
  JsonNode *msg = rd_json_parse(line, strlen(line));
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(msg),
                "readerd sent a line that is not a JSON object: %.200s", line);
  JsonObject *o = json_node_get_object(msg);
  ck_assert_msg(g_strcmp0(json_object_get_string_member_with_default(o, "jsonrpc", ""), "2.0") == 0,
                "readerd sent a message without \"jsonrpc\": \"2.0\": %.200s", line);
  ck_assert_msg(json_object_has_member(o, "result") != json_object_has_member(o, "error"),
                "a response needs exactly one of result and error: %.200s", line);
  ck_assert_msg(json_object_has_member(o, "id"), "a response without id: %.200s", line);
  return msg;
}

JsonNode *rd_conn_recv(RdConn *c, int timeout_ms) {
  char *line = NULL;
  if (!g_queue_is_empty(&c->queued))
    return g_queue_pop_head(&c->queued);
  int r = rd_conn_recv_line(c, timeout_ms, &line);
  ck_assert_msg(r != 0, "readerd closed the connection instead of answering");
  ck_assert_msg(r > 0, "no answer from readerd within %d ms: %s", timeout_ms, g_strerror(-r));
  JsonNode *msg = parse_message(line);
  g_free(line);
  return msg;
}

bool rd_conn_wait_closed(RdConn *c, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    char *line = NULL;
    int r = rd_conn_recv_line(c, remaining_ms(deadline), &line);
    g_free(line);
    if (r == 0 || r == -ECONNRESET)
      return true;
    if (r < 0)
      return false;
  }
}

char *rd_json_quote(const char *s) {
  JsonNode *n = json_node_new(JSON_NODE_VALUE);
  json_node_set_string(n, s);
  char *t = json_to_string(n, FALSE);
  json_node_unref(n);
  return t;
}

char *rd_json_paths(const char *const *paths, size_t n) {
  GString *s = g_string_new("[");
  for (size_t i = 0; i < n; i++) {
    char *q = rd_json_quote(paths[i]);
    g_string_append_printf(s, "%s%s", i ? "," : "", q);
    g_free(q);
  }
  g_string_append_c(s, ']');
  return g_string_free(s, FALSE);
}

JsonNode *rd_json_parse(const char *text, size_t len) {
  JsonParser *p = json_parser_new_immutable();
  GError *err = NULL;
  gboolean ok = json_parser_load_from_data(p, text, (gssize)len, &err);
  ck_assert_msg(ok, "not JSON (%s): %.200s", err ? err->message : "?", text);
  JsonNode *root = json_parser_steal_root(p);
  g_object_unref(p);
  ck_assert_msg(root != NULL, "empty JSON text");
  return root;
}

char *rd_id_key(JsonNode *id) {
  if (!id || JSON_NODE_HOLDS_NULL(id))
    return g_strdup("null");
  if (JSON_NODE_HOLDS_VALUE(id)) {
    GType t = json_node_get_value_type(id);
    if (t == G_TYPE_INT64)
      return g_strdup_printf("n:%" G_GINT64_FORMAT, json_node_get_int(id));
    if (t == G_TYPE_DOUBLE)
      return g_strdup_printf("n:%.17g", json_node_get_double(id));
    if (t == G_TYPE_STRING)
      return g_strdup_printf("s:%s", json_node_get_string(id));
  }
  return g_strdup("invalid");
}

char *rd_msg_id_key(JsonNode *msg) {
  return rd_id_key(json_object_get_member(json_node_get_object(msg), "id"));
}

int rd_error_code(JsonNode *msg) {
  JsonObject *o = json_node_get_object(msg);
  if (!json_object_has_member(o, "error"))
    return 0;
  JsonNode *e = json_object_get_member(o, "error");
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(e), "error is not an object");
  JsonObject *eo = json_node_get_object(e);
  ck_assert_msg(json_object_has_member(eo, "code") && json_object_has_member(eo, "message"),
                "an error needs code and message");
  ck_assert_msg(JSON_NODE_HOLDS_VALUE(json_object_get_member(eo, "message")) &&
                    json_object_get_string_member(eo, "message")[0] != '\0',
                "an error message is empty");
  return (int)json_object_get_int_member(eo, "code");
}

char *rd_conn_request(RdConn *c, const char *method, const char *params, const char *id) {
  char *auto_id = NULL;
  if (!id)
    id = auto_id = g_strdup_printf("%" G_GINT64_FORMAT, c->next_id++);
  char *m = rd_json_quote(method);
  char *line =
      params ? g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%s,\"params\":%s}\n", id,
                               m, params)
             : g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%s}\n", id, m);
  rd_conn_send_str(c, line);
  JsonNode *idn = rd_json_parse(id, strlen(id));
  char *key = rd_id_key(idn);
  json_node_unref(idn);
  g_free(line);
  g_free(m);
  g_free(auto_id);
  return key;
}

void rd_conn_notify(RdConn *c, const char *method, const char *params) {
  char *m = rd_json_quote(method);
  char *line =
      params ? g_strdup_printf("{\"jsonrpc\":\"2.0\",\"method\":%s,\"params\":%s}\n", m, params)
             : g_strdup_printf("{\"jsonrpc\":\"2.0\",\"method\":%s}\n", m);
  rd_conn_send_str(c, line);
  g_free(line);
  g_free(m);
}

JsonNode *rd_conn_wait(RdConn *c, const char *key, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  for (GList *l = c->queued.head; l; l = l->next) {
    char *k = rd_msg_id_key(l->data);
    bool match = strcmp(k, key) == 0;
    g_free(k);
    if (match) {
      JsonNode *msg = l->data;
      g_queue_delete_link(&c->queued, l);
      return msg;
    }
  }
  for (;;) {
    char *line = NULL;
    int r = rd_conn_recv_line(c, remaining_ms(deadline), &line);
    ck_assert_msg(r != 0, "readerd closed the connection before answering id %s", key);
    ck_assert_msg(r > 0, "no answer to id %s within %d ms: %s", key, timeout_ms, g_strerror(-r));
    JsonNode *msg = parse_message(line);
    g_free(line);
    char *k = rd_msg_id_key(msg);
    bool match = strcmp(k, key) == 0;
    g_free(k);
    if (match)
      return msg;
    g_queue_push_tail(&c->queued, msg);
  }
}

JsonNode *rd_conn_call(RdConn *c, const char *method, const char *params) {
  char *key = rd_conn_request(c, method, params, NULL);
  JsonNode *msg = rd_conn_wait(c, key, RD_TIMEOUT_MS);
  g_free(key);
  return msg;
}

/* ---------------------------------------------------------------- files and text */

char *rd_write_file(const char *dir, const char *name, const void *data, size_t len) {
  char *path = g_build_filename(dir, name, NULL);
  char *parent = g_path_get_dirname(path);
  ck_assert_msg(g_mkdir_with_parents(parent, 0755) == 0, "mkdir %s: %s", parent, g_strerror(errno));
  g_free(parent);
  GError *err = NULL;
  ck_assert_msg(g_file_set_contents(path, data, (gssize)len, &err), "cannot write %s: %s", path,
                err ? err->message : "?");
  return path;
}

char *rd_write_str(const char *dir, const char *name, const char *text) {
  return rd_write_file(dir, name, text, strlen(text));
}

char *rd_read_file(const char *path, size_t *ret_len) {
  char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  ck_assert_msg(g_file_get_contents(path, &data, &len, &err), "cannot read %s: %s", path,
                err ? err->message : "?");
  if (ret_len)
    *ret_len = len;
  return data;
}

int64_t rd_count_lines(const char *data, size_t len) {
  int64_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += data[i] == '\n';
  if (len > 0 && data[len - 1] != '\n')
    n++;
  return n;
}

char **rd_split_lines(const char *data, size_t len) {
  GPtrArray *a = g_ptr_array_new();
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len && start == len)
      break;
    if (i == len || data[i] == '\n') {
      size_t end = i;
      if (i < len && end > start && data[end - 1] == '\r')
        end--;
      g_ptr_array_add(a, g_strndup(data + start, end - start));
      start = i + 1;
    }
  }
  g_ptr_array_add(a, NULL);
  return (char **)g_ptr_array_free(a, FALSE);
}

char **rd_numbered(const char *const *lines, size_t n, int64_t first) {
  char **out = g_new0(char *, n + 1);
  for (size_t i = 0; i < n; i++)
    out[i] = g_strdup_printf("%6" G_GINT64_FORMAT "\t%s", first + (int64_t)i, lines[i]);
  return out;
}

bool rd_lines_equal(const char *what, const char *const *got, const char *const *want) {
  size_t i = 0;
  for (; got[i] && want[i]; i++) {
    if (strcmp(got[i], want[i]) != 0)
      break;
  }
  if (!got[i] && !want[i])
    return true;
  fprintf(stderr, "%s: first difference at line %zu:\n  got:  %.300s\n  want: %.300s\n", what,
          i + 1, got[i] ? got[i] : "(end)", want[i] ? want[i] : "(end)");
  return false;
}

int64_t rd_mtime_ms(const char *path) {
  struct stat st;
  ck_assert_msg(lstat(path, &st) == 0, "lstat %s: %s", path, g_strerror(errno));
  return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

char *rd_iso_ms(int64_t ms) {
  int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int frac = (int)(ms - secs * 1000);
  time_t t = (time_t)secs;
  struct tm tm;
  gmtime_r(&t, &tm);
  return g_strdup_printf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le24(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static bool jpeg_size(const unsigned char *d, size_t len, int *ret_w, int *ret_h) {
  size_t i = 2;
  while (i + 4 <= len) {
    if (d[i] != 0xff)
      return false;
    while (i < len && d[i] == 0xff)
      i++;
    if (i >= len)
      return false;
    unsigned m = d[i++];
    if (m == 0x01 || (m >= 0xd0 && m <= 0xd8))
      continue;
    if (i + 2 > len || m == 0xd9 || m == 0xda)
      return false;
    size_t seg = (size_t)d[i] << 8 | d[i + 1];
    if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
      if (i + 7 > len)
        return false;
      *ret_h = d[i + 3] << 8 | d[i + 4];
      *ret_w = d[i + 5] << 8 | d[i + 6];
      return true;
    }
    i += seg;
  }
  return false;
}

bool rd_image_size(const unsigned char *d, size_t len, int *ret_w, int *ret_h) {
  if (len >= 24 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0) {
    *ret_w = (int)be32(d + 16);
    *ret_h = (int)be32(d + 20);
    return true;
  }
  if (len >= 10 && (memcmp(d, "GIF87a", 6) == 0 || memcmp(d, "GIF89a", 6) == 0)) {
    *ret_w = d[6] | d[7] << 8;
    *ret_h = d[8] | d[9] << 8;
    return true;
  }
  if (len >= 30 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) {
    if (memcmp(d + 12, "VP8 ", 4) == 0) {
      *ret_w = (d[26] | d[27] << 8) & 0x3fff;
      *ret_h = (d[28] | d[29] << 8) & 0x3fff;
      return true;
    }
    if (memcmp(d + 12, "VP8L", 4) == 0) {
      uint32_t b = d[21] | (uint32_t)d[22] << 8 | (uint32_t)d[23] << 16 | (uint32_t)d[24] << 24;
      *ret_w = (int)(b & 0x3fff) + 1;
      *ret_h = (int)((b >> 14) & 0x3fff) + 1;
      return true;
    }
    if (memcmp(d + 12, "VP8X", 4) == 0) {
      *ret_w = (int)le24(d + 24) + 1;
      *ret_h = (int)le24(d + 27) + 1;
      return true;
    }
    return false;
  }
  if (len >= 4 && d[0] == 0xff && d[1] == 0xd8)
    return jpeg_size(d, len, ret_w, ret_h);
  return false;
}

static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++)
      crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

static void put_be32(GByteArray *a, uint32_t v) {
  guint8 b[4] = {v >> 24, v >> 16, v >> 8, v};
  g_byte_array_append(a, b, 4);
}

static void png_chunk(GByteArray *a, const char *type, const guint8 *data, size_t len) {
  put_be32(a, (uint32_t)len);
  guint start = a->len;
  g_byte_array_append(a, (const guint8 *)type, 4);
  g_byte_array_append(a, data, (guint)len);
  put_be32(a, crc32_update(0, a->data + start, len + 4));
}

unsigned char *rd_make_png(int w, int h, size_t *ret_len) {
  GByteArray *png = g_byte_array_new();
  GByteArray *raw = g_byte_array_new();
  GByteArray *z = g_byte_array_new();
  guint8 ihdr[13] = {0};

  for (int y = 0; y < h; y++) {
    guint8 filter = 0;
    g_byte_array_append(raw, &filter, 1);
    for (int x = 0; x < w; x++) {
      guint8 px[3] = {(guint8)(x * 40), (guint8)(y * 60), 128};
      g_byte_array_append(raw, px, 3);
    }
  }
  /* A zlib stream of stored deflate blocks, with its Adler-32. */
  g_byte_array_append(z, (const guint8 *)"\x78\x01", 2);
  uint32_t s1 = 1, s2 = 0;
  for (guint off = 0; off < raw->len || off == 0;) {
    guint n = MIN(raw->len - off, 65535u);
    guint8 hdr[5] = {off + n == raw->len, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff};
    g_byte_array_append(z, hdr, 5);
    g_byte_array_append(z, raw->data + off, n);
    off += n;
    if (off == raw->len)
      break;
  }
  for (guint i = 0; i < raw->len; i++) {
    s1 = (s1 + raw->data[i]) % 65521;
    s2 = (s2 + s1) % 65521;
  }
  put_be32(z, s2 << 16 | s1);

  g_byte_array_append(png, (const guint8 *)"\x89PNG\r\n\x1a\n", 8);
  ihdr[0] = (guint8)(w >> 24), ihdr[1] = (guint8)(w >> 16), ihdr[2] = (guint8)(w >> 8);
  ihdr[3] = (guint8)w, ihdr[4] = (guint8)(h >> 24), ihdr[5] = (guint8)(h >> 16);
  ihdr[6] = (guint8)(h >> 8), ihdr[7] = (guint8)h, ihdr[8] = 8, ihdr[9] = 2;
  png_chunk(png, "IHDR", ihdr, 13);
  png_chunk(png, "IDAT", z->data, z->len);
  png_chunk(png, "IEND", NULL, 0);
  g_byte_array_free(raw, TRUE);
  g_byte_array_free(z, TRUE);
  *ret_len = png->len;
  return g_byte_array_free(png, FALSE);
}

/* Bits packed least significant first, as VP8L reads them. */
typedef struct {
  GByteArray *out;
  uint32_t acc;
  int n;
} BitWriter;

static void bits_put(BitWriter *b, uint32_t v, int nbits) {
  for (int i = 0; i < nbits; i++) {
    b->acc |= ((v >> i) & 1u) << b->n;
    if (++b->n == 8) {
      guint8 byte = (guint8)b->acc;
      g_byte_array_append(b->out, &byte, 1);
      b->acc = 0;
      b->n = 0;
    }
  }
}

static void put_le32(GByteArray *a, uint32_t v) {
  guint8 b[4] = {v, v >> 8, v >> 16, v >> 24};
  g_byte_array_append(a, b, 4);
}

unsigned char *rd_make_webp(int w, int h, size_t *ret_len) {
  GByteArray *bits = g_byte_array_new();
  BitWriter b = {bits, 0, 0};
  const uint32_t argb[4] = {0x40 /* green */, 0xc0 /* red */, 0x80 /* blue */, 0xff /* alpha */};

  bits_put(&b, 0x2f, 8); /* VP8L signature */
  bits_put(&b, (uint32_t)(w - 1), 14);
  bits_put(&b, (uint32_t)(h - 1), 14);
  bits_put(&b, 0, 1); /* no alpha */
  bits_put(&b, 0, 3); /* version */
  bits_put(&b, 0, 1); /* no transform */
  bits_put(&b, 0, 1); /* no color cache */
  bits_put(&b, 0, 1); /* no meta prefix codes */
  /* Five simple prefix codes of one symbol each: every pixel then takes no bits at all. */
  for (int i = 0; i < 4; i++) {
    bits_put(&b, 1, 1);
    bits_put(&b, 0, 1);
    bits_put(&b, 1, 1);
    bits_put(&b, argb[i], 8);
  }
  bits_put(&b, 1, 1);
  bits_put(&b, 0, 1);
  bits_put(&b, 0, 1);
  bits_put(&b, 0, 1);
  if (b.n)
    bits_put(&b, 0, 8 - b.n);
  if (bits->len % 2)
    bits_put(&b, 0, 8);

  GByteArray *out = g_byte_array_new();
  g_byte_array_append(out, (const guint8 *)"RIFF", 4);
  put_le32(out, 4 + 8 + bits->len);
  g_byte_array_append(out, (const guint8 *)"WEBPVP8L", 8);
  put_le32(out, bits->len);
  g_byte_array_append(out, bits->data, bits->len);
  g_byte_array_free(bits, TRUE);
  *ret_len = out->len;
  return g_byte_array_free(out, FALSE);
}

/* ---------------------------------------------------------------- XML and results */

static GMutex schema_lock;
static xmlRelaxNGPtr schema;

/* Validation shares one compiled schema; libxml2 does not promise that is safe from many
 * threads at once, so validations take turns. Called with schema_lock held. */
static xmlRelaxNGPtr schema_get(void) {
  if (schema)
    return schema;
  const char *path = getenv("READERD_SCHEMA");
  ck_assert_msg(path && *path, "env READERD_SCHEMA (docs/read-results.rng) is not set");
  ck_assert_msg(access(path, R_OK) == 0, "the schema %s cannot be read: %s", path,
                g_strerror(errno));
  xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewParserCtxt(path);
  schema = xmlRelaxNGParse(pc);
  xmlRelaxNGFreeParserCtxt(pc);
  ck_assert_msg(schema != NULL, "the schema %s does not compile", path);
  return schema;
}

xmlDocPtr rd_xml_parse_valid(const char *xml, size_t len) {
  ck_assert_msg(len < INT32_MAX, "result.xml is %zu bytes", len);
  xmlDocPtr doc = xmlReadMemory(xml, (int)len, "result.xml", NULL, XML_PARSE_NONET);
  ck_assert_msg(doc != NULL, "result.xml is not well-formed XML (see stderr): %.300s", xml);
  g_mutex_lock(&schema_lock);
  xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema_get());
  int r = xmlRelaxNGValidateDoc(vc, doc);
  xmlRelaxNGFreeValidCtxt(vc);
  g_mutex_unlock(&schema_lock);
  if (r != 0)
    fprintf(stderr, "---- invalid result.xml ----\n%.4000s\n----\n", xml);
  ck_assert_msg(r == 0, "result.xml does not validate against the schema (see stderr)");
  return doc;
}

static RdResult *result_from_doc(xmlDocPtr doc) {
  RdResult *r = g_new0(RdResult, 1);
  r->doc = doc;
  r->contents = g_ptr_array_new();
  xmlNodePtr root = xmlDocGetRootElement(doc);
  ck_assert_msg(root && strcmp((const char *)root->name, "ReadResults") == 0,
                "the root element is not ReadResults");
  for (xmlNodePtr n = root->children; n; n = n->next) {
    if (n->type == XML_ELEMENT_NODE)
      g_ptr_array_add(r->contents, n);
  }
  return r;
}

RdResult *rd_result_from_xml(const char *xml, size_t len) {
  return result_from_doc(rd_xml_parse_valid(xml, len));
}

static JsonArray *array_member(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  ck_assert_msg(n && JSON_NODE_HOLDS_ARRAY(n), "the result's %s is not an array", name);
  return json_node_get_array(n);
}

static bool attr_eq_int(RdResult *r, guint i, const char *name, int64_t want) {
  char *a = rd_attr(r, (int)i, name);
  char *w = g_strdup_printf("%" G_GINT64_FORMAT, want);
  bool ok = a && strcmp(a, w) == 0;
  if (!ok)
    fprintf(stderr, "Content[%u] %s='%s', files[%u].%s = %s\n", i, name, a ? a : "(none)", i, name,
            w);
  g_free(a);
  g_free(w);
  return ok;
}

static void check_image_entry(RdResult *r, guint i, JsonObject *f) {
  int64_t k = rd_file_int(r, i, "image");
  ck_assert_msg(k >= 0 && k < json_array_get_length(r->images),
                "files[%u].image = %" G_GINT64_FORMAT " is not an index into images", i, k);
  JsonObject *img = json_array_get_object_element(r->images, (guint)k);
  ck_assert_str_eq(json_object_get_string_member(img, "path"),
                   json_object_get_string_member(f, "path"));
  ck_assert_str_eq(json_object_get_string_member(img, "mediaType"),
                   json_object_get_string_member(f, "mediaType"));
  ck_assert_int_eq(json_object_get_int_member(img, "width"), rd_file_int(r, i, "width"));
  ck_assert_int_eq(json_object_get_int_member(img, "height"), rd_file_int(r, i, "height"));
  /* width and height describe the data sent, whatever was done to it. */
  GBytes *data = rd_image_bytes(r, (guint)k);
  gsize len = 0;
  const unsigned char *d = g_bytes_get_data(data, &len);
  int w = 0, h = 0;
  ck_assert_msg(rd_image_size(d, len, &w, &h),
                "images[%" G_GINT64_FORMAT "] is not a PNG, JPEG, "
                "GIF or WebP",
                k);
  ck_assert_msg(
      w == json_object_get_int_member(img, "width") &&
          h == json_object_get_int_member(img, "height"),
      "images[%" G_GINT64_FORMAT "] is %dx%d but says %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, k, w,
      h, json_object_get_int_member(img, "width"), json_object_get_int_member(img, "height"));
  const char *mt = json_object_get_string_member(img, "mediaType");
  bool mt_ok = (d[0] == 0x89 && strcmp(mt, "image/png") == 0) ||
               (d[0] == 0xff && strcmp(mt, "image/jpeg") == 0) ||
               (d[0] == 'G' && strcmp(mt, "image/gif") == 0) ||
               (d[0] == 'R' && strcmp(mt, "image/webp") == 0);
  ck_assert_msg(mt_ok, "images[%" G_GINT64_FORMAT "] data is not %s", k, mt);
  g_bytes_unref(data);
  ck_assert(attr_eq_int(r, i, "image", k));
  ck_assert(attr_eq_int(r, i, "width", rd_file_int(r, i, "width")));
  ck_assert(attr_eq_int(r, i, "height", rd_file_int(r, i, "height")));
}

/* s with every character XML 1.0 cannot carry replaced by U+FFFD, as the contract has it.
 * g_malloc'd. */
static char *xml_safe(const char *s) {
  GString *out = g_string_new(NULL);
  for (const char *p = s; *p; p = g_utf8_next_char(p)) {
    gunichar c = g_utf8_get_char(p);
    bool ok = c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
              (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    g_string_append_unichar(out, ok ? c : 0xfffd);
  }
  return g_string_free(out, FALSE);
}

/* The XML mirrors files[i] (the contract), and the totals are the sums over the files read. */
static void check_mirror(RdResult *r) {
  int64_t bytes = 0, lines = 0;
  for (guint i = 0; i < r->contents->len; i++) {
    JsonObject *f = rd_file(r, i);
    const char *code = rd_file_str(r, i, "code");
    char *a = rd_attr(r, (int)i, "path");
    char *want_path = xml_safe(json_object_get_string_member(f, "path"));
    ck_assert_msg(a && strcmp(a, want_path) == 0, "Content[%u] path differs from files[%u].path", i,
                  i);
    g_free(want_path);
    g_free(a);
    a = rd_attr(r, (int)i, "code");
    ck_assert_msg(g_strcmp0(a, code) == 0, "Content[%u] code '%s' but files[%u].code '%s'", i,
                  a ? a : "", i, code ? code : "");
    g_free(a);
    if (code) {
      ck_assert_msg(rd_file_str(r, i, "error") && *rd_file_str(r, i, "error"),
                    "files[%u] failed (%s) without an error message", i, code);
      continue;
    }
    const char *type = rd_file_str(r, i, "type");
    a = rd_attr(r, (int)i, "type");
    ck_assert_msg(type && g_strcmp0(a, type) == 0, "Content[%u] type '%s', files[%u].type '%s'", i,
                  a ? a : "", i, type ? type : "");
    g_free(a);
    bytes += rd_file_int(r, i, "bytes");
    ck_assert(attr_eq_int(r, i, "bytes", rd_file_int(r, i, "bytes")));
    char *iso = rd_iso_ms(rd_file_int(r, i, "modified"));
    a = rd_attr(r, (int)i, "modified");
    ck_assert_msg(g_strcmp0(a, iso) == 0, "Content[%u] modified '%s', files[%u].modified is %s", i,
                  a ? a : "", i, iso);
    g_free(a);
    g_free(iso);
    a = rd_attr(r, (int)i, "truncated");
    ck_assert_msg((g_strcmp0(a, "true") == 0) == rd_file_true(r, i, "truncated"),
                  "Content[%u] truncated='%s' differs from files[%u].truncated", i, a ? a : "", i);
    g_free(a);
    if (strcmp(type, "text") == 0) {
      lines += rd_file_int(r, i, "lines");
      ck_assert(attr_eq_int(r, i, "lines", rd_file_int(r, i, "lines")));
    } else if (strcmp(type, "image") == 0) {
      check_image_entry(r, i, f);
    }
  }
  ck_assert_msg(json_object_get_int_member(r->result, "bytes") == bytes,
                "result.bytes %" G_GINT64_FORMAT
                " is not the sum over the files read (%" G_GINT64_FORMAT ")",
                json_object_get_int_member(r->result, "bytes"), bytes);
  ck_assert_msg(json_object_get_int_member(r->result, "lines") == lines,
                "result.lines %" G_GINT64_FORMAT
                " is not the sum over the files read (%" G_GINT64_FORMAT ")",
                json_object_get_int_member(r->result, "lines"), lines);
  ck_assert(attr_eq_int(r, -1, "bytes", bytes));
  ck_assert(attr_eq_int(r, -1, "lines", lines));
}

static RdResult *result_from_object(JsonNode *msg, JsonObject *result) {
  JsonNode *xn = json_object_get_member(result, "xml");
  ck_assert_msg(xn && JSON_NODE_HOLDS_VALUE(xn) && json_node_get_value_type(xn) == G_TYPE_STRING,
                "the result has no xml string");
  const char *xml = json_node_get_string(xn);
  RdResult *r = rd_result_from_xml(xml, strlen(xml));
  r->msg = msg;
  r->result = result;
  r->files = array_member(result, "files");
  r->images = array_member(result, "images");
  ck_assert_msg(json_object_has_member(result, "bytes") && json_object_has_member(result, "lines"),
                "the result lacks bytes or lines");
  ck_assert_msg(json_array_get_length(r->files) == r->contents->len,
                "files has %u entries but the xml %u Content elements",
                json_array_get_length(r->files), r->contents->len);
  check_mirror(r);
  return r;
}

RdResult *rd_result_new(JsonNode *msg) {
  JsonObject *o = json_node_get_object(msg);
  if (json_object_has_member(o, "error")) {
    char *s = json_to_string(msg, FALSE);
    ck_abort_msg("expected a read result, got an error: %.400s", s);
  }
  JsonNode *res = json_object_get_member(o, "result");
  ck_assert_msg(res && JSON_NODE_HOLDS_OBJECT(res), "the result is not an object");
  return result_from_object(msg, json_node_get_object(res));
}

RdResult *rd_result_from_json(const char *json, size_t len) {
  JsonNode *msg = rd_json_parse(json, len);
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(msg), "--json output is not an object");
  return result_from_object(msg, json_node_get_object(msg));
}

void rd_result_free(RdResult *r) {
  if (!r)
    return;
  if (r->doc)
    xmlFreeDoc(r->doc);
  if (r->contents)
    g_ptr_array_free(r->contents, TRUE);
  if (r->msg)
    json_node_unref(r->msg);
  g_free(r);
}

RdResult *rd_read(RdConn *c, const char *params) {
  return rd_result_new(rd_conn_call(c, "read", params));
}

RdResult *rd_read_paths(RdConn *c, const char *const *paths, size_t n, const char *extra) {
  char *arr = rd_json_paths(paths, n);
  char *params = g_strdup_printf("{\"paths\":%s%s%s}", arr, extra ? "," : "", extra ? extra : "");
  RdResult *r = rd_read(c, params);
  g_free(params);
  g_free(arr);
  return r;
}

JsonObject *rd_file(RdResult *r, guint i) {
  ck_assert_msg(r->files && i < json_array_get_length(r->files), "no files[%u]", i);
  JsonNode *n = json_array_get_element(r->files, i);
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(n), "files[%u] is not an object", i);
  return json_node_get_object(n);
}

int64_t rd_file_int(RdResult *r, guint i, const char *member) {
  JsonNode *n = json_object_get_member(rd_file(r, i), member);
  ck_assert_msg(n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64,
                "files[%u].%s is missing or not an integer", i, member);
  return json_node_get_int(n);
}

const char *rd_file_str(RdResult *r, guint i, const char *member) {
  JsonNode *n = json_object_get_member(rd_file(r, i), member);
  if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

bool rd_file_true(RdResult *r, guint i, const char *member) {
  JsonNode *n = json_object_get_member(rd_file(r, i), member);
  return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_BOOLEAN &&
         json_node_get_boolean(n);
}

xmlNodePtr rd_content(RdResult *r, guint i) {
  ck_assert_msg(i < r->contents->len, "no Content element %u", i);
  xmlNodePtr n = g_ptr_array_index(r->contents, i);
  ck_assert_msg(strcmp((const char *)n->name, "Content") == 0, "element %u is <%s>, not Content", i,
                n->name);
  return n;
}

char *rd_attr(RdResult *r, int i, const char *name) {
  xmlNodePtr n = i < 0 ? xmlDocGetRootElement(r->doc) : rd_content(r, (guint)i);
  xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
  char *s = v ? g_strdup((const char *)v) : NULL;
  xmlFree(v);
  return s;
}

char *rd_text(RdResult *r, guint i) {
  xmlChar *v = xmlNodeGetContent(rd_content(r, i));
  const char *s = v ? (const char *)v : "";
  char *t = g_strdup(s[0] == '\n' ? s + 1 : s);
  xmlFree(v);
  return t;
}

char **rd_text_lines(RdResult *r, guint i) {
  char *t = rd_text(r, i);
  char **lines = rd_split_lines(t, strlen(t));
  g_free(t);
  return lines;
}

GBytes *rd_image_bytes(RdResult *r, guint k) {
  ck_assert_msg(k < json_array_get_length(r->images), "no images[%u]", k);
  JsonObject *img = json_array_get_object_element(r->images, k);
  const char *data = json_object_get_string_member(img, "data");
  ck_assert_msg(data != NULL, "images[%u] has no data", k);
  size_t len = strlen(data);
  ck_assert_msg(len % 4 == 0 && strspn(data, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                             "0123456789+/=") == len,
                "images[%u].data is not base64", k);
  gsize n = 0;
  guchar *bytes = g_base64_decode(data, &n);
  return g_bytes_new_take(bytes, n);
}

/* ---------------------------------------------------------------- stdio mode */

RdStdio *rd_stdio_start(void) {
  RdStdio *s = g_new0(RdStdio, 1);
  int in_p[2], out_p[2];
  s->dir = rd_tmpdir();
  reg_add_dir(s->dir);
  s->log = g_build_filename(s->dir, "stderr.log", NULL);
  int log_fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_int_ge(log_fd, 0);
  make_pipe(in_p);
  make_pipe(out_p);
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
    char *tail = log_tail(s->log);
    ck_abort_msg("readerd serve --stdio did not exit within %d ms; stderr:\n%s", timeout_ms, tail);
  }
  s->pid = 0;
  check_log_clean(s->log);
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
  reg_del_dir(s->dir);
  rd_rmtree(s->dir);
  g_free(s->dir);
  g_free(s->log);
  g_free(s);
}
