/* The image reader: pictures a model can take. Runs on a worker thread. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "daemon/detect.h"
#include "formatters/result.h"

#define IMAGE_MAX_FILE_BYTES ((int64_t)20 * 1024 * 1024) /* image files larger are refused */

typedef struct {
  int max_dimension; /* long edge in pixels */
} ImageOptions;

/* Reads the image file open at fd (kind k by signature, size from st) into res: type, one
 * ImageOut in res->images. `head` holds the first head_len bytes, already read, and fd is
 * positioned after them. Per-file failures are set in res. Returns 0 when the image was read,
 * else a negative errno-style value. */
int image_read(int fd, const struct stat *st, DetectKind k, const uint8_t *head, size_t head_len,
               const ImageOptions *opt, FileResult *res);
