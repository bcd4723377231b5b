/* Fuzz target for result_json_escape (formatters/result-json.c): every path this machine has
 * (byte by byte, SSE2, SSSE3, AVX2) must write the same bytes as the byte-by-byte one, and what
 * they write must be the inside of a JSON string: valid UTF-8, no raw control byte, no quote
 * that is not escaped. The first byte of the input sets how much room the string has at first
 * (where the escaper's steps end); the rest is escaped, from an allocation of exactly its size,
 * so that a read past it shows up under AddressSanitizer. Any difference aborts. */
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "formatters/result-json.h"
#include "tests/fuzz/fuzz.h"

/* Checks that s[0..len) is the inside of a JSON string. */
static void check_json_inside(const char *s, size_t len) {
  fuzz_assert(g_utf8_validate(s, (gssize)len, NULL));
  for (size_t i = 0; i < len; i++) {
    fuzz_assert((unsigned char)s[i] >= 0x20);
    fuzz_assert(s[i] != '"');
    if (s[i] == '\\') {
      fuzz_assert(i + 1 < len && strchr("\"\\bfnrtu", s[i + 1]) != NULL);
      i++;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const ResultJsonEscapePath paths[] = {RESULT_JSON_ESCAPE_BEST, RESULT_JSON_ESCAPE_SSE2,
                                               RESULT_JSON_ESCAPE_SSSE3, RESULT_JSON_ESCAPE_AVX2};
  size_t alloc = size > 0 ? (size_t)data[0] * 16 : 0;
  char *s = size > 1 ? g_memdup2(data + 1, size - 1) : NULL;
  size_t len = size > 1 ? size - 1 : 0;
  GString *want = g_string_sized_new(alloc);

  fuzz_assert(result_json_escape_with(want, s, len, RESULT_JSON_ESCAPE_SCALAR));
  check_json_inside(want->str, want->len);
  for (size_t p = 0; p < G_N_ELEMENTS(paths); p++) {
    GString *out = g_string_sized_new(alloc);

    if (result_json_escape_with(out, s, len, paths[p])) {
      fuzz_assert(out->len == want->len);
      fuzz_assert(memcmp(out->str, want->str, want->len) == 0);
    }
    g_string_free(out, TRUE);
  }
  g_string_free(want, TRUE);
  g_free(s);
  return 0;
}
