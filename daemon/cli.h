/* The command line: `readerd read`, `readerd serve`, help and version. */
#pragma once

/* `readerd read [--json] [--offset N] [--limit N] [--no-line-numbers] [--max-dimension N] PATH...`
 * argv[0] is "read". Reads through the same request, reader and formatter code as the
 * daemon. Returns the exit status: 0 all read, 1 some file failed, 2 usage error. */
int cli_read(int argc, char **argv);

/* `readerd serve [--socket PATH | --stdio]`; argv[0] is "serve". Returns the exit status. */
int cli_serve(int argc, char **argv);

/* Prints the usage text to stdout (to_stderr 0) or stderr (1). */
void cli_usage(int to_stderr);
