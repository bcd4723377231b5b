#include "formatters/price-memo.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "formatters/tokens.h"

/* A slot: a content's length, hash and estimate under a sequence number, even when the slot is
 * settled (0: never written), odd while a writer fills it. Every field is atomic, so that a
 * reader racing a writer reads a torn slot, never undefined behaviour, and the sequence number
 * read again after the fields tells it so. */
typedef struct {
  _Atomic uint64_t seq;
  _Atomic uint64_t lo, hi;
  _Atomic uint64_t len;
  _Atomic int64_t milli;
} Slot;

struct PriceMemo {
  ContentHashKey key;
  size_t mask; /* slots - 1 */
  Slot *slots;
};

/* Atomic, so that a thread started before the install reads it cleanly too (a plain load on
 * the usual machines). */
static PriceMemo *_Atomic installed;

PriceMemo *price_memo_new(unsigned bits, uint64_t seed0, uint64_t seed1) {
  PriceMemo *m;

  if (bits > 30)
    return NULL;
  m = calloc(1, sizeof *m);
  if (m == NULL)
    return NULL;
  /* calloc's zeroes are settled empty slots; the pages stay untouched until a store. */
  m->slots = calloc((size_t)1 << bits, sizeof *m->slots);
  if (m->slots == NULL) {
    free(m);
    return NULL;
  }
  m->mask = ((size_t)1 << bits) - 1;
  content_hash_key(&m->key, seed0, seed1);
  return m;
}

void price_memo_free(PriceMemo *m) {
  if (m == NULL)
    return;
  free(m->slots);
  free(m);
}

size_t price_memo_size(const PriceMemo *m) {
  return sizeof *m + (m->mask + 1) * sizeof *m->slots;
}

ContentHash price_memo_hash(const PriceMemo *m, const char *s, size_t n) {
  return content_hash(&m->key, s, n);
}

/* The two slots a content may be in: one chosen by each half of its hash (the same one in a
 * table of one slot). */
static Slot *slot_first(PriceMemo *m, ContentHash h) {
  return &m->slots[h.lo & m->mask];
}

static Slot *slot_second(PriceMemo *m, ContentHash h) {
  return &m->slots[h.hi & m->mask];
}

/* A seqlock's reader: the sequence number (acquire), the fields, a fence that keeps the fields'
 * loads before the second read of the number, and the number again. */
static int slot_get(Slot *s, ContentHash h, size_t n, int64_t *ret_milli) {
  uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
  uint64_t lo, hi, len;
  int64_t milli;

  if (seq == 0 || (seq & 1) != 0)
    return 0;
  lo = atomic_load_explicit(&s->lo, memory_order_relaxed);
  hi = atomic_load_explicit(&s->hi, memory_order_relaxed);
  len = atomic_load_explicit(&s->len, memory_order_relaxed);
  milli = atomic_load_explicit(&s->milli, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&s->seq, memory_order_relaxed) != seq)
    return 0;
  if (lo != h.lo || hi != h.hi || len != (uint64_t)n)
    return 0;
  *ret_milli = milli;
  return 1;
}

int price_memo_get(PriceMemo *m, ContentHash h, size_t n, int64_t *ret_milli) {
  Slot *first = slot_first(m, h), *second = slot_second(m, h);

  return slot_get(first, h, n, ret_milli) ||
         (second != first && slot_get(second, h, n, ret_milli));
}

/* Whether s is free for the content hashed h: never written, or holding that content's hash.
 * Read without the lock: a torn answer only picks the other slot. */
static bool slot_free_for(Slot *s, ContentHash h) {
  return atomic_load_explicit(&s->seq, memory_order_relaxed) == 0 ||
         (atomic_load_explicit(&s->lo, memory_order_relaxed) == h.lo &&
          atomic_load_explicit(&s->hi, memory_order_relaxed) == h.hi);
}

/* A seqlock's writer, several of them: the one whose compare-and-swap makes the number odd
 * writes, a release fence keeps the fields' stores after that, and the next even number
 * (release) publishes them. The content goes to its first slot unless that one holds another
 * content and its second slot does not. */
void price_memo_put(PriceMemo *m, ContentHash h, size_t n, int64_t milli) {
  Slot *s = slot_first(m, h), *second = slot_second(m, h);
  uint64_t seq;

  if (second != s && !slot_free_for(s, h) && slot_free_for(second, h))
    s = second;
  seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
  if ((seq & 1) != 0 || !atomic_compare_exchange_strong_explicit(
                            &s->seq, &seq, seq + 1, memory_order_relaxed, memory_order_relaxed))
    return;
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&s->lo, h.lo, memory_order_relaxed);
  atomic_store_explicit(&s->hi, h.hi, memory_order_relaxed);
  atomic_store_explicit(&s->len, (uint64_t)n, memory_order_relaxed);
  atomic_store_explicit(&s->milli, milli, memory_order_relaxed);
  atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

int64_t price_memo_text_milli(PriceMemo *m, const char *s, size_t n) {
  ContentHash h;
  int64_t milli;

  if (m == NULL || n < PRICE_MEMO_MIN_BYTES)
    return tokens_text_milli(s, n);
  h = content_hash(&m->key, s, n);
  if (price_memo_get(m, h, n, &milli))
    return milli;
  milli = tokens_text_milli(s, n);
  price_memo_put(m, h, n, milli);
  return milli;
}

void price_memo_install(PriceMemo *m) {
  atomic_store_explicit(&installed, m, memory_order_release);
}

PriceMemo *price_memo_installed(void) {
  return atomic_load_explicit(&installed, memory_order_acquire);
}
