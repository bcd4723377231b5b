#include "daemon/vision/http.h"

#include <errno.h>
#include <string.h>

#include "basic/macro.h"
#include "daemon/vision/curl-dl.h"

/* A socket curl asked to watch. */
typedef struct {
  uv_poll_t poll; /* embedded: container_of gives the socket back */
  HttpTransfer *t;
  curl_socket_t fd;
} HttpSocket;

struct HttpTransfer {
  const CurlDl *curl;
  uv_loop_t *loop;
  CURLM *multi;
  CURL *easy;
  struct curl_slist *headers;
  char *body;
  size_t max_response;
  uv_timer_t timer;   /* curl's timeouts */
  uv_timer_t retry;   /* the wait before the second attempt */
  GPtrArray *sockets; /* HttpSocket *: the polls open */
  HttpDoneCb done_cb;
  void *data;
  unsigned open_handles; /* handles not closed yet: the transfer is freed at 0 */
  bool attached;         /* easy is in multi */
  bool finished;         /* the result is known; the handles are closing */
  bool too_large;        /* the body passed max_response */
  HttpResult res;
  char errbuf[CURL_ERROR_SIZE];
};

static void handle_close_cb(uv_handle_t *h);

int http_global_init(void) {
  const CurlDl *curl;

  return curl_dl_open(&curl);
}

const char *http_global_error(void) {
  return curl_dl_error();
}

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *userdata) {
  HttpTransfer *t = userdata;
  size_t n = size * nmemb;

  if (t->res.body->len + n > t->max_response) {
    t->too_large = true;
    return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
  }
  g_string_append_len(t->res.body, ptr, (gssize)n);
  return n;
}

static int curl_error_to_errno(const HttpTransfer *t, CURLcode rc) {
  switch (rc) {
  case CURLE_OK:
    return 0;
  case CURLE_OPERATION_TIMEDOUT:
    return -ETIMEDOUT;
  case CURLE_COULDNT_CONNECT:
    return -ECONNREFUSED;
  case CURLE_GOT_NOTHING:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_PARTIAL_FILE:
    return -ECONNRESET;
  case CURLE_URL_MALFORMAT:
  case CURLE_UNSUPPORTED_PROTOCOL:
    return -EINVAL;
  case CURLE_WRITE_ERROR:
  case CURLE_FILESIZE_EXCEEDED:
    return t->too_large || rc == CURLE_FILESIZE_EXCEEDED ? -EFBIG : -EIO;
  default:
    return -EIO;
  }
}

/* Everything of the transfer closes; done_cb follows when the last handle has. */
static void finish(HttpTransfer *t, int err) {
  if (t->finished)
    return;
  t->finished = true;
  t->res.err = err;
  if (err == -EFBIG)
    t->res.message = "the response passed the size cap";
  else if (err == -ECANCELED)
    t->res.message = "cancelled";
  else if (err != 0)
    t->res.message = t->errbuf[0] != '\0' ? t->errbuf : t->curl->easy_strerror(CURLE_RECV_ERROR);
  else
    t->res.message = "";
  if (t->attached)
    t->curl->multi_remove_handle(t->multi, t->easy);
  t->attached = false;
  /* curl closes its sockets here (CURL_POLL_REMOVE for each): their polls close too. */
  t->curl->easy_cleanup(t->easy);
  t->easy = NULL;
  t->curl->multi_cleanup(t->multi);
  t->multi = NULL;
  /* A socket curl closed without saying so: its poll must not outlive the transfer. */
  while (t->sockets->len > 0) {
    HttpSocket *s = g_ptr_array_steal_index_fast(t->sockets, t->sockets->len - 1);

    uv_close((uv_handle_t *)&s->poll, handle_close_cb);
  }
  uv_close((uv_handle_t *)&t->timer, handle_close_cb);
  uv_close((uv_handle_t *)&t->retry, handle_close_cb);
}

static void handle_close_cb(uv_handle_t *h) {
  HttpTransfer *t = h->data;

  if (h->type == UV_POLL)
    g_free(container_of((uv_poll_t *)h, HttpSocket, poll));
  if (--t->open_handles > 0 || !t->finished)
    return;
  t->done_cb(t, &t->res, t->data);
  g_ptr_array_free(t->sockets, TRUE);
  t->curl->slist_free_all(t->headers);
  g_free(t->body);
  g_string_free(t->res.body, TRUE);
  g_free(t);
}

