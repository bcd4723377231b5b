#include "daemon/server.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>
#include <uv.h>

#include "daemon/conn.h"
#include "daemon/rpc.h"
#include "daemon/log.h"
#include "daemon/request/scheduler.h"
#include "daemon/socket-path.h"
#include "daemon/stdio-relay.h"
#include "formatters/price-memo.h"

/* How often the server looks whether it went idle after reading, to give memory back. */
#define SERVER_TRIM_PERIOD_MS 2000

typedef struct {
  uv_loop_t *loop;
  uv_pipe_t listener;
  uv_signal_t sigint;
  uv_signal_t sigterm;
  uv_timer_t trim;      /* unreferenced: it never keeps the loop running */
  uv_timer_t idle;      /* --idle-exit: runs while no client is connected */
  uint64_t idle_exit_ms; /* 0: never exit when idle */
  uint64_t trim_tick;   /* scheduler_units_started() at the last tick */
  uint64_t trim_done;   /* the same when memory was last given back */
  GPtrArray *conns; /* Conn*, open */
  Conn *stdio_conn;
  bool listening; /* listener is open */
  char *path; /* socket file to remove at the end (one readerd bound itself), or NULL */
  bool stopping;
  int exit_status;
} Server;

static void handle_close_noop(uv_handle_t *h) {
}

static void stop(Server *s) {
  if (s->stopping)
    return;
  s->stopping = true;
  if (s->listening)
    uv_close((uv_handle_t *)&s->listener, handle_close_noop);
  /* A passed socket is its launcher's: its file stays, for the next start. */
  if (s->path != NULL)
    unlink(s->path);
  uv_close((uv_handle_t *)&s->sigint, handle_close_noop);
  uv_close((uv_handle_t *)&s->sigterm, handle_close_noop);
  uv_close((uv_handle_t *)&s->trim, handle_close_noop);
  uv_close((uv_handle_t *)&s->idle, handle_close_noop);
  /* conn_close re-enters conn_closed_cb later, never now: iterate over a copy anyway. */
  for (guint i = s->conns->len; i > 0; i--)
    conn_close(g_ptr_array_index(s->conns, i - 1));
}

/* After a read, glibc's arenas keep the freed answers' memory (tens of MiB after a large read),
 * which spares the next read faulting it back in. Once no work has started for a whole period
 * and nothing runs, it goes back to the system: a daemon idle for hours holds about its idle
 * size. malloc_trim takes a few milliseconds of the loop, only then. */
static void trim_cb(uv_timer_t *t) {
  Server *s = t->data;
  uint64_t started = scheduler_units_started();

  if (started == s->trim_tick && started != s->trim_done &&
      scheduler_running(s->loop, SCHEDULER_LANE) == 0 &&
      scheduler_running(s->loop, SCHEDULER_BLOCKING) == 0) {
    malloc_trim(0);
    s->trim_done = started;
  }
  s->trim_tick = started;
}

static void signal_cb(uv_signal_t *h, int signum) {
  Server *s = h->data;

  log_info("%s: shutting down", strsignal(signum));
  stop(s);
}

/* No client for the whole --idle-exit period: a socket-activated daemon exits, and its launcher
 * starts it again on the next connect (a connection made meanwhile waits in the backlog). */
static void idle_cb(uv_timer_t *t) {
  Server *s = t->data;

  if (s->conns->len > 0)
    return;
  log_info("no client for %" PRIu64 " s: exiting until the next connection",
           s->idle_exit_ms / 1000);
  stop(s);
}

static void idle_watch(Server *s) {
  if (s->idle_exit_ms == 0 || s->stopping)
    return;
  if (s->conns->len == 0)
    uv_timer_start(&s->idle, idle_cb, s->idle_exit_ms, 0);
  else
    uv_timer_stop(&s->idle);
}

static void conn_closed_cb(Conn *c, void *data) {
  Server *s = data;

  g_ptr_array_remove_fast(s->conns, c);
  idle_watch(s);
  if (c == s->stdio_conn) {
    s->exit_status = conn_exit_status(c);
    s->stdio_conn = NULL;
    stop(s);
  }
}

