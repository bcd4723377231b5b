#include "daemon/readers/pdf.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/worker/pdf-collect.h"
#include "daemon/worker/pdf-file-id.h"
#include "daemon/worker/pdf-password.h"
#include "basic/pdf-select.h"
#include "daemon/worker/pdf-spawn.h"
#include "daemon/worker/pdf-wire.h"
#include "daemon/worker/child/pdf-worker.h"

static const char *worker_path;

/* What has come back from the worker so far. A page goes into res only when complete. */
typedef struct {
  FileResult *res;
  const PdfOptions *opt;
  PdfSelection sel;
  int budget_ms;
  int32_t n_pages; /* 0 until the worker opened the document */
  int32_t current; /* the page begun and not complete, 0 for none */
  int32_t last_done;
  char *text;        /* the current page's text */
  ImageOut image;    /* the current page's picture, when data is set */
  size_t text_bytes; /* of the outline and the pages' texts received */
  bool ended;
} Collect;

/* Sets the worker's executable; see pdf.h. */
void pdf_set_worker_path(const char *path) {
  worker_path = path;
}

/* The worker's executable; see pdf.h. */
const char *pdf_worker_path(void) {
  return worker_path;
}

/* Sends the request, with the PDF's descriptor. */
static void send_request(PdfWorker *w, int pdf_fd, const PdfFileId *id, const PdfOptions *opt,
                         const PdfSelection *sel, int budget_ms) {
  int64_t image_budget = (int64_t)PDF_IMAGES_MAX_BASE64;
  GByteArray *b = g_byte_array_new();

  if (opt->max_image_bytes >= 0)
    image_budget = MIN(opt->max_image_bytes, image_budget);
  if (opt->pages != NULL) {
    /* Sorted and merged: what the worker gets is bounded by PDF_MAX_RANGES. */
    g_autofree char *pages = pdf_select_format_after(sel, 0, 0);

    pdf_wire_put_str(b, PDF_REQ_PAGES, pages);
  }
  /* No rule of the standard reads past 127 bytes (pdf-password.h), and a password as long as
   * a request line (16 MiB) would not fit a worker's request. */
  if (opt->password != NULL)
    pdf_wire_put(b, PDF_REQ_PASSWORD, opt->password,
                 pdf_password_cut(opt->password, strlen(opt->password), PDF_PASSWORD_AES256));
  pdf_wire_put_u32(b, PDF_REQ_RENDER, opt->render ? 1 : 0);
  pdf_wire_put_u32(b, PDF_REQ_MAX_DIM, (uint32_t)MAX(opt->max_dimension, 1));
  pdf_wire_put_u32(b, PDF_REQ_BUDGET_MS, (uint32_t)budget_ms);
  pdf_wire_put_u32(b, PDF_REQ_IMAGE_BUDGET, (uint32_t)image_budget);
  pdf_file_id_put(b, PDF_REQ_FILE_ID, id);
  pdf_wire_put(b, PDF_REQ_END, NULL, 0);
  /* A worker that died at once shows up as EOF on the reply: nothing to do here. */
  (void)pdf_spawn_send(w, pdf_fd, b->data, b->len);
  g_byte_array_free(b, TRUE);
}

static void collect_drop_page(Collect *c) {
  g_free(c->text);
  c->text = NULL;
  image_out_clear(&c->image);
  c->current = 0;
}

/* The page begun is complete: its picture goes into res->images, the page into page_out. */
static int collect_page_done(Collect *c) {
  FileResult *res = c->res;
  PageOut *p;

  /* The worker keeps these limits; a worker that does not is broken (or subverted by the
   * file): its output stays bounded all the same. */
  if (c->current == 0 || res->n_page_out >= PDF_MAX_PAGES ||
      (c->image.data != NULL && res->n_images >= PDF_MAX_RENDERED))
    return -EBADMSG;
  p = file_result_add_page(res);
  p->number = c->current;
  p->text = c->text != NULL ? c->text : g_strdup("");
  p->text_len = strlen(p->text);
  c->text = NULL;
  if (c->image.data != NULL) {
    p->image = (int)res->n_images;
    *file_result_add_image(res) = c->image;
    memset(&c->image, 0, sizeof(c->image));
  }
  c->last_done = c->current;
  c->current = 0;
  return 0;
}

static int collect_image(Collect *c, const PdfRecord *rec) {
  uint32_t w, h, media;

  if (c->current == 0 || pdf_wire_u32(rec, 0, &w) < 0 || pdf_wire_u32(rec, 4, &h) < 0 ||
      pdf_wire_u32(rec, 8, &media) < 0 || w < 1 || h < 1 || w > INT32_MAX || h > INT32_MAX ||
      rec->len - 12 > PDF_IMAGE_MAX_BASE64 / 4 * 3)
    return -EBADMSG;
  image_out_clear(&c->image);
  c->image.media_type = g_strdup(media == PDF_MEDIA_JPEG ? "image/jpeg" : "image/png");
  c->image.data = g_base64_encode(rec->data + 12, rec->len - 12);
  c->image.data_len = strlen(c->image.data);
  c->image.width = (int)w;
  c->image.height = (int)h;
  c->image.page = c->current;
  return 0;
}

