/* The PDF reader: page selections, the worker protocol and page encoding (pure), then whole
 * reads through the real worker process (readerd-worker, named by READERD_WORKER) of PDFs made
 * here, encrypted with qpdf, broken on purpose, and real ones from Debian packages compared
 * with pdftotext; and fake workers that crash, hang or talk nonsense. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/worker/child/pdf-doc-cache.h"
#include "daemon/worker/child/pdf-encode.h"
#include "daemon/worker/pdf-file-id.h"
#include "daemon/worker/pdf-password.h"
#include "basic/pdf-select.h"
#include "daemon/worker/pdf-spawn.h"
#include "daemon/worker/pdf-wire.h"
#include "daemon/worker/child/pdf-worker.h"
#include "daemon/readers/pdf.h"
#include "daemon/readers/reader.h"
#include "tests/lib/check-run.h"
#include "tests/lib/skip.h"

#define TASN1_PDF "/usr/share/doc/libtasn1-doc/libtasn1.pdf"
#define MIME_PDF "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"
#define REPORTLAB_PDF "/usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf"

static char *tmp_dir;

/* ---- PDFs made here ---- */

typedef enum { PG_TEXT, PG_GRAY_IMAGE, PG_PHOTO, PG_BLANK } PageKind;

typedef struct {
  PageKind kind;
  const char *text;
} GenPage;

/* PDF objects by number (1-based); bodies are binary-safe. */
typedef struct {
  GPtrArray *objs;
} Gen;

static int gen_add(Gen *g, GString *body) {
  g_ptr_array_add(g->objs, body);
  return (int)g->objs->len;
}

static int gen_reserve(Gen *g) {
  return gen_add(g, NULL);
}

static void gen_set(Gen *g, int id, GString *body) {
  g->objs->pdata[id - 1] = body;
}

static GString *gen_stream(const char *dict, const void *data, size_t len) {
  GString *s = g_string_new(NULL);

  g_string_append_printf(s, "<< %s /Length %zu >>\nstream\n", dict, len);
  g_string_append_len(s, data, (gssize)len);
  g_string_append(s, "\nendstream");
  return s;
}

/* A 64x64 image XObject: a grey ramp (8-bit grey), or RGB noise (a photo, many colours). */
static int gen_image(Gen *g, bool photo) {
  int channels = photo ? 3 : 1;
  size_t len = 64 * 64 * (size_t)channels;
  uint8_t *px = g_malloc(len);
  GRand *rand = g_rand_new_with_seed(7);
  g_autofree char *dict = g_strdup_printf(
      "/Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace %s /BitsPerComponent 8",
      photo ? "/DeviceRGB" : "/DeviceGray");
  int id;

  for (size_t i = 0; i < len; i++)
    px[i] = photo ? (uint8_t)g_rand_int_range(rand, 0, 256) : (uint8_t)((i % 64) * 4);
  id = gen_add(g, gen_stream(dict, px, len));
  g_rand_free(rand);
  g_free(px);
  return id;
}

/* One page object (its content and image too), child of pages_id, numbered `id` (reserved
 * before) or, with id 0, the next number. */
static int gen_page(Gen *g, int id, const GenPage *p, int pages_id, int font_id,
                    const char *annots) {
  g_autofree char *content = NULL, *res = NULL;
  GString *page = g_string_new(NULL);

  if (p->kind == PG_TEXT) {
    content = g_strdup_printf("BT /F1 18 Tf 72 720 Td (%s) Tj ET", p->text);
    res = g_strdup_printf("<< /Font << /F1 %d 0 R >> >>", font_id);
  } else if (p->kind == PG_BLANK) {
    content = g_strdup("");
    res = g_strdup("<< >>");
  } else {
    content = g_strdup("q 400 0 0 400 100 300 cm /Im1 Do Q");
    res = g_strdup_printf("<< /XObject << /Im1 %d 0 R >> >>", gen_image(g, p->kind == PG_PHOTO));
  }
  g_string_append_printf(page,
                         "<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                         "/Resources %s %s >>",
                         pages_id, gen_add(g, gen_stream("", content, strlen(content))), res,
                         annots != NULL ? annots : "");
  if (id == 0)
    return gen_add(g, page);
  gen_set(g, id, page);
  return id;
}

/* Sets object id to a printf-formatted body. */
static __attribute__((format(printf, 3, 4))) void gen_setf(Gen *g, int id, const char *fmt, ...) {
  GString *s = g_string_new(NULL);
  va_list ap;

  va_start(ap, fmt);
  g_string_vprintf(s, fmt, ap);
  va_end(ap);
  gen_set(g, id, s);
}

/* The objects, cross-reference table and trailer. */
static GString *gen_finish(Gen *g, int root, int info) {
  GString *out = g_string_new("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n");
  GArray *offsets = g_array_new(FALSE, FALSE, sizeof(size_t));
  size_t xref;

  for (guint i = 0; i < g->objs->len; i++) {
    GString *body = g->objs->pdata[i];

    g_array_append_val(offsets, out->len);
    g_string_append_printf(out, "%u 0 obj\n", i + 1);
    g_string_append_len(out, body->str, (gssize)body->len);
    g_string_append(out, "\nendobj\n");
    g_string_free(body, TRUE);
  }
  xref = out->len;
  g_string_append_printf(out, "xref\n0 %u\n0000000000 65535 f \n", g->objs->len + 1);
  for (guint i = 0; i < offsets->len; i++)
    g_string_append_printf(out, "%010zu 00000 n \n", g_array_index(offsets, size_t, i));
  g_string_append_printf(out, "trailer\n<< /Size %u /Root %d 0 R", g->objs->len + 1, root);
  if (info > 0)
    g_string_append_printf(out, " /Info %d 0 R", info);
  g_string_append_printf(out, " >>\nstartxref\n%zu\n%%%%EOF\n", xref);
  g_array_free(offsets, TRUE);
  g_ptr_array_free(g->objs, TRUE);
  return out;
}

/* A PDF of the given pages, with document info when title is set. */
static GString *gen_pdf(const GenPage *pages, size_t n, const char *title) {
  Gen g = {.objs = g_ptr_array_new()};
  int catalog = gen_reserve(&g), pages_id = gen_reserve(&g), info = 0;
  int font = gen_add(&g, g_string_new("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"));
  GString *kids = g_string_new(NULL);

  for (size_t i = 0; i < n; i++)
    g_string_append_printf(kids, "%d 0 R ", gen_page(&g, 0, &pages[i], pages_id, font, NULL));
  gen_setf(&g, pages_id, "<< /Type /Pages /Kids [%s] /Count %zu >>", kids->str, n);
  gen_setf(&g, catalog, "<< /Type /Catalog /Pages %d 0 R >>", pages_id);
  if (title != NULL) {
    info = gen_reserve(&g);
    gen_setf(&g, info, "<< /Title (%s) /Author (Ann Author) >>", title);
  }
  g_string_free(kids, TRUE);
  return gen_finish(&g, catalog, info);
}

/* A one-page PDF with a filled text field, a checked box, a two-entry outline and info. */
static GString *gen_form_pdf(void) {
  static const GenPage page = {PG_TEXT, "Application form"};
  Gen g = {.objs = g_ptr_array_new()};
  int catalog = gen_reserve(&g), pages_id = gen_reserve(&g), page_id = gen_reserve(&g);
  int font = gen_add(&g, g_string_new("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"));
  int ap = gen_add(&g, gen_stream("/Type /XObject /Subtype /Form /BBox [0 0 18 18]", "", 0));
  int name = gen_reserve(&g), box = gen_reserve(&g), outlines = gen_reserve(&g);
  int first = gen_reserve(&g), second = gen_reserve(&g), info = gen_reserve(&g);
  g_autofree char *annots = g_strdup_printf("/Annots [%d 0 R %d 0 R]", name, box);

  gen_setf(&g, name,
           "<< /Type /Annot /Subtype /Widget /FT /Tx /T (full_name) /TU (Full name) "
           "/V (Jane Doe) /Rect [72 600 300 620] /P %d 0 R >>",
           page_id);
  gen_setf(&g, box,
           "<< /Type /Annot /Subtype /Widget /FT /Btn /T (subscribe) /V /Yes /AS /Yes "
           "/Rect [72 560 90 578] /P %d 0 R /AP << /N << /Yes %d 0 R /Off %d 0 R >> >> >>",
           page_id, ap, ap);
  gen_page(&g, page_id, &page, pages_id, font, annots);
  gen_setf(&g, pages_id, "<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page_id);
  gen_setf(&g, outlines, "<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count 2 >>", first,
           second);
  gen_setf(&g, first, "<< /Title (Intro) /Parent %d 0 R /Next %d 0 R /Dest [%d 0 R /Fit] >>",
           outlines, second, page_id);
  gen_setf(&g, second, "<< /Title (The form) /Parent %d 0 R /Prev %d 0 R /Dest [%d 0 R /Fit] >>",
           outlines, first, page_id);
  gen_setf(&g, info, "<< /Title (The Form) /Author (Ann Author) >>");
  gen_setf(&g, catalog,
           "<< /Type /Catalog /Pages %d 0 R /AcroForm << /Fields [%d 0 R %d 0 R] >> "
           "/Outlines %d 0 R >>",
           pages_id, name, box, outlines);
  return gen_finish(&g, catalog, info);
}

static char *write_file(const char *name, const void *data, size_t len) {
  char *path = g_build_filename(tmp_dir, name, NULL);
  GError *err = NULL;

  ck_assert_msg(g_file_set_contents(path, data, (gssize)len, &err), "%s", err ? err->message : "");
  return path;
}

static char *write_pdf(const char *name, GString *pdf) {
  char *path = write_file(name, pdf->str, pdf->len);

  g_string_free(pdf, TRUE);
  return path;
}

/* "page 1" ... "page n" */
static char *write_numbered_pdf(const char *name, int n) {
  GenPage *pages = g_new(GenPage, n);
  char **texts = g_new0(char *, n + 1);
  char *path;

  for (int i = 0; i < n; i++) {
    texts[i] = g_strdup_printf("page number %d", i + 1);
    pages[i] = (GenPage){PG_TEXT, texts[i]};
  }
  path = write_pdf(name, gen_pdf(pages, (size_t)n, NULL));
  g_strfreev(texts);
  g_free(pages);
  return path;
}

/* ---- reading ---- */

typedef struct {
  const char *pages;
  const char *password;
  bool render;
  int max_dimension;       /* 0: 1568 */
  int64_t max_image_bytes; /* 0: the default; negative: no pictures at all */
} ReadOpts;

/* Reads path with pdf_read into *res (cleared first). Returns pdf_read's value. */
static int read_pdf(const char *path, const ReadOpts *o, FileResult *res) {
  static const ReadOpts none = {0};
  PdfOptions opt;
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC), r;

  if (o == NULL)
    o = &none;
  opt = (PdfOptions){.pages = o->pages,
                     .password = o->password,
                     .render = o->render,
                     .max_dimension = o->max_dimension > 0 ? o->max_dimension : 1568,
                     .max_image_bytes = o->max_image_bytes == 0 ? -1 : MAX(o->max_image_bytes, 0)};
  ck_assert_msg(fd >= 0, "open %s: %s", path, g_strerror(errno));
  ck_assert_int_eq(fstat(fd, &st), 0);
  memset(res, 0, sizeof(*res));
  res->path = g_strdup(path);
  res->bytes = st.st_size;
  r = pdf_read(fd, &st, &opt, res);
  close(fd);
  return r;
}

