#include "daemon/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <uv.h>

#include "daemon/cli/cli-args.h"
#include "daemon/cli/cli-read-params.h"
#include "daemon/cli/cli-usage.h"
#include "daemon/out-fd.h"
#include "daemon/readers/workspace.h"
#include "daemon/request/request.h"
#include "daemon/rpc.h"
#include "daemon/server.h"
#include "daemon/socket-activation.h"
#include "formatters/format.h"
#include "ipc/read-params.h"

/* One `readerd read`: what cli_done_cb() reports back, and how the result is printed. */
typedef struct {
  int exit_status;
  int write_err; /* the errno of a write of the answer that failed, or 0 */
  bool json;
} CliRun;

static void cli_done_cb(Request *req, int status) {
  CliRun *run = request_get_data(req);
  size_t n = 0;
  GString **pieces = request_take_output(req, &n);

  if (pieces == NULL) {
    fprintf(stderr, "readerd: formatting the result failed\n");
    run->exit_status = 1;
  } else {
    GString *last = NULL;
    int r;

    /* The output ends with one newline (the text format already ends with its own): the last
     * piece that holds anything says whether it has one. */
    for (size_t i = n; i > 0 && last == NULL; i--)
      if (pieces[i - 1]->len > 0)
        last = pieces[i - 1];
    if (last == NULL && n > 0)
      last = pieces[n - 1];
    if (last != NULL && (last->len == 0 || last->str[last->len - 1] != '\n'))
      g_string_append_c(last, '\n');
    /* The pieces go to the descriptor in large vectored writes, not through stdio's small
     * buffer; whatever stdio holds goes first. */
    errno = 0;
    if (fflush(stdout) != 0)
      r = -(errno != 0 ? errno : EIO);
    else
      r = out_fd_write_pieces(STDOUT_FILENO, pieces, n);
    run->write_err = -r;
    for (size_t i = 0; i < n; i++)
      g_string_free(pieces[i], TRUE);
    run->exit_status = request_failed_count(req) > 0 ? 1 : 0;
  }
  g_free(pieces);
  request_free(req);
}

/* What a one-shot read takes that is not a read param: where to print, and the fence. */
typedef struct {
  const char *root;   /* --root: base of relative paths, and the fence */
  GPtrArray *exclude; /* --exclude patterns (const char *), NULL-terminated when used */
} CliReadOptions;

/* Applies one option to run, ropt or params. Returns 0, 1 when the caller should exit 0
 * (--help), or CLI_EXIT_USAGE on a usage error (already reported). */
static int cli_read_option(int c, CliReadParams *params, CliRun *run, CliReadOptions *ropt) {
  int r = cli_read_params_option(params, c, optarg);

  if (r != -ENOENT)
    return r;
  switch (c) {
  case 'j':
    run->json = true;
    return 0;
  case 'R':
    ropt->root = optarg;
    return 0;
  case 'x':
    g_ptr_array_add(ropt->exclude, optarg);
    return 0;
  case 'h':
    cli_usage(0);
    return 1;
  default:
    cli_usage(1);
    return CLI_EXIT_USAGE;
  }
}

/* The options of `readerd read`: its own, then those that are the read's params. */
static void cli_read_getopt(struct option *opts) {
  static const struct option own[] = {
      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {"root", required_argument, NULL, 'R'},
      {"exclude", required_argument, NULL, 'x'},
  };
  size_t n = G_N_ELEMENTS(own);

  memcpy(opts, own, sizeof(own));
  n += cli_read_params_getopt(opts + n);
  opts[n] = (struct option){NULL, 0, NULL, 0};
}