static const char *code_of_error(uint32_t e) {
  switch (e) {
  case PDF_ERR_CORRUPTED:
    return CODE_CORRUPTED_FILE;
  case PDF_ERR_PASSWORD:
    return CODE_PASSWORD_PROTECTED;
  case PDF_ERR_PAGE_RANGE:
    return CODE_PAGE_OUT_OF_RANGE;
  default:
    return CODE_CONVERSION_FAILED;
  }
}

static char *record_str(const PdfRecord *rec, size_t at) {
  return g_strndup((const char *)rec->data + at, rec->len - at);
}

/* The worker's own failure: a per-file code and its message. */
static int collect_error(Collect *c, const PdfRecord *rec) {
  g_autofree char *msg = NULL;
  uint32_t v;

  if (pdf_wire_u32(rec, 0, &v) < 0)
    return -EBADMSG;
  msg = record_str(rec, 4);
  file_result_fail(c->res, code_of_error(v), "%s", msg);
  return 0;
}

/* Applies one record to the result. Returns 0, or -EBADMSG when it breaks the protocol. */
static int collect_record(Collect *c, const PdfRecord *rec) {
  FileResult *res = c->res;
  uint32_t v;

  switch (rec->tag) {
  case PDF_RES_DOC:
    if (pdf_wire_u32(rec, 0, &v) < 0 || v < 1 || v > INT32_MAX - 1)
      return -EBADMSG;
    c->n_pages = (int32_t)v;
    res->pages = v;
    return 0;
  case PDF_RES_TITLE:
    g_free(res->title);
    res->title = record_str(rec, 0);
    return 0;
  case PDF_RES_AUTHOR:
    g_free(res->author);
    res->author = record_str(rec, 0);
    return 0;
  case PDF_RES_OUTLINE:
    c->text_bytes += rec->len;
    if (c->text_bytes > PDF_TEXT_MAX)
      return -EBADMSG;
    g_free(res->outline);
    res->outline = record_str(rec, 0);
    return 0;
  case PDF_RES_PAGE_START:
    collect_drop_page(c);
    if (pdf_wire_u32(rec, 0, &v) < 0 || v < 1 || (int64_t)v > c->n_pages)
      return -EBADMSG;
    c->current = (int32_t)v;
    return 0;
  case PDF_RES_PAGE_TEXT:
    c->text_bytes += rec->len;
    if (c->current == 0 || c->text_bytes > PDF_TEXT_MAX)
      return -EBADMSG;
    g_free(c->text);
    c->text = record_str(rec, 0);
    return 0;
  case PDF_RES_PAGE_IMAGE:
    return collect_image(c, rec);
  case PDF_RES_PAGE_DONE:
    return collect_page_done(c);
  case PDF_RES_TRUNCATED:
    res->truncated = true;
    return 0;
  case PDF_RES_NOTICE:
    g_free(res->notice);
    res->notice = record_str(rec, 0);
    return 0;
  case PDF_RES_ERROR:
    return collect_error(c, rec);
  case PDF_RES_END:
    c->ended = true;
    return 0;
  default:
    return 0; /* a newer worker's record: ignored */
  }
}

/* One record, for pdf_collect(): 1 once the worker has said everything. */
static int collect_consume(const PdfRecord *rec, void *data) {
  Collect *c = data;
  int r = collect_record(c, rec);

  if (r < 0)
    return r;
  return c->ended ? 1 : 0;
}

/* The worker stopped on page `at` (0: before any page) after the pages in res: keep those
 * with a notice saying what is missing and how to read on, or fail when there are none. */
