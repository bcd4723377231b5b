/* Fuzz target for the text reader's decoders (daemon/readers/text.c): the input is a header of two
 * bytes and then a file's bytes.
 *
 * Header bytes: where the head ends (the part the caller has already read; the rest streams
 * from a file descriptor, so that characters cut between head and stream are exercised), and
 * the options (offset, limit, line numbers). Whatever the bytes, the reader must either show
 * valid UTF-8 text or refuse the file as binary: a text file never fails to convert, every
 * undecodable unit shows as U+FFFD. The last `limit` lines read as a tail, found from the end of
 * the file, must be the lines a forward read of them shows, and a window from a column must be
 * valid text too. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/readers/text.h"
#include "formatters/result.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_HEADER 2

/* The head length from its header byte: small cuts near the start (inside a byte-order mark
 * or the first characters), else the whole input. */
static size_t head_len(uint8_t b, size_t size) {
  if (b < 64)
    return MIN((size_t)b, size);
  if (b < 128)
    return size - MIN((size_t)(b - 64), size);
  return size;
}

/* Reads data as a file whose first `head` bytes the caller has read (all of them, and knows it,
 * when eof), checking what every answer must be. Returns text_read's answer. */
static int read_text(const uint8_t *data, size_t size, size_t head, bool eof,
                     const TextOptions *opt, FileResult *res) {
  int fd = fuzz_bytes_fd("fuzz-text", data + head, size - head), r;

  fuzz_assert(fd >= 0);
  memset(res, 0, sizeof *res);
  r = text_read(fd, data, head, eof, opt, res);
  close(fd);

  fuzz_assert((r == 0) == (res->code == NULL));
  if (r == 0) {
    fuzz_assert(res->type == FILE_TYPE_TEXT);
    fuzz_assert(res->encoding != NULL);
    fuzz_assert(res->content != NULL && strlen(res->content) == res->content_len);
    fuzz_assert(g_utf8_validate(res->content, (gssize)res->content_len, NULL));
    fuzz_assert(res->lines >= 0);
  } else {
    fuzz_assert(res->error != NULL);
    fuzz_assert(strcmp(res->code, CODE_UNSUPPORTED_FORMAT) == 0);
  }
  return r;
}

/* The iconv name of a UTF-16 or UTF-32 byte-order mark at p, and its length; NULL for none. */
static const char *wide_bom(const uint8_t *p, size_t n, size_t *ret_len) {
  *ret_len = 4;
  if (n >= 4 && memcmp(p, "\xFF\xFE\0\0", 4) == 0)
    return "UTF-32LE";
  if (n >= 4 && memcmp(p, "\0\0\xFE\xFF", 4) == 0)
    return "UTF-32BE";
  *ret_len = 2;
  if (n >= 2 && memcmp(p, "\xFF\xFE", 2) == 0)
    return "UTF-16LE";
  if (n >= 2 && memcmp(p, "\xFE\xFF", 2) == 0)
    return "UTF-16BE";
  return NULL;
}

/* UTF-16 or UTF-32 that iconv converts whole (no bad unit) reads as the same text in UTF-8. */
static void check_as_utf8(const uint8_t *data, size_t size, const TextOptions *opt,
                          const FileResult *res) {
  size_t bom;
  const char *from = wide_bom(data, size, &bom);
  g_autofree char *utf8 = NULL;
  g_autofree uint8_t *again = NULL;
  gsize len = 0;
  FileResult other;

  if (from == NULL)
    return;
  utf8 = g_convert((const char *)data + bom, (gssize)(size - bom), "UTF-8", from, NULL, &len, NULL);
  if (utf8 == NULL || memchr(utf8, '\0', len) != NULL)
    return;
  again = g_malloc(len + 3);
  memcpy(again, "\xEF\xBB\xBF", 3);
  memcpy(again + 3, utf8, len);
  fuzz_assert(read_text(again, len + 3, len + 3, true, opt, &other) == 0);
  fuzz_assert(res->code == NULL);
  fuzz_assert(res->lines == other.lines);
  fuzz_assert(strcmp(res->content, other.content) == 0);
  file_result_clear(&other);
}

/* The last opt->limit lines as a tail (the file whole behind the descriptor, as the tail reader
 * reads it from its end) show what a forward read of the same lines does, with the true line
 * count; and the first line of the window from a column is valid text. */
static void check_tail(const uint8_t *data, size_t size, size_t head, bool eof,
                       const TextOptions *opt, const FileResult *res) {
  TextOptions o = *opt;
  FileResult tail, fwd;
  int fd = fuzz_bytes_fd("fuzz-text", data, size);
  int r;

  fuzz_assert(fd >= 0);
  lseek(fd, (off_t)head, SEEK_SET);
  memset(&tail, 0, sizeof tail);
  o.tail = opt->limit;
  r = text_read(fd, data, head, eof, &o, &tail);
  close(fd);
  o.tail = 0;
  o.offset = MAX(res->lines - opt->limit + 1, 1);
  o.column = 1 + (size % 7);
  /* A NUL byte before the tail is not seen by it: only a tail that was read is compared. */
  if (r == 0 && read_text(data, size, head, eof, &o, &fwd) == 0) {
    fuzz_assert(tail.lines == res->lines);
    fuzz_assert(tail.shown_first == fwd.shown_first && tail.shown_last == fwd.shown_last);
    if (o.column == 1)
      fuzz_assert(strcmp(tail.content, fwd.content) == 0);
    file_result_clear(&fwd);
  }
  file_result_clear(&tail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TextOptions opt = {0};
  FileResult res, whole;
  size_t head, bom;
  bool eof;
  int r;

  if (size < FUZZ_HEADER)
    return 0;
  opt.offset = 1 + (data[1] & 7);
  opt.limit = 1 + ((data[1] >> 3) & 15) * 4;
  opt.line_numbers = data[1] >> 7;
  head = head_len(data[0], size - FUZZ_HEADER);
  /* Cuts from the end may leave the whole file in the head without the caller knowing it is
   * the end, as with a file of exactly the head's size. */
  eof = head == size - FUZZ_HEADER && (data[0] < 64 || data[0] >= 128);
  data += FUZZ_HEADER;
  size -= FUZZ_HEADER;

  r = read_text(data, size, head, eof, &opt, &res);
  /* With its byte-order mark in the head, a file decodes the same wherever the head ends:
   * characters cut between head and stream are carried over whole. */
  if (head >= 4 && !eof &&
      (memcmp(data, "\xEF\xBB\xBF", 3) == 0 || wide_bom(data, size, &bom) != NULL)) {
    fuzz_assert(read_text(data, size, size, true, &opt, &whole) == r);
    if (r == 0) {
      fuzz_assert(strcmp(res.encoding, whole.encoding) == 0);
      fuzz_assert(res.lines == whole.lines);
      fuzz_assert(strcmp(res.content, whole.content) == 0);
    }
    file_result_clear(&whole);
  }
  if (eof)
    check_as_utf8(data, size, &opt, &res);
  if (r == 0)
    check_tail(data, size, head, eof, &opt, &res);
  file_result_clear(&res);
  return 0;
}
