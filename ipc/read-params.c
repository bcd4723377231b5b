/* The `read` method's params, checked field by field into a ReadParams.
 *
 * Optional members set to null are taken as absent, and unknown params are ignored so that
 * newer clients keep working; an unknown member of an option object (expand, images) is
 * refused, since it can only be a misspelt option. Strings with U+0000 never get here: json-glib would cut them,
 * so jsonrpc_parse() refuses such messages before. */
#include "ipc/read-params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <glib.h>

#include "basic/pdf-select.h"
#include "formatters/format.h"
#include "basic/path-bytes.h"

#define PATH_ITEM_ERROR                                                                            \
  "paths[%zu] must be a non-empty string or an object with a \"path\" or \"pathBytes\""
#define PATH_BYTES_ERROR                                                                           \
  "paths[%zu].pathBytes must be a non-empty path spelled as files[].pathBytes is: UTF-8, "         \
  "\"\\\\\" for a backslash, \"\\xHH\" for any other byte (not \\x00)"
#define ENCODING_ERROR                                                                             \
  "%s must be a character set iconv knows, such as \"iso-8859-2\", \"gbk\", \"shift_jis\" or "     \
  "\"utf-16le\"%s%s%s"
#define PAGES_ERROR "paths[%zu].pages must be a page selection like \"3\", \"2-5\" or \"1,28-\""
#define DETAIL_ERROR "images.detail must be one of \"auto\", \"low\", \"high\""
#define TILE_ERROR "images.tile must be one of \"auto\", \"never\", \"always\""

/* Indexed by ReadImageDetail. */
static const char *const detail_names[] = {"auto", "low", "high"};
/* Indexed by ReadImageTile. */
static const char *const tile_names[] = {"auto", "never", "always"};

static int read_params_fail(char **ret_error, const char *format, ...) G_GNUC_PRINTF(2, 3);

/* Sets *ret_error (when wanted) and returns -EINVAL. */
static int read_params_fail(char **ret_error, const char *format, ...) {
  va_list ap;

  if (ret_error) {
    va_start(ap, format);
    *ret_error = g_strdup_vprintf(format, ap);
    va_end(ap);
  }
  return -EINVAL;
}

/* The member, or NULL when it is absent or null. */
static JsonNode *read_params_member(JsonObject *obj, const char *name) {
  JsonNode *node = json_object_get_member(obj, name);

  return node && JSON_NODE_HOLDS_NULL(node) ? NULL : node;
}

static bool read_params_get_int(JsonNode *node, int64_t min, int64_t max, int64_t *ret) {
  int64_t v;

  if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
    return false;
  v = json_node_get_int(node);
  if (v < min || v > max)
    return false;
  *ret = v;
  return true;
}

/* A UTF-8 string, and a non-empty one when nonempty is set. */
static bool read_params_get_string(JsonNode *node, bool nonempty, const char **ret) {
  const char *s;

  if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING)
    return false;
  s = json_node_get_string(node);
  if ((nonempty && *s == '\0') || !g_utf8_validate(s, -1, NULL))
    return false;
  *ret = s;
  return true;
}

static bool read_params_get_bool(JsonNode *node, bool *ret) {
  if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_BOOLEAN)
    return false;
  *ret = json_node_get_boolean(node);
  return true;
}

int read_params_encoding(const char *name, const char **ret) {
  g_autofree char *lower = NULL;
  GIConv cd;

  if (name == NULL || *name == '\0' || strlen(name) > READ_ENCODING_NAME_MAX)
    return -EINVAL;
  for (const char *c = name; *c != '\0'; c++)
    if (!g_ascii_isalnum(*c) && strchr("-_.:", *c) == NULL)
      return -EINVAL;
  cd = g_iconv_open("UTF-8", name);
  if (cd == (GIConv)-1)
    return -EINVAL;
  g_iconv_close(cd);
  lower = g_ascii_strdown(name, -1);
  *ret = g_intern_string(lower);
  return 0;
}

