/* `readerd read`'s options as the read method's params: see cli-read-params.h. */
#include "daemon/cli/cli-read-params.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "basic/path-bytes.h"
#include "daemon/cli/cli-args.h"
#include "daemon/cli/cli-usage.h"

/* What an option puts in the params. */
typedef enum {
  CLI_VALUE_NUMBER, /* the argument, as an integer when it is one (the parser says if not) */
  CLI_VALUE_STRING, /* the argument */
  CLI_VALUE_TRUE,   /* no argument: true */
  CLI_VALUE_FALSE,  /* no argument: false */
} CliValue;

/* Each option and the member it sets: a dotted name is a member of an object member; a name
 * under "paths[]." is set in every path's object. */
static const struct {
  const char *option;
  int val; /* getopt's */
  const char *member;
  CliValue value;
} options[] = {
    {"offset", 'o', "offset", CLI_VALUE_NUMBER},
    {"limit", 'l', "limit", CLI_VALUE_NUMBER},
    {"tail", 't', "tail", CLI_VALUE_NUMBER},
    {"no-line-numbers", 'n', "lineNumbers", CLI_VALUE_FALSE},
    {"format", 'f', "format", CLI_VALUE_STRING},
    {"max-dimension", 'm', "images.maxDimension", CLI_VALUE_NUMBER},
    {"max-image-bytes", 'b', "images.maxTotalBytes", CLI_VALUE_NUMBER},
    {"image-detail", 'd', "images.detail", CLI_VALUE_STRING},
    {"image-tile", 'T', "images.tile", CLI_VALUE_STRING},
    {"pages", 'p', "paths[].pages", CLI_VALUE_STRING},
    {"render", 'r', "paths[].render", CLI_VALUE_TRUE},
    {"password", 'P', "paths[].password", CLI_VALUE_STRING},
    {"no-expand", 'E', "expand", CLI_VALUE_FALSE},
    {"max-files", 'M', "expand.maxFiles", CLI_VALUE_NUMBER},
    {"ignored", 'I', "expand.ignored", CLI_VALUE_TRUE},
    {"binary", 'Y', "expand.binary", CLI_VALUE_TRUE},
    {"budget", 'B', "budget.tokens", CLI_VALUE_NUMBER},
    {"plan", 'L', "plan", CLI_VALUE_TRUE},
    {"skip", 'K', "skip", CLI_VALUE_NUMBER},
    {"encoding", 'C', "encoding", CLI_VALUE_STRING},
    {"if-none-match", 'e', "ifNoneMatch", CLI_VALUE_STRING},
};

G_STATIC_ASSERT(G_N_ELEMENTS(options) <= CLI_READ_PARAMS_OPTIONS);

struct CliReadParams {
  JsonObject *params;                       /* the call's members */
  JsonObject *per_path;                     /* what each path's object gets */
  const char *given[G_N_ELEMENTS(options)]; /* each option's last argument, for messages */
  bool no_expand;
};

CliReadParams *cli_read_params_new(void) {
  CliReadParams *p = g_new0(CliReadParams, 1);

  p->params = json_object_new();
  p->per_path = json_object_new();
  return p;
}

void cli_read_params_free(CliReadParams *p) {
  if (p == NULL)
    return;
  json_object_unref(p->params);
  json_object_unref(p->per_path);
  g_free(p);
}

size_t cli_read_params_getopt(struct option *out) {
  for (size_t i = 0; i < G_N_ELEMENTS(options); i++) {
    bool flag = options[i].value == CLI_VALUE_TRUE || options[i].value == CLI_VALUE_FALSE;

    out[i] = (struct option){options[i].option, flag ? no_argument : required_argument, NULL,
                             options[i].val};
  }
  return G_N_ELEMENTS(options);
}

/* The argument as a JSON value: a whole number as an integer, anything else as the string,
 * which the parser then refuses in its words. */
static JsonNode *value_of(CliValue kind, const char *arg) {
  JsonNode *n = json_node_alloc();
  int64_t v;

  switch (kind) {
  case CLI_VALUE_NUMBER:
    if (cli_parse_number(arg, INT64_MIN, INT64_MAX, &v) == 0)
      return json_node_init_int(n, v);
    return json_node_init_string(n, arg);
  case CLI_VALUE_STRING:
    return json_node_init_string(n, arg);
  default:
    return json_node_init_boolean(n, kind == CLI_VALUE_TRUE);
  }
}

/* Sets member (maybe dotted: "images.tile") of o to value (taken). */
static void set_member(JsonObject *o, const char *member, JsonNode *value) {
  const char *dot = strchr(member, '.');
  g_autofree char *outer = NULL;
  JsonNode *inner;

  if (dot == NULL) {
    json_object_set_member(o, member, value);
    return;
  }
  outer = g_strndup(member, (gsize)(dot - member));
  inner = json_object_get_member(o, outer);
  if (inner == NULL || !JSON_NODE_HOLDS_OBJECT(inner)) {
    json_object_set_object_member(o, outer, json_object_new());
    inner = json_object_get_member(o, outer);
  }
  set_member(json_node_get_object(inner), dot + 1, value);
}

