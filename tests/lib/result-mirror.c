/* The check that a read result's XML mirrors its files[] entries and totals (the wire
 * contract); rd_result_new() and rd_result_from_json() in results.c call it. */
#include "tests/lib/results.h"

#include <stdio.h>
#include <string.h>

#include <check.h>

#include "tests/lib/files.h"
#include "tests/lib/images.h"
#include "tests/lib/rd-internal.h"

static bool attr_eq_int(RdResult *r, guint i, const char *name, int64_t want) {
  char *a = rd_attr(r, (int)i, name);
  char *w = g_strdup_printf("%" G_GINT64_FORMAT, want);
  bool ok = a && strcmp(a, w) == 0;
  if (!ok)
    fprintf(stderr, "Content[%u] %s='%s', files[%u].%s = %s\n", i, name, a ? a : "(none)", i, name,
            w);
  g_free(a);
  g_free(w);
  return ok;
}

static void check_image_entry(RdResult *r, guint i, JsonObject *f) {
  int64_t k = rd_file_int(r, i, "image");
  ck_assert_msg(k >= 0 && k < json_array_get_length(r->images),
                "files[%u].image = %" G_GINT64_FORMAT " is not an index into images", i, k);
  JsonObject *img = json_array_get_object_element(r->images, (guint)k);
  ck_assert_str_eq(json_object_get_string_member(img, "path"),
                   json_object_get_string_member(f, "path"));
  ck_assert_str_eq(json_object_get_string_member(img, "mediaType"),
                   json_object_get_string_member(f, "mediaType"));
  ck_assert_int_eq(json_object_get_int_member(img, "width"), rd_file_int(r, i, "width"));
  ck_assert_int_eq(json_object_get_int_member(img, "height"), rd_file_int(r, i, "height"));
  /* width and height describe the data sent, whatever was done to it. */
  GBytes *data = rd_image_bytes(r, (guint)k);
  gsize len = 0;
  const unsigned char *d = g_bytes_get_data(data, &len);
  int w = 0, h = 0;
  ck_assert_msg(rd_image_size(d, len, &w, &h),
                "images[%" G_GINT64_FORMAT "] is not a PNG, JPEG, "
                "GIF or WebP",
                k);
  ck_assert_msg(
      w == json_object_get_int_member(img, "width") &&
          h == json_object_get_int_member(img, "height"),
      "images[%" G_GINT64_FORMAT "] is %dx%d but says %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT, k, w,
      h, json_object_get_int_member(img, "width"), json_object_get_int_member(img, "height"));
  const char *mt = json_object_get_string_member(img, "mediaType");
  bool mt_ok = (d[0] == 0x89 && strcmp(mt, "image/png") == 0) ||
               (d[0] == 0xff && strcmp(mt, "image/jpeg") == 0) ||
               (d[0] == 'G' && strcmp(mt, "image/gif") == 0) ||
               (d[0] == 'R' && strcmp(mt, "image/webp") == 0);
  ck_assert_msg(mt_ok, "images[%" G_GINT64_FORMAT "] data is not %s", k, mt);
  g_bytes_unref(data);
  ck_assert(attr_eq_int(r, i, "image", k));
  ck_assert(attr_eq_int(r, i, "width", rd_file_int(r, i, "width")));
  ck_assert(attr_eq_int(r, i, "height", rd_file_int(r, i, "height")));
}

/* s with every character XML 1.0 cannot carry replaced by U+FFFD, as the contract has it.
 * g_malloc'd. */
