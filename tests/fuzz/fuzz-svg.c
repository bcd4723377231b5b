/* Fuzz target for SVG files: detection (image_is_svg, which decides whether `render: true` sees
 * a picture) and rendering with the worker's converter (image_convert with librsvg through
 * gdk-pixbuf's loader), in-process with a short CPU budget. Whatever the bytes, a conversion
 * either fails with one of its documented codes and a message, or gives a picture within the
 * size asked, whose base64 is what it says. Any broken invariant aborts. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "daemon/worker/child/image-convert.h"
#include "daemon/readers/image.h"
#include "tests/fuzz/fuzz.h"

#define MAX_DIM 256

static bool known_failure(int r) {
  return r == -EFBIG || r == -ENOMEM || r == -EBADMSG || r == -ENOTSUP || r == -ETIME || r == -EIO;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* An exact-size copy: a read past the end shows up under AddressSanitizer. */
  uint8_t *copy = g_memdup2(data, size);
  ImageConvertOptions opt = {
      .loader = "svg", .max_dimension = MAX_DIM, .vector = true, .cpu_budget_ms = 2000};
  ImageOut *list = NULL;
  size_t n_list = 0;
  bool animated = false;
  char *err = NULL;
  int r;

  (void)image_is_svg(copy, size);
  if (size > 64 * 1024 || !image_convert_has_loader("svg")) {
    g_free(copy);
    return 0;
  }
  r = image_convert(copy, size, &opt, &list, &n_list, &animated, &err);
  if (r < 0) {
    fuzz_assert(known_failure(r));
    fuzz_assert(err != NULL && *err != '\0');
    fuzz_assert(list == NULL && n_list == 0);
  } else {
    g_autofree guchar *bytes = NULL;
    gsize n = 0;
    ImageOut out;

    fuzz_assert(r == 0 && err == NULL);
    fuzz_assert(n_list == 1 && list[0].tile.count == 0); /* a vector image is never tiled */
    out = list[0];
    fuzz_assert(out.width >= 1 && out.height >= 1);
    fuzz_assert(MAX(out.width, out.height) <= MAX(MAX_DIM, IMAGE_SVG_MIN_EDGE));
    fuzz_assert(out.data != NULL && out.data_len == strlen(out.data));
    fuzz_assert(out.data_len <= IMAGE_MAX_BASE64);
    bytes = g_base64_decode(out.data, &n);
    fuzz_assert(n > 8 && (memcmp(bytes, "\x89PNG", 4) == 0 || memcmp(bytes, "\xff\xd8", 2) == 0));
  }
  image_out_list_free(list, n_list);
  g_free(err);
  g_free(copy);
  return 0;
}
