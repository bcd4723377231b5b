/* The command line: `readerd read`, `readerd serve`, help and version. */
#pragma once

#include "daemon/cli/cli-usage.h"

/* `readerd read [--json] [--format FORMAT] [--offset N] [--limit N] [--no-line-numbers]
 *               [--max-dimension N] [--max-image-bytes N] [--image-detail auto|low|high]
 *               [--pages SPEC] [--render] [--password PW] [--root DIR] [--exclude GLOB]...
 *               PATH...`
 * argv[0] is "read"; options may follow the paths, and after -- every argument is a path.
 * Reads through the same request, reader and formatter code as the daemon. Returns the exit
 * status: 0 all read, 1 some file failed, 2 usage error (--help: 0), 3 the output could not be
 * written. */
int cli_read(int argc, char **argv);

/* `readerd serve [--socket PATH]` or `readerd serve --stdio`; argv[0] is "serve". Returns the
 * exit status: server_run_socket()'s or server_run_stdio()'s, 1 when there is no usable
 * default socket folder, 2 on a usage error (--help: 0). */
int cli_serve(int argc, char **argv);

/* `readerd mcp [--root DIR]... [--exclude GLOB]... [--no-default-excludes]`: the Model Context
 * Protocol on stdin/stdout (mcp.h); argv[0] is "mcp". Returns the exit status. */
int cli_mcp(int argc, char **argv);

/* `readerd read-images --query TEXT [--detail low|high|auto] [--model M] [--base-url URL]
 *                      [--provider openai|anthropic] [--pages SPEC] [--max-tokens N] [--json]
 *                      PATH...`: asks the vision model about the pictures of PATH... (cli-vision.c)
 * with the settings of READERD_VISION_* under the options; argv[0] is "read-images". Prints the
 * answer (with --json, the result object) and each file's error on stderr. Returns 0 on an
 * answer, 1 when the endpoint failed or no picture could be read (the reason on stderr), 2 on a
 * usage error (--help: 0), 3 when the output could not be written. */
int cli_read_images(int argc, char **argv);