/* The page numbers shown, as "1 2 3". */
static char *page_numbers(const FileResult *f) {
  GString *s = g_string_new(NULL);

  for (size_t i = 0; i < f->n_page_out; i++)
    g_string_append_printf(s, "%s%d", i > 0 ? " " : "", f->page_out[i].number);
  return g_string_free(s, FALSE);
}

static void assert_pages(const FileResult *f, const char *want) {
  g_autofree char *got = page_numbers(f);

  ck_assert_msg(f->code == NULL, "%s: %s", f->code, f->error);
  ck_assert_str_eq(got, want);
}

static void assert_code(const FileResult *f, const char *code, const char *in_message) {
  ck_assert_msg(f->code != NULL && strcmp(f->code, code) == 0, "code %s (%s), not %s",
                f->code ? f->code : "none", f->error ? f->error : "", code);
  ck_assert_msg(strstr(f->error, in_message) != NULL, "message '%s' lacks '%s'", f->error,
                in_message);
}

/* Decodes an ImageOut with gdk-pixbuf and checks it against its own fields. */
static void assert_image_decodes(const ImageOut *img, int max_dim) {
  gsize len = 0;
  g_autofree guchar *bytes = g_base64_decode(img->data, &len);
  GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
  GdkPixbuf *pb;

  ck_assert_msg(gdk_pixbuf_loader_write(loader, bytes, len, NULL), "picture does not decode");
  ck_assert(gdk_pixbuf_loader_close(loader, NULL));
  pb = gdk_pixbuf_loader_get_pixbuf(loader);
  ck_assert_int_eq(gdk_pixbuf_get_width(pb), img->width);
  ck_assert_int_eq(gdk_pixbuf_get_height(pb), img->height);
  ck_assert_int_eq(MAX(img->width, img->height), max_dim);
  ck_assert_uint_le(img->data_len, PDF_IMAGE_MAX_BASE64);
  if (strcmp(img->media_type, "image/png") == 0)
    ck_assert(memcmp(bytes, "\x89PNG", 4) == 0);
  else
    ck_assert(memcmp(bytes, "\xFF\xD8", 2) == 0);
  g_object_unref(loader);
}

/* Runs argv, returns its stdout (NULL when it cannot run or fails). */
static char *run(const char *const *argv) {
  char *out = NULL;
  int status = 0;

  if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                    NULL, NULL, &out, NULL, &status, NULL))
    return NULL;
  if (!g_spawn_check_wait_status(status, NULL)) {
    g_free(out);
    return NULL;
  }
  return out;
}

static bool have_program(const char *name) {
  g_autofree char *p = g_find_program_in_path(name);

  return p != NULL;
}

/* s without white space and hyphens. */
static GString *squeeze(const char *s) {
  GString *out = g_string_new(NULL);

  for (; *s != '\0'; s++)
    if (!g_ascii_isspace(*s) && *s != '-')
      g_string_append_c(out, *s);
  return out;
}

/* Whether two extractions of one page say (loosely) the same: the same characters, give or
 * take 3%, and 95% of the longer words of `ours` found in `ref` (the two may join table
 * cells, lines and hyphenated words differently). */
static bool same_text(const char *ours, const char *ref, char **ret_diff) {
  GString *a = squeeze(ours), *b = squeeze(ref), *diff = g_string_new(NULL);
  g_auto(GStrv) words = g_regex_split_simple("[\\s-]+", ours, 0, 0);
  long hist[256] = {0};
  size_t off = 0, total = a->len + b->len, long_words = 0, missing = 0;

  for (size_t i = 0; i < a->len; i++)
    hist[(unsigned char)a->str[i]]++;
  for (size_t i = 0; i < b->len; i++)
    hist[(unsigned char)b->str[i]]--;
  for (size_t c = 0; c < 256; c++)
    off += (size_t)labs(hist[c]);
  for (char **w = words; *w != NULL; w++) {
    if (strlen(*w) < 4)
      continue;
    long_words++;
    if (strstr(b->str, *w) == NULL && ++missing < 10)
      g_string_append_printf(diff, " '%s'", *w);
  }
  g_string_append_printf(diff, " (%zu of %zu characters differ, %zu of %zu words missing)", off,
                         total, missing, long_words);
  g_string_free(a, TRUE);
  g_string_free(b, TRUE);
  *ret_diff = g_string_free(diff, FALSE);
  return off <= total * 3 / 100 + 4 && missing <= long_words / 20 + 1;
}

/* pdftotext of the whole file, one string per page (it ends each page with a form feed). */
static char **pdftotext_pages(const char *path) {
  const char *argv[] = {"pdftotext", "-enc", "UTF-8", path, "-", NULL};
  g_autofree char *out = run(argv);

  return out != NULL ? g_strsplit(out, "\f", -1) : NULL;
}

/* Reads every page of path through continuation notices, as a client would, and compares
 * each page with pdftotext. Returns the number of reads it took. */
static int compare_with_pdftotext(const char *path, int want_pages) {
  g_auto(GStrv) ref = pdftotext_pages(path);
  g_autofree char *pages = NULL;
  int next = 1, reads = 0;

  ck_assert_ptr_nonnull(ref);
  ck_assert_uint_ge(g_strv_length(ref), (guint)want_pages);
  while (next > 0) {
    FileResult f;
    const char *cont;

    g_free(pages);
    pages = g_strdup_printf("%d-", next);
    read_pdf(path, &(ReadOpts){.pages = pages}, &f);
    ck_assert_msg(f.code == NULL, "%s: %s", f.code, f.error);
    ck_assert_int_eq(f.pages, want_pages);
    reads++;
    for (size_t i = 0; i < f.n_page_out; i++) {
      const PageOut *p = &f.page_out[i];
      g_autofree char *diff = NULL;

      ck_assert_int_eq(p->number, next);
      /* The comparison can tell pages apart: this page is not the next one. */
      if (p->number < want_pages && strlen(ref[p->number]) > 200)
        ck_assert_msg(!same_text(p->text, ref[p->number], &diff), "page %d", p->number);
      g_clear_pointer(&diff, g_free);
      ck_assert_msg(same_text(p->text, ref[p->number - 1], &diff), "%s page %d differs:%s", path,
                    p->number, diff);
      next++;
    }
    cont = f.notice != NULL ? strstr(f.notice, "continue with pages=\"") : NULL;
    ck_assert_msg((cont != NULL) == (next <= want_pages), "notice '%s' after page %d", f.notice,
                  next - 1);
    if (cont != NULL)
      ck_assert_int_eq(atoi(cont + strlen("continue with pages=\"")), next);
    else
      next = 0;
    file_result_clear(&f);
  }
  return reads;
}

/* ---- pdf-select ---- */

static char *select_str(const char *spec) {
  PdfSelection sel;
  char *s;

  ck_assert_int_eq(pdf_select_parse(spec, &sel), 0);
  s = pdf_select_format_after(&sel, 0, 0);
  pdf_select_clear(&sel);
  return s;
}

START_TEST(pdf_select_parses_and_normalizes) {
  static const char *const cases[][2] = {
      {"3", "3"},           {"2-5", "2-5"},       {"1,28-", "1,28-"},
      {" 7 , 2 - 3", NULL}, {"5,1-3,2", "1-3,5"}, {"1-3,4", "1-4"},
      {"10-,3-12", "3-"},   {"4-4", "4"},         {"2147483647", "2147483647"},
      {"1, 3 ,5", "1,3,5"}, {"9-,2", "2,9-"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    PdfSelection sel;
    int r = pdf_select_parse(cases[i][0], &sel);

    if (cases[i][1] == NULL) { /* "2 - 3": a space after the dash is not the syntax */
      ck_assert_int_eq(r, -EINVAL);
      continue;
    }
    ck_assert_msg(r == 0, "'%s' refused", cases[i][0]);
    pdf_select_clear(&sel);
    g_autofree char *got = select_str(cases[i][0]);
    ck_assert_str_eq(got, cases[i][1]);
  }
  /* NULL selects everything. */
  g_autofree char *all = select_str(NULL);
  ck_assert_str_eq(all, "1-");
}
END_TEST

START_TEST(pdf_select_rejects_bad_syntax) {
  static const char *const bad[] = {"",   " ",  "0",   "3-2",        "a",   "1,,2", "1-2-3", ",1",
                                    "1,", "-3", "1.5", "2147483648", "1;2", "1 2",  "0-4"};

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    PdfSelection sel = {0};

    ck_assert_msg(pdf_select_parse(bad[i], &sel) == -EINVAL, "'%s' accepted", bad[i]);
    ck_assert_ptr_null(sel.ranges);
    ck_assert_uint_eq(sel.n, 0);
  }
}
END_TEST

START_TEST(pdf_select_checks_range) {
  PdfSelection sel;
  int32_t bad = 0;

  ck_assert_int_eq(pdf_select_parse("2-40", &sel), 0);
  ck_assert_int_eq(pdf_select_check(&sel, 30, &bad), 0); /* cut at the end, not refused */
  pdf_select_clear(&sel);
  ck_assert_int_eq(pdf_select_parse("1,31", &sel), 0);
  ck_assert_int_eq(pdf_select_check(&sel, 30, &bad), -ERANGE);
  ck_assert_int_eq(bad, 31);
  pdf_select_clear(&sel);
  ck_assert_int_eq(pdf_select_parse("40-,1", &sel), 0);
  ck_assert_int_eq(pdf_select_check(&sel, 30, &bad), -ERANGE);
  ck_assert_int_eq(bad, 40);
  ck_assert_int_eq(pdf_select_check(&sel, 40, &bad), 0);
  pdf_select_clear(&sel);
}
END_TEST

START_TEST(pdf_select_walks_and_formats) {
  PdfSelection sel;
  int32_t p = 0;
  GString *walked = g_string_new(NULL);
  char *s;

  ck_assert_int_eq(pdf_select_parse("40-50,1-5", &sel), 0);
  while ((p = pdf_select_next(&sel, p, 45)) > 0)
    g_string_append_printf(walked, "%d ", p);
  ck_assert_str_eq(walked->str, "1 2 3 4 5 40 41 42 43 44 45 ");
  ck_assert_int_eq(pdf_select_count_after(&sel, 3, 45), 8);
  ck_assert_int_eq(pdf_select_count_after(&sel, 45, 45), 0);
  s = pdf_select_format_after(&sel, 3, 45);
  ck_assert_str_eq(s, "4-5,40-45");
  g_free(s);
  s = pdf_select_format_after(&sel, 3, 0);
  ck_assert_str_eq(s, "4-5,40-50");
  g_free(s);
  s = pdf_select_format_after(&sel, 49, 0);
  ck_assert_str_eq(s, "50");
  g_free(s);
  s = pdf_select_format_after(&sel, 50, 0);
  ck_assert_str_eq(s, "");
  g_free(s);
  pdf_select_clear(&sel);

  ck_assert_int_eq(pdf_select_parse(NULL, &sel), 0);
  s = pdf_select_format_after(&sel, 20, 134);
  ck_assert_str_eq(s, "21-134");
  g_free(s);
  s = pdf_select_format_after(&sel, 20, 0);
  ck_assert_str_eq(s, "21-");
  g_free(s);
  ck_assert_int_eq(pdf_select_count_after(&sel, 20, 134), 114);
  ck_assert_int_eq(pdf_select_next(&sel, PDF_SELECT_OPEN_END, INT32_MAX), 0);
  pdf_select_clear(&sel);
  pdf_select_clear(NULL);
  g_string_free(walked, TRUE);
}
END_TEST