static char *xml_safe(const char *s) {
  GString *out = g_string_new(NULL);
  for (const char *p = s; *p; p = g_utf8_next_char(p)) {
    gunichar c = g_utf8_get_char(p);
    bool ok = c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
              (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    g_string_append_unichar(out, ok ? c : 0xfffd);
  }
  return g_string_free(out, FALSE);
}

/* The XML mirrors files[i] (the contract), and the totals are the sums over the files read. */
void rd_result_check_mirror(RdResult *r) {
  int64_t bytes = 0, lines = 0, tokens = 0;
  bool plan = json_object_get_boolean_member_with_default(r->result, "plan", false);
  for (guint i = 0; i < r->contents->len; i++) {
    JsonObject *f = rd_file(r, i);
    const char *code = rd_file_str(r, i, "code");
    /* Every entry has its tokens; an omitted or planned one has tokensTotal too. */
    tokens += rd_file_int(r, i, "tokens");
    ck_assert(attr_eq_int(r, i, "tokens", rd_file_int(r, i, "tokens")));
    char *a = rd_attr(r, (int)i, "path");
    char *want_path = xml_safe(json_object_get_string_member(f, "path"));
    ck_assert_msg(a && strcmp(a, want_path) == 0, "Content[%u] path differs from files[%u].path", i,
                  i);
    g_free(want_path);
    g_free(a);
    a = rd_attr(r, (int)i, "pathBytes");
    ck_assert_msg(g_strcmp0(a, rd_file_str(r, i, "pathBytes")) == 0,
                  "Content[%u] pathBytes '%s' but files[%u].pathBytes '%s'", i, a ? a : "", i,
                  rd_file_str(r, i, "pathBytes") ? rd_file_str(r, i, "pathBytes") : "");
    g_free(a);
    a = rd_attr(r, (int)i, "code");
    ck_assert_msg(g_strcmp0(a, code) == 0, "Content[%u] code '%s' but files[%u].code '%s'", i,
                  a ? a : "", i, code ? code : "");
    g_free(a);
    a = rd_attr(r, (int)i, "etag");
    /* A file the budget left out has its etag in files[] only. */
    ck_assert_msg(g_strcmp0(a, rd_file_str(r, i, "etag")) == 0 ||
                      (a == NULL && g_strcmp0(rd_file_str(r, i, "omitted"), "budget") == 0),
                  "Content[%u] etag '%s' but files[%u].etag '%s'", i, a ? a : "", i,
                  rd_file_str(r, i, "etag") ? rd_file_str(r, i, "etag") : "");
    g_free(a);
    a = rd_attr(r, (int)i, "from");
    if (json_object_has_member(f, "from"))
      ck_assert_msg(a != NULL && g_ascii_strtoll(a, NULL, 10) == rd_file_int(r, i, "from"),
                    "Content[%u] from='%s' differs from files[%u].from", i, a ? a : "", i);
    else
      ck_assert_msg(a == NULL, "Content[%u] has from='%s' but files[%u] has none", i, a, i);
    g_free(a);
    if (code) {
      ck_assert_msg(rd_file_str(r, i, "error") && *rd_file_str(r, i, "error"),
                    "files[%u] failed (%s) without an error message", i, code);
      continue;
    }
    a = rd_attr(r, (int)i, "unchanged");
    ck_assert_msg((g_strcmp0(a, "true") == 0) == rd_file_true(r, i, "unchanged"),
                  "Content[%u] unchanged='%s' differs from files[%u].unchanged", i, a ? a : "", i);
    g_free(a);
    if (rd_file_true(r, i, "unchanged")) {
      /* Not read again: no type, no content, out of the totals. */
      ck_assert_msg(rd_file_str(r, i, "type") == NULL && rd_content(r, i)->children == NULL,
                    "unchanged files[%u] has a type or content", i);
      ck_assert_msg(rd_file_str(r, i, "etag") != NULL, "unchanged files[%u] has no etag", i);
      continue;
    }
    a = rd_attr(r, (int)i, "omitted");
    ck_assert_msg(g_strcmp0(a, rd_file_str(r, i, "omitted")) == 0,
                  "Content[%u] omitted='%s' differs from files[%u].omitted", i, a ? a : "", i);
    g_free(a);
    if (rd_file_str(r, i, "omitted") != NULL)
      continue;
    const char *type = rd_file_str(r, i, "type");
    a = rd_attr(r, (int)i, "type");
    /* A file the budget left out before its head was read has no type. */
    ck_assert_msg((type || json_object_has_member(f, "omitted")) && g_strcmp0(a, type) == 0,
                  "Content[%u] type '%s', files[%u].type '%s'", i, a ? a : "", i, type ? type : "");
    g_free(a);
    ck_assert(attr_eq_int(r, i, "bytes", rd_file_int(r, i, "bytes")));
    if (json_object_has_member(f, "omitted") || plan) {
      /* Nothing shown: what is known of the file. A plan sums its entries; an answer sums
       * only the files read. */
      ck_assert(attr_eq_int(r, i, "tokensTotal", rd_file_int(r, i, "tokensTotal")));
      ck_assert_ptr_null(rd_content(r, i)->children);
      if (plan) {
        bytes += rd_file_int(r, i, "bytes");
        if (g_strcmp0(type, "text") == 0 && json_object_has_member(f, "lines"))
          lines += rd_file_int(r, i, "lines");
      }
      continue;
    }
    bytes += rd_file_int(r, i, "bytes");
    char *iso = rd_iso_ms(rd_file_int(r, i, "modified"));
    a = rd_attr(r, (int)i, "modified");
    ck_assert_msg(g_strcmp0(a, iso) == 0, "Content[%u] modified '%s', files[%u].modified is %s", i,
                  a ? a : "", i, iso);
    g_free(a);
    g_free(iso);
    a = rd_attr(r, (int)i, "truncated");
    ck_assert_msg((g_strcmp0(a, "true") == 0) == rd_file_true(r, i, "truncated"),
                  "Content[%u] truncated='%s' differs from files[%u].truncated", i, a ? a : "", i);
    g_free(a);
    if (strcmp(type, "text") == 0) {
      lines += rd_file_int(r, i, "lines");
      ck_assert(attr_eq_int(r, i, "lines", rd_file_int(r, i, "lines")));
      a = rd_attr(r, (int)i, "encodingSource");
      ck_assert_msg(g_strcmp0(a, rd_file_str(r, i, "encodingSource")) == 0,
                    "Content[%u] encodingSource '%s' differs from files[%u].encodingSource", i,
                    a ? a : "", i);
      g_free(a);
    } else if (strcmp(type, "image") == 0) {
      check_image_entry(r, i, f);
    }
  }
  ck_assert_msg(json_object_get_int_member(r->result, "bytes") == bytes,
                "result.bytes %" G_GINT64_FORMAT
                " is not the sum over the files read (%" G_GINT64_FORMAT ")",
                json_object_get_int_member(r->result, "bytes"), bytes);
  ck_assert_msg(json_object_get_int_member(r->result, "lines") == lines,
                "result.lines %" G_GINT64_FORMAT
                " is not the sum over the files read (%" G_GINT64_FORMAT ")",
                json_object_get_int_member(r->result, "lines"), lines);
  ck_assert(attr_eq_int(r, -1, "bytes", bytes));
  ck_assert(attr_eq_int(r, -1, "lines", lines));
  ck_assert_msg(json_object_get_int_member(r->result, "tokens") == tokens,
                "result.tokens %" G_GINT64_FORMAT
                " is not the sum over the files (%" G_GINT64_FORMAT ")",
                json_object_get_int_member(r->result, "tokens"), tokens);
  ck_assert(attr_eq_int(r, -1, "tokens", tokens));
}
