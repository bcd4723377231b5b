#include "ipc/initialize-result.h"

#include <glib.h>
#include <json-glib/json-glib.h>

#include "basic/vision-provider.h"
#include "formatters/format.h"
#include "ipc/read-images-params.h"
#include "ipc/read-params.h"

static void add_int(JsonBuilder *b, const char *name, int64_t v) {
  json_builder_set_member_name(b, name);
  json_builder_add_int_value(b, v);
}

static void add_read_capabilities(JsonBuilder *b) {
  static const char *const types[] = {"text", "image", "pdf", "notebook", "document"};
  const Formatter *f;

  json_builder_set_member_name(b, "read");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "types");
  json_builder_begin_array(b);
  for (size_t i = 0; i < G_N_ELEMENTS(types); i++)
    json_builder_add_string_value(b, types[i]);
  json_builder_end_array(b);
  add_int(b, "maxPaths", READ_MAX_PATHS);
  add_int(b, "defaultLimit", READ_DEFAULT_LIMIT);
  add_int(b, "maxAnswerBytes", (int64_t)READ_MAX_ANSWER_BYTES);
  json_builder_set_member_name(b, "formats");
  json_builder_begin_array(b);
  for (size_t i = 0; (f = format_at(i)) != NULL; i++)
    json_builder_add_string_value(b, f->name);
  json_builder_end_array(b);
  json_builder_end_object(b);
}

char *initialize_result_json(void) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object(b);
  json_builder_set_member_name(b, "serverInfo");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, "readerd");
  json_builder_set_member_name(b, "version");
  json_builder_add_string_value(b, READERD_VERSION);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "capabilities");
  json_builder_begin_object(b);
  add_read_capabilities(b);
  json_builder_set_member_name(b, "cancelRequest");
  json_builder_add_boolean_value(b, TRUE);
  /* readImages (docs/vision.md): whether a model is configured is the client's to say. */
  json_builder_set_member_name(b, "readImages");
  json_builder_begin_object(b);
  add_int(b, "maxPaths", READ_IMAGES_MAX_PATHS);
  json_builder_set_member_name(b, "providers");
  json_builder_begin_array(b);
  for (int p = 0; p < VISION_PROVIDER_COUNT; p++)
    json_builder_add_string_value(b, vision_provider_name((VisionProvider)p));
  json_builder_end_array(b);
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_end_object(b);
  root = json_builder_get_root(b);
  json_generator_set_root(gen, root);
  return json_generator_to_data(gen, NULL);
}
