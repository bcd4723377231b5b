/* Inside the bounded parse (json-parse.c): the tree builder, and json-glib's own parser kept
 * for the fuzzer and the tests to compare it with. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

#include "ipc/json-parse.h"

/* Builds the tree of data[0..len), text json_parse_validate() accepted with no note (no
 * \u0000, no unpaired surrogate escape, no integer beyond 64 bits), in one pass and without
 * recursion: the same tree as json-glib's immutable parser gives (sealed, members in their
 * order, a repeated member's last value kept in its first place), numbers with a fraction or
 * an exponent as doubles, other numbers as 64-bit integers. Never fails on such text. */
JsonNode *json_tree_build(const char *data, size_t len);

/* json_tree_build() without the member `name` of the root object: its value is not built, and
 * where it is in data is set in *ret_at and *ret_len (the last one when the member repeats; a
 * length of 0 when the root has no such member). The tree is not sealed, so that the caller
 * may add to it (json_node_seal it then). */
JsonNode *json_tree_build_except(const char *data, size_t len, const char *name, size_t *ret_at,
                                 size_t *ret_len);

/* The string of validated text s[0..len) whose opening quote is at s[i], decoded into out
 * (emptied first); returns the index after its closing quote. */
size_t json_tree_string(const char *s, size_t len, size_t i, GString *out);

/* Validates data as json_parse_bounded_note() does and builds its tree without the root member
 * `name` as json_tree_build_except() does (*ret_len 0: no such member). Text with a noted value
 * is parsed whole by json-glib instead, `name` included (*ret_len 0), into a sealed tree; the
 * builder's tree is not sealed (json_node_seal it once complete). */
int json_parse_bounded_except(const char *data, size_t len, unsigned max_depth, const char *name,
                              JsonNode **ret_root, size_t *ret_at, size_t *ret_len,
                              JsonParseNote *ret_note, char **ret_error);

/* json-glib's parser over data[0..len), as json_parse_bounded_note() ran it before the
 * builder: for text the builder does not take, and for comparing the two. Returns NULL with
 * *ret_error (g_malloc'd) when json-glib refuses the text. */
JsonNode *json_tree_glib(const char *data, size_t len, char **ret_error);
