#include "daemon/worker/child/pdf-worker.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <poppler.h>

#include "daemon/worker/child/image-worker.h"
#include "daemon/log.h"
#include "daemon/worker/child/pdf-doc-cache.h"
#include "daemon/worker/pdf-file-id.h"
#include "daemon/worker/pdf-password.h"
#include "daemon/worker/child/pdf-poppler.h"
#include "daemon/worker/child/worker-limits.h"
#include "basic/pdf-select.h"
#include "daemon/worker/pdf-wire.h"

#define REQUEST_MAX ((size_t)1024 * 1024)
#define CUT_MARKER "\n… [the rest of this page is cut: 100 KiB content limit]"

typedef struct {
  char *pages;    /* NULL: the default window */
  char *password; /* NULL: none */
  bool render;
  int max_dim;
  uint32_t budget_ms;
  size_t image_budget; /* base64 bytes of pictures at most; 0: no pictures */
  int pdf_fd;          /* the PDF as readerd opened it (with PDF_REQ_IMAGE: the picture's
                        * bytes); -1 once poppler owns it */
  uint8_t *image;      /* PDF_REQ_IMAGE's payload: an image to convert instead of a PDF */
  size_t image_len;
  PdfFileId file_id; /* the PDF's identity as readerd saw it, when has_file_id */
  bool has_file_id;
} WorkerRequest;

typedef struct {
  WorkerRequest req;
  PopplerDocument *doc;
  int32_t n_pages;
  PdfSelection sel;
  GByteArray *out;    /* records not yet written */
  size_t text_used;   /* bytes of text sent: pages and outline */
  size_t images_used; /* base64 bytes of the pictures sent */
  int rendered;
  int shown;
  int32_t last_shown;
  const char *stop_reason; /* why pages stopped before the selection ended; NULL: window */
} Worker;

/* Documents kept open for the next read of the same file (pdf-doc-cache.h). */
static PdfDocCache *doc_cache;

/* The file's identity, when the worker's own fstat of the descriptor it was given confirms the
 * one readerd sent; false when none came or they differ: the cache is then not used. */
static bool cache_key(const WorkerRequest *req, PdfFileId *ret) {
  struct stat st;

  if (!req->has_file_id || req->pdf_fd < 0 || fstat(req->pdf_fd, &st) < 0)
    return false;
  pdf_file_id_from_stat(&st, ret);
  return pdf_file_id_equal(ret, &req->file_id);
}

/* The document this worker kept from an earlier read of the same, unchanged file under the
 * same password; NULL when none. */
static PopplerDocument *cache_get(const PdfFileId *id, const char *password) {
  return doc_cache != NULL ? pdf_doc_cache_get(doc_cache, id, password) : NULL;
}

/* Keeps the document opened for this read. */
static void cache_put(const PdfFileId *id, const char *password, PopplerDocument *doc) {
  if (doc_cache == NULL)
    doc_cache = pdf_doc_cache_new(PDF_DOC_CACHE_MAX_DOCS, PDF_DOC_CACHE_MAX_HEAP);
  pdf_doc_cache_put(doc_cache, id, password, doc);
}

/* After a read: the oldest documents go while the heap is over its bound. */
static void cache_trim(void) {
  if (doc_cache != NULL)
    (void)pdf_doc_cache_trim(doc_cache, pdf_doc_cache_heap_used);
}

static void worker_flush(Worker *wk) {
  /* readerd went away or gave up on us: nothing left to do. */
  if (wk->out->len > 0 && pdf_wire_write_all(STDOUT_FILENO, wk->out->data, wk->out->len) < 0)
    _exit(1);
  g_byte_array_set_size(wk->out, 0);
}

/* A failed read ends the worker: readerd does not give it another PDF. */
static _Noreturn void worker_exit(Worker *wk) {
  pdf_wire_put(wk->out, PDF_RES_END, NULL, 0);
  worker_flush(wk);
  /* _exit: poppler's and glib's global destructors have nothing to give back. */
  _exit(0);
}

/* A read that went well: the end record, then everything this PDF held is released and the
 * worker waits for the next request. */
