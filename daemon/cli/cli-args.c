/* The command line's shared option checks: see cli-args.h. */
#include "daemon/cli/cli-args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/cli/cli-usage.h"
#include "ipc/read-params.h"

int cli_usage_error(const char *command, const char *what, const char *arg) {
  fprintf(stderr, "readerd %s: %s%s%s\n", command, what, arg != NULL ? ": " : "",
          arg != NULL ? arg : "");
  cli_usage(1);
  return CLI_EXIT_USAGE;
}

int cli_parse_number(const char *s, int64_t min, int64_t max, int64_t *ret) {
  char *end;
  long long v;

  errno = 0;
  v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
    return -EINVAL;
  *ret = v;
  return 0;
}

int cli_check_pages(const char *command, const char *spec) {
  if (!read_params_pages_valid(spec))
    return cli_usage_error(command, "--pages takes pages like 3, 2-5 or 1,28-", spec);
  return 0;
}
