/* Connections to readerd and JSON-RPC over them: see rpc-client.h. */
#include "tests/lib/rpc-client.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/json-text.h"
#include "tests/lib/rd-internal.h"

int rd_socket_connect(const char *path, int timeout_ms) {
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  int64_t deadline = rd_now_ms() + timeout_ms;

  if (strlen(path) >= sizeof sa.sun_path)
    return -ENAMETOOLONG;
  strcpy(sa.sun_path, path);
  for (;;) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
      return fd;
    int e = errno;
    close(fd);
    /* EAGAIN: the listen backlog is full; the others: not listening (yet). */
    if (e != EAGAIN && e != ECONNREFUSED && e != ENOENT && e != EINTR)
      return -e;
    if (rd_now_ms() >= deadline)
      return -e;
    g_usleep(10000);
  }
}

struct RdConn {
  int rfd, wfd;
  bool is_socket;
  bool eof;
  GByteArray *buf; /* received bytes not yet taken */
  size_t scanned;  /* bytes of buf known to hold no '\n' */
  GQueue queued;   /* JsonNode*: messages received while waiting for another */
  int64_t next_id;
};

RdConn *rd_conn_new_fds(int rfd, int wfd) {
  RdConn *c = g_new0(RdConn, 1);
  c->rfd = rfd;
  c->wfd = wfd;
  c->is_socket = rfd == wfd;
  c->buf = g_byte_array_new();
  g_queue_init(&c->queued);
  c->next_id = 1;
  rd_set_nonblock(rfd);
  if (wfd >= 0 && wfd != rfd)
    rd_set_nonblock(wfd);
  return c;
}

RdConn *rd_conn_new(const char *sock) {
  int fd = rd_socket_connect(sock, 10000);
  ck_assert_msg(fd >= 0, "cannot connect to %s: %s", sock, g_strerror(-fd));
  return rd_conn_new_fds(fd, fd);
}

void rd_conn_free(RdConn *c) {
  if (!c)
    return;
  if (c->wfd >= 0 && c->wfd != c->rfd)
    close(c->wfd);
  if (c->rfd >= 0)
    close(c->rfd);
  g_byte_array_free(c->buf, TRUE);
  g_queue_clear_full(&c->queued, (GDestroyNotify)json_node_unref);
  g_free(c);
}

void rd_conn_close_write(RdConn *c) {
  if (c->is_socket) {
    shutdown(c->wfd, SHUT_WR);
  } else if (c->wfd >= 0) {
    close(c->wfd);
    c->wfd = -1;
  }
}

/* Reads what is available. Returns 0, or -errno on a read error (end of stream sets eof). */
static int conn_pump(RdConn *c) {
  guint old = c->buf->len;
  g_byte_array_set_size(c->buf, old + 262144);
  ssize_t n = read(c->rfd, c->buf->data + old, 262144);
  int e = errno;
  g_byte_array_set_size(c->buf, old + (n > 0 ? (guint)n : 0));
  if (n == 0)
    c->eof = true;
  if (n < 0 && e != EAGAIN && e != EINTR) {
    c->eof = true;
    return -e;
  }
  return 0;
}

int rd_conn_try_send(RdConn *c, const void *data, size_t len, int timeout_ms) {
  const char *p = data;
  int64_t deadline = rd_now_ms() + timeout_ms;

  if (c->wfd < 0)
    return -EBADF;
  while (len > 0) {
    ssize_t n =
        c->is_socket ? send(c->wfd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) : write(c->wfd, p, len);
    if (n > 0) {
      p += n;
      len -= (size_t)n;
      deadline = rd_now_ms() + timeout_ms;
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR)
      return -errno;
    struct pollfd pf[2] = {{c->wfd, POLLOUT, 0}, {c->eof ? -1 : c->rfd, POLLIN, 0}};
    int left = rd_remaining_ms(deadline);
    if (left == 0)
      return -ETIMEDOUT;
    if (c->is_socket) {
      pf[0].events |= c->eof ? 0 : POLLIN;
      pf[1].fd = -1;
    }
    if (poll(pf, 2, left) < 0 && errno != EINTR)
      return -errno;
    if (((pf[0].revents & POLLIN) && c->is_socket) || (pf[1].revents & (POLLIN | POLLHUP)))
      conn_pump(c);
  }
  return 0;
}

