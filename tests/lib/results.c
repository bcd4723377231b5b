/* Read results and access to their parts: see results.h. */
#include "tests/lib/results.h"

#include <string.h>

#include <check.h>

#include "tests/lib/files.h"
#include "tests/lib/json-text.h"
#include "tests/lib/xml-check.h"
#include "tests/lib/rd-internal.h"

static RdResult *result_from_doc(xmlDocPtr doc) {
  RdResult *r = g_new0(RdResult, 1);
  r->doc = doc;
  r->contents = g_ptr_array_new();
  xmlNodePtr root = xmlDocGetRootElement(doc);
  ck_assert_msg(root && strcmp((const char *)root->name, "ReadResults") == 0,
                "the root element is not ReadResults");
  r->notices = g_ptr_array_new();
  for (xmlNodePtr n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    /* <Notice> elements (an expansion's) sit between the <Content> elements. */
    if (strcmp((const char *)n->name, "Notice") == 0) {
      g_ptr_array_add(r->notices, n);
    } else if (strcmp((const char *)n->name, "Omitted") == 0) {
      ck_assert_msg(r->summary == NULL, "more than one <Omitted> summary");
      r->summary = n;
    } else {
      ck_assert_msg(r->summary == NULL, "a <Content> after the <Omitted> summary");
      g_ptr_array_add(r->contents, n);
    }
  }
  return r;
}

RdResult *rd_result_from_xml(const char *xml, size_t len) {
  return result_from_doc(rd_xml_parse_valid(xml, len));
}

static JsonArray *array_member(JsonObject *o, const char *name) {
  JsonNode *n = json_object_get_member(o, name);
  ck_assert_msg(n && JSON_NODE_HOLDS_ARRAY(n), "the result's %s is not an array", name);
  return json_node_get_array(n);
}

static RdResult *result_from_object(JsonNode *msg, JsonObject *result) {
  JsonNode *xn = json_object_get_member(result, "xml");
  ck_assert_msg(xn && JSON_NODE_HOLDS_VALUE(xn) && json_node_get_value_type(xn) == G_TYPE_STRING,
                "the result has no xml string");
  const char *xml = json_node_get_string(xn);
  RdResult *r = rd_result_from_xml(xml, strlen(xml));
  r->msg = msg;
  r->result = result;
  r->files = array_member(result, "files");
  r->images = array_member(result, "images");
  ck_assert_msg(json_object_has_member(result, "bytes") && json_object_has_member(result, "lines"),
                "the result lacks bytes or lines");
  if (r->summary != NULL) {
    /* The summary counts every entry past the <Content> elements, and names the first. */
    xmlChar *files = xmlGetProp(r->summary, (const xmlChar *)"files");
    xmlChar *first = xmlGetProp(r->summary, (const xmlChar *)"first");
    JsonObject *o = json_object_get_object_member(result, "omitted");
    guint n = (guint)g_ascii_strtoull((const char *)files, NULL, 10);

    ck_assert_msg(o != NULL, "an <Omitted> summary but no omitted member");
    ck_assert_int_eq(json_object_get_int_member(o, "files"), n);
    ck_assert_msg(json_array_get_length(r->files) == r->contents->len + n,
                  "files has %u entries but the xml %u Content elements and %u summarized",
                  json_array_get_length(r->files), r->contents->len, n);
    ck_assert_str_eq(json_object_get_string_member(o, "first"), (const char *)first);
    ck_assert_str_eq(json_object_get_string_member(
                         json_array_get_object_element(r->files, r->contents->len), "path"),
                     (const char *)first);
    xmlFree(files);
    xmlFree(first);
  } else {
    ck_assert_msg(json_array_get_length(r->files) == r->contents->len,
                  "files has %u entries but the xml %u Content elements",
                  json_array_get_length(r->files), r->contents->len);
    ck_assert_msg(!json_object_has_member(result, "omitted"), "omitted but no <Omitted>");
  }
  rd_result_check_mirror(r);
  return r;
}

RdResult *rd_result_new(JsonNode *msg) {
  JsonObject *o = json_node_get_object(msg);
  if (json_object_has_member(o, "error")) {
    char *s = json_to_string(msg, FALSE);
    ck_abort_msg("expected a read result, got an error: %.400s", s);
  }
  JsonNode *res = json_object_get_member(o, "result");
  ck_assert_msg(res && JSON_NODE_HOLDS_OBJECT(res), "the result is not an object");
  return result_from_object(msg, json_node_get_object(res));
}

