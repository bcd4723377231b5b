#include "daemon/readers/kinds.h"

#include <errno.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/image.h"
#include "daemon/readers/kind-cut.h"
#include "daemon/readers/notebook.h"
#include "daemon/readers/office.h"
#include "daemon/readers/pdf.h"
#include "daemon/readers/reader.h"
#include "daemon/readers/text.h"

/* ---- how each kind is read: ReaderOptions into the reader's own options ------------------ */

static void read_text(const ReaderOptions *o, const KindFile *file, const atomic_bool *cancelled,
                      FileResult *res) {
  TextOptions topt = {
      .offset = o->offset,
      .limit = o->limit,
      .line_numbers = o->line_numbers,
      .column = o->column,
      .tail = o->tail,
      .max_tokens = o->max_tokens,
      .cancelled = cancelled,
      .encoding = o->encoding,
      .size = file->size,
  };

  (void)text_read(file->fd, file->head, file->head_len, file->eof, &topt, res);
}

static ImageOptions image_options(const ReaderOptions *o, const atomic_bool *cancelled) {
  return (ImageOptions){.max_dimension = o->max_dimension,
                        .tile = o->tile,
                        .tile_target = o->tile_target,
                        .first_tile = o->offset,
                        .cancelled = cancelled};
}

static void read_picture(const ReaderOptions *o, const KindFile *file, const atomic_bool *cancelled,
                         FileResult *res) {
  ImageOptions iopt = image_options(o, cancelled);

  (void)image_read(file->fd, file->st, file->magic, file->head, file->head_len, &iopt, res);
}

/* SVG is text (agents edit it); `render: true` asks for the picture instead. */
static bool match_svg_render(const ReaderOptions *o, const uint8_t *head, size_t n) {
  return o->render && image_is_svg(head, n);
}

static void read_svg_render(const ReaderOptions *o, const KindFile *file,
                            const atomic_bool *cancelled, FileResult *res) {
  ImageOptions iopt = {.max_dimension = o->max_dimension, .cancelled = cancelled};

  (void)image_read_svg(file->fd, file->st, file->head, file->head_len, &iopt, res);
}

static void read_pdf(const ReaderOptions *o, const KindFile *file, const atomic_bool *cancelled,
                     FileResult *res) {
  PdfOptions popt = {
      .pages = o->pages,
      .password = o->password,
      .render = o->render,
      .max_dimension = o->max_dimension,
      .max_image_bytes = o->max_image_bytes,
      .cancelled = cancelled,
  };

  (void)pdf_read(file->fd, file->st, &popt, res);
}

/* A notebook by its name (.ipynb), or by its content (a JSON object naming "cells" and
 * "nbformat"). */
static bool match_notebook(const ReaderOptions *o, const uint8_t *head, size_t n) {
  size_t len = strlen(o->path);

  return (len >= 6 && g_ascii_strcasecmp(o->path + len - 6, ".ipynb") == 0) ||
         notebook_sniff(head, n);
}

/* A notebook's picture through the image pipeline, as an image file would go: refused, sent as
 * it is, or converted in the worker process. */
static int notebook_image_cb(void *ctx, const char *media_type, const uint8_t *data, size_t len,
                             FileResult *res, char **ret_error) {
  const ImageOptions *iopt = ctx;
  FileResult one = {0};
  int r = image_read_bytes(data, len, iopt, &one);

  (void)media_type;
  if (r == 0 && one.code == NULL && one.n_images == 1) {
    *file_result_add_image(res) = one.images[0];
    memset(&one.images[0], 0, sizeof(one.images[0]));
  } else {
    *ret_error = g_strdup_printf("%s: %s", one.code != NULL ? one.code : CODE_CONVERSION_FAILED,
                                 one.error != NULL ? one.error : "no picture");
    r = r < 0 ? r : -EINVAL;
  }
  file_result_clear(&one);
  return r;
}

static void read_notebook(const ReaderOptions *o, const KindFile *file,
                          const atomic_bool *cancelled, FileResult *res) {
  ImageOptions iopt = {.max_dimension = o->max_dimension, .cancelled = cancelled};
  NotebookOptions nopt = {.offset = o->offset,
                          .limit = o->limit,
                          .max_image_bytes = o->max_image_bytes,
                          .image = notebook_image_cb,
                          .image_ctx = &iopt,
                          .cancelled = cancelled};

  (void)notebook_read(file->fd, file->st, file->head, file->head_len, &nopt, res);
}

/* An office document; its OfficeKind by its signature's. */
static void read_office(const ReaderOptions *o, const KindFile *file, const atomic_bool *cancelled,
                        FileResult *res) {
  static const struct {
    DetectKind magic;
    OfficeKind office;
  } map[] = {{DETECT_DOCX, OFFICE_DOCX}, {DETECT_XLSX, OFFICE_XLSX}, {DETECT_PPTX, OFFICE_PPTX}};
  OfficeOptions oopt = {.offset = o->offset, .limit = o->limit, .cancelled = cancelled};

  for (size_t i = 0; i < G_N_ELEMENTS(map); i++)
    if (map[i].magic == file->magic)
      (void)office_read_fd(file->fd, map[i].office, &oopt, res);
}

