/* Unit tests of the office reader (daemon/readers/office.c and office-*.c): the DOCX, XLSX and
 * PPTX files LibreOffice wrote (tests/data/office/, scripts/office-fixtures.sh) read through
 * office_read_fd, and hostile archives written here with libarchive: a zip bomb (declared and
 * undeclared sizes), 100,000 entries, a truncated file, parts that are not XML. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <glib.h>

#include "daemon/readers/detect.h"
#include "daemon/readers/office.h"
#include "tests/lib/process.h"
#include "tests/lib/zip.h"

static char *fixture(const char *name) {
  const char *root = getenv("READERD_SOURCE_ROOT");

  ck_assert_msg(root != NULL, "env READERD_SOURCE_ROOT is not set");
  return g_build_filename(root, "tests", "data", "office", name, NULL);
}

/* Reads path as kind with the given window into res (zeroed first). Returns the reader's
 * answer. */
static int read_path(const char *path, OfficeKind kind, int64_t offset, int64_t limit,
                     FileResult *res) {
  OfficeOptions o = {.offset = offset, .limit = limit};
  int fd = open(path, O_RDONLY | O_CLOEXEC), r;

  ck_assert_msg(fd >= 0, "cannot open %s", path);
  memset(res, 0, sizeof *res);
  r = office_read_fd(fd, kind, &o, res);
  close(fd);
  ck_assert_int_eq(r == 0, res->code == NULL);
  return r;
}

/* The head of a file, as the reader sees it, classified. */
static DetectKind detect_path(const char *path) {
  g_autofree char *data = NULL;
  gsize len = 0;

  ck_assert(g_file_get_contents(path, &data, &len, NULL));
  return detect_magic((const uint8_t *)data, MIN(len, (gsize)65536));
}

START_TEST(office_detects_libreoffice_files) {
  g_autofree char *docx = fixture("report.docx");
  g_autofree char *xlsx = fixture("fruit.xlsx");
  g_autofree char *pptx = fixture("roadmap.pptx");

  ck_assert_int_eq(detect_path(docx), DETECT_DOCX);
  ck_assert_int_eq(detect_path(xlsx), DETECT_XLSX);
  ck_assert_int_eq(detect_path(pptx), DETECT_PPTX);
  ck_assert(detect_is_office(DETECT_XLSX));
  ck_assert(!detect_is_office(DETECT_PDF));
}
END_TEST

START_TEST(office_plain_zip_is_not_office) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "plain.zip", NULL);
  RdZip *z = rd_zip_new(path);

  rd_zip_add(z, "README", "hello\n", 6);
  rd_zip_add(z, "word/notes.txt", "not a document\n", 15);
  rd_zip_close(z);
  ck_assert_int_eq(detect_path(path), DETECT_UNKNOWN);
  ck_assert_int_eq(office_sniff((const uint8_t *)"PK\3\4", 4), OFFICE_NONE);
}
END_TEST

START_TEST(office_docx_headings_lists_tables) {
  g_autofree char *path = fixture("report.docx");
  FileResult f;

  ck_assert_int_eq(read_path(path, OFFICE_DOCX, 1, 2000, &f), 0);
  ck_assert_int_eq(f.type, FILE_TYPE_DOCUMENT);
  ck_assert_str_eq(f.format, "docx");
  ck_assert_str_eq(f.content, "# Quarterly report\n"
                              "The reader now handles office documents.\n"
                              "## Goals\n"
                              "- Read DOCX files\n"
                              "- Read XLSX files\n"
                              "- Read PPTX files\n"
                              "| Name | Count |\n"
                              "| Apples | 12 |\n"
                              "| Pears | 7 |\n"
                              "Café, naïve, 日本語.\n");
  ck_assert(!f.truncated);
  ck_assert_int_eq(f.shown_first, 1);
  ck_assert_int_eq(f.shown_last, 10);
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);
}
END_TEST

