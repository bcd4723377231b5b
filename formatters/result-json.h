/* The `read` result object of the wire contract: {xml, images, files, bytes, lines}. */
#pragma once

#include <stddef.h>

#include "formatters/result.h"

/* Serializes r as the contract's result object (compact JSON, no trailing newline). `xml` is
 * the already formatted XML to embed. Returns a g_malloc'd string, its length in *ret_len
 * when ret_len is not NULL. Image indices count images over the files in order; the images of
 * failed files (code set) are left out, as in xml_format(). A NULL xml is written as "". */
char *result_json_format(const ReadResult *r, const char *xml, size_t *ret_len);
