/* read_files' arguments straight from their JSON text (mcp.h), as read-params-text.c takes a
 * `read` line's params: a call naming thousands of paths is mostly its `paths` array, and
 * building a tree of it, only to copy each string out again, cost ten times the rest of the
 * parse. So an array of path strings is read from the text directly; the other arguments are
 * built into a small tree and judged by mcp_read_args_parse() itself beside a stand-in path, so
 * that every rule, tolerance and message stays in one place. Anything else (path objects, an
 * empty path, too many paths) is parsed whole, as a tree, to give mcp_read_args_parse()'s own
 * answer. */
#include <errno.h>

#include <glib.h>

#include "ipc/json-parse-internal.h"
#include "ipc/mcp/mcp.h"

/* The arguments with their paths read from the text into *ret; -EINVAL with *ret_error from
 * mcp_read_args_parse() for the other arguments, or 1 when the paths are not for this path. */
static int read_args_fast(const char *text, size_t len, int64_t default_budget, ReadParams *ret,
                          char **ret_error) {
  g_autoptr(JsonNode) rest = NULL;
  PathSpec *paths;
  size_t count;

  /* What the call gives every path item that is a string (pages, render) the stand-in path
   * gets too: it is copied to each path below. */
  rest = read_params_paths_apart(text, len, &paths, &count);
  if (rest == NULL)
    return 1;
  if (mcp_read_args_parse(rest, default_budget, ret, ret_error) < 0) {
    read_params_paths_free(paths, count);
    return -EINVAL;
  }
  for (size_t k = 0; k < count; k++) {
    paths[k].pages = g_strdup(ret->paths[0].pages);
    paths[k].render = ret->paths[0].render;
  }
  read_params_paths_free(ret->paths, ret->n_paths);
  ret->paths = paths;
  ret->n_paths = count;
  return 0;
}

int mcp_read_args_parse_json(const char *text, size_t len, int64_t default_budget, ReadParams *ret,
                             char **ret_error) {
  g_autoptr(JsonNode) tree = NULL;
  int r;

  if (len > 0 && text[0] == '{') {
    r = read_args_fast(text, len, default_budget, ret, ret_error);
    if (r <= 0)
      return r;
  }
  tree = json_tree_build(text, len);
  return mcp_read_args_parse(tree, default_budget, ret, ret_error);
}
