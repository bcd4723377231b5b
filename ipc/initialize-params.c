#include "ipc/initialize-params.h"

#include <errno.h>
#include <string.h>

static JsonNode *member(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);

  return n != NULL && !JSON_NODE_HOLDS_NULL(n) ? n : NULL;
}

static bool is_string(JsonNode *n) {
  return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING;
}

static int parse_exclude(JsonNode *n, InitializeParams *ret, char **ret_error) {
  JsonArray *a;
  guint len;

  if (!JSON_NODE_HOLDS_ARRAY(n)) {
    *ret_error = g_strdup("exclude must be an array of glob patterns");
    return -EINVAL;
  }
  a = json_node_get_array(n);
  len = json_array_get_length(a);
  if (len > INITIALIZE_MAX_EXCLUDE) {
    *ret_error =
        g_strdup_printf("exclude has %u patterns; at most %d", len, INITIALIZE_MAX_EXCLUDE);
    return -EINVAL;
  }
  ret->exclude = g_new0(char *, len + 1);
  for (guint i = 0; i < len; i++) {
    JsonNode *e = json_array_get_element(a, i);

    if (!is_string(e) || *json_node_get_string(e) == '\0') {
      *ret_error = g_strdup_printf("exclude[%u] must be a non-empty string", i);
      return -EINVAL;
    }
    ret->exclude[i] = g_strdup(json_node_get_string(e));
  }
  return 0;
}

int initialize_params_parse(JsonNode *params, InitializeParams *ret, char **ret_error) {
  JsonObject *o;
  JsonNode *n;

  memset(ret, 0, sizeof(*ret));
  if (params == NULL || JSON_NODE_HOLDS_NULL(params))
    return 0;
  if (!JSON_NODE_HOLDS_OBJECT(params)) {
    *ret_error = g_strdup("params must be an object");
    return -EINVAL;
  }
  o = json_node_get_object(params);
  if ((n = member(o, "rootPath")) != NULL) {
    if (!is_string(n) || *json_node_get_string(n) == '\0') {
      *ret_error = g_strdup("rootPath must be a non-empty string");
      goto fail;
    }
    ret->root_path = g_strdup(json_node_get_string(n));
  }
  if ((n = member(o, "confineToRoot")) != NULL) {
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN) {
      *ret_error = g_strdup("confineToRoot must be a boolean");
      goto fail;
    }
    ret->confine = json_node_get_boolean(n);
  }
  if ((n = member(o, "exclude")) != NULL && parse_exclude(n, ret, ret_error) < 0)
    goto fail;
  return 0;

fail:
  initialize_params_clear(ret);
  return -EINVAL;
}

void initialize_params_clear(InitializeParams *p) {
  if (p == NULL)
    return;
  g_free(p->root_path);
  g_strfreev(p->exclude);
  memset(p, 0, sizeof(*p));
}
