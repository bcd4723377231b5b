/* The settle phase of a request (request-internal.h): the answer kept within what the policy
 * allows, each file's piece within the answer's byte cap (past it, the files from the first that
 * passes it summed up in one element), then the pieces in order between the format's head and
 * tail. */
#include "daemon/request/request-internal.h"

#include <glib.h>

#include "basic/macro.h"
#include "daemon/readers/image.h"

/* The image of a file that a format writes in the answer's tail, counted against the cap. */
static size_t tail_bytes(const Request *req, const FileResult *f) {
  size_t n = 0;

  for (size_t j = 0; req->fmt->tail_uses_image_data && j < f->n_images; j++)
    n += f->images[j].data_len;
  return n;
}

/* Files from `first` on are past the answer's cap: each is answered from its stat alone, as a
 * file taken once the cap was passed is, and is FILE_TOO_LARGE in files[] unless the stat
 * failed; the answer the model reads sums them up in one element on the first, which names the
 * skip that reads them next. */
static void summarize_past_cap(Request *req, size_t first) {
  ReadResult *r = &req->result;
  ResultSummary *sum = g_new0(ResultSummary, 1);
  size_t cap = req->params.max_answer_bytes;
  /* Written once: thousands of entries may say it. */
  g_autofree char *why = g_strdup_printf("the answer reached its cap of %zu MiB of content "
                                         "before this file; read it in another request",
                                         cap / (1024 * 1024));

  sum->files = r->n_files - first;
  sum->skip = req->params.skip + (int64_t)first;
  sum->cap_mib = MAX(cap / (1024 * 1024), 1);
  for (size_t j = first; j < r->n_files; j++) {
    FileResult *f = &r->files[j];

    if (req->frags[j] != NULL)
      g_string_free(g_steal_pointer(&req->frags[j]), TRUE);
    g_clear_pointer(&f->summary, g_free);
    /* Whether a lane had read it before the pieces passed the cap is a matter of timing: the
     * entry must not say (its type, a binary file's refusal), or files[] would differ from one
     * run to the next. */
    request_answer_from_stat(req, j);
    if (f->bytes > 0)
      sum->bytes += f->bytes;
    /* From its size: about four bytes a token. */
    sum->tokens_total += f->bytes > 0 ? f->bytes / 4 + 1 : 0;
    f->summarized = true;
    f->tokens = 0;
    if (f->code == NULL)
      file_result_fail_text(f, CODE_FILE_TOO_LARGE, why);
  }
  r->files[first].summary = sum;
}

/* File i's piece in *ret, within the answer's cap: past it, the files from it on are summed up
 * in one element (summarize_past_cap). NULL for a file that has none (file_result_silent).
 * Returns false when formatting failed. */
static bool piece_within_cap(Request *req, size_t i, int64_t image_index, size_t *used,
                             GString **ret) {
  FileResult *f = &req->result.files[i];
  GString *piece = g_steal_pointer(&req->frags[i]);
  size_t cap = req->params.max_answer_bytes, cost;

  *ret = NULL;
  if (piece == NULL && file_result_silent(f))
    return true;
  if (piece == NULL)
    piece = request_format_file(req, i, image_index);
  if (piece == NULL)
    return false;
  cost = piece->len + tail_bytes(req, f);
  /* The pieces kept hold at most the cap: a piece that ends right on it is kept, and any piece
   * after it passes it. */
  if (!f->summarized && *used + cost > cap) {
    g_string_free(piece, TRUE);
    summarize_past_cap(req, i);
    /* Every file after it too: the client continues from the first one summed up. */
    *used = cap;
    *ret = request_format_file(req, i, image_index);
    return *ret != NULL;
  }
  *used += cost;
  *ret = piece;
  return true;
}

/* The answer settled (kept within what the policy allows) and assembled from the files'
 * fragments, as pieces to send in order: nothing is copied again. */
void settle_answer(Request *req) {
  size_t n = req->result.n_files, k = 1, used = 0;
  g_autofree bool *changed = g_new0(bool, n + 1);
  GString **parts;
  int64_t image_index = 0;
  bool ok = true;

  /* The request's image limits need every file read; files with images are formatted below. */
  image_request_budget(&req->result, req->params.max_total_image_bytes, &req->cancelled);
  if (req->keep)
    return;
  /* The image limits may have refused a file since it was counted. */
  for (size_t i = 0; i < n; i++)
    if (req->result.files[i].n_images > 0 || req->result.files[i].code != NULL)
      request_count_tokens(req, &req->result.files[i]);
  /* The whole answer within the budget, markup and all: what it leaves out is listed or
   * summarized. */
  policy_settle(&req->policy, &req->result, changed);
  parts = g_new0(GString *, n + 2);
  for (size_t i = 0; i < n; i++, k++) {
    FileResult *f = &req->result.files[i];

    if (changed[i] && req->frags[i] != NULL)
      g_string_free(g_steal_pointer(&req->frags[i]), TRUE);
    if (!piece_within_cap(req, i, image_index, &used, &parts[k]))
      ok = false;
    if (f->code != NULL)
      req->failed++;
    else
      image_index += (int64_t)f->n_images;
    /* Unless the tail writes the pictures, their base64 is now in the piece (or not sent at
     * all, in text): it need not be held twice. */
    for (size_t j = 0; !req->fmt->tail_uses_image_data && j < f->n_images; j++)
      g_clear_pointer(&f->images[j].data, g_free);
  }
  /* The head sums what was read: it comes after the cap decided. */
  parts[0] = g_string_new(NULL);
  req->fmt->head(parts[0], &req->result, &req->fopt);
  parts[k] = g_string_new(NULL);
  req->fmt->tail(parts[k++], &req->result, &req->fopt);
  /* Files a summary counts have no piece or an empty one: none goes to the socket. */
  {
    size_t kept = 1;

    for (size_t j = 1; j + 1 < k; j++) {
      if (parts[j] != NULL && parts[j]->len == 0)
        g_string_free(g_steal_pointer(&parts[j]), TRUE);
      if (parts[j] != NULL)
        parts[kept++] = parts[j];
    }
    parts[kept++] = parts[k - 1];
    k = kept;
  }
  if (!ok) {
    request_pieces_free(parts, k);
    return;
  }
  req->output = parts;
  req->output_n = k;
}
