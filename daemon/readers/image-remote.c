#include "daemon/readers/image-remote.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/worker/child/image-worker.h"
#include "daemon/worker/pdf-collect.h"
#include "daemon/worker/pdf-spawn.h"
#include "daemon/worker/pdf-wire.h"
#include "daemon/readers/pdf.h"

#define REPLY_MAX (IMAGE_MAX_BASE64 + 4096) /* a longer record is a broken worker */
#define IMAGE_FIXED 48                      /* PDF_RES_IMAGE's numbers before the base64 */

/* What the worker answered. */
typedef struct {
  bool check_only;
  ImageOut *imgs; /* g_malloc'd, n of them: one, or one per tile in order */
  size_t n;
  size_t base64; /* their bytes of base64 */
  bool animated;
  int err;     /* its failure (negative errno), 0 when it converted */
  char *error; /* its message */
  bool answered, ended;
} Answer;

/* The budget per image; see image-remote.h. */
int image_remote_budget_ms(void) {
  return pdf_collect_budget_ms("READERD_IMAGE_TIMEOUT_MS", IMAGE_DEFAULT_BUDGET_MS);
}

/* A descriptor holding exactly data[0, len): what the worker decodes is what readerd checked,
 * whatever happens to the file meanwhile. */
static int data_fd(const uint8_t *data, size_t len) {
  int fd = memfd_create("readerd-image", MFD_CLOEXEC), r;

  if (fd < 0)
    return -errno;
  r = pdf_wire_write_all(fd, data, len);
  if (r < 0) {
    (void)close(fd);
    return r;
  }
  return fd;
}

static bool all_base64(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!g_ascii_isalnum(p[i]) && p[i] != '+' && p[i] != '/' && p[i] != '=')
      return false;
  return true;
}

/* A tile's numbers make sense: within the picture, next in order, as many as announced. */
static bool tile_valid(const Answer *a, const ImageOut *img) {
  const ImageTile *t = &img->tile;

  if (t->count == 0)
    return a->n == 0;
  return t->count <= IMAGE_TILES_MAX && t->index == (int)a->n + 1 &&
         (a->n == 0 || a->imgs[0].tile.count == t->count) && t->x >= 0 && t->y >= 0 &&
         t->width >= 1 && t->height >= 1 && t->x <= img->original_width - t->width &&
         t->y <= img->original_height - t->height;
}

/* A converted picture (or one tile of it); its numbers and bytes are checked, the worker may
 * be subverted. */
static int answer_image(Answer *a, const PdfRecord *rec) {
  uint32_t v[12];
  ImageOut img = {0};
  size_t len;

  if (a->check_only)
    return rec->len == 0 && a->n == 0 ? 0 : -EBADMSG;
  for (size_t i = 0; i < G_N_ELEMENTS(v); i++)
    if (pdf_wire_u32(rec, 4 * i, &v[i]) < 0)
      return -EBADMSG;
  for (size_t i = 6; i < G_N_ELEMENTS(v); i++)
    if (v[i] > 100000)
      return -EBADMSG;
  len = rec->len - IMAGE_FIXED;
  if (v[0] < 1 || v[1] < 1 || v[0] > 100000 || v[1] > 100000 || v[2] > INT32_MAX ||
      v[3] > INT32_MAX || (v[4] != PDF_MEDIA_PNG && v[4] != PDF_MEDIA_JPEG) ||
      rec->len == IMAGE_FIXED || len > IMAGE_MAX_BASE64 ||
      a->base64 + len > IMAGE_TILES_MAX_BASE64 + IMAGE_MAX_BASE64 ||
      !all_base64(rec->data + IMAGE_FIXED, len))
    return -EBADMSG;
  img.width = (int)v[0];
  img.height = (int)v[1];
  img.original_width = (int)v[2];
  img.original_height = (int)v[3];
  img.tile = (ImageTile){.x = (int)v[6],
                         .y = (int)v[7],
                         .width = (int)v[8],
                         .height = (int)v[9],
                         .index = (int)v[10],
                         .count = (int)v[11]};
  if (!tile_valid(a, &img))
    return -EBADMSG;
  img.media_type = g_strdup(v[4] == PDF_MEDIA_PNG ? "image/png" : "image/jpeg");
  img.data = g_strndup((const char *)rec->data + IMAGE_FIXED, len);
  img.data_len = len;
  a->imgs = g_renew(ImageOut, a->imgs, a->n + 1);
  a->imgs[a->n++] = img;
  a->base64 += len;
  a->animated = v[5] != 0;
  return 0;
}

