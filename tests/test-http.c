/* In-process tests of daemon/vision/http.c: one POST on a loop of the test's own against the
 * test server (tests/vision-server.py) on 127.0.0.1, each ending with its callback called once
 * and uv_loop_close() == 0: no handle of the transfer (polls, timers) is left behind. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <uv.h>

#include "daemon/vision/http.h"
#include "tests/lib/rd.h"

static char *rec;
static char *base;
static GPid server_pid;

static void http_setup(void) {
  rd_vision_server_start(&server_pid, &rec, &base);
}

static void http_teardown(void) {
  rd_vision_server_stop(&server_pid, &rec, &base);
}

/* What a transfer ended with. */
typedef struct {
  int calls;
  int err;
  long status;
  int attempts;
  char *body;
} Outcome;

static void done_cb(HttpTransfer *t, const HttpResult *res, void *data) {
  Outcome *o = data;

  o->calls++;
  o->err = res->err;
  o->status = res->status;
  o->attempts = res->attempts;
  o->body = g_strndup(res->body->str, res->body->len);
}

static void cancel_cb(uv_timer_t *timer) {
  http_transfer_cancel(timer->data);
  http_transfer_cancel(timer->data); /* twice is fine */
  uv_close((uv_handle_t *)timer, NULL);
}

static const char body_json[] =
    "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":["
    "{\"type\":\"text\",\"text\":\"hi\"}]}]}";

/* POSTs to base + path on a new loop, running cancel_after_ms later a cancel when >= 0; runs
 * the loop to its end and checks it closes clean. */
static void post(const char *path, long timeout_ms, size_t cap, int cancel_after_ms, Outcome *o) {
  uv_loop_t loop;
  uv_timer_t timer;
  g_autofree char *url = g_strconcat(base, path, NULL);
  const char *headers[] = {"Content-Type: application/json", NULL};
  HttpSpec spec = {.url = url,
                   .headers = headers,
                   .body = g_strdup(body_json),
                   .body_len = strlen(body_json),
                   .timeout_ms = timeout_ms,
                   .max_response = cap};
  HttpTransfer *t = NULL;

  memset(o, 0, sizeof(*o));
  ck_assert_int_eq(uv_loop_init(&loop), 0);
  ck_assert_int_eq(http_transfer_start(&loop, &spec, done_cb, o, &t), 0);
  if (cancel_after_ms >= 0) {
    /* Only for a transfer that cannot end before it: the timer holds it. */
    uv_timer_init(&loop, &timer);
    timer.data = t;
    uv_timer_start(&timer, cancel_cb, (uint64_t)cancel_after_ms, 0);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  ck_assert_int_eq(uv_loop_close(&loop), 0);
  ck_assert_int_eq(o->calls, 1);
}

START_TEST(http_answer) {
  Outcome o;

  post("/ok/v1/chat/completions", 0, 0, -1, &o);
  ck_assert_int_eq(o.err, 0);
  ck_assert_int_eq(o.status, 200);
  ck_assert_int_eq(o.attempts, 1);
  ck_assert_ptr_nonnull(strstr(o.body, "asked 'hi' about 0 image(s)"));
  g_free(o.body);
}
END_TEST

START_TEST(http_error_status) {
  Outcome o;

  post("/status-500/v1/chat/completions", 0, 0, -1, &o);
  ck_assert_int_eq(o.err, 0);
  ck_assert_int_eq(o.status, 500);
  ck_assert_ptr_nonnull(strstr(o.body, "Incorrect API key"));
  g_free(o.body);
}
END_TEST

START_TEST(http_retry_once) {
  Outcome o;

  post("/429once-h/v1/chat/completions", 0, 0, -1, &o);
  ck_assert_int_eq(o.status, 200);
  ck_assert_int_eq(o.attempts, 2);
  g_free(o.body);
}
END_TEST

START_TEST(http_timeout) {
  Outcome o;
  gint64 t0 = g_get_monotonic_time();

  post("/hang/v1/chat/completions", 400, 0, -1, &o);
  ck_assert_int_eq(o.err, -ETIMEDOUT);
  ck_assert_int_lt(g_get_monotonic_time() - t0, 3 * 1000 * 1000);
  g_free(o.body);
}
END_TEST

START_TEST(http_cancel) {
  Outcome o;

  post("/hang/v1/chat/completions", 0, 0, 300, &o);
  ck_assert_int_eq(o.err, -ECANCELED);
  g_free(o.body);
}
END_TEST

START_TEST(http_cap_and_drop) {
  Outcome o;

  post("/huge/v1/chat/completions", 0, 1024 * 1024, -1, &o);
  ck_assert_int_eq(o.err, -EFBIG);
  ck_assert_uint_le(strlen(o.body), 1024 * 1024);
  g_free(o.body);
  post("/drop/v1/chat/completions", 0, 0, -1, &o);
  ck_assert_int_eq(o.err, -ECONNRESET);
  g_free(o.body);
}
END_TEST

START_TEST(http_refused) {
  Outcome o;
  g_autofree char *saved = base;

  base = g_strdup("http://127.0.0.1:1");
  post("/v1/chat/completions", 0, 0, -1, &o);
  ck_assert_int_eq(o.err, -ECONNREFUSED);
  g_free(o.body);
  g_free(base);
  base = g_steal_pointer(&saved);
}
END_TEST

int main(void) {
  Suite *s = suite_create("http");
  TCase *tc = tcase_create("http");

  rd_init();
  tcase_add_checked_fixture(tc, http_setup, http_teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, http_answer);
  tcase_add_test(tc, http_error_status);
  tcase_add_test(tc, http_retry_once);
  tcase_add_test(tc, http_timeout);
  tcase_add_test(tc, http_cancel);
  tcase_add_test(tc, http_cap_and_drop);
  tcase_add_test(tc, http_refused);
  suite_add_tcase(s, tc);
  return rd_run_suite(s);
}
