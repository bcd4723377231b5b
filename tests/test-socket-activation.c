/* A socket passed by systemd (LISTEN_FDS): socket_activation_take on real sockets put on
 * descriptor 3, as systemd puts them. Each case runs in a process of its own (check forks). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/socket-activation.h"

static char *base;

static void setup(void) {
  base = g_build_filename(g_get_tmp_dir(), "test-socket-activation-XXXXXX", NULL);
  ck_assert_ptr_nonnull(g_mkdtemp(base));
  g_unsetenv("LISTEN_FDS");
  g_unsetenv("LISTEN_PID");
  g_unsetenv("LISTEN_FDNAMES");
}

static void teardown(void) {
  g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", base);

  ck_assert_int_eq(system(cmd), 0);
  g_free(base);
  base = NULL;
}

/* A Unix socket of `type` bound to NAME in the test's folder, listening when asked. */
static int unix_socket(int type, const char *name, bool listening, char **ret_path) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  g_autofree char *path = g_build_filename(base, name, NULL);
  int fd = socket(AF_UNIX, type, 0);

  ck_assert_int_ge(fd, 0);
  ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
  strcpy(sa.sun_path, path);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
  if (listening)
    ck_assert_int_eq(listen(fd, 8), 0);
  if (ret_path != NULL)
    *ret_path = g_steal_pointer(&path);
  return fd;
}

/* What socket_activation_take did in the process the socket was passed to. */
typedef struct {
  int r;
  int fd;
  bool cloexec;
  bool env_left;   /* LISTEN_FDS, LISTEN_PID or LISTEN_FDNAMES still set after it */
  bool accepts;    /* a connection to `connect_to` was accepted on the descriptor taken */
  char error[512];
} Taken;

/* Passes fd (and `extra` on descriptor 4 when not -1) as systemd does, in a child process:
 * check talks to the forked case over descriptors that dup2 onto 3 would replace. The child
 * takes the socket and reports what it got through a pipe. */
