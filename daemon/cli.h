/* The command line: `readerd read`, `readerd serve`, help and version. */
#pragma once

/* Exit statuses of the command line. */
#define CLI_EXIT_FILE_ERROR 1 /* `read`: some file has a per-file error */
#define CLI_EXIT_USAGE 2      /* a usage error */
#define CLI_EXIT_OUTPUT 3     /* the output could not be written (a full disk, a closed pipe) */

/* `readerd read [--json] [--offset N] [--limit N] [--no-line-numbers] [--max-dimension N] PATH...`
 * argv[0] is "read". Reads through the same request, reader and formatter code as the
 * daemon. Returns the exit status: 0 all read, 1 some file failed, 2 usage error, 3 the output
 * could not be written. */
int cli_read(int argc, char **argv);

/* `readerd serve [--socket PATH | --stdio]`; argv[0] is "serve". Returns the exit status. */
int cli_serve(int argc, char **argv);

/* `readerd mcp [--root DIR]... [--exclude GLOB]... [--no-default-excludes]`: the Model Context
 * Protocol on stdin/stdout (mcp.h); argv[0] is "mcp". Returns the exit status. */
int cli_mcp(int argc, char **argv);

/* Flushes stdout. Returns `status` when everything written to it got out; otherwise says so
 * on stderr (once) and returns CLI_EXIT_OUTPUT. */
int cli_check_output(int status);

/* Prints the usage text to stdout (to_stderr 0) or stderr (1). */
void cli_usage(int to_stderr);
