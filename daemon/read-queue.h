/* The reads of one connection, whatever protocol it speaks: which run, which wait (parsed, in
 * order of arrival), when they start, cancelling one by its id, and detaching them all when
 * the connection closes. A read starts only while fewer than READ_QUEUE_MAX_RUNNING of the
 * connection's reads run, its unsent output is below CONN_MAX_UNSENT and the daemon lets the
 * connection hold the read's reservation (conn_may_hold); the connection stops reading while
 * READ_QUEUE_MAX_WAITING reads (or READ_QUEUE_MAX_WAITING_COST bytes of their messages) wait.
 * Waiting reads and running reads' reservations are counted in what the connection holds.
 * docs/protocol.md, "Memory per connection" and "Memory for the whole daemon", give the
 * bounds. Loop thread. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <json-glib/json-glib.h>

#include "daemon/conn.h"
#include "daemon/readers/workspace.h"
#include "daemon/request/request.h"
#include "ipc/read-params.h"

#define READ_QUEUE_MAX_RUNNING 4
#define READ_QUEUE_MAX_WAITING 64
#define READ_QUEUE_MAX_WAITING_COST ((size_t)16 * 1024 * 1024)
/* What a waiting read's parsed params cost beyond its message text, per path. */
#define READ_QUEUE_PATH_COST 128
/* What a running read is expected to answer per path, reserved in what the daemon holds
 * (daemon/hold.h) until its answer is queued: a source file's text with its markup. */
#define READ_QUEUE_RESERVE_PER_PATH ((size_t)32 * 1024)

typedef struct ReadQueue ReadQueue;

/* One read of the connection. id and key are the request's; `data` is the protocol's own. */
typedef struct {
  JsonNode *id; /* owned */
  char *key;    /* jsonrpc_id_key(id) */
  void *data;
} ReadCall;

/* A read ended: status 0 with the request's output ready (request_take_output), or
 * UV_ECANCELED (req is NULL when it was cancelled before it started). Called only while the
 * connection is open; the queue frees req and the call afterwards. */
typedef void (*ReadQueueDoneCb)(Conn *c, ReadCall *call, Request *req, int status);

/* Reads in flight report how many files are read (loop thread), when the protocol wants it. */
typedef void (*ReadQueueProgressCb)(Conn *c, ReadCall *call, size_t done, size_t total);

/* A queue for connection c; output is the shape requests answer in. free_data frees a call's
 * data (may be NULL). */
ReadQueue *read_queue_new(Conn *c, RequestOutput output, ReadQueueDoneCb done_cb,
                          ReadQueueProgressCb progress_cb, GDestroyNotify free_data);

/* Detaches the reads still running (they free themselves when their work comes back) and
 * frees the queue. NULL is fine. */
void read_queue_free(ReadQueue *q);

/* Queues a read: takes *params (reset) and data; copies id. msg_len is its message's size. */
void read_queue_add(ReadQueue *q, JsonNode *id, ReadParams *params, size_t msg_len, void *data);

/* Starts waiting reads, in order, while the connection may run more, in workspace ws (may be
 * NULL). */
void read_queue_start(ReadQueue *q, Workspace *ws);

/* Cancels the reads whose id has key `key`: a running one answers when its work stops, a
 * waiting one at once (done_cb with UV_ECANCELED and no request). */
void read_queue_cancel(ReadQueue *q, const char *key);

/* Cancels and detaches every read (the connection is closing): nothing is answered. */
void read_queue_close(ReadQueue *q);

/* True while so much waits that the connection should stop reading. */
bool read_queue_busy(const ReadQueue *q);

/* True when no read runs or waits. */
bool read_queue_idle(const ReadQueue *q);
