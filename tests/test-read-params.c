/* The `read` params: defaults, every field's good and bad values, limits, page selections. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "formatters/format.h"
#include "ipc/json-parse.h"
#include "ipc/read-params.h"
#include "tests/lib/check-run.h"
#include "tests/lib/read-params-same.h"

/* The params parsed from their text, as the daemon parses a read line's (strict JSON without a
 * noted value only), must come out as from their tree: the same ReadParams, or the same error. */
static void parse_text_agrees(const char *json, int r, const ReadParams *p, const char *error) {
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *parse_error = NULL, *text_error = NULL;
  JsonParseNote note;
  ReadParams q;
  int s;

  if (json_parse_bounded_note(json, strlen(json), 128, &root, &note, &parse_error) < 0 ||
      note.value_error != NULL)
    return;
  read_params_init(&q);
  s = read_params_parse_json(json, strlen(json), &q, &text_error);
  ck_assert_msg(s == r, "%s: %d from the text, %d from the tree", json, s, r);
  ck_assert_msg(read_params_str_same(error, text_error), "%s: \"%s\" from the text, \"%s\"", json,
                text_error ? text_error : "", error ? error : "");
  ck_assert_msg(read_params_same(p, &q), "%s: not the same params from the text", json);
  read_params_clear(&q);
}

/* Parses params given as JSON text, through the tree, and checks the text's parse agrees. */
static int parse_json(const char *json, ReadParams *p, char **error) {
  g_autoptr(GError) gerror = NULL;
  g_autoptr(JsonNode) node = json_from_string(json, &gerror);
  g_autofree char *own = NULL;
  int r;

  ck_assert_msg(node != NULL, "bad test JSON %s: %s", json, gerror ? gerror->message : "");
  read_params_init(p);
  r = read_params_parse(node, p, error != NULL ? error : &own);
  parse_text_agrees(json, r, p, error != NULL ? *error : own);
  return r;
}

static void parse_ok(const char *json, ReadParams *p) {
  char *error = NULL;
  int r = parse_json(json, p, &error);

  ck_assert_msg(r == 0, "%s: %s", json, error ? error : "?");
  ck_assert_ptr_null(error);
}

static void assert_cleared(const ReadParams *p) {
  ck_assert_ptr_null(p->paths);
  ck_assert_uint_eq(p->n_paths, 0);
  ck_assert_ptr_null(p->cwd);
  ck_assert_int_eq(p->offset, 1);
  ck_assert_int_eq(p->limit, READ_DEFAULT_LIMIT);
  ck_assert(p->line_numbers);
  ck_assert_int_eq(p->max_dimension, READ_DEFAULT_MAX_DIMENSION);
  ck_assert_int_eq(p->max_total_image_bytes, READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES);
  ck_assert_str_eq(p->format, "xml");
  ck_assert_int_eq(p->image_detail, READ_IMAGE_DETAIL_AUTO);
  ck_assert_ptr_null(p->if_none_match);
  ck_assert_int_eq(p->image_tile, READ_IMAGE_TILE_AUTO);
}

/* Expects -EINVAL with a message starting with want_prefix, and the params left cleared. */
static void expect_invalid(const char *json, const char *want_prefix) {
  ReadParams p;
  char *error = NULL;
  int r = parse_json(json, &p, &error);

  ck_assert_msg(r == -EINVAL, "%s: accepted", json);
  ck_assert_msg(error && g_str_has_prefix(error, want_prefix), "%s: message \"%s\", want \"%s...\"",
                json, error ? error : "(null)", want_prefix);
  assert_cleared(&p);
  g_free(error);
}

/* {"paths":[{"path":"f", <member>}]}, expected invalid with "paths[0].<field>". */
static void expect_item_invalid(const char *member, const char *field) {
  g_autofree char *json = g_strdup_printf("{\"paths\":[{\"path\":\"f\",%s}]}", member);
  g_autofree char *prefix = g_strdup_printf("paths[0].%s ", field);

  expect_invalid(json, prefix);
}

static void expect_top_invalid(const char *member, const char *prefix) {
  g_autofree char *json = g_strdup_printf("{\"paths\":[\"f\"],%s}", member);

  expect_invalid(json, prefix);
}

