/* A small client for the benchmarks, so that what they time is readerd and the kernel, not a
 * Python client parsing 27 MiB of JSON. Built with the project (not installed):
 *
 *   bench-client read SOCKET LIST N      N reads of the paths in LIST (one per line), one at a
 *                                        time on one connection; prints each round trip in µs,
 *                                        then the time to the answer's first byte
 *   bench-client loop SOCKET LIST        reads of LIST one after another until SIGTERM
 *   bench-client latency SOCKET PATH N   N reads of one file; prints each round trip in µs
 *   bench-client cat LIST N              N runs of `cat` over LIST into a socket this client
 *                                        drains into the same buffer (the floor with the same
 *                                        sink); prints each run in µs
 *   bench-client stat LIST N             N runs of stat() over LIST, one thread: what a stat
 *                                        of each named path costs alone; prints each run in µs
 *   bench-client pipe-cat LIST N         `cat` as above, into a pipe drained by this client
 *   bench-client stdio READERD LIST N    N reads of LIST, one at a time, from one
 *                                        `READERD serve --stdio` on pipes; prints as `read`
 *   bench-client cli READERD LIST N      N runs of `READERD read` over LIST into a pipe drained
 *                                        by this client (process start included); prints each
 *                                        run in µs
 *
 * Each answer is taken whole (up to its newline) into one buffer that grows once and is kept,
 * and checked to be a result, not an error. Exits 1 on any failure.
 *
 * With BENCH_CPU=1 in the environment, each line of `cat`, `pipe-cat`, `cli` and `stdio` ends
 * with "cpu CLIENT SERVER": the CPU in µs this client spent on the run, and the CPU of the
 * process it drained (the child's user and system time; for `stdio`, the sum of its threads'
 * run time over that read, from /proc/PID/task/TID/schedstat). `read` adds "cpu CLIENT". */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char *p;
  size_t len, cap;
} Buf;

static volatile sig_atomic_t stop;
static int64_t first_byte_us; /* when the last answer's first bytes arrived */

static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

static void die(const char *what) {
  fprintf(stderr, "bench-client: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void buf_put(Buf *b, const char *s, size_t n) {
  if (b->len + n > b->cap) {
    while (b->len + n > b->cap)
      b->cap = b->cap ? b->cap * 2 : 1 << 16;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL)
      die("realloc");
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

static int64_t now_us(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int connect_to(const char *path) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    die("socket");
  if (strlen(path) >= sizeof a.sun_path) {
    errno = ENAMETOOLONG;
    die(path);
  }
  strcpy(a.sun_path, path);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
    die(path);
  return fd;
}

static int show_cpu;

/* This process's CPU time so far, µs. */
static int64_t self_cpu_us(void) {
  struct rusage ru;

  getrusage(RUSAGE_SELF, &ru);
  return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
         ru.ru_stime.tv_usec;
}

/* The run time of every thread of pid so far, µs (threads that ended are not counted). */
static int64_t task_cpu_us(pid_t pid) {
  char path[64];
  struct dirent *e;
  int64_t sum = 0;
  DIR *d;

  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  d = opendir(path);
  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL) {
    char stat[320];
    long long ns = 0;
    FILE *f;

    if (e->d_name[0] == '.')
      continue;
    snprintf(stat, sizeof stat, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
    f = fopen(stat, "r");
    if (f != NULL && fscanf(f, "%lld", &ns) == 1)
      sum += ns / 1000;
    if (f != NULL)
      fclose(f);
  }
  closedir(d);
  return sum;
}

/* A read request of the paths in `paths` (one per line); paths are escaped for JSON. */
static void make_request(Buf *req, const char *paths, size_t len) {
  static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[";
  const char *s = paths, *e = paths + len;
  int first = 1;

  req->len = 0;
  buf_put(req, head, sizeof head - 1);
  while (s < e) {
    const char *nl = memchr(s, '\n', (size_t)(e - s));
    const char *end = nl != NULL ? nl : e;

    if (end > s) {
      buf_put(req, first ? "\"" : ",\"", first ? 1 : 2);
      for (const char *c = s; c < end; c++) {
        if (*c == '"' || *c == '\\')
          buf_put(req, "\\", 1);
        buf_put(req, c, 1);
      }
      buf_put(req, "\"", 1);
      first = 0;
    }
    s = end + 1;
  }
  buf_put(req, "]}}\n", 4);
}

static void send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);

    if (w < 0 && errno == EINTR) {
      if (stop)
        exit(0);
      continue;
    }
    if (w < 0)
      die("write");
    p += w;
    n -= (size_t)w;
  }
}

