/* The <ReadResults> XML of the wire contract. The writer is the file's own: the contract's XML
 * needs elements, attributes in single quotes and CDATA, all escaped here, and libxml2's
 * xmlTextWriter, which it used to go through, cost most of the time of an element without text
 * (docs/performance.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "formatters/result.h"

/* Formats r as the contract's XML document (no XML declaration), one <Content> per file in
 * order. Attributes mirror the result's fields; image='k' is the index of the file's first
 * image, counting images over the files that were read, in order (failed files' images are
 * left out). The output is always well-formed: text goes in CDATA sections split around "]]>",
 * carriage returns are written as character references, and characters XML 1.0 forbids are
 * replaced with U+FFFD, in text and attribute values alike. Returns a g_malloc'd
 * NUL-terminated string (length in *ret_len when ret_len is not NULL), or NULL when an element
 * could not be written (see xml_format_content). */
char *xml_format(const ReadResult *r, size_t *ret_len);

/* The document in pieces, so that files can be formatted on the threads that read them:
 * xml_format() is xml_format_open() with the totals (read_result_totals), then
 * xml_format_content() for each file, then XML_RESULTS_CLOSE. */

/* Appends "<ReadResults bytes='B' lines='L' tokens='T'>" and a newline to out: r's totals
 * (read_result_totals, read_result_tokens), plus answerTokens='A' (r->answer_tokens) and
 * budget='N' when r has a budget (budget alone in a plan), and plan='true' tokensTotal='N'
 * for a plan. r may be NULL (all zero). */
void xml_format_open(GString *out, const ReadResult *r);

/* Appends f's <Content> element and the newline after it to out, then one
 * <Notice path='…' from='N'>message</Notice> line per notice that follows f (an expansion's). image_index is the index of
 * f's first image in the result's images (ignored when f has none). Returns 0, or -EINVAL
 * when the element could not be written, a bug: elements nested deeper than the writer holds
 * (out may then end with part of the element). */
int xml_format_content(GString *out, const FileResult *f, int64_t image_index);

/* The same element escaped as the inside of a JSON string (result_json_escape), written in one
 * pass: what appending xml_format_content()'s output through result_json_escape() gives. */
int xml_format_content_json(GString *out, const FileResult *f, int64_t image_index);

/* The estimated tokens (formatters/tokens.h) of what xml_format_content() writes for f: the
 * whole element when markup_only is false; with it, the markup alone (tags, attributes, the
 * CDATA wrappers, notices of the expansion) with every text the file shows left out, which
 * f->tokens prices. A file the budget summarized is its <Omitted> summary (the first) and its
 * notices. Returns a negative errno when the element could not be written. */
int64_t xml_content_tokens(const FileResult *f, int64_t image_index, bool markup_only);

/* What xml_content_tokens() adds for each text it leaves out, where the text meets its CDATA
 * wrapper: an upper bound of what the estimate of the two together adds to theirs apart. */
#define XML_SEAM_TOKENS 1

#define XML_RESULTS_CLOSE "</ReadResults>"

/* Room xml_format_time needs, with the terminating NUL. */
#define XML_TIME_MAX 32

/* Writes ms (epoch milliseconds; negative is before 1970) as ISO-8601 UTC with milliseconds,
 * e.g. "2023-11-14T22:13:20.123Z", NUL-terminated into buf (XML_TIME_MAX bytes at least).
 * Returns the length written. */
size_t xml_format_time(int64_t ms, char *buf);
