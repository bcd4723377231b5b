/* The CPU a `read` line costs before a file is opened (docs/performance.md):
 *
 *   bench-parse [PATHS [ROUNDS [STEP]]]
 *
 * builds one JSON-RPC `read` line naming PATHS absent files (default 2,000, paths as long as
 * the Go tree's), then times ROUNDS (default 200) of each step on one thread, in CPU time
 * (getrusage, so that other work on the machine does not count): the strict validator alone;
 * the tree as json-glib's parser built it; the tree as readerd builds it; the parse as it was
 * with json-glib's tree; the parse with readerd's tree; and the whole of what the daemon does
 * with the line (jsonrpc_parse_flags() leaving the params as text, read_params_parse_json(),
 * both freed).
 * Prints microseconds per line. STEP (0 to 5) runs that step alone, for a profiler. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <glib.h>

#include "ipc/json-parse-internal.h"
#include "ipc/json-parse.h"
#include "ipc/jsonrpc.h"
#include "ipc/read-params.h"

typedef enum { STEP_VALIDATE, STEP_GLIB, STEP_BUILD, STEP_READ_GLIB, STEP_READ_TREE, STEP_READ } Step;

static const char *const step_names[] = {
    "validator alone",
    "json-glib's tree (validator not included)",
    "readerd's tree (validator not included)",
    "validator, json-glib's tree, read_params_parse (the parse before the builder)",
    "jsonrpc_parse, read_params_parse of readerd's tree",
    "jsonrpc_parse (READ_TEXT) + read_params_parse_json (the daemon's whole parse)",
};

static int64_t cpu_us(void) {
  struct rusage ru;

  getrusage(RUSAGE_SELF, &ru);
  return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
         ru.ru_stime.tv_usec;
}

static void run_step(Step step, const char *line, size_t len) {
  g_autofree char *error = NULL;
  JsonrpcMessage msg;
  ReadParams p;
  JsonNode *node;

  switch (step) {
  case STEP_VALIDATE:
    g_assert(json_parse_validate(line, len, JSONRPC_MAX_DEPTH, NULL) == 0);
    return;
  case STEP_GLIB:
    node = json_tree_glib(line, len, &error);
    g_assert(node != NULL);
    json_node_unref(node);
    return;
  case STEP_BUILD:
    json_node_unref(json_tree_build(line, len));
    return;
  case STEP_READ_GLIB:
    g_assert(json_parse_validate(line, len, JSONRPC_MAX_DEPTH, NULL) == 0);
    node = json_tree_glib(line, len, &error);
    read_params_init(&p);
    g_assert(read_params_parse(json_object_get_member(json_node_get_object(node), "params"), &p,
                               NULL) == 0);
    read_params_clear(&p);
    json_node_unref(node);
    return;
  case STEP_READ_TREE:
    g_assert(jsonrpc_parse_flags(line, len, 0, &msg, NULL, NULL) == 0);
    read_params_init(&p);
    g_assert(read_params_parse(msg.params, &p, NULL) == 0);
    read_params_clear(&p);
    jsonrpc_message_clear(&msg);
    return;
  case STEP_READ:
    g_assert(jsonrpc_parse_flags(line, len, JSONRPC_PARSE_READ_TEXT, &msg, NULL, NULL) == 0);
    read_params_init(&p);
    g_assert(read_params_parse_json(msg.params_text, msg.params_len, &p, NULL) == 0);
    read_params_clear(&p);
    jsonrpc_message_clear(&msg);
    return;
  }
}

int main(int argc, char **argv) {
  unsigned paths = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
  int only = argc > 3 ? atoi(argv[3]) : -1;
  GString *line = g_string_new("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\",\"params\":{\"paths\":[");

  for (unsigned i = 0; i < paths; i++)
    g_string_append_printf(line, "%s\"/nonexistent/go-1.19/src/cmd/compile/internal/ssa/gen_%05u.go\"",
                           i > 0 ? "," : "", i);
  g_string_append(line, "]}}");
  printf("a read line of %u paths, %zu bytes; CPU per line, best of 5 batches of %u\n", paths,
         line->len, rounds);
  for (Step step = STEP_VALIDATE; step <= STEP_READ; step++) {
    int64_t best = INT64_MAX;

    if (only >= 0 && (Step)only != step)
      continue;
    for (int batch = 0; batch < 5; batch++) {
      int64_t t0 = cpu_us();

      for (unsigned r = 0; r < rounds; r++)
        run_step(step, line->str, line->len);
      best = MIN(best, cpu_us() - t0);
    }
    printf("%8.1f us  %s\n", (double)best / rounds, step_names[step]);
  }
  g_string_free(line, TRUE);
  return 0;
}