static void collect_partial(Collect *c, int32_t at, bool timeout, const char *why) {
  FileResult *res = c->res;
  int32_t resume = timeout || at == 0 ? MAX(at - 1, c->last_done) : at;
  int64_t left = c->n_pages > 0 ? pdf_select_count_after(&c->sel, resume, c->n_pages) : 0;
  g_autofree char *which =
      c->n_pages > 0 ? pdf_select_format_after(&c->sel, resume, c->n_pages) : NULL;
  g_autofree char *next = pdf_select_format_after(&c->sel, resume, 0);
  g_autofree char *rest = left == 0
                              ? g_strdup("")
                              : g_strdup_printf("; %s %s not shown; continue with pages=\"%s\"",
                                                left == 1 ? "page" : "pages", which, next);
  g_autofree char *where = at > 0 ? g_strdup_printf(" on page %d", (int)at) : g_strdup("");
  g_autofree char *budget = pdf_collect_budget_text(c->budget_ms);

  if (res->n_page_out == 0 && timeout) {
    file_result_fail(res, CODE_CONVERSION_FAILED,
                     "reading the PDF took longer than the %s time budget per file (stopped%s)%s",
                     budget, at > 0 ? where : " while opening it", rest);
  } else if (res->n_page_out == 0) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "the PDF reader failed%s (%s)%s", where, why, rest);
  } else {
    g_free(res->notice);
    res->truncated = true;
    if (timeout)
      res->notice = g_strdup_printf("… stopped%s: the %s time budget per file ran out%s", where,
                                    budget, rest);
    else if (at == 0)
      res->notice = g_strdup_printf("… the PDF reader stopped after page %d (%s)%s",
                                    (int)c->last_done, why, rest);
    else
      res->notice = g_strdup_printf(
          "… page %d could not be read (the PDF reader failed on it: %s)%s", (int)at, why, rest);
  }
}

/* Turns how the worker ended into the result. */
static int collect_finish(Collect *c, PdfCollectOutcome out, int status) {
  FileResult *res = c->res;
  int32_t at = c->current;
  g_autofree char *why = NULL;

  collect_drop_page(c);
  if (out == PDF_COLLECT_ENDED)
    return res->code != NULL ? -EINVAL : 0;
  if (out == PDF_COLLECT_CANCELLED) {
    file_result_fail(res, CODE_CANCELLED, "request cancelled");
    return -ECANCELED;
  }
  /* Its CPU limit is the same budget, seen from inside. */
  if (out == PDF_COLLECT_DIED && WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    out = PDF_COLLECT_TIMEOUT;
  why = out == PDF_COLLECT_BROKEN ? g_strdup("a broken reply") : pdf_collect_death_reason(status);
  collect_partial(c, at, out == PDF_COLLECT_TIMEOUT, why);
  return res->code != NULL ? -EIO : 0;
}

/* Reads a PDF through a worker process; see pdf.h. */
int pdf_read(int fd, const struct stat *st, const PdfOptions *opt, FileResult *res) {
  Collect c = {.res = res,
               .opt = opt,
               .budget_ms = pdf_collect_budget_ms("READERD_PDF_TIMEOUT_MS", PDF_DEFAULT_BUDGET_MS)};
  gint64 deadline;
  int status = 0, r;
  PdfFileId id;
  PdfWorker w;
  PdfCollectOutcome out;

  res->type = FILE_TYPE_PDF;
  if (st->st_size > PDF_MAX_FILE_BYTES) {
    file_result_fail(res, CODE_FILE_TOO_LARGE, "PDF file is %jd bytes; the limit is %jd bytes",
                     (intmax_t)st->st_size, (intmax_t)PDF_MAX_FILE_BYTES);
    return -EFBIG;
  }
  if (pdf_select_parse(opt->pages, &c.sel) < 0 || c.sel.n > PDF_MAX_RANGES) {
    file_result_fail(res, CODE_PAGE_OUT_OF_RANGE, "invalid page selection: %s",
                     c.sel.n > PDF_MAX_RANGES ? "more than " G_STRINGIFY(PDF_MAX_RANGES) " ranges"
                                              : "bad syntax");
    pdf_select_clear(&c.sel);
    return -EINVAL;
  }
  deadline = g_get_monotonic_time() + (gint64)c.budget_ms * 1000;
  if (worker_path == NULL) {
    file_result_fail(res, CODE_CONVERSION_FAILED, "this program cannot read PDFs (no PDF worker)");
    r = -ENOEXEC;
    goto finish;
  }
  /* The worker that read this file last may still hold it open. */
  pdf_file_id_from_stat(st, &id);
  r = pdf_spawn_take_for(worker_path, &id, &w);
  if (r < 0) {
    /* Named, so that a worker missing from the installation shows where it was looked for. */
    file_result_fail(res, CODE_CONVERSION_FAILED, "cannot start the PDF reader %s: %s", worker_path,
                     g_strerror(-r));
    goto finish;
  }
  send_request(&w, fd, &id, opt, &c.sel, c.budget_ms);
  out = pdf_collect(w.sock, deadline, opt->cancelled, SIZE_MAX, collect_consume, &c);
  if (out == PDF_COLLECT_ENDED && res->code == NULL)
    pdf_spawn_give(&w, worker_path); /* it waits for another PDF */
  else /* a worker that failed its PDF exits; one that hangs or talks nonsense is killed */
    status = pdf_spawn_end(&w, out != PDF_COLLECT_ENDED && out != PDF_COLLECT_DIED, deadline);
  r = collect_finish(&c, out, status);

finish:
  pdf_select_clear(&c.sel);
  return r;
}