static void worker_done(Worker *wk) {
  pdf_wire_put(wk->out, PDF_RES_END, NULL, 0);
  worker_flush(wk);
  g_clear_object(&wk->doc);
  if (wk->req.pdf_fd >= 0) /* still ours when a password opened it by its /proc link */
    close(wk->req.pdf_fd);
  pdf_select_clear(&wk->sel);
  g_byte_array_free(wk->out, TRUE);
  g_free(wk->req.pages);
  g_free(wk->req.password);
  /* An idle worker keeps poppler's caches and its kept documents, not the pages' memory. */
  malloc_trim(0);
  cache_trim();
}

static _Noreturn __attribute__((format(printf, 3, 4))) void worker_fail(Worker *wk, PdfWireError e,
                                                                        const char *fmt, ...) {
  g_autofree char *msg = NULL;
  GByteArray *b = g_byte_array_new();
  uint32_t code = GUINT32_TO_LE((uint32_t)e);
  va_list ap;

  va_start(ap, fmt);
  msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_byte_array_append(b, (const guint8 *)&code, sizeof(code));
  g_byte_array_append(b, (const guint8 *)msg, (guint)strlen(msg));
  pdf_wire_put(wk->out, PDF_RES_ERROR, b->data, b->len);
  g_byte_array_free(b, TRUE);
  worker_exit(wk);
}

/* poppler, gdk-pixbuf and librsvg complain about damaged files through GLib: those messages go
 * through readerd's logger, which never blocks on a full stderr, at debug level (the file's own
 * error says what went wrong). What libraries print to stderr themselves goes to /dev/null
 * unless READERD_LOG=debug (or in a sanitizer build, whose reports must be seen). */
static void worker_quiet(void) {
  const char *log = getenv("READERD_LOG");
  int fd;

  log_init_from_env();
  log_route_glib(LOG_DEBUG);
  if (log != NULL && strcmp(log, "debug") == 0)
    return;
#ifndef WORKER_SANITIZED
  /* Without /dev/null the libraries' messages go to readerd's stderr as before. */
  fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)dup2(fd, STDERR_FILENO);
    (void)close(fd);
  }
#else
  (void)fd;
#endif
}

static void request_apply(WorkerRequest *req, const PdfRecord *rec) {
  uint32_t v;

  switch (rec->tag) {
  case PDF_REQ_PAGES:
    g_free(req->pages);
    req->pages = g_strndup((const char *)rec->data, rec->len);
    break;
  case PDF_REQ_PASSWORD:
    g_free(req->password);
    req->password = g_strndup((const char *)rec->data, rec->len);
    break;
  case PDF_REQ_RENDER:
    if (pdf_wire_u32(rec, 0, &v) == 0)
      req->render = v != 0;
    break;
  case PDF_REQ_MAX_DIM:
    if (pdf_wire_u32(rec, 0, &v) == 0 && v >= 1 && v <= 100000)
      req->max_dim = (int)v;
    break;
  case PDF_REQ_BUDGET_MS:
    if (pdf_wire_u32(rec, 0, &v) == 0)
      req->budget_ms = v;
    break;
  case PDF_REQ_IMAGE_BUDGET:
    if (pdf_wire_u32(rec, 0, &v) == 0)
      req->image_budget = MIN((size_t)v, PDF_IMAGES_MAX_BASE64);
    break;
  case PDF_REQ_IMAGE:
    g_free(req->image);
    req->image = g_memdup2(rec->data, rec->len);
    req->image_len = rec->len;
    break;
  case PDF_REQ_FILE_ID:
    req->has_file_id = pdf_file_id_parse(rec, &req->file_id) == 0;
    break;
  default:
    break;
  }
}

/* Reads from fd 0 into buf; the first descriptor that comes with the bytes (SCM_RIGHTS: the
 * PDF, or the picture to convert) goes to *pdf_fd when it is still -1, any other is closed.
 * It keeps whatever number it got: poppler, cairo and FreeType open files too, and a fixed
 * number could clobber one of theirs in a worker that reads many PDFs. Returns the bytes
 * read, 0 at EOF, or -errno. */