/* expand: off by default (the contract), a boolean, or an object that turns it on. */
START_TEST(read_params_expand) {
  ReadParams p;
  char *err = NULL;

  parse_ok("{\"paths\":[\"a\"]}", &p);
  ck_assert(!p.expand.on);
  ck_assert_int_eq(p.expand.max_files, READ_DEFAULT_MAX_FILES);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"a\"],\"expand\":true}", &p);
  ck_assert(p.expand.on && !p.expand.ignored && !p.expand.binary);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"a\"],\"expand\":{\"maxFiles\":3,\"ignored\":true,\"binary\":true}}", &p);
  ck_assert(p.expand.on && p.expand.ignored && p.expand.binary);
  ck_assert_int_eq(p.expand.max_files, 3);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"a\"],\"expand\":{}}", &p);
  ck_assert(p.expand.on);
  read_params_clear(&p);
  ck_assert_int_eq(parse_json("{\"paths\":[\"a\"],\"expand\":{\"maxFiles\":0}}", &p, &err),
                   -EINVAL);
  ck_assert_str_eq(err, "expand.maxFiles must be an integer from 1 to 10000");
  g_free(err);
  ck_assert_int_eq(parse_json("{\"paths\":[\"a\"],\"expand\":1}", &p, &err), -EINVAL);
  ck_assert_str_eq(err, "expand must be a boolean or an object");
  g_free(err);
}
END_TEST

START_TEST(read_params_defaults) {
  ReadParams p;

  memset(&p, 0x5a, sizeof p);
  read_params_init(&p);
  assert_cleared(&p);
  ck_assert_int_eq(READ_DEFAULT_LIMIT, 2000);
  ck_assert_int_eq(READ_DEFAULT_MAX_DIMENSION, 1568);
}
END_TEST

START_TEST(read_params_minimal) {
  ReadParams p;

  parse_ok("{\"paths\":[\"src/a.c\"]}", &p);
  ck_assert_uint_eq(p.n_paths, 1);
  ck_assert_str_eq(p.paths[0].path, "src/a.c");
  ck_assert_int_eq(p.paths[0].offset, 0);
  ck_assert_int_eq(p.paths[0].limit, 0);
  ck_assert_ptr_null(p.paths[0].pages);
  ck_assert(!p.paths[0].render);
  ck_assert_ptr_null(p.paths[0].password);
  ck_assert_ptr_null(p.cwd);
  ck_assert_int_eq(p.offset, 1);
  ck_assert_int_eq(p.limit, READ_DEFAULT_LIMIT);
  ck_assert(p.line_numbers);
  ck_assert_int_eq(p.max_dimension, READ_DEFAULT_MAX_DIMENSION);
  read_params_clear(&p);
  assert_cleared(&p);
}
END_TEST

START_TEST(read_params_every_field) {
  ReadParams p;

  parse_ok("{\"paths\":[\"a.txt\",{\"path\":\"doc.pdf\",\"offset\":3,\"limit\":9,"
           "\"pages\":\"1,28-\",\"render\":true,\"password\":\"s3\\\"cr\"},"
           "{\"path\":\"\\u00fcn\\u00ef.txt\",\"render\":false,\"password\":\"\"},\"a.txt\"],"
           "\"cwd\":\"/work\",\"offset\":10,\"limit\":5,\"lineNumbers\":false,"
           "\"images\":{\"maxDimension\":800}}",
           &p);
  ck_assert_uint_eq(p.n_paths, 4);
  ck_assert_str_eq(p.paths[0].path, "a.txt");
  ck_assert_str_eq(p.paths[1].path, "doc.pdf");
  ck_assert_int_eq(p.paths[1].offset, 3);
  ck_assert_int_eq(p.paths[1].limit, 9);
  ck_assert_str_eq(p.paths[1].pages, "1,28-");
  ck_assert(p.paths[1].render);
  ck_assert_str_eq(p.paths[1].password, "s3\"cr");
  ck_assert_str_eq(p.paths[2].path, "\xc3\xbcn\xc3\xaf.txt");
  ck_assert(!p.paths[2].render);
  ck_assert_str_eq(p.paths[2].password, "");
  ck_assert_str_eq(p.paths[3].path, "a.txt");
  ck_assert_str_eq(p.cwd, "/work");
  ck_assert_int_eq(p.offset, 10);
  ck_assert_int_eq(p.limit, 5);
  ck_assert(!p.line_numbers);
  ck_assert_int_eq(p.max_dimension, 800);
  read_params_clear(&p);
  assert_cleared(&p);
}
END_TEST

/* A member expand or images does not take is refused by name: a misspelt option would
 * otherwise do nothing. Unknown params at the top stay ignored (newer clients). */