/* ---- pdf-password ---- */

/* n copies of the UTF-8 character c, then tail. */
static char *repeat(const char *c, size_t n, const char *tail) {
  GString *s = g_string_new(NULL);

  for (size_t i = 0; i < n; i++)
    g_string_append(s, c);
  g_string_append(s, tail);
  return g_string_free(s, FALSE);
}

START_TEST(pdf_password_cuts_by_rule) {
  static const size_t lens[] = {0, 5, 32, 33, 127, 128, 200, 100000};
  g_autofree char *ascii = repeat("a", 100000, "");
  g_autofree char *latin1 = repeat("\xC3\xA9", 40, "");   /* é: one Latin-1 byte each */
  g_autofree char *euro = repeat("\xE2\x82\xAC", 40, ""); /* €: not Latin-1 */
  g_autofree char *split = repeat("a", 126, "\xC3\xA9");  /* 128 bytes, é across 127 */
  g_autofree char *broken = repeat("\xC3\xA9", 10,
                                   "\xFF\xFE"
                                   "0123456789012345678901234567");

  for (size_t i = 0; i < G_N_ELEMENTS(lens); i++) {
    ck_assert_uint_eq(pdf_password_cut(ascii, lens[i], PDF_PASSWORD_AES256), MIN(lens[i], 127));
    ck_assert_uint_eq(pdf_password_cut(ascii, lens[i], PDF_PASSWORD_PADDED), MIN(lens[i], 32));
  }
  /* AES-256 counts bytes, and cuts inside a character as conforming writers do. */
  ck_assert_uint_eq(pdf_password_cut(split, strlen(split), PDF_PASSWORD_AES256), 127);
  ck_assert_uint_eq(pdf_password_cut(latin1, strlen(latin1), PDF_PASSWORD_AES256), 80);
  /* The padding algorithm counts Latin-1 bytes: 32 characters of é are 64 bytes of UTF-8. */
  ck_assert_uint_eq(pdf_password_cut(latin1, strlen(latin1), PDF_PASSWORD_PADDED), 64);
  ck_assert_uint_eq(pdf_password_cut(latin1, 20, PDF_PASSWORD_PADDED), 20);
  ck_assert_uint_eq(pdf_password_cut(euro, strlen(euro), PDF_PASSWORD_PADDED), 32);
  ck_assert_uint_eq(pdf_password_cut(broken, strlen(broken), PDF_PASSWORD_PADDED), 32);
  /* Never past len, even when the string goes on. */
  ck_assert_uint_eq(pdf_password_cut(latin1, 33, PDF_PASSWORD_PADDED), 32);
  ck_assert_uint_eq(pdf_password_cut(latin1, 3, PDF_PASSWORD_PADDED), 3);
}
END_TEST

/* ---- pdf-file-id and pdf-doc-cache ---- */

START_TEST(pdf_file_id_round_trips) {
  struct stat st = {.st_dev = 2049, .st_ino = 1234567, .st_size = 142786};
  PdfFileId id, back, other;
  GByteArray *b = g_byte_array_new();
  PdfRecord rec;

  st.st_mtim = (struct timespec){.tv_sec = 1795452194, .tv_nsec = 4000123};
  st.st_ctim = (struct timespec){.tv_sec = 1795452195, .tv_nsec = 999999999};
  pdf_file_id_from_stat(&st, &id);
  pdf_file_id_put(b, PDF_REQ_FILE_ID, &id);
  ck_assert_int_eq(pdf_wire_next(b->data, b->len, &rec), PDF_WIRE_HEADER + PDF_FILE_ID_BYTES);
  ck_assert_uint_eq(rec.tag, PDF_REQ_FILE_ID);
  ck_assert_int_eq(pdf_file_id_parse(&rec, &back), 0);
  ck_assert(pdf_file_id_equal(&id, &back));
  ck_assert_uint_eq(back.ino, 1234567);
  ck_assert_uint_eq(back.ctime_nsec, 999999999);
  /* Any field that moves makes another file, or the same inode with other contents. */
  for (int field = 0; field < 5; field++) {
    other = id;
    if (field == 0)
      other.size++;
    else if (field == 1)
      other.mtime_nsec++;
    else if (field == 2)
      other.ctime_sec++;
    else if (field == 3)
      other.ino++;
    else
      other.dev++;
    ck_assert(!pdf_file_id_equal(&id, &other));
    ck_assert(pdf_file_id_same_inode(&id, &other) == (field < 3));
  }
  /* A short record or nanoseconds out of range are refused. */
  rec.len--;
  ck_assert_int_eq(pdf_file_id_parse(&rec, &back), -EBADMSG);
  g_byte_array_set_size(b, 0);
  id.mtime_nsec = 1000000000u;
  pdf_file_id_put(b, PDF_REQ_FILE_ID, &id);
  ck_assert_int_gt(pdf_wire_next(b->data, b->len, &rec), 0);
  ck_assert_int_eq(pdf_file_id_parse(&rec, &back), -EBADMSG);
  g_byte_array_free(b, TRUE);
}
END_TEST

/* A real poppler document of one page saying `text`. */
static PopplerDocument *small_document(const char *text) {
  GenPage page = {PG_TEXT, text};
  GString *pdf = gen_pdf(&page, 1, NULL);
  GBytes *bytes = g_bytes_new(pdf->str, pdf->len);
  PopplerDocument *doc = poppler_document_new_from_bytes(bytes, NULL, NULL);

  ck_assert_ptr_nonnull(doc);
  g_bytes_unref(bytes);
  g_string_free(pdf, TRUE);
  return doc;
}

/* Keeps a new document saying `text` under id and password. */
static void put_document(PdfDocCache *c, const PdfFileId *id, const char *password,
                         const char *text) {
  PopplerDocument *doc = small_document(text);

  pdf_doc_cache_put(c, id, password, doc);
  g_object_unref(doc);
}

static PdfFileId file_id(uint64_t ino, uint64_t size) {
  return (PdfFileId){.dev = 1, .ino = ino, .size = size, .mtime_sec = 100, .ctime_sec = 100};
}

/* The text of the only page of a document the cache gave (NULL: none), and the reference
 * dropped. */
static char *cached_text(PopplerDocument *doc) {
  PopplerPage *page;
  char *text;

  if (doc == NULL)
    return g_strdup("(none)");
  page = poppler_document_get_page(doc, 0);
  text = poppler_page_get_text(page);
  g_object_unref(page);
  g_object_unref(doc);
  return text;
}

#define ASSERT_CACHED(c, id, pw, want)                                                             \
  do {                                                                                             \
    g_autofree char *got_ = cached_text(pdf_doc_cache_get((c), (id), (pw)));                       \
    ck_assert_str_eq(got_, (want));                                                                \
  } while (0)

START_TEST(pdf_doc_cache_keys_and_bounds) {
  PdfDocCache *c = pdf_doc_cache_new(PDF_DOC_CACHE_MAX_DOCS, PDF_DOC_CACHE_MAX_HEAP);
  PdfFileId ids[5], changed;
  char name[16];

  for (int i = 0; i < 5; i++) {
    g_snprintf(name, sizeof(name), "doc %d", i);
    ids[i] = file_id(10 + (uint64_t)i, 1000);
    put_document(c, &ids[i], NULL, name);
    ck_assert_uint_le(pdf_doc_cache_len(c), PDF_DOC_CACHE_MAX_DOCS);
  }
  /* Never more than PDF_DOC_CACHE_MAX_DOCS: the least recently used went. */
  ck_assert_uint_eq(pdf_doc_cache_len(c), 3);
  ASSERT_CACHED(c, &ids[0], NULL, "(none)");
  ASSERT_CACHED(c, &ids[1], NULL, "(none)");
  ASSERT_CACHED(c, &ids[2], NULL, "doc 2");           /* now the most recently used */
  ASSERT_CACHED(c, &ids[4], "any password", "doc 4"); /* opened without one */
  /* The same inode with another size, mtime or ctime is another file. */
  changed = ids[4];
  changed.size++;
  ASSERT_CACHED(c, &changed, NULL, "(none)");
  changed = ids[4];
  changed.mtime_nsec = 1;
  ASSERT_CACHED(c, &changed, NULL, "(none)");
  changed = ids[4];
  changed.ctime_sec++;
  ASSERT_CACHED(c, &changed, NULL, "(none)");
  /* Its new version replaces the old one. */
  put_document(c, &changed, NULL, "doc 4, rewritten");
  ck_assert_uint_eq(pdf_doc_cache_len(c), 3);
  ASSERT_CACHED(c, &ids[4], NULL, "(none)");
  ASSERT_CACHED(c, &changed, NULL, "doc 4, rewritten");
  /* ids[3] was the least recently used: the next one pushes it out. */
  put_document(c, &ids[0], "pw", "secret");
  ASSERT_CACHED(c, &ids[3], NULL, "(none)");
  /* A document that needed a password is served under that password only. */
  ASSERT_CACHED(c, &ids[0], NULL, "(none)");
  ASSERT_CACHED(c, &ids[0], "PW", "(none)");
  ASSERT_CACHED(c, &ids[0], "pw\x01", "(none)");
  ASSERT_CACHED(c, &ids[0], "pw", "secret");
  pdf_doc_cache_free(c);
}
END_TEST

static int heap_calls;

/* A heap that is over any bound for its first two looks. */
static size_t heap_shrinking(void) {
  return heap_calls++ < 2 ? SIZE_MAX : 0;
}

START_TEST(pdf_doc_cache_trims_to_heap) {
  PdfDocCache *c = pdf_doc_cache_new(PDF_DOC_CACHE_MAX_DOCS, PDF_DOC_CACHE_MAX_HEAP);
  PdfFileId last;

  for (int i = 0; i < 3; i++) {
    PdfFileId id = file_id((uint64_t)i, 1);

    put_document(c, &id, NULL, "kept");
  }
  /* The real heap of this small test is under 256 MiB: nothing goes. */
  ck_assert_uint_eq(pdf_doc_cache_trim(c, pdf_doc_cache_heap_used), 0);
  ck_assert_uint_eq(pdf_doc_cache_len(c), 3);
  /* Over the bound, the oldest go until it is met: here, two looks. */
  heap_calls = 0;
  ck_assert_uint_eq(pdf_doc_cache_trim(c, heap_shrinking), 2);
  ck_assert_uint_eq(pdf_doc_cache_len(c), 1);
  last = file_id(2, 1);
  ASSERT_CACHED(c, &last, NULL, "kept");
  /* Never over it: everything goes. */
  heap_calls = -1000;
  ck_assert_uint_eq(pdf_doc_cache_trim(c, heap_shrinking), 1);
  ck_assert_uint_eq(pdf_doc_cache_len(c), 0);
  pdf_doc_cache_free(c);
  pdf_doc_cache_free(NULL);
}
END_TEST

/* ---- pdf-wire ---- */