static ssize_t request_recv(uint8_t *buf, size_t size, int *pdf_fd) {
  union {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = size};
  struct msghdr msg = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = sizeof(control.buf)};
  ssize_t n;

  do
    n = recvmsg(STDIN_FILENO, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm)) {
    int fd;

    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
      continue;
    for (size_t k = 0; k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
      memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof(fd));
      if (*pdf_fd < 0)
        *pdf_fd = fd;
      else
        close(fd);
    }
  }
  return n;
}

/* Applies the complete records of buf[*at..len) up to PDF_REQ_END; *ret_complete tells
 * whether the end was reached (else more bytes are needed). Returns 0, or -EBADMSG when the
 * bytes are not a request. */
static int request_parse(WorkerRequest *req, const GByteArray *buf, size_t *at,
                         bool *ret_complete) {
  *ret_complete = false;
  for (;;) {
    PdfRecord rec;
    ssize_t used = pdf_wire_next(buf->data + *at, buf->len - *at, &rec);

    if (used <= 0)
      return used == 0 ? 0 : -EBADMSG;
    *at += (size_t)used;
    if (rec.tag == PDF_REQ_END) {
      *ret_complete = true;
      return *at == buf->len ? 0 : -EBADMSG;
    }
    request_apply(req, &rec);
  }
}

/* Waits for the next request: its records up to PDF_REQ_END, and its descriptor.
 * Returns 0; -ENODATA when readerd closed the socket before a request began; -ENOENT when no
 * descriptor came; another negative errno. */
static int request_read(WorkerRequest *req) {
  GByteArray *buf = g_byte_array_new();
  uint8_t chunk[4096];
  bool complete = false;
  size_t at = 0;
  int r = 0;

  while (r == 0 && !complete) {
    ssize_t n = request_recv(chunk, sizeof(chunk), &req->pdf_fd);

    if (n <= 0) {
      r = n < 0 ? (int)n : buf->len == 0 ? -ENODATA : -EPIPE;
      break;
    }
    g_byte_array_append(buf, chunk, (guint)n);
    r = buf->len > REQUEST_MAX ? -EMSGSIZE : request_parse(req, buf, &at, &complete);
  }
  g_byte_array_free(buf, TRUE);
  if (r == 0 && req->pdf_fd < 0)
    return -ENOENT;
  return r;
}

/* Opens uri with the password cut as the PDF standard reads it (pdf-password.h): to 127
 * bytes for AES-256 and, when that does not open it, to 32 characters for RC4 and AES-128.
 * poppler cannot say which of them the PDF uses before it opens, and given more than 127 bytes
 * it overruns its stack on AES-256. */
static PopplerDocument *open_with_password(const char *uri, const char *password, GError **error) {
  size_t len = strlen(password);
  size_t aes = pdf_password_cut(password, len, PDF_PASSWORD_AES256);
  size_t padded = pdf_password_cut(password, len, PDF_PASSWORD_PADDED);
  g_autofree char *cut = g_strndup(password, aes);
  PopplerDocument *doc = poppler_document_new_from_file(uri, cut, error);

  if (doc != NULL || padded == aes ||
      !g_error_matches(*error, POPPLER_ERROR, POPPLER_ERROR_ENCRYPTED))
    return doc;
  g_clear_error(error);
  g_free(cut);
  cut = g_strndup(password, padded);
  return poppler_document_new_from_file(uri, cut, error);
}

/* Opens the PDF at req->pdf_fd; *ret_needed tells whether the password was needed. With a
 * password, poppler retries a failed password in another encoding on a copy of its stream
 * after freeing the original; with a stream over a descriptor or bytes that copy reads freed
 * memory (poppler 22.x). Opening the descriptor's own /proc link by name gives poppler a file
 * it can open twice: the same open file, never the client's path again.
 * A password is tried only when the PDF needs one: poppler refuses a PDF that opens without
 * a password (owner password only) when given a wrong one. */
