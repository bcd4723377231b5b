/* readerd in stdio mode: `readerd serve --stdio` started in a temporary folder, spoken to over
 * its stdin and stdout with an RdConn, its stderr in a log file. */
#pragma once

#include <glib.h>

#include "tests/lib/rpc-client.h"

/* A daemon in stdio mode. */
typedef struct {
  GPid pid;
  RdConn *conn; /* writes to its stdin, reads its stdout */
  char *dir;    /* temporary folder (its working directory) */
  char *log;    /* its stderr */
} RdStdio;

/* Starts `readerd serve --stdio` in a new temporary folder. Freed with rd_stdio_free(). */
RdStdio *rd_stdio_start(void);

/* Waits for it to exit; fails the test after timeout_ms, or when its stderr shows a sanitizer
 * report. Returns the exit code (or -signal). */
int rd_stdio_wait(RdStdio *s, int timeout_ms);

/* Kills it if it still runs, closes the connection, removes the folder. NULL is fine. */
void rd_stdio_free(RdStdio *s);
