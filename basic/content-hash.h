/* A keyed 128-bit hash of a run of bytes, fast enough to be taken of every content the daemon
 * prices (0.6 instructions a byte, against about 7 for the pricing). Pure.
 *
 * It names contents in a process's memory, never on disk or on the wire: its values depend on the
 * key, which a process draws at random when it starts, so that inputs made to collide cannot be
 * prepared without reading the process's memory. It is not a cryptographic hash. The libraries
 * readerd links have none to take: glib's g_bytes_hash() takes a byte a step into 32 bits without
 * a key, GChecksum's digests (MD5, SHA) cost as much as the pricing or more, and libxml2 keeps its
 * keyed hash to itself. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The key, expanded from a seed: the fields are private. */
typedef struct {
  uint64_t k[6];
} ContentHashKey;

typedef struct {
  uint64_t lo, hi;
} ContentHash;

/* Expands a 128-bit seed (seed0, seed1) into *ret. Distinct seeds give unrelated keys. */
void content_hash_key(ContentHashKey *ret, uint64_t seed0, uint64_t seed1);

/* The hash of n bytes at p under key (p may be NULL when n is 0): a 128-bit state that starts
 * from the key and the length and that every 16 bytes go through (a multiplication of 64 by 64
 * bits into 128), folded at the end into each half of the hash under its own part of the key. */
ContentHash content_hash(const ContentHashKey *key, const void *p, size_t n);
