/* `readerd mcp`: the Model Context Protocol server on stdin/stdout. */
#include <getopt.h>
#include <stdio.h>

#include <glib.h>

#include "daemon/cli/cli.h"
#include "daemon/mcp/mcp.h"
#include "daemon/server.h"

int cli_mcp(int argc, char **argv) {
  static const struct option opts[] = {
      {"root", required_argument, NULL, 'r'},
      {"exclude", required_argument, NULL, 'x'},
      {"no-default-excludes", no_argument, NULL, 'n'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) exclude = g_ptr_array_new_with_free_func(g_free);
  McpOptions opt = {0};
  int c, r;

  optind = 1;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
    case 'r':
      g_ptr_array_add(roots, g_strdup(optarg));
      break;
    case 'x':
      g_ptr_array_add(exclude, g_strdup(optarg));
      break;
    case 'n':
      opt.no_default_excludes = true;
      break;
    case 'h':
      cli_usage(0);
      return 0;
    default:
      cli_usage(1);
      return CLI_EXIT_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "readerd mcp: unexpected argument '%s'\n", argv[optind]);
    return CLI_EXIT_USAGE;
  }
  for (guint i = 0; i < roots->len; i++) {
    if (!g_file_test(roots->pdata[i], G_FILE_TEST_IS_DIR)) {
      fprintf(stderr, "readerd mcp: --root %s is not a folder\n", (const char *)roots->pdata[i]);
      return CLI_EXIT_USAGE;
    }
  }
  g_ptr_array_add(roots, NULL);
  g_ptr_array_add(exclude, NULL);
  opt.roots = roots->len > 1 ? (const char *const *)roots->pdata : NULL;
  opt.exclude = (const char *const *)exclude->pdata;
  mcp_configure(&opt);
  r = server_run_stdio(&mcp_handler);
  mcp_configure_clear();
  return r;
}
