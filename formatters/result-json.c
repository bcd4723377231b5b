#include "formatters/result-json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

/* U+FFFD REPLACEMENT CHARACTER, written for bytes that are not UTF-8. */
#define REPLACEMENT "\xEF\xBF\xBD"

/* What each ASCII byte becomes inside a JSON string: NULL when it goes as is, else its escape
 * (the two-character forms where JSON has one, \u00XX for the other controls). */
/* clang-format off */
static const char *const json_escapes[128] = {
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
    "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
    "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
    ['"'] = "\\\"", ['\\'] = "\\\\",
};
/* clang-format on */

/* Writes s[0..len) as a quoted JSON string into gs and returns the bytes that takes; with gs
 * NULL only counts them, so the same code sizes the buffer and fills it. Valid UTF-8 passes
 * through, each byte of an invalid sequence becomes U+FFFD. */
static size_t json_string(GString *gs, const char *s, size_t len) {
  size_t run = 0, i = 0, total = 2;

  if (gs != NULL)
    g_string_append_c(gs, '"');
  while (i < len) {
    unsigned char c = (unsigned char)s[i];
    const char *e;
    size_t n = 1, elen;

    if (c < 0x80) {
      e = json_escapes[c];
      if (e == NULL) {
        i++;
        continue;
      }
      elen = e[1] == 'u' ? 6 : 2;
    } else {
      n = result_utf8_decode(s + i, len - i, NULL);
      if (n > 0) {
        i += n;
        continue;
      }
      n = 1;
      e = REPLACEMENT;
      elen = strlen(REPLACEMENT);
    }
    total += i - run + elen;
    if (gs != NULL) {
      g_string_append_len(gs, s + run, (gssize)(i - run));
      g_string_append_len(gs, e, (gssize)elen);
    }
    i += n;
    run = i;
  }
  total += i - run;
  if (gs != NULL) {
    g_string_append_len(gs, s + run, (gssize)(i - run));
    g_string_append_c(gs, '"');
  }
  return total;
}