/* An `encoding` member (absent: *ret untouched); `what` names it in the message. */
static int read_params_encoding_member(JsonNode *node, const char *what, const char **ret,
                                       char **ret_error) {
  const char *s = NULL;
  bool string = read_params_get_string(node, false, &s);

  if (string && read_params_encoding(s, ret) == 0)
    return 0;
  /* The name is quoted back only when short enough to be one. */
  if (string && strlen(s) <= READ_ENCODING_NAME_MAX)
    return read_params_fail(ret_error, ENCODING_ERROR, what, "; \"", s, "\" is not one");
  return read_params_fail(ret_error, ENCODING_ERROR, what, "", "", "");
}

/* The PDF members of a path object: pages, render, password. */
static int read_params_path_pdf(JsonObject *obj, size_t i, PathSpec *spec, char **ret_error) {
  JsonNode *node;
  const char *s;

  if ((node = read_params_member(obj, "pages"))) {
    if (!read_params_get_string(node, false, &s))
      return read_params_fail(ret_error, "paths[%zu].pages must be a string", i);
    if (!read_params_pages_valid(s))
      return read_params_fail(ret_error, PAGES_ERROR, i);
    spec->pages = g_strdup(s);
  }
  if ((node = read_params_member(obj, "render")) && !read_params_get_bool(node, &spec->render))
    return read_params_fail(ret_error, "paths[%zu].render must be a boolean", i);
  if ((node = read_params_member(obj, "password"))) {
    if (!read_params_get_string(node, false, &s))
      return read_params_fail(ret_error, "paths[%zu].password must be a string", i);
    spec->password = g_strdup(s);
  }
  return 0;
}

/* A path's tail and column: tail takes the place of offset, column shows line offset from a
 * character, so neither goes with tail. */
static int read_params_path_window(JsonObject *obj, size_t i, PathSpec *spec, char **ret_error) {
  JsonNode *node;

  if ((node = read_params_member(obj, "tail")) &&
      !read_params_get_int(node, 1, INT64_MAX, &spec->tail))
    return read_params_fail(ret_error, "paths[%zu].tail must be an integer >= 1", i);
  if ((node = read_params_member(obj, "column")) &&
      !read_params_get_int(node, 1, INT64_MAX, &spec->column))
    return read_params_fail(ret_error, "paths[%zu].column must be an integer >= 1", i);
  if (spec->tail > 0 && spec->offset > 0)
    return read_params_fail(ret_error, "paths[%zu]: tail and offset cannot be combined", i);
  if (spec->tail > 0 && spec->column > 0)
    return read_params_fail(ret_error, "paths[%zu]: tail and column cannot be combined", i);
  return 0;
}

/* A path object's name: `path`, or `pathBytes`, the exact bytes of a name that is not UTF-8
 * as the answer spells them (basic/path-bytes.h). */
static int read_params_path_name(JsonObject *obj, size_t i, PathSpec *spec, char **ret_error) {
  JsonNode *node = read_params_member(obj, "path"), *bytes = read_params_member(obj, "pathBytes");
  const char *s;

  if (node != NULL && bytes != NULL)
    return read_params_fail(ret_error, "paths[%zu]: path and pathBytes cannot be combined", i);
  if (bytes != NULL) {
    if (!read_params_get_string(bytes, true, &s) || path_bytes_unescape(s, &spec->path) < 0)
      return read_params_fail(ret_error, PATH_BYTES_ERROR, i);
    return 0;
  }
  if (!node || !read_params_get_string(node, true, &s))
    return read_params_fail(ret_error, "paths[%zu].path must be a non-empty string", i);
  spec->path = g_strdup(s);
  return 0;
}