START_TEST(office_docx_offset_limit_pick_lines) {
  g_autofree char *path = fixture("report.docx");
  FileResult f;

  ck_assert_int_eq(read_path(path, OFFICE_DOCX, 7, 2, &f), 0);
  ck_assert_str_eq(f.content, "| Name | Count |\n| Apples | 12 |\n");
  ck_assert(f.truncated);
  ck_assert_int_eq(f.shown_first, 7);
  ck_assert_int_eq(f.shown_last, 8);
  ck_assert_str_eq(f.notice, "[lines 9-10 of 10 not shown; read on with offset 9]");
  file_result_clear(&f);
}
END_TEST

START_TEST(office_xlsx_sheets_with_shared_strings) {
  g_autofree char *path = fixture("fruit.xlsx");
  FileResult f;

  ck_assert_int_eq(read_path(path, OFFICE_XLSX, 1, 2000, &f), 0);
  ck_assert_str_eq(f.format, "xlsx");
  ck_assert_int_eq(f.sections, 2);
  ck_assert_uint_eq(f.n_section_out, 2);
  ck_assert_str_eq(f.section_out[0].element, "Sheet");
  ck_assert_str_eq(f.section_out[0].name, "Fruit");
  ck_assert_int_eq(f.section_out[0].rows, 4);
  ck_assert_str_eq(f.section_out[0].text, "1: Item | Qty | Price\n"
                                          "2: Apples | 12 | 1.5\n"
                                          "3: Pears | 7 | 2.25\n"
                                          "4: Apples | 3 | 1.5\n");
  ck_assert_str_eq(f.section_out[1].name, "Notes");
  ck_assert_int_eq(f.section_out[1].number, 2);
  ck_assert_str_eq(f.section_out[1].text, "1: Apples | sold out on Friday\n2: 42\n");
  ck_assert(!f.truncated);
  file_result_clear(&f);
}
END_TEST

START_TEST(office_xlsx_row_window_says_how_to_read_on) {
  g_autofree char *path = fixture("fruit.xlsx");
  FileResult f;

  ck_assert_int_eq(read_path(path, OFFICE_XLSX, 2, 2, &f), 0);
  ck_assert(f.truncated);
  ck_assert_str_eq(f.section_out[0].text,
                   "2: Apples | 12 | 1.5\n3: Pears | 7 | 2.25\n"
                   "[rows 4-4 of this sheet not shown; read on with offset 4]\n");
  ck_assert_str_eq(f.section_out[1].text, "2: 42\n");
  file_result_clear(&f);
}
END_TEST