/* The worker's failure; only the codes image_convert() gives pass. */
static int answer_error(Answer *a, const PdfRecord *rec) {
  uint32_t e, animated;

  if (pdf_wire_u32(rec, 0, &e) < 0 || pdf_wire_u32(rec, 4, &animated) < 0)
    return -EBADMSG;
  switch (e) {
  case EFBIG:
  case ENOMEM:
  case EBADMSG:
  case ENOTSUP:
  case ETIME:
  case EIO:
    a->err = -(int)e;
    break;
  default:
    a->err = -EIO;
    break;
  }
  a->animated = animated != 0;
  a->error = g_strndup((const char *)rec->data + 8, MIN(rec->len - 8, (size_t)4096));
  return 0;
}

static int answer_record(Answer *a, const PdfRecord *rec) {
  switch (rec->tag) {
  case PDF_RES_IMAGE:
    /* Tiles come as one record each; anything else answers once. */
    if (a->answered && (a->n == 0 || a->imgs[0].tile.count == 0))
      return -EBADMSG;
    a->answered = true;
    return answer_image(a, rec);
  case PDF_RES_IMAGE_ERROR:
    if (a->answered)
      return -EBADMSG;
    a->answered = true;
    return answer_error(a, rec);
  case PDF_RES_END:
    a->ended = true;
    return a->answered ? 0 : -EBADMSG;
  default:
    return -EBADMSG;
  }
}

/* One record, for pdf_collect(): 1 once the worker has said everything. */
static int answer_consume(const PdfRecord *rec, void *data) {
  Answer *a = data;
  int r = answer_record(a, rec);

  if (r < 0)
    return r;
  return a->ended ? 1 : 0;
}

