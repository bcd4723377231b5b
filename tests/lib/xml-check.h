/* result.xml parsed and validated against the RELAX NG schema docs/read-results.rng (named by
 * env READERD_SCHEMA), compiled once per process; validations from many threads take turns. */
#pragma once

#include <stddef.h>

#include <libxml/tree.h>

/* Parses xml and validates it against the schema; fails the test otherwise (printing the XML to
 * stderr). The caller frees the document with xmlFreeDoc(). */
xmlDocPtr rd_xml_parse_valid(const char *xml, size_t len);