static void connection_cb(uv_stream_t *listener, int status) {
  Server *s = listener->data;
  Conn *c;
  int err = 0;

  if (status < 0) {
    log_warning("accept: %s", uv_strerror(status));
    return;
  }
  c = conn_accept(s->loop, listener, &rpc_handler, conn_closed_cb, s, &err);
  if (c == NULL) {
    log_warning("accept: %s", uv_strerror(err));
    return;
  }
  g_ptr_array_add(s->conns, c);
  idle_watch(s);
}

char *server_default_socket_path(int *ret_err) {
  const char *rt = g_getenv("XDG_RUNTIME_DIR");
  g_autofree char *dir = NULL;

  if (rt != NULL && *rt == '/')
    return g_build_filename(rt, "readerd.sock", NULL);
  dir = g_strdup_printf("/tmp/readerd-%u", (unsigned)geteuid());
  if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
    *ret_err = -errno;
    return NULL;
  }
  /* Whether the folder is ours to listen in is checked, as for any path, before binding. */
  return g_build_filename(dir, "readerd.sock", NULL);
}

/* 1 when a daemon answers on path, 0 when nothing listens there, negative errno otherwise. */
static int socket_alive(const char *path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  int fd, r;

  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
  r = r == 0 ? 1 : (errno == ECONNREFUSED ? 0 : -errno);
  close(fd);
  return r;
}

static int bind_socket(Server *s, const char *path) {
  struct stat st;
  mode_t old_mask;
  g_autofree char *err = NULL;
  int r;

  /* Never an abstract socket, never a folder others can write to. */
  r = socket_path_check(path, &err);
  if (r < 0) {
    log_error("refusing the socket path: %s", err);
    return r;
  }
  if (lstat(path, &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      log_error("%s exists and is not a socket", path);
      return UV_EEXIST;
    }
    r = socket_alive(path);
    if (r == 1) {
      log_error("another readerd is listening on %s", path);
      return UV_EADDRINUSE;
    }
    /* A socket file nobody listens on is what a killed daemon leaves behind. */
    log_info("removing stale socket %s", path);
    unlink(path);
  }
  uv_pipe_init(s->loop, &s->listener, 0);
  s->listener.data = s;
  /* Created 0600 from the start: no window in which others may connect. */
  old_mask = umask(0177);
  r = uv_pipe_bind(&s->listener, path);
  umask(old_mask);
  if (r == 0)
    r = uv_listen((uv_stream_t *)&s->listener, 128, connection_cb);
  if (r < 0) {
    log_error("listen on %s: %s", path, uv_strerror(r));
    uv_close((uv_handle_t *)&s->listener, handle_close_noop);
    return r;
  }
  chmod(path, 0600);
  s->listening = true;
  s->path = g_strdup(path);
  return 0;
}

static int open_passed_socket(Server *s, int fd) {
  int r;

  uv_pipe_init(s->loop, &s->listener, 0);
  s->listener.data = s;
  r = uv_pipe_open(&s->listener, fd);
  /* Already listening: listen() again only sets the backlog, which the launcher chose. */
  if (r == 0)
    r = uv_listen((uv_stream_t *)&s->listener, 128, connection_cb);
  if (r < 0) {
    log_error("cannot listen on the passed socket: %s", uv_strerror(r));
    uv_close((uv_handle_t *)&s->listener, handle_close_noop);
    return r;
  }
  s->listening = true;
  return 0;
}

/* The daemon prices the contents it reads through a memo of what it priced before (the one-shot
 * CLI, with nothing to reuse, has none). Its key comes from the system's random source, so that
 * no client can know it; without one the daemon prices every content. Before any thread starts. */
static void price_memo_start(void) {
  uint64_t seed[2];
  int r = uv_random(NULL, NULL, seed, sizeof seed, 0, NULL);

  if (r < 0) {
    log_warning("no price memo: no random seed: %s", uv_strerror(r));
    return;
  }
  price_memo_install(price_memo_new(PRICE_MEMO_DAEMON_BITS, seed[0], seed[1]));
}

static void price_memo_stop(void) {
  PriceMemo *m = price_memo_installed();

  price_memo_install(NULL);
  price_memo_free(m);
}

