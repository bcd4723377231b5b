#include "daemon/vision/vision-result.h"

#include <inttypes.h>
#include <string.h>

#include <glib.h>
#include <libxml/xmlwriter.h>

#include "formatters/result-json.h"
#include "formatters/xml.h"

/* "<ReadImagesResult ...>" and the <Answer>, written by libxml2 so that every character is
 * escaped as XML wants. */
static void xml_head(GString *out, const VisionReport *rep, size_t n_images) {
  xmlBufferPtr buf = xmlBufferCreate();
  xmlTextWriterPtr w = buf != NULL ? xmlNewTextWriterMemory(buf, 0) : NULL;
  char count[24];

  if (w == NULL) {
    xmlBufferFree(buf);
    return;
  }
  xmlTextWriterSetQuoteChar(w, (xmlChar)'\'');
  snprintf(count, sizeof(count), "%zu", n_images);
  xmlTextWriterStartElement(w, BAD_CAST "ReadImagesResult");
  xmlTextWriterWriteAttribute(w, BAD_CAST "provider", BAD_CAST vision_provider_name(rep->provider));
  if (rep->answer != NULL && rep->answer->model != NULL)
    xmlTextWriterWriteAttribute(w, BAD_CAST "model", BAD_CAST rep->answer->model);
  xmlTextWriterWriteAttribute(w, BAD_CAST "images", BAD_CAST count);
  xmlTextWriterWriteString(w, BAD_CAST "\n");
  if (rep->answer != NULL) {
    g_autofree char *text = g_utf8_make_valid(rep->answer->answer, -1);

    xmlTextWriterStartElement(w, BAD_CAST "Answer");
    xmlTextWriterWriteString(w, BAD_CAST text);
    xmlTextWriterEndElement(w);
    xmlTextWriterWriteString(w, BAD_CAST "\n");
  }
  xmlTextWriterFlush(w);
  xmlFreeTextWriter(w);
  g_string_append_len(out, (const char *)xmlBufferContent(buf), xmlBufferLength(buf));
  xmlBufferFree(buf);
}

char *vision_result_xml(const VisionReport *rep) {
  GString *out = g_string_new(NULL);
  int64_t image_index = 0;

  xml_head(out, rep, read_result_image_count(rep->files));
  for (size_t i = 0; i < rep->files->n_files; i++) {
    const FileResult *f = &rep->files->files[i];

    xml_format_content(out, f, image_index);
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  g_string_append(out, "</ReadImagesResult>");
  return g_string_free(out, FALSE);
}

static void json_member(GString *gs, const char *key) {
  g_string_append_printf(gs, "\"%s\":", key);
}

static void json_string_member(GString *gs, const char *key, const char *value) {
  json_member(gs, key);
  if (value == NULL) {
    g_string_append(gs, "null,");
    return;
  }
  g_string_append_c(gs, '"');
  result_json_escape(gs, value, strlen(value));
  g_string_append(gs, "\",");
}

/* images: what was sent, one entry per picture: its file, page, type, size, detail, bytes. */
static void json_images(GString *gs, const VisionReport *rep) {
  size_t k = 0;

  json_member(gs, "images");
  g_string_append_c(gs, '[');
  for (size_t i = 0; i < rep->files->n_files; i++) {
    const FileResult *f = &rep->files->files[i];

    for (size_t j = 0; f->code == NULL && j < f->n_images; j++, k++) {
      const ImageOut *img = &f->images[j];

      g_string_append_c(gs, '{');
      json_string_member(gs, "path", f->path);
      if (img->page > 0)
        g_string_append_printf(gs, "\"page\":%d,", img->page);
      json_string_member(gs, "mediaType", img->media_type);
      g_string_append_printf(gs, "\"width\":%d,\"height\":%d,", img->width, img->height);
      if (img->original_width > 0)
        g_string_append_printf(gs, "\"originalWidth\":%d,\"originalHeight\":%d,",
                               img->original_width, img->original_height);
      /* Only OpenAI's image parts carry a detail. */
      if (rep->provider == VISION_PROVIDER_OPENAI && rep->details != NULL &&
          rep->details[k] != NULL)
        json_string_member(gs, "detail", rep->details[k]);
      g_string_append_printf(gs, "\"bytes\":%zu}", img->data_len);
      g_string_append_c(gs, ',');
    }
  }
  if (gs->str[gs->len - 1] == ',')
    g_string_truncate(gs, gs->len - 1);
  g_string_append(gs, "],");
}

/* The members every answer has, then files (which closes the object). */
static void json_tail(GString *gs, const VisionReport *rep) {
  g_autofree char *xml = vision_result_xml(rep);

  json_images(gs, rep);
  json_string_member(gs, "xml", xml);
  result_json_format_files(gs, rep->files);
}

char *vision_result_json(const VisionReport *rep, size_t *ret_len) {
  GString *gs = g_string_new("{");
  const VisionAnswer *a = rep->answer;

  json_string_member(gs, "answer", a->answer);
  json_string_member(gs, "model", a->model);
  json_string_member(gs, "provider", vision_provider_name(rep->provider));
  json_member(gs, "usage");
  g_string_append_c(gs, '{');
  if (a->input_tokens >= 0)
    g_string_append_printf(gs, "\"inputTokens\":%" PRId64 ",", a->input_tokens);
  if (a->output_tokens >= 0)
    g_string_append_printf(gs, "\"outputTokens\":%" PRId64 ",", a->output_tokens);
  if (gs->str[gs->len - 1] == ',')
    g_string_truncate(gs, gs->len - 1);
  g_string_append(gs, "},");
  json_tail(gs, rep);
  if (ret_len != NULL)
    *ret_len = gs->len;
  return g_string_free(gs, FALSE);
}

char *vision_error_data_json(const VisionReport *rep, long http_status) {
  GString *gs = g_string_new("{");

  if (http_status != 0)
    g_string_append_printf(gs, "\"httpStatus\":%ld,", http_status);
  json_tail(gs, rep);
  return g_string_free(gs, FALSE);
}
