/* The agent APIs' content lists: for each file a text block holding its <Content> element (or
 * the element that carries its error; an unchanged file's element is followed by a line saying
 * so), then one block per picture it sends (an image file, a rendered PDF page; a tile of a tall
 * or wide picture comes after a text block with its label, "tile 2 of 7: x 0-1080, y 1519-3207
 * of 1080x10800"). Text comes before images, as tool results expect.
 *
 *   anthropic: {"type":"text","text":…} and
 *              {"type":"image","source":{"type":"base64","media_type":…,"data":…}}
 *   openai:    {"type":"text","text":…} and
 *              {"type":"image_url","image_url":{"url":"data:<mime>;base64,…","detail":…}}
 *   mcp:       {"type":"text","text":…} and {"type":"image","data":…,"mimeType":…}
 *              (a Model Context Protocol tool result's content)
 *
 * The result object is {"<name>": [blocks], files, bytes, lines}; bare, the array alone. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <glib.h>

#include "formatters/format-internal.h"
#include "formatters/result-json.h"
#include "formatters/tokens.h"
#include "formatters/xml.h"

/* The line after an unchanged file's element. */
#define AGENT_UNCHANGED \
  "(unchanged since the read with this etag: its content is as that read gave it)"

/* Writes one picture as a block of the format. */
typedef void (*AgentImageFn)(GString *out, const ImageOut *img, const FormatOptions *o);

static void agent_head(GString *out, const char *name, const FormatOptions *o) {
  if (!o->bare)
    g_string_append_printf(out, "{\"%s\":", name);
  g_string_append_c(out, '[');
}

/* The text block of f, then its pictures (a failed file sends none). */
static int agent_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                      const FormatOptions *o, AgentImageFn image) {
  /* A file the budget summarized has no block of its own: the first carries the summary. */
  if (file_result_silent(f))
    return 0;
  if (index > 0)
    g_string_append_c(out, ',');
  g_string_append(out, "{\"type\":\"text\",\"text\":\"");
  if (format_json_content(out, f, image_index) < 0)
    return -ENOMEM;
  /* The model reads the block: the attribute alone may not tell it where the content is. */
  if (f->unchanged)
    g_string_append(out, AGENT_UNCHANGED);
  g_string_append(out, "\"}");
  for (size_t k = 0; f->code == NULL && k < f->n_images; k++) {
    char label[IMAGE_TILE_LABEL_MAX];

    /* A tile says where it lies in the picture, in a text block right before it. */
    if (image_tile_label(&f->images[k], label)) {
      g_string_append(out, ",{\"type\":\"text\",\"text\":");
      format_json_string(out, label, strlen(label));
      g_string_append_c(out, '}');
    }
    g_string_append_c(out, ',');
    image(out, &f->images[k], o);
  }
  return 0;
}

/* What the model reads of f's blocks: its element, the line after an unchanged one, the label
 * before each tile. */
static int64_t agent_file_tokens(const FileResult *f, int64_t image_index, bool markup_only) {
  int64_t n = xml_content_tokens(f, image_index, markup_only);

  if (n < 0 || file_result_silent(f))
    return n;
  if (f->unchanged)
    n += tokens_str(AGENT_UNCHANGED);
  for (size_t k = 0; f->code == NULL && k < f->n_images; k++) {
    char label[IMAGE_TILE_LABEL_MAX];

    if (image_tile_label(&f->images[k], label))
      n += tokens_str(label);
  }
  return n;
}

static void agent_tail(GString *out, const ReadResult *r, const FormatOptions *o) {
  g_string_append_c(out, ']');
  if (o->bare)
    return;
  g_string_append_c(out, ',');
  result_json_format_files(out, r);
}

/* Base64 needs no escaping, but the data comes from another module: escape it anyway (it is a
 * straight copy when there is nothing to escape). */
static void agent_data(GString *out, const ImageOut *img) {
  if (img->data != NULL)
    result_json_escape(out, img->data, img->data_len);
}

static void agent_media_type(GString *out, const ImageOut *img) {
  const char *mt = img->media_type != NULL ? img->media_type : "";

  result_json_escape(out, mt, strlen(mt));
}

/* ---------------------------------------------------------------- anthropic */

static void anthropic_image(GString *out, const ImageOut *img, const FormatOptions *o) {
  g_string_append(out, "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"");
  agent_media_type(out, img);
  g_string_append(out, "\",\"data\":\"");
  agent_data(out, img);
  g_string_append(out, "\"}}");
}

static void anthropic_head(GString *out, const ReadResult *r, const FormatOptions *o) {
  agent_head(out, "anthropic", o);
}

static int anthropic_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                          const FormatOptions *o) {
  return agent_file(out, f, index, image_index, o, anthropic_image);
}

const Formatter format_anthropic = {
    .name = "anthropic",
    .head = anthropic_head,
    .file = anthropic_file,
    .tail = agent_tail,
    .file_tokens = agent_file_tokens,
    .tail_uses_image_data = false,
};

/* ---------------------------------------------------------------- openai */

static void openai_image(GString *out, const ImageOut *img, const FormatOptions *o) {
  const char *detail = o->detail != NULL ? o->detail : "auto";

  g_string_append(out, "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:");
  agent_media_type(out, img);
  g_string_append(out, ";base64,");
  agent_data(out, img);
  g_string_append(out, "\",\"detail\":");
  format_json_string(out, detail, strlen(detail));
  g_string_append(out, "}}");
}

static void openai_head(GString *out, const ReadResult *r, const FormatOptions *o) {
  agent_head(out, "openai", o);
}

static int openai_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                       const FormatOptions *o) {
  return agent_file(out, f, index, image_index, o, openai_image);
}

const Formatter format_openai = {
    .name = "openai",
    .head = openai_head,
    .file = openai_file,
    .tail = agent_tail,
    .file_tokens = agent_file_tokens,
    .tail_uses_image_data = false,
    .images = TOKENS_IMAGES_OPENAI,
};

/* ---------------------------------------------------------------- mcp */

static void mcp_image(GString *out, const ImageOut *img, const FormatOptions *o) {
  g_string_append(out, "{\"type\":\"image\",\"data\":\"");
  agent_data(out, img);
  g_string_append(out, "\",\"mimeType\":\"");
  agent_media_type(out, img);
  g_string_append(out, "\"}");
}

static void mcp_head(GString *out, const ReadResult *r, const FormatOptions *o) {
  agent_head(out, "mcp", o);
}

static int mcp_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                    const FormatOptions *o) {
  return agent_file(out, f, index, image_index, o, mcp_image);
}

const Formatter format_mcp = {
    .name = "mcp",
    .head = mcp_head,
    .file = mcp_file,
    .tail = agent_tail,
    .file_tokens = agent_file_tokens,
    .tail_uses_image_data = false,
};