START_TEST(pdf_wire_round_trips) {
  GByteArray *b = g_byte_array_new();
  static const uint8_t blob[] = {0, 1, 2, 0xFF, 0};
  PdfRecord rec;
  size_t at = 0;
  ssize_t n;
  uint32_t v = 0;

  pdf_wire_put_u32(b, PDF_RES_DOC, 134);
  pdf_wire_put_str(b, PDF_RES_TITLE, "caf\xC3\xA9");
  pdf_wire_put(b, PDF_RES_PAGE_IMAGE, blob, sizeof(blob));
  pdf_wire_put_str(b, PDF_RES_NOTICE, NULL);
  pdf_wire_put(b, PDF_RES_END, NULL, 0);

  n = pdf_wire_next(b->data + at, b->len - at, &rec);
  ck_assert_int_eq(n, PDF_WIRE_HEADER + 4);
  ck_assert_uint_eq(rec.tag, PDF_RES_DOC);
  ck_assert_int_eq(pdf_wire_u32(&rec, 0, &v), 0);
  ck_assert_uint_eq(v, 134);
  ck_assert_int_eq(pdf_wire_u32(&rec, 1, &v), -EBADMSG);
  at += (size_t)n;
  n = pdf_wire_next(b->data + at, b->len - at, &rec);
  ck_assert_uint_eq(rec.tag, PDF_RES_TITLE);
  ck_assert_uint_eq(rec.len, 5);
  ck_assert(memcmp(rec.data, "caf\xC3\xA9", 5) == 0);
  at += (size_t)n;
  n = pdf_wire_next(b->data + at, b->len - at, &rec);
  ck_assert_uint_eq(rec.len, sizeof(blob));
  ck_assert(memcmp(rec.data, blob, sizeof(blob)) == 0);
  at += (size_t)n;
  n = pdf_wire_next(b->data + at, b->len - at, &rec);
  ck_assert_uint_eq(rec.tag, PDF_RES_NOTICE);
  ck_assert_uint_eq(rec.len, 0);
  at += (size_t)n;
  n = pdf_wire_next(b->data + at, b->len - at, &rec);
  ck_assert_uint_eq(rec.tag, PDF_RES_END);
  at += (size_t)n;
  ck_assert_uint_eq(at, b->len);
  ck_assert_int_eq(pdf_wire_next(b->data + at, 0, &rec), 0);
  g_byte_array_free(b, TRUE);
}
END_TEST

START_TEST(pdf_wire_waits_for_whole_records) {
  GByteArray *b = g_byte_array_new();
  uint8_t huge[PDF_WIRE_HEADER] = {1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
  PdfRecord rec;

  pdf_wire_put_str(b, PDF_RES_PAGE_TEXT, "some page text");
  for (size_t len = 0; len < b->len; len++)
    ck_assert_int_eq(pdf_wire_next(b->data, len, &rec), 0);
  ck_assert_int_eq(pdf_wire_next(b->data, b->len, &rec), (ssize_t)b->len);
  /* A header announcing more than the cap is a broken stream, at once. */
  ck_assert_int_eq(pdf_wire_next(huge, sizeof(huge), &rec), -EBADMSG);
  g_byte_array_free(b, TRUE);
}
END_TEST

/* ---- pdf-encode ---- */

/* A w x h RGB24 picture (stride padded) of `colors` distinct colours in stripes, or random
 * noise when colors is 0. */
static uint8_t *make_pixels(int w, int h, int colors, size_t *ret_stride) {
  size_t stride = (size_t)w * 4 + 16;
  uint8_t *px = g_malloc0(stride * (size_t)h);
  GRand *rand = g_rand_new_with_seed(42);

  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      uint32_t c = colors > 0 ? (uint32_t)((x + y) % colors) * 0x010305u : g_rand_int(rand);

      memcpy(px + (size_t)y * stride + (size_t)x * 4, &c, 4);
    }
  }
  g_rand_free(rand);
  *ret_stride = stride;
  return px;
}

static GdkPixbuf *decode(const uint8_t *data, size_t len) {
  GdkPixbufLoader *loader = gdk_pixbuf_loader_new();
  GdkPixbuf *pb;

  ck_assert(gdk_pixbuf_loader_write(loader, data, len, NULL));
  ck_assert(gdk_pixbuf_loader_close(loader, NULL));
  pb = g_object_ref(gdk_pixbuf_loader_get_pixbuf(loader));
  g_object_unref(loader);
  return pb;
}

START_TEST(pdf_encode_png_is_lossless) {
  size_t stride, len = 0;
  uint8_t *px = make_pixels(97, 31, 200, &stride), *data = NULL;
  GdkPixbuf *pb;

  ck_assert_int_eq(pdf_encode_png(px, 97, 31, stride, &data, &len), 0);
  pb = decode(data, len);
  ck_assert_int_eq(gdk_pixbuf_get_width(pb), 97);
  ck_assert_int_eq(gdk_pixbuf_get_height(pb), 31);
  for (int y = 0; y < 31; y++) {
    for (int x = 0; x < 97; x++) {
      const guchar *d = gdk_pixbuf_read_pixels(pb) + y * gdk_pixbuf_get_rowstride(pb) +
                        x * gdk_pixbuf_get_n_channels(pb);
      uint32_t c;

      memcpy(&c, px + (size_t)y * stride + (size_t)x * 4, 4);
      ck_assert_uint_eq(((uint32_t)d[0] << 16 | (uint32_t)d[1] << 8 | d[2]), c & 0xFFFFFF);
    }
  }
  g_object_unref(pb);
  g_free(data);
  g_free(px);
}
END_TEST

START_TEST(pdf_encode_many_colors_is_jpeg) {
  size_t stride, len = 0;
  uint8_t *noise = make_pixels(64, 48, 0, &stride), *few = NULL, *data = NULL;
  PdfEncoded enc = {0};
  GdkPixbuf *pb;

  ck_assert_int_eq(pdf_encode_png(noise, 64, 48, stride, &data, &len), -E2BIG);
  ck_assert_int_eq(pdf_encode_page(noise, 64, 48, stride, 1 << 20, &enc), 0);
  ck_assert_int_eq(enc.media, PDF_MEDIA_JPEG);
  pb = decode(enc.data, enc.len);
  ck_assert_int_eq(gdk_pixbuf_get_width(pb), 64);
  ck_assert_int_eq(gdk_pixbuf_get_height(pb), 48);
  g_object_unref(pb);
  g_free(enc.data);

  few = make_pixels(64, 48, 3, &stride);
  ck_assert_int_eq(pdf_encode_page(few, 64, 48, stride, 1 << 20, &enc), 0);
  ck_assert_int_eq(enc.media, PDF_MEDIA_PNG);
  g_free(enc.data);
  ck_assert(!pdf_encode_is_uniform(few, 64, 48, stride));
  memset(few, 0xAB, stride * 48);
  ck_assert(pdf_encode_is_uniform(few, 64, 48, stride));
  g_free(few);
  g_free(noise);
}
END_TEST

START_TEST(pdf_encode_respects_budget) {
  size_t stride, len = 0;
  uint8_t *noise = make_pixels(400, 300, 0, &stride), *data = NULL;
  PdfEncoded enc = {0};

  ck_assert_int_eq(pdf_encode_jpeg(noise, 400, 300, stride, 85, &data, &len), 0);
  /* A budget the first quality misses but a lower one meets. */
  ck_assert_int_eq(pdf_encode_page(noise, 400, 300, stride, len * 3 / 4, &enc), 0);
  ck_assert_uint_le(enc.len, len * 3 / 4);
  ck_assert_int_eq(enc.media, PDF_MEDIA_JPEG);
  g_free(enc.data);
  ck_assert_int_eq(pdf_encode_page(noise, 400, 300, stride, 100, &enc), -EFBIG);
  ck_assert_int_eq(pdf_encode_jpeg(noise, 0, 300, stride, 85, &data, &len), -EINVAL);
  g_free(data);
  g_free(noise);
}
END_TEST

/* ---- reading PDFs made here, through the real worker ---- */

