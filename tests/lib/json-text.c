/* JSON text helpers: see json-text.h. */
#include "tests/lib/json-text.h"

#include <check.h>

#include "tests/lib/rd-internal.h"

char *rd_json_quote(const char *s) {
  JsonNode *n = json_node_new(JSON_NODE_VALUE);
  json_node_set_string(n, s);
  char *t = json_to_string(n, FALSE);
  json_node_unref(n);
  return t;
}

char *rd_json_paths(const char *const *paths, size_t n) {
  GString *s = g_string_new("[");
  for (size_t i = 0; i < n; i++) {
    char *q = rd_json_quote(paths[i]);
    g_string_append_printf(s, "%s%s", i ? "," : "", q);
    g_free(q);
  }
  g_string_append_c(s, ']');
  return g_string_free(s, FALSE);
}

JsonNode *rd_json_parse(const char *text, size_t len) {
  JsonParser *p = json_parser_new_immutable();
  GError *err = NULL;
  gboolean ok = json_parser_load_from_data(p, text, (gssize)len, &err);
  ck_assert_msg(ok, "not JSON (%s): %.200s", err ? err->message : "?", text);
  JsonNode *root = json_parser_steal_root(p);
  g_object_unref(p);
  ck_assert_msg(root != NULL, "empty JSON text");
  return root;
}
