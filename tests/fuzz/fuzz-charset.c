/* Fuzz target for the legacy character sets: the guesser (daemon/readers/charset.c) and the
 * text reader's iconv transcoding of what it names (daemon/readers/text.c). The input is a
 * header byte (where the head ends) and then a file's bytes.
 *
 * Whatever the bytes: a guess names a set iconv opens; the whole file read as its head gives
 * valid UTF-8 or refuses it as binary, and names the guessed set when it names a legacy one;
 * and when the file is read with a shorter head that leads to the same set, the rest streamed
 * from a descriptor, the text is the same: characters cut between head and stream, shift
 * states of ISO-2022 and bad sequences (each one U+FFFD) do not depend on where reads end. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/readers/charset.h"
#include "daemon/readers/text.h"
#include "formatters/result.h"
#include "tests/fuzz/fuzz.h"

static int read_text(const uint8_t *data, size_t size, size_t head, FileResult *res) {
  TextOptions opt = {.offset = 1, .limit = INT64_MAX, .line_numbers = false};
  int fd = fuzz_bytes_fd("fuzz-charset", data + head, size - head), r;

  fuzz_assert(fd >= 0);
  memset(res, 0, sizeof *res);
  r = text_read(fd, data, head, head == size, &opt, res);
  close(fd);
  fuzz_assert((r == 0) == (res->code == NULL));
  if (r == 0) {
    fuzz_assert(res->encoding != NULL);
    fuzz_assert(res->content != NULL && strlen(res->content) == res->content_len);
    fuzz_assert(g_utf8_validate(res->content, (gssize)res->content_len, NULL));
  } else {
    fuzz_assert(strcmp(res->code, CODE_UNSUPPORTED_FORMAT) == 0);
  }
  return r;
}

/* The names only a guess gives (libmagic names none of them). */
static bool is_legacy(const char *name) {
  static const char *const names[] = {"shift_jis",   "euc-jp",       "iso-2022-jp", "gb18030",
                                      "big5",        "euc-kr",       "koi8-r",      "windows-1251",
                                      "ibm866",      "iso-8859-5",   "euc-tw",      "iso-2022-kr",
                                      "iso-2022-cn", "windows-1250", "iso-8859-2",  "windows-1253"};

  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(name, names[i]) == 0)
      return true;
  return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FileResult whole, part;
  Charset cs;
  size_t head;
  int g, r;

  if (size < 1)
    return 0;
  head = data[0];
  data++;
  size--;
  head = MIN(head, size);

  g = charset_guess(data, size, true, &cs);
  fuzz_assert(g == 0 || g == -ENOENT);
  if (g == 0) {
    GIConv cd = g_iconv_open("UTF-8", cs.iconv);

    fuzz_assert(cs.name != NULL && cd != (GIConv)-1);
    g_iconv_close(cd);
  }

  r = read_text(data, size, size, &whole);
  /* A legacy name comes from the guess, and only from it. */
  if (r == 0 && is_legacy(whole.encoding))
    fuzz_assert(g == 0 && strcmp(whole.encoding, cs.name) == 0);

  if (head < size && read_text(data, size, head, &part) == 0 && r == 0 &&
      is_legacy(whole.encoding) && strcmp(part.encoding, whole.encoding) == 0) {
    fuzz_assert(part.lines == whole.lines);
    fuzz_assert(strcmp(part.content, whole.content) == 0);
  }
  if (head < size)
    file_result_clear(&part);
  file_result_clear(&whole);
  return 0;
}
