/* Fuzz target for the image header reader (daemon/readers/image-header.c): the input is an image file.
 *
 * Every parser runs on every input, whatever its signature says (a PNG parser handed a GIF is
 * hostile input too): sizes of every kind, the whole-file walk, the JPEG EXIF orientation, the
 * ICO directory and the PNG data check. What they answer must hold together: positive sizes,
 * an orientation of 0 to 8, at least one frame (none only in a GIF cut short), offsets inside the
 * file, and the same size from the quick reader and the walk. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/detect.h"
#include "daemon/readers/image-header.h"
#include "tests/fuzz/fuzz.h"

static const DetectKind KINDS[] = {DETECT_PNG,  DETECT_JPEG, DETECT_GIF, DETECT_WEBP,   DETECT_BMP,
                                   DETECT_TIFF, DETECT_ICO,  DETECT_PDF, DETECT_UNKNOWN};

static void check_kind(DetectKind k, const uint8_t *data, size_t size) {
  int w = -1, h = -1, r;
  ImageHeaderInfo info;

  r = image_header_size(k, data, size, &w, &h);
  fuzz_assert(r == 0 || r == -EINVAL || r == -ENOTSUP);
  if (r == 0)
    fuzz_assert(w >= 1 && h >= 1);
  else
    w = h = -1;

  memset(&info, 0xA5, sizeof info);
  r = image_header_info(k, data, size, &info);
  fuzz_assert(r == 0 || r == -EINVAL || r == -ENOTSUP);
  if (r != 0)
    return;
  fuzz_assert(info.width >= 1 && info.height >= 1);
  fuzz_assert(info.orientation >= 0 && info.orientation <= 8);
  fuzz_assert(info.frames >= 1 || (k == DETECT_GIF && info.frames == 0 && !info.complete));
  fuzz_assert(info.first_frame_end <= size);
  if (w != -1)
    fuzz_assert(info.width == w && info.height == h);
  if (k == DETECT_PNG && info.complete) {
    r = image_header_png_data_check(data, size);
    fuzz_assert(r == 0 || r == -EINVAL || r == -ENOMEM);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DetectKind k = detect_magic(data, size);
  size_t offset = SIZE_MAX, len = SIZE_MAX;
  bool png = false;
  int o, r;

  for (size_t i = 0; i < G_N_ELEMENTS(KINDS); i++)
    check_kind(KINDS[i], data, size);

  o = image_header_jpeg_orientation(data, size);
  fuzz_assert(o >= 0 && o <= 8);

  r = image_header_ico_pick(data, size, &offset, &len, &png);
  fuzz_assert(r == 0 || r == -EINVAL);
  if (r == 0) {
    fuzz_assert(offset <= size && len <= size - offset);
    /* The picture inside is hostile input of its own. */
    if (png)
      check_kind(DETECT_PNG, data + offset, len);
  }
  fuzz_assert(k >= DETECT_UNKNOWN && k <= DETECT_ICO);
  return 0;
}
