/* daemon/conn.c in-process: a real connection opened with conn_open_fd() on one end of a
 * socketpair, the test acting as the client on the other end with plain non-blocking I/O while
 * it pumps the connection's loop. Each test has its own loop, counts closed_cb, and ends with
 * uv_loop_close() == 0; under AddressSanitizer whatever a closed connection left behind is a
 * leak. Real files: Go's source tree and files each test writes into a temporary folder. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>
#include <uv.h>

#include "daemon/conn.h"
#include "daemon/rpc.h"
#include "ipc/jsonrpc.h"
#include "tests/lib/check-run.h"
#include "tests/lib/corpus.h"

#define WAIT_MS 60000 /* deadline of one wait; the tcase timeout is the real bound */

/* The client's side of one connection. */
typedef struct {
  uv_loop_t loop;
  int fd; /* the client's end; -1 once closed */
  Conn *conn;
  int closed;      /* closed_cb calls */
  int exit_status; /* conn_exit_status() seen in closed_cb */
  GString *in;     /* received bytes not yet a whole line */
  GQueue lines;    /* whole lines received (char *, without '\n') */
  bool eof;        /* the connection closed its end */
} Client;

static char *tmpdir;
static char **go;
static size_t n_go;

static void setup(void) {
  tmpdir = corpus_tmpdir("readerd-test-conn");
  go = corpus_go_files(G_MAXSIZE, &n_go);
}

static void teardown(void) {
  g_clear_pointer(&go, g_strfreev);
  corpus_rmdir(tmpdir);
  g_clear_pointer(&tmpdir, g_free);
}

static void closed_cb(Conn *c, void *data) {
  Client *cl = data;

  cl->closed++;
  cl->exit_status = conn_exit_status(c);
}

static void client_open(Client *cl) {
  int sv[2], err = 0;

  memset(cl, 0, sizeof(*cl));
  g_queue_init(&cl->lines);
  cl->in = g_string_new(NULL);
  ck_assert_int_eq(uv_loop_init(&cl->loop), 0);
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
  cl->conn = conn_open_fd(&cl->loop, sv[0], &rpc_handler, closed_cb, cl, &err);
  ck_assert_msg(cl->conn != NULL, "conn_open_fd: %s", uv_strerror(err));
  cl->fd = sv[1];
}

/* Reads what has arrived and splits it into lines. */
static void client_read(Client *cl) {
  char buf[65536];
  ssize_t n;
  char *nl;

  if (cl->fd < 0)
    return;
  while ((n = read(cl->fd, buf, sizeof(buf))) > 0)
    g_string_append_len(cl->in, buf, n);
  if (n == 0)
    cl->eof = true;
  while ((nl = memchr(cl->in->str, '\n', cl->in->len)) != NULL) {
    size_t len = (size_t)(nl - cl->in->str);

    g_queue_push_tail(&cl->lines, g_strndup(cl->in->str, len));
    g_string_erase(cl->in, 0, (gssize)len + 1);
  }
}

/* Runs the loop once without blocking, waits up to 2 ms for it or the client's end to have
 * something, then reads (when `reading`). */
static void client_pump(Client *cl, bool reading) {
  struct pollfd pfd[2] = {{.fd = uv_backend_fd(&cl->loop), .events = POLLIN},
                          {.fd = reading ? cl->fd : -1, .events = POLLIN}};

  uv_run(&cl->loop, UV_RUN_NOWAIT);
  poll(pfd, 2, 2);
  uv_run(&cl->loop, UV_RUN_NOWAIT);
  if (reading)
    client_read(cl);
}

/* Pumps for ms milliseconds. */
static void client_pump_for(Client *cl, bool reading, int ms) {
  uint64_t until = uv_hrtime() + (uint64_t)ms * 1000000u;

  while (uv_hrtime() < until)
    client_pump(cl, reading);
}

/* Writes all of data, pumping meanwhile. Returns 0, or -EAGAIN when nothing could be written
 * for stall_ms (the connection stopped reading); *ret_sent (may be NULL) tells how far it got. */