/* One item of paths: a string, or an object with path (or pathBytes) and per-path options. */
static int read_params_path(JsonNode *item, size_t i, PathSpec *spec, char **ret_error) {
  JsonObject *obj;
  JsonNode *node;
  const char *s;

  if (JSON_NODE_HOLDS_VALUE(item)) {
    if (!read_params_get_string(item, true, &s))
      return read_params_fail(ret_error, PATH_ITEM_ERROR, i);
    spec->path = g_strdup(s);
    return 0;
  }
  if (!JSON_NODE_HOLDS_OBJECT(item))
    return read_params_fail(ret_error, PATH_ITEM_ERROR, i);

  obj = json_node_get_object(item);
  if (read_params_path_name(obj, i, spec, ret_error) < 0)
    return -EINVAL;

  if ((node = read_params_member(obj, "offset")) &&
      !read_params_get_int(node, 1, INT64_MAX, &spec->offset))
    return read_params_fail(ret_error, "paths[%zu].offset must be an integer >= 1", i);
  if ((node = read_params_member(obj, "limit")) &&
      !read_params_get_int(node, 1, INT64_MAX, &spec->limit))
    return read_params_fail(ret_error, "paths[%zu].limit must be an integer >= 1", i);
  if (read_params_path_window(obj, i, spec, ret_error) < 0)
    return -EINVAL;
  if ((node = read_params_member(obj, "encoding"))) {
    g_autofree char *what = g_strdup_printf("paths[%zu].encoding", i);

    if (read_params_encoding_member(node, what, &spec->encoding, ret_error) < 0)
      return -EINVAL;
  }
  return read_params_path_pdf(obj, i, spec, ret_error);
}

static int read_params_paths(JsonNode *node, ReadParams *ret, char **ret_error) {
  JsonArray *array;
  size_t n;
  int r;

  if (!node)
    return read_params_fail(ret_error, "paths is required");
  if (!JSON_NODE_HOLDS_ARRAY(node) || json_array_get_length(json_node_get_array(node)) == 0)
    return read_params_fail(ret_error, "paths must be a non-empty array");
  array = json_node_get_array(node);
  n = json_array_get_length(array);
  if (n > READ_MAX_PATHS)
    return read_params_fail(ret_error, "paths must have at most %d items", READ_MAX_PATHS);

  ret->paths = g_new0(PathSpec, n);
  ret->n_paths = n;
  for (size_t i = 0; i < n; i++) {
    r = read_params_path(json_array_get_element(array, (guint)i), i, &ret->paths[i], ret_error);
    if (r < 0)
      return r;
  }
  return 0;
}

/* images.detail (absent: the default). */
static int read_params_detail(JsonNode *node, ReadParams *ret, char **ret_error) {
  const char *s;

  if (node && (!read_params_get_string(node, false, &s) ||
               read_image_detail_from_name(s, &ret->image_detail) < 0))
    return read_params_fail(ret_error, DETAIL_ERROR);
  return 0;
}

/* images.tile (absent: the default). */
static int read_params_tile(JsonNode *node, ReadParams *ret, char **ret_error) {
  const char *s;

  if (node && (!read_params_get_string(node, false, &s) ||
               read_image_tile_from_name(s, &ret->image_tile) < 0))
    return read_params_fail(ret_error, TILE_ERROR);
  return 0;
}

/* Refuses a member of the option object `name` that is not in `known` (NULL-terminated): a
 * misspelt option would otherwise do nothing, silently. */
static int read_params_known(JsonObject *obj, const char *name, const char *const *known,
                             char **ret_error) {
  g_autoptr(GList) members = json_object_get_members(obj);

  for (GList *l = members; l != NULL; l = l->next) {
    g_autofree char *list = NULL;

    if (g_strv_contains(known, l->data))
      continue;
    list = g_strjoinv(", ", (char **)known);
    return read_params_fail(ret_error, "%s has no member \"%s\" (it takes %s)", name,
                            g_utf8_validate(l->data, -1, NULL) ? (const char *)l->data : "?",
                            list);
  }
  return 0;
}

