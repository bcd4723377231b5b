#include "daemon/worker/pdf-spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "basic/mutex.h"
#include "daemon/worker/pdf-wire.h"
#include "daemon/worker/worker-path.h"

extern char **environ;

/* Idle workers, the most recently used last, each with the executable it runs. */
typedef struct {
  PdfWorker w;
  char *path;
} Idle;

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static Idle idle[PDF_SPAWN_MAX_IDLE];
static size_t n_idle;

/* The signal mask and dispositions of a worker: nothing blocked, every signal at its default
 * (dispositions readerd ignores, such as SIGPIPE, would survive exec). Returns 0 or a negative
 * errno; *attr needs posix_spawnattr_destroy() only on success. */
static int spawn_attr_init(posix_spawnattr_t *attr) {
  sigset_t none, deflt;
  int r;

  /* sigaddset refuses the signals glibc keeps for itself (32, 33): those stay as they are. */
  (void)sigemptyset(&none);
  (void)sigemptyset(&deflt);
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP)
      (void)sigaddset(&deflt, sig);
  if ((r = posix_spawnattr_init(attr)) != 0)
    return -r;
  if ((r = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) != 0 ||
      (r = posix_spawnattr_setsigmask(attr, &none)) != 0 ||
      (r = posix_spawnattr_setsigdefault(attr, &deflt)) != 0) {
    (void)posix_spawnattr_destroy(attr);
    return -r;
  }
  return 0;
}

/* The descriptors of a worker: `child` as its fds 0 and 1, stderr shared, every descriptor from
 * 3 up closed. Returns 0 or a negative errno; *fa needs posix_spawn_file_actions_destroy() only
 * on success. */
static int spawn_files_init(posix_spawn_file_actions_t *fa, int child) {
  int r;

  if ((r = posix_spawn_file_actions_init(fa)) != 0)
    return -r;
  if ((r = posix_spawn_file_actions_adddup2(fa, child, STDIN_FILENO)) != 0 ||
      (r = posix_spawn_file_actions_adddup2(fa, child, STDOUT_FILENO)) != 0
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
      || (r = posix_spawn_file_actions_addclosefrom_np(fa, STDERR_FILENO + 1)) != 0
#endif
  ) {
    (void)posix_spawn_file_actions_destroy(fa);
    return -r;
  }
  return 0;
}

/* Starts the worker executable `path` with one end of a new socket pair as its fds 0 and 1, stderr
 * shared, and nothing else: the socket end is first moved above the fds it is copied to,
 * and every descriptor from 3 up is closed in the child. */
static int start(const char *path, PdfWorker *ret) {
  char *argv[] = {(char *)WORKER_EXE_NAME, NULL};
  int sv[2], child = -1, r;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;

  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    return -errno;
  child = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  r = child < 0 ? -errno : 0;
  (void)close(sv[1]);
  if (r < 0)
    goto fail;
  if ((r = spawn_attr_init(&attr)) < 0)
    goto fail;
  if ((r = spawn_files_init(&fa, child)) < 0) {
    (void)posix_spawnattr_destroy(&attr);
    goto fail;
  }
  r = -posix_spawn(&ret->pid, path, &fa, &attr, argv, environ);
  (void)posix_spawnattr_destroy(&attr);
  (void)posix_spawn_file_actions_destroy(&fa);
  if (r < 0)
    goto fail;
  (void)close(child);
  ret->sock = sv[0];
  ret->reads = 0;
  ret->n_recent = 0;
  return 0;

fail:
  if (child >= 0)
    (void)close(child);
  (void)close(sv[0]);
  return r;
}

/* Ends a worker; see pdf-spawn.h. */
int pdf_spawn_end(PdfWorker *w, bool kill_now, int64_t deadline) {
  int status = 0;

  /* kill fails only when the worker is gone already: waitpid then reaps it. */
  if (kill_now)
    (void)kill(w->pid, SIGKILL);
  (void)close(w->sock);
  for (;;) {
    pid_t r = waitpid(w->pid, &status, kill_now ? 0 : WNOHANG);

    if (r == w->pid)
      return status;
    if (r < 0 && errno != EINTR)
      return 0;
    if (r == 0 && g_get_monotonic_time() >= deadline) {
      (void)kill(w->pid, SIGKILL);
      kill_now = true;
    } else if (r == 0) {
      g_usleep(1000);
    }
  }
}

/* An idle worker writes nothing: any event on its socket means it is gone. */
static bool idle_and_alive(const PdfWorker *w) {
  struct pollfd p = {.fd = w->sock, .events = POLLIN};

  return poll(&p, 1, 0) == 0;
}