static void retry_cb(uv_timer_t *timer) {
  HttpTransfer *t = container_of(timer, HttpTransfer, retry);

  g_string_truncate(t->res.body, 0);
  t->errbuf[0] = '\0';
  t->res.status = 0;
  t->res.attempts++;
  if (t->curl->multi_add_handle(t->multi, t->easy) != CURLM_OK) {
    finish(t, -EIO);
    return;
  }
  t->attached = true;
}

/* An attempt ended with a response: a first 429 or 503 whose Retry-After is short enough is
 * tried again after it; anything else is the result. */
static void attempt_done(HttpTransfer *t, CURLcode rc) {
  curl_off_t after = 0;
  long status = 0;

  t->curl->easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  t->res.status = status;
  if (rc == CURLE_OK && (status == 429 || status == 503) && t->res.attempts == 1 &&
      t->curl->easy_getinfo(t->easy, CURLINFO_RETRY_AFTER, &after) == CURLE_OK && after >= 0 &&
      after <= HTTP_MAX_RETRY_AFTER_S) {
    t->curl->multi_remove_handle(t->multi, t->easy);
    t->attached = false;
    /* Without Retry-After, curl says 0: a short pause all the same. */
    uv_timer_start(&t->retry, retry_cb, after > 0 ? (uint64_t)after * 1000 : 200, 0);
    return;
  }
  finish(t, curl_error_to_errno(t, rc));
}

static void check_multi_info(HttpTransfer *t) {
  CURLMsg *msg;
  int pending;

  while (!t->finished && (msg = t->curl->multi_info_read(t->multi, &pending)) != NULL) {
    if (msg->msg == CURLMSG_DONE) {
      attempt_done(t, msg->data.result);
      return;
    }
  }
}

static void poll_cb(uv_poll_t *poll, int status, int events) {
  HttpSocket *s = container_of(poll, HttpSocket, poll);
  HttpTransfer *t = s->t;
  int flags = 0, running;

  if (status < 0)
    flags = CURL_CSELECT_ERR;
  if (events & UV_READABLE)
    flags |= CURL_CSELECT_IN;
  if (events & UV_WRITABLE)
    flags |= CURL_CSELECT_OUT;
  t->curl->multi_socket_action(t->multi, s->fd, flags, &running);
  check_multi_info(t);
}

static void timer_cb(uv_timer_t *timer) {
  HttpTransfer *t = container_of(timer, HttpTransfer, timer);
  int running;

  t->curl->multi_socket_action(t->multi, CURL_SOCKET_TIMEOUT, 0, &running);
  check_multi_info(t);
}

/* curl: wake me in timeout_ms (-1: never). */
static int curl_timer_cb(CURLM *multi, long timeout_ms, void *userp) {
  HttpTransfer *t = userp;

  if (timeout_ms < 0)
    uv_timer_stop(&t->timer);
  else
    uv_timer_start(&t->timer, timer_cb, (uint64_t)timeout_ms, 0);
  return 0;
}

/* curl: watch fd for `what`, or stop watching it. */
static int curl_socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
  HttpTransfer *t = userp;
  HttpSocket *s = socketp;
  int events = 0;

  if (what == CURL_POLL_REMOVE) {
    if (s != NULL) {
      g_ptr_array_remove_fast(t->sockets, s);
      uv_poll_stop(&s->poll);
      uv_close((uv_handle_t *)&s->poll, handle_close_cb);
      t->curl->multi_assign(t->multi, fd, NULL);
    }
    return 0;
  }
  if (s == NULL) {
    s = g_new0(HttpSocket, 1);
    s->t = t;
    s->fd = fd;
    if (uv_poll_init_socket(t->loop, &s->poll, fd) < 0) {
      g_free(s);
      return -1;
    }
    s->poll.data = t;
    t->open_handles++;
    g_ptr_array_add(t->sockets, s);
    t->curl->multi_assign(t->multi, fd, s);
  }
  if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
    events |= UV_READABLE;
  if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
    events |= UV_WRITABLE;
  uv_poll_start(&s->poll, events, poll_cb);
  return 0;
}

