/* Small writers of JSON Schema with a JsonBuilder, for the MCP tools' input schemas
 * (ipc/mcp/mcp-tools.c): each adds one member to the object being built. Pure. */
#pragma once

#include <stdint.h>

#include <json-glib/json-glib.h>

/* No minimum or maximum. */
#define SCHEMA_NO_LIMIT INT64_MIN

/* name: {type: "integer", minimum, maximum, description}; a limit of SCHEMA_NO_LIMIT and a
 * NULL description are left out. */
void schema_integer(JsonBuilder *b, const char *name, int64_t min, int64_t max,
                    const char *description);

/* name: {type: "string", minLength, description}; min_length 0 and a NULL description are left
 * out. */
void schema_string(JsonBuilder *b, const char *name, int64_t min_length, const char *description);

/* {type: "string", minLength} as a value (an array's items, an anyOf's choice); min_length 0 is
 * left out. */
void schema_string_value(JsonBuilder *b, int64_t min_length);

/* name: {type: "string", enum: values (NULL-terminated), description}. */
void schema_enum(JsonBuilder *b, const char *name, const char *const *values,
                 const char *description);

/* name: {type: "boolean", description}. */
void schema_boolean(JsonBuilder *b, const char *name, const char *description);

/* Opens name: {type: "object", additionalProperties: false, description (unless NULL),
 * required (NULL-terminated, unless NULL), properties: {...; schema_object_end() closes it. */
void schema_object_begin(JsonBuilder *b, const char *name, const char *description,
                         const char *const *required);
void schema_object_end(JsonBuilder *b);

/* Opens name: {type: "array", minItems, maxItems, description, items: ...; the caller adds
 * the items' schema as a value, then calls schema_array_end(). */
void schema_array_begin(JsonBuilder *b, const char *name, int64_t min_items, int64_t max_items,
                        const char *description);
void schema_array_end(JsonBuilder *b);

/* required: [names...] (NULL-terminated). */
void schema_required(JsonBuilder *b, const char *const *names);