int cli_read(int argc, char **argv) {
  struct option opts[4 + CLI_READ_PARAMS_OPTIONS + 1];
  CliReadParams *cp = cli_read_params_new();
  ReadParams params;
  CliRun run = {.exit_status = 1};
  g_autoptr(GPtrArray) exclude = g_ptr_array_new();
  CliReadOptions ropt = {.exclude = exclude};
  g_autofree char *err = NULL;
  Workspace *ws = NULL;
  int c, r = 0;

  read_params_init(&params);
  cli_read_getopt(opts);
  optind = 1;
  while (r == 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1)
    r = cli_read_option(c, cp, &run, &ropt);
  if (r == 0 && optind >= argc)
    r = cli_usage_error("read", "no PATH given", NULL);
  /* The read's params are checked by the parser every client's go through. */
  if (r == 0)
    r = cli_read_params_parse(cp, argv + optind, argc - optind, &params);
  cli_read_params_free(cp);
  if (r != 0)
    return r == 1 ? 0 : r;
  g_ptr_array_add(exclude, NULL);
  if (workspace_new(ropt.root, ropt.root != NULL, (const char *const *)exclude->pdata, &ws, &err) <
      0) {
    read_params_clear(&params);
    return cli_usage_error("read", err, NULL);
  }
  out_fd_grow_pipe(STDOUT_FILENO);
  request_start(uv_default_loop(), &params, ws,
                run.json ? REQUEST_OUTPUT_RESULT_JSON : REQUEST_OUTPUT_BARE, cli_done_cb, &run);
  workspace_unref(ws);
  uv_run(uv_default_loop(), UV_RUN_DEFAULT);
  uv_loop_close(uv_default_loop());
  if (run.write_err != 0)
    return cli_output_failed(run.write_err);
  return cli_check_output(run.exit_status);
}

/* Parses --idle-exit's SECONDS: 1 to a day. */
static int parse_idle_exit(const char *text, unsigned *ret_seconds) {
  char *end = NULL;
  unsigned long v;

  errno = 0;
  v = strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || *text == '-' || v < 1 || v > 86400)
    return -EINVAL;
  *ret_seconds = (unsigned)v;
  return 0;
}

/* Serves on a socket systemd passed (socket activation), when one was. Returns -1 when none
 * was, else the exit status. */
static int serve_passed_socket(const char *path, bool stdio, unsigned idle_exit) {
  g_autofree char *error = NULL;
  int fd = -1, r;

  if (stdio)
    return -1;
  r = socket_activation_take(&fd, &error);
  if (r < 0) {
    fprintf(stderr, "readerd serve: %s\n", error);
    return 1;
  }
  if (r == 0)
    return -1;
  if (path != NULL) {
    fprintf(stderr, "readerd serve: a socket was passed (LISTEN_FDS): --socket cannot be "
                    "given as well\n");
    return 2;
  }
  return server_run_passed_socket(fd, idle_exit);
}

int cli_serve(int argc, char **argv) {
  static const struct option opts[] = {
      {"socket", required_argument, NULL, 's'},
      {"stdio", no_argument, NULL, 'i'},
      {"idle-exit", required_argument, NULL, 'e'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  g_autofree char *path = NULL;
  bool stdio = false;
  unsigned idle_exit = 0;
  int c, r, err = 0;

  optind = 1;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      g_free(path);
      path = g_strdup(optarg);
      break;
    case 'i':
      stdio = true;
      break;
    case 'e':
      if (parse_idle_exit(optarg, &idle_exit) < 0) {
        fprintf(stderr, "readerd serve: --idle-exit takes seconds, 1 to 86400: '%s'\n", optarg);
        return 2;
      }
      break;
    case 'h':
      cli_usage(0);
      return 0;
    default:
      cli_usage(1);
      return 2;
    }
  }
  if (optind < argc || (stdio && path != NULL)) {
    fprintf(stderr, "readerd serve: give either --socket PATH or --stdio\n");
    return 2;
  }
  r = serve_passed_socket(path, stdio, idle_exit);
  if (r >= 0)
    return r;
  /* A daemon that bound its own socket and exited would leave nothing to start it again. */
  if (idle_exit != 0) {
    fprintf(stderr, "readerd serve: --idle-exit needs a socket passed by systemd (socket "
                    "activation), which starts readerd again on the next connection\n");
    return 2;
  }
  if (stdio)
    return server_run_stdio(&rpc_handler);
  if (path == NULL) {
    path = server_default_socket_path(&err);
    if (path == NULL) {
      fprintf(stderr, "readerd serve: no usable default socket folder: %s\n", g_strerror(-err));
      return 1;
    }
  }
  return server_run_socket(path);
}