/* About four bytes a token: a PDF's or a document's size says no more before it is read. */
static int64_t guess_bytes(const uint8_t *head, size_t n, bool eof, int64_t bytes) {
  (void)head;
  (void)n;
  (void)eof;
  return bytes > 0 ? bytes / 4 + 1 : 0;
}

/* ---- the table --------------------------------------------------------------------------- */

#define DOCX_TYPE "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
#define XLSX_TYPE "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
#define PPTX_TYPE "application/vnd.openxmlformats-officedocument.presentationml.presentation"
#define PICTURE(kind_name, sig, mt, as_is)                                                         \
  {                                                                                                \
    .name = kind_name, .type = FILE_TYPE_IMAGE, .magic = sig, .media_type = mt,                    \
    .read = read_picture, .blocking = true, .web = as_is, .piece = "tile", .pieces = "tiles",      \
    .cut = &kind_cut_tiles                                                                         \
  }

/* In the order kinds_detect() asks `match`, text last: it takes whatever nothing else did. */
static const Kind kinds[] = {
    PICTURE("png", DETECT_PNG, "image/png", true),
    PICTURE("jpeg", DETECT_JPEG, "image/jpeg", true),
    PICTURE("gif", DETECT_GIF, "image/gif", true),
    PICTURE("webp", DETECT_WEBP, "image/webp", true),
    PICTURE("bmp", DETECT_BMP, "image/bmp", false),
    PICTURE("tiff", DETECT_TIFF, "image/tiff", false),
    PICTURE("ico", DETECT_ICO, "image/vnd.microsoft.icon", false),
    {.name = "pdf",
     .type = FILE_TYPE_PDF,
     .magic = DETECT_PDF,
     .media_type = "application/pdf",
     .read = read_pdf,
     .blocking = true,
     .piece = "page",
     .pieces = "pages",
     .cut = &kind_cut_pages,
     .guess = guess_bytes},
    {.name = "docx",
     .type = FILE_TYPE_DOCUMENT,
     .format = "docx",
     .magic = DETECT_DOCX,
     .media_type = DOCX_TYPE,
     .read = read_office,
     .blocking = true,
     .piece = "line",
     .pieces = "lines",
     .cut = &kind_cut_lines,
     .guess = guess_bytes},
    {.name = "xlsx",
     .type = FILE_TYPE_DOCUMENT,
     .format = "xlsx",
     .magic = DETECT_XLSX,
     .media_type = XLSX_TYPE,
     .read = read_office,
     .blocking = true,
     .piece = "sheet",
     .pieces = "rows",
     .cut = &kind_cut_rows,
     .guess = guess_bytes},
    {.name = "pptx",
     .type = FILE_TYPE_DOCUMENT,
     .format = "pptx",
     .magic = DETECT_PPTX,
     .media_type = PPTX_TYPE,
     .read = read_office,
     .blocking = true,
     .piece = "slide",
     .pieces = "slides",
     .cut = &kind_cut_sections,
     .guess = guess_bytes},
    {.name = "svg-render",
     .type = FILE_TYPE_IMAGE,
     .match = match_svg_render,
     .read = read_svg_render,
     .blocking = true,
     .piece = "picture",
     .pieces = "pictures"},
    {.name = "notebook",
     .type = FILE_TYPE_NOTEBOOK,
     .match = match_notebook,
     .read = read_notebook,
     .blocking = true,
     .piece = "cell",
     .pieces = "cells",
     .cut = &kind_cut_sections,
     .guess = notebook_guess},
    {.name = "text", .type = FILE_TYPE_TEXT, .read = read_text, .piece = "line", .pieces = "lines"},
};

const Kind *kinds_by_magic(DetectKind magic) {
  if (magic == DETECT_UNKNOWN)
    return NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (kinds[i].magic == magic)
      return &kinds[i];
  return NULL;
}

const Kind *kinds_detect(const ReaderOptions *o, DetectKind magic, const uint8_t *head, size_t n) {
  const Kind *k = kinds_by_magic(magic);

  if (k != NULL)
    return k;
  for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (kinds[i].match != NULL && kinds[i].match(o, head, n))
      return &kinds[i];
  return &kinds[G_N_ELEMENTS(kinds) - 1];
}

const Kind *kinds_of_result(const FileResult *f) {
  for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (kinds[i].type == f->type && g_strcmp0(kinds[i].format, f->format) == 0)
      return &kinds[i];
  return NULL;
}

const Kind *kinds_table(size_t *ret_n) {
  *ret_n = G_N_ELEMENTS(kinds);
  return kinds;
}
