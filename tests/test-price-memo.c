/* The price memo (formatters/price-memo.c) and the keyed hash it knows contents by
 * (basic/content-hash.c): inputs of one length that differ anywhere hash apart, keys change every
 * value, the table answers only for what it holds and replaces what shares a slot, and threads
 * looking up and storing at once always read what was stored for the content they name. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "basic/content-hash.h"
#include "formatters/price-memo.h"
#include "formatters/tokens.h"
#include "tests/lib/check-run.h"

static bool hash_eq(ContentHash a, ContentHash b) {
  return a.lo == b.lo && a.hi == b.hi;
}

/* Every single-bit change of a buffer, at every position of every length up to 80 bytes (the
 * 32- and 16-byte steps and the padded end), gives another hash in both halves, and so does
 * every length of the same zero bytes. */
START_TEST(content_hash_one_bit) {
  ContentHashKey key;
  unsigned char buf[80] = {0};
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);

  content_hash_key(&key, 1, 2);
  for (size_t n = 0; n <= sizeof buf; n++) {
    ContentHash base = content_hash(&key, buf, n);
    gint64 *lo = g_new(gint64, 1);

    /* Zeros of each length: the length tells them apart. */
    *lo = (gint64)base.lo;
    ck_assert_msg(g_hash_table_add(seen, lo), "%zu zero bytes hash like fewer", n);
    for (size_t i = 0; i < n; i++)
      for (int bit = 0; bit < 8; bit++) {
        ContentHash h;

        buf[i] ^= (unsigned char)(1u << bit);
        h = content_hash(&key, buf, n);
        buf[i] ^= (unsigned char)(1u << bit);
        ck_assert_msg(h.lo != base.lo && h.hi != base.hi, "n %zu byte %zu bit %d", n, i, bit);
      }
  }
}
END_TEST

/* Many distinct inputs of one length (a counter written at every offset of a text): no two
 * share either half. */
START_TEST(content_hash_distinct) {
  ContentHashKey key;
  char buf[4096];
  g_autoptr(GHashTable) lo = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GHashTable) hi = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);

  content_hash_key(&key, 0x1234, 0x5678);
  memset(buf, 'x', sizeof buf);
  for (unsigned v = 0; v < 20000; v++) {
    ContentHash h;
    gint64 *a = g_new(gint64, 1), *b = g_new(gint64, 1);

    memcpy(buf + (v * 7) % (sizeof buf - sizeof v), &v, sizeof v);
    h = content_hash(&key, buf, sizeof buf);
    memset(buf + (v * 7) % (sizeof buf - sizeof v), 'x', sizeof v);
    *a = (gint64)h.lo;
    *b = (gint64)h.hi;
    ck_assert(g_hash_table_add(lo, a));
    ck_assert(g_hash_table_add(hi, b));
  }
}
END_TEST

/* The key is the whole seed: changing either half of it changes both halves of every hash; the
 * same seed gives the same hash. */
START_TEST(content_hash_seeds) {
  static const char text[] = "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n";
  ContentHashKey k, k0, k1, same;
  ContentHash h, h0, h1;

  content_hash_key(&k, 7, 9);
  content_hash_key(&same, 7, 9);
  content_hash_key(&k0, 8, 9);
  content_hash_key(&k1, 7, 10);
  for (size_t n = 0; n <= sizeof text - 1; n++) {
    h = content_hash(&k, text, n);
    h0 = content_hash(&k0, text, n);
    h1 = content_hash(&k1, text, n);
    ck_assert(hash_eq(h, content_hash(&same, text, n)));
    ck_assert(h.lo != h0.lo && h.hi != h0.hi);
    ck_assert(h.lo != h1.lo && h.hi != h1.hi);
  }
}
END_TEST

/* What was stored is found under its hash and length only; another length, another hash or a
 * slot never written misses. */
START_TEST(price_memo_get_put) {
  PriceMemo *m = price_memo_new(4, 1, 2);
  ContentHash h = price_memo_hash(m, "abc", 3), other = h;
  int64_t milli = -1;

  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(price_memo_size(m) >= 16 * 40, 1);
  ck_assert_int_eq(price_memo_get(m, h, 3, &milli), 0);
  price_memo_put(m, h, 3, 4321);
  ck_assert_int_eq(price_memo_get(m, h, 3, &milli), 1);
  ck_assert_int_eq(milli, 4321);
  ck_assert_int_eq(price_memo_get(m, h, 4, &milli), 0);
  other.hi ^= 1;
  ck_assert_int_eq(price_memo_get(m, other, 3, &milli), 0);
  price_memo_free(m);
  price_memo_free(NULL);
  ck_assert_ptr_null(price_memo_new(31, 1, 2));
}
END_TEST

/* A table of one slot: each store replaces the one before, which then misses. */
START_TEST(price_memo_replaces) {
  PriceMemo *m = price_memo_new(0, 3, 4);
  ContentHash a = price_memo_hash(m, "first", 5), b = price_memo_hash(m, "second", 6);
  int64_t milli;

  price_memo_put(m, a, 5, 1000);
  price_memo_put(m, b, 6, 2000);
  ck_assert_int_eq(price_memo_get(m, a, 5, &milli), 0);
  ck_assert_int_eq(price_memo_get(m, b, 6, &milli), 1);
  ck_assert_int_eq(milli, 2000);
  price_memo_put(m, a, 5, 1000);
  ck_assert_int_eq(price_memo_get(m, b, 6, &milli), 0);
  ck_assert_int_eq(price_memo_get(m, a, 5, &milli), 1);
  ck_assert_int_eq(milli, 1000);
  price_memo_free(m);
}
END_TEST

