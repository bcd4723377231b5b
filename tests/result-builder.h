/* Building ReadResults by hand for the formatter tests. */
#pragma once

#include <stddef.h>

#include "formatters/result.h"

/* Appends a file with path[0..path_len) (any bytes), unknown size and time. */
FileResult *rb_add_file_len(ReadResult *r, const char *path, size_t path_len);

/* rb_add_file_len() of a C string. */
FileResult *rb_add_file(ReadResult *r, const char *path);

/* Appends a file that failed with code and message. */
FileResult *rb_add_failed(ReadResult *r, const char *path, const char *code, const char *msg);

/* Adds a picture (copies of media_type and data) to f. */
ImageOut *rb_add_image_out(FileResult *f, const char *media_type, const char *data, int w, int h);