START_TEST(read_params_option_objects_refuse_unknown_members) {
  expect_top_invalid("\"expand\":{\"maxfiles\":3}",
                     "expand has no member \"maxfiles\" (it takes maxFiles, ignored, binary)");
  expect_top_invalid("\"expand\":{\"ignored\":true,\"hidden\":true}", "expand has no member \"hidden\"");
  expect_top_invalid("\"images\":{\"maxDimensions\":512}",
                     "images has no member \"maxDimensions\" (it takes maxDimension, "
                     "maxTotalBytes, tile, detail)");
}
END_TEST

START_TEST(read_params_nulls_and_unknown_members) {
  ReadParams p;

  parse_ok("{\"paths\":[{\"path\":\"a\",\"offset\":null,\"pages\":null,\"extra\":1}],"
           "\"cwd\":null,\"offset\":null,\"limit\":null,\"lineNumbers\":null,\"images\":null,"
           "\"format\":\"xml\",\"future\":{\"x\":[1]}}",
           &p);
  ck_assert_uint_eq(p.n_paths, 1);
  ck_assert_int_eq(p.paths[0].offset, 0);
  ck_assert_ptr_null(p.paths[0].pages);
  ck_assert_ptr_null(p.cwd);
  ck_assert_int_eq(p.offset, 1);
  ck_assert_int_eq(p.limit, READ_DEFAULT_LIMIT);
  ck_assert(p.line_numbers);
  read_params_clear(&p);

  parse_ok("{\"paths\":[\"a\"],\"images\":{}}", &p);
  ck_assert_int_eq(p.max_dimension, READ_DEFAULT_MAX_DIMENSION);
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_must_be_object) {
  ReadParams p;
  char *error = NULL;

  read_params_init(&p);
  ck_assert_int_eq(read_params_parse(NULL, &p, &error), -EINVAL);
  ck_assert_str_eq(error, "params must be an object");
  g_free(error);
  assert_cleared(&p);
  expect_invalid("[[\"a\"]]", "params ");
  expect_invalid("\"a\"", "params ");
  expect_invalid("null", "params ");
}
END_TEST

START_TEST(read_params_paths_required) {
  expect_invalid("{}", "paths ");
  expect_invalid("{\"paths\":null}", "paths ");
  expect_invalid("{\"paths\":\"small.txt\"}", "paths ");
  expect_invalid("{\"paths\":[]}", "paths ");
  expect_invalid("{\"paths\":{\"path\":\"a\"}}", "paths ");
  expect_invalid("{\"cwd\":\"/\"}", "paths ");
}
END_TEST

START_TEST(read_params_bad_path_items) {
  static const char *const items[] = {"42", "\"\"", "null", "true", "[\"a\"]", "1.5"};

  for (size_t i = 0; i < G_N_ELEMENTS(items); i++) {
    g_autofree char *json = g_strdup_printf("{\"paths\":[\"ok\",%s]}", items[i]);

    expect_invalid(json, "paths[1] ");
  }
  expect_invalid("{\"paths\":[{}]}", "paths[0].path ");
  expect_invalid("{\"paths\":[{\"path\":\"\"}]}", "paths[0].path ");
  expect_invalid("{\"paths\":[{\"path\":5}]}", "paths[0].path ");
  expect_invalid("{\"paths\":[{\"path\":null}]}", "paths[0].path ");
  expect_invalid("{\"paths\":[{\"path\":[\"a\"]}]}", "paths[0].path ");
}
END_TEST

START_TEST(read_params_error_names_the_item) {
  ReadParams p;
  char *error = NULL;

  ck_assert_int_eq(parse_json("{\"paths\":[\"a\",\"b\",\"c\",{\"path\":\"d\",\"offset\":0}],"
                              "\"cwd\":\"/\"}",
                              &p, &error),
                   -EINVAL);
  ck_assert_str_eq(error, "paths[3].offset must be an integer >= 1");
  assert_cleared(&p);
  g_free(error);
}
END_TEST