START_TEST(office_pptx_slides_and_notes) {
  g_autofree char *path = fixture("roadmap.pptx");
  FileResult f;

  ck_assert_int_eq(read_path(path, OFFICE_PPTX, 1, 2000, &f), 0);
  ck_assert_str_eq(f.format, "pptx");
  ck_assert_int_eq(f.sections, 2);
  ck_assert_uint_eq(f.n_section_out, 2);
  ck_assert_str_eq(f.section_out[0].element, "Slide");
  ck_assert_int_eq(f.section_out[0].number, 1);
  ck_assert_str_eq(f.section_out[0].text, "Roadmap\nShip notebooks and office documents\n");
  ck_assert_uint_eq(f.section_out[0].n_parts, 1);
  ck_assert_str_eq(f.section_out[0].parts[0].element, "Notes");
  ck_assert_str_eq(f.section_out[0].parts[0].text, "Say that the notebooks come first.\n");
  ck_assert_str_eq(f.section_out[1].text, "Limits\nZip bombs are refused\n");
  ck_assert_str_eq(f.section_out[1].parts[0].text, "Show the refused bomb.\n");
  file_result_clear(&f);

  ck_assert_int_eq(read_path(path, OFFICE_PPTX, 1, 1, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 1);
  ck_assert(f.truncated);
  ck_assert_str_eq(f.notice, "[slides 2-2 of 2 not shown; read on with offset 2]");
  file_result_clear(&f);
}
END_TEST

#define NS_P "http://schemas.openxmlformats.org/presentationml/2006/main"
#define NS_A "http://schemas.openxmlformats.org/drawingml/2006/main"
#define NS_R "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#define NS_W "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

/* A slide holding one text run. g_malloc'd. */
static char *slide_xml(const char *text) {
  return g_strdup_printf("<p:sld xmlns:p='" NS_P "' xmlns:a='" NS_A "'><p:cSld><p:spTree><p:sp>"
                         "<p:txBody><a:p><a:r><a:t>%s</a:t></a:r></a:p></p:txBody></p:sp>"
                         "</p:spTree></p:cSld></p:sld>",
                         text);
}

/* Adds presentation.xml and its relationships: slide file order[i] (1-based) is the i-th
 * slide. Each sldId has its plain id first, as office suites write it. */
static void add_presentation(RdZip *z, const int *order, size_t n) {
  GString *pres = g_string_new("<p:presentation xmlns:p='" NS_P "' xmlns:r='" NS_R
                               "'><p:sldIdLst>");
  GString *rels = g_string_new(
      "<Relationships xmlns='http://schemas.openxmlformats.org/package/2006/relationships'>");

  for (size_t i = 0; i < n; i++) {
    g_string_append_printf(pres, "<p:sldId id='%zu' r:id='rId%d'/>", 256 + i, order[i] + 10);
    g_string_append_printf(rels,
                           "<Relationship Id='rId%d' Type='" NS_R "/slide' "
                           "Target='slides/slide%d.xml'/>",
                           order[i] + 10, order[i]);
  }
  g_string_append(pres, "</p:sldIdLst></p:presentation>");
  g_string_append(rels, "</Relationships>");
  rd_zip_add(z, "ppt/presentation.xml", pres->str, pres->len);
  rd_zip_add(z, "ppt/_rels/presentation.xml.rels", rels->str, rels->len);
  g_string_free(pres, TRUE);
  g_string_free(rels, TRUE);
}

/* A deck of n slides whose file k holds texts[k - 1], shown in `order`; presentation.xml
 * before the slides or after them. */
static void write_pptx(const char *path, const char *const *texts, const int *order, size_t n,
                       bool presentation_first) {
  RdZip *z = rd_zip_new(path);

  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  if (presentation_first)
    add_presentation(z, order, n);
  for (size_t k = 1; k <= n; k++) {
    g_autofree char *name = g_strdup_printf("ppt/slides/slide%zu.xml", k);
    g_autofree char *xml = slide_xml(texts[k - 1]);

    rd_zip_add(z, name, xml, strlen(xml));
  }
  if (!presentation_first)
    add_presentation(z, order, n);
  rd_zip_close(z);
}

/* The deck a real office suite wrote lists its slides as presentation.xml does (checked with
 * unzip -p: sldId 256 is rId4, slides/slide1.xml; 257 is rId5, slide2.xml); a deck whose
 * second slide file comes first in the list is read in the list's order, not the files'. */
START_TEST(office_pptx_slides_in_presentation_order) {
  static const char *const texts[] = {"file one", "file two", "file three"};
  static const int order[] = {3, 1, 2};
  g_autofree char *roadmap = fixture("roadmap.pptx");
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "order.pptx", NULL);
  FileResult f;

  ck_assert_int_eq(read_path(roadmap, OFFICE_PPTX, 1, 2000, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 2);
  ck_assert(g_str_has_prefix(f.section_out[0].text, "Roadmap\n"));
  ck_assert(g_str_has_prefix(f.section_out[1].text, "Limits\n"));
  file_result_clear(&f);

  for (int first = 0; first < 2; first++) {
    write_pptx(path, texts, order, 3, first == 1);
    ck_assert_int_eq(read_path(path, OFFICE_PPTX, 1, 2000, &f), 0);
    ck_assert_int_eq(f.sections, 3);
    ck_assert_uint_eq(f.n_section_out, 3);
    ck_assert_str_eq(f.section_out[0].text, "file three\n");
    ck_assert_str_eq(f.section_out[1].text, "file one\n");
    ck_assert_str_eq(f.section_out[2].text, "file two\n");
    ck_assert_int_eq(f.section_out[2].number, 3);
    file_result_clear(&f);
  }
}
END_TEST

/* A text of `len` bytes of "word " (and one digit first, to tell them apart). g_malloc'd. */
static char *long_text(char tag, size_t len) {
  char *s = g_malloc(len + 1);

  for (size_t i = 0; i < len; i++)
    s[i] = "word "[i % 5];
  s[0] = tag;
  s[len] = '\0';
  return s;
}

/* Six slides of 300 KB of text each: more than the 1 MiB of text kept of a deck. Every slide
 * is counted; each shown slide stays under the cap and says that its text was cut, or not
 * kept; when presentation.xml comes first, a slide far in the deck is kept because it is in
 * the window. */
START_TEST(office_pptx_every_slide_counted) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "big.pptx", NULL);
  static const int order[] = {1, 2, 3, 4, 5, 6};
  char *texts[6];
  FileResult f;

  for (int i = 0; i < 6; i++)
    texts[i] = long_text((char)('1' + i), 300 * 1000);
  write_pptx(path, (const char *const *)texts, order, 6, false);
  ck_assert_int_eq(read_path(path, OFFICE_PPTX, 1, 2000, &f), 0);
  ck_assert_int_eq(f.sections, 6);
  ck_assert_uint_eq(f.n_section_out, 1);
  ck_assert_uint_le(f.section_out[0].text_len, OFFICE_MAX_CONTENT);
  ck_assert(g_str_has_prefix(f.section_out[0].text, "1ord "));
  ck_assert_msg(strstr(f.section_out[0].text, "[the rest of this slide's text is not shown") !=
                    NULL,
                "no cut marker");
  ck_assert_str_eq(f.notice, "[slides 2-6 of 6 not shown; read on with offset 2]");
  file_result_clear(&f);

  ck_assert_int_eq(read_path(path, OFFICE_PPTX, 6, 1, &f), 0);
  ck_assert_int_eq(f.sections, 6);
  ck_assert_uint_eq(f.n_section_out, 1);
  ck_assert_int_eq(f.section_out[0].number, 6);
  ck_assert_msg(strstr(f.section_out[0].text, "was not kept") != NULL, "%.80s",
                f.section_out[0].text);
  file_result_clear(&f);

  write_pptx(path, (const char *const *)texts, order, 6, true);
  ck_assert_int_eq(read_path(path, OFFICE_PPTX, 6, 1, &f), 0);
  ck_assert_int_eq(f.sections, 6);
  ck_assert(g_str_has_prefix(f.section_out[0].text, "6ord "));
  file_result_clear(&f);
  for (int i = 0; i < 6; i++)
    g_free(texts[i]);
}
END_TEST

