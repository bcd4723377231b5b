/* What every subcommand of the command line shares: its exit statuses, the usage text, and
 * the check that its output got out. Includes nothing of the rest of the command line. */
#pragma once

/* Exit statuses of the command line. */
#define CLI_EXIT_FILE_ERROR 1 /* `read`: some file has a per-file error */
#define CLI_EXIT_USAGE 2      /* a usage error */
#define CLI_EXIT_OUTPUT 3     /* the output could not be written (a full disk, a closed pipe) */

/* Flushes stdout. Returns `status` when everything written to it got out; otherwise says so
 * on stderr (once) and returns CLI_EXIT_OUTPUT. */
int cli_check_output(int status);

/* Says on stderr that the output could not be written (err: an errno). Returns
 * CLI_EXIT_OUTPUT. */
int cli_output_failed(int err);

/* Prints the usage text to stdout (to_stderr 0) or stderr (1). */
void cli_usage(int to_stderr);
