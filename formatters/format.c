/* The format interface, the helpers the formats share, and the contract's own format: the
 * <ReadResults> XML, alone or inside the result object {xml, images, files, bytes, lines}. */
#include "formatters/format.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <libxml/parser.h>

#include "formatters/format-internal.h"
#include "formatters/result-json.h"
#include "formatters/xml.h"

static const Formatter *const formatters[] = {
    &format_xml, &format_anthropic, &format_openai, &format_toolresult, &format_text, &format_mcp,
};

/* The formatter called name; see format.h. */
const Formatter *format_get(const char *name) {
  for (size_t i = 0; name != NULL && i < G_N_ELEMENTS(formatters); i++)
    if (strcmp(formatters[i]->name, name) == 0)
      return formatters[i];
  return NULL;
}

const Formatter *format_at(size_t i) {
  return i < G_N_ELEMENTS(formatters) ? formatters[i] : NULL;
}

void format_init(void) {
  static gsize ready = 0;

  if (g_once_init_enter(&ready)) {
    xmlInitParser();
    g_once_init_leave(&ready, 1);
  }
}

/* Roughly what f's piece takes in any format, so that it is allocated once in the usual case:
 * the text with room for escaping, the images' base64, the attributes. */
static size_t format_piece_estimate(const FileResult *f) {
  size_t n = 512 + f->content_len + f->content_len / 16;

  n += f->path != NULL ? 2 * strlen(f->path) : 0;
  n += f->error != NULL ? 2 * strlen(f->error) : 0;
  for (size_t i = 0; i < f->n_page_out; i++)
    n += 64 + f->page_out[i].text_len + f->page_out[i].text_len / 16;
  for (size_t i = 0; f->code == NULL && i < f->n_images; i++)
    n += 160 + f->images[i].data_len;
  return n;
}

/* One file's piece, allocated once; see format.h. */
GString *format_file_piece(const Formatter *fmt, const FileResult *f, size_t index,
                           int64_t image_index, const FormatOptions *o) {
  GString *out = g_string_sized_new(format_piece_estimate(f));

  if (fmt->file(out, f, index, image_index, o) < 0) {
    g_string_free(out, TRUE);
    return NULL;
  }
  /* Pieces live until the answer is sent, thousands of them at once: give back the room that
   * escaping reserved (GString rounds up to a power of two, and the escaper reserves the worst
   * case ahead), or the answer would hold about twice its size. allocated_len is public. */
  if (out->allocated_len > out->len + out->len / 16 + 64) {
    out->str = g_realloc(out->str, out->len + 1);
    out->allocated_len = out->len + 1;
  }
  return out;
}

/* The whole answer in one string; see format.h. */
char *format_result(const Formatter *fmt, const ReadResult *r, const FormatOptions *o,
                    size_t *ret_len) {
  static const ReadResult empty = {0};
  int64_t image_index = 0;
  size_t size = 256;
  GString *out;

  if (r == NULL)
    r = &empty;
  for (size_t i = 0; i < r->n_files; i++)
    size += format_piece_estimate(&r->files[i]);
  out = g_string_sized_new(size);
  fmt->head(out, r, o);
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    if (fmt->file(out, f, i, image_index, o) < 0) {
      g_string_free(out, TRUE);
      return NULL;
    }
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  fmt->tail(out, r, o);
  if (ret_len != NULL)
    *ret_len = out->len;
  return g_string_free(out, FALSE);
}

int64_t format_file_tokens(const Formatter *fmt, const FileResult *f, int64_t image_index,
                           bool markup_only) {
  if (fmt->file_tokens != NULL)
    return fmt->file_tokens(f, image_index, markup_only);
  return xml_content_tokens(f, image_index, markup_only);
}

int64_t format_frame_tokens(const Formatter *fmt, const ReadResult *r) {
  return fmt->frame_tokens != NULL ? fmt->frame_tokens(r) : 0;
}

/* The <ReadResults> start tag and its end tag: the frame of the XML document (xml, and
 * toolresult's content). */
int64_t format_xml_frame_tokens(const ReadResult *r) {
  GString *s = g_string_new(NULL);
  int64_t n;

  xml_format_open(s, r);
  g_string_append(s, XML_RESULTS_CLOSE);
  n = tokens_text(s->str, s->len);
  g_string_free(s, TRUE);
  return n;
}

bool format_states_answer_tokens(const Formatter *fmt, const FormatOptions *o) {
  return !o->bare || fmt->bare_states_totals;
}

TokensPricing format_pricing(const Formatter *fmt, bool low_detail) {
  return (TokensPricing){.images = fmt->images, .low_detail = low_detail};
}

/* ---------------------------------------------------------------- shared helpers */

/* A quoted JSON string; see format-internal.h. */
void format_json_string(GString *out, const char *s, size_t len) {
  g_string_append_c(out, '"');
  result_json_escape(out, s, len);
  g_string_append_c(out, '"');
}

/* f's <Content>, JSON-escaped; see format-internal.h. */
int format_json_content(GString *out, const FileResult *f, int64_t image_index) {
  return xml_format_content_json(out, f, image_index);
}

/* Files read, failed, and images sent; see format-internal.h. */
void format_count(const ReadResult *r, FormatCounts *ret) {
  memset(ret, 0, sizeof(*ret));
  for (size_t i = 0; i < r->n_files; i++) {
    if (r->files[i].code != NULL) {
      ret->failed++;
    } else if (r->files[i].unchanged) {
      ret->unchanged++;
    } else {
      ret->read++;
      ret->images += r->files[i].n_images;
    }
  }
}

/* ---------------------------------------------------------------- xml: the contract's shape */

static void xml_head(GString *out, const ReadResult *r, const FormatOptions *o) {
  GString *open = g_string_new(NULL);

  xml_format_open(open, r);
  if (o->bare) {
    g_string_append_len(out, open->str, (gssize)open->len);
  } else {
    g_string_append(out, RESULT_JSON_HEAD);
    result_json_escape(out, open->str, open->len);
  }
  g_string_free(open, TRUE);
}

static int xml_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                    const FormatOptions *o) {
  if (o->bare)
    return xml_format_content(out, f, image_index);
  return format_json_content(out, f, image_index);
}

static void xml_tail(GString *out, const ReadResult *r, const FormatOptions *o) {
  if (o->bare) {
    g_string_append(out, XML_RESULTS_CLOSE);
    return;
  }
  result_json_escape(out, XML_RESULTS_CLOSE, strlen(XML_RESULTS_CLOSE));
  result_json_format_rest(out, r);
}

const Formatter format_xml = {
    .name = "xml",
    .head = xml_head,
    .file = xml_file,
    .tail = xml_tail,
    .tail_uses_image_data = true,
    .frame_tokens = format_xml_frame_tokens,
    .bare_states_totals = true,
};
