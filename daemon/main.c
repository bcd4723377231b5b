/* readerd: reads many files at once for coding agents and editor extensions. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <libxml/parser.h>

#include "daemon/cli.h"
#include "daemon/detect.h"
#include "daemon/log.h"
#include "daemon/pdf-worker.h"
#include "daemon/pdf.h"
#include "daemon/scheduler.h"


int main(int argc, char **argv) {
  int r;

  if (argc < 2) {
    cli_usage(1);
    return 2;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    printf("readerd %s\n", READERD_VERSION);
    return 0;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    cli_usage(0);
    return 0;
  }
  /* The PDF worker process that the PDF reader starts (hidden: not in --help): this same
   * executable. */
  if (strcmp(argv[1], PDF_WORKER_COMMAND) == 0)
    pdf_worker_main();
  pdf_set_worker_path("/proc/self/exe");
  /* libuv's pool defaults to 4 threads. The scheduler (scheduler.h) runs at most READERD_POOL_SIZE
   * lanes and blocking jobs at once, each with a thread of its own: text reads never wait for a
   * thread held by a slow PDF. The variable is read when the pool starts. */
  setenv("UV_THREADPOOL_SIZE", G_STRINGIFY(READERD_POOL_SIZE), 0);
  /* A client that goes away must not kill the daemon: writes then fail with EPIPE. */
  signal(SIGPIPE, SIG_IGN);
  log_init_from_env();
  /* libxml2 initializes global state lazily; do it before worker threads format XML. */
  xmlInitParser();
  if (strcmp(argv[1], "read") == 0) {
    r = cli_read(argc - 1, argv + 1);
  } else if (strcmp(argv[1], "serve") == 0) {
    r = cli_serve(argc - 1, argv + 1);
  } else {
    fprintf(stderr, "readerd: unknown command '%s'\n", argv[1]);
    cli_usage(1);
    r = 2;
  }
  xmlCleanupParser();
  return r;
}
