/* Results of image conversions kept in memory, so that re-reading the same screenshot pays
 * once. Keyed by the file's identity and the options; least recently used entries go first
 * when the total size passes the capacity. Thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "formatters/result.h"

#define IMAGE_CACHE_DEFAULT_CAPACITY ((size_t)64 * 1024 * 1024) /* bytes of cached output */

typedef struct {
  uint64_t dev, ino;
  int64_t size;
  int64_t mtime_ns, ctime_ns; /* ctime too: it changes even when a tool restores the mtime */
  int max_dimension;
  int variant; /* what else shapes the output (the signature kind, SVG rendering) */
} ImageCacheKey;

typedef struct {
  uint64_t hits, misses, evictions;
  size_t entries, bytes, capacity;
} ImageCacheStats;

/* Fills *ret for the file described by st (from fstat on the open descriptor). */
void image_cache_key_init(ImageCacheKey *ret, const struct stat *st, int max_dimension,
                          int variant);

/* On a hit, copies the cached outcome into res (its images and `animated`, or its failure code
 * and message) and returns true; res must hold no image yet. Counts a hit or a miss. */
bool image_cache_get(const ImageCacheKey *key, FileResult *res);

/* Stores a copy of res's outcome (its images: one, or a picture's tiles; or its failure) under key, replacing any
 * older entry, and evicts the least recently used entries beyond the capacity. An outcome
 * larger than a quarter of the capacity is not stored. */
void image_cache_put(const ImageCacheKey *key, const FileResult *res);

/* Counters and sizes, for tests and logs. */
void image_cache_stats(ImageCacheStats *ret);

/* Sets the capacity in bytes (0 disables the cache) and evicts down to it. */
void image_cache_set_capacity(size_t bytes);

/* Drops every entry and zeroes the counters. */
void image_cache_clear(void);
