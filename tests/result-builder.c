#include "tests/result-builder.h"

#include <string.h>

#include <glib.h>

FileResult *rb_add_file_len(ReadResult *r, const char *path, size_t path_len) {
  FileResult *f;

  r->files = g_renew(FileResult, r->files, r->n_files + 1);
  f = &r->files[r->n_files++];
  memset(f, 0, sizeof(*f));
  f->path = g_strndup(path, path_len);
  f->bytes = -1;
  f->modified_ms = RESULT_TIME_UNKNOWN;
  return f;
}

FileResult *rb_add_file(ReadResult *r, const char *path) {
  return rb_add_file_len(r, path, strlen(path));
}

FileResult *rb_add_failed(ReadResult *r, const char *path, const char *code, const char *msg) {
  FileResult *f = rb_add_file(r, path);

  file_result_fail(f, code, "%s", msg);
  return f;
}

ImageOut *rb_add_image_out(FileResult *f, const char *media_type, const char *data, int w, int h) {
  ImageOut *img = file_result_add_image(f);

  img->media_type = g_strdup(media_type);
  img->data = g_strdup(data);
  img->data_len = strlen(data);
  img->width = w;
  img->height = h;
  return img;
}