START_TEST(read_params_item_offset_and_limit) {
  static const char *const bad[] = {"0", "-1", "1.5", "1.0", "\"2\"", "true", "[1]", "{}"};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *offset = g_strdup_printf("\"offset\":%s", bad[i]);
    g_autofree char *limit = g_strdup_printf("\"limit\":%s", bad[i]);

    expect_item_invalid(offset, "offset");
    expect_item_invalid(limit, "limit");
  }
  parse_ok("{\"paths\":[{\"path\":\"f\",\"offset\":1,\"limit\":9223372036854775807}]}", &p);
  ck_assert_int_eq(p.paths[0].offset, 1);
  ck_assert(p.paths[0].limit == INT64_MAX);
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_tail_and_column) {
  static const char *const bad[] = {"0", "-1", "1.5", "\"2\"", "true", "[1]", "{}"};
  int64_t offset, column, tail;
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *tail_member = g_strdup_printf("\"tail\":%s", bad[i]);
    g_autofree char *column_member = g_strdup_printf("\"column\":%s", bad[i]);
    g_autofree char *top = g_strdup_printf("{\"paths\":[\"f\"],\"tail\":%s}", bad[i]);

    expect_item_invalid(tail_member, "tail");
    expect_item_invalid(column_member, "column");
    expect_invalid(top, "tail must be an integer >= 1");
  }
  expect_invalid("{\"paths\":[\"f\"],\"tail\":5,\"offset\":2}",
                 "tail and offset cannot be combined");
  expect_invalid("{\"paths\":[\"f\"],\"offset\":2,\"tail\":5}",
                 "tail and offset cannot be combined");
  expect_invalid("{\"paths\":[\"a\",{\"path\":\"f\",\"tail\":5,\"offset\":2}]}",
                 "paths[1]: tail and offset cannot be combined");
  expect_invalid("{\"paths\":[{\"path\":\"f\",\"tail\":5,\"column\":2}]}",
                 "paths[0]: tail and column cannot be combined");
  expect_invalid("{\"paths\":[\"a\",\"b\",{\"path\":\"f\",\"column\":2}],\"tail\":5}",
                 "paths[2]: tail and column cannot be combined");

  /* The path's own settings over the request's: its offset sets the request's tail aside, its
   * tail the request's offset. */
  parse_ok("{\"paths\":[\"a\",{\"path\":\"b\",\"offset\":7,\"column\":2001},"
           "{\"path\":\"c\",\"tail\":3}],\"tail\":10}",
           &p);
  read_params_window(&p, 0, &offset, &column, &tail);
  ck_assert(tail == 10 && column == 1);
  read_params_window(&p, 1, &offset, &column, &tail);
  ck_assert(tail == 0 && offset == 7 && column == 2001);
  read_params_window(&p, 2, &offset, &column, &tail);
  ck_assert(tail == 3);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"a\",{\"path\":\"c\",\"tail\":3}],\"offset\":4}", &p);
  read_params_window(&p, 0, &offset, &column, &tail);
  ck_assert(tail == 0 && offset == 4);
  read_params_window(&p, 1, &offset, &column, &tail);
  ck_assert(tail == 3);
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_item_pdf_members) {
  static const char *const bad_pages[] = {"\"\"",     "\"0\"", "\"3-2\"",   "\"-5\"",
                                          "\"1,,2\"", "\"a\"", "\"1-2-3\"", "\"1 - 3\""};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad_pages); i++) {
    g_autofree char *member = g_strdup_printf("\"pages\":%s", bad_pages[i]);

    expect_item_invalid(member, "pages");
  }
  expect_item_invalid("\"pages\":5", "pages");
  expect_item_invalid("\"pages\":[1,2]", "pages");
  expect_item_invalid("\"render\":\"yes\"", "render");
  expect_item_invalid("\"render\":1", "render");
  expect_item_invalid("\"password\":5", "password");
  expect_item_invalid("\"password\":{}", "password");

  parse_ok("{\"paths\":[{\"path\":\"d.pdf\",\"pages\":\" 2-5 , 7 \",\"render\":false}]}", &p);
  ck_assert_str_eq(p.paths[0].pages, " 2-5 , 7 ");
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_top_level_members) {
  static const char *const bad_numbers[] = {"0", "-3", "2.5", "\"10\"", "false"};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad_numbers); i++) {
    g_autofree char *offset = g_strdup_printf("\"offset\":%s", bad_numbers[i]);
    g_autofree char *limit = g_strdup_printf("\"limit\":%s", bad_numbers[i]);

    expect_top_invalid(offset, "offset ");
    expect_top_invalid(limit, "limit ");
  }
  expect_top_invalid("\"cwd\":\"\"", "cwd ");
  expect_top_invalid("\"cwd\":5", "cwd ");
  expect_top_invalid("\"cwd\":[\"/\"]", "cwd ");
  expect_top_invalid("\"lineNumbers\":\"false\"", "lineNumbers ");
  expect_top_invalid("\"lineNumbers\":0", "lineNumbers ");

  parse_ok("{\"paths\":[\"f\"],\"offset\":2000000,\"limit\":1,\"lineNumbers\":true}", &p);
  ck_assert_int_eq(p.offset, 2000000);
  ck_assert_int_eq(p.limit, 1);
  ck_assert(p.line_numbers);
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_images) {
  static const char *const bad_dims[] = {"15", "8001", "0", "-16", "1568.5", "\"100\"", "true"};
  ReadParams p;

  expect_top_invalid("\"images\":5", "images ");
  expect_top_invalid("\"images\":[]", "images ");
  expect_top_invalid("\"images\":\"big\"", "images ");
  for (size_t i = 0; i < G_N_ELEMENTS(bad_dims); i++) {
    g_autofree char *member = g_strdup_printf("\"images\":{\"maxDimension\":%s}", bad_dims[i]);

    expect_top_invalid(member, "images.maxDimension ");
  }
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"maxDimension\":16}}", &p);
  ck_assert_int_eq(p.max_dimension, READ_MIN_MAX_DIMENSION);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"maxDimension\":8000}}", &p);
  ck_assert_int_eq(p.max_dimension, READ_MAX_MAX_DIMENSION);
  ck_assert_int_eq(p.max_total_image_bytes, READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES);
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_images_max_total_bytes) {
  static const char *const bad[] = {"-1", "1073741825", "1.5", "\"1\"", "false", "[]"};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *member = g_strdup_printf("\"images\":{\"maxTotalBytes\":%s}", bad[i]);

    expect_top_invalid(member, "images.maxTotalBytes ");
  }
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"maxTotalBytes\":0}}", &p);
  ck_assert_int_eq(p.max_total_image_bytes, 0);
  ck_assert_int_eq(p.max_dimension, READ_DEFAULT_MAX_DIMENSION);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"maxDimension\":2400,\"maxTotalBytes\":1073741824}}",
           &p);
  ck_assert_int_eq(p.max_total_image_bytes, READ_MAX_MAX_TOTAL_IMAGE_BYTES);
  ck_assert_int_eq(p.max_dimension, 2400);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"maxTotalBytes\":null}}", &p);
  ck_assert_int_eq(p.max_total_image_bytes, READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES);
  read_params_clear(&p);
}
END_TEST