static void server_init(Server *s) {
  price_memo_start();
  memset(s, 0, sizeof(*s));
  s->loop = uv_default_loop();
  s->conns = g_ptr_array_new();
  uv_signal_init(s->loop, &s->sigint);
  uv_signal_init(s->loop, &s->sigterm);
  s->sigint.data = s;
  s->sigterm.data = s;
  uv_signal_start(&s->sigint, signal_cb, SIGINT);
  uv_signal_start(&s->sigterm, signal_cb, SIGTERM);
  uv_timer_init(s->loop, &s->trim);
  s->trim.data = s;
  s->trim_done = s->trim_tick = scheduler_units_started();
  uv_timer_start(&s->trim, trim_cb, SERVER_TRIM_PERIOD_MS, SERVER_TRIM_PERIOD_MS);
  uv_unref((uv_handle_t *)&s->trim);
  uv_timer_init(s->loop, &s->idle);
  s->idle.data = s;
}

/* Runs the loop to the end and releases the server. */
static int server_finish(Server *s) {
  int r;

  uv_run(s->loop, UV_RUN_DEFAULT);
  r = uv_loop_close(s->loop);
  if (r < 0)
    log_warning("loop closed with handles still open: %s", uv_strerror(r));
  g_ptr_array_free(s->conns, TRUE);
  g_free(s->path);
  price_memo_stop();
  return s->exit_status;
}

int server_run_socket(const char *path) {
  Server s;
  int r;

  server_init(&s);
  r = bind_socket(&s, path);
  if (r < 0) {
    stop(&s);
    server_finish(&s);
    return 1;
  }
  log_info("listening on %s", path);
  return server_finish(&s);
}

int server_run_passed_socket(int fd, unsigned idle_exit_seconds) {
  Server s;
  char name[sizeof(((struct sockaddr_un *)NULL)->sun_path) + 1];
  size_t len = sizeof(name);

  server_init(&s);
  if (open_passed_socket(&s, fd) < 0) {
    stop(&s);
    server_finish(&s);
    return 1;
  }
  /* Only to say where: the launcher made the socket. */
  if (uv_pipe_getsockname(&s.listener, name, &len) < 0 || len == 0)
    g_strlcpy(name, "an unnamed socket", sizeof(name));
  log_info("listening on %s (a socket passed on descriptor %d)", name, fd);
  s.idle_exit_ms = (uint64_t)idle_exit_seconds * 1000;
  idle_watch(&s);
  return server_finish(&s);
}

int server_run_stdio(const ConnHandler *handler) {
  Server s;
  StdioRelay *in_relay = NULL, *out_relay = NULL;
  int in_fd = -1, out_fd = -1, err = 0, out_err;

  server_init(&s);
  s.exit_status = 1;
  /* A regular file or /dev/null cannot be watched by the loop: a thread relays it. */
  err = stdio_relay_open(STDIN_FILENO, true, &in_fd, &in_relay);
  if (err == 0)
    err = stdio_relay_open(STDOUT_FILENO, false, &out_fd, &out_relay);
  if (err == 0)
    s.stdio_conn = conn_open_stdio(s.loop, in_fd, out_fd, handler, conn_closed_cb, &s, &err);
  if (s.stdio_conn == NULL) {
    log_error("cannot serve on stdin and stdout: %s", uv_strerror(err));
    /* The relays' ends were not taken by the connection: closing them ends the threads. */
    if (in_relay != NULL)
      close(in_fd);
    if (out_relay != NULL)
      close(out_fd);
    stdio_relay_finish(in_relay);
    stdio_relay_finish(out_relay);
    stop(&s);
    server_finish(&s);
    return 1;
  }
  g_ptr_array_add(s.conns, s.stdio_conn);
  server_finish(&s);
  /* The connection's handles are closed: the relays have seen the end of it. */
  stdio_relay_finish(in_relay);
  out_err = stdio_relay_finish(out_relay);
  if (out_err < 0) {
    log_error("cannot write the output: %s", g_strerror(-out_err));
    return CONN_EXIT_OUTPUT;
  }
  return s.exit_status;
}
