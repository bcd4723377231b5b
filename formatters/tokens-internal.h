/* The estimator's features and their weights: what tokens_text() counts, for the tests that
 * compare it with its reference (tests/tokens-reference.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "formatters/tokens.h"

typedef enum {
  TOKEN_F_WORD,   /* ASCII word pieces ("fooBar" is two) */
  TOKEN_F_DIGITS, /* groups of up to three digits */
  TOKEN_F_PUNCT,  /* runs of ASCII punctuation */
  TOKEN_F_PCHARS, /* punctuation characters past the first two of a run */
  TOKEN_F_JOIN,   /* punctuation characters that join the word after them ("(x", "_y") */
  TOKEN_F_SPACES, /* runs of spaces that join nothing, before punctuation or anything else */
  TOKEN_F_TABS,   /* tabs that join nothing */
  TOKEN_F_LINE,   /* line breaks that do not join the punctuation before them */
  TOKEN_F_CAPS,   /* capital letters of a word piece past its first two ("ADDPD", base64), but
                   * see TOKEN_F_CAPS_SPACED */
  TOKEN_F_CJK,    /* Han, kana, CJK punctuation and fullwidth forms */
  TOKEN_F_HANGUL, /* Hangul syllables and letters */
  TOKEN_F_OTHER,  /* other non-ASCII characters (Latin accents, Cyrillic, Greek, symbols) */
  TOKEN_F_CAPLOW, /* a small letter after two capitals or more in a word piece ("GVsb", "IHRlc"
                   * of base64, "HTTPServer"): the BPE splits there */
  TOKEN_F_CONS,   /* ASCII consonants that follow two others in a word ("dkvr" of base64, "VCLZB"
                   * of an assembler's mnemonics): the BPE splits letters without vowels finely */
  TOKEN_F_REPEAT, /* punctuation characters past the first two of a run that repeat the one
                   * before them, of the rule characters "-=*#_~+./" ("-----", "/////"): the BPE
                   * takes 32 or 64 of them in one token */
  TOKEN_F_SPACES_WORD,    /* runs of spaces before a word, less the last space that joins it
                           * ("a  b") */
  TOKEN_F_SPACES_DIGIT,   /* runs of spaces before digits (" 42") */
  TOKEN_F_JOIN_BACKSLASH, /* a backslash that joins the word after it ("\x", "\n") */
  TOKEN_F_CAPS_SPACED,    /* TOKEN_F_CAPS of a piece that a space joins (" SOFTWARE", English in
                           * capitals) */
  TOKEN_F_SPACES_DIGIT2,  /* a run of blanks before digits that ends with a space after another
                           * (" 1   2": the BPE takes its last space alone) */
  TOKEN_F_LONG, /* small letters of a word piece past its sixth ("archrelocvariant": the BPE
                 * splits long compounds) */
  TOKEN_F_COUNT,
} TokenFeature;

/* What each feature costs, in thousandths of a token (tokens.c fitted them). */
extern const int64_t tokens_weight_milli[TOKEN_F_COUNT];