/* A limit near 2^63 does not wrap offset + limit around: DOCX lines and PPTX slides from
 * offset on are shown, and no notice points back at the same offset. */
START_TEST(office_huge_limit_shows_the_rest) {
  g_autofree char *docx = fixture("report.docx");
  g_autofree char *pptx = fixture("roadmap.pptx");
  g_autofree char *xlsx = fixture("fruit.xlsx");
  FileResult f;

  ck_assert_int_eq(read_path(docx, OFFICE_DOCX, 9, INT64_MAX, &f), 0);
  ck_assert_str_eq(f.content, "| Pears | 7 |\nCafé, naïve, 日本語.\n");
  ck_assert_int_eq(f.shown_first, 9);
  ck_assert_int_eq(f.shown_last, 10);
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);

  ck_assert_int_eq(read_path(pptx, OFFICE_PPTX, 2, INT64_MAX, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 1);
  ck_assert_int_eq(f.section_out[0].number, 2);
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);

  ck_assert_int_eq(read_path(xlsx, OFFICE_XLSX, 3, INT64_MAX, &f), 0);
  ck_assert_str_eq(f.section_out[0].text, "3: Pears | 7 | 2.25\n4: Apples | 3 | 1.5\n");
  file_result_clear(&f);
}
END_TEST

/* A DOCX of one paragraph whose text is `text`, written as `runs` runs. */
static void write_docx_paragraph(const char *path, const char *text, int runs) {
  GString *doc = g_string_new("<w:document xmlns:w='" NS_W "'><w:body><w:p>");
  size_t len = strlen(text), step = len / (size_t)runs + 1;
  RdZip *z = rd_zip_new(path);

  for (size_t at = 0; at < len; at += step) {
    g_string_append(doc, "<w:r><w:t xml:space='preserve'>");
    g_string_append_len(doc, text + at, (gssize)MIN(step, len - at));
    g_string_append(doc, "</w:t></w:r>");
  }
  g_string_append(doc, "</w:p><w:p><w:r><w:t>after</w:t></w:r></w:p></w:body></w:document>");
  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "word/document.xml", doc->str, doc->len);
  rd_zip_close(z);
  g_string_free(doc, TRUE);
}