/* Turns how the worker ended into a code and a message. */
static int outcome_error(PdfCollectOutcome out, int status, int budget_ms, char **ret_error) {
  g_autofree char *budget = pdf_collect_budget_text(budget_ms);
  g_autofree char *why = NULL;

  if (out == PDF_COLLECT_DIED && WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    out = PDF_COLLECT_TIMEOUT; /* its CPU limit is the same budget, seen from inside */
  switch (out) {
  case PDF_COLLECT_CANCELLED:
    *ret_error = g_strdup("request cancelled");
    return -ECANCELED;
  case PDF_COLLECT_TIMEOUT:
    *ret_error = g_strdup_printf(
        "converting the image took longer than the %s time budget per image; it was stopped",
        budget);
    return -ETIME;
  case PDF_COLLECT_BROKEN:
    *ret_error = g_strdup("the image decoder failed on this file (a broken reply)");
    return -ECHILD;
  default:
    why = pdf_collect_death_reason(status);
    *ret_error = g_strdup_printf("the image decoder failed on this file (%s)", why);
    return -ECHILD;
  }
}

/* PDF_REQ_IMAGE and PDF_REQ_END. */
static GByteArray *build_request(uint32_t flags, const ImageConvertOptions *opt, int budget_ms) {
  uint32_t fixed[3] = {GUINT32_TO_LE(flags), GUINT32_TO_LE((uint32_t)MAX(opt->max_dimension, 1)),
                       GUINT32_TO_LE((uint32_t)budget_ms)};
  GByteArray *p = g_byte_array_new(), *req = g_byte_array_new();

  g_byte_array_append(p, (const guint8 *)fixed, sizeof(fixed));
  g_byte_array_append(p, (const guint8 *)opt->loader, (guint)strlen(opt->loader));
  pdf_wire_put(req, PDF_REQ_IMAGE, p->data, p->len);
  pdf_wire_put(req, PDF_REQ_END, NULL, 0);
  g_byte_array_free(p, TRUE);
  return req;
}

/* Sends the request with the data's descriptor and waits for the answer. */
static int run(const uint8_t *data, size_t len, uint32_t flags, const ImageConvertOptions *opt,
               Answer *a, char **ret_error) {
  const char *path = pdf_worker_path();
  int budget_ms = image_remote_budget_ms(), status = 0, fd, r;
  gint64 deadline = g_get_monotonic_time() + (gint64)budget_ms * 1000;
  GByteArray *req;
  PdfWorker w;
  PdfCollectOutcome out;

  if (path == NULL) {
    *ret_error = g_strdup("this program cannot convert images (no worker)");
    return -ENOEXEC;
  }
  if ((fd = data_fd(data, len)) < 0) {
    *ret_error = g_strdup_printf("cannot hand the image to its decoder: %s", g_strerror(-fd));
    return -ENOEXEC;
  }
  if ((r = pdf_spawn_take(path, &w)) < 0) {
    (void)close(fd);
    *ret_error = g_strdup_printf("cannot start the image decoder %s: %s", path, g_strerror(-r));
    return -ENOEXEC;
  }
  req = build_request(flags, opt, budget_ms);
  /* A worker that died at once shows up as EOF on the reply: nothing to do here. */
  (void)pdf_spawn_send(&w, fd, req->data, req->len);
  g_byte_array_free(req, TRUE);
  (void)close(fd);
  out = pdf_collect(w.sock, deadline, opt->cancelled, REPLY_MAX, answer_consume, a);
  if (out == PDF_COLLECT_ENDED) {
    pdf_spawn_give(&w, path); /* it waits for another request */
    if (a->err < 0) {
      *ret_error = g_steal_pointer(&a->error);
      return a->err;
    }
    return 0;
  }
  /* One that hangs or talks nonsense is killed; one that died is waited for. */
  status = pdf_spawn_end(&w, out != PDF_COLLECT_DIED, deadline + G_USEC_PER_SEC);
  return outcome_error(out, status, budget_ms, ret_error);
}

/* image_convert in a worker; see image-remote.h. */
int image_remote_convert(const uint8_t *data, size_t len, const ImageConvertOptions *opt,
                         ImageOut **ret, size_t *ret_n, bool *ret_animated, char **ret_error) {
  uint32_t flags = (opt->photo ? IMAGE_WORKER_PHOTO : 0) | (opt->vector ? IMAGE_WORKER_VECTOR : 0) |
                   (opt->check_rows ? IMAGE_WORKER_CHECK_ROWS : 0) |
                   (opt->tile == IMAGE_TILE_AUTO ? IMAGE_WORKER_TILE_AUTO : 0) |
                   (opt->tile == IMAGE_TILE_ALWAYS ? IMAGE_WORKER_TILE_ALWAYS : 0) |
                   (opt->tile_target == IMAGE_TILE_FOR_OPENAI ? IMAGE_WORKER_TILE_OPENAI : 0);
  Answer a = {0};
  int r;

  r = run(data, len, flags, opt, &a, ret_error);
  *ret_animated = a.animated;
  if (r < 0) {
    image_out_list_free(a.imgs, a.n);
    a.imgs = NULL;
    a.n = 0;
  }
  *ret = a.imgs;
  *ret_n = a.n;
  g_free(a.error);
  return r;
}

/* image_convert_check in a worker; see image-remote.h. */
int image_remote_check(const uint8_t *data, size_t len, const char *loader,
                       const atomic_bool *cancelled, char **ret_error) {
  ImageConvertOptions opt = {.loader = loader, .max_dimension = 1, .cancelled = cancelled};
  Answer a = {.check_only = true};
  int r = run(data, len, IMAGE_WORKER_CHECK_ONLY, &opt, &a, ret_error);

  g_free(a.error);
  return r;
}
