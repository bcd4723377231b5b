/* Whether two JSON trees are the same to the bit, for the fuzz targets that compare readerd's
 * tree builder with json-glib's parser: the same node types, the same value types (an integer
 * is not a double), doubles bit for bit (-0.0 is not 0.0), the same strings, and objects with
 * the same members in the same order. json_node_equal() is looser on each of these. */
#pragma once

#include <stdbool.h>
#include <string.h>

#include <json-glib/json-glib.h>

static bool json_same(JsonNode *a, JsonNode *b);

static bool json_same_value(JsonNode *a, JsonNode *b) {
  GType t = json_node_get_value_type(a);
  double x, y;

  if (t != json_node_get_value_type(b))
    return false;
  if (t == G_TYPE_INT64)
    return json_node_get_int(a) == json_node_get_int(b);
  if (t == G_TYPE_BOOLEAN)
    return json_node_get_boolean(a) == json_node_get_boolean(b);
  if (t == G_TYPE_STRING)
    return strcmp(json_node_get_string(a), json_node_get_string(b)) == 0;
  if (t != G_TYPE_DOUBLE)
    return false;
  x = json_node_get_double(a);
  y = json_node_get_double(b);
  return memcmp(&x, &y, sizeof x) == 0;
}

static bool json_same_object(JsonObject *a, JsonObject *b) {
  g_autoptr(GList) ma = json_object_get_members(a);
  g_autoptr(GList) mb = json_object_get_members(b);
  GList *x = ma, *y = mb;

  for (; x != NULL && y != NULL; x = x->next, y = y->next)
    if (strcmp(x->data, y->data) != 0 ||
        !json_same(json_object_get_member(a, x->data), json_object_get_member(b, y->data)))
      return false;
  return x == NULL && y == NULL;
}

static bool json_same(JsonNode *a, JsonNode *b) {
  JsonArray *x, *y;

  if (JSON_NODE_TYPE(a) != JSON_NODE_TYPE(b) || json_node_is_immutable(a) != json_node_is_immutable(b))
    return false;
  switch (JSON_NODE_TYPE(a)) {
  case JSON_NODE_NULL:
    return true;
  case JSON_NODE_VALUE:
    return json_same_value(a, b);
  case JSON_NODE_OBJECT:
    return json_same_object(json_node_get_object(a), json_node_get_object(b));
  case JSON_NODE_ARRAY:
    x = json_node_get_array(a);
    y = json_node_get_array(b);
    if (json_array_get_length(x) != json_array_get_length(y))
      return false;
    for (guint i = 0; i < json_array_get_length(x); i++)
      if (!json_same(json_array_get_element(x, i), json_array_get_element(y, i)))
        return false;
    return true;
  }
  return false;
}
