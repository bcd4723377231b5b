/* daemon/request/request.c in-process, in libuv's test style: each test has its own loop, counts its
 * callbacks, and ends with uv_loop_close() == 0, so that a request that leaves work, a handle
 * or memory behind (AddressSanitizer) fails. Real files: Go's source tree and files each test
 * writes into a temporary folder. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>
#include <json-glib/json-glib.h>
#include <uv.h>

#include "daemon/request/request.h"
#include "formatters/result.h"
#include "ipc/read-params.h"
#include "tests/lib/check-run.h"
#include "tests/lib/corpus.h"

#define SMALL_FILES 24

static char *tmpdir;
static char *small[SMALL_FILES + 1]; /* tmpdir/tNN.txt, NULL-terminated */
static char **go;                    /* every .go file of the corpus */
static size_t n_go;

/* What one request's done callback saw. */
typedef struct {
  int done; /* done_cb calls */
  int status;
  GString **pieces;
  size_t n_pieces;
  size_t failed;
  bool keep;           /* done_cb leaves the request to the test instead of freeing it */
  Request *req;        /* the request, when kept */
  int cancels_in_done; /* request_cancel() calls made from done_cb */
} Outcome;

/* File i holds i lines "tNN line K"; t00 is empty and t01 has no final newline. */
static void setup(void) {
  tmpdir = corpus_tmpdir("readerd-test-request");
  for (int i = 0; i < SMALL_FILES; i++) {
    g_autoptr(GString) s = g_string_new(NULL);
    g_autofree char *name = g_strdup_printf("t%02d.txt", i);

    for (int k = 1; k <= i; k++)
      g_string_append_printf(s, "t%02d line %d\n", i, k);
    if (i == 1)
      g_string_truncate(s, s->len - 1);
    small[i] = corpus_write(tmpdir, name, s->str, s->len);
  }
  go = corpus_go_files(G_MAXSIZE, &n_go);
}

static void teardown(void) {
  for (int i = 0; i < SMALL_FILES; i++)
    g_clear_pointer(&small[i], g_free);
  g_clear_pointer(&go, g_strfreev);
  corpus_rmdir(tmpdir);
  g_clear_pointer(&tmpdir, g_free);
}

/* Parsed read params for these paths, through the real parser. */
static ReadParams params_for(const char *const *paths, size_t n) {
  g_autoptr(GString) json = g_string_new("{\"paths\":[");
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *err = NULL;
  ReadParams p;

  for (size_t i = 0; i < n; i++) {
    g_autofree char *esc = g_strescape(paths[i], NULL);

    g_string_append_printf(json, "%s\"%s\"", i > 0 ? "," : "", esc);
  }
  g_string_append(json, "]}");
  node = json_from_string(json->str, NULL);
  ck_assert_ptr_nonnull(node);
  read_params_init(&p);
  ck_assert_msg(read_params_parse(node, &p, &err) == 0, "params: %s", err);
  return p;
}

static void done_cb(Request *req, int status) {
  Outcome *o = request_get_data(req);
  size_t n = 99;

  o->done++;
  o->status = status;
  for (int i = 0; i < o->cancels_in_done; i++)
    request_cancel(req);
  if (o->keep) {
    o->req = req;
    return;
  }
  o->pieces = request_take_output(req, &o->n_pieces);
  o->failed = request_failed_count(req);
  /* The output is taken once. */
  ck_assert_ptr_null(request_take_output(req, &n));
  ck_assert_uint_eq(n, 0);
  request_free(req);
}

static Request *start(uv_loop_t *loop, const char *const *paths, size_t n, Outcome *o) {
  ReadParams p = params_for(paths, n);
  Request *req = request_start(loop, &p, NULL, REQUEST_OUTPUT_RESULT_JSON, done_cb, o);

  /* request_start took the params and reset them. */
  ck_assert_ptr_null(p.paths);
  ck_assert_uint_eq(p.n_paths, 0);
  return req;
}

static void outcome_clear(Outcome *o) {
  for (size_t i = 0; o->pieces != NULL && i < o->n_pieces; i++)
    g_string_free(o->pieces[i], TRUE);
  g_free(o->pieces);
  memset(o, 0, sizeof(*o));
}

