/* Strict UTF-8 decoding: the one decoder the text reader, the formatters' escapers and PDF
 * passwords share. Pure. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Decodes the sequence at the start of p[0..n) (n >= 1) by the Unicode standard's table of
 * well-formed sequences (no overlong forms, no surrogates, nothing past U+10FFFF). Returns 1
 * when it is valid, with its length in *ret_len and its code point in *ret_cp (may be NULL);
 * 0 when the n bytes are the valid start of a longer sequence (*ret_len is n); -1 when it is
 * invalid, *ret_len then being the length of its maximal valid start (at least 1), which a
 * decoder replaces by one U+FFFD. */
int utf8_decode(const uint8_t *p, size_t n, uint32_t *ret_cp, size_t *ret_len);

/* Length of the longest prefix of p[0..n) made of whole, valid UTF-8 sequences (n when all of
 * it is): ASCII runs are skipped a block at a time (32 bytes with SSE2, 64 with AVX2 where the
 * CPU has it), every other sequence is utf8_decode()'s. */
size_t utf8_valid_prefix(const uint8_t *p, size_t n);
