/* The `read` params straight from their JSON text (read-params.h): a line naming thousands of
 * paths is mostly its `paths` array, and building a tree of it only to copy each string out
 * again costs more than the rest of the parse. So an array of strings is read here directly;
 * the other members are built into a small tree and checked by read_params_parse() itself,
 * beside a stand-in `paths`, so that every rule and message stays in one place. Anything else
 * (a path object, an empty string, too many paths, params that are not an object) is parsed
 * whole, as a tree, to give read_params_parse()'s own answer. */
#include "ipc/read-params.h"

#include <errno.h>
#include <string.h>

#include "ipc/json-parse-internal.h"

static size_t skip_space(const char *s, size_t len, size_t i) {
  while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
    i++;
  return i;
}

int read_params_paths_json(const char *s, size_t len, PathSpec **ret_paths, size_t *ret_n) {
  g_autoptr(GArray) paths = g_array_sized_new(FALSE, TRUE, sizeof(PathSpec), 64);
  g_autoptr(GString) text = g_string_sized_new(256);
  size_t i = skip_space(s, len, 0);
  int r = -EINVAL;

  if (i >= len || s[i] != '[')
    return -EINVAL;
  i = skip_space(s, len, i + 1);
  while (i < len && s[i] == '"' && paths->len < READ_MAX_PATHS) {
    PathSpec spec = {0};

    i = json_tree_string(s, len, i, text);
    if (text->len == 0)
      goto out;
    spec.path = g_strndup(text->str, text->len);
    g_array_append_val(paths, spec);
    i = skip_space(s, len, i);
    if (i < len && s[i] == ',')
      i = skip_space(s, len, i + 1);
  }
  if (i < len && s[i] == ']' && paths->len > 0) {
    *ret_n = paths->len;
    *ret_paths = (PathSpec *)(void *)g_array_free(g_steal_pointer(&paths), FALSE);
    return 0;
  }
out:
  for (guint k = 0; k < paths->len; k++)
    g_free(g_array_index(paths, PathSpec, k).path);
  return r;
}

JsonNode *read_params_paths_apart(const char *text, size_t len, PathSpec **ret_paths,
                                  size_t *ret_n) {
  g_autoptr(JsonNode) rest = NULL;
  JsonArray *stand_in;
  size_t at, n;

  rest = json_tree_build_except(text, len, "paths", &at, &n);
  if (n == 0 || read_params_paths_json(text + at, n, ret_paths, ret_n) < 0)
    return NULL;
  stand_in = json_array_new();
  json_array_add_string_element(stand_in, "-");
  json_object_set_array_member(json_node_get_object(rest), "paths", stand_in);
  json_node_seal(rest);
  return g_steal_pointer(&rest);
}

/* The params object with its paths read from the text; -EINVAL with *ret_error from
 * read_params_parse() for the other members, or 1 when the paths are not for this path. */
static int read_params_fast(const char *text, size_t len, ReadParams *ret, char **ret_error) {
  g_autoptr(JsonNode) rest = NULL;
  PathSpec *paths;
  size_t count;
  int r;

  rest = read_params_paths_apart(text, len, &paths, &count);
  if (rest == NULL)
    return 1;
  r = read_params_parse(rest, ret, ret_error);
  if (r < 0) {
    read_params_paths_free(paths, count);
    return r;
  }
  g_free(ret->paths[0].path);
  g_free(ret->paths);
  ret->paths = paths;
  ret->n_paths = count;
  return 0;
}

void read_params_paths_free(PathSpec *paths, size_t n) {
  for (size_t k = 0; paths != NULL && k < n; k++) {
    g_free(paths[k].path);
    g_free(paths[k].pages);
    g_free(paths[k].password);
  }
  g_free(paths);
}

int read_params_parse_json(const char *text, size_t len, ReadParams *ret, char **ret_error) {
  g_autoptr(JsonNode) tree = NULL;
  size_t i = skip_space(text, len, 0);
  int r;

  if (i < len && text[i] == '{') {
    r = read_params_fast(text, len, ret, ret_error);
    if (r <= 0)
      return r;
  }
  tree = json_tree_build(text, len);
  return read_params_parse(tree, ret, ret_error);
}