RdResult *rd_result_from_json(const char *json, size_t len) {
  JsonNode *msg = rd_json_parse(json, len);
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(msg), "--json output is not an object");
  return result_from_object(msg, json_node_get_object(msg));
}

void rd_result_free(RdResult *r) {
  if (!r)
    return;
  if (r->doc)
    xmlFreeDoc(r->doc);
  if (r->contents)
    g_ptr_array_free(r->contents, TRUE);
  if (r->notices)
    g_ptr_array_free(r->notices, TRUE);
  if (r->msg)
    json_node_unref(r->msg);
  g_free(r);
}

RdResult *rd_read(RdConn *c, const char *params) {
  return rd_result_new(rd_conn_call(c, "read", params));
}

RdResult *rd_read_paths(RdConn *c, const char *const *paths, size_t n, const char *extra) {
  char *arr = rd_json_paths(paths, n);
  char *params = g_strdup_printf("{\"paths\":%s%s%s}", arr, extra ? "," : "", extra ? extra : "");
  RdResult *r = rd_read(c, params);
  g_free(params);
  g_free(arr);
  return r;
}

JsonObject *rd_file(RdResult *r, guint i) {
  ck_assert_msg(r->files && i < json_array_get_length(r->files), "no files[%u]", i);
  JsonNode *n = json_array_get_element(r->files, i);
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(n), "files[%u] is not an object", i);
  return json_node_get_object(n);
}

int64_t rd_file_int(RdResult *r, guint i, const char *member) {
  JsonNode *n = json_object_get_member(rd_file(r, i), member);
  ck_assert_msg(n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64,
                "files[%u].%s is missing or not an integer", i, member);
  return json_node_get_int(n);
}

const char *rd_file_str(RdResult *r, guint i, const char *member) {
  JsonNode *n = json_object_get_member(rd_file(r, i), member);
  if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

bool rd_file_true(RdResult *r, guint i, const char *member) {
  JsonNode *n = json_object_get_member(rd_file(r, i), member);
  return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_BOOLEAN &&
         json_node_get_boolean(n);
}

xmlNodePtr rd_content(RdResult *r, guint i) {
  ck_assert_msg(i < r->contents->len, "no Content element %u", i);
  xmlNodePtr n = g_ptr_array_index(r->contents, i);
  ck_assert_msg(strcmp((const char *)n->name, "Content") == 0, "element %u is <%s>, not Content", i,
                n->name);
  return n;
}

char *rd_attr(RdResult *r, int i, const char *name) {
  xmlNodePtr n = i < 0 ? xmlDocGetRootElement(r->doc) : rd_content(r, (guint)i);
  xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
  char *s = v ? g_strdup((const char *)v) : NULL;
  xmlFree(v);
  return s;
}

char *rd_text(RdResult *r, guint i) {
  xmlChar *v = xmlNodeGetContent(rd_content(r, i));
  const char *s = v ? (const char *)v : "";
  char *t = g_strdup(s[0] == '\n' ? s + 1 : s);
  xmlFree(v);
  return t;
}

char **rd_text_lines(RdResult *r, guint i) {
  char *t = rd_text(r, i);
  char **lines = rd_split_lines(t, strlen(t));
  g_free(t);
  return lines;
}

GBytes *rd_image_bytes(RdResult *r, guint k) {
  ck_assert_msg(k < json_array_get_length(r->images), "no images[%u]", k);
  JsonObject *img = json_array_get_object_element(r->images, k);
  const char *data = json_object_get_string_member(img, "data");
  ck_assert_msg(data != NULL, "images[%u] has no data", k);
  size_t len = strlen(data);
  ck_assert_msg(len % 4 == 0 && strspn(data, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                             "0123456789+/=") == len,
                "images[%u].data is not base64", k);
  gsize n = 0;
  guchar *bytes = g_base64_decode(data, &n);
  return g_bytes_new_take(bytes, n);
}

int64_t rd_xml_prop_int(xmlNodePtr n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  int64_t x;

  ck_assert_msg(v != NULL, "no %s on <%s>", name, (const char *)n->name);
  x = g_ascii_strtoll((const char *)v, NULL, 10);
  xmlFree(v);
  return x;
}
