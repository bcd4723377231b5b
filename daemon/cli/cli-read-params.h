/* `readerd read`'s options that are the read's params, gathered as the `read` method's params
 * (the JSON a client sends, docs/protocol.md) and checked by the one parser of them,
 * read_params_parse(): the rules live there, not on the command line. */
#pragma once

#include <getopt.h>
#include <stddef.h>

#include "ipc/read-params.h"

typedef struct CliReadParams CliReadParams;

/* Empty params: a folder is read as the files in it (a person at a terminal who names a
 * folder means them), until --no-expand says otherwise. cli_read_params_free() it. */
CliReadParams *cli_read_params_new(void);

/* NULL is fine. */
void cli_read_params_free(CliReadParams *p);

/* Appends the getopt entries of these options to out (room for CLI_READ_PARAMS_OPTIONS).
 * Returns how many were added. */
#define CLI_READ_PARAMS_OPTIONS 24
size_t cli_read_params_getopt(struct option *out);

/* Takes getopt's value `c` with its argument (may be NULL). Returns 0; -ENOENT when c is not
 * one of these options; or CLI_EXIT_USAGE after a usage error on the argument's form. */
int cli_read_params_option(CliReadParams *p, int c, const char *arg);

/* Adds paths (n of them, the command line's) and parses the whole into *ret
 * (read_params_init'ed). Returns 0, or CLI_EXIT_USAGE after saying what is wrong, naming the
 * option it comes from; *ret is then cleared. */
int cli_read_params_parse(CliReadParams *p, char **paths, int n, ReadParams *ret);
