/* JSON text for requests and from replies: quoting, path arrays, parsing. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

/* s as a JSON string literal, quotes included. g_malloc'd. */
char *rd_json_quote(const char *s);

/* A JSON array of the n strings. g_malloc'd. */
char *rd_json_paths(const char *const *paths, size_t n);

/* Parses JSON text; fails the test when it is not JSON. The caller unrefs it. */
JsonNode *rd_json_parse(const char *text, size_t len);
