/* Fuzz target for the one bounded JSON parse (ipc/json-parse.c): the first byte picks the depth
 * limit (1 to 64), the rest is the text. What the validator accepts gives a tree no deeper than
 * the limit, the very tree json-glib's parser builds of it (readerd's builder is compared with
 * json-glib on every input); what it refuses gets a message that says where; the note and the
 * parse agree with the validator alone. Any broken invariant aborts. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "ipc/json-parse-internal.h"
#include "ipc/json-parse.h"
#include "tests/fuzz/json-same.h"
#include "tests/fuzz/fuzz.h"

/* The nesting of arrays and objects in a tree, by an explicit stack (no recursion: the tree
 * must already be within the limit, but this is what is being checked). */
static unsigned tree_depth(JsonNode *root) {
  g_autoptr(GPtrArray) nodes = g_ptr_array_new();
  g_autoptr(GArray) depths = g_array_new(FALSE, FALSE, sizeof(unsigned));
  unsigned deepest = 0, zero = 0;

  g_ptr_array_add(nodes, root);
  g_array_append_val(depths, zero);
  while (nodes->len > 0) {
    JsonNode *n = g_ptr_array_steal_index(nodes, nodes->len - 1);
    unsigned d = g_array_index(depths, unsigned, depths->len - 1);
    g_autoptr(GList) children = NULL;

    g_array_set_size(depths, depths->len - 1);
    if (JSON_NODE_HOLDS_ARRAY(n))
      children = json_array_get_elements(json_node_get_array(n));
    else if (JSON_NODE_HOLDS_OBJECT(n))
      children = json_object_get_values(json_node_get_object(n));
    else
      continue;
    deepest = MAX(deepest, d + 1);
    for (GList *l = children; l != NULL; l = l->next) {
      unsigned next = d + 1;

      g_ptr_array_add(nodes, l->data);
      g_array_append_val(depths, next);
    }
  }
  return deepest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *error = NULL, *verdict = NULL;
  const char *text;
  unsigned max_depth;
  JsonParseNote note;
  int valid, r;

  if (size == 0)
    return 0;
  max_depth = 1 + data[0] % 64;
  text = (const char *)data + 1;
  size--;
  valid = json_parse_validate(text, size, max_depth, &verdict);
  r = json_parse_bounded_note(text, size, max_depth, &root, &note, &error);
  if (valid == 0) {
    /* json-glib takes all strict JSON the validator lets through. */
    fuzz_assert(verdict == NULL);
    fuzz_assert(r == 0 && root != NULL && error == NULL);
    fuzz_assert(tree_depth(root) <= max_depth);
    fuzz_assert(note.value_error == NULL || note.value_depth <= max_depth);
    if (note.value_error == NULL) {
      g_autoptr(JsonNode) glib = json_tree_glib(text, size, &verdict);

      fuzz_assert(glib != NULL && json_same(root, glib));
    }
  } else {
    fuzz_assert(valid == -EBADMSG && r == -EBADMSG && root == NULL);
    fuzz_assert(verdict != NULL && error != NULL && strcmp(verdict, error) == 0);
    fuzz_assert(g_str_has_prefix(error, "line ") && g_utf8_validate(error, -1, NULL));
  }
  return 0;
}