/* The easy handle's options. Returns 0 or -EINVAL when curl refuses one. */
static int setup_easy(HttpTransfer *t, const HttpSpec *spec) {
  CURL *e = t->easy;
  CURLcode rc = CURLE_OK;

  rc |= t->curl->easy_setopt(e, CURLOPT_URL, spec->url);
  rc |= t->curl->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  rc |= t->curl->easy_setopt(e, CURLOPT_POST, 1L);
  rc |= t->curl->easy_setopt(e, CURLOPT_POSTFIELDS, t->body);
  rc |= t->curl->easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)spec->body_len);
  rc |= t->curl->easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  rc |= t->curl->easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
  rc |= t->curl->easy_setopt(e, CURLOPT_WRITEDATA, t);
  rc |= t->curl->easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
  rc |= t->curl->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  rc |= t->curl->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  /* Each transfer has a multi handle of its own: a connection closes with its attempt, and
   * with it its poll. */
  rc |= t->curl->easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
  rc |= t->curl->easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  rc |= t->curl->easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  rc |= t->curl->easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  rc |= t->curl->easy_setopt(e, CURLOPT_USERAGENT, "readerd/" READERD_VERSION);
  rc |= t->curl->easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)t->max_response);
  rc |= t->curl->easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                             spec->connect_timeout_ms > 0 ? spec->connect_timeout_ms
                                                          : (long)HTTP_DEFAULT_CONNECT_TIMEOUT_MS);
  rc |=
      t->curl->easy_setopt(e, CURLOPT_TIMEOUT_MS,
                           spec->timeout_ms > 0 ? spec->timeout_ms : (long)HTTP_DEFAULT_TIMEOUT_MS);
  return rc == CURLE_OK ? 0 : -EINVAL;
}

static int setup_multi(HttpTransfer *t) {
  CURLMcode rc = CURLM_OK;

  rc |= t->curl->multi_setopt(t->multi, CURLMOPT_SOCKETFUNCTION, curl_socket_cb);
  rc |= t->curl->multi_setopt(t->multi, CURLMOPT_SOCKETDATA, t);
  rc |= t->curl->multi_setopt(t->multi, CURLMOPT_TIMERFUNCTION, curl_timer_cb);
  rc |= t->curl->multi_setopt(t->multi, CURLMOPT_TIMERDATA, t);
  return rc == CURLM_OK ? 0 : -EIO;
}

int http_transfer_start(uv_loop_t *loop, HttpSpec *spec, HttpDoneCb done_cb, void *data,
                        HttpTransfer **ret) {
  const CurlDl *curl;
  HttpTransfer *t;
  int r = curl_dl_open(&curl);

  if (r < 0) {
    g_free(spec->body);
    return r;
  }
  t = g_new0(HttpTransfer, 1);
  t->curl = curl;
  t->loop = loop;
  t->body = g_steal_pointer(&spec->body);
  t->max_response = spec->max_response > 0 ? spec->max_response : HTTP_DEFAULT_MAX_RESPONSE;
  t->done_cb = done_cb;
  t->data = data;
  t->res.body = g_string_new(NULL);
  t->res.attempts = 1;
  t->sockets = g_ptr_array_new();
  for (size_t i = 0; spec->headers != NULL && spec->headers[i] != NULL; i++)
    t->headers = t->curl->slist_append(t->headers, spec->headers[i]);
  /* curl would otherwise send "Expect: 100-continue" and wait for a body of over 1 MiB. */
  t->headers = t->curl->slist_append(t->headers, "Expect:");
  t->easy = t->curl->easy_init();
  t->multi = t->curl->multi_init();
  if (t->easy == NULL || t->multi == NULL || (r = setup_easy(t, spec)) < 0 ||
      (r = setup_multi(t)) < 0) {
    r = r < 0 ? r : -ENOMEM;
    goto fail;
  }
  uv_timer_init(loop, &t->timer);
  uv_timer_init(loop, &t->retry);
  t->timer.data = t;
  t->retry.data = t;
  t->open_handles = 2;
  /* Adding the handle sets curl's first timeout: the transfer starts from the timer. */
  if (t->curl->multi_add_handle(t->multi, t->easy) != CURLM_OK) {
    finish(t, -EIO);
    *ret = t;
    return 0;
  }
  t->attached = true;
  *ret = t;
  return 0;

fail:
  if (t->easy != NULL)
    t->curl->easy_cleanup(t->easy);
  if (t->multi != NULL)
    t->curl->multi_cleanup(t->multi);
  t->curl->slist_free_all(t->headers);
  g_free(t->body);
  g_string_free(t->res.body, TRUE);
  g_ptr_array_free(t->sockets, TRUE);
  g_free(t);
  return r;
}

void http_transfer_cancel(HttpTransfer *t) {
  if (t == NULL || t->finished)
    return;
  finish(t, -ECANCELED);
}