static int read_params_images(JsonNode *node, ReadParams *ret, char **ret_error) {
  static const char *const known[] = {"maxDimension", "maxTotalBytes", "tile", "detail", NULL};
  JsonNode *dim, *total;
  int64_t v;

  if (!JSON_NODE_HOLDS_OBJECT(node))
    return read_params_fail(ret_error, "images must be an object");
  if (read_params_known(json_node_get_object(node), "images", known, ret_error) < 0)
    return -EINVAL;
  dim = read_params_member(json_node_get_object(node), "maxDimension");
  if (dim && !read_params_get_int(dim, READ_MIN_MAX_DIMENSION, READ_MAX_MAX_DIMENSION, &v))
    return read_params_fail(ret_error, "images.maxDimension must be an integer from %d to %d",
                            READ_MIN_MAX_DIMENSION, READ_MAX_MAX_DIMENSION);
  if (dim)
    ret->max_dimension = (int)v;
  total = read_params_member(json_node_get_object(node), "maxTotalBytes");
  if (total &&
      !read_params_get_int(total, 0, READ_MAX_MAX_TOTAL_IMAGE_BYTES, &ret->max_total_image_bytes))
    return read_params_fail(ret_error, "images.maxTotalBytes must be an integer from 0 to %" PRId64,
                            READ_MAX_MAX_TOTAL_IMAGE_BYTES);
  if (read_params_tile(read_params_member(json_node_get_object(node), "tile"), ret, ret_error) < 0)
    return -EINVAL;
  return read_params_detail(read_params_member(json_node_get_object(node), "detail"), ret,
                            ret_error);
}

/* ifNoneMatch: {"<path>": "<etag>", ...}, at most READ_MAX_PATHS members. Keys are the paths
 * as files[].path gives them; any non-empty string is taken, since only the reader's own
 * etags ever match. */
static int read_params_if_none_match_parse(JsonNode *node, ReadParams *ret, char **ret_error) {
  JsonObject *obj;
  g_autoptr(GList) names = NULL;
  const char *etag;

  if (!JSON_NODE_HOLDS_OBJECT(node))
    return read_params_fail(ret_error, "ifNoneMatch must be an object of paths to etags");
  obj = json_node_get_object(node);
  if (json_object_get_size(obj) > READ_MAX_PATHS)
    return read_params_fail(ret_error, "ifNoneMatch must have at most %d members", READ_MAX_PATHS);
  ret->if_none_match = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  names = json_object_get_members(obj);
  for (GList *l = names; l != NULL; l = l->next) {
    JsonNode *v = json_object_get_member(obj, l->data);

    if (!read_params_get_string(v, true, &etag) || !g_utf8_validate(l->data, -1, NULL))
      return read_params_fail(ret_error, "ifNoneMatch values must be non-empty etag strings");
    g_hash_table_replace(ret->if_none_match, g_strdup(l->data), g_strdup(etag));
  }
  return 0;
}

const char *read_params_if_none_match(const ReadParams *p, const char *path) {
  g_autofree char *bytes = NULL;

  if (p->if_none_match == NULL || path == NULL)
    return NULL;
  /* A name JSON cannot carry is keyed by its pathBytes spelling, as the answer gives it. */
  bytes = path_bytes_escape(path);
  return g_hash_table_lookup(p->if_none_match, bytes != NULL ? bytes : path);
}

/* expand: a boolean, or an object of options that turns it on. */
static int read_params_expand(JsonNode *node, ReadExpand *ret, char **ret_error) {
  static const char *const known[] = {"maxFiles", "ignored", "binary", NULL};
  JsonObject *obj;
  JsonNode *m;

  if (read_params_get_bool(node, &ret->on))
    return 0;
  if (!JSON_NODE_HOLDS_OBJECT(node))
    return read_params_fail(ret_error, "expand must be a boolean or an object");
  obj = json_node_get_object(node);
  if (read_params_known(obj, "expand", known, ret_error) < 0)
    return -EINVAL;
  ret->on = true;
  if ((m = read_params_member(obj, "maxFiles")) &&
      !read_params_get_int(m, 1, READ_MAX_PATHS, &ret->max_files))
    return read_params_fail(ret_error, "expand.maxFiles must be an integer from 1 to %d",
                            READ_MAX_PATHS);
  if ((m = read_params_member(obj, "ignored")) && !read_params_get_bool(m, &ret->ignored))
    return read_params_fail(ret_error, "expand.ignored must be a boolean");
  if ((m = read_params_member(obj, "binary")) && !read_params_get_bool(m, &ret->binary))
    return read_params_fail(ret_error, "expand.binary must be a boolean");
  return 0;
}