void rd_conn_send(RdConn *c, const void *data, size_t len) {
  int r = rd_conn_try_send(c, data, len, RD_TIMEOUT_MS);
  ck_assert_msg(r == 0, "sending %zu bytes to readerd failed: %s", len, g_strerror(-r));
}

void rd_conn_send_str(RdConn *c, const char *s) {
  rd_conn_send(c, s, strlen(s));
}

int rd_conn_recv_line(RdConn *c, int timeout_ms, char **ret_line) {
  int64_t deadline = rd_now_ms() + timeout_ms;
  for (;;) {
    guint8 *nl = c->buf->len > c->scanned
                     ? memchr(c->buf->data + c->scanned, '\n', c->buf->len - c->scanned)
                     : NULL;
    if (nl) {
      size_t n = (size_t)(nl - c->buf->data);
      *ret_line = g_strndup((const char *)c->buf->data, n);
      g_byte_array_remove_range(c->buf, 0, (guint)(n + 1));
      c->scanned = 0;
      return 1;
    }
    c->scanned = c->buf->len;
    if (c->eof)
      return 0;
    struct pollfd pf = {c->rfd, POLLIN, 0};
    int left = rd_remaining_ms(deadline);
    if (left == 0)
      return -ETIMEDOUT;
    int r = poll(&pf, 1, left);
    if (r < 0 && errno != EINTR)
      return -errno;
    if (r > 0) {
      int e = conn_pump(c);
      if (e < 0 && e != -ECONNRESET)
        return e;
    }
  }
}

static JsonNode *parse_message(const char *line) {
  JsonNode *msg = rd_json_parse(line, strlen(line));
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(msg),
                "readerd sent a line that is not a JSON object: %.200s", line);
  JsonObject *o = json_node_get_object(msg);
  ck_assert_msg(g_strcmp0(json_object_get_string_member_with_default(o, "jsonrpc", ""), "2.0") == 0,
                "readerd sent a message without \"jsonrpc\": \"2.0\": %.200s", line);
  ck_assert_msg(json_object_has_member(o, "result") != json_object_has_member(o, "error"),
                "a response needs exactly one of result and error: %.200s", line);
  ck_assert_msg(json_object_has_member(o, "id"), "a response without id: %.200s", line);
  return msg;
}

JsonNode *rd_conn_recv(RdConn *c, int timeout_ms) {
  char *line = NULL;
  if (!g_queue_is_empty(&c->queued))
    return g_queue_pop_head(&c->queued);
  int r = rd_conn_recv_line(c, timeout_ms, &line);
  ck_assert_msg(r != 0, "readerd closed the connection instead of answering");
  ck_assert_msg(r > 0, "no answer from readerd within %d ms: %s", timeout_ms, g_strerror(-r));
  JsonNode *msg = parse_message(line);
  g_free(line);
  return msg;
}

bool rd_conn_wait_closed(RdConn *c, int timeout_ms) {
  int64_t deadline = rd_now_ms() + timeout_ms;
  for (;;) {
    char *line = NULL;
    int r = rd_conn_recv_line(c, rd_remaining_ms(deadline), &line);
    g_free(line);
    if (r == 0 || r == -ECONNRESET)
      return true;
    if (r < 0)
      return false;
  }
}

char *rd_id_key(JsonNode *id) {
  if (!id || JSON_NODE_HOLDS_NULL(id))
    return g_strdup("null");
  if (JSON_NODE_HOLDS_VALUE(id)) {
    GType t = json_node_get_value_type(id);
    if (t == G_TYPE_INT64)
      return g_strdup_printf("n:%" G_GINT64_FORMAT, json_node_get_int(id));
    if (t == G_TYPE_DOUBLE)
      return g_strdup_printf("n:%.17g", json_node_get_double(id));
    if (t == G_TYPE_STRING)
      return g_strdup_printf("s:%s", json_node_get_string(id));
  }
  return g_strdup("invalid");
}

