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

/* Says what is wrong (and the argument, when not NULL) and the usage on stderr. Returns
 * CLI_EXIT_USAGE. */
static int usage_error(const char *what, const char *arg) {
  return cli_usage_error("read", what, arg);
}

/* What applies to every path of a one-shot read. */
typedef struct {
  const char *pages;
  const char *password;
  bool render;
  const char *root;   /* --root: base of relative paths, and the fence */
  GPtrArray *exclude; /* --exclude patterns (const char *), NULL-terminated when used */
  bool offset_given;  /* --offset was given: --tail may not be */
} CliPathOptions;

/* --if-none-match PATH=ETAG: the etag of a path read before (split at the last '=', since an
 * etag has none). Returns 0, or 2 after a usage error. */
static int cli_if_none_match(ReadParams *params, const char *arg) {
  const char *eq = strrchr(arg, '=');

  if (eq == NULL || eq == arg || eq[1] == '\0')
    return usage_error("--if-none-match takes PATH=ETAG", arg);
  if (params->if_none_match == NULL)
    params->if_none_match = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace(params->if_none_match, g_strndup(arg, (gsize)(eq - arg)), g_strdup(eq + 1));
  return 0;
}

/* Applies one option to params, run or popt. Returns 0, 1 when the caller should exit 0
 * (--help), or 2 on a usage error (already reported). */
static int cli_read_option(int c, ReadParams *params, CliRun *run, CliPathOptions *popt) {
  int64_t v;

  switch (c) {
  case 'j':
    run->json = true;
    return 0;
  case 'o':
  case 'l':
    if (cli_parse_number(optarg, 1, INT64_MAX, &v) < 0)
      return usage_error("--offset and --limit take a whole number >= 1", optarg);
    *(c == 'o' ? &params->offset : &params->limit) = v;
    popt->offset_given |= c == 'o';
    return c == 'o' && params->tail > 0 ? usage_error("tail and offset cannot be combined", NULL)
                                        : 0;
  case 't':
    if (cli_parse_number(optarg, 1, INT64_MAX, &v) < 0)
      return usage_error("--tail takes a whole number >= 1", optarg);
    params->tail = v;
    return popt->offset_given ? usage_error("tail and offset cannot be combined", NULL) : 0;
  case 'n':
    params->line_numbers = false;
    return 0;
  case 'm':
    if (cli_parse_number(optarg, READ_MIN_MAX_DIMENSION, READ_MAX_MAX_DIMENSION, &v) < 0)
      return usage_error("--max-dimension takes a number of pixels from 16 to 8000", optarg);
    params->max_dimension = (int)v;
    return 0;
  case 'b':
    if (cli_parse_number(optarg, 0, READ_MAX_MAX_TOTAL_IMAGE_BYTES, &v) < 0)
      return usage_error("--max-image-bytes takes a number of bytes from 0 to 1073741824", optarg);
    params->max_total_image_bytes = v;
    return 0;
  case 'f':
    if (format_get(optarg) == NULL) {
      g_autofree char *names = read_format_names();
      g_autofree char *what = g_strdup_printf("--format takes one of %s", names);

      return usage_error(what, optarg);
    }
    params->format = format_get(optarg)->name;
    return 0;
  case 'd':
    if (read_image_detail_from_name(optarg, &params->image_detail) < 0)
      return usage_error("--image-detail takes auto, low or high", optarg);
    return 0;
  case 'T':
    if (read_image_tile_from_name(optarg, &params->image_tile) < 0)
      return usage_error("--image-tile takes auto, never or always", optarg);
    return 0;
  case 'p':
    popt->pages = optarg;
    return cli_check_pages("read", optarg);
  case 'r':
    popt->render = true;
    return 0;
  case 'P':
    popt->password = optarg;
    return 0;
  case 'R':
    popt->root = optarg;
    return 0;
  case 'x':
    g_ptr_array_add(popt->exclude, optarg);
    return 0;
  case 'e':
    return cli_if_none_match(params, optarg);
  case 'E':
    params->expand.on = false;
    return 0;
  case 'M':
    if (cli_parse_number(optarg, 1, READ_MAX_PATHS, &v) < 0)
      return usage_error("--max-files takes a number of files from 1 to 10000", optarg);
    params->expand.max_files = v;
    return 0;
  case 'B':
    if (cli_parse_number(optarg, 1, READ_MAX_BUDGET_TOKENS, &v) < 0)
      return usage_error("--budget takes a number of tokens from 1 to 1000000000", optarg);
    params->budget_tokens = v;
    return 0;
  case 'L':
    params->plan = true;
    return 0;
  case 'C':
    if (read_params_encoding(optarg, &params->encoding) < 0)
      return usage_error("--encoding takes a character set iconv knows (iso-8859-2, gbk, "
                         "shift_jis, utf-16le, ...)",
                         optarg);
    return 0;
  case 'K':
    if (cli_parse_number(optarg, 0, READ_MAX_PATHS, &v) < 0)
      return usage_error("--skip takes a number of entries from 0 to 10000", optarg);
    params->skip = v;
    return 0;
  case 'h':
    cli_usage(0);
    return 1;
  default:
    cli_usage(1);
    return 2;
  }
}