/* A 2 MB paragraph is not answered whole: it is cut into lines within the cap, each cut one
 * marked, and reading on with the offset the notice names moves through it to its end (the
 * 9 MB one of the report is read once, through the daemon, in test-docs-daemon.c). */
START_TEST(office_docx_long_paragraph_goes_on) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "long.docx", NULL);
  g_autofree char *text = long_text('x', 2 * 1000 * 1000);
  g_autofree char *expect = NULL;
  int64_t offset = 1, lines = 0;
  size_t seen = 0;
  FileResult f;
  struct stat st;

  write_docx_paragraph(path, text, 3);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_lt(st.st_size, 64 * 1024);
  for (int reads = 0; reads < 20; reads++) {
    ck_assert_int_eq(read_path(path, OFFICE_DOCX, offset, 2000, &f), 0);
    ck_assert_uint_le(f.content_len, OFFICE_MAX_CONTENT);
    ck_assert_int_eq(f.shown_first, offset);
    lines = f.shown_last;
    seen += f.content_len;
    if (f.notice == NULL) {
      ck_assert(g_str_has_suffix(f.content, "\nafter\n") || strcmp(f.content, "after\n") == 0);
      file_result_clear(&f);
      break;
    }
    ck_assert_msg(strstr(f.content, " \u2026 [the paragraph goes on in the next line]\n") != NULL,
                  "no marker");
    g_free(expect);
    expect = g_strdup_printf("read on with offset %" G_GINT64_FORMAT "]", f.shown_last + 1);
    ck_assert_msg(g_str_has_suffix(f.notice, expect), "%s", f.notice);
    offset = f.shown_last + 1;
    file_result_clear(&f);
  }
  /* Every byte was reached, in 2 MB / 252 KiB lines, and the paragraph after them. */
  ck_assert_uint_ge(seen, 2 * 1000 * 1000);
  ck_assert_int_eq(lines, 9);
}
END_TEST

/* A single run over libxml2's 10 MB text limit is a file too large, not a damaged one. */
START_TEST(office_docx_huge_run_too_large) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "run.docx", NULL);
  g_autofree char *text = long_text('x', 11 * 1000 * 1000);
  FileResult f;

  write_docx_paragraph(path, text, 1);
  ck_assert_int_eq(read_path(path, OFFICE_DOCX, 1, 2000, &f), -EFBIG);
  ck_assert_str_eq(f.code, CODE_FILE_TOO_LARGE);
  ck_assert_msg(strstr(f.error, "word/document.xml") != NULL, "%s", f.error);
  file_result_clear(&f);
}
END_TEST

/* A sheet whose first row holds 400 KB (cells of 20 KB): shown cut with a marker within the
 * cap, and the notice reads on with the next row, which is then shown. */
START_TEST(office_xlsx_long_row_cut) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "wide.xlsx", NULL);
  g_autofree char *cell = long_text('c', 20 * 1000);
  GString *sheet = g_string_new("<worksheet><sheetData><row r='1'>");
  RdZip *z = rd_zip_new(path);
  FileResult f;

  for (int i = 0; i < 20; i++)
    g_string_append_printf(sheet, "<c t='inlineStr'><is><t>%s</t></is></c>", cell);
  g_string_append(sheet, "</row><row r='2'><c t='inlineStr'><is><t>small</t></is></c></row>"
                         "</sheetData></worksheet>");
  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "xl/workbook.xml", "<workbook><sheets><sheet name='S'/></sheets></workbook>", 55);
  rd_zip_add(z, "xl/worksheets/sheet1.xml", sheet->str, sheet->len);
  rd_zip_close(z);
  g_string_free(sheet, TRUE);

  ck_assert_int_eq(read_path(path, OFFICE_XLSX, 1, 2000, &f), 0);
  ck_assert_uint_eq(f.n_section_out, 1);
  ck_assert_uint_le(f.section_out[0].text_len, OFFICE_MAX_CONTENT);
  ck_assert(g_str_has_prefix(f.section_out[0].text, "1: cord "));
  ck_assert_msg(strstr(f.section_out[0].text, "more bytes not shown]\n") != NULL, "no marker");
  ck_assert_msg(strstr(f.section_out[0].text, "read on with offset 2]") != NULL, "%s",
                f.section_out[0].text + f.section_out[0].text_len - 200);
  ck_assert(f.truncated);
  file_result_clear(&f);

  ck_assert_int_eq(read_path(path, OFFICE_XLSX, 2, 2000, &f), 0);
  ck_assert_str_eq(f.section_out[0].text, "2: small\n");
  file_result_clear(&f);
}
END_TEST

