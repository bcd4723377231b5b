/* `readerd read-images`: one readImages call on a loop of its own, printed. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <uv.h>

#include "basic/vision-provider.h"
#include "daemon/cli/cli-args.h"
#include "daemon/cli/cli.h"
#include "daemon/vision/vision.h"
#include "ipc/read-images-params.h"

static int usage_error(const char *what, const char *arg) {
  return cli_usage_error("read-images", what, arg);
}

typedef struct {
  bool json;
  int exit_status;
} VisionRun;

/* The files' errors, one line each, on stderr. */
static void print_file_errors(const ReadResult *r) {
  for (size_t i = 0; i < r->n_files; i++)
    if (r->files[i].code != NULL)
      fprintf(stderr, "readerd read-images: %s: %s: %s\n", r->files[i].path, r->files[i].code,
              r->files[i].error);
}

static void done_cb(VisionCall *call, void *data) {
  VisionRun *run = data;
  int status = vision_call_status(call);

  print_file_errors(vision_call_files(call));
  if (status != 0) {
    fprintf(stderr, "readerd read-images: %s\n", vision_call_error(call));
    run->exit_status = 1;
  } else if (run->json) {
    g_autofree char *json = vision_call_result_json(call, NULL);

    fputs(json, stdout);
    fputc('\n', stdout);
    run->exit_status = 0;
  } else {
    const char *a = vision_call_answer(call);

    fputs(a, stdout);
    if (*a == '\0' || a[strlen(a) - 1] != '\n')
      fputc('\n', stdout);
    run->exit_status = 0;
  }
  vision_call_free(call);
}

/* Applies one option. Returns 0, 1 for --help, or CLI_EXIT_USAGE (reported). */
static int option(int c, ReadImagesParams *p, VisionSettings *s, VisionRun *run) {
  VisionProvider provider;

  switch (c) {
  case 'q':
    g_free(p->query);
    p->query = g_strdup(optarg);
    return 0;
  case 'd':
    if (read_image_detail_from_name(optarg, &p->detail) < 0)
      return usage_error("--detail takes low, high or auto", optarg);
    return 0;
  case 'm':
    g_free(s->model);
    s->model = g_strdup(optarg);
    return 0;
  case 'b':
    g_free(s->base_url);
    s->base_url = g_strdup(optarg);
    return 0;
  case 'P':
    if (vision_provider_from_name(optarg, &provider) < 0) {
      g_autofree char *names = vision_provider_names("");
      g_autofree char *what = g_strdup_printf("--provider takes %s", names);

      return usage_error(what, optarg);
    }
    g_free(s->provider);
    s->provider = g_strdup(optarg);
    return 0;
  case 'p':
    if (cli_check_pages("read-images", optarg) != 0)
      return CLI_EXIT_USAGE;
    g_free(p->pages);
    p->pages = g_strdup(optarg);
    return 0;
  case 't':
    if (cli_parse_number(optarg, 1, READ_IMAGES_MAX_MAX_TOKENS, &p->max_tokens) < 0)
      return usage_error("--max-tokens takes a number from 1 to 131072", optarg);
    return 0;
  case 'j':
    run->json = true;
    return 0;
  case 'h':
    cli_usage(0);
    return 1;
  default:
    cli_usage(1);
    return CLI_EXIT_USAGE;
  }
}

int cli_read_images(int argc, char **argv) {
  static const struct option opts[] = {
      {"query", required_argument, NULL, 'q'},
      {"detail", required_argument, NULL, 'd'},
      {"model", required_argument, NULL, 'm'},
      {"base-url", required_argument, NULL, 'b'},
      {"provider", required_argument, NULL, 'P'},
      {"pages", required_argument, NULL, 'p'},
      {"max-tokens", required_argument, NULL, 't'},
      {"json", no_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  ReadImagesParams p = {.max_tokens = READ_IMAGES_DEFAULT_MAX_TOKENS};
  VisionSettings s = {0};
  VisionTarget target;
  VisionRun run = {.exit_status = 1};
  g_autofree char *err = NULL;
  int c, r = 0;

  optind = 1;
  while (r == 0 && (c = getopt_long(argc, argv, "", opts, NULL)) != -1)
    r = option(c, &p, &s, &run);
  if (r == 0 && (p.query == NULL || *p.query == '\0'))
    r = usage_error("--query TEXT is required", NULL);
  if (r == 0 && optind >= argc)
    r = usage_error("no PATH given", NULL);
  if (r == 0 && argc - optind > READ_IMAGES_MAX_PATHS)
    r = usage_error("too many paths: at most 100", NULL);
  for (int i = optind; r == 0 && i < argc; i++)
    if (*argv[i] == '\0')
      r = usage_error("a PATH is empty", NULL);
  /* The user's own command: the key of READERD_VISION_API_KEY goes to the --base-url given. */
  if (r == 0 && getenv("READERD_VISION_API_KEY") != NULL && *getenv("READERD_VISION_API_KEY"))
    s.api_key = g_strdup(getenv("READERD_VISION_API_KEY"));
  if (r == 0 && vision_target_resolve(&s, NULL, &target, &err) < 0) {
    fprintf(stderr, "readerd read-images: %s\n", err);
    r = CLI_EXIT_USAGE;
  }
  vision_settings_clear(&s);
  if (r != 0) {
    read_images_params_clear(&p);
    return r == 1 ? 0 : r;
  }
  p.n_paths = (size_t)(argc - optind);
  p.paths = g_new0(char *, p.n_paths + 1);
  for (size_t i = 0; i < p.n_paths; i++)
    p.paths[i] = g_strdup(argv[optind + (int)i]);
  vision_call_start(uv_default_loop(), &p, &target, NULL, done_cb, &run);
  uv_run(uv_default_loop(), UV_RUN_DEFAULT);
  uv_loop_close(uv_default_loop());
  return cli_check_output(run.exit_status);
}
