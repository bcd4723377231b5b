/* The reference token estimator (tests/tokens-reference.c): formatters/tokens.c's first
 * implementation, a scan of runs, with every feature since; the estimator must match it
 * exactly on every input. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "formatters/tokens-internal.h"

/* Its running counter: the run being scanned and the features counted so far. */
typedef struct {
  int64_t f[TOKEN_F_COUNT];
  int kind, last;
  size_t len, caps, tabs;
  int cons;     /* of a word: the consonants that end it, up to 2 */
  int spaced;   /* of a word piece: a space joins it; of a run of blanks: a space came before its
                 last blank */
  size_t reps;  /* of a punctuation run: its characters counted as TOKEN_F_REPEAT */
  int last_rep; /* its last character is one of them */
  int prev;     /* its last character */
} RefCounter;

/* Prepares c. */
void ref_counter_init(RefCounter *c);

/* Feeds n more bytes (a multi-byte character must not be split between two calls). */
void ref_counter_feed(RefCounter *c, const char *s, size_t n);

/* The estimate of what was fed, in thousandths of a token. */
int64_t ref_counter_milli(const RefCounter *c);

/* Adds the features of n bytes of UTF-8 to f[TOKEN_F_COUNT]. */
void ref_features(const char *s, size_t n, int64_t f[TOKEN_F_COUNT]);

/* tokens_text_milli() as the reference computes it. */
int64_t ref_text_milli(const char *s, size_t n);