/* A DOCX whose document.xml inflates to `len` bytes (far over the part limit). */
static char *write_bomb(const char *dir, const char *name, size_t len, bool declare_size) {
  char *path = g_build_filename(dir, name, NULL);
  RdZip *z = rd_zip_new(path);

  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add_repeat(z, "word/document.xml", "<w:document><w:body>",
                    "<w:p><w:r><w:t>All work and no play makes a dull document. All work and no "
                    "play makes a dull document. All work and no play.</w:t></w:r></w:p>",
                    len, declare_size);
  rd_zip_close(z);
  return path;
}

START_TEST(office_zip_bomb_refused) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *declared = write_bomb(dir, "declared.docx", (size_t)96 << 20, true);
  g_autofree char *hidden = write_bomb(dir, "hidden.docx", (size_t)96 << 20, false);
  struct stat st;
  FileResult f;
  gint64 t0;

  /* The archive is small: the bytes are in the inflating. */
  ck_assert_int_eq(stat(hidden, &st), 0);
  ck_assert_int_lt(st.st_size, 2 << 20);
  ck_assert_int_eq(detect_path(declared), DETECT_DOCX);
  ck_assert_int_eq(read_path(declared, OFFICE_DOCX, 1, 2000, &f), -EFBIG);
  ck_assert_str_eq(f.code, CODE_FILE_TOO_LARGE);
  ck_assert_msg(strstr(f.error, "word/document.xml") != NULL, "error: %s", f.error);
  ck_assert_ptr_null(f.content);
  file_result_clear(&f);

  /* No size in the header: refused once the inflated bytes pass the limit, not at the end. */
  t0 = g_get_monotonic_time();
  ck_assert_int_eq(read_path(hidden, OFFICE_DOCX, 1, 2000, &f), -EFBIG);
  ck_assert_str_eq(f.code, CODE_FILE_TOO_LARGE);
  ck_assert_msg(strstr(f.error, "zip bomb") != NULL, "error: %s", f.error);
  ck_assert_int_lt(g_get_monotonic_time() - t0, 30 * G_USEC_PER_SEC);
  file_result_clear(&f);
}
END_TEST

START_TEST(office_bomb_in_unread_part_refused) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "media.docx", NULL);
  RdZip *z = rd_zip_new(path);
  FileResult f;

  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  for (int i = 0; i < 5; i++) {
    g_autofree char *name = g_strdup_printf("word/media/blob%d.bin", i);

    rd_zip_add_repeat(z, name, "", "x", (size_t)60 << 20, false);
  }
  rd_zip_close(z);
  ck_assert_int_eq(read_path(path, OFFICE_DOCX, 1, 2000, &f), -EFBIG);
  ck_assert_str_eq(f.code, CODE_FILE_TOO_LARGE);
  file_result_clear(&f);
}
END_TEST

START_TEST(office_entry_flood_refused) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "flood.docx", NULL);
  RdZip *z = rd_zip_new(path);
  FileResult f;
  gint64 t0;

  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "word/document.xml", "<w:document/>", 13);
  for (int i = 0; i < 100000; i++) {
    char name[32];

    g_snprintf(name, sizeof name, "x/%d", i);
    rd_zip_add(z, name, "", 0);
  }
  rd_zip_close(z);
  t0 = g_get_monotonic_time();
  ck_assert_int_eq(read_path(path, OFFICE_DOCX, 1, 2000, &f), -EFBIG);
  ck_assert_str_eq(f.code, CODE_FILE_TOO_LARGE);
  ck_assert_msg(strstr(f.error, "more than 10000 entries") != NULL, "error: %s", f.error);
  ck_assert_int_lt(g_get_monotonic_time() - t0, 30 * G_USEC_PER_SEC);
  file_result_clear(&f);
}
END_TEST

