/* One HTTP POST on the libuv loop, through libcurl's multi interface (curl's libuv pattern:
 * curl says which sockets to watch and when to wake it, a uv_poll_t per socket and a
 * uv_timer_t do the waiting; nothing blocks the loop). TLS peers are verified, proxies come
 * from the environment (http_proxy, https_proxy, no_proxy), redirects are not followed, only
 * http and https are spoken. A 429 or 503 is tried once more after its Retry-After (at most
 * HTTP_MAX_RETRY_AFTER_S seconds; longer is answered as it is). A response body larger than
 * the cap is refused. Loop thread only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <uv.h>

#define HTTP_MAX_RETRY_AFTER_S 30
#define HTTP_DEFAULT_CONNECT_TIMEOUT_MS 10000
#define HTTP_DEFAULT_TIMEOUT_MS 120000
#define HTTP_DEFAULT_MAX_RESPONSE ((size_t)8 * 1024 * 1024)

typedef struct HttpTransfer HttpTransfer;

/* Loads libcurl and runs its global setup, once per process (curl-dl.h); any thread. The first
 * transfer does it otherwise, on the loop: the vision client calls it on the pool beforehand,
 * so that loading libcurl and the libraries it brings never holds the loop. Returns 0, or
 * -ELIBACC when libcurl cannot be loaded or set up; http_global_error() then says why. */
int http_global_init(void);

/* Why http_global_init() failed, naming libcurl; "" before a failure. Static. */
const char *http_global_error(void);

/* What to send. Strings are copied; body is taken (g_malloc'd), even on failure. */
typedef struct {
  const char *url;
  const char *const *headers; /* "Name: value" lines, NULL-terminated; may be NULL */
  char *body;
  size_t body_len;
  long connect_timeout_ms; /* 0: HTTP_DEFAULT_CONNECT_TIMEOUT_MS */
  long timeout_ms;         /* each attempt's total; 0: HTTP_DEFAULT_TIMEOUT_MS */
  size_t max_response;     /* 0: HTTP_DEFAULT_MAX_RESPONSE */
} HttpSpec;

/* How a transfer ended. */
typedef struct {
  int err;       /* 0 (a response, whatever its status), -ETIMEDOUT, -ECANCELED, -EFBIG (the body
                    passed the cap), -ECONNREFUSED, -ECONNRESET (dropped, or nothing answered),
                    -EINVAL (a URL curl refuses), -EIO (anything else) */
  long status;   /* the HTTP status, 0 when none came */
  GString *body; /* the response body (up to the cap) */
  const char *message; /* curl's words for err, "" when err is 0; valid during the callback */
  int attempts;        /* 1, or 2 after a retry */
} HttpResult;

/* Called once, on the loop, after every handle of the transfer closed; the transfer is freed
 * right after it returns. */
typedef void (*HttpDoneCb)(HttpTransfer *t, const HttpResult *res, void *data);

/* Starts a POST. Returns 0 with *ret the transfer, or a negative errno (done_cb is then never
 * called): -ELIBACC when libcurl cannot be loaded (http_global_error()). */
int http_transfer_start(uv_loop_t *loop, HttpSpec *spec, HttpDoneCb done_cb, void *data,
                        HttpTransfer **ret);

/* Stops the transfer: done_cb follows (on the loop, later) with -ECANCELED. Safe to call more
 * than once and after the transfer ended, until done_cb was called. */
void http_transfer_cancel(HttpTransfer *t);
