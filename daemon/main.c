/* readerd: reads many files at once for coding agents and editor extensions. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <libxml/parser.h>

#include "daemon/cli/cli.h"
#include "daemon/log.h"
#include "daemon/readers/pdf.h"
#include "daemon/worker/worker-path.h"
#include "daemon/request/pool-gate.h"
#include "daemon/readers/detect.h"
#include "daemon/request/scheduler.h"
#include "formatters/format.h"


/* Opens /dev/null on whichever of descriptors 0, 1 and 2 is closed. Otherwise the next file
 * or socket opened would take that number: libuv refuses such a descriptor (an assertion), and
 * output meant for stdout or stderr would go into it. Exits 127 when even that fails. */
static void reopen_std_fds(void) {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
    int n;

    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
      continue;
    /* The lowest free number is fd itself, since the ones below are open by now. */
    n = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (n != fd) {
      if (n >= 0)
        close(n);
      _exit(127);
    }
  }
}

int main(int argc, char **argv) {
  char *worker, *pinned;
  char pool[16];
  int r;

  reopen_std_fds();
  if (argc < 2) {
    cli_usage(1);
    return 2;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("readerd %s\n", READERD_VERSION);
    return cli_check_output(0);
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    cli_usage(0);
    return cli_check_output(0);
  }
  /* The worker executable that the PDF and image readers start, held open for the process's
   * life so that an upgrade does not give this readerd another version's worker. */
  worker = worker_path_find();
  if ((pinned = worker_path_pin(worker)) != NULL) {
    g_free(worker);
    worker = pinned;
  }
  pdf_set_worker_path(worker);
  /* libuv's pool defaults to 4 threads. Every lane and blocking job the scheduler (scheduler.h)
   * runs, and every gated job (pool-gate.h), has a thread of its own: text reads never wait for
   * a thread held by a slow PDF or a hung mount. The variable is read when the pool starts. */
  g_snprintf(pool, sizeof(pool), "%u", pool_threads());
  setenv("UV_THREADPOOL_SIZE", pool, 0);
  /* A client that goes away must not kill the daemon: writes then fail with EPIPE. */
  signal(SIGPIPE, SIG_IGN);
  log_init_from_env();
  log_route_glib(LOG_ERR);
  /* Before any thread formats. */
  format_init();
  if (strcmp(argv[1], "read") == 0) {
    r = cli_read(argc - 1, argv + 1);
  } else if (strcmp(argv[1], "serve") == 0) {
    r = cli_serve(argc - 1, argv + 1);
  } else if (strcmp(argv[1], "read-images") == 0) {
    r = cli_read_images(argc - 1, argv + 1);
  } else if (strcmp(argv[1], "mcp") == 0) {
    r = cli_mcp(argc - 1, argv + 1);
  } else {
    fprintf(stderr, "readerd: unknown command '%s'\n", argv[1]);
    cli_usage(1);
    r = 2;
  }
  xmlCleanupParser();
  log_report_suppressed();
  return r;
}
