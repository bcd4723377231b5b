/* What the command line's subcommands (cli.c, cli-vision.c) share when they read their
 * options: the usage error they print and the numbers and page lists they accept. */
#pragma once

#include <stdint.h>

/* Says on stderr "readerd COMMAND: WHAT" (": ARG" after it when arg is not NULL), then the
 * usage. Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *what, const char *arg);

/* Parses a whole decimal number in [min, max] into *ret. Returns 0 or -EINVAL (*ret is then
 * left alone). */
int cli_parse_number(const char *s, int64_t min, int64_t max, int64_t *ret);

/* Checks a --pages SPEC (read_params_pages_valid). Returns 0, or CLI_EXIT_USAGE after saying
 * so as cli_usage_error() does. */
int cli_check_pages(const char *command, const char *spec);
