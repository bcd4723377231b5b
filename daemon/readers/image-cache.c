#include "daemon/readers/image-cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "basic/mutex.h"

#define ENTRY_OVERHEAD 256 /* bytes counted for an entry besides its data and message */

typedef struct {
  ImageCacheKey key;
  ImageOut *imgs; /* the image, or a picture's tiles; none for a failure */
  size_t n_imgs;
  bool animated;
  const char *code; /* static CODE_*; NULL on success */
  char *error;
  size_t cost;
  GList link; /* in `lru`, most recent at the head */
} Entry;

/* pthread rather than GMutex: ThreadSanitizer sees it (glib's futex locks are invisible to it). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *table; /* ImageCacheKey* -> Entry*, created on first use */
static GQueue lru = G_QUEUE_INIT;
static ImageCacheStats stats = {.capacity = IMAGE_CACHE_DEFAULT_CAPACITY};

static guint key_hash(gconstpointer p) {
  const ImageCacheKey *k = p;
  uint64_t h = k->ino * 0x9e3779b97f4a7c15u ^ k->dev ^ (uint64_t)k->mtime_ns * 31u ^
               (uint64_t)k->size ^ (uint64_t)k->max_dimension << 40 ^ (uint64_t)k->variant << 56;

  return (guint)(h ^ h >> 32);
}

static gboolean key_equal(gconstpointer a, gconstpointer b) {
  const ImageCacheKey *x = a, *y = b;

  return x->dev == y->dev && x->ino == y->ino && x->size == y->size && x->mtime_ns == y->mtime_ns &&
         x->ctime_ns == y->ctime_ns && x->max_dimension == y->max_dimension &&
         x->variant == y->variant;
}

static void entry_free(Entry *e) {
  image_out_list_free(e->imgs, e->n_imgs);
  g_free(e->error);
  g_free(e);
}

/* Unlinks and frees e. Called with the lock held. */
static void entry_remove(Entry *e) {
  g_assert(stats.entries > 0 && stats.bytes >= e->cost);
  g_queue_unlink(&lru, &e->link);
  g_hash_table_remove(table, &e->key);
  stats.bytes -= e->cost;
  stats.entries--;
  entry_free(e);
}

static void evict_to(size_t capacity) {
  while (stats.bytes > capacity && lru.tail != NULL) {
    entry_remove(lru.tail->data);
    stats.evictions++;
  }
}

/* The key of an open file and the options; see image-cache.h. */
void image_cache_key_init(ImageCacheKey *ret, const struct stat *st, int max_dimension,
                          int variant) {
  memset(ret, 0, sizeof(*ret));
  ret->dev = (uint64_t)st->st_dev;
  ret->ino = (uint64_t)st->st_ino;
  ret->size = (int64_t)st->st_size;
  ret->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  ret->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
  ret->max_dimension = max_dimension;
  ret->variant = variant;
}

static void image_copy(ImageOut *dst, const ImageOut *src) {
  *dst = *src;
  dst->media_type = g_strdup(src->media_type);
  dst->data = g_malloc(src->data_len + 1);
  memcpy(dst->data, src->data, src->data_len + 1);
}

/* Looks the key up and copies a hit into res, most recently used first; see image-cache.h. */
bool image_cache_get(const ImageCacheKey *key, FileResult *res) {
  Entry *e = NULL;

  mutex_lock(&lock);
  if (table != NULL)
    e = g_hash_table_lookup(table, key);
  if (e == NULL) {
    stats.misses++;
    mutex_unlock(&lock);
    return false;
  }
  stats.hits++;
  g_queue_unlink(&lru, &e->link);
  g_queue_push_head_link(&lru, &e->link);
  res->animated = e->animated;
  if (e->code != NULL)
    file_result_fail(res, e->code, "%s", e->error);
  else
    for (size_t i = 0; i < e->n_imgs; i++)
      image_copy(file_result_add_image(res), &e->imgs[i]);
  mutex_unlock(&lock);
  return true;
}

/* Stores a copy of res's outcome, then evicts from the least recently used end. */
void image_cache_put(const ImageCacheKey *key, const FileResult *res) {
  Entry *e, *old;

  if (res->code == NULL && res->n_images == 0)
    return;
  e = g_new0(Entry, 1);
  e->key = *key;
  e->animated = res->animated;
  e->code = res->code;
  e->cost = ENTRY_OVERHEAD;
  if (res->code != NULL) {
    e->error = g_strdup(res->error);
    e->cost += strlen(e->error);
  } else {
    e->imgs = g_new(ImageOut, res->n_images);
    e->n_imgs = res->n_images;
    for (size_t i = 0; i < res->n_images; i++) {
      image_copy(&e->imgs[i], &res->images[i]);
      e->cost += e->imgs[i].data_len;
    }
  }
  e->link.data = e;

  mutex_lock(&lock);
  if (e->cost > stats.capacity / 4) {
    mutex_unlock(&lock);
    entry_free(e);
    return;
  }
  if (table == NULL)
    table = g_hash_table_new(key_hash, key_equal);
  if ((old = g_hash_table_lookup(table, key)) != NULL)
    entry_remove(old);
  g_hash_table_insert(table, &e->key, e);
  g_queue_push_head_link(&lru, &e->link);
  stats.bytes += e->cost;
  stats.entries++;
  evict_to(stats.capacity);
  mutex_unlock(&lock);
}

/* A snapshot of the counters. */
void image_cache_stats(ImageCacheStats *ret) {
  mutex_lock(&lock);
  *ret = stats;
  mutex_unlock(&lock);
}

/* New capacity in bytes; evicts down to it at once. */
void image_cache_set_capacity(size_t bytes) {
  mutex_lock(&lock);
  stats.capacity = bytes;
  evict_to(bytes);
  mutex_unlock(&lock);
}

/* Empties the cache and zeroes its counters (tests start from a clean state). */
void image_cache_clear(void) {
  mutex_lock(&lock);
  evict_to(0);
  stats.hits = stats.misses = stats.evictions = 0;
  mutex_unlock(&lock);
}
