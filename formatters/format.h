/* Output formats of a read result: one small interface that every shape implements, so that
 * the request can format each file on the thread that read it and send the answer as a list of
 * pieces (head, one piece per file, tail) that is never concatenated.
 *
 * A format's answer is head(r) + file(files[0], 0) + ... + file(files[n-1], n-1) + tail(r).
 * Each function is pure: it appends to `out` and touches nothing else. docs/formats.md
 * describes every shape. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "formatters/result.h"
#include "formatters/tokens.h"

typedef struct {
  /* The shape alone (what `readerd read --format NAME` prints), rather than the result object
   * a `read` request answers: e.g. the XML document instead of {xml, images, files, bytes,
   * lines}, the array of blocks instead of {anthropic: [...], files, bytes, lines}. */
  bool bare;
  /* The `detail` of each openai image part: "auto", "low" or "high"; NULL means "auto". */
  const char *detail;
} FormatOptions;

typedef struct {
  const char *name; /* as the `format` param spells it */

  /* Appends what comes before the first file. Called once every file is read: r holds every
   * file's metadata and code, but not necessarily its text (it may already live in a piece). */
  void (*head)(GString *out, const ReadResult *r, const FormatOptions *o);

  /* Appends file `index` of the result (0 for the first: later files start with whatever
   * separates them). image_index is the index of f's first image among the result's images
   * (failed files' images are left out); it is ignored when f has no image. Returns 0, or
   * -ENOMEM when libxml2 fails to allocate (out may then end with part of the piece). */
  int (*file)(GString *out, const FileResult *f, size_t index, int64_t image_index,
              const FormatOptions *o);

  /* Appends what comes after the last file. Same r as head(); images' base64 is there only
   * when tail_uses_image_data is set. */
  void (*tail)(GString *out, const ReadResult *r, const FormatOptions *o);

  /* The tail writes the images' base64 (xml, toolresult). When false, every image is written
   * by file(), and the caller may free an image's data once its file's piece is formatted. */
  bool tail_uses_image_data;

  /* The formula that prices the pictures this format sends: its provider's. Every price of an
   * answer in this format (tokens, a budget's shares, a plan) takes it from here. */
  TokensImageFormula images;

  /* What the model reads of file()'s piece for f, in estimated tokens (formatters/tokens.h):
   * the whole piece's text, or with markup_only its text without the texts f shows (f->tokens
   * prices those, with f's pictures); a negative errno when the piece cannot be written. NULL:
   * the <Content> element's (xml_content_tokens). Pure, on any thread. */
  int64_t (*file_tokens)(const FileResult *f, int64_t image_index, bool markup_only);

  /* What the model reads of head() and tail() for r, in estimated tokens. NULL: nothing (the
   * agent APIs' blocks have no frame). */
  int64_t (*frame_tokens)(const ReadResult *r);

  /* The bare shape states the answer's totals (answerTokens): the XML's start tag does. The
   * others' bare shapes (blocks, text) say nothing of the whole answer. */
  bool bare_states_totals;
} Formatter;

/* fmt's file_tokens (or the XML element's): what the model reads of f's piece; see Formatter. */
int64_t format_file_tokens(const Formatter *fmt, const FileResult *f, int64_t image_index,
                           bool markup_only);

/* fmt's frame_tokens (or 0): what the model reads of the answer's head and tail. */
int64_t format_frame_tokens(const Formatter *fmt, const ReadResult *r);

/* True when fmt's answer, shaped by o, states its own tokens (ReadResult.answer_tokens): the
 * result object always does, a bare shape when its Formatter says so. */
bool format_states_answer_tokens(const Formatter *fmt, const FormatOptions *o);

/* How fmt's answers are priced, pictures at detail low when low_detail. */
TokensPricing format_pricing(const Formatter *fmt, bool low_detail);

/* The formatter called name ("xml", "anthropic", "openai", "toolresult", "text"), or NULL when
 * there is none. The formatters are static: nothing to free. This table is the one place
 * format names are defined: the `format` param, the CLI and `initialize` all ask it. */
const Formatter *format_get(const char *name);

/* The i-th formatter, the default ("xml") first, or NULL past the last. */
const Formatter *format_at(size_t i);

/* Sets up what the formatters need once per process, before any thread formats: libxml2's
 * global state, which it sets up lazily and not safely from several threads at once. Safe to
 * call from anywhere, any number of times. */
void format_init(void);

/* A new piece holding file(f, index, image_index), allocated once at about its final size.
 * Returns NULL when formatting failed. Free with g_string_free(p, TRUE). */
GString *format_file_piece(const Formatter *fmt, const FileResult *f, size_t index,
                           int64_t image_index, const FormatOptions *o);

/* The whole answer in one string: head, every file, tail (for tests and small callers; the
 * request sends the pieces instead). Returns a g_malloc'd NUL-terminated string, its length in
 * *ret_len when ret_len is not NULL, or NULL when formatting failed. NULL r is an empty result. */
char *format_result(const Formatter *fmt, const ReadResult *r, const FormatOptions *o,
                    size_t *ret_len);