static void take_in_child(int fd, int extra, const char *n_fds, bool other_pid,
                          const char *connect_to, Taken *ret) {
  int p[2];
  pid_t pid;
  int status;
  ssize_t n;

  ck_assert_int_eq(pipe(p), 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    Taken t = {.fd = -1};
    char *error = NULL;
    g_autofree char *me = g_strdup_printf("%d", other_pid ? (int)getppid() : (int)getpid());
    int out = fcntl(p[1], F_DUPFD_CLOEXEC, 100);

    if (out < 0 || dup2(fd, SOCKET_ACTIVATION_FD) < 0 ||
        (extra >= 0 && dup2(extra, SOCKET_ACTIVATION_FD + 1) < 0))
      _exit(3);
    g_setenv("LISTEN_FDS", n_fds, TRUE);
    g_setenv("LISTEN_PID", me, TRUE);
    g_setenv("LISTEN_FDNAMES", "readerd.socket", TRUE);
    t.r = socket_activation_take(&t.fd, &error);
    if (error != NULL)
      g_strlcpy(t.error, error, sizeof(t.error));
    t.cloexec = t.fd >= 0 && (fcntl(t.fd, F_GETFD) & FD_CLOEXEC) != 0;
    t.env_left = g_getenv("LISTEN_FDS") != NULL || g_getenv("LISTEN_PID") != NULL ||
                 g_getenv("LISTEN_FDNAMES") != NULL;
    if (t.r == 1 && connect_to != NULL) {
      struct sockaddr_un sa = {.sun_family = AF_UNIX};
      int client = socket(AF_UNIX, SOCK_STREAM, 0);

      g_strlcpy(sa.sun_path, connect_to, sizeof(sa.sun_path));
      t.accepts = client >= 0 && connect(client, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
                  accept(t.fd, NULL, NULL) >= 0;
    }
    _exit(write(out, &t, sizeof(t)) == (ssize_t)sizeof(t) ? 0 : 4);
  }
  close(p[1]);
  n = read(p[0], ret, sizeof(*ret));
  close(p[0]);
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed: %d", status);
  ck_assert_int_eq(n, (ssize_t)sizeof(*ret));
  ck_assert(!ret->env_left);
  close(fd);
  if (extra >= 0)
    close(extra);
}

/* Passes fd, expecting a refusal; returns the message. */
static const char *take_refused(int fd, int extra, const char *n_fds, Taken *t) {
  take_in_child(fd, extra, n_fds, false, NULL, t);
  ck_assert_int_lt(t->r, 0);
  ck_assert_str_ne(t->error, "");
  ck_assert_int_eq(t->fd, -1);
  if (!socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(t->error, "without libsystemd"));
  return t->error;
}

START_TEST(socket_activation_nothing_passed) {
  char *error = NULL;
  int fd = -1;

  ck_assert_int_eq(socket_activation_take(&fd, &error), 0);
  ck_assert_ptr_null(error);
  ck_assert_int_eq(fd, -1);
}
END_TEST

START_TEST(socket_activation_other_process_ignored) {
  Taken t;

  take_in_child(unix_socket(SOCK_STREAM, "s", true, NULL), -1, "1", true, NULL, &t);
  ck_assert_int_eq(t.r, 0);
  ck_assert_str_eq(t.error, "");
  ck_assert_int_eq(t.fd, -1);
}
END_TEST

START_TEST(socket_activation_listening_unix_stream_taken) {
  g_autofree char *path = NULL;
  int fd = unix_socket(SOCK_STREAM, "s", true, &path);
  Taken t;

  if (!socket_activation_supported()) {
    take_refused(fd, -1, "1", &t);
    return;
  }
  take_in_child(fd, -1, "1", false, path, &t);
  ck_assert_msg(t.r == 1, "take: %d %s", t.r, t.error);
  ck_assert_int_eq(t.fd, SOCKET_ACTIVATION_FD);
  ck_assert(t.cloexec);
  /* It is the socket the path names. */
  ck_assert(t.accepts);
}
END_TEST

START_TEST(socket_activation_not_listening_refused) {
  Taken t;
  const char *error = take_refused(unix_socket(SOCK_STREAM, "s", false, NULL), -1, "1", &t);

  if (socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(error, "is not listening"));
}
END_TEST

START_TEST(socket_activation_datagram_refused) {
  Taken t;
  const char *error = take_refused(unix_socket(SOCK_DGRAM, "d", false, NULL), -1, "1", &t);

  if (socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(error, "not a stream socket"));
}
END_TEST

START_TEST(socket_activation_tcp_refused) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  const char *error;
  Taken t;

  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
  ck_assert_int_eq(listen(fd, 8), 0);
  error = take_refused(fd, -1, "1", &t);
  if (socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(error, "not a Unix socket"));
}
END_TEST

START_TEST(socket_activation_file_refused) {
  g_autofree char *path = g_build_filename(base, "f", NULL);
  int fd = open(path, O_RDWR | O_CREAT, 0600);
  const char *error;
  Taken t;

  ck_assert_int_ge(fd, 0);
  error = take_refused(fd, -1, "1", &t);
  if (socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(error, "is not a socket"));
}
END_TEST

START_TEST(socket_activation_two_sockets_refused) {
  int a = unix_socket(SOCK_STREAM, "a", true, NULL), b = unix_socket(SOCK_STREAM, "b", true, NULL);
  const char *error;
  Taken t;

  error = take_refused(a, b, "2", &t);
  if (socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(error, "exactly one"));
}
END_TEST

START_TEST(socket_activation_malformed_count_refused) {
  Taken t;
  const char *error = take_refused(unix_socket(SOCK_STREAM, "s", true, NULL), -1, "one", &t);

  if (socket_activation_supported())
    ck_assert_ptr_nonnull(strstr(error, "LISTEN_FDS"));
}
END_TEST

static Suite *socket_activation_suite(void) {
  Suite *s = suite_create("socket-activation");
  TCase *tc = tcase_create("take");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, socket_activation_nothing_passed);
  tcase_add_test(tc, socket_activation_other_process_ignored);
  tcase_add_test(tc, socket_activation_listening_unix_stream_taken);
  tcase_add_test(tc, socket_activation_not_listening_refused);
  tcase_add_test(tc, socket_activation_datagram_refused);
  tcase_add_test(tc, socket_activation_tcp_refused);
  tcase_add_test(tc, socket_activation_file_refused);
  tcase_add_test(tc, socket_activation_two_sockets_refused);
  tcase_add_test(tc, socket_activation_malformed_count_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(socket_activation_suite());
  int failed;

  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