START_TEST(read_params_format) {
  static const char *const bad[] = {"\"XML\"", "\"json\"", "\"\"",      "\"xml \"",
                                    "1",       "true",     "[\"xml\"]", "{}"};
  static const char *const good[] = {"xml", "anthropic", "openai", "toolresult", "text", "mcp"};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *member = g_strdup_printf("\"format\":%s", bad[i]);

    /* The message lists every format the formatters have. */
    expect_top_invalid(member, "format must be one of \"xml\", \"anthropic\", \"openai\", "
                               "\"toolresult\", \"text\", \"mcp\"");
  }
  parse_ok("{\"paths\":[\"f\"]}", &p);
  ck_assert_str_eq(p.format, "xml");
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"f\"],\"format\":null}", &p);
  ck_assert_str_eq(p.format, "xml");
  read_params_clear(&p);
  for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
    g_autofree char *json = g_strdup_printf("{\"paths\":[\"f\"],\"format\":\"%s\"}", good[i]);

    parse_ok(json, &p);
    ck_assert_str_eq(p.format, good[i]);
    /* The formatter's own name, not a copy of the param's. */
    ck_assert_ptr_eq(p.format, format_get(good[i])->name);
    read_params_clear(&p);
    ck_assert_str_eq(p.format, "xml");
  }
}
END_TEST

START_TEST(read_params_images_detail) {
  static const char *const bad[] = {"\"medium\"", "\"LOW\"", "\"\"", "0", "false"};
  static const char *const names[] = {"auto", "low", "high"};
  static const ReadImageDetail want[] = {READ_IMAGE_DETAIL_AUTO, READ_IMAGE_DETAIL_LOW,
                                         READ_IMAGE_DETAIL_HIGH};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *member = g_strdup_printf("\"images\":{\"detail\":%s}", bad[i]);

    expect_top_invalid(member, "images.detail must be one of ");
  }
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"maxDimension\":100}}", &p);
  ck_assert_int_eq(p.image_detail, READ_IMAGE_DETAIL_AUTO);
  read_params_clear(&p);
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *json =
        g_strdup_printf("{\"paths\":[\"f\"],\"images\":{\"detail\":\"%s\"}}", names[i]);

    parse_ok(json, &p);
    ck_assert_int_eq(p.image_detail, want[i]);
    ck_assert_str_eq(read_image_detail_name(p.image_detail), names[i]);
    read_params_clear(&p);
    ck_assert_int_eq(p.image_detail, READ_IMAGE_DETAIL_AUTO);
  }
}
END_TEST

