#include "daemon/worker/pdf-password.h"

#include <errno.h>
#include <stdint.h>

#include "basic/utf8.h"

/* The code point of the UTF-8 character at p[0..left), its length in *ret_n; -EILSEQ when it
 * is not a valid, shortest-form character that fits (basic/utf8.h decides). */
static int32_t utf8_char(const unsigned char *p, size_t left, size_t *ret_n) {
  uint32_t c;

  if (utf8_decode(p, left, &c, ret_n) != 1)
    return -EILSEQ;
  return (int32_t)c;
}

/* Bytes of the first 32 characters when they all become one Latin-1 byte; 0 when not. */
static size_t latin1_prefix(const unsigned char *p, size_t len) {
  size_t at = 0;

  for (int chars = 0; chars < PDF_PASSWORD_PADDED_MAX && at < len; chars++) {
    size_t n = 0;
    int32_t c = utf8_char(p + at, len - at, &n);

    if (c < 0 || c > 0xFF)
      return 0;
    at += n;
  }
  return at;
}

/* Leading bytes a rule keeps of a password; see pdf-password.h. */
size_t pdf_password_cut(const char *pw, size_t len, PdfPasswordRule rule) {
  size_t latin1;

  if (rule == PDF_PASSWORD_AES256)
    return len < PDF_PASSWORD_AES256_MAX ? len : PDF_PASSWORD_AES256_MAX;
  if (len <= PDF_PASSWORD_PADDED_MAX)
    return len;
  latin1 = latin1_prefix((const unsigned char *)pw, len);
  return latin1 > 0 ? latin1 : PDF_PASSWORD_PADDED_MAX;
}