/* budget {tokens}, plan and skip (absent: none). */
static int read_params_budget_plan(JsonObject *obj, ReadParams *ret, char **ret_error) {
  JsonNode *node = read_params_member(obj, "budget"), *tokens;

  if (node != NULL) {
    if (!JSON_NODE_HOLDS_OBJECT(node))
      return read_params_fail(ret_error, "budget must be an object: {\"tokens\": N}");
    tokens = read_params_member(json_node_get_object(node), "tokens");
    if (tokens == NULL ||
        !read_params_get_int(tokens, 1, READ_MAX_BUDGET_TOKENS, &ret->budget_tokens))
      return read_params_fail(ret_error,
                              "budget.tokens must be an integer >= 1 (at most %" PRId64 ")",
                              READ_MAX_BUDGET_TOKENS);
  }
  if ((node = read_params_member(obj, "plan")) && !read_params_get_bool(node, &ret->plan))
    return read_params_fail(ret_error, "plan must be a boolean");
  if ((node = read_params_member(obj, "skip")) &&
      !read_params_get_int(node, 0, READ_MAX_PATHS, &ret->skip))
    return read_params_fail(ret_error, "skip must be an integer >= 0 (at most %d)", READ_MAX_PATHS);
  return 0;
}

void read_params_init(ReadParams *ret) {
  memset(ret, 0, sizeof *ret);
  ret->offset = 1;
  ret->limit = READ_DEFAULT_LIMIT;
  ret->line_numbers = true;
  ret->max_dimension = READ_DEFAULT_MAX_DIMENSION;
  ret->max_total_image_bytes = READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES;
  ret->max_answer_bytes = READ_MAX_ANSWER_BYTES;
  ret->format = format_at(0)->name;
  ret->image_detail = READ_IMAGE_DETAIL_AUTO;
  ret->expand.max_files = READ_DEFAULT_MAX_FILES;
}

/* A path's column shows its own offset: under the request's tail, a path with a column and no
 * offset of its own would have none. */
static int read_params_tail_columns(const ReadParams *p, char **ret_error) {
  for (size_t i = 0; p->tail > 0 && i < p->n_paths; i++)
    if (p->paths[i].column > 0 && p->paths[i].offset == 0)
      return read_params_fail(ret_error, "paths[%zu]: tail and column cannot be combined", i);
  return 0;
}

/* The members of the params object; paths first, so that its errors come first. */
static int read_params_members(JsonObject *obj, ReadParams *ret, char **ret_error) {
  const Formatter *fmt = NULL;
  JsonNode *node;
  const char *s;
  int r;

  r = read_params_paths(read_params_member(obj, "paths"), ret, ret_error);
  if (r < 0)
    return r;
  if ((node = read_params_member(obj, "cwd"))) {
    if (!read_params_get_string(node, true, &s))
      return read_params_fail(ret_error, "cwd must be a non-empty string");
    ret->cwd = g_strdup(s);
  }
  if ((node = read_params_member(obj, "offset")) &&
      !read_params_get_int(node, 1, INT64_MAX, &ret->offset))
    return read_params_fail(ret_error, "offset must be an integer >= 1");
  if ((node = read_params_member(obj, "limit")) &&
      !read_params_get_int(node, 1, INT64_MAX, &ret->limit))
    return read_params_fail(ret_error, "limit must be an integer >= 1");
  if ((node = read_params_member(obj, "tail")) &&
      !read_params_get_int(node, 1, INT64_MAX, &ret->tail))
    return read_params_fail(ret_error, "tail must be an integer >= 1");
  if (ret->tail > 0 && read_params_member(obj, "offset") != NULL)
    return read_params_fail(ret_error, "tail and offset cannot be combined");
  if ((r = read_params_tail_columns(ret, ret_error)) < 0)
    return r;
  if ((node = read_params_member(obj, "lineNumbers")) &&
      !read_params_get_bool(node, &ret->line_numbers))
    return read_params_fail(ret_error, "lineNumbers must be a boolean");
  if ((node = read_params_member(obj, "format")) &&
      (!read_params_get_string(node, false, &s) || (fmt = format_get(s)) == NULL)) {
    g_autofree char *names = read_format_names();

    return read_params_fail(ret_error, "format must be one of %s", names);
  }
  if (fmt != NULL)
    ret->format = fmt->name;
  if ((node = read_params_member(obj, "ifNoneMatch")) &&
      (r = read_params_if_none_match_parse(node, ret, ret_error)) < 0)
    return r;
  if ((node = read_params_member(obj, "expand")) &&
      (r = read_params_expand(node, &ret->expand, ret_error)) < 0)
    return r;
  r = read_params_budget_plan(obj, ret, ret_error);
  if (r < 0)
    return r;
  if ((node = read_params_member(obj, "encoding")) &&
      (r = read_params_encoding_member(node, "encoding", &ret->encoding, ret_error)) < 0)
    return r;
  if ((node = read_params_member(obj, "images")))
    return read_params_images(node, ret, ret_error);
  return 0;
}