/* Reads from fd into ans until a newline ends what was read (stop_at_newline) or the end of
 * input. Returns 0, or -1 at an end of input before the newline. */
static int take(int fd, Buf *ans, int stop_at_newline) {
  ans->len = 0;
  for (;;) {
    ssize_t r;

    if (ans->cap - ans->len < (1 << 16)) {
      ans->cap = ans->cap ? ans->cap * 2 : 1 << 20;
      ans->p = realloc(ans->p, ans->cap);
      if (ans->p == NULL)
        die("realloc");
    }
    r = read(fd, ans->p + ans->len, ans->cap - ans->len);
    if (r < 0 && errno == EINTR) {
      if (stop)
        exit(0);
      continue;
    }
    if (r < 0)
      die("read");
    if (r == 0)
      return stop_at_newline ? -1 : 0;
    if (ans->len == 0)
      first_byte_us = now_us();
    ans->len += (size_t)r;
    if (stop_at_newline && ans->p[ans->len - 1] == '\n')
      return 0;
  }
}

/* One request written to wfd and its whole answer read from rfd; returns the round trip in
 * µs. */
static int64_t round_trip_on(int wfd, int rfd, const Buf *req, Buf *ans) {
  static const char ok[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":";
  int64_t t0 = now_us();

  send_all(wfd, req->p, req->len);
  if (take(rfd, ans, 1) < 0) {
    fprintf(stderr, "bench-client: the daemon closed the connection\n");
    exit(1);
  }
  if (ans->len < sizeof ok - 1 || memcmp(ans->p, ok, sizeof ok - 1) != 0) {
    fprintf(stderr, "bench-client: not a result: %.200s\n", ans->p);
    exit(1);
  }
  return now_us() - t0;
}

static int64_t round_trip(int fd, const Buf *req, Buf *ans) {
  return round_trip_on(fd, fd, req, ans);
}

static void slurp(const char *path, Buf *b) {
  FILE *f = fopen(path, "r");
  char tmp[65536];
  size_t n;

  if (f == NULL)
    die(path);
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
    buf_put(b, tmp, n);
  fclose(f);
}

/* argv (`cat` over the paths, or `readerd read`) with its stdout into a socket (or a pipe),
 * drained here: returns the run's time in µs. */
static int64_t child_once(char **argv, int use_pipe, Buf *ans, int64_t *ret_child_cpu) {
  int sv[2], status;
  int64_t t0 = now_us();
  struct rusage ru;
  pid_t pid;

  if (use_pipe ? pipe2(sv, O_CLOEXEC) < 0 : socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    die("socketpair");
  pid = fork();
  if (pid < 0)
    die("fork");
  if (pid == 0) {
    dup2(sv[1], 1);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(sv[1]);
  take(sv[0], ans, 0);
  close(sv[0]);
  if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench-client: %s failed\n", argv[0]);
    exit(1);
  }
  *ret_child_cpu = (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
                   ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
  return now_us() - t0;
}

/* N runs of prog (with `arg` after it when not NULL) over the paths of list. */
static int run_child(const char *prog, const char *arg, const char *list, int use_pipe, long n) {
  Buf paths = {0}, ans = {0};
  char **argv;
  size_t argc = 2, k = 0;

  slurp(list, &paths);
  buf_put(&paths, "", 1);
  for (size_t i = 0; i < paths.len; i++)
    argc += paths.p[i] == '\n';
  argv = calloc(argc + 2, sizeof *argv);
  argv[k++] = (char *)prog;
  if (arg != NULL)
    argv[k++] = (char *)arg;
  for (char *s = strtok(paths.p, "\n"); s != NULL && k <= argc; s = strtok(NULL, "\n"))
    argv[k++] = s;
  for (long i = 0; i < n; i++) {
    int64_t c0 = self_cpu_us(), child, rt = child_once(argv, use_pipe, &ans, &child);

    if (show_cpu)
      printf("%lld cpu %lld %lld\n", (long long)rt, (long long)(self_cpu_us() - c0),
             (long long)child);
    else
      printf("%lld\n", (long long)rt);
  }
  return 0;
}

/* N reads of the request through `readerd serve --stdio` on two pipes. */
static int run_stdio(const char *readerd, const Buf *req, long n) {
  int in[2], out[2], status;
  Buf ans = {0};
  pid_t pid;

  if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
    die("pipe");
  pid = fork();
  if (pid < 0)
    die("fork");
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    execlp(readerd, readerd, "serve", "--stdio", (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  for (long i = 0; i < n; i++) {
    int64_t c0 = self_cpu_us(), s0 = task_cpu_us(pid);
    int64_t t0 = now_us(), rt = round_trip_on(in[1], out[0], req, &ans);

    if (show_cpu)
      printf("%lld %lld cpu %lld %lld\n", (long long)rt, (long long)(first_byte_us - t0),
             (long long)(self_cpu_us() - c0), (long long)(task_cpu_us(pid) - s0));
    else
      printf("%lld %lld\n", (long long)rt, (long long)(first_byte_us - t0));
  }
  close(in[1]);
  take(out[0], &ans, 0);
  close(out[0]);
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
    fprintf(stderr, "bench-client: readerd serve --stdio failed\n");
    exit(1);
  }
  return 0;
}

static int run_stat(const char *list, long n) {
  Buf paths = {0};
  size_t count = 0;

  slurp(list, &paths);
  buf_put(&paths, "", 1);
  for (size_t i = 0; i < paths.len; i++) {
    if (paths.p[i] == '\n') {
      paths.p[i] = '\0';
      count++;
    }
  }
  for (long k = 0; k < n; k++) {
    int64_t t0 = now_us();
    struct stat st;
    size_t ok = 0;

    for (const char *s = paths.p; s < paths.p + paths.len - 1; s += strlen(s) + 1)
      ok += stat(s, &st) == 0;
    printf("%lld\n", (long long)(now_us() - t0));
    if (ok == 0 && count > 0)
      die("stat");
  }
  return 0;
}

int main(int argc, char **argv) {
  Buf req = {0}, ans = {0}, paths = {0};
  const char *mode = argc > 1 ? argv[1] : "";
  int fd;

  signal(SIGPIPE, SIG_IGN);
  show_cpu = getenv("BENCH_CPU") != NULL && strcmp(getenv("BENCH_CPU"), "1") == 0;
  if (strcmp(mode, "cat") == 0 && argc == 4)
    return run_child("cat", NULL, argv[2], 0, atol(argv[3]));
  if (strcmp(mode, "pipe-cat") == 0 && argc == 4)
    return run_child("cat", NULL, argv[2], 1, atol(argv[3]));
  if (strcmp(mode, "cli") == 0 && argc == 5)
    return run_child(argv[2], "read", argv[3], 1, atol(argv[4]));
  if (strcmp(mode, "stdio") == 0 && argc == 5) {
    slurp(argv[3], &paths);
    make_request(&req, paths.p, paths.len);
    return run_stdio(argv[2], &req, atol(argv[4]));
  }
  if (strcmp(mode, "stat") == 0 && argc == 4)
    return run_stat(argv[2], atol(argv[3]));
  if (!((strcmp(mode, "read") == 0 && argc == 5) || (strcmp(mode, "loop") == 0 && argc == 4) ||
        (strcmp(mode, "latency") == 0 && argc == 5))) {
    fprintf(stderr, "usage: bench-client read SOCKET LIST N | loop SOCKET LIST | "
                    "latency SOCKET PATH N | cat LIST N | stat LIST N | pipe-cat LIST N | "
                    "stdio READERD LIST N | cli READERD LIST N\n");
    return 2;
  }
  if (strcmp(mode, "latency") == 0)
    buf_put(&paths, argv[3], strlen(argv[3]));
  else
    slurp(argv[3], &paths);
  make_request(&req, paths.p, paths.len);
  fd = connect_to(argv[2]);
  if (strcmp(mode, "loop") == 0) {
    struct sigaction sa = {.sa_handler = on_term};

    /* No SA_RESTART: a read under way returns EINTR and the loop ends. */
    sigaction(SIGTERM, &sa, NULL);
    while (!stop)
      round_trip(fd, &req, &ans);
    return 0;
  }
  for (long i = 0, n = atol(argv[4]); i < n; i++) {
    int64_t c0 = self_cpu_us(), t0 = now_us(), rt = round_trip(fd, &req, &ans);

    if (strcmp(mode, "read") == 0 && show_cpu)
      printf("%lld %lld cpu %lld\n", (long long)rt, (long long)(first_byte_us - t0),
             (long long)(self_cpu_us() - c0));
    else if (strcmp(mode, "read") == 0)
      printf("%lld %lld\n", (long long)rt, (long long)(first_byte_us - t0));
    else
      printf("%lld\n", (long long)rt);
  }
  close(fd);
  return 0;
}