/* Asserts that o is the complete answer to a read of paths: a head, one piece per file that
 * names it, a tail; together the result object, whose every file has the size and line count
 * of the file on disk, or FILE_NOT_FOUND when the path is `missing`. */
static void assert_complete(const Outcome *o, const char *const *paths, size_t n,
                            const char *missing) {
  g_autoptr(GString) all = g_string_new(NULL);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *res;
  JsonArray *files;
  int64_t sum_bytes = 0, sum_lines = 0;
  size_t failed = 0;

  ck_assert_int_eq(o->done, 1);
  ck_assert_int_eq(o->status, 0);
  ck_assert_ptr_nonnull(o->pieces);
  ck_assert_uint_eq(o->n_pieces, n + 2);
  for (size_t i = 0; i < o->n_pieces; i++)
    g_string_append_len(all, o->pieces[i]->str, (gssize)o->pieces[i]->len);
  root = json_from_string(all->str, NULL);
  ck_assert_msg(root != NULL && JSON_NODE_HOLDS_OBJECT(root), "the answer is not a JSON object");
  res = json_node_get_object(root);
  ck_assert(json_object_has_member(res, "xml"));
  files = json_object_get_array_member(res, "files");
  ck_assert_uint_eq(json_array_get_length(files), n);
  for (size_t i = 0; i < n; i++) {
    JsonObject *f = json_array_get_object_element(files, (guint)i);
    g_autofree char *data = NULL;
    gsize len = 0;

    ck_assert_str_eq(json_object_get_string_member(f, "path"), paths[i]);
    /* File i's piece is its own, in order. */
    ck_assert_msg(strstr(o->pieces[i + 1]->str, paths[i]) != NULL, "piece %zu does not name %s",
                  i + 1, paths[i]);
    if (missing != NULL && strcmp(paths[i], missing) == 0) {
      ck_assert_str_eq(json_object_get_string_member(f, "code"), CODE_FILE_NOT_FOUND);
      failed++;
      continue;
    }
    ck_assert_msg(!json_object_has_member(f, "code"), "%s: %s", paths[i],
                  json_object_get_string_member_with_default(f, "error", "?"));
    ck_assert(g_file_get_contents(paths[i], &data, &len, NULL));
    ck_assert_int_eq(json_object_get_int_member(f, "bytes"), (int64_t)len);
    ck_assert_int_eq(json_object_get_int_member(f, "lines"), corpus_count_lines(data, len));
    sum_bytes += (int64_t)len;
    sum_lines += corpus_count_lines(data, len);
  }
  ck_assert_int_eq(json_object_get_int_member(res, "bytes"), sum_bytes);
  ck_assert_int_eq(json_object_get_int_member(res, "lines"), sum_lines);
  ck_assert_uint_eq(o->failed, failed);
}

/* Asserts that the small files' text is in the answer, numbered as cat -n numbers it. */
static void assert_small_text(const Outcome *o) {
  g_autoptr(GString) all = g_string_new(NULL);
  g_autoptr(JsonNode) root = NULL;
  const char *xml;

  for (size_t i = 0; i < o->n_pieces; i++)
    g_string_append_len(all, o->pieces[i]->str, (gssize)o->pieces[i]->len);
  root = json_from_string(all->str, NULL);
  xml = json_object_get_string_member(json_node_get_object(root), "xml");
  for (int i = 1; i < SMALL_FILES; i++) {
    g_autofree char *want = g_strdup_printf("%6d\tt%02d line %d\n", i, i, i);

    ck_assert_msg(strstr(xml, want) != NULL, "the xml lacks %s", want);
  }
}

