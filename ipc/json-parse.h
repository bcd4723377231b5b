/* The one way readerd parses JSON it did not write: JSON-RPC lines, MCP messages, notebooks,
 * vision endpoints' answers. Pure, no I/O; the trees are json-glib's (JsonNode).
 *
 * json-glib has no depth limit (it recurses once per nesting level) and its GScanner lexer
 * accepts more than JSON: comments, single-quoted strings, hex numbers, NaN, bare names, data
 * after the value. A depth count of our own that read the text differently from json-glib (a
 * quote inside a comment) would count the wrong brackets. So the text first passes a strict
 * RFC 8259 validator (iterative, linear) that counts the depth as it checks the grammar, and
 * only text that passes is handed to json-glib: json-glib then sees plain JSON whose nesting is
 * exactly what was counted. Text that passed is then built into the tree directly, in one pass
 * (json-tree.c, the same tree as json-glib's parser gives, for about half its cost); json-glib's
 * parser is left only the rare text with a noted value below. Its own library (glib and
 * json-glib only) so that the readers and the vision client link it without the rest of
 * ipc/. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

/* No max_depth beyond this is honoured (json-glib's recursion stays far from the stack's end). */
#define JSON_PARSE_DEPTH_CAP 1024

/* What the validator changed in the copy json-glib parsed, because json-glib would not keep it
 * as sent: a \u0000 or an unpaired surrogate escape (replaced by \ufffd), an integer beyond 64
 * bits (json-glib wraps it). value_error is a static message or NULL; value_depth is the
 * nesting level of the shallowest such value (1: a member of the root). */
typedef struct {
  const char *value_error;
  unsigned value_depth;
} JsonParseNote;

/* Checks that data[0..len) is exactly one strict JSON value (RFC 8259: double-quoted strings of
 * valid UTF-8 with JSON's escapes only, JSON numbers, true/false/null, only space, tab, CR and
 * LF around tokens, no byte order mark) whose arrays and objects nest at
 * most max_depth levels (at most JSON_PARSE_DEPTH_CAP), then builds its tree (sealed, as
 * json-glib's immutable parser leaves it).
 * Returns 0 with the tree in *ret_root (json_node_unref it), or -EBADMSG with *ret_error, a
 * g_malloc'd reason that says where ("line 3, column 7: ..."), and *ret_root NULL. data need
 * not be NUL-terminated. ret_note (may be NULL) tells of values json-glib could not keep as
 * sent; they never make the parse fail. */
int json_parse_bounded_note(const char *data, size_t len, unsigned max_depth, JsonNode **ret_root,
                            JsonParseNote *ret_note, char **ret_error);

/* json_parse_bounded_note() without the note. */
int json_parse_bounded(const char *data, size_t len, unsigned max_depth, JsonNode **ret_root,
                       char **ret_error);

/* Only the validator: 0, or -EBADMSG with *ret_error (may be NULL) as above. No tree is built
 * and nothing is allocated on success. */
int json_parse_validate(const char *data, size_t len, unsigned max_depth, char **ret_error);