START_TEST(read_params_images_tile) {
  static const char *const bad[] = {"\"yes\"", "\"Always\"", "\"\"", "1", "true", "[]"};
  static const char *const names[] = {"auto", "never", "always"};
  static const ReadImageTile want[] = {READ_IMAGE_TILE_AUTO, READ_IMAGE_TILE_NEVER,
                                       READ_IMAGE_TILE_ALWAYS};
  ReadParams p;

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *member = g_strdup_printf("\"images\":{\"tile\":%s}", bad[i]);

    expect_top_invalid(member, "images.tile must be one of \"auto\", \"never\", \"always\"");
  }
  parse_ok("{\"paths\":[\"f\"],\"images\":{\"tile\":null}}", &p);
  ck_assert_int_eq(p.image_tile, READ_IMAGE_TILE_AUTO);
  read_params_clear(&p);
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *json =
        g_strdup_printf("{\"paths\":[\"f\"],\"images\":{\"tile\":\"%s\"}}", names[i]);
    ReadImageTile t;

    parse_ok(json, &p);
    ck_assert_int_eq(p.image_tile, want[i]);
    ck_assert_int_eq(read_image_tile_from_name(names[i], &t), 0);
    ck_assert_int_eq(t, want[i]);
    read_params_clear(&p);
    ck_assert_int_eq(p.image_tile, READ_IMAGE_TILE_AUTO);
  }
  {
    ReadImageTile t = READ_IMAGE_TILE_NEVER;

    ck_assert_int_eq(read_image_tile_from_name(NULL, &t), -EINVAL);
    ck_assert_int_eq(read_image_tile_from_name("NEVER", &t), -EINVAL);
    ck_assert_int_eq(t, READ_IMAGE_TILE_NEVER);
  }
}
END_TEST

/* {"paths":["p0","p1",...]} with n paths. */
static char *many_paths(size_t n) {
  GString *s = g_string_new("{\"paths\":[");

  for (size_t i = 0; i < n; i++)
    g_string_append_printf(s, "%s\"p%zu\"", i ? "," : "", i);
  g_string_append(s, "]}");
  return g_string_free(s, FALSE);
}

START_TEST(read_params_path_count_limit) {
  g_autofree char *max = many_paths(READ_MAX_PATHS);
  g_autofree char *over = many_paths(READ_MAX_PATHS + 1);
  ReadParams p;

  ck_assert_int_eq(READ_MAX_PATHS, 10000);
  parse_ok(max, &p);
  ck_assert_uint_eq(p.n_paths, READ_MAX_PATHS);
  ck_assert_str_eq(p.paths[READ_MAX_PATHS - 1].path, "p9999");
  read_params_clear(&p);
  expect_invalid(over, "paths ");
}
END_TEST

START_TEST(read_params_failure_after_partial_fill) {
  /* cwd and two paths are filled before the error: all of it is released (ASan checks). */
  expect_invalid("{\"paths\":[\"a\",{\"path\":\"b\",\"pages\":\"1\",\"password\":\"x\"},"
                 "{\"path\":\"c\",\"render\":\"no\"}],\"cwd\":\"/\"}",
                 "paths[2].render ");
  expect_invalid("{\"paths\":[\"a\"],\"cwd\":\"/tmp\",\"images\":{\"maxDimension\":1}}",
                 "images.maxDimension ");
}
END_TEST

START_TEST(read_params_error_is_optional) {
  g_autoptr(JsonNode) node = json_from_string("{\"paths\":[]}", NULL);
  ReadParams p;

  read_params_init(&p);
  ck_assert_int_eq(read_params_parse(node, &p, NULL), -EINVAL);
  assert_cleared(&p);
}
END_TEST

START_TEST(read_params_clear_null) {
  read_params_clear(NULL);
}
END_TEST

