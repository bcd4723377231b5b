/* Inside the bounded parse (json-parse.c): the tree builder, and json-glib's own parser kept
 * for the fuzzer and the tests to compare it with. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

/* Builds the tree of data[0..len), text json_parse_validate() accepted with no note (no
 * \u0000, no unpaired surrogate escape, no integer beyond 64 bits), in one pass and without
 * recursion: the same tree as json-glib's immutable parser gives (sealed, members in their
 * order, a repeated member's last value kept in its first place), numbers with a fraction or
 * an exponent as doubles, other numbers as 64-bit integers. Never fails on such text. */
JsonNode *json_tree_build(const char *data, size_t len);

/* json-glib's parser over data[0..len), as json_parse_bounded_note() ran it before the
 * builder: for text the builder does not take, and for comparing the two. Returns NULL with
 * *ret_error (g_malloc'd) when json-glib refuses the text. */
JsonNode *json_tree_glib(const char *data, size_t len, char **ret_error);