static int client_send_len(Client *cl, const char *data, size_t len, bool reading, int stall_ms,
                           size_t *ret_sent) {
  size_t off = 0;
  uint64_t stalled_since = uv_hrtime();

  while (off < len) {
    ssize_t w = write(cl->fd, data + off, len - off);

    if (w > 0) {
      off += (size_t)w;
      stalled_since = uv_hrtime();
      continue;
    }
    ck_assert_msg(w < 0 && (errno == EAGAIN || errno == EINTR), "write: %s", g_strerror(errno));
    if (uv_hrtime() - stalled_since > (uint64_t)stall_ms * 1000000u)
      break;
    client_pump(cl, reading);
  }
  if (ret_sent != NULL)
    *ret_sent = off;
  return off == len ? 0 : -EAGAIN;
}

static void client_send(Client *cl, const char *text) {
  ck_assert_int_eq(client_send_len(cl, text, strlen(text), true, WAIT_MS, NULL), 0);
}

/* The next whole line, waiting for it; fails the test at the deadline or end of stream. */
static char *client_line(Client *cl) {
  uint64_t until = uv_hrtime() + (uint64_t)WAIT_MS * 1000000u;

  while (g_queue_is_empty(&cl->lines)) {
    ck_assert_msg(!cl->eof, "the connection closed while an answer was awaited");
    ck_assert_msg(uv_hrtime() < until, "no answer within %d ms", WAIT_MS);
    client_pump(cl, true);
  }
  return g_queue_pop_head(&cl->lines);
}

/* Waits until the connection closes its end; the lines before are kept. */
static void client_wait_eof(Client *cl) {
  uint64_t until = uv_hrtime() + (uint64_t)WAIT_MS * 1000000u;

  while (!cl->eof) {
    ck_assert_msg(uv_hrtime() < until, "the connection did not close within %d ms", WAIT_MS);
    client_pump(cl, true);
  }
}

/* Closes the client's end (when still open), waits for closed_cb, lets the requests still on
 * the pool finish, and asserts that the loop closes with nothing left. */
static void client_close(Client *cl) {
  uint64_t until = uv_hrtime() + (uint64_t)WAIT_MS * 1000000u;

  if (cl->fd >= 0)
    close(cl->fd);
  cl->fd = -1;
  while (cl->closed == 0) {
    ck_assert_msg(uv_hrtime() < until, "closed_cb was not called within %d ms", WAIT_MS);
    client_pump(cl, false);
  }
  ck_assert_int_eq(uv_run(&cl->loop, UV_RUN_DEFAULT), 0);
  ck_assert_int_eq(cl->closed, 1);
  ck_assert_int_eq(uv_loop_close(&cl->loop), 0);
  g_queue_clear_full(&cl->lines, g_free);
  g_string_free(cl->in, TRUE);
}

/* A read request of paths with this id (JSON text). g_free. */
static char *read_line(const char *id, char *const *paths, size_t n) {
  GString *s = g_string_new(NULL);

  g_string_append_printf(
      s, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"read\",\"params\":{\"paths\":[", id);
  for (size_t i = 0; i < n; i++) {
    g_autofree char *esc = g_strescape(paths[i], NULL);

    g_string_append_printf(s, "%s\"%s\"", i > 0 ? "," : "", esc);
  }
  g_string_append(s, "]}}\n");
  return g_string_free(s, FALSE);
}

/* A response line parsed; fails the test unless it is a JSON-RPC 2.0 object. */
static JsonNode *parse_msg(const char *line) {
  JsonNode *n = json_from_string(line, NULL);

  ck_assert_msg(n != NULL && JSON_NODE_HOLDS_OBJECT(n), "not a JSON object: %.200s", line);
  ck_assert_str_eq(json_object_get_string_member(json_node_get_object(n), "jsonrpc"), "2.0");
  return n;
}

/* The integer id of a response. */
static int64_t msg_id(JsonNode *msg) {
  JsonNode *id = json_object_get_member(json_node_get_object(msg), "id");

  ck_assert_msg(id != NULL && json_node_get_value_type(id) == G_TYPE_INT64, "no integer id");
  return json_node_get_int(id);
}

/* The error code of a response, 0 when it is a result. */
static int64_t msg_error(JsonNode *msg) {
  JsonObject *o = json_node_get_object(msg);

  if (!json_object_has_member(o, "error"))
    return 0;
  return json_object_get_int_member(json_object_get_object_member(o, "error"), "code");
}

