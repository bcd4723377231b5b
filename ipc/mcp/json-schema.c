/* JSON Schema members written with a JsonBuilder: see json-schema.h. */
#include "ipc/mcp/json-schema.h"

static void member_string(JsonBuilder *b, const char *name, const char *value) {
  json_builder_set_member_name(b, name);
  json_builder_add_string_value(b, value);
}

static void member_int(JsonBuilder *b, const char *name, int64_t value) {
  json_builder_set_member_name(b, name);
  json_builder_add_int_value(b, value);
}

/* Opens name: {type: type, and the description unless NULL. */
static void property_begin(JsonBuilder *b, const char *name, const char *type,
                           const char *description) {
  json_builder_set_member_name(b, name);
  json_builder_begin_object(b);
  member_string(b, "type", type);
  if (description != NULL)
    member_string(b, "description", description);
}

void schema_integer(JsonBuilder *b, const char *name, int64_t min, int64_t max,
                    const char *description) {
  property_begin(b, name, "integer", description);
  if (min != SCHEMA_NO_LIMIT)
    member_int(b, "minimum", min);
  if (max != SCHEMA_NO_LIMIT)
    member_int(b, "maximum", max);
  json_builder_end_object(b);
}

void schema_string(JsonBuilder *b, const char *name, int64_t min_length, const char *description) {
  property_begin(b, name, "string", description);
  if (min_length > 0)
    member_int(b, "minLength", min_length);
  json_builder_end_object(b);
}

void schema_string_value(JsonBuilder *b, int64_t min_length) {
  json_builder_begin_object(b);
  member_string(b, "type", "string");
  if (min_length > 0)
    member_int(b, "minLength", min_length);
  json_builder_end_object(b);
}

void schema_enum(JsonBuilder *b, const char *name, const char *const *values,
                 const char *description) {
  property_begin(b, name, "string", description);
  json_builder_set_member_name(b, "enum");
  json_builder_begin_array(b);
  for (; *values != NULL; values++)
    json_builder_add_string_value(b, *values);
  json_builder_end_array(b);
  json_builder_end_object(b);
}

void schema_boolean(JsonBuilder *b, const char *name, const char *description) {
  property_begin(b, name, "boolean", description);
  json_builder_end_object(b);
}

void schema_required(JsonBuilder *b, const char *const *names) {
  json_builder_set_member_name(b, "required");
  json_builder_begin_array(b);
  for (; *names != NULL; names++)
    json_builder_add_string_value(b, *names);
  json_builder_end_array(b);
}

void schema_object_begin(JsonBuilder *b, const char *name, const char *description,
                         const char *const *required) {
  property_begin(b, name, "object", description);
  json_builder_set_member_name(b, "additionalProperties");
  json_builder_add_boolean_value(b, FALSE);
  if (required != NULL)
    schema_required(b, required);
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
}

void schema_object_end(JsonBuilder *b) {
  json_builder_end_object(b);
  json_builder_end_object(b);
}

void schema_array_begin(JsonBuilder *b, const char *name, int64_t min_items, int64_t max_items,
                        const char *description) {
  property_begin(b, name, "array", description);
  member_int(b, "minItems", min_items);
  member_int(b, "maxItems", max_items);
  json_builder_set_member_name(b, "items");
}

void schema_array_end(JsonBuilder *b) {
  json_builder_end_object(b);
}