/* Two contents whose first slots are one and the same, and whose second slots are not, are
 * both found: the second goes to its second slot, and neither replaces the other. */
START_TEST(price_memo_two_slots) {
  PriceMemo *m = price_memo_new(4, 5, 6);
  ContentHash first[16];
  bool seen[16] = {false};
  char text[32];
  int64_t milli;

  for (unsigned k = 0;; k++) {
    size_t n = (size_t)g_snprintf(text, sizeof text, "content %u", k);
    ContentHash h = price_memo_hash(m, text, n);
    unsigned slot = (unsigned)(h.lo & 15);

    if (seen[slot] && (first[slot].hi & 15) != (h.hi & 15) && (h.hi & 15) != slot) {
      price_memo_put(m, first[slot], 99, 1000);
      price_memo_put(m, h, 98, 2000);
      ck_assert_int_eq(price_memo_get(m, first[slot], 99, &milli), 1);
      ck_assert_int_eq(milli, 1000);
      ck_assert_int_eq(price_memo_get(m, h, 98, &milli), 1);
      ck_assert_int_eq(milli, 2000);
      break;
    }
    seen[slot] = true;
    first[slot] = h;
  }
  price_memo_free(m);
}
END_TEST

/* Through the memo, a content is priced as without it, the first time and the next; a content
 * below PRICE_MEMO_MIN_BYTES is never stored; one changed in a byte is priced anew. */
START_TEST(price_memo_text) {
  PriceMemo *m = price_memo_new(8, 5, 6);
  GString *s = g_string_new(NULL);
  int64_t milli;

  while (s->len < 3 * PRICE_MEMO_MIN_BYTES)
    g_string_append(s,
                    "func (r *Reader) Read(p []byte) (n int, err error) {\n\treturn 0, nil\n}\n");
  ck_assert_int_eq(price_memo_text_milli(m, s->str, s->len), tokens_text_milli(s->str, s->len));
  ck_assert_int_eq(price_memo_get(m, price_memo_hash(m, s->str, s->len), s->len, &milli), 1);
  ck_assert_int_eq(milli, tokens_text_milli(s->str, s->len));
  ck_assert_int_eq(price_memo_text_milli(m, s->str, s->len), milli);
  /* Same length, other bytes: digits for a piece of code are priced by the scan again. */
  memcpy(s->str + s->len / 2, "0123456789012345", 16);
  ck_assert_int_eq(price_memo_text_milli(m, s->str, s->len), tokens_text_milli(s->str, s->len));
  ck_assert_int_ne(price_memo_text_milli(m, s->str, s->len), milli);
  /* Short: priced, not stored. */
  ck_assert_int_eq(price_memo_text_milli(m, s->str, 100), tokens_text_milli(s->str, 100));
  ck_assert_int_eq(price_memo_get(m, price_memo_hash(m, s->str, 100), 100, &milli), 0);
  ck_assert_int_eq(price_memo_text_milli(NULL, s->str, s->len), tokens_text_milli(s->str, s->len));
  g_string_free(s, TRUE);
  price_memo_free(m);
}
END_TEST

/* No memo until one is installed (the command line's case), and none after it is taken back. */
START_TEST(price_memo_installed_none) {
  PriceMemo *m = price_memo_new(2, 1, 1);

  ck_assert_ptr_null(price_memo_installed());
  price_memo_install(m);
  ck_assert_ptr_eq(price_memo_installed(), m);
  price_memo_install(NULL);
  ck_assert_ptr_null(price_memo_installed());
  price_memo_free(m);
}
END_TEST

#define THREADS 4
#define KEYS 64
#define ROUNDS 20000

typedef struct {
  PriceMemo *m;
  unsigned id;
  unsigned hits;
} Worker;

/* The estimate stored for key k: a function of k, so that any mix-up shows. */
static int64_t value_of(unsigned k) {
  return (int64_t)k * 1000003 + 17;
}

static void *worker_run(void *data) {
  Worker *w = data;

  for (unsigned r = 0; r < ROUNDS; r++) {
    unsigned k = (r * 31 + w->id * 7) % KEYS;
    ContentHash h = price_memo_hash(w->m, (const char *)&k, sizeof k);
    int64_t milli;

    if (price_memo_get(w->m, h, sizeof k, &milli)) {
      ck_assert_int_eq(milli, value_of(k));
      w->hits++;
    } else {
      price_memo_put(w->m, h, sizeof k, value_of(k));
    }
  }
  return NULL;
}

/* Threads storing and looking up keys that share a small table's slots: every hit holds the
 * value stored for its own key (ThreadSanitizer runs this too). */
START_TEST(price_memo_threads) {
  PriceMemo *m = price_memo_new(3, 9, 10);
  pthread_t t[THREADS];
  Worker w[THREADS];
  unsigned hits = 0;

  for (unsigned i = 0; i < THREADS; i++) {
    w[i] = (Worker){.m = m, .id = i};
    ck_assert_int_eq(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
  }
  for (unsigned i = 0; i < THREADS; i++) {
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    hits += w[i].hits;
  }
  ck_assert_uint_gt(hits, 0);
  price_memo_free(m);
}
END_TEST

static Suite *price_memo_suite(void) {
  Suite *s = suite_create("price-memo");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, content_hash_one_bit);
  tcase_add_test(tc, content_hash_distinct);
  tcase_add_test(tc, content_hash_seeds);
  tcase_add_test(tc, price_memo_get_put);
  tcase_add_test(tc, price_memo_replaces);
  tcase_add_test(tc, price_memo_two_slots);
  tcase_add_test(tc, price_memo_text);
  tcase_add_test(tc, price_memo_installed_none);
  tcase_add_test(tc, price_memo_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(price_memo_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
