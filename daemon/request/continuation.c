/* The continuations remembered; see continuation.h. */
#include "daemon/request/continuation.h"

#include <pthread.h>
#include <string.h>
#include <sys/random.h>

#include <glib.h>

#include "basic/mutex.h"

typedef struct {
  ContentHash key;
  int64_t skip;
  size_t path, before;
  uint64_t used; /* when it was last remembered or found; 0: empty */
} Slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Slot slots[CONTINUATION_SLOTS];
static uint64_t clock_now; /* under lock */

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static ContentHashKey hash_key;

/* A key drawn at random, so that requests made to collide cannot be prepared. */
static void key_init(void) {
  uint64_t seed[2];

  if (getrandom(seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
    seed[0] = g_random_int() | (uint64_t)g_random_int() << 32;
    seed[1] = g_random_int() | (uint64_t)g_random_int() << 32;
  }
  content_hash_key(&hash_key, seed[0], seed[1]);
}

/* A string and its length (NULL apart from ""), so that no two lists write the same bytes. */
static void put_str(GByteArray *b, const char *s) {
  uint64_t n = s != NULL ? strlen(s) + 1 : 0;

  g_byte_array_append(b, (const guint8 *)&n, sizeof n);
  if (n > 0)
    g_byte_array_append(b, (const guint8 *)s, (guint)(n - 1));
}

static void put_strv(GByteArray *b, const char *const *v) {
  for (size_t i = 0; v != NULL && v[i] != NULL; i++)
    put_str(b, v[i]);
  put_str(b, NULL);
}

ContentHash continuation_key(const ReadParams *p, const Workspace *ws) {
  GByteArray *b = g_byte_array_sized_new((guint)(p->n_paths * 64 + 256));
  uint64_t head[5] = {p->n_paths, p->expand.on, (uint64_t)p->expand.max_files,
                      p->expand.ignored, p->expand.binary};
  uint8_t fenced = ws != NULL && workspace_fenced(ws);
  ContentHash h;

  pthread_once(&key_once, key_init);
  g_byte_array_append(b, (const guint8 *)head, sizeof head);
  for (size_t i = 0; i < p->n_paths; i++)
    put_str(b, p->paths[i].path);
  put_str(b, p->cwd);
  g_byte_array_append(b, &fenced, 1);
  if (ws != NULL) {
    put_str(b, workspace_root(ws));
    put_strv(b, workspace_real_roots(ws));
    put_strv(b, workspace_patterns(ws));
  }
  h = content_hash(&hash_key, b->data, b->len);
  g_byte_array_unref(b);
  return h;
}

static bool same(const Slot *s, ContentHash key, int64_t skip) {
  return s->used != 0 && s->key.lo == key.lo && s->key.hi == key.hi && s->skip == skip;
}

void continuation_remember(ContentHash key, int64_t skip, size_t path, size_t before) {
  Slot *pick = &slots[0];

  mutex_lock(&lock);
  for (size_t i = 0; i < CONTINUATION_SLOTS; i++) {
    if (same(&slots[i], key, skip)) {
      pick = &slots[i];
      break;
    }
    if (slots[i].used < pick->used)
      pick = &slots[i];
  }
  *pick = (Slot){.key = key, .skip = skip, .path = path, .before = before, .used = ++clock_now};
  mutex_unlock(&lock);
}

bool continuation_find(ContentHash key, int64_t skip, size_t *ret_path, size_t *ret_before) {
  bool found = false;

  mutex_lock(&lock);
  for (size_t i = 0; i < CONTINUATION_SLOTS && !found; i++) {
    if (!same(&slots[i], key, skip))
      continue;
    slots[i].used = ++clock_now;
    *ret_path = slots[i].path;
    *ret_before = slots[i].before;
    found = true;
  }
  mutex_unlock(&lock);
  return found;
}