int read_params_parse(JsonNode *params, ReadParams *ret, char **ret_error) {
  int r;

  if (ret_error)
    *ret_error = NULL;
  if (!params || !JSON_NODE_HOLDS_OBJECT(params)) {
    r = read_params_fail(ret_error, "params must be an object");
    goto fail;
  }
  r = read_params_members(json_node_get_object(params), ret, ret_error);
  if (r < 0)
    goto fail;
  return 0;

fail:
  read_params_clear(ret);
  return r;
}

void read_params_window(const ReadParams *p, size_t i, int64_t *ret_offset, int64_t *ret_column,
                        int64_t *ret_tail) {
  const PathSpec *spec = &p->paths[i];

  *ret_offset = spec->offset > 0 ? spec->offset : p->offset;
  *ret_column = spec->column > 0 ? spec->column : 1;
  *ret_tail = spec->tail > 0 ? spec->tail : spec->offset > 0 ? 0 : p->tail;
}

/* The grammar has one home, the PDF reader's page selections (pdf-select.h). */
bool read_params_pages_valid(const char *spec) {
  PdfSelection sel;
  int r;

  if (spec == NULL)
    return false;
  r = pdf_select_parse(spec, &sel);
  pdf_select_clear(&sel);
  return r == 0;
}

char *read_format_names(void) {
  GString *s = g_string_new(NULL);
  const Formatter *f;

  for (size_t i = 0; (f = format_at(i)) != NULL; i++)
    g_string_append_printf(s, "%s\"%s\"", i > 0 ? ", " : "", f->name);
  return g_string_free(s, FALSE);
}

const char *read_image_detail_name(ReadImageDetail detail) {
  g_assert((size_t)detail < G_N_ELEMENTS(detail_names));
  return detail_names[detail];
}

int read_image_detail_from_name(const char *name, ReadImageDetail *ret) {
  for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(detail_names); i++) {
    if (strcmp(name, detail_names[i]) == 0) {
      *ret = (ReadImageDetail)i;
      return 0;
    }
  }
  return -EINVAL;
}

int read_image_tile_from_name(const char *name, ReadImageTile *ret) {
  for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(tile_names); i++) {
    if (strcmp(name, tile_names[i]) == 0) {
      *ret = (ReadImageTile)i;
      return 0;
    }
  }
  return -EINVAL;
}

void read_params_clear(ReadParams *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->n_paths; i++) {
    g_free(p->paths[i].path);
    g_free(p->paths[i].pages);
    g_free(p->paths[i].password);
  }
  g_free(p->paths);
  g_free(p->cwd);
  if (p->if_none_match != NULL)
    g_hash_table_unref(p->if_none_match);
  read_params_init(p);
}
