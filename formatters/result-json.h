/* The `read` result object of the wire contract: {xml, images, files, bytes, lines}. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "formatters/result.h"

/* Serializes r as the contract's result object (compact JSON, no trailing newline). `xml` is
 * the already formatted XML to embed. Returns a g_malloc'd string, its length in *ret_len
 * when ret_len is not NULL. Image indices count images over the files in order; the images of
 * failed files (code set) are left out, as in xml_format(). A NULL xml is written as "". */
char *result_json_format(const ReadResult *r, const char *xml, size_t *ret_len);

/* Appends s[0..len) to gs as the inside of a JSON string (no quotes): '"', '\\' and control
 * characters escaped, valid UTF-8 as is, each byte of an invalid sequence as U+FFFD. */
void result_json_escape(GString *gs, const char *s, size_t len);

/* The code that escapes: each path writes the same bytes. result_json_escape() runs the fastest
 * this build and CPU have, chosen once; tests run each of the others with
 * result_json_escape_with() and compare. */
typedef enum {
  RESULT_JSON_ESCAPE_BEST,   /* what result_json_escape() runs */
  RESULT_JSON_ESCAPE_SCALAR, /* byte by byte: the only path without SSE2 (aarch64) */
  RESULT_JSON_ESCAPE_SSE2,   /* 16-byte blocks, their escapes written one at a time */
  RESULT_JSON_ESCAPE_SSSE3,  /* blocks whose escapes are all short ones written with pshufb */
  RESULT_JSON_ESCAPE_AVX2,   /* the same 32 bytes at a time */
} ResultJsonEscapePath;

/* result_json_escape() through path. Returns false, appending nothing, when this build or CPU
 * has no such path. */
bool result_json_escape_with(GString *gs, const char *s, size_t len, ResultJsonEscapePath path);

/* The result object in three pieces, so that the XML can be escaped file by file on other
 * threads and sent without being copied again: RESULT_JSON_HEAD, the XML escaped with
 * result_json_escape(), then result_json_format_rest(r). */
#define RESULT_JSON_HEAD "{\"xml\":\""

/* Appends to gs everything after the XML's escaped text: its closing quote, images, files,
 * bytes and lines, and the closing brace. */
void result_json_format_rest(GString *gs, const ReadResult *r);

/* Appends to gs the result object's last members, the same in every output format:
 * "files":[…],"bytes":B,"lines":L and the closing brace. */
void result_json_format_files(GString *gs, const ReadResult *r);
