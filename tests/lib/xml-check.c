/* result.xml parsed and validated against the schema: see xml-check.h. */
#include "tests/lib/xml-check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <check.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>

#include "tests/lib/rd-internal.h"

static GMutex schema_lock;
static xmlRelaxNGPtr schema;

/* Validation shares one compiled schema; libxml2 does not promise that is safe from many
 * threads at once, so validations take turns. Called with schema_lock held. */
static xmlRelaxNGPtr schema_get(void) {
  if (schema)
    return schema;
  const char *path = getenv("READERD_SCHEMA");
  ck_assert_msg(path && *path, "env READERD_SCHEMA (docs/read-results.rng) is not set");
  ck_assert_msg(access(path, R_OK) == 0, "the schema %s cannot be read: %s", path,
                g_strerror(errno));
  xmlRelaxNGParserCtxtPtr pc = xmlRelaxNGNewParserCtxt(path);
  schema = xmlRelaxNGParse(pc);
  xmlRelaxNGFreeParserCtxt(pc);
  ck_assert_msg(schema != NULL, "the schema %s does not compile", path);
  return schema;
}

xmlDocPtr rd_xml_parse_valid(const char *xml, size_t len) {
  ck_assert_msg(len < INT32_MAX, "result.xml is %zu bytes", len);
  xmlDocPtr doc = xmlReadMemory(xml, (int)len, "result.xml", NULL, XML_PARSE_NONET);
  ck_assert_msg(doc != NULL, "result.xml is not well-formed XML (see stderr): %.300s", xml);
  g_mutex_lock(&schema_lock);
  xmlRelaxNGValidCtxtPtr vc = xmlRelaxNGNewValidCtxt(schema_get());
  int r = xmlRelaxNGValidateDoc(vc, doc);
  xmlRelaxNGFreeValidCtxt(vc);
  g_mutex_unlock(&schema_lock);
  if (r != 0)
    fprintf(stderr, "---- invalid result.xml ----\n%.4000s\n----\n", xml);
  ck_assert_msg(r == 0, "result.xml does not validate against the schema (see stderr)");
  return doc;
}
