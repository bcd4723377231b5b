/* Read results: a `read` response (or the CLI's result.xml, or its --json output) taken apart
 * and checked: its XML valid against the schema, one <Content> per files[] entry, the XML
 * mirroring every entry and the totals as the wire contract says. Then access to the files,
 * the images and the text of each <Content>. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>
#include <libxml/tree.h>

#include "tests/lib/rpc-client.h"

/* One read result. */
typedef struct {
  JsonNode *msg;      /* the whole response; owned */
  JsonObject *result; /* the result object */
  JsonArray *files;
  JsonArray *images;
  xmlDocPtr doc;       /* result.xml, valid against the schema; owned */
  GPtrArray *contents; /* the <Content> elements (xmlNodePtr), in order */
  GPtrArray *notices;  /* the <Notice> elements (xmlNodePtr), in order */
  xmlNodePtr summary;  /* a budget's <Omitted> summary: files[] past the <Content> elements;
                          NULL when there is none */
} RdResult;

/* Takes a response; fails the test unless it is a read result with xml, files and images,
 * whose XML parses, validates against the schema and has one <Content> per file (or, with a
 * budget's <Omitted> summary, one per file before it, the summary counting the rest). Freed with
 * rd_result_free(). */
RdResult *rd_result_new(JsonNode *msg);

/* Parses and validates a bare result.xml (from the CLI); files and images are NULL. */
RdResult *rd_result_from_xml(const char *xml, size_t len);

/* Parses and validates a result object's JSON text (from `readerd read --json`). */
RdResult *rd_result_from_json(const char *json, size_t len);

/* Frees the result, its message and its document; NULL is fine. */
void rd_result_free(RdResult *r);

/* Calls read with params (JSON text) and returns its result. */
RdResult *rd_read(RdConn *c, const char *params);

/* Reads the given paths with extra params (JSON members without braces, or NULL). */
RdResult *rd_read_paths(RdConn *c, const char *const *paths, size_t n, const char *extra);

/* files[i]; fails the test when out of range. Points into the result. */
JsonObject *rd_file(RdResult *r, guint i);

/* A member of files[i] as an integer; fails the test when it is missing or not a number. */
int64_t rd_file_int(RdResult *r, guint i, const char *member);

/* A string member of files[i], or NULL when missing. Points into the result. */
const char *rd_file_str(RdResult *r, guint i, const char *member);

/* True when files[i] has the boolean member set to true. */
bool rd_file_true(RdResult *r, guint i, const char *member);

/* Content element i; fails the test when out of range. Points into the result. */
xmlNodePtr rd_content(RdResult *r, guint i);

/* The integer attribute name of element n; fails the test when it is missing. */
int64_t rd_xml_prop_int(xmlNodePtr n, const char *name);

/* An attribute of Content i (or of the root element when i is -1), g_malloc'd, or NULL. */
char *rd_attr(RdResult *r, int i, const char *name);

/* The text of Content i as shown: its text without the one newline that opens it. g_malloc'd. */
char *rd_text(RdResult *r, guint i);

/* The lines of rd_text(), without a last empty one. g_strfreev. */
char **rd_text_lines(RdResult *r, guint i);

/* The decoded bytes of images[k]; fails the test when it is not base64. g_bytes_unref. */
GBytes *rd_image_bytes(RdResult *r, guint k);