/* The daemon's limits on paths, with its words: at most READ_MAX_PATHS, none empty. Returns
 * 0, or 2 after a usage error. */
static int cli_check_paths(int n, char **paths) {
  g_autofree char *what = NULL;

  if (n > READ_MAX_PATHS) {
    what = g_strdup_printf("paths must have at most %d items (%d given)", READ_MAX_PATHS, n);
    return usage_error(what, NULL);
  }
  for (int i = 0; i < n; i++) {
    if (*paths[i] == '\0') {
      what = g_strdup_printf("paths[%d] must be a non-empty string", i);
      return usage_error(what, NULL);
    }
  }
  return 0;
}

int cli_read(int argc, char **argv) {
  static const struct option opts[] = {
      {"json", no_argument, NULL, 'j'},
      {"offset", required_argument, NULL, 'o'},
      {"limit", required_argument, NULL, 'l'},
      {"tail", required_argument, NULL, 't'},
      {"no-line-numbers", no_argument, NULL, 'n'},
      {"max-dimension", required_argument, NULL, 'm'},
      {"help", no_argument, NULL, 'h'},
      {"format", required_argument, NULL, 'f'},
      {"image-detail", required_argument, NULL, 'd'},
      {"image-tile", required_argument, NULL, 'T'},
      {"max-image-bytes", required_argument, NULL, 'b'},
      {"pages", required_argument, NULL, 'p'},
      {"render", no_argument, NULL, 'r'},
      {"password", required_argument, NULL, 'P'},
      {"root", required_argument, NULL, 'R'},
      {"exclude", required_argument, NULL, 'x'},
      {"if-none-match", required_argument, NULL, 'e'},
      {"no-expand", no_argument, NULL, 'E'},
      {"max-files", required_argument, NULL, 'M'},
      {"budget", required_argument, NULL, 'B'},
      {"plan", no_argument, NULL, 'L'},
      {"skip", required_argument, NULL, 'K'},
      {"encoding", required_argument, NULL, 'C'},
      {NULL, 0, NULL, 0},
  };
  ReadParams params;
  CliRun run = {.exit_status = 1};
  g_autoptr(GPtrArray) exclude = g_ptr_array_new();
  CliPathOptions popt = {.exclude = exclude};
  g_autofree char *err = NULL;
  Workspace *ws = NULL;
  int c, r;

  read_params_init(&params);
  /* A person at a terminal who names a folder means the files in it. */
  params.expand.on = true;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    r = cli_read_option(c, &params, &run, &popt);
    if (r != 0) {
      read_params_clear(&params);
      return r == 1 ? 0 : r;
    }
  }
  g_ptr_array_add(exclude, NULL);
  if (optind >= argc || workspace_new(popt.root, popt.root != NULL,
                                      (const char *const *)exclude->pdata, &ws, &err) < 0) {
    read_params_clear(&params);
    return usage_error(err != NULL ? err : "no PATH given", NULL);
  }
  r = cli_check_paths(argc - optind, argv + optind);
  if (r != 0) {
    read_params_clear(&params);
    workspace_unref(ws);
    return r;
  }
  params.n_paths = (size_t)(argc - optind);
  params.paths = g_new0(PathSpec, params.n_paths);
  for (size_t i = 0; i < params.n_paths; i++) {
    params.paths[i].path = g_strdup(argv[optind + (int)i]);
    params.paths[i].pages = g_strdup(popt.pages);
    params.paths[i].password = g_strdup(popt.password);
    params.paths[i].render = popt.render;
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