START_TEST(pdf_reads_generated_pages) {
  static const GenPage pages[] = {
      {PG_TEXT, "alpha page one"}, {PG_TEXT, "beta page two"}, {PG_TEXT, "gamma page three"}};
  g_autofree char *path = write_pdf("three.pdf", gen_pdf(pages, 3, "Three (pages)"));
  FileResult f;

  ck_assert_int_eq(read_pdf(path, NULL, &f), 0);
  ck_assert_int_eq(f.type, FILE_TYPE_PDF);
  ck_assert_int_eq(f.pages, 3);
  assert_pages(&f, "1 2 3");
  ck_assert(!f.truncated);
  ck_assert_ptr_null(f.notice);
  ck_assert_ptr_null(f.outline);
  ck_assert_str_eq(f.page_out[0].text, "alpha page one");
  ck_assert_str_eq(f.page_out[2].text, "gamma page three");
  ck_assert_uint_eq(f.page_out[1].text_len, strlen("beta page two"));
  ck_assert_int_eq(f.page_out[0].image, -1);
  ck_assert_uint_eq(f.n_images, 0);
  ck_assert_str_eq(f.title, "Three (pages)");
  ck_assert_str_eq(f.author, "Ann Author");
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_detected_by_content) {
  static const GenPage page = {PG_TEXT, "named like text"};
  g_autofree char *path = write_pdf("notes.txt", gen_pdf(&page, 1, NULL));
  ReaderOptions o = {.path = path, .offset = 1, .limit = 2000, .max_dimension = 1568};
  FileResult f = {0};

  reader_read(&o, NULL, NULL, &f);
  ck_assert_int_eq(f.type, FILE_TYPE_PDF);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.page_out[0].text, "named like text");
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_default_window_and_notice) {
  g_autofree char *path = write_numbered_pdf("thirty.pdf", 30);
  FileResult f;

  ck_assert_int_eq(read_pdf(path, NULL, &f), 0);
  ck_assert_int_eq(f.pages, 30);
  assert_pages(&f, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
  ck_assert(f.truncated);
  ck_assert_str_eq(f.page_out[19].text, "page number 20");
  ck_assert_str_eq(f.notice, "… pages 21-30 not shown; continue with pages=\"21-\"");
  file_result_clear(&f);
  /* Following the notice gives the rest and says no more. */
  ck_assert_int_eq(read_pdf(path, &(ReadOpts){.pages = "21-"}, &f), 0);
  assert_pages(&f, "21 22 23 24 25 26 27 28 29 30");
  ck_assert(f.truncated); /* pages 1-20 are not in this answer */
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_ranges_and_out_of_range) {
  g_autofree char *path = write_numbered_pdf("thirty.pdf", 30);
  FileResult f;

  read_pdf(path, &(ReadOpts){.pages = "3"}, &f);
  assert_pages(&f, "3");
  ck_assert_str_eq(f.page_out[0].text, "page number 3");
  ck_assert(f.truncated);
  file_result_clear(&f);
  read_pdf(path, &(ReadOpts){.pages = "2-5"}, &f);
  assert_pages(&f, "2 3 4 5");
  file_result_clear(&f);
  read_pdf(path, &(ReadOpts){.pages = "1,28-"}, &f);
  assert_pages(&f, "1 28 29 30");
  ck_assert_ptr_null(f.notice);
  file_result_clear(&f);
  read_pdf(path, &(ReadOpts){.pages = "29-45"}, &f); /* cut at the end */
  assert_pages(&f, "29 30");
  file_result_clear(&f);
  read_pdf(path, &(ReadOpts){.pages = "1-30"}, &f);
  ck_assert(!f.truncated);
  ck_assert_uint_eq(f.n_page_out, 30);
  file_result_clear(&f);
  ck_assert_int_lt(read_pdf(path, &(ReadOpts){.pages = "2,31"}, &f), 0);
  assert_code(&f, CODE_PAGE_OUT_OF_RANGE, "30 pages");
  assert_code(&f, CODE_PAGE_OUT_OF_RANGE, "page 31");
  file_result_clear(&f);
  /* A selection of thousands of single pages is refused before any worker starts. */
  GString *many = g_string_new("1");
  for (int i = 3; i <= 2 * (PDF_MAX_RANGES + 1); i += 2)
    g_string_append_printf(many, ",%d", i);
  ck_assert_int_lt(read_pdf(path, &(ReadOpts){.pages = many->str}, &f), 0);
  assert_code(&f, CODE_PAGE_OUT_OF_RANGE, "more than 1000 ranges");
  file_result_clear(&f);
  g_string_free(many, TRUE);
}
END_TEST

START_TEST(pdf_render_fits_max_dimension) {
  static const GenPage pages[] = {{PG_TEXT, "some words on a page"}, {PG_TEXT, "more words"}};
  g_autofree char *path = write_pdf("two.pdf", gen_pdf(pages, 2, NULL));
  FileResult f;

  read_pdf(path, &(ReadOpts){.render = true, .max_dimension = 800}, &f);
  assert_pages(&f, "1 2");
  ck_assert_uint_eq(f.n_images, 2);
  for (size_t i = 0; i < 2; i++) {
    const ImageOut *img = &f.images[f.page_out[i].image];

    ck_assert_int_eq(img->page, f.page_out[i].number);
    assert_image_decodes(img, 800);
    ck_assert_int_eq(img->height, 800); /* a portrait letter page */
    ck_assert_int_eq(img->width, 618);
    ck_assert_str_eq(img->media_type, "image/png"); /* black text on white: few colours */
  }
  ck_assert_str_eq(f.page_out[1].text, "more words"); /* rendered pages keep their text */
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_scanned_pages_rendered_automatically) {
  static const GenPage pages[] = {
      {PG_TEXT, "cover words"}, {PG_GRAY_IMAGE, NULL}, {PG_PHOTO, NULL}, {PG_BLANK, NULL}};
  g_autofree char *path = write_pdf("scan.pdf", gen_pdf(pages, 4, NULL));
  FileResult f;

  read_pdf(path, &(ReadOpts){.max_dimension = 500}, &f);
  assert_pages(&f, "1 2 3 4");
  ck_assert_int_eq(f.page_out[0].image, -1); /* has text: not rendered unasked */
  ck_assert_int_ge(f.page_out[1].image, 0);
  ck_assert_int_ge(f.page_out[2].image, 0);
  ck_assert_int_eq(f.page_out[3].image, -1); /* blank: no picture worth sending */
  ck_assert_uint_eq(f.n_images, 2);
  assert_image_decodes(&f.images[f.page_out[1].image], 500);
  assert_image_decodes(&f.images[f.page_out[2].image], 500);
  ck_assert_str_eq(f.images[f.page_out[2].image].media_type, "image/jpeg"); /* a photo */
  ck_assert_int_eq(f.images[f.page_out[2].image].page, 3);
  file_result_clear(&f);
  /* Asked for, even a blank page is rendered. */
  read_pdf(path, &(ReadOpts){.pages = "4", .render = true, .max_dimension = 100}, &f);
  ck_assert_int_eq(f.page_out[0].image, 0);
  assert_image_decodes(&f.images[0], 100);
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_picture_budget) {
  static const GenPage pages[] = {
      {PG_PHOTO, NULL}, {PG_PHOTO, NULL}, {PG_PHOTO, NULL}, {PG_TEXT, "words"}};
  g_autofree char *path = write_pdf("photos.pdf", gen_pdf(pages, 4, NULL));
  FileResult f;
  int64_t one;

  /* The size of one picture, with the default budget. */
  read_pdf(path, &(ReadOpts){.max_dimension = 400}, &f);
  ck_assert_uint_eq(f.n_images, 3);
  one = (int64_t)f.images[0].data_len;
  file_result_clear(&f);
  /* No budget: no pictures, and every page still has its (empty) text. */
  read_pdf(path, &(ReadOpts){.max_image_bytes = -1, .render = true}, &f);
  assert_pages(&f, "1 2 3 4");
  ck_assert_uint_eq(f.n_images, 0);
  file_result_clear(&f);
  /* A budget for one picture and a half: the second is made smaller (lower JPEG quality, or
   * fewer pixels) to fit what is left, the third does not fit at all and the pages stop there,
   * with a notice. */
  read_pdf(path, &(ReadOpts){.max_image_bytes = one * 3 / 2, .max_dimension = 400}, &f);
  assert_pages(&f, "1 2");
  ck_assert_uint_eq(f.n_images, 2);
  ck_assert_int_eq(f.images[0].height, 400);
  ck_assert_int_le(f.images[1].data_len, (size_t)one / 2);
  ck_assert_uint_le(f.images[0].data_len + f.images[1].data_len, (size_t)(one * 3 / 2));
  ck_assert_str_eq(f.notice, "… pages 3-4 not shown (the pictures' budget is spent); "
                             "continue with pages=\"3-\"");
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_forms_outline_info) {
  g_autofree char *path = write_pdf("form.pdf", gen_form_pdf());
  FileResult f;

  read_pdf(path, NULL, &f);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.title, "The Form");
  ck_assert_str_eq(f.author, "Ann Author");
  ck_assert_str_eq(f.outline, "Intro (page 1)\nThe form (page 1)");
  ck_assert_msg(g_str_has_prefix(f.page_out[0].text, "Application form\n\n[form fields]\n"), "%s",
                f.page_out[0].text);
  ck_assert_ptr_nonnull(strstr(f.page_out[0].text, "\nFull name: Jane Doe"));
  ck_assert_ptr_nonnull(strstr(f.page_out[0].text, "\nsubscribe: checked"));
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_encrypted) {
  static const GenPage pages[] = {{PG_TEXT, "secret page one"}, {PG_TEXT, "secret page two"}};
  g_autofree char *plain = write_pdf("plain.pdf", gen_pdf(pages, 2, NULL));
  g_autofree char *user = g_build_filename(tmp_dir, "user.pdf", NULL);
  g_autofree char *owner = g_build_filename(tmp_dir, "owner.pdf", NULL);
  const char *enc_user[] = {"qpdf", "--encrypt", "USERPW", "OWNERPW", "256",
                            "--",   plain,       user,     NULL};
  const char *enc_owner[] = {"qpdf", "--allow-weak-crypto", "--encrypt", "",    "OWNERPW",
                             "128",  "--print=none",        "--",        plain, owner,
                             NULL};
  g_autofree char *o1 = run(enc_user), *o2 = run(enc_owner);
  FileResult f;

  ck_assert_msg(o1 != NULL && o2 != NULL, "qpdf failed");
  read_pdf(user, NULL, &f);
  assert_code(&f, CODE_PASSWORD_PROTECTED, "password");
  ck_assert_int_eq(f.type, FILE_TYPE_PDF);
  file_result_clear(&f);
  read_pdf(user, &(ReadOpts){.password = "wrong"}, &f);
  assert_code(&f, CODE_PASSWORD_PROTECTED, "the password given does not open");
  file_result_clear(&f);
  read_pdf(user, &(ReadOpts){.password = "USERPW", .pages = "2"}, &f);
  assert_pages(&f, "2");
  ck_assert_str_eq(f.page_out[0].text, "secret page two");
  file_result_clear(&f);
  read_pdf(user, &(ReadOpts){.password = "OWNERPW"}, &f); /* the owner password opens it too */
  assert_pages(&f, "1 2");
  file_result_clear(&f);
  /* Owner password only: opens without one, and an unneeded password does not hurt. */
  read_pdf(owner, NULL, &f);
  assert_pages(&f, "1 2");
  ck_assert_str_eq(f.page_out[0].text, "secret page one");
  file_result_clear(&f);
  read_pdf(owner, &(ReadOpts){.password = "not needed"}, &f);
  assert_pages(&f, "1 2");
  file_result_clear(&f);
}
END_TEST

/* `head` then `fill` up to len bytes. */
static char *padded(const char *head, char fill, size_t len) {
  char *s = g_malloc(len + 1);
  size_t n = MIN(strlen(head), len);

  memcpy(s, head, n);
  memset(s + n, fill, len - n);
  s[len] = '\0';
  return s;
}

/* Encrypts plain into name with qpdf's arguments (NULL-terminated); returns the path. */
static char *encrypt(const char *plain, const char *name, const char *const *args) {
  char *path = g_build_filename(tmp_dir, name, NULL);
  GPtrArray *argv = g_ptr_array_new();
  g_autofree char *out = NULL;

  g_ptr_array_add(argv, (char *)"qpdf");
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add(argv, (char *)*a);
  g_ptr_array_add(argv, (char *)"--");
  g_ptr_array_add(argv, (char *)plain);
  g_ptr_array_add(argv, path);
  g_ptr_array_add(argv, NULL);
  out = run((const char *const *)argv->pdata);
  ck_assert_msg(out != NULL, "qpdf failed for %s", name);
  g_ptr_array_free(argv, TRUE);
  return path;
}

/* Reads path with the password; asserts that it opens and shows its second page. */
static void assert_opens(const char *path, const char *password) {
  FileResult f;

  read_pdf(path, &(ReadOpts){.password = password, .pages = "2"}, &f);
  ck_assert_msg(f.code == NULL, "%zu-byte password on %s: %s %s", strlen(password), path, f.code,
                f.error);
  ck_assert_str_eq(f.page_out[0].text, "long secret two");
  file_result_clear(&f);
}

static void assert_refused(const char *path, const char *password) {
  FileResult f;

  read_pdf(path, &(ReadOpts){.password = password}, &f);
  assert_code(&f, CODE_PASSWORD_PROTECTED, "the password given does not open");
  file_result_clear(&f);
}

/* Passwords are cut as the standard says before poppler sees them: 127 bytes for AES-256
 * (poppler 22.12 overran its stack on 128 and more: CORRUPTED_FILE), 32 for RC4 and AES-128. */