/* Asserts that msg is the result of reading paths: every file there, with its size. */
static void assert_read_result(JsonNode *msg, char *const *paths, size_t n) {
  JsonObject *o = json_node_get_object(msg);
  JsonArray *files;

  ck_assert_msg(
      msg_error(msg) == 0, "a read failed: %s",
      json_object_has_member(o, "error")
          ? json_object_get_string_member(json_object_get_object_member(o, "error"), "message")
          : "");
  files = json_object_get_array_member(json_object_get_object_member(o, "result"), "files");
  ck_assert_uint_eq(json_array_get_length(files), n);
  for (size_t i = 0; i < n; i++) {
    JsonObject *f = json_array_get_object_element(files, (guint)i);
    g_autofree char *data = NULL;
    gsize len;

    ck_assert_str_eq(json_object_get_string_member(f, "path"), paths[i]);
    ck_assert_msg(!json_object_has_member(f, "code"), "%s: %s", paths[i],
                  json_object_get_string_member_with_default(f, "error", "?"));
    ck_assert(g_file_get_contents(paths[i], &data, &len, NULL));
    ck_assert_int_eq(json_object_get_int_member(f, "bytes"), (int64_t)len);
    ck_assert_int_eq(json_object_get_int_member(f, "lines"), corpus_count_lines(data, len));
  }
}

/* The client hangs up with reads in flight: closed_cb once, the reads cancelled and freed
 * (the loop closes, nothing leaks). _i picks how long the reads run first. */
START_TEST(conn_disconnect_mid_request) {
  static const int delays_ms[] = {0, 2, 20, 100};
  Client cl;

  client_open(&cl);
  for (int k = 1; k <= 4; k++) {
    g_autofree char *id = g_strdup_printf("%d", k);
    g_autofree char *line = read_line(id, go, n_go);

    client_send(&cl, line);
  }
  client_pump_for(&cl, _i % 2 == 0, delays_ms[_i]);
  ck_assert_int_eq(cl.closed, 0);
  client_close(&cl);
}
END_TEST

#define SLOW_FILES 16
#define SLOW_MAX_REQUESTS 300 /* above what conn.c lets wait */
/* conn.c's CONN_MAX_UNSENT: the unsent output past which the connection stops reading
 * (docs/protocol.md, "Memory per connection"). */
#define CONN_MAX_QUEUED_MIB 8

/* The result of a response line: what follows its id. */
static const char *after_id(const char *line) {
  const char *r = strstr(line, "\"result\"");

  ck_assert_msg(r != NULL, "not a result: %.200s", line);
  return r;
}

/* A client that does not read while the connection has megabytes to send: the connection
 * stops reading (the client's writes block), and once the client drains it, it reads again;
 * every answer arrives whole. */