static size_t json_cstring_len(const char *s) {
  return json_string(NULL, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

/* Members are written with a trailing comma; closing an object or array takes it back. */
static void json_close(GString *gs, char c) {
  if (gs->len > 0 && gs->str[gs->len - 1] == ',')
    gs->str[gs->len - 1] = c;
  else
    g_string_append_c(gs, c);
  g_string_append_c(gs, ',');
}

static void json_key(GString *gs, const char *key) {
  g_string_append_c(gs, '"');
  g_string_append(gs, key);
  g_string_append(gs, "\":");
}

static void json_str(GString *gs, const char *key, const char *v) {
  json_key(gs, key);
  if (v == NULL)
    v = "";
  json_string(gs, v, strlen(v));
  g_string_append_c(gs, ',');
}

static void json_int(GString *gs, const char *key, int64_t v) {
  char buf[24];
  int n = snprintf(buf, sizeof(buf), "%" PRId64 ",", v);

  json_key(gs, key);
  g_string_append_len(gs, buf, n);
}

static void json_bool(GString *gs, const char *key, bool v) {
  json_key(gs, key);
  g_string_append(gs, v ? "true," : "false,");
}

static void json_image(GString *gs, const char *path, const ImageOut *img) {
  g_string_append_c(gs, '{');
  json_str(gs, "path", path);
  json_str(gs, "mediaType", img->media_type);
  json_key(gs, "data");
  if (img->data != NULL)
    json_string(gs, img->data, img->data_len);
  else
    g_string_append(gs, "\"\"");
  g_string_append_c(gs, ',');
  json_int(gs, "width", img->width);
  json_int(gs, "height", img->height);
  if (img->original_width > 0) {
    json_int(gs, "originalWidth", img->original_width);
    json_int(gs, "originalHeight", img->original_height);
  }
  if (img->page > 0)
    json_int(gs, "page", img->page);
  json_close(gs, '}');
}

static void json_text_fields(GString *gs, const FileResult *f) {
  json_int(gs, "lines", f->lines);
  if (f->encoding != NULL)
    json_str(gs, "encoding", f->encoding);
  if (f->bom)
    json_bool(gs, "bom", true);
  if (f->eol != NULL)
    json_str(gs, "eol", f->eol);
  json_bool(gs, "truncated", f->truncated);
  if (f->shown_first > 0) {
    char buf[48];
    int n = snprintf(buf, sizeof(buf), "[%" PRId64 ",%" PRId64 "],", f->shown_first, f->shown_last);

    json_key(gs, "shown");
    g_string_append_len(gs, buf, n);
  }
}

static void json_image_fields(GString *gs, const FileResult *f, int64_t image_index) {
  const ImageOut *img = &f->images[0];

  json_str(gs, "mediaType", img->media_type);
  json_int(gs, "image", image_index);
  json_int(gs, "width", img->width);
  json_int(gs, "height", img->height);
  if (img->original_width > 0) {
    json_int(gs, "originalWidth", img->original_width);
    json_int(gs, "originalHeight", img->original_height);
  }
  if (f->animated)
    json_bool(gs, "animated", true);
}

/* files[i]: the keys in the order of the contract, each only when it is set. */
static void json_file(GString *gs, const FileResult *f, int64_t image_index) {
  const char *type = file_type_name(f->type);

  g_string_append_c(gs, '{');
  json_str(gs, "path", f->path);
  if (type != NULL)
    json_str(gs, "type", type);
  if (f->code != NULL) {
    json_str(gs, "code", f->code);
    json_str(gs, "error", f->error);
  }
  if (f->bytes >= 0)
    json_int(gs, "bytes", f->bytes);
  if (f->modified_ms >= 0)
    json_int(gs, "modified", f->modified_ms);
  if (f->code == NULL && f->type == FILE_TYPE_TEXT)
    json_text_fields(gs, f);
  else if (f->code == NULL && f->truncated)
    json_bool(gs, "truncated", true);
  if (f->code == NULL && f->type == FILE_TYPE_IMAGE && f->n_images > 0)
    json_image_fields(gs, f, image_index);
  json_close(gs, '}');
}

/* The output size, exact for everything but image data, which is assumed to be base64 and so
 * to need no escaping; a wrong guess only costs a reallocation. */
static size_t json_estimate(const ReadResult *r, const char *xml) {
  size_t n = 64 + json_string(NULL, xml, strlen(xml));

  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];
    size_t path = json_cstring_len(f->path);

    n += 320 + path + json_cstring_len(f->error);
    for (size_t k = 0; f->code == NULL && k < f->n_images; k++)
      n += 160 + path + f->images[k].data_len;
  }
  return n;
}

/* Serializes r as the contract's result object; see result-json.h. */
char *result_json_format(const ReadResult *r, const char *xml, size_t *ret_len) {
  static const ReadResult empty = {0};
  int64_t bytes, lines, image_index = 0;
  GString *gs;

  if (r == NULL)
    r = &empty;
  if (xml == NULL)
    xml = "";
  gs = g_string_sized_new(json_estimate(r, xml));

  g_string_append(gs, "{\"xml\":");
  json_string(gs, xml, strlen(xml));
  g_string_append(gs, ",\"images\":[");
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    for (size_t k = 0; f->code == NULL && k < f->n_images; k++)
      json_image(gs, f->path, &f->images[k]);
  }
  json_close(gs, ']');
  g_string_append(gs, "\"files\":[");
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    json_file(gs, f, image_index);
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  json_close(gs, ']');
  read_result_totals(r, &bytes, &lines);
  json_int(gs, "bytes", bytes);
  json_int(gs, "lines", lines);
  json_close(gs, '}');
  /* json_close leaves a comma for the next member; the top-level object has none. */
  g_string_truncate(gs, gs->len - 1);

  if (ret_len != NULL)
    *ret_len = gs->len;
  return g_string_free(gs, FALSE);
}
