/* Image dimensions from the header bytes alone, without decoding. Pure. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/detect.h"

/* Reads width and height of an image of kind k from its first n bytes (a JPEG may need
 * everything up to its frame header). Returns 0, or -EINVAL when the header is missing,
 * cut short or claims a zero size; -ENOTSUP for kinds it does not parse. */
int image_header_size(DetectKind k, const uint8_t *data, size_t n, int *ret_width, int *ret_height);