START_TEST(pdf_long_passwords) {
  static const GenPage pages[] = {{PG_TEXT, "long secret one"}, {PG_TEXT, "long secret two"}};
  /* 2 MiB: more than a worker takes in one request. */
  static const size_t lens[] = {127, 128, 200, 100000, 2 * 1024 * 1024};
  g_autofree char *plain = write_pdf("long-plain.pdf", gen_pdf(pages, 2, NULL));
  g_autofree char *p127 = padded("aes256-", 'k', 127);
  g_autofree char *p32 = padded("rc4-", 'r', 32);
  g_autofree char *p200 = padded("qpdf-", 'q', 200);
  g_autofree char *cut = padded("", 'a', 127), *split = padded("", 'a', 126);
  const char *aes[] = {"--encrypt", p127, "OWNER", "256", NULL};
  const char *rc4[] = {"--allow-weak-crypto", "--encrypt", p32, "OWNER", "128",
                       "--use-aes=n",         NULL};
  const char *aes128[] = {"--encrypt", p32, "OWNER", "128", "--use-aes=y", NULL};
  const char *cut_aes[] = {"--password-mode=bytes", "--encrypt", cut, "OWNER", "256", NULL};
  const char *long_aes[] = {"--encrypt", p200, "OWNER", "256", NULL};
  g_autofree char *aes_pdf = encrypt(plain, "aes256-127.pdf", aes);
  g_autofree char *rc4_pdf = encrypt(plain, "rc4-32.pdf", rc4);
  g_autofree char *aes128_pdf = NULL, *cut_pdf = NULL, *long_pdf = NULL;
  g_autofree char *split_pw = NULL;

  cut[126] = '\xC3'; /* é's first byte: the 127-byte cut of split_pw below */
  split_pw = g_strconcat(split, "\xC3\xA9", NULL);
  aes128_pdf = encrypt(plain, "aes128-32.pdf", aes128);
  cut_pdf = encrypt(plain, "aes256-split.pdf", cut_aes);
  long_pdf = encrypt(plain, "aes256-200.pdf", long_aes);
  for (size_t i = 0; i < G_N_ELEMENTS(lens); i++) {
    g_autofree char *pw = padded(p127, 'z', lens[i]);
    g_autofree char *pw_rc4 = padded(p32, 'z', lens[i]);
    g_autofree char *wrong = padded("", 'w', lens[i]);

    assert_opens(aes_pdf, pw);
    assert_opens(rc4_pdf, pw_rc4);
    assert_opens(aes128_pdf, pw_rc4);
    assert_refused(aes_pdf, wrong);
    assert_refused(rc4_pdf, wrong);
  }
  /* 128 bytes whose 127-byte cut falls inside a character. */
  ck_assert_uint_eq(strlen(split_pw), 128);
  assert_opens(cut_pdf, split_pw);
  /* One byte short of what the standard reads is another password. */
  p127[126] = '\0';
  assert_refused(aes_pdf, p127);
  p32[31] = '\0';
  assert_refused(rc4_pdf, p32);
  /* qpdf 11 hashes all 200 bytes of a password when it writes, but only 127 when it reads:
   * the PDF opens for no reader that follows the standard, qpdf included. A refusal, never a
   * crash. */
  assert_refused(long_pdf, p200);
}
END_TEST

/* poppler-glib gives info strings NUL-terminated: an escaped NUL ends the title, in
 * PDFDocEncoding (poppler stops converting there) and in UTF-16 (the rest is converted, but
 * the length is not returned). */
START_TEST(pdf_info_nul_ends_title) {
  static const GenPage page = {PG_TEXT, "body"};
  g_autofree char *doc = write_pdf("nul-title.pdf", gen_pdf(&page, 1, "Before\\000After"));
  g_autofree char *utf16 =
      write_pdf("nul-title-16.pdf", gen_pdf(&page, 1, "\\376\\377\\000B\\000\\000\\000A"));
  FileResult f;

  read_pdf(doc, NULL, &f);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.title, "Before");
  ck_assert_str_eq(f.author, "Ann Author");
  file_result_clear(&f);
  read_pdf(utf16, NULL, &f);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.title, "B");
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_corrupted_and_truncated) {
  static const char broken[] = "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\n\0garbage";
  g_autofree char *b = write_file("broken.pdf", broken, sizeof(broken));
  g_autofree char *header = write_file("header-only.pdf", "%PDF-1.7\n", 9);
  FileResult f;

  read_pdf(b, NULL, &f);
  assert_code(&f, CODE_CORRUPTED_FILE, "");
  file_result_clear(&f);
  read_pdf(header, NULL, &f);
  assert_code(&f, CODE_CORRUPTED_FILE, "");
  file_result_clear(&f);
  if (!g_file_test(TASN1_PDF, G_FILE_TEST_EXISTS)) {
    skip_note("pdf_corrupted_and_truncated: %s is missing (Debian package libtasn1-doc): no "
              "real PDF cut short",
              TASN1_PDF);
  } else {
    g_autofree char *data = NULL;
    gsize len = 0;

    ck_assert(g_file_get_contents(TASN1_PDF, &data, &len, NULL));
    /* Cut in the middle and near the end: its cross-reference streams are lost. */
    for (int cut = 1; cut <= 2; cut++) {
      g_autofree char *p = write_file("cut.pdf", data, cut == 1 ? len / 2 : len - 400);

      read_pdf(p, NULL, &f);
      assert_code(&f, CODE_CORRUPTED_FILE, "");
      ck_assert_uint_eq(f.n_page_out, 0);
      file_result_clear(&f);
    }
  }
}
END_TEST

START_TEST(pdf_lost_xref_is_rebuilt) {
  static const GenPage pages[] = {{PG_TEXT, "still here one"}, {PG_TEXT, "still here two"}};
  GString *pdf = gen_pdf(pages, 2, NULL);
  g_autofree char *path = NULL;
  FileResult f;

  /* Cut before "startxref": the cross-reference table cannot be found, but every object and
   * the trailer are intact. */
  g_string_truncate(pdf, (gsize)(strstr(pdf->str, "startxref") - pdf->str));
  path = write_pdf("noxref.pdf", pdf);
  read_pdf(path, NULL, &f);
  assert_pages(&f, "1 2");
  ck_assert_str_eq(f.page_out[1].text, "still here two");
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_too_large) {
  g_autofree char *path = write_file("huge.pdf", "%PDF-1.4\n", 9);
  int fd = open(path, O_WRONLY);
  FileResult f;

  ck_assert_int_eq(ftruncate(fd, PDF_MAX_FILE_BYTES + 1), 0); /* sparse */
  close(fd);
  ck_assert_int_eq(read_pdf(path, NULL, &f), -EFBIG);
  assert_code(&f, CODE_FILE_TOO_LARGE, "limit");
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_time_budget) {
  FileResult f;
  gint64 start = g_get_monotonic_time();
  g_autofree char *path = write_numbered_pdf("thirty.pdf", 30);

  g_setenv("READERD_PDF_TIMEOUT_MS", "1", TRUE);
  ck_assert_int_lt(read_pdf(path, NULL, &f), 0);
  assert_code(&f, CODE_CONVERSION_FAILED, "1 ms time budget");
  ck_assert_int_lt(g_get_monotonic_time() - start, 5 * G_USEC_PER_SEC);
  file_result_clear(&f);
  g_unsetenv("READERD_PDF_TIMEOUT_MS");
}
END_TEST

/* ---- fake workers: crashes, hangs, nonsense ---- */

/* A worker script that writes `reply`, then runs the shell command `then` (the request it
 * leaves unread). */
static char *fake_worker(const char *name, const GByteArray *reply, const char *then) {
  g_autofree char *bin = g_strconcat(name, ".bin", NULL);
  g_autofree char *reply_path =
      write_file(bin, reply != NULL ? reply->data : (guint8 *)"", reply != NULL ? reply->len : 0);
  g_autofree char *script = g_strdup_printf("#!/bin/sh\ncat '%s'\n%s\n", reply_path, then);
  char *path = write_file(name, script, strlen(script));

  ck_assert_int_eq(chmod(path, 0755), 0);
  return path;
}

/* The records of a worker that opened an n-page PDF and sent pages first..last whole. */
static GByteArray *reply_pages(int n, int first, int last) {
  GByteArray *b = g_byte_array_new();

  pdf_wire_put_u32(b, PDF_RES_DOC, (uint32_t)n);
  for (int p = first; p <= last; p++) {
    g_autofree char *text = g_strdup_printf("fake page %d", p);

    pdf_wire_put_u32(b, PDF_RES_PAGE_START, (uint32_t)p);
    pdf_wire_put_str(b, PDF_RES_PAGE_TEXT, text);
    pdf_wire_put(b, PDF_RES_PAGE_DONE, NULL, 0);
  }
  return b;
}

/* Reads any file through the fake worker at `worker`. */
static int read_with_worker(const char *worker, const ReadOpts *o, FileResult *f) {
  g_autofree char *any = write_numbered_pdf("any.pdf", 1);
  int r;

  pdf_set_worker_path(worker);
  r = read_pdf(any, o, f);
  pdf_set_worker_path(getenv("READERD_WORKER"));
  return r;
}

START_TEST(pdf_worker_crash_keeps_pages) {
  GByteArray *b = reply_pages(3, 1, 1);
  g_autofree char *w = NULL;
  FileResult f;

  pdf_wire_put_u32(b, PDF_RES_PAGE_START, 2);
  pdf_wire_put_str(b, PDF_RES_PAGE_TEXT, "half a page");
  w = fake_worker("crash-on-2", b, "kill -SEGV $$");
  ck_assert_int_eq(read_with_worker(w, NULL, &f), 0);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.page_out[0].text, "fake page 1");
  ck_assert(f.truncated);
  ck_assert_msg(strstr(f.notice, "page 2 could not be read") != NULL &&
                    strstr(f.notice, "signal 11") != NULL &&
                    g_str_has_suffix(f.notice, "page 3 not shown; continue with pages=\"3-\""),
                "notice: %s", f.notice);
  file_result_clear(&f);
  g_byte_array_free(b, TRUE);
}
END_TEST

START_TEST(pdf_worker_crash_without_pages) {
  GByteArray *b = reply_pages(3, 1, 0);
  g_autofree char *at_start = fake_worker("crash-at-start", NULL, "kill -SEGV $$");
  g_autofree char *on_first = NULL, *quits = NULL;
  FileResult f;

  ck_assert_int_lt(read_with_worker(at_start, NULL, &f), 0);
  assert_code(&f, CODE_CORRUPTED_FILE, "signal 11");
  file_result_clear(&f);
  pdf_wire_put_u32(b, PDF_RES_PAGE_START, 1);
  on_first = fake_worker("crash-on-1", b, "kill -ABRT $$");
  ck_assert_int_lt(read_with_worker(on_first, NULL, &f), 0);
  assert_code(&f, CODE_CORRUPTED_FILE, "on page 1");
  assert_code(&f, CODE_CORRUPTED_FILE, "continue with pages=\"2-\"");
  file_result_clear(&f);
  g_byte_array_free(b, TRUE);
  /* Pages sent, then an exit without the end record. */
  b = reply_pages(3, 1, 2);
  quits = fake_worker("quits", b, "exit 3");
  ck_assert_int_eq(read_with_worker(quits, NULL, &f), 0);
  assert_pages(&f, "1 2");
  ck_assert_msg(strstr(f.notice, "stopped after page 2 (exited with status 3)") != NULL, "%s",
                f.notice);
  file_result_clear(&f);
  g_byte_array_free(b, TRUE);
}
END_TEST

START_TEST(pdf_worker_hang_is_killed) {
  GByteArray *b = reply_pages(30, 1, 1);
  g_autofree char *w = NULL, *mute = fake_worker("mute", NULL, "exec sleep 30");
  gint64 start;
  FileResult f;

  pdf_wire_put_u32(b, PDF_RES_PAGE_START, 2);
  w = fake_worker("hang-on-2", b, "exec sleep 30");
  g_setenv("READERD_PDF_TIMEOUT_MS", "300", TRUE);
  start = g_get_monotonic_time();
  ck_assert_int_eq(read_with_worker(w, NULL, &f), 0);
  ck_assert_int_lt(g_get_monotonic_time() - start, 3 * G_USEC_PER_SEC);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.notice, "… stopped on page 2: the 300 ms time budget per file ran out; "
                             "pages 2-30 not shown; continue with pages=\"2-\"");
  file_result_clear(&f);
  start = g_get_monotonic_time();
  ck_assert_int_lt(read_with_worker(mute, NULL, &f), 0);
  ck_assert_int_lt(g_get_monotonic_time() - start, 3 * G_USEC_PER_SEC);
  assert_code(&f, CODE_CONVERSION_FAILED, "300 ms time budget");
  file_result_clear(&f);
  g_unsetenv("READERD_PDF_TIMEOUT_MS");
  g_byte_array_free(b, TRUE);
}
END_TEST

