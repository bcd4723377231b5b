#include "daemon/read-queue.h"

#include <glib.h>

#include "ipc/jsonrpc.h"

/* A call and what the queue keeps of it. */
typedef struct {
  ReadCall call;
  ReadQueue *q;      /* NULL once the connection closed: the request is then only freed */
  Request *req;      /* NULL while waiting */
  ReadParams params; /* while waiting; request_start() takes them */
  size_t cost;       /* while waiting: message bytes plus READ_QUEUE_PATH_COST per path */
  size_t reserved;   /* while running: what its answer is expected to take (conn_hold) */
} Entry;

struct ReadQueue {
  Conn *conn;
  RequestOutput output;
  ReadQueueDoneCb done_cb;
  ReadQueueProgressCb progress_cb;
  GDestroyNotify free_data;
  GPtrArray *running;  /* Entry*, in flight */
  GQueue waiting;      /* Entry*, parsed and not started, in order of arrival */
  size_t waiting_cost; /* sum of the waiting entries' cost */
};

static void entry_free(Entry *e, GDestroyNotify free_data) {
  if (e->call.id != NULL)
    json_node_unref(e->call.id);
  g_free(e->call.key);
  if (free_data != NULL && e->call.data != NULL)
    free_data(e->call.data);
  read_params_clear(&e->params);
  g_free(e);
}

ReadQueue *read_queue_new(Conn *c, RequestOutput output, ReadQueueDoneCb done_cb,
                          ReadQueueProgressCb progress_cb, GDestroyNotify free_data) {
  ReadQueue *q = g_new0(ReadQueue, 1);

  q->conn = c;
  q->output = output;
  q->done_cb = done_cb;
  q->progress_cb = progress_cb;
  q->free_data = free_data;
  q->running = g_ptr_array_new();
  g_queue_init(&q->waiting);
  return q;
}

void read_queue_free(ReadQueue *q) {
  if (q == NULL)
    return;
  read_queue_close(q);
  g_ptr_array_free(q->running, TRUE);
  g_free(q);
}

void read_queue_add(ReadQueue *q, JsonNode *id, ReadParams *params, size_t msg_len, void *data) {
  Entry *e = g_new0(Entry, 1);

  e->q = q;
  e->call.id = json_node_copy(id);
  e->call.key = jsonrpc_id_key(id);
  e->call.data = data;
  e->params = *params;
  read_params_init(params);
  e->cost = msg_len + e->params.n_paths * READ_QUEUE_PATH_COST;
  q->waiting_cost += e->cost;
  conn_hold(q->conn, e->cost);
  g_queue_push_tail(&q->waiting, e);
}

/* What a read's answer is expected to take: READ_QUEUE_RESERVE_PER_PATH per path, within the
 * answer's cap; the cap itself when folders or globs may name any number of files. */
static size_t reservation(const ReadParams *p) {
  if (p->expand.on)
    return p->max_answer_bytes;
  return MIN(p->max_answer_bytes, MAX(p->n_paths, (size_t)1) * READ_QUEUE_RESERVE_PER_PATH);
}

static void entry_done_cb(Request *req, int status) {
  Entry *e = request_get_data(req);
  ReadQueue *q = e->q;
  GDestroyNotify free_data = q != NULL ? q->free_data : NULL;
  Conn *c = q != NULL ? q->conn : NULL;

  if (q != NULL) {
    g_ptr_array_remove_fast(q->running, e);
    q->done_cb(c, &e->call, req, status);
    /* The answer, if any, is now counted as the connection's unsent output. */
    conn_release(c, e->reserved);
  }
  request_free(req);
  /* A detached entry's data was freed with the queue's knowledge of how: keep it so. */
  entry_free(e, free_data);
  if (c != NULL)
    conn_progress(c);
}

static void entry_progress_cb(Request *req, size_t done, size_t total) {
  Entry *e = request_get_data(req);

  if (e->q != NULL && e->q->progress_cb != NULL)
    e->q->progress_cb(e->q->conn, &e->call, done, total);
}

/* True when the connection may start e now: its own limits, then the daemon's (hold.h). */
static bool may_start(ReadQueue *q, Entry *e) {
  if (conn_is_closing(q->conn) || q->running->len >= READ_QUEUE_MAX_RUNNING ||
      conn_unsent(q->conn) >= CONN_MAX_UNSENT)
    return false;
  e->reserved = reservation(&e->params);
  return conn_may_hold(q->conn, e->reserved > e->cost ? e->reserved - e->cost : 0,
                       q->running->len == 0);
}

void read_queue_start(ReadQueue *q, Workspace *ws) {
  while (q->waiting.length > 0 && may_start(q, g_queue_peek_head(&q->waiting))) {
    Entry *e = g_queue_pop_head(&q->waiting);

    q->waiting_cost -= e->cost;
    conn_hold(q->conn, e->reserved);
    conn_release(q->conn, e->cost);
    e->cost = 0;
    g_ptr_array_add(q->running, e);
    e->req = request_start(conn_loop(q->conn), &e->params, ws, q->output, entry_done_cb, e);
    if (q->progress_cb != NULL)
      request_on_progress(e->req, entry_progress_cb);
  }
}

void read_queue_cancel(ReadQueue *q, const char *key) {
  for (size_t i = 0; i < q->running->len; i++) {
    Entry *e = g_ptr_array_index(q->running, i);

    if (g_strcmp0(e->call.key, key) == 0)
      request_cancel(e->req);
  }
  for (GList *l = q->waiting.head, *next; l != NULL; l = next) {
    Entry *e = l->data;

    next = l->next;
    if (g_strcmp0(e->call.key, key) != 0)
      continue;
    g_queue_delete_link(&q->waiting, l);
    q->waiting_cost -= e->cost;
    conn_release(q->conn, e->cost);
    q->done_cb(q->conn, &e->call, NULL, UV_ECANCELED);
    entry_free(e, q->free_data);
  }
}

void read_queue_close(ReadQueue *q) {
  for (size_t i = 0; i < q->running->len; i++) {
    Entry *e = g_ptr_array_index(q->running, i);

    e->q = NULL;
    conn_release(q->conn, e->reserved);
    /* Its data goes with it: nobody will read it again. */
    if (q->free_data != NULL && e->call.data != NULL)
      q->free_data(g_steal_pointer(&e->call.data));
    request_cancel(e->req);
  }
  g_ptr_array_set_size(q->running, 0);
  while (q->waiting.length > 0) {
    Entry *e = g_queue_pop_head(&q->waiting);

    conn_release(q->conn, e->cost);
    entry_free(e, q->free_data);
  }
  q->waiting_cost = 0;
}

bool read_queue_busy(const ReadQueue *q) {
  return q->waiting.length >= READ_QUEUE_MAX_WAITING ||
         q->waiting_cost >= READ_QUEUE_MAX_WAITING_COST;
}

bool read_queue_idle(const ReadQueue *q) {
  return q->running->len == 0 && q->waiting.length == 0;
}
