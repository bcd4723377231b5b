/* Fuzz target for the text reader's decoders (daemon/text.c): the input is a header of two
 * bytes and then a file's bytes.
 *
 * Header bytes: where the head ends (the part the caller has already read; the rest streams
 * from a file descriptor, so that characters cut between head and stream are exercised), and
 * the options (offset, limit, line numbers). Whatever the bytes, the reader must either show
 * valid UTF-8 text or refuse the file as binary: a text file never fails to convert, every
 * undecodable unit shows as U+FFFD. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/text.h"
#include "formatters/result.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_HEADER 2

/* A descriptor reading the given bytes from the start, or -1. */
static int bytes_fd(const uint8_t *data, size_t size) {
  int fd = memfd_create("fuzz-text", MFD_CLOEXEC);

  if (fd < 0)
    return -1;
  if (size > 0 && write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return -1;
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

/* The head length from its header byte: small cuts near the start (inside a byte-order mark
 * or the first characters), else the whole input. */
static size_t head_len(uint8_t b, size_t size) {
  if (b < 64)
    return MIN((size_t)b, size);
  if (b < 128)
    return size - MIN((size_t)(b - 64), size);
  return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TextOptions opt = {0};
  FileResult res;
  size_t head;
  int fd, r;

  if (size < FUZZ_HEADER)
    return 0;
  opt.offset = 1 + (data[1] & 7);
  opt.limit = 1 + ((data[1] >> 3) & 15) * 4;
  opt.line_numbers = data[1] >> 7;
  head = head_len(data[0], size - FUZZ_HEADER);
  data += FUZZ_HEADER;
  size -= FUZZ_HEADER;

  fd = bytes_fd(data + head, size - head);
  fuzz_assert(fd >= 0);
  memset(&res, 0, sizeof res);
  r = text_read(fd, data, head, head == size, &opt, &res);
  close(fd);

  fuzz_assert((r == 0) == (res.code == NULL));
  if (r == 0) {
    fuzz_assert(res.type == FILE_TYPE_TEXT);
    fuzz_assert(res.encoding != NULL);
    fuzz_assert(res.content != NULL && strlen(res.content) == res.content_len);
    fuzz_assert(g_utf8_validate(res.content, (gssize)res.content_len, NULL));
    fuzz_assert(res.lines >= 0);
  } else {
    fuzz_assert(res.error != NULL);
    fuzz_assert(strcmp(res.code, CODE_UNSUPPORTED_FORMAT) == 0);
  }
  file_result_clear(&res);
  return 0;
}