START_TEST(pdf_worker_broken_reply) {
  static const uint8_t huge[] = {32, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F};
  GByteArray *b = g_byte_array_new(), *c = reply_pages(3, 1, 0);
  g_autofree char *w1 = NULL, *w2 = NULL, *w3 = NULL;
  FileResult f;

  g_byte_array_append(b, huge, sizeof(huge));
  w1 = fake_worker("huge-record", b, "exec sleep 30");
  ck_assert_int_lt(read_with_worker(w1, NULL, &f), 0);
  assert_code(&f, CODE_CORRUPTED_FILE, "broken reply");
  file_result_clear(&f);
  pdf_wire_put(c, PDF_RES_PAGE_DONE, NULL, 0); /* a page done that never started */
  w2 = fake_worker("out-of-order", c, "exec sleep 30");
  ck_assert_int_lt(read_with_worker(w2, NULL, &f), 0);
  assert_code(&f, CODE_CORRUPTED_FILE, "broken reply");
  file_result_clear(&f);
  g_byte_array_free(b, TRUE);
  g_byte_array_free(c, TRUE);
  /* More pages than any read shows: the first PDF_MAX_PAGES are kept, and no more. */
  b = reply_pages(500, 1, PDF_MAX_PAGES + 5);
  w3 = fake_worker("too-many", b, "exec sleep 30");
  ck_assert_int_eq(read_with_worker(w3, NULL, &f), 0);
  ck_assert_uint_eq(f.n_page_out, PDF_MAX_PAGES);
  ck_assert_msg(strstr(f.notice, "broken reply") != NULL, "%s", f.notice);
  file_result_clear(&f);
  g_byte_array_free(b, TRUE);
}
END_TEST

static void *cancel_later(void *flag) {
  g_usleep(200 * 1000);
  atomic_store((atomic_bool *)flag, true);
  return NULL;
}

START_TEST(pdf_cancel_stops_worker) {
  g_autofree char *w = fake_worker("slow", NULL, "exec sleep 30");
  g_autofree char *any = write_numbered_pdf("any.pdf", 1);
  atomic_bool cancelled;
  struct stat st;
  PdfOptions opt = {.max_dimension = 100, .cancelled = &cancelled};
  FileResult f = {0};
  pthread_t t;
  gint64 start = g_get_monotonic_time();
  int fd = open(any, O_RDONLY | O_CLOEXEC);

  atomic_init(&cancelled, false);
  ck_assert_int_eq(fstat(fd, &st), 0);
  pdf_set_worker_path(w);
  ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, &cancelled), 0);
  ck_assert_int_eq(pdf_read(fd, &st, &opt, &f), -ECANCELED);
  pthread_join(t, NULL);
  ck_assert_int_lt(g_get_monotonic_time() - start, 3 * G_USEC_PER_SEC);
  ck_assert_str_eq(f.code, CODE_CANCELLED);
  file_result_clear(&f);
  close(fd);
  pdf_set_worker_path(getenv("READERD_WORKER"));
}
END_TEST

/* The one child process of this thread (the idle worker). */
static pid_t only_child(void) {
  g_autofree char *path = g_strdup_printf("/proc/self/task/%d/children", (int)gettid());
  g_autofree char *list = NULL;
  g_auto(GStrv) pids = NULL;

  ck_assert(g_file_get_contents(path, &list, NULL, NULL));
  pids = g_strsplit(g_strstrip(list), " ", -1);
  ck_assert_uint_eq(g_strv_length(pids), 1);
  return (pid_t)atoi(pids[0]);
}

START_TEST(pdf_worker_is_reused) {
  static const GenPage pages[] = {{PG_TEXT, "again one"}, {PG_TEXT, "again two"}};
  g_autofree char *path = write_pdf("again.pdf", gen_pdf(pages, 2, NULL));
  static const char broken[] = "%PDF-1.4\nnothing else";
  g_autofree char *bad = write_file("bad.pdf", broken, sizeof(broken) - 1);
  FileResult f;
  pid_t first, next;

  /* A read that went well leaves its worker waiting; the next read is served by it. */
  read_pdf(path, NULL, &f);
  file_result_clear(&f);
  first = only_child();
  read_pdf(path, &(ReadOpts){.pages = "2", .password = "unneeded"}, &f);
  assert_pages(&f, "2");
  ck_assert_str_eq(f.page_out[0].text, "again two");
  file_result_clear(&f);
  ck_assert_int_eq(only_child(), first);
  /* A read that failed ends its worker; the next read starts another. */
  read_pdf(bad, NULL, &f);
  assert_code(&f, CODE_CORRUPTED_FILE, "");
  file_result_clear(&f);
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
  read_pdf(path, &(ReadOpts){.pages = "1"}, &f);
  assert_pages(&f, "1");
  file_result_clear(&f);
  next = only_child();
  ck_assert_int_ne(next, first);
  /* An idle worker that died (killed here, not yet waited for) is not handed out. */
  ck_assert_int_eq(kill(next, SIGKILL), 0);
  g_usleep(100 * 1000);
  read_pdf(path, &(ReadOpts){.pages = "1"}, &f);
  assert_pages(&f, "1");
  ck_assert_str_eq(f.page_out[0].text, "again one");
  file_result_clear(&f);
  ck_assert_int_ne(only_child(), next);
  /* A worker is retired after PDF_SPAWN_MAX_READS reads. */
  first = only_child();
  for (int i = 1; i < PDF_SPAWN_MAX_READS; i++) {
    read_pdf(path, &(ReadOpts){.pages = "2"}, &f);
    assert_pages(&f, "2");
    file_result_clear(&f);
  }
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
  pdf_spawn_cleanup();
}
END_TEST

/* How many descriptors of process pid are open on path (or on what was path before it was
 * replaced: "path (deleted)"). */
static int fds_on(pid_t pid, const char *path) {
  g_autofree char *dir_path = g_strdup_printf("/proc/%d/fd", (int)pid);
  GDir *dir = g_dir_open(dir_path, 0, NULL);
  const char *name;
  int n = 0;

  ck_assert_ptr_nonnull(dir);
  while ((name = g_dir_read_name(dir)) != NULL) {
    g_autofree char *link = g_build_filename(dir_path, name, NULL);
    g_autofree char *target = g_file_read_link(link, NULL);

    if (target != NULL && g_str_has_prefix(target, path))
      n++;
  }
  g_dir_close(dir);
  return n;
}

/* Rewrites path in place (same inode) with pdf, which this takes. */
static void rewrite_in_place(const char *path, GString *pdf) {
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, pdf->str, pdf->len), (ssize_t)pdf->len);
  close(fd);
  g_string_free(pdf, TRUE);
}

/* Reads path and asserts the pages shown and the first one's text. */
static void assert_read(const char *path, const char *pages, const char *first) {
  FileResult f;

  read_pdf(path, NULL, &f);
  assert_pages(&f, pages);
  ck_assert_str_eq(f.page_out[0].text, first);
  file_result_clear(&f);
}

static void assert_text(const char *path, const char *want) {
  assert_read(path, "1", want);
}

/* A worker keeps the document it read open for the next read of the same file, and never
 * serves it for a file that changed since. */
START_TEST(pdf_cache_sees_rewritten_file) {
  static const GenPage first = {PG_TEXT, "first version"}, second = {PG_TEXT, "second, longer"};
  static const GenPage two[] = {{PG_TEXT, "one of two"}, {PG_TEXT, "two of two"}};
  g_autofree char *path = write_pdf("rewritten.pdf", gen_pdf(&first, 1, NULL));
  g_autofree char *other = NULL;
  GString *pdf_two = gen_pdf(two, 2, NULL), *pdf_one = gen_pdf(&second, 1, NULL);
  struct stat before, after;
  struct timespec times[2];
  pid_t worker;

  assert_text(path, "first version");
  worker = only_child();
  ck_assert_int_eq(fds_on(worker, path), 1); /* kept open */
  assert_text(path, "first version");
  ck_assert_int_eq(fds_on(worker, path), 1); /* served from the cache: nothing more open */
  /* Rewritten in place: same inode, another size. */
  rewrite_in_place(path, g_string_new_len(pdf_two->str, (gssize)pdf_two->len));
  assert_read(path, "1 2", "one of two");
  ck_assert_int_eq(only_child(), worker);
  ck_assert_int_eq(fds_on(worker, path), 1); /* the first version was let go */
  /* The same size and its mtime set back: only the ctime tells. poppler reads pages' contents
   * from the file as it goes but keeps the page count: one page, not two, is the new file. */
  ck_assert_int_eq(stat(path, &before), 0);
  ck_assert_uint_lt(pdf_one->len, pdf_two->len);
  g_string_append_c(pdf_one, '%');
  while (pdf_one->len < pdf_two->len - 1)
    g_string_append_c(pdf_one, ' ');
  g_string_append_c(pdf_one, '\n');
  rewrite_in_place(path, pdf_one);
  times[0] = before.st_atim;
  times[1] = before.st_mtim;
  ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
  ck_assert_int_eq(stat(path, &after), 0);
  ck_assert_int_eq(after.st_size, before.st_size);
  ck_assert_int_eq(after.st_ino, before.st_ino);
  ck_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
            after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
  assert_text(path, "second, longer");
  g_string_free(pdf_two, TRUE);
  /* Replaced by another file under the same path. */
  other = write_pdf("replacement.pdf", gen_pdf(&(GenPage){PG_TEXT, "a new file"}, 1, NULL));
  ck_assert_int_eq(rename(other, path), 0);
  assert_text(path, "a new file");
  ck_assert_int_eq(only_child(), worker);
  pdf_spawn_cleanup();
}
END_TEST

/* However many PDFs a worker reads, it keeps PDF_DOC_CACHE_MAX_DOCS open at most. */
START_TEST(pdf_cache_is_bounded) {
  g_autofree char *prefix = g_build_filename(tmp_dir, "bounded-", NULL);
  pid_t worker = 0;

  for (int i = 0; i < 8; i++) {
    g_autofree char *name = g_strdup_printf("bounded-%d.pdf", i);
    g_autofree char *path = write_numbered_pdf(name, 2 + i);
    FileResult f;

    read_pdf(path, &(ReadOpts){.pages = "2"}, &f);
    assert_pages(&f, "2");
    file_result_clear(&f);
    if (worker == 0)
      worker = only_child();
    ck_assert_int_eq(only_child(), worker);
    ck_assert_int_eq(fds_on(worker, prefix), MIN(i + 1, PDF_DOC_CACHE_MAX_DOCS));
  }
  pdf_spawn_cleanup();
}
END_TEST

