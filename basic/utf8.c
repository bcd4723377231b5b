#include "basic/utf8.h"

#include <stdbool.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

int utf8_decode(const uint8_t *p, size_t n, uint32_t *ret_cp, size_t *ret_len) {
  uint8_t b = p[0], lo = 0x80, hi = 0xBF;
  uint32_t cp;
  size_t len;

  if (b < 0x80) {
    *ret_len = 1;
    if (ret_cp != NULL)
      *ret_cp = b;
    return 1;
  }
  /* The second byte's range depends on the lead byte: that is what rules out overlong forms,
   * surrogates (U+D800-U+DFFF) and anything above U+10FFFF. */
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    cp = b & 0x0F;
    lo = b == 0xE0 ? 0xA0 : 0x80;
    hi = b == 0xED ? 0x9F : 0xBF;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    cp = b & 0x07;
    lo = b == 0xF0 ? 0x90 : 0x80;
    hi = b == 0xF4 ? 0x8F : 0xBF;
  } else {
    *ret_len = 1;
    return -1;
  }
  for (size_t i = 1; i < len; i++) {
    *ret_len = i;
    if (i >= n)
      return 0;
    if (p[i] < lo || p[i] > hi)
      return -1;
    cp = (cp << 6) | (p[i] & 0x3F);
    lo = 0x80;
    hi = 0xBF;
  }
  *ret_len = len;
  if (ret_cp != NULL)
    *ret_cp = cp;
  return 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ASCII_AVX2 1

/* The bytes from p that are ASCII, counted 64 at a time on a CPU with AVX2 (a multiple of 64
 * at most n: the caller looks at the rest). */
static __attribute__((target("avx2"))) size_t ascii_run_avx2(const uint8_t *p, size_t n) {
  size_t i = 0;

  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 32));

    if (_mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0)
      break;
  }
  return i;
}
#endif

/* See utf8.h. */
size_t utf8_valid_prefix(const uint8_t *p, size_t n) {
  size_t i = 0, len;
#ifdef ASCII_AVX2
  const bool avx2 = __builtin_cpu_supports("avx2");
#endif

  while (i < n) {
#ifdef ASCII_AVX2
    if (avx2)
      i += ascii_run_avx2(p + i, n - i);
#endif
#ifdef __SSE2__
    /* ASCII runs 32 bytes at a time (the sign bits of two blocks), then eight. */
    while (i + 32 <= n) {
      __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16));

      if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0)
        break;
      i += 32;
    }
#endif
    while (i + 8 <= n) {
      uint64_t w;

      memcpy(&w, p + i, sizeof w);
      if (w & UINT64_C(0x8080808080808080))
        break;
      i += 8;
    }
    while (i < n && p[i] < 0x80)
      i++;
    if (i >= n || utf8_decode(p + i, n - i, NULL, &len) != 1)
      break;
    i += len;
  }
  return i;
}
