#include "basic/utf8.h"

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
