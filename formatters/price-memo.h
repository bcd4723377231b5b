/* The price memo: what contents priced before cost, by the contents themselves, so that a
 * daemon pricing the same bytes again (a file read again, unchanged) looks their estimate up
 * instead of scanning them.
 *
 * A content is known by its length and a keyed 128-bit hash of its bytes (basic/content-hash.h)
 * under a key drawn when the memo is made: the memo answers for the bytes themselves, whatever
 * file they came from and whatever happened to it. The table is fixed in size, and a content
 * has two slots in it, one chosen by each half of its hash: it goes to the first unless that
 * one holds another content and the second does not, and replaces what its first slot held
 * when both are taken. Nothing is allocated after price_memo_new(). Lookups and stores may run
 * from any number of threads at once (each slot is a sequence lock over atomics: a reader that
 * meets a slot being written misses, a writer that meets another gives way). Pure: no I/O, no
 * logging. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "basic/content-hash.h"

/* Contents shorter than this are priced whole each time: the scan of fewer bytes costs less
 * than hashing them and a lookup that may miss (docs/performance.md, the price memo). */
#define PRICE_MEMO_MIN_BYTES 1024

/* The daemon's memo: 2^16 slots of 40 bytes, 2.5 MiB, touched as they are filled. */
#define PRICE_MEMO_DAEMON_BITS 16

typedef struct PriceMemo PriceMemo;

/* A memo of 2^bits slots (bits at most 30) under the key expanded from (seed0, seed1), or NULL
 * when there is no memory for it. Free with price_memo_free(). */
PriceMemo *price_memo_new(unsigned bits, uint64_t seed0, uint64_t seed1);

/* Frees m; NULL is fine. No thread may be using it. */
void price_memo_free(PriceMemo *m);

/* The memo's bytes, for the record. */
size_t price_memo_size(const PriceMemo *m);

/* The key of n bytes at s under m's key. */
ContentHash price_memo_hash(const PriceMemo *m, const char *s, size_t n);

/* Sets *ret_milli to the estimate stored for the content hashed h of n bytes and returns 1, or
 * returns 0 when the memo holds none (never stored, replaced, or being written). */
int price_memo_get(PriceMemo *m, ContentHash h, size_t n, int64_t *ret_milli);

/* Stores milli as the estimate of the content hashed h of n bytes, in one of its two slots
 * (see above); a store that meets another one in the same slot is dropped. */
void price_memo_put(PriceMemo *m, ContentHash h, size_t n, int64_t milli);

/* tokens_text_milli(s, n) through m: looked up when n is at least PRICE_MEMO_MIN_BYTES, priced
 * and stored on a miss. m NULL: tokens_text_milli(s, n). */
int64_t price_memo_text_milli(PriceMemo *m, const char *s, size_t n);

/* The process's memo, that file_result_count_tokens() prices contents through: NULL (none)
 * until price_memo_install() sets one. Install, and uninstall (NULL), only while no other
 * thread prices: before the daemon's threads start and after they have stopped. */
void price_memo_install(PriceMemo *m);
PriceMemo *price_memo_installed(void);