/* --if-none-match PATH=ETAG: the etag of a path read before, split at the last '=' (an etag
 * has none); a path that is not UTF-8 by its pathBytes spelling, as a client names it. */
static int if_none_match(CliReadParams *p, const char *arg) {
  const char *eq = strrchr(arg, '=');
  g_autofree char *path = NULL, *spelled = NULL;
  JsonNode *map = json_object_get_member(p->params, "ifNoneMatch");

  if (eq == NULL || eq == arg || eq[1] == '\0')
    return cli_usage_error("read", "--if-none-match takes PATH=ETAG", arg);
  if (map == NULL) {
    json_object_set_object_member(p->params, "ifNoneMatch", json_object_new());
    map = json_object_get_member(p->params, "ifNoneMatch");
  }
  path = g_strndup(arg, (gsize)(eq - arg));
  spelled = path_bytes_escape(path);
  json_object_set_string_member(json_node_get_object(map), spelled != NULL ? spelled : path,
                                eq + 1);
  return 0;
}

int cli_read_params_option(CliReadParams *p, int c, const char *arg) {
  for (size_t i = 0; i < G_N_ELEMENTS(options); i++) {
    if (options[i].val != c)
      continue;
    p->given[i] = arg;
    if (c == 'e')
      return if_none_match(p, arg);
    if (c == 'E') {
      p->no_expand = true;
      return 0;
    }
    if (g_str_has_prefix(options[i].member, "paths[]."))
      set_member(p->per_path, options[i].member + strlen("paths[]."),
                 value_of(options[i].value, arg));
    else
      set_member(p->params, options[i].member, value_of(options[i].value, arg));
    return 0;
  }
  return -ENOENT;
}

/* paths[]: each a string, or an object when there are per-path options or the name is not
 * UTF-8 (then spelled as pathBytes, as a client would). */
static JsonArray *paths_array(const CliReadParams *p, char **paths, int n) {
  g_autoptr(GList) per_path = json_object_get_members(p->per_path);
  JsonArray *a = json_array_sized_new((guint)n);

  for (int i = 0; i < n; i++) {
    bool bytes = path_bytes_needed(paths[i]);
    JsonObject *o;

    if (!bytes && per_path == NULL) {
      json_array_add_string_element(a, paths[i]);
      continue;
    }
    o = json_object_new();
    if (bytes) {
      g_autofree char *spelled = path_bytes_escape(paths[i]);

      json_object_set_string_member(o, "pathBytes", spelled);
    } else {
      json_object_set_string_member(o, "path", paths[i]);
    }
    for (GList *l = per_path; l != NULL; l = l->next)
      json_object_set_member(o, l->data,
                             json_node_copy(json_object_get_member(p->per_path, l->data)));
    json_array_add_object_element(a, o);
  }
  return a;
}

/* The option a parser's message is about: the one whose member the message starts with
 * (after "paths[N]." for a path's), the longest; -1 when none is (paths themselves, two
 * options that cannot be combined). */
static int option_of(const char *error) {
  const char *at = error;
  size_t best_len = 0;
  int best = -1;

  if (g_str_has_prefix(at, "paths[") && (at = strchr(at, ']')) != NULL && at[1] == '.')
    at += 2;
  else
    at = error;
  for (size_t i = 0; i < G_N_ELEMENTS(options); i++) {
    const char *m = options[i].member;
    size_t len;

    /* Past "paths[]." (its first dot): an offset into the literal would be past the end of
     * the shorter members for the compiler's bounds check. */
    if (g_str_has_prefix(m, "paths[].") && at != error)
      m = strchr(m, '.') + 1;
    len = strlen(m);
    if (len > best_len && strncmp(at, m, len) == 0 &&
        (g_str_has_prefix(at + len, " must") || at[len] == '.')) {
      best = (int)i;
      best_len = len;
    }
  }
  return best;
}

int cli_read_params_parse(CliReadParams *p, char **paths, int n, ReadParams *ret) {
  g_autoptr(JsonNode) params = json_node_new(JSON_NODE_OBJECT);
  g_autofree char *err = NULL, *what = NULL;
  JsonNode *expand = json_object_get_member(p->params, "expand");
  int i;

  /* --no-expand wins over --max-files, as the options' order does not matter. */
  if (p->no_expand)
    json_object_set_boolean_member(p->params, "expand", FALSE);
  else if (expand == NULL)
    json_object_set_boolean_member(p->params, "expand", TRUE);
  json_object_set_array_member(p->params, "paths", paths_array(p, paths, n));
  json_node_set_object(params, p->params);
  if (read_params_parse(params, ret, &err) == 0)
    return 0;
  i = option_of(err);
  if (i < 0)
    return cli_usage_error("read", err, NULL);
  what = g_strdup_printf("--%s: %s", options[i].option, err);
  return cli_usage_error("read", what, p->given[i]);
}