START_TEST(read_params_pages_syntax) {
  static const char *const good[] = {"1",     "3",          "2-5",           "5-5",
                                     "1,28-", "28-",        " 1 , 2-3 ,4- ", "007",
                                     "1,1,1", "2147483647", "1-2147483647",  "10-12,3"};
  static const char *const bad[] = {"",
                                    " ",
                                    "0",
                                    "0-3",
                                    "3-2",
                                    "-5",
                                    "-",
                                    "1-2-3",
                                    "1,,2",
                                    "1,",
                                    ",1",
                                    "a",
                                    "1 - 3",
                                    "1 -3",
                                    "1.5",
                                    "+1",
                                    "2147483648",
                                    "1-2147483648",
                                    "99999999999999999999",
                                    "1\t",
                                    "1;2",
                                    "1-a",
                                    "1 2",
                                    "٣"};

  for (size_t i = 0; i < G_N_ELEMENTS(good); i++)
    ck_assert_msg(read_params_pages_valid(good[i]), "\"%s\" refused", good[i]);
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    ck_assert_msg(!read_params_pages_valid(bad[i]), "\"%s\" accepted", bad[i]);
  ck_assert(!read_params_pages_valid(NULL));
}
END_TEST

/* ifNoneMatch: paths to etags, looked up by the path as given; bad shapes name the field. */
START_TEST(read_params_if_none_match_paths) {
  ReadParams p;

  parse_ok("{\"paths\":[\"a\",\"./a\"],\"ifNoneMatch\":{\"a\":\"1-2-3-4\",\"b\":\"5-6-7-8\"}}", &p);
  ck_assert_str_eq(read_params_if_none_match(&p, "a"), "1-2-3-4");
  ck_assert_str_eq(read_params_if_none_match(&p, "b"), "5-6-7-8");
  ck_assert_ptr_null(read_params_if_none_match(&p, "./a"));
  ck_assert_ptr_null(read_params_if_none_match(&p, NULL));
  read_params_clear(&p);
  assert_cleared(&p);
  parse_ok("{\"paths\":[\"a\"],\"ifNoneMatch\":null}", &p);
  ck_assert_ptr_null(read_params_if_none_match(&p, "a"));
  read_params_clear(&p);
  expect_top_invalid("\"ifNoneMatch\":[\"a\"]", "ifNoneMatch must be an object");
  expect_top_invalid("\"ifNoneMatch\":\"a\"", "ifNoneMatch must be an object");
  expect_top_invalid("\"ifNoneMatch\":{\"a\":1}", "ifNoneMatch values must be");
  expect_top_invalid("\"ifNoneMatch\":{\"a\":\"\"}", "ifNoneMatch values must be");
}
END_TEST

START_TEST(read_params_budget_and_plan) {
  static const char *const bad_tokens[] = {"0",    "-5",   "1.5",        "\"100\"",
                                           "true", "null", "1000000001", "[100]"};
  ReadParams p;
  char *error = NULL;

  for (size_t i = 0; i < G_N_ELEMENTS(bad_tokens); i++) {
    g_autofree char *json =
        g_strdup_printf("{\"paths\":[\"a\"],\"budget\":{\"tokens\":%s}}", bad_tokens[i]);

    read_params_init(&p);
    ck_assert_int_eq(parse_json(json, &p, &error), -EINVAL);
    ck_assert_msg(g_str_has_prefix(error, "budget.tokens must be an integer >= 1"), "%s", error);
    assert_cleared(&p);
    g_clear_pointer(&error, g_free);
  }
  read_params_init(&p);
  ck_assert_int_eq(parse_json("{\"paths\":[\"a\"],\"budget\":{}}", &p, &error), -EINVAL);
  ck_assert(g_str_has_prefix(error, "budget.tokens must be an integer >= 1"));
  g_clear_pointer(&error, g_free);
  read_params_init(&p);
  ck_assert_int_eq(parse_json("{\"paths\":[\"a\"],\"budget\":5000}", &p, &error), -EINVAL);
  ck_assert(g_str_has_prefix(error, "budget must be an object"));
  g_clear_pointer(&error, g_free);
  read_params_init(&p);
  ck_assert_int_eq(parse_json("{\"paths\":[\"a\"],\"plan\":1}", &p, &error), -EINVAL);
  ck_assert_str_eq(error, "plan must be a boolean");
  g_clear_pointer(&error, g_free);

  parse_ok("{\"paths\":[\"a\"]}", &p);
  ck_assert_int_eq(p.budget_tokens, 0);
  ck_assert(!p.plan);
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"a\"],\"budget\":{\"tokens\":25000},\"plan\":true}", &p);
  ck_assert_int_eq(p.budget_tokens, 25000);
  ck_assert(p.plan);
  read_params_clear(&p);
}
END_TEST

