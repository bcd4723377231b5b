#include "tests/lib/zip.h"

#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <glib.h>

#define STEP ((size_t)1024 * 1024)

struct RdZip {
  struct archive *a;
};

/* A zip being written at path; see zip.h. */
RdZip *rd_zip_new(const char *path) {
  RdZip *z = g_new0(RdZip, 1);

  z->a = archive_write_new();
  ck_assert(z->a != NULL);
  ck_assert_int_eq(archive_write_set_format_zip(z->a), ARCHIVE_OK);
  ck_assert_int_eq(archive_write_set_options(z->a, "zip:compression=deflate"), ARCHIVE_OK);
  /* The tests write hundreds of MiB of repeats: the fastest level packs them as well. */
  ck_assert_int_eq(archive_write_set_options(z->a, "zip:compression-level=1"), ARCHIVE_OK);
  ck_assert_msg(archive_write_open_filename(z->a, path) == ARCHIVE_OK, "cannot write %s: %s", path,
                archive_error_string(z->a));
  return z;
}

static void add_header(RdZip *z, const char *name, size_t len, bool declare_size) {
  struct archive_entry *e = archive_entry_new();

  archive_entry_set_pathname(e, name);
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  if (declare_size)
    archive_entry_set_size(e, (la_int64_t)len);
  else
    archive_entry_unset_size(e);
  ck_assert_msg(archive_write_header(z->a, e) == ARCHIVE_OK, "zip header of %s: %s", name,
                archive_error_string(z->a));
  archive_entry_free(e);
}

/* One deflated entry; see zip.h. */
void rd_zip_add(RdZip *z, const char *name, const void *data, size_t len) {
  add_header(z, name, len, true);
  ck_assert(len == 0 || archive_write_data(z->a, data, len) == (la_ssize_t)len);
}

/* One large entry written in steps; see zip.h. */
void rd_zip_add_repeat(RdZip *z, const char *name, const char *prefix, const char *unit, size_t len,
                       bool declare_size) {
  char *buf = g_malloc(STEP);
  size_t plen = strlen(prefix), ulen = strlen(unit), step;

  /* Whole units per step, so that they follow each other unbroken. */
  ck_assert(ulen > 0 && ulen <= STEP);
  step = STEP - STEP % ulen;
  for (size_t i = 0; i < step; i += ulen)
    memcpy(buf + i, unit, ulen);
  len -= MIN(len, plen);
  add_header(z, name, plen + len, declare_size);
  ck_assert(archive_write_data(z->a, prefix, plen) == (la_ssize_t)plen);
  for (size_t done = 0; done < len;) {
    size_t n = MIN(step, len - done);

    ck_assert(archive_write_data(z->a, buf, n) == (la_ssize_t)n);
    done += n;
  }
  g_free(buf);
}

/* The central directory, then the file closed; see zip.h. */
void rd_zip_close(RdZip *z) {
  ck_assert_int_eq(archive_write_close(z->a), ARCHIVE_OK);
  archive_write_free(z->a);
  g_free(z);
}

/* A minimal DOCX of one paragraph per line; see zip.h. */
void rd_zip_docx(const char *path, const char *text) {
  static const char types[] =
      "<?xml version=\"1.0\"?><Types "
      "xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>";
  GString *doc = g_string_new("<?xml version=\"1.0\"?><w:document xmlns:w=\"http://"
                              "schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>");
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  RdZip *z = rd_zip_new(path);

  for (size_t i = 0; lines[i] != NULL; i++) {
    g_autofree char *esc = g_markup_escape_text(lines[i], -1);

    g_string_append_printf(doc, "<w:p><w:r><w:t>%s</w:t></w:r></w:p>", esc);
  }
  g_string_append(doc, "</w:body></w:document>");
  rd_zip_add(z, "[Content_Types].xml", types, strlen(types));
  rd_zip_add(z, "word/document.xml", doc->str, doc->len);
  rd_zip_close(z);
  g_string_free(doc, TRUE);
}