char *rd_msg_id_key(JsonNode *msg) {
  return rd_id_key(json_object_get_member(json_node_get_object(msg), "id"));
}

int rd_error_code(JsonNode *msg) {
  JsonObject *o = json_node_get_object(msg);
  if (!json_object_has_member(o, "error"))
    return 0;
  JsonNode *e = json_object_get_member(o, "error");
  ck_assert_msg(JSON_NODE_HOLDS_OBJECT(e), "error is not an object");
  JsonObject *eo = json_node_get_object(e);
  ck_assert_msg(json_object_has_member(eo, "code") && json_object_has_member(eo, "message"),
                "an error needs code and message");
  ck_assert_msg(JSON_NODE_HOLDS_VALUE(json_object_get_member(eo, "message")) &&
                    json_object_get_string_member(eo, "message")[0] != '\0',
                "an error message is empty");
  return (int)json_object_get_int_member(eo, "code");
}

JsonObject *rd_result_of(JsonNode *msg) {
  JsonObject *o = json_node_get_object(msg);

  ck_assert_msg(json_object_has_member(o, "result"), "error %d", rd_error_code(msg));
  return json_object_get_object_member(o, "result");
}

char *rd_conn_request(RdConn *c, const char *method, const char *params, const char *id) {
  char *auto_id = NULL;
  if (!id)
    id = auto_id = g_strdup_printf("%" G_GINT64_FORMAT, c->next_id++);
  char *m = rd_json_quote(method);
  char *line =
      params ? g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%s,\"params\":%s}\n", id,
                               m, params)
             : g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":%s}\n", id, m);
  rd_conn_send_str(c, line);
  JsonNode *idn = rd_json_parse(id, strlen(id));
  char *key = rd_id_key(idn);
  json_node_unref(idn);
  g_free(line);
  g_free(m);
  g_free(auto_id);
  return key;
}

void rd_conn_notify(RdConn *c, const char *method, const char *params) {
  char *m = rd_json_quote(method);
  char *line =
      params ? g_strdup_printf("{\"jsonrpc\":\"2.0\",\"method\":%s,\"params\":%s}\n", m, params)
             : g_strdup_printf("{\"jsonrpc\":\"2.0\",\"method\":%s}\n", m);
  rd_conn_send_str(c, line);
  g_free(line);
  g_free(m);
}

JsonNode *rd_conn_wait(RdConn *c, const char *key, int timeout_ms) {
  int64_t deadline = rd_now_ms() + timeout_ms;
  for (GList *l = c->queued.head; l; l = l->next) {
    char *k = rd_msg_id_key(l->data);
    bool match = strcmp(k, key) == 0;
    g_free(k);
    if (match) {
      JsonNode *msg = l->data;
      g_queue_delete_link(&c->queued, l);
      return msg;
    }
  }
  for (;;) {
    char *line = NULL;
    int r = rd_conn_recv_line(c, rd_remaining_ms(deadline), &line);
    ck_assert_msg(r != 0, "readerd closed the connection before answering id %s", key);
    ck_assert_msg(r > 0, "no answer to id %s within %d ms: %s", key, timeout_ms, g_strerror(-r));
    JsonNode *msg = parse_message(line);
    g_free(line);
    char *k = rd_msg_id_key(msg);
    bool match = strcmp(k, key) == 0;
    g_free(k);
    if (match)
      return msg;
    g_queue_push_tail(&c->queued, msg);
  }
}

JsonNode *rd_conn_call(RdConn *c, const char *method, const char *params) {
  char *key = rd_conn_request(c, method, params, NULL);
  JsonNode *msg = rd_conn_wait(c, key, RD_TIMEOUT_MS);
  g_free(key);
  return msg;
}