/* encoding, for the request and per path: any name iconv knows, lowercased and interned;
 * anything else refused, naming the field and the name. */
START_TEST(read_params_encoding_names) {
  ReadParams p;

  parse_ok("{\"paths\":[\"a\",{\"path\":\"b\",\"encoding\":\"Shift_JIS\"}],"
           "\"encoding\":\"ISO-8859-2\"}",
           &p);
  ck_assert_str_eq(p.encoding, "iso-8859-2");
  ck_assert_ptr_eq(p.encoding, g_intern_string("iso-8859-2"));
  ck_assert_ptr_null(p.paths[0].encoding);
  ck_assert_str_eq(p.paths[1].encoding, "shift_jis");
  read_params_clear(&p);
  parse_ok("{\"paths\":[\"a\"],\"encoding\":null}", &p);
  ck_assert_ptr_null(p.encoding);
  read_params_clear(&p);
  expect_invalid("{\"paths\":[\"a\"],\"encoding\":\"klingon\"}",
                 "encoding must be a character set iconv knows, such as \"iso-8859-2\", \"gbk\", "
                 "\"shift_jis\" or \"utf-16le\"; \"klingon\" is not one");
  expect_invalid("{\"paths\":[\"a\"],\"encoding\":\"utf-8//TRANSLIT\"}", "encoding must be");
  expect_invalid("{\"paths\":[\"a\"],\"encoding\":\"\"}", "encoding must be");
  expect_invalid("{\"paths\":[\"a\"],\"encoding\":7}", "encoding must be");
  expect_invalid("{\"paths\":[\"a\",{\"path\":\"b\",\"encoding\":\"nope\"}]}",
                 "paths[1].encoding must be a character set iconv knows");
}
END_TEST

/* pathBytes names a path by its bytes; it goes alone, and must be a spelling. */
START_TEST(read_params_path_bytes) {
  ReadParams p;

  parse_ok("{\"paths\":[{\"pathBytes\":\"dir/a\\\\xff\\\\\\\\.txt\",\"limit\":3}]}", &p);
  ck_assert_str_eq(p.paths[0].path, "dir/a\xff\\.txt");
  ck_assert_int_eq(p.paths[0].limit, 3);
  read_params_clear(&p);
  expect_invalid("{\"paths\":[{\"pathBytes\":\"a\\\\x0\"}]}", "paths[0].pathBytes must be");
  expect_invalid("{\"paths\":[{\"path\":\"a\",\"pathBytes\":\"a\"}]}",
                 "paths[0]: path and pathBytes cannot be combined");
}
END_TEST

static Suite *read_params_suite(void) {
  Suite *s = suite_create("read-params");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, read_params_defaults);
  tcase_add_test(tc, read_params_if_none_match_paths);
  tcase_add_test(tc, read_params_expand);
  tcase_add_test(tc, read_params_minimal);
  tcase_add_test(tc, read_params_every_field);
  tcase_add_test(tc, read_params_nulls_and_unknown_members);
  tcase_add_test(tc, read_params_option_objects_refuse_unknown_members);
  tcase_add_test(tc, read_params_must_be_object);
  tcase_add_test(tc, read_params_paths_required);
  tcase_add_test(tc, read_params_bad_path_items);
  tcase_add_test(tc, read_params_error_names_the_item);
  tcase_add_test(tc, read_params_item_offset_and_limit);
  tcase_add_test(tc, read_params_tail_and_column);
  tcase_add_test(tc, read_params_item_pdf_members);
  tcase_add_test(tc, read_params_top_level_members);
  tcase_add_test(tc, read_params_images);
  tcase_add_test(tc, read_params_images_max_total_bytes);
  tcase_add_test(tc, read_params_format);
  tcase_add_test(tc, read_params_images_detail);
  tcase_add_test(tc, read_params_images_tile);
  tcase_add_test(tc, read_params_path_count_limit);
  tcase_add_test(tc, read_params_failure_after_partial_fill);
  tcase_add_test(tc, read_params_error_is_optional);
  tcase_add_test(tc, read_params_clear_null);
  tcase_add_test(tc, read_params_pages_syntax);
  tcase_add_test(tc, read_params_budget_and_plan);
  tcase_add_test(tc, read_params_encoding_names);
  tcase_add_test(tc, read_params_path_bytes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(read_params_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
