/* readerd-worker: the worker process's executable (pdf-worker.h), installed under libexecdir
 * and started by readerd only (daemon/worker/pdf-spawn.c, found by daemon/worker/worker-path.h).
 * Its own executable, apart from readerd's, so that only it links poppler, cairo and
 * gdk-pixbuf. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/worker/child/pdf-worker.h"

int main(int argc, char **argv) {
  struct stat st;

  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("readerd-worker %s\n", READERD_VERSION);
    return 0;
  }
  /* readerd gives it one end of a socket pair as fds 0 and 1; run by hand, say so and stop
   * instead of waiting on a terminal for records. */
  if (argc != 1 || fstat(0, &st) < 0 || !S_ISSOCK(st.st_mode)) {
    fprintf(stderr, "readerd-worker: started by readerd only, with a socket as its input\n");
    return 2;
  }
  pdf_worker_main();
}
