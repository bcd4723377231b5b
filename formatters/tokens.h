/* Token estimates: what a piece of text or a picture costs a model, without its tokenizer.
 *
 * Pure and fast (one pass over the bytes, one table lookup a byte, no allocation). Text is
 * estimated from character classes (ASCII word pieces split where a BPE pre-tokenizer splits them,
 * digit groups, punctuation runs, whitespace runs, CJK characters, characters of other scripts)
 * and the shapes a BPE splits finely or merges (letters without vowels, capitals before small
 * letters, long rules of one character), with weights fitted to OpenAI's o200k_base BPE; tests/test-tokens.c checks them against the real
 * tokenizer on real files. Images use the providers' published formulas. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/image-tiles.h"

/* A running estimate over text fed in pieces (a line number, then its line, ...): the same
 * as the estimate of the pieces joined. Embed it; the fields are private. */
typedef struct {
  int64_t milli; /* the estimate so far */
  int64_t tabs;  /* of the run of blanks going on at the end */
  int row;       /* the scan's state */
} TokenCounter;

/* Prepares c. */
void token_counter_init(TokenCounter *c);

/* Feeds n more bytes (a multi-byte character must not be split between two calls). */
void token_counter_feed(TokenCounter *c, const char *s, size_t n);

/* The estimate of what was fed, in thousandths of a token; c can be fed on. */
int64_t token_counter_milli(const TokenCounter *c);

/* Estimated tokens of n bytes of UTF-8 text (invalid bytes count as characters of another
 * script). Additive over lines: the estimate of a text is the sum of the estimates of its
 * lines, each with its '\n', so a cut made on a line boundary splits it exactly. s may be
 * NULL when n is 0. */
int64_t tokens_text(const char *s, size_t n);

/* The estimate before rounding, in thousandths of a token: exactly additive over pieces that
 * each end with '\n' (the line engine sums its lines with it). */
int64_t tokens_text_milli(const char *s, size_t n);

/* An upper bound of tokens_text_milli() of any n bytes, whatever they are: the most one byte
 * can add to the scan, times n, plus the most the end of a text adds. */
int64_t tokens_text_bound_milli(size_t n);

/* Whole tokens from thousandths, rounded up. */
int64_t tokens_from_milli(int64_t milli);

/* The same for a NUL-terminated string (NULL: 0). */
int64_t tokens_str(const char *s);

/* Anthropic's formula for a picture of width x height pixels as sent: w * h / 750, rounded
 * up; 0 when either side is not positive. */
int64_t tokens_image_anthropic(int width, int height);

/* OpenAI's formula for a picture as sent at detail `high`: scaled to fit 2048 x 2048, then
 * its short side to at most 768 px, then 85 + 170 per 512 px tile. At `low`: 85. */
int64_t tokens_image_openai(int width, int height, int low_detail);

/* Whose formula prices a picture: the provider an output format writes for. */
typedef enum {
  TOKENS_IMAGES_ANTHROPIC = 0, /* every format but openai and text */
  TOKENS_IMAGES_OPENAI,
  TOKENS_IMAGES_NONE, /* pictures are listed, not sent (text): they cost nothing */
} TokensImageFormula;

/* How one answer is priced: its format's picture formula and the detail asked for. */
typedef struct {
  TokensImageFormula images;
  bool low_detail; /* images.detail low (OpenAI's formula only) */
} TokensPricing;

/* The provider pictures are tiled for: the one whose formula prices them. */
static inline ImageTileTarget tokens_tile_target(const TokensPricing *p) {
  return p->images == TOKENS_IMAGES_OPENAI ? IMAGE_TILE_FOR_OPENAI : IMAGE_TILE_FOR_ANTHROPIC;
}

/* A picture of width x height pixels as sent, by p's formula. */
int64_t tokens_image(const TokensPricing *p, int width, int height);