/* True when the worker was given the file `id` among its last reads. */
static bool knows(const PdfWorker *w, const PdfFileId *id) {
  for (size_t i = 0; i < w->n_recent; i++)
    if (pdf_file_id_equal(&w->recent[i], id))
      return true;
  return false;
}

/* Notes that the worker is given the file `id`, the oldest note going when they are full. */
static void remember(PdfWorker *w, const PdfFileId *id) {
  size_t keep = 0;

  for (size_t i = 0; i < w->n_recent; i++)
    if (!pdf_file_id_equal(&w->recent[i], id))
      w->recent[keep++] = w->recent[i];
  if (keep == PDF_SPAWN_RECENT) {
    memmove(w->recent, w->recent + 1, (PDF_SPAWN_RECENT - 1) * sizeof(w->recent[0]));
    keep--;
  }
  w->recent[keep] = *id;
  w->n_recent = keep + 1;
}

/* Takes out of the idle list the worker of `path` to hand out: the most recently used one that
 * knows the file `id`, else the most recently used one. Call with idle_lock held. Returns
 * false when there is none. */
static bool idle_pick(const char *path, const PdfFileId *id, Idle *ret) {
  size_t pick = n_idle;

  for (size_t i = n_idle; i-- > 0;) {
    if (strcmp(idle[i].path, path) != 0)
      continue;
    if (pick == n_idle)
      pick = i;
    if (id != NULL && knows(&idle[i].w, id)) {
      pick = i;
      break;
    }
  }
  if (pick == n_idle)
    return false;
  *ret = idle[pick];
  memmove(idle + pick, idle + pick + 1, (n_idle - pick - 1) * sizeof(idle[0]));
  n_idle--;
  return true;
}

/* Takes an idle worker or starts one; see pdf-spawn.h. */
int pdf_spawn_take(const char *path, PdfWorker *ret) {
  return pdf_spawn_take_for(path, NULL, ret);
}

/* Takes an idle worker, preferably one that read the file, or starts one; see pdf-spawn.h. */
int pdf_spawn_take_for(const char *path, const PdfFileId *id, PdfWorker *ret) {
  for (;;) {
    Idle it = {0};
    bool found;
    int r = 0;

    mutex_lock(&idle_lock);
    found = idle_pick(path, id, &it);
    mutex_unlock(&idle_lock);
    if (found) {
      g_free(it.path);
      if (!idle_and_alive(&it.w)) {
        (void)pdf_spawn_end(&it.w, true, 0); /* a dead worker's status says nothing */
        continue;
      }
      *ret = it.w;
    } else {
      r = start(path, ret);
    }
    if (r == 0 && id != NULL)
      remember(ret, id);
    return r;
  }
}

/* Sends the request and the descriptor; see pdf-spawn.h. */
int pdf_spawn_send(PdfWorker *w, int pdf_fd, const void *req, size_t len) {
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct iovec iov = {.iov_base = (void *)req, .iov_len = len};
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = sizeof(control.buf)};
  struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
  ssize_t n;

  g_assert(pdf_fd >= 0);
  memset(&control, 0, sizeof(control));
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &pdf_fd, sizeof(int));
  w->reads++;
  do
    n = sendmsg(w->sock, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  if ((size_t)n < len)
    return pdf_wire_write_all(w->sock, (const uint8_t *)req + n, len - (size_t)n);
  return 0;
}

/* Keeps a worker for another read, or ends it; see pdf-spawn.h. */
void pdf_spawn_give(PdfWorker *w, const char *path) {
  bool kept = false;

  mutex_lock(&idle_lock);
  if (w->reads < PDF_SPAWN_MAX_READS && n_idle < PDF_SPAWN_MAX_IDLE) {
    idle[n_idle].w = *w;
    idle[n_idle].path = g_strdup(path);
    n_idle++;
    kept = true;
  }
  mutex_unlock(&idle_lock);
  /* Its socket closing ends a waiting worker; a second is plenty for it to exit. */
  if (!kept)
    (void)pdf_spawn_end(w, false, g_get_monotonic_time() + G_USEC_PER_SEC);
}

/* Ends the idle workers; see pdf-spawn.h. */
void pdf_spawn_cleanup(void) {
  Idle all[PDF_SPAWN_MAX_IDLE];
  size_t n;

  mutex_lock(&idle_lock);
  n = n_idle;
  memcpy(all, idle, sizeof(all));
  n_idle = 0;
  mutex_unlock(&idle_lock);
  for (size_t i = 0; i < n; i++) {
    (void)pdf_spawn_end(&all[i].w, true, 0);
    g_free(all[i].path);
  }
}