/* A read goes to the idle worker that read the same file last, which may still hold it. */
START_TEST(pdf_cache_affinity) {
  g_autofree char *a = write_numbered_pdf("affinity-a.pdf", 3);
  g_autofree char *b = write_numbered_pdf("affinity-b.pdf", 3);
  struct stat st;
  PdfFileId id_a, id_b;
  PdfWorker wa, wb;
  FileResult f;

  ck_assert_int_eq(stat(a, &st), 0);
  pdf_file_id_from_stat(&st, &id_a);
  ck_assert_int_eq(stat(b, &st), 0);
  pdf_file_id_from_stat(&st, &id_b);
  /* Two idle workers: wa was last given a, wb (the more recently idle) b. */
  ck_assert_int_eq(pdf_spawn_take_for(getenv("READERD_WORKER"), &id_a, &wa), 0);
  ck_assert_int_eq(pdf_spawn_take_for(getenv("READERD_WORKER"), &id_b, &wb), 0);
  pdf_spawn_give(&wa, getenv("READERD_WORKER"));
  pdf_spawn_give(&wb, getenv("READERD_WORKER"));
  read_pdf(a, &(ReadOpts){.pages = "1"}, &f);
  assert_pages(&f, "1");
  file_result_clear(&f);
  ck_assert_int_eq(fds_on(wa.pid, a), 1);
  ck_assert_int_eq(fds_on(wb.pid, a), 0);
  read_pdf(b, &(ReadOpts){.pages = "2"}, &f);
  assert_pages(&f, "2");
  file_result_clear(&f);
  ck_assert_int_eq(fds_on(wb.pid, b), 1);
  ck_assert_int_eq(fds_on(wa.pid, b), 0);
  /* a again: its worker is the least recently idle now, and still the one chosen. */
  read_pdf(a, &(ReadOpts){.pages = "3"}, &f);
  assert_pages(&f, "3");
  file_result_clear(&f);
  ck_assert_int_eq(fds_on(wa.pid, a), 1);
  ck_assert_int_eq(fds_on(wb.pid, a), 0);
  pdf_spawn_cleanup();
}
END_TEST

START_TEST(pdf_worker_cannot_start) {
  FileResult f;

  ck_assert_int_lt(read_with_worker("/nonexistent/readerd-worker", NULL, &f), 0);
  assert_code(&f, CODE_CONVERSION_FAILED,
              "cannot start the PDF reader /nonexistent/readerd-worker: No such file");
  file_result_clear(&f);
  /* A program that set no worker (anything but readerd) never starts itself as one. */
  ck_assert_int_lt(read_with_worker(NULL, NULL, &f), 0);
  assert_code(&f, CODE_CONVERSION_FAILED, "no PDF worker");
  file_result_clear(&f);
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}
END_TEST

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;

  ck_assert_ptr_nonnull(d);
  while (readdir(d) != NULL)
    n++;
  closedir(d);
  return n;
}

START_TEST(pdf_no_fd_or_child_leak) {
  static const GenPage pages[] = {{PG_TEXT, "x"}, {PG_GRAY_IMAGE, NULL}};
  g_autofree char *path = write_pdf("leak.pdf", gen_pdf(pages, 2, NULL));
  g_autofree char *crash = fake_worker("crash", NULL, "kill -SEGV $$");
  int before = count_fds();
  FileResult f;

  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* no child yet */
  for (int i = 0; i < 5; i++) {
    read_pdf(path, &(ReadOpts){.render = i % 2 == 0, .pages = i == 3 ? "9" : NULL}, &f);
    file_result_clear(&f);
    read_with_worker(crash, NULL, &f);
    file_result_clear(&f);
  }
  /* The last good read left its worker waiting, holding its socket; ending it leaves
   * nothing behind. */
  ck_assert_int_eq(count_fds(), before + 1);
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), 0);
  pdf_spawn_cleanup();
  ck_assert_int_eq(count_fds(), before);
  /* Every worker was waited for: no child is left, not even a zombie. */
  ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
  ck_assert_int_eq(errno, ECHILD);
}
END_TEST

/* ---- real PDFs, compared with pdftotext ---- */

START_TEST(pdf_libtasn1_matches_pdftotext) {
  FileResult f;

  ck_assert_int_eq(compare_with_pdftotext(TASN1_PDF, 36), 1);
  /* Read without pages: the first 20, the outline, the info. */
  read_pdf(TASN1_PDF, NULL, &f);
  ck_assert_uint_eq(f.n_page_out, PDF_DEFAULT_PAGES);
  ck_assert_str_eq(f.notice, "… pages 21-36 not shown; continue with pages=\"21-\"");
  ck_assert_ptr_nonnull(f.outline);
  ck_assert_ptr_nonnull(strstr(f.outline, "1 Introduction (page 4)\n"));
  ck_assert_ptr_nonnull(strstr(f.page_out[3].text, "Introduction"));
  file_result_clear(&f);
  /* No outline when the pages shown do not start at the first. */
  read_pdf(TASN1_PDF, &(ReadOpts){.pages = "4"}, &f);
  ck_assert_ptr_null(f.outline);
  file_result_clear(&f);
}
END_TEST

START_TEST(pdf_shared_mime_info_matches_pdftotext) {
  compare_with_pdftotext(MIME_PDF, 17);
}
END_TEST

START_TEST(pdf_reportlab_matches_pdftotext) {
  FileResult f;
  size_t total = 0;

  /* 134 pages of about 280 KB of text: the content limit cuts each read. */
  ck_assert_int_ge(compare_with_pdftotext(REPORTLAB_PDF, 134), 3);
  read_pdf(REPORTLAB_PDF, &(ReadOpts){.pages = "1-"}, &f);
  for (size_t i = 0; i < f.n_page_out; i++)
    total += f.page_out[i].text_len;
  total += f.outline != NULL ? strlen(f.outline) : 0;
  ck_assert_uint_le(total, PDF_TEXT_MAX);
  ck_assert_uint_gt(total, PDF_TEXT_MAX - 8 * 1024); /* a page of it is at most a few KB */
  ck_assert_msg(strstr(f.notice, "(100 KiB content limit); continue with pages=\"") != NULL, "%s",
                f.notice);
  ck_assert_str_eq(f.title, "ReportLab PDF Generation User Guide");
  ck_assert_str_eq(f.author, "the ReportLab Team");
  file_result_clear(&f);
  /* Ten rendered pages: each within budget and maxDimension. */
  read_pdf(REPORTLAB_PDF, &(ReadOpts){.pages = "40-49", .render = true}, &f);
  ck_assert_uint_eq(f.n_images, 10);
  for (size_t i = 0; i < f.n_images; i++) {
    assert_image_decodes(&f.images[i], 1568);
    ck_assert_int_eq(f.images[i].page, 40 + (int)i);
  }
  file_result_clear(&f);
}
END_TEST

/* ---- suite ---- */

static bool need(bool ok, const char *what) {
  if (!ok)
    skip_note("%s", what);
  return ok;
}

static Suite *pdf_suite(void) {
  Suite *s = suite_create("pdf");
  TCase *pure = tcase_create("pure"), *worker = tcase_create("worker");
  TCase *corpus = tcase_create("corpus");
  bool pdftotext = need(have_program("pdftotext"), "pdftotext (poppler-utils) is not installed");

  tcase_add_test(pure, pdf_select_parses_and_normalizes);
  tcase_add_test(pure, pdf_select_rejects_bad_syntax);
  tcase_add_test(pure, pdf_select_checks_range);
  tcase_add_test(pure, pdf_select_walks_and_formats);
  tcase_add_test(pure, pdf_wire_round_trips);
  tcase_add_test(pure, pdf_wire_waits_for_whole_records);
  tcase_add_test(pure, pdf_encode_png_is_lossless);
  tcase_add_test(pure, pdf_encode_many_colors_is_jpeg);
  tcase_add_test(pure, pdf_encode_respects_budget);
  tcase_add_test(pure, pdf_password_cuts_by_rule);
  tcase_add_test(pure, pdf_file_id_round_trips);
  tcase_add_test(pure, pdf_doc_cache_keys_and_bounds);
  tcase_add_test(pure, pdf_doc_cache_trims_to_heap);
  suite_add_tcase(s, pure);

  tcase_set_timeout(worker, 60);
  tcase_add_test(worker, pdf_reads_generated_pages);
  tcase_add_test(worker, pdf_detected_by_content);
  tcase_add_test(worker, pdf_default_window_and_notice);
  tcase_add_test(worker, pdf_ranges_and_out_of_range);
  tcase_add_test(worker, pdf_render_fits_max_dimension);
  tcase_add_test(worker, pdf_scanned_pages_rendered_automatically);
  tcase_add_test(worker, pdf_picture_budget);
  tcase_add_test(worker, pdf_forms_outline_info);
  tcase_add_test(worker, pdf_info_nul_ends_title);
  if (need(have_program("qpdf"), "qpdf is not installed: no encrypted PDFs")) {
    tcase_add_test(worker, pdf_encrypted);
    tcase_add_test(worker, pdf_long_passwords);
  }
  tcase_add_test(worker, pdf_corrupted_and_truncated);
  tcase_add_test(worker, pdf_lost_xref_is_rebuilt);
  tcase_add_test(worker, pdf_too_large);
  tcase_add_test(worker, pdf_time_budget);
  tcase_add_test(worker, pdf_worker_crash_keeps_pages);
  tcase_add_test(worker, pdf_worker_crash_without_pages);
  tcase_add_test(worker, pdf_worker_hang_is_killed);
  tcase_add_test(worker, pdf_worker_broken_reply);
  tcase_add_test(worker, pdf_cancel_stops_worker);
  tcase_add_test(worker, pdf_worker_is_reused);
  tcase_add_test(worker, pdf_worker_cannot_start);
  tcase_add_test(worker, pdf_cache_sees_rewritten_file);
  tcase_add_test(worker, pdf_cache_is_bounded);
  tcase_add_test(worker, pdf_cache_affinity);
  tcase_add_test(worker, pdf_no_fd_or_child_leak);
  suite_add_tcase(s, worker);

  tcase_set_timeout(corpus, 240);
  if (need(pdftotext && g_file_test(TASN1_PDF, G_FILE_TEST_EXISTS), TASN1_PDF " (libtasn1-doc)"))
    tcase_add_test(corpus, pdf_libtasn1_matches_pdftotext);
  if (need(pdftotext && g_file_test(MIME_PDF, G_FILE_TEST_EXISTS), MIME_PDF " (shared-mime-info)"))
    tcase_add_test(corpus, pdf_shared_mime_info_matches_pdftotext);
  if (need(pdftotext && g_file_test(REPORTLAB_PDF, G_FILE_TEST_EXISTS),
           REPORTLAB_PDF " (python-reportlab-doc)"))
    tcase_add_test(corpus, pdf_reportlab_matches_pdftotext);
  suite_add_tcase(s, corpus);
  return s;
}

static void remove_tree(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    g_autofree char *p = g_build_filename(dir, name, NULL);

    g_unlink(p);
  }
  if (d != NULL)
    g_dir_close(d);
  g_rmdir(dir);
}

int main(void) {
  const char *worker = getenv("READERD_WORKER");
  int failed;

  if (worker == NULL || !g_file_test(worker, G_FILE_TEST_IS_EXECUTABLE)) {
    printf("SKIP: READERD_WORKER does not name the readerd-worker binary\n");
    return 77;
  }
  pdf_set_worker_path(worker);
  skip_init();
  tmp_dir = g_dir_make_tmp("test-pdf-XXXXXX", NULL);
  failed = check_run(pdf_suite());
  remove_tree(tmp_dir);
  g_free(tmp_dir);
  return skip_status(failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
}
