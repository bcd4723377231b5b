/* The tool result of agent SDKs whose tools return
 *   {"success":…, "content":"<ReadResults …>…</ReadResults>", "error":…,
 *    "shortResult":"Read 12 files (3 images), 1 error", "images":[{"data":…,"mediaType":…}]}
 * (a tile of a tall or wide picture has a "label" too: "tile 2 of 7: x 0-1080, y 1519-3207 of
 * 1080x10800")
 * `content` is the contract's XML, file by file as the other formats write it; `success` is
 * false only when every file failed (an unchanged file did not); `error` lists the files that
 * failed, when any did.
 *
 * The result object is {"toolresult": {…}, files, bytes, lines}; bare, the object alone. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "formatters/format-internal.h"
#include "formatters/result-json.h"
#include "formatters/xml.h"

/* How many failed files `error` names; the rest are counted. */
#define TOOLRESULT_ERRORS_LISTED 10

static const char *plural(size_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

static void toolresult_head(GString *out, const ReadResult *r, const FormatOptions *o) {
  GString *open = g_string_new(NULL);
  FormatCounts c;

  format_count(r, &c);
  xml_format_open(open, r);
  if (!o->bare)
    g_string_append(out, "{\"toolresult\":");
  /* An empty request has nothing that failed: it succeeds. */
  g_string_append(out, c.read == 0 && c.unchanged == 0 && c.failed > 0
                           ? "{\"success\":false,\"content\":\""
                           : "{\"success\":true,\"content\":\"");
  result_json_escape(out, open->str, open->len);
  g_string_free(open, TRUE);
}

static int toolresult_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                           const FormatOptions *o) {
  return format_json_content(out, f, image_index);
}

/* "2 of 12 files could not be read: a.txt: FILE_NOT_FOUND: no such file; …" */
static void toolresult_error(GString *out, const ReadResult *r, const FormatCounts *c) {
  GString *msg = g_string_new(NULL);
  size_t listed = 0;

  g_string_append_printf(msg, "%zu of %zu %s could not be read: ", c->failed, r->n_files,
                         plural(r->n_files, "file", "files"));
  for (size_t i = 0; i < r->n_files && listed < TOOLRESULT_ERRORS_LISTED; i++) {
    const FileResult *f = &r->files[i];

    if (f->code == NULL)
      continue;
    g_string_append_printf(msg, "%s%s: %s: %s", listed > 0 ? "; " : "", f->path, f->code,
                           f->error != NULL ? f->error : "");
    listed++;
  }
  if (c->failed > listed)
    g_string_append_printf(msg, "; and %zu more", c->failed - listed);
  g_string_append(out, ",\"error\":");
  format_json_string(out, msg->str, msg->len);
  g_string_free(msg, TRUE);
}

/* "Read 12 files (3 images), 1 error": files read, images sent, files that failed. */
static void toolresult_short(GString *out, const FormatCounts *c) {
  GString *s = g_string_new(NULL);

  g_string_append_printf(s, "Read %zu %s", c->read, plural(c->read, "file", "files"));
  if (c->images > 0)
    g_string_append_printf(s, " (%zu %s)", c->images, plural(c->images, "image", "images"));
  if (c->unchanged > 0)
    g_string_append_printf(s, ", %zu unchanged since the read with their etag", c->unchanged);
  if (c->failed > 0)
    g_string_append_printf(s, ", %zu %s", c->failed, plural(c->failed, "error", "errors"));
  g_string_append(out, ",\"shortResult\":");
  format_json_string(out, s->str, s->len);
  g_string_free(s, TRUE);
}

static void toolresult_images(GString *out, const ReadResult *r) {
  bool first = true;

  g_string_append(out, ",\"images\":[");
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    for (size_t k = 0; f->code == NULL && k < f->n_images; k++) {
      const ImageOut *img = &f->images[k];
      const char *mt = img->media_type != NULL ? img->media_type : "";
      char label[IMAGE_TILE_LABEL_MAX];

      g_string_append(out, first ? "{\"data\":" : ",{\"data\":");
      format_json_string(out, img->data != NULL ? img->data : "",
                         img->data != NULL ? img->data_len : 0);
      g_string_append(out, ",\"mediaType\":");
      format_json_string(out, mt, strlen(mt));
      if (image_tile_label(img, label)) {
        g_string_append(out, ",\"label\":");
        format_json_string(out, label, strlen(label));
      }
      g_string_append_c(out, '}');
      first = false;
    }
  }
  g_string_append_c(out, ']');
}

static void toolresult_tail(GString *out, const ReadResult *r, const FormatOptions *o) {
  FormatCounts c;
  size_t room = 256;

  format_count(r, &c);
  for (size_t i = 0; i < r->n_files; i++)
    for (size_t k = 0; r->files[i].code == NULL && k < r->files[i].n_images; k++)
      room += 64 + r->files[i].images[k].data_len;
  /* Reserve the room once: the images' base64 can be megabytes. */
  g_string_set_size(out, out->len + room);
  g_string_truncate(out, out->len - room);
  result_json_escape(out, XML_RESULTS_CLOSE, strlen(XML_RESULTS_CLOSE));
  g_string_append_c(out, '"');
  if (c.failed > 0)
    toolresult_error(out, r, &c);
  toolresult_short(out, &c);
  toolresult_images(out, r);
  g_string_append_c(out, '}');
  if (o->bare)
    return;
  g_string_append_c(out, ',');
  result_json_format_files(out, r);
}

const Formatter format_toolresult = {
    .name = "toolresult",
    .head = toolresult_head,
    .file = toolresult_file,
    .tail = toolresult_tail,
    .tail_uses_image_data = true,
    .frame_tokens = format_xml_frame_tokens,
    .bare_states_totals = true,
};
