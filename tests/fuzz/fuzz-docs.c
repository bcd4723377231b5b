/* Fuzz target for the notebook and office parsers (daemon/readers/notebook.c, office*.c): the
 * input is a header of two bytes and then a file's bytes.
 *
 * Header bytes: which parser (notebook, DOCX, XLSX, PPTX) and the window (offset, limit).
 * Whatever the bytes, the parser must answer a document or a per-file failure with a message,
 * never both; everything shown must be valid UTF-8, and the result must format as XML. The
 * office detector runs on the same bytes. */
#include <string.h>

#include <glib.h>

#include "daemon/readers/notebook.h"
#include "daemon/readers/office.h"
#include "formatters/result.h"
#include "formatters/xml.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_HEADER 2

static void check_text(const char *s, size_t len) {
  fuzz_assert(s == NULL || (strlen(s) == len && g_utf8_validate(s, (gssize)len, NULL)));
}

static void check_result(int r, const FileResult *res) {
  GString *xml = g_string_new(NULL);

  fuzz_assert((r == 0) == (res->code == NULL));
  fuzz_assert(res->code == NULL || (res->error != NULL && res->error[0] != '\0'));
  check_text(res->content, res->content_len);
  for (size_t i = 0; i < res->n_section_out; i++) {
    const SectionOut *s = &res->section_out[i];

    fuzz_assert(s->element != NULL && s->number >= 1);
    check_text(s->text, s->text_len);
    for (size_t k = 0; k < s->n_parts; k++) {
      check_text(s->parts[k].text, s->parts[k].text_len);
      fuzz_assert(s->parts[k].image < (int)res->n_images);
    }
  }
  fuzz_assert(xml_format_content(xml, res, 0) == 0);
  g_string_free(xml, TRUE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FileResult res = {0};
  int64_t offset, limit;
  int r;

  if (size < FUZZ_HEADER)
    return 0;
  offset = 1 + (data[1] & 0x0f) % 4;
  limit = 1 + (data[1] >> 4);
  (void)office_sniff(data + FUZZ_HEADER, size - FUZZ_HEADER);
  if (data[0] % 4 == 0) {
    NotebookOptions o = {.offset = offset, .limit = limit, .max_image_bytes = 1 << 20};

    r = notebook_parse((const char *)data + FUZZ_HEADER, size - FUZZ_HEADER, &o, &res);
    fuzz_assert(res.type == FILE_TYPE_NOTEBOOK);
  } else {
    OfficeOptions o = {.offset = offset, .limit = limit};

    r = office_read_memory(data + FUZZ_HEADER, size - FUZZ_HEADER, (OfficeKind)(data[0] % 4), &o,
                           &res);
    fuzz_assert(res.type == FILE_TYPE_DOCUMENT && res.format != NULL);
  }
  res.path = g_strdup("fuzz");
  check_result(r, &res);
  file_result_clear(&res);
  return 0;
}