static PopplerDocument *open_document(WorkerRequest *req, bool *ret_needed, GError **error) {
  g_autofree char *proc_uri = g_strdup_printf("file:///proc/self/fd/%d", req->pdf_fd);
  PopplerDocument *doc;
  int fd = req->pdf_fd;

  *ret_needed = req->password != NULL;
  if (req->password == NULL || access(proc_uri + strlen("file://"), R_OK) < 0) {
    g_autofree char *cut = NULL;

    if (req->password != NULL)
      cut = g_strndup(req->password,
                      pdf_password_cut(req->password, strlen(req->password), PDF_PASSWORD_AES256));
    req->pdf_fd = -1; /* poppler owns it now, and closes it with the document */
    return poppler_document_new_from_fd(fd, cut, error);
  }
  doc = poppler_document_new_from_file(proc_uri, NULL, error);
  *ret_needed = doc == NULL;
  if (doc != NULL || !g_error_matches(*error, POPPLER_ERROR, POPPLER_ERROR_ENCRYPTED))
    return doc;
  g_clear_error(error);
  return open_with_password(proc_uri, req->password, error);
}

/* Opens the PDF, or takes it from the cache, and checks the selection; failures end the
 * worker. */
static void worker_open(Worker *wk) {
  g_autoptr(GError) err = NULL;
  PdfFileId id;
  bool keyed = cache_key(&wk->req, &id), needed = false;
  int32_t bad = 0;

  wk->doc = keyed ? cache_get(&id, wk->req.password) : NULL;
  if (wk->doc == NULL) {
    wk->doc = open_document(&wk->req, &needed, &err);
  } else { /* kept already, over the descriptor of an earlier read: this one is not needed */
    keyed = false;
    close(wk->req.pdf_fd);
    wk->req.pdf_fd = -1;
  }
  if (wk->doc == NULL && g_error_matches(err, POPPLER_ERROR, POPPLER_ERROR_ENCRYPTED)) {
    if (wk->req.password != NULL)
      worker_fail(wk, PDF_ERR_PASSWORD, "the password given does not open this PDF");
    worker_fail(wk, PDF_ERR_PASSWORD,
                "the PDF is encrypted with a password; give it as \"password\" with the path");
  }
  if (wk->doc == NULL)
    worker_fail(wk, PDF_ERR_CORRUPTED, "cannot read the PDF: %s",
                err != NULL ? err->message : "unknown error");
  wk->n_pages = poppler_document_get_n_pages(wk->doc);
  if (wk->n_pages <= 0)
    worker_fail(wk, PDF_ERR_CORRUPTED, "the PDF has no pages that can be read");
  if (keyed)
    cache_put(&id, needed ? wk->req.password : NULL, wk->doc);
  pdf_wire_put_u32(wk->out, PDF_RES_DOC, (uint32_t)wk->n_pages);
  if (pdf_select_parse(wk->req.pages, &wk->sel) < 0)
    worker_fail(wk, PDF_ERR_INTERNAL, "invalid page selection");
  if (pdf_select_check(&wk->sel, wk->n_pages, &bad) < 0)
    worker_fail(wk, PDF_ERR_PAGE_RANGE, "page %d is past the end: the document has %d page%s",
                (int)bad, (int)wk->n_pages, wk->n_pages == 1 ? "" : "s");
}

/* Title, author, and the outline when the pages shown start at the first. */
static void worker_info(Worker *wk) {
  g_autofree char *title = pdf_info_clean(poppler_document_get_title(wk->doc));
  g_autofree char *author = pdf_info_clean(poppler_document_get_author(wk->doc));
  g_autofree char *outline = NULL;

  if (title != NULL)
    pdf_wire_put_str(wk->out, PDF_RES_TITLE, title);
  if (author != NULL)
    pdf_wire_put_str(wk->out, PDF_RES_AUTHOR, author);
  if (pdf_select_next(&wk->sel, 0, wk->n_pages) == 1)
    outline = pdf_outline_text(wk->doc);
  if (outline != NULL) {
    pdf_wire_put_str(wk->out, PDF_RES_OUTLINE, outline);
    wk->text_used += strlen(outline);
  }
  worker_flush(wk);
}

