/* Fuzz target for pdf_password_cut (daemon/worker/pdf-password.c, compiled in here: it is pure and
 * this target needs nothing else of the readers). The input is a password of any bytes; both
 * rules must keep a prefix within the input and within what the PDF standard reads, and the
 * padding rule's prefix must end on a character boundary when it keeps characters. Any broken
 * invariant aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "daemon/worker/pdf-password.c"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);

  if (nul != NULL)
    size = (size_t)(nul - data);
  /* A copy of exactly size bytes: a read past len shows up under AddressSanitizer. The
   * worker's passwords stop at their first NUL (they come as C strings). */
  char *pw = g_memdup2(data, size);
  size_t aes = pdf_password_cut(pw, size, PDF_PASSWORD_AES256);
  size_t padded = pdf_password_cut(pw, size, PDF_PASSWORD_PADDED);

  fuzz_assert(aes == MIN(size, (size_t)PDF_PASSWORD_AES256_MAX));
  fuzz_assert(padded <= size);
  fuzz_assert(padded >= MIN(size, (size_t)PDF_PASSWORD_PADDED_MAX));
  /* 32 characters of at most two bytes each (U+0080 to U+00FF). */
  fuzz_assert(padded <= 2 * PDF_PASSWORD_PADDED_MAX);
  if (padded > PDF_PASSWORD_PADDED_MAX) {
    fuzz_assert(g_utf8_validate(pw, (gssize)padded, NULL));
    fuzz_assert(g_utf8_strlen(pw, (gssize)padded) <= PDF_PASSWORD_PADDED_MAX);
  }
  g_free(pw);
  return 0;
}
