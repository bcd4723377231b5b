/* The <ReadResults> XML of the wire contract, written with libxml2's xmlTextWriter. */
#pragma once

#include <stddef.h>

#include "formatters/result.h"

/* Formats r as the contract's XML document (no XML declaration), one <Content> per file in
 * order. The output is always well-formed: text goes in CDATA sections split around "]]>",
 * carriage returns are written as character references, and characters XML 1.0 forbids are
 * replaced with U+FFFD. Returns a g_malloc'd NUL-terminated string (length in *ret_len when
 * ret_len is not NULL), or NULL only when libxml2 fails to allocate. */
char *xml_format(const ReadResult *r, size_t *ret_len);