/* Cuts text so that it fits in `room` bytes with CUT_MARKER, on a character boundary. */
static void cut_text(char **text, size_t room) {
  size_t keep = room > sizeof(CUT_MARKER) ? room - sizeof(CUT_MARKER) : 0;
  const char *end = *text + keep;
  char *cut;

  while (end > *text && (*(const unsigned char *)end & 0xC0) == 0x80)
    end--;
  cut = g_strdup_printf("%.*s%s", (int)(end - *text), *text, CUT_MARKER);
  g_free(*text);
  *text = cut;
}

/* Renders the page into an image record when it fits. Returns 0 (rendered, or not worth a
 * picture), or -ENOBUFS when the pictures' budget is spent and pages must stop here
 * (stop_reason says which). */
static int worker_render(Worker *wk, PopplerPage *page, bool asked) {
  size_t left, budget;
  PdfEncoded enc = {0};
  uint8_t head[12];
  GByteArray *rec;
  int w = 0, h = 0, r;

  /* Each picture is encoded within what is left (pdf_encode_page keeps to max_bytes). */
  g_assert(wk->images_used <= wk->req.image_budget);
  left = wk->req.image_budget - wk->images_used;
  budget = MIN(PDF_IMAGE_MAX_BASE64, left);
  if (wk->rendered >= PDF_MAX_RENDERED) {
    wk->stop_reason = G_STRINGIFY(PDF_MAX_RENDERED) " rendered pages per read";
    return -ENOBUFS;
  }
  /* Base64 takes 4 bytes for every 3. */
  r = pdf_page_render(page, wk->req.max_dim, budget / 4 * 3, !asked, &enc, &w, &h);
  if (r == -EFBIG && budget < PDF_IMAGE_MAX_BASE64) {
    wk->stop_reason = "the pictures' budget is spent";
    return -ENOBUFS;
  }
  if (r < 0 || enc.data == NULL)
    return 0; /* blank, sizeless, or too big even small: the text stands alone */
  wk->rendered++;
  wk->images_used += (enc.len + 2) / 3 * 4;
  for (int i = 0; i < 3; i++) {
    uint32_t v = GUINT32_TO_LE(i == 0 ? (uint32_t)w : i == 1 ? (uint32_t)h : (uint32_t)enc.media);

    memcpy(head + 4 * i, &v, 4);
  }
  rec = g_byte_array_sized_new((guint)(sizeof(head) + enc.len));
  g_byte_array_append(rec, head, sizeof(head));
  g_byte_array_append(rec, enc.data, (guint)enc.len);
  pdf_wire_put(wk->out, PDF_RES_PAGE_IMAGE, rec->data, rec->len);
  g_byte_array_free(rec, TRUE);
  g_free(enc.data);
  return 0;
}

/* True for a page whose text says too little: none at all, or a few characters on a page
 * that is mostly a picture. */
static bool looks_scanned(PopplerPage *page, const char *text) {
  size_t n = pdf_text_visible_chars(text);

  return n == 0 ||
         (n < PDF_SCAN_MIN_CHARS && pdf_page_image_coverage(page) >= PDF_SCAN_MIN_COVERAGE);
}

/* Reads one page: its text, and its picture when asked for or when it has (almost) no text.
 * Returns 0 when the page was sent, -ENOBUFS when a budget stops the pages before this one
 * (stop_reason says which). */
static int worker_page(Worker *wk, int32_t number) {
  PopplerPage *page;
  char *text;
  size_t len;
  int r = 0;

  /* Sent before poppler touches the page: if it crashes or hangs, readerd knows where. */
  pdf_wire_put_u32(wk->out, PDF_RES_PAGE_START, (uint32_t)number);
  worker_flush(wk);
  page = poppler_document_get_page(wk->doc, number - 1);
  text = page != NULL ? pdf_page_text(page) : g_strdup("");
  len = strlen(text);
  if (wk->text_used + len > PDF_TEXT_MAX) {
    if (wk->shown > 0) {
      wk->stop_reason = "100 KiB content limit";
      r = -ENOBUFS;
      goto finish;
    }
    cut_text(&text, PDF_TEXT_MAX - wk->text_used);
    len = strlen(text);
  }
  /* With no budget for pictures (images.maxTotalBytes 0) the text stands alone. */
  if (page != NULL && wk->req.image_budget > 0 && (wk->req.render || looks_scanned(page, text))) {
    r = worker_render(wk, page, wk->req.render);
    if (r < 0)
      goto finish;
  }
  wk->text_used += len;
  pdf_wire_put(wk->out, PDF_RES_PAGE_TEXT, text, len);
  pdf_wire_put(wk->out, PDF_RES_PAGE_DONE, NULL, 0);
  worker_flush(wk);
  wk->shown++;
  wk->last_shown = number;

finish:
  g_free(text);
  if (page != NULL)
    g_object_unref(page);
  return r;
}