static void close_loop(uv_loop_t *loop) {
  ck_assert_int_eq(uv_run(loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(uv_loop_close(loop), 0);
}

/* Every Go file and the small files in one request: every piece is there, in order. */
START_TEST(request_reads_every_file) {
  g_autoptr(GPtrArray) paths = g_ptr_array_new();
  Outcome o = {0};
  uv_loop_t loop;

  if (go == NULL)
    ck_abort_msg("the Go corpus vanished");
  for (size_t i = 0; i < n_go; i++)
    g_ptr_array_add(paths, go[i]);
  for (int i = 0; i < SMALL_FILES; i++)
    g_ptr_array_add(paths, small[i]);
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  start(&loop, (const char *const *)paths->pdata, paths->len, &o);
  ck_assert_int_eq(o.done, 0);
  close_loop(&loop);
  assert_complete(&o, (const char *const *)paths->pdata, paths->len, NULL);
  assert_small_text(&o);
  outcome_clear(&o);
}
END_TEST

static void cancel_timer_cb(uv_timer_t *t) {
  Request *req = t->data;
  Outcome *o = request_get_data(req);

  /* Reading every Go file takes far longer than the delay: the request is still running. */
  ck_assert_int_eq(o->done, 0);
  request_cancel(req);
  request_cancel(req);
  ck_assert_int_eq(o->done, 0); /* done_cb comes later, from the loop */
  uv_close((uv_handle_t *)t, NULL);
}

/* Cancelled while its lanes run (or, for delay 0, are still queued): done_cb is called once,
 * with UV_ECANCELED and no output, and the loop closes with nothing left (nor leaked). */
START_TEST(request_cancel_in_flight) {
  static const uint64_t delays_ms[] = {0, 1, 3, 10};
  uint64_t delay = delays_ms[_i];
  Outcome o = {0};
  uv_loop_t loop;
  uv_timer_t timer;
  Request *req;

  ck_assert_int_eq(uv_loop_init(&loop), 0);
  req = start(&loop, (const char *const *)go, n_go, &o);
  if (delay == 0) {
    request_cancel(req);
  } else {
    uv_timer_init(&loop, &timer);
    timer.data = req;
    uv_timer_start(&timer, cancel_timer_cb, delay, 0);
  }
  close_loop(&loop);
  ck_assert_int_eq(o.done, 1);
  ck_assert_int_eq(o.status, UV_ECANCELED);
  ck_assert_ptr_null(o.pieces);
  ck_assert_uint_eq(o.n_pieces, 0);
  outcome_clear(&o);
}
END_TEST

/* expand on: the folder becomes its files (the pool job first, then the lanes), in order, each
 * with from 0; cancelled at once, the expansion ends the request as cancelled, with nothing
 * left on the loop. */
START_TEST(request_expand_phase) {
  g_autofree char *esc = g_strescape(tmpdir, NULL);
  g_autofree char *json = g_strdup_printf("{\"paths\":[\"%s\"],\"expand\":true}", esc);
  g_autoptr(JsonNode) node = json_from_string(json, NULL);
  g_autoptr(GString) all = g_string_new(NULL);
  g_autoptr(JsonNode) root = NULL;
  JsonArray *files;
  Outcome o = {0};
  uv_loop_t loop;
  ReadParams p;

  for (int round = 0; round < 2; round++) {
    Request *req;

    read_params_init(&p);
    ck_assert_int_eq(read_params_parse(node, &p, NULL), 0);
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    req = request_start(&loop, &p, NULL, REQUEST_OUTPUT_RESULT_JSON, done_cb, &o);
    if (round == 1)
      request_cancel(req);
    close_loop(&loop);
    ck_assert_int_eq(o.done, 1);
    if (round == 1) {
      ck_assert_int_eq(o.status, UV_ECANCELED);
      ck_assert_ptr_null(o.pieces);
      outcome_clear(&o);
      break;
    }
    ck_assert_int_eq(o.status, 0);
    for (size_t i = 0; i < o.n_pieces; i++)
      g_string_append_len(all, o.pieces[i]->str, (gssize)o.pieces[i]->len);
    root = json_from_string(all->str, NULL);
    ck_assert_ptr_nonnull(root);
    files = json_object_get_array_member(json_node_get_object(root), "files");
    ck_assert_uint_eq(json_array_get_length(files), SMALL_FILES);
    for (guint i = 0; i < SMALL_FILES; i++) {
      JsonObject *f = json_array_get_object_element(files, i);

      ck_assert_str_eq(json_object_get_string_member(f, "path"), small[i]);
      ck_assert_int_eq(json_object_get_int_member(f, "from"), 0);
      ck_assert_int_eq(json_object_get_int_member(f, "lines"), (int64_t)i);
    }
    outcome_clear(&o);
  }
}
END_TEST

/* request_cancel() after the request finished does nothing: not from done_cb, not later; the
 * answer is still whole, and done_cb is not called again. */
START_TEST(request_cancel_after_finish_is_noop) {
  Outcome o = {.keep = true, .cancels_in_done = 2};
  uv_loop_t loop;

  ck_assert_int_eq(uv_loop_init(&loop), 0);
  start(&loop, (const char *const *)small, SMALL_FILES, &o);
  ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(o.done, 1);
  ck_assert_int_eq(o.status, 0);
  ck_assert_ptr_nonnull(o.req);
  request_cancel(o.req);
  request_cancel(o.req);
  /* Nothing was queued by the late cancels. */
  ck_assert_int_eq(uv_run(&loop, UV_RUN_NOWAIT), 0);
  ck_assert_int_eq(o.done, 1);
  o.pieces = request_take_output(o.req, &o.n_pieces);
  o.failed = request_failed_count(o.req);
  request_free(o.req);
  o.req = NULL;
  close_loop(&loop);
  assert_complete(&o, (const char *const *)small, SMALL_FILES, NULL);
  assert_small_text(&o);
  outcome_clear(&o);
}
END_TEST

#define CONCURRENT 40

/* Many requests at once on one loop, over different slices of the corpus: odd ones name a
 * missing file too, every fifth is cancelled at once. Each gets exactly its own answer. A
 * request's lanes start on the pool as it joins, so the first ones may read all their files
 * before the cancel comes: then the answer is whole (the cancel came too late to matter), never
 * part of one. Those behind the slots cannot have started: at least one ends cancelled. */
START_TEST(request_many_concurrent) {
  Outcome o[CONCURRENT] = {0};
  GPtrArray *paths[CONCURRENT];
  g_autofree char *missing = g_build_filename(tmpdir, "missing.txt", NULL);
  size_t per = MAX(n_go / CONCURRENT, (size_t)1);
  int cancelled = 0;
  uv_loop_t loop;

  ck_assert_int_eq(uv_loop_init(&loop), 0);
  for (int k = 0; k < CONCURRENT; k++) {
    Request *req;

    paths[k] = g_ptr_array_new();
    for (size_t i = (size_t)k * per; i < MIN((size_t)(k + 1) * per, n_go); i++)
      g_ptr_array_add(paths[k], go[i]);
    g_ptr_array_add(paths[k], small[k % SMALL_FILES]);
    if (k % 2 == 1)
      g_ptr_array_insert(paths[k], (gint)(paths[k]->len / 2), missing);
    req = start(&loop, (const char *const *)paths[k]->pdata, paths[k]->len, &o[k]);
    if (k % 5 == 0)
      request_cancel(req);
  }
  close_loop(&loop);
  for (int k = 0; k < CONCURRENT; k++) {
    if (k % 5 == 0 && o[k].status != 0) {
      ck_assert_int_eq(o[k].done, 1);
      ck_assert_int_eq(o[k].status, UV_ECANCELED);
      ck_assert_ptr_null(o[k].pieces);
      cancelled++;
    } else {
      assert_complete(&o[k], (const char *const *)paths[k]->pdata, paths[k]->len,
                      k % 2 == 1 ? missing : NULL);
    }
    outcome_clear(&o[k]);
    g_ptr_array_free(paths[k], TRUE);
  }
  ck_assert_int_gt(cancelled, 0);
}
END_TEST

static Suite *request_suite(void) {
  Suite *s = suite_create("request");
  TCase *tc = tcase_create("core");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, request_reads_every_file);
  tcase_add_loop_test(tc, request_cancel_in_flight, 0, 4);
  tcase_add_test(tc, request_cancel_after_finish_is_noop);
  tcase_add_test(tc, request_expand_phase);
  tcase_add_test(tc, request_many_concurrent);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  /* Every case reads the Go tree: without it the program is skipped, not passed. */
  if (!corpus_go_present())
    return 77;
  failed = check_run(request_suite());
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
