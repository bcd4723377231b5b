/* Fuzz target for the token estimator (formatters/tokens.c) against its first implementation
 * (tests/tokens-reference.c): any bytes, whole and fed in pieces cut where the input's own
 * bytes say (a multi-byte character may be split, which both must take alike), give the same
 * estimate to the thousandth after every piece. */
#include <stdint.h>

#include "formatters/tokens.h"
#include "tests/fuzz/fuzz.h"
#include "tests/tokens-reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  uint32_t state = 0x9E3779B9u ^ (uint32_t)size;
  TokenCounter c;
  RefCounter r;

  fuzz_assert(tokens_text_milli(s, size) == ref_text_milli(s, size));
  for (size_t i = 0; i < size && i < 8; i++)
    state = state * 31 + data[i] + 1;
  if (state == 0)
    state = 1;
  token_counter_init(&c);
  ref_counter_init(&r);
  for (size_t at = 0; at < size;) {
    size_t n = fuzz_piece(&state, 17, size - at);

    token_counter_feed(&c, s + at, n);
    ref_counter_feed(&r, s + at, n);
    fuzz_assert(token_counter_milli(&c) == ref_counter_milli(&r));
    at += n;
  }
  return 0;
}