/* The line after the last page when selected pages are left: which, why, how to read on. */
static void worker_notice(Worker *wk) {
  int64_t left = pdf_select_count_after(&wk->sel, wk->last_shown, wk->n_pages);
  g_autofree char *which = NULL, *next = NULL, *notice = NULL;

  if (left == 0)
    return;
  which = pdf_select_format_after(&wk->sel, wk->last_shown, wk->n_pages);
  next = pdf_select_format_after(&wk->sel, wk->last_shown, 0);
  notice =
      g_strdup_printf("… %s %s not shown%s%s%s; continue with pages=\"%s\"",
                      left == 1 ? "page" : "pages", which, wk->stop_reason ? " (" : "",
                      wk->stop_reason ? wk->stop_reason : "", wk->stop_reason ? ")" : "", next);
  pdf_wire_put_str(wk->out, PDF_RES_NOTICE, notice);
}

static void worker_pages(Worker *wk) {
  int window = wk->req.pages != NULL ? PDF_MAX_PAGES : PDF_DEFAULT_PAGES;
  int32_t p = 0;

  while ((p = pdf_select_next(&wk->sel, p, wk->n_pages)) > 0) {
    if (wk->shown == window) {
      if (wk->req.pages != NULL)
        wk->stop_reason = G_STRINGIFY(PDF_MAX_PAGES) " pages per read";
      break;
    }
    if (worker_page(wk, p) < 0)
      break;
  }
  if (wk->shown < wk->n_pages)
    pdf_wire_put(wk->out, PDF_RES_TRUNCATED, NULL, 0);
  worker_notice(wk);
}

/* readerd's process id, as the worker was started. */
static pid_t daemon_pid;

/* The parent-death signal. Linux sends it when the *thread* that started the worker ends, not
 * only when readerd does; idle workers are shared by every thread, so one may be at work for
 * another thread then. Only a changed parent (readerd is gone, the worker was handed to init)
 * ends it. */
static void parent_gone(int sig) {
  (void)sig;
  if (getppid() != daemon_pid)
    _exit(3);
}

/* The worker must not outlive readerd, even busy in a page it would take long over. */
static void exit_with_daemon(void) {
  struct sigaction sa;

  daemon_pid = getppid();
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = parent_gone;
  sa.sa_flags = SA_RESTART;
  (void)sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGHUP, &sa, NULL);
  (void)prctl(PR_SET_PDEATHSIG, SIGHUP);
  /* readerd may have ended before the signal was asked for. */
  if (getppid() != daemon_pid || daemon_pid == 1)
    _exit(3);
}

/* The worker process; see pdf-worker.h. */
_Noreturn void pdf_worker_main(void) {
  exit_with_daemon();
  worker_quiet();
  for (;;) {
    Worker wk = {.req = {.max_dim = 1568,
                         .budget_ms = 20000,
                         .image_budget = PDF_IMAGES_MAX_BASE64,
                         .pdf_fd = -1}};
    int r = request_read(&wk.req);

    if (r == -ENODATA)
      _exit(0); /* readerd closed an idle worker */
    if (r < 0)
      _exit(2);
    if (wk.req.image != NULL) { /* image-worker.h */
      image_worker_serve(wk.req.image, wk.req.image_len, wk.req.pdf_fd);
      g_free(wk.req.image);
      continue;
    }
    wk.out = g_byte_array_new();
    worker_limits(wk.req.budget_ms, PDF_WORKER_MAX_MEMORY);
    worker_open(&wk);
    worker_info(&wk);
    worker_pages(&wk);
    worker_done(&wk);
  }
}