START_TEST(conn_slow_reader) {
  char *paths[SLOW_FILES + 1] = {0};
  g_autoptr(GString) text = g_string_new(NULL);
  g_autofree char *ref = NULL;
  bool *seen = g_new0(bool, SLOW_MAX_REQUESTS + 2);
  int sndbuf = 4096, sent = 0, answered = 0;
  size_t answer_len = 0;
  Client cl;

  /* 2000 lines of 50 bytes each, about 100 KiB: whole within the content limit. */
  for (int k = 1; k <= 2000; k++)
    g_string_append_printf(text, "%05d abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n", k);
  for (int i = 0; i < SLOW_FILES; i++) {
    g_autofree char *name = g_strdup_printf("big%02d.txt", i);

    paths[i] = corpus_write(tmpdir, name, text->str, text->len);
  }
  client_open(&cl);
  /* A small send buffer, so that the client blocks soon after the connection stops reading. */
  ck_assert_int_eq(setsockopt(cl.fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
  for (;;) {
    g_autofree char *id = g_strdup_printf("%d", sent + 1);
    g_autofree char *line = read_line(id, paths, SLOW_FILES);
    size_t done = 0;

    ck_assert_msg(sent < SLOW_MAX_REQUESTS,
                  "%d requests of %d files were sent without being read, and the connection "
                  "still reads",
                  sent, SLOW_FILES);
    if (client_send_len(&cl, line, strlen(line), false, 2000, &done) < 0) {
      /* Blocked: the connection stopped reading. The rest goes once the client reads. */
      ck_assert_int_eq(client_send_len(&cl, line + done, strlen(line) - done, true, WAIT_MS, NULL),
                       0);
      sent++;
      break;
    }
    sent++;
    /* Time for it to be answered, so that the output queues up rather than the requests. */
    client_pump_for(&cl, false, 10);
  }
  /* Read every answer: all alike but for their id. */
  while (answered < sent) {
    g_autofree char *line = client_line(&cl);
    g_autoptr(JsonNode) msg = NULL;
    int64_t id;

    if (ref == NULL) {
      msg = parse_msg(line);
      assert_read_result(msg, paths, SLOW_FILES);
      ref = g_strdup(after_id(line));
      answer_len = strlen(line);
      id = msg_id(msg);
    } else {
      ck_assert_msg(strcmp(after_id(line), ref) == 0, "answer %d differs from the first",
                    answered + 1);
      id = g_ascii_strtoll(strstr(line, "\"id\":") + 5, NULL, 10);
    }
    ck_assert_msg(id >= 1 && id <= sent && !seen[id], "unexpected id %" G_GINT64_FORMAT, id);
    seen[id] = true;
    answered++;
  }
  printf("conn_slow_reader: the connection stopped reading after %d answers of %zu bytes\n", sent,
         answer_len);
  /* It stopped reading only once its unsent output passed the limit. */
  ck_assert_msg((size_t)sent * answer_len > (size_t)CONN_MAX_QUEUED_MIB * 1024 * 1024,
                "the connection stopped reading after %d answers of %zu bytes", sent, answer_len);
  /* It reads again: one more request is answered. */
  {
    g_autofree char *line = read_line("999", paths, 1);
    g_autofree char *answer = NULL;
    g_autoptr(JsonNode) msg = NULL;

    client_send(&cl, line);
    answer = client_line(&cl);
    msg = parse_msg(answer);
    ck_assert_int_eq(msg_id(msg), 999);
    assert_read_result(msg, paths, 1);
  }
  client_close(&cl);
  for (int i = 0; i < SLOW_FILES; i++)
    g_free(paths[i]);
  g_free(seen);
}
END_TEST

/* exit with reads pending: they are answered, then the connection closes; what follows exit
 * is not read. _i: 1 sends shutdown first (exit status 0), 0 does not (exit status 1). */
START_TEST(conn_exit_answers_pending) {
  g_autoptr(GString) batch = g_string_new(NULL);
  size_t per = MIN(n_go, (size_t)500);
  bool seen[4] = {false};
  Client cl;

  client_open(&cl);
  for (int k = 1; k <= 3; k++) {
    g_autofree char *id = g_strdup_printf("%d", k);
    g_autofree char *line = read_line(id, go + (size_t)(k - 1) * per, per);

    g_string_append(batch, line);
  }
  if (_i == 1)
    g_string_append(batch, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"shutdown\"}\n");
  g_string_append(batch, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}\n");
  {
    g_autofree char *after = read_line("99", go, 1);

    g_string_append(batch, after);
  }
  client_send(&cl, batch->str);
  client_wait_eof(&cl);
  if (_i == 1) {
    g_autofree char *line = g_queue_pop_head(&cl.lines);
    g_autoptr(JsonNode) msg = NULL;

    ck_assert_ptr_nonnull(line);
    msg = parse_msg(line);
    ck_assert_int_eq(msg_id(msg), 0);
    ck_assert(json_node_is_null(json_object_get_member(json_node_get_object(msg), "result")));
  }
  ck_assert_uint_eq(g_queue_get_length(&cl.lines), 3);
  while (!g_queue_is_empty(&cl.lines)) {
    g_autofree char *line = g_queue_pop_head(&cl.lines);
    g_autoptr(JsonNode) msg = parse_msg(line);
    int64_t id = msg_id(msg);

    ck_assert_msg(id >= 1 && id <= 3 && !seen[id], "unexpected id %" G_GINT64_FORMAT, id);
    seen[id] = true;
    assert_read_result(msg, go + (size_t)(id - 1) * per, per);
  }
  /* It closed by itself: closed_cb came before the client closed its end. */
  while (cl.closed == 0)
    client_pump(&cl, false);
  ck_assert_int_eq(cl.exit_status, _i == 1 ? 0 : 1);
  client_close(&cl);
}
END_TEST

#define PIPELINED 10000
#define PIPELINED_FILES 100

/* 10,000 small reads sent in one go: every one answered once, with its own file. */
START_TEST(conn_pipelined_10000) {
  char *paths[PIPELINED_FILES] = {0};
  g_autoptr(GString) batch = g_string_new(NULL);
  bool *seen = g_new0(bool, PIPELINED);
  Client cl;

  for (int i = 0; i < PIPELINED_FILES; i++) {
    g_autofree char *name = g_strdup_printf("f%03d.txt", i);
    g_autoptr(GString) s = g_string_new(NULL);

    for (int k = 0; k <= i % 5; k++)
      g_string_append_printf(s, "file %03d line %d\n", i, k + 1);
    paths[i] = corpus_write(tmpdir, name, s->str, s->len);
  }
  for (int k = 0; k < PIPELINED; k++) {
    g_autofree char *id = g_strdup_printf("%d", k);
    g_autofree char *line = read_line(id, &paths[k % PIPELINED_FILES], 1);

    g_string_append(batch, line);
  }
  client_open(&cl);
  ck_assert_int_eq(client_send_len(&cl, batch->str, batch->len, true, WAIT_MS, NULL), 0);
  for (int n = 0; n < PIPELINED; n++) {
    g_autofree char *line = client_line(&cl);
    g_autoptr(JsonNode) msg = parse_msg(line);
    int64_t id = msg_id(msg);

    ck_assert_msg(id >= 0 && id < PIPELINED && !seen[id], "unexpected id %" G_GINT64_FORMAT, id);
    seen[id] = true;
    assert_read_result(msg, &paths[id % PIPELINED_FILES], 1);
  }
  client_pump_for(&cl, true, 20);
  ck_assert_uint_eq(g_queue_get_length(&cl.lines), 0);
  client_close(&cl);
  for (int i = 0; i < PIPELINED_FILES; i++)
    g_free(paths[i]);
  g_free(seen);
}
END_TEST

/* $/cancelRequest of a read that is running: the read answers -32800, the cancel (as a
 * request, _i == 1) answers null, and the connection serves the next read. */
START_TEST(conn_cancel_running_read) {
  g_autofree char *big = read_line("1", go, n_go);
  g_autofree char *small = read_line("3", go, 2);
  bool got_read = false, got_cancel = _i == 0;
  Client cl;

  client_open(&cl);
  client_send(&cl, big);
  client_pump_for(&cl, true, 5);
  ck_assert_uint_eq(g_queue_get_length(&cl.lines), 0);
  client_send(&cl, _i == 1 ? "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"$/cancelRequest\","
                             "\"params\":{\"id\":1}}\n"
                           : "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\","
                             "\"params\":{\"id\":1}}\n");
  while (!got_read || !got_cancel) {
    g_autofree char *line = client_line(&cl);
    g_autoptr(JsonNode) msg = parse_msg(line);

    if (msg_id(msg) == 1) {
      ck_assert_msg(!got_read, "two answers to the read");
      ck_assert_int_eq(msg_error(msg), JSONRPC_REQUEST_CANCELLED);
      got_read = true;
    } else {
      ck_assert_int_eq(msg_id(msg), 2);
      ck_assert_msg(!got_cancel, "two answers to the cancel");
      ck_assert(json_node_is_null(json_object_get_member(json_node_get_object(msg), "result")));
      got_cancel = true;
    }
  }
  client_send(&cl, small);
  {
    g_autofree char *line = client_line(&cl);
    g_autoptr(JsonNode) msg = parse_msg(line);

    ck_assert_int_eq(msg_id(msg), 3);
    assert_read_result(msg, go, 2);
  }
  client_close(&cl);
}
END_TEST

static Suite *conn_suite(void) {
  Suite *s = suite_create("conn");
  TCase *tc = tcase_create("core");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, conn_disconnect_mid_request, 0, 4);
  tcase_add_test(tc, conn_slow_reader);
  tcase_add_loop_test(tc, conn_exit_answers_pending, 0, 2);
  tcase_add_test(tc, conn_pipelined_10000);
  tcase_add_loop_test(tc, conn_cancel_running_read, 0, 2);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  /* The connection writes to a client that may have hung up. */
  signal(SIGPIPE, SIG_IGN);
  /* Most cases read the Go tree: without it the program is skipped, not passed. */
  if (!corpus_go_present())
    return 77;
  failed = check_run(conn_suite());
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
