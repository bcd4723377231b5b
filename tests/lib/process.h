/* Processes and temporary folders for the tests: the run's base folder, spawning a program (the
 * readerd binary named by env READERD, or any other), waiting for it with a deadline, running a
 * command to the end and collecting its output.
 *
 * Processes spawned here and folders the library makes are registered; those still there when
 * the test process exits are killed and removed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <check.h>
#include <glib.h>

/* Call once from main(): ignores SIGPIPE, initializes libxml2, makes the run's base folder
 * (exits when it cannot). */
void rd_init(void);

/* Call at the end of main() with the number of failed tests: removes the base folder (kept,
 * and named, when env READERD_TEST_KEEP is set). Returns the exit status for main(). */
int rd_finish(int failed);

/* The end of a test program's main(), after rd_init(): runs every case of s (CK_NORMAL output),
 * frees the runner and returns rd_finish() of the number that failed. */
int rd_run_suite(Suite *s);

/* The readerd binary (env READERD); fails the test when unset. */
const char *rd_readerd(void);

/* A new empty folder under the run's base folder; removed with rd_rmtree(). g_malloc'd. */
char *rd_tmpdir(void);

/* Removes a folder and everything below it; NULL is fine. */
void rd_rmtree(const char *dir);

/* Spawns argv (argv[0] a path) in cwd with the given descriptors (-1: /dev/null for stdin,
 * inherit for stdout and stderr). The child dies with the test process. Returns its pid. */
GPid rd_spawn(const char *cwd, const char *const *argv, int in_fd, int out_fd, int err_fd);

/* Waits up to timeout_ms for pid to end. Returns true and sets *ret_status (waitpid status;
 * ret_status may be NULL) when it did, false when it is still running. */
bool rd_wait_pid(GPid pid, int timeout_ms, int *ret_status);

/* The exit code of a waitpid status, or -signal when it was killed. */
int rd_exit_code(int status);

/* What a finished command produced. */
typedef struct {
  int code;  /* exit code, or -signal */
  char *out; /* stdout, NUL-terminated */
  size_t out_len;
  char *err; /* stderr, NUL-terminated */
} RdRun;

/* Runs argv in cwd with `in` (may be NULL) on stdin, collects stdout and stderr into *ret
 * (freed with rd_run_clear()); fails the test when it does not finish within timeout_ms. */
void rd_run(const char *cwd, const char *const *argv, const char *in, size_t in_len, int timeout_ms,
            RdRun *ret);

/* Frees what rd_run() collected and zeroes *r; NULL is fine. */
void rd_run_clear(RdRun *r);