START_TEST(office_truncated_archive_is_corrupted) {
  g_autofree char *src = fixture("report.docx");
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *path = g_build_filename(dir, "cut.docx", NULL);
  g_autofree char *data = NULL;
  const char *doc;
  gsize len = 0;
  FileResult f;

  ck_assert(g_file_get_contents(src, &data, &len, NULL));
  /* Cut inside word/document.xml's data: its header is there, its end is not. */
  doc = memmem(data, len, "word/document.xml", 17);
  ck_assert_ptr_nonnull(doc);
  ck_assert(g_file_set_contents(path, data, doc - data + 17 + 200, NULL));
  ck_assert_int_eq(detect_path(path), DETECT_DOCX);
  ck_assert_int_lt(read_path(path, OFFICE_DOCX, 1, 2000, &f), 0);
  ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
  ck_assert_msg(strstr(f.error, "damaged or truncated") != NULL || strstr(f.error, "XML"),
                "error: %s", f.error);
  file_result_clear(&f);
}
END_TEST

START_TEST(office_bad_parts_are_corrupted) {
  g_autofree char *dir = rd_tmpdir();
  g_autofree char *bad = g_build_filename(dir, "bad.docx", NULL);
  g_autofree char *none = g_build_filename(dir, "none.xlsx", NULL);
  RdZip *z = rd_zip_new(bad);
  FileResult f;

  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "word/document.xml", "<w:document><w:body>not closed", 30);
  rd_zip_close(z);
  ck_assert_int_eq(read_path(bad, OFFICE_DOCX, 1, 2000, &f), -EBADMSG);
  ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
  ck_assert_str_eq(f.error, "part word/document.xml is not well-formed XML");
  file_result_clear(&f);

  z = rd_zip_new(none);
  rd_zip_add(z, "[Content_Types].xml", "<Types/>", 8);
  rd_zip_add(z, "xl/styles.xml", "<styleSheet/>", 13);
  rd_zip_close(z);
  ck_assert_int_eq(read_path(none, OFFICE_XLSX, 1, 2000, &f), -EBADMSG);
  ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
  file_result_clear(&f);

  /* Not a zip at all. */
  memset(&f, 0, sizeof f);
  ck_assert_int_lt(office_read_memory("hello", 5, OFFICE_PPTX, &(OfficeOptions){1, 10, NULL}, &f),
                   0);
  ck_assert_str_eq(f.code, CODE_CORRUPTED_FILE);
  file_result_clear(&f);
}
END_TEST

static Suite *office_suite(void) {
  Suite *s = suite_create("office");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, office_detects_libreoffice_files);
  tcase_add_test(tc, office_plain_zip_is_not_office);
  tcase_add_test(tc, office_docx_headings_lists_tables);
  tcase_add_test(tc, office_docx_offset_limit_pick_lines);
  tcase_add_test(tc, office_xlsx_sheets_with_shared_strings);
  tcase_add_test(tc, office_xlsx_row_window_says_how_to_read_on);
  tcase_add_test(tc, office_pptx_slides_and_notes);
  tcase_add_test(tc, office_pptx_slides_in_presentation_order);
  tcase_add_test(tc, office_pptx_every_slide_counted);
  tcase_add_test(tc, office_huge_limit_shows_the_rest);
  tcase_add_test(tc, office_docx_long_paragraph_goes_on);
  tcase_add_test(tc, office_docx_huge_run_too_large);
  tcase_add_test(tc, office_xlsx_long_row_cut);
  tcase_add_test(tc, office_zip_bomb_refused);
  tcase_add_test(tc, office_bomb_in_unread_part_refused);
  tcase_add_test(tc, office_entry_flood_refused);
  tcase_add_test(tc, office_truncated_archive_is_corrupted);
  tcase_add_test(tc, office_bad_parts_are_corrupted);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(office_suite());
}
