/* What the formatters share; private to formatters/. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "formatters/format.h"
#include "formatters/result.h"

/* The formatters, one per shape (format.c, format-agent.c, format-toolresult.c,
 * format-text.c). */
extern const Formatter format_xml;
extern const Formatter format_anthropic;
extern const Formatter format_openai;
extern const Formatter format_mcp;
extern const Formatter format_toolresult;
extern const Formatter format_text;

/* Appends s[0..len) as a quoted JSON string (invalid UTF-8 becomes U+FFFD). */
void format_json_string(GString *out, const char *s, size_t len);

/* Appends f's <Content> element (xml_format_content) JSON-escaped: the inside of a JSON string,
 * without quotes. Returns 0, or -ENOMEM when libxml2 failed. */
int format_json_content(GString *out, const FileResult *f, int64_t image_index);

/* What a result holds, for summaries. */
typedef struct {
  size_t read;      /* files read (unchanged ones excluded) */
  size_t unchanged; /* files whose etag matched ifNoneMatch: not read again */
  size_t failed;    /* files with a per-file error */
  size_t images;    /* images sent: of the files read, in order */
} FormatCounts;

void format_count(const ReadResult *r, FormatCounts *ret);

/* Estimated tokens of the XML document's frame for r: its <ReadResults> start tag and end tag. */
int64_t format_xml_frame_tokens(const ReadResult *r);
