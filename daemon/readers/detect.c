#include "daemon/readers/detect.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <magic.h>

#include "daemon/readers/kinds.h"
#include "daemon/readers/office.h"

#define PDF_SEARCH 1024 /* "%PDF-" may follow some junk, as readers accept */

/* This thread's libmagic state: a handle, or the error that prevented one. */
typedef struct {
  magic_t magic;
  int error; /* negative errno when magic_open/magic_load failed; not retried */
} DetectMagic;

static pthread_key_t magic_key;
static pthread_once_t magic_key_once = PTHREAD_ONCE_INIT;
static int magic_key_error;

static uint16_t le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool starts_with(const uint8_t *head, size_t n, const char *sig, size_t len) {
  return n >= len && memcmp(head, sig, len) == 0;
}

/* "BM" alone is a common word start: require a known DIB header size after the 14-byte file
 * header, and pixel data placed after both headers. */
static bool is_bmp(const uint8_t *head, size_t n) {
  static const uint32_t dib_sizes[] = {12, 16, 40, 52, 56, 64, 108, 124};
  uint32_t dib, data;

  if (!starts_with(head, n, "BM", 2) || n < 18)
    return false;
  dib = le32(head + 14);
  data = le32(head + 10);
  for (size_t i = 0; i < G_N_ELEMENTS(dib_sizes); i++)
    if (dib == dib_sizes[i])
      return data >= 14 + dib;
  return false;
}

/* "%PDF-" at the start, or (as PDF readers accept) after some junk within the first KiB; there
 * it must start a line and name a version, so that a source file that merely mentions the
 * header near its top stays text. */
static bool is_pdf(const uint8_t *head, size_t n) {
  size_t lim = n < PDF_SEARCH ? n : PDF_SEARCH;
  const uint8_t *p = head, *end = head + lim;

  if (starts_with(head, n, "%PDF-", 5))
    return true;
  /* Each '%' looked at (memchr), rare in a text's first KiB: memmem sets a table up for
   * every call, which costs more than the search on every text file read. */
  while ((p = memchr(p, '%', (size_t)(end - p))) != NULL) {
    size_t at = (size_t)(p - head);

    if ((size_t)(end - p) >= 5 && memcmp(p, "%PDF-", 5) == 0 && at > 0 &&
        (head[at - 1] == '\n' || head[at - 1] == '\r' || head[at - 1] == '\0') && at + 7 <= n &&
        (p[5] == '1' || p[5] == '2') && p[6] == '.')
      return true;
    p++;
  }
  return false;
}

DetectKind detect_magic(const uint8_t *head, size_t n) {
  if (head == NULL)
    return DETECT_UNKNOWN;
  if (starts_with(head, n, "\x89PNG\r\n\x1a\n", 8))
    return DETECT_PNG;
  if (starts_with(head, n, "\xFF\xD8\xFF", 3))
    return DETECT_JPEG;
  if (starts_with(head, n, "GIF87a", 6) || starts_with(head, n, "GIF89a", 6))
    return DETECT_GIF;
  if (n >= 12 && memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "WEBP", 4) == 0)
    return DETECT_WEBP;
  if (starts_with(head, n, "II*\0", 4) || starts_with(head, n, "MM\0*", 4))
    return DETECT_TIFF;
  if (starts_with(head, n, "\0\0\1\0", 4) && n >= 6 && le16(head + 4) > 0)
    return DETECT_ICO;
  if (is_bmp(head, n))
    return DETECT_BMP;
  if (is_pdf(head, n))
    return DETECT_PDF;
  /* Office Open XML by the names of its first zip entries; any other zip stays unknown (the
   * text reader calls it binary). */
  switch (starts_with(head, n, "PK\3\4", 4) ? office_sniff(head, n) : OFFICE_NONE) {
  case OFFICE_DOCX:
    return DETECT_DOCX;
  case OFFICE_XLSX:
    return DETECT_XLSX;
  case OFFICE_PPTX:
    return DETECT_PPTX;
  case OFFICE_NONE:
  default:
    return DETECT_UNKNOWN;
  }
}

const char *detect_media_type(DetectKind k) {
  const Kind *row = kinds_by_magic(k);

  return row != NULL ? row->media_type : NULL;
}

bool detect_is_office(DetectKind k) {
  const Kind *row = kinds_by_magic(k);

  return row != NULL && row->type == FILE_TYPE_DOCUMENT;
}

bool detect_is_web_image(DetectKind k) {
  const Kind *row = kinds_by_magic(k);

  return row != NULL && row->web;
}

static void magic_state_free(void *p) {
  DetectMagic *st = p;

  if (st == NULL)
    return;
  if (st->magic != NULL)
    magic_close(st->magic);
  free(st);
}

static void magic_key_create(void) {
  magic_key_error = -pthread_key_create(&magic_key, magic_state_free);
}

/* Opens a handle and loads the default database. Returns 0 or a negative errno. */
static int magic_state_load(DetectMagic *st) {
  int err;

  st->magic = magic_open(MAGIC_MIME_TYPE);
  if (st->magic == NULL)
    return errno > 0 ? -errno : -ENOMEM;
  if (magic_load(st->magic, NULL) == 0)
    return 0;
  err = magic_errno(st->magic);
  magic_close(st->magic);
  st->magic = NULL;
  return err > 0 ? -err : -ENOENT;
}

/* This thread's handle, created on first use. Returns 0 or a negative errno. */
static int thread_magic(magic_t *ret) {
  DetectMagic *st;

  pthread_once(&magic_key_once, magic_key_create);
  if (magic_key_error < 0)
    return magic_key_error;
  st = pthread_getspecific(magic_key);
  if (st == NULL) {
    st = calloc(1, sizeof *st);
    if (st == NULL)
      return -ENOMEM;
    st->error = magic_state_load(st);
    if (pthread_setspecific(magic_key, st) != 0) {
      magic_state_free(st);
      return -ENOMEM;
    }
  }
  if (st->error < 0)
    return st->error;
  *ret = st->magic;
  return 0;
}

/* One libmagic query with the given flags; the answer is copied into buf, or `fallback`. */
static int magic_query(int flags, const uint8_t *head, size_t n, char *buf, size_t size,
                       const char *fallback) {
  magic_t m = NULL;
  const char *s = NULL;
  int r = thread_magic(&m);

  /* Decompressing or unpacking archives is not wanted here (and libmagic may fork for it). */
  if (r == 0 && magic_setflags(m, flags | MAGIC_NO_CHECK_COMPRESS) < 0)
    r = -EINVAL;
  if (r == 0) {
    s = magic_buffer(m, head, n);
    if (s == NULL)
      r = magic_errno(m) > 0 ? -magic_errno(m) : -EIO;
  }
  if (buf != NULL && size > 0)
    g_strlcpy(buf, s != NULL ? s : fallback, size);
  return r;
}

int detect_mime(const uint8_t *head, size_t n, char *buf, size_t size) {
  return magic_query(MAGIC_MIME_TYPE, head, n, buf, size, "application/octet-stream");
}

int detect_charset(const uint8_t *head, size_t n, char *buf, size_t size) {
  /* The character set comes from libmagic's text tests alone; skipping the content tests
   * gives the same answer more than ten times faster on a 64 KiB head. */
  int flags = MAGIC_MIME_ENCODING | MAGIC_NO_CHECK_SOFT | MAGIC_NO_CHECK_TAR |
              MAGIC_NO_CHECK_APPTYPE | MAGIC_NO_CHECK_ELF | MAGIC_NO_CHECK_CDF |
              MAGIC_NO_CHECK_JSON | MAGIC_NO_CHECK_CSV;

  return magic_query(flags, head, n, buf, size, "unknown");
}

void detect_thread_cleanup(void) {
  DetectMagic *st;

  pthread_once(&magic_key_once, magic_key_create);
  if (magic_key_error < 0)
    return;
  st = pthread_getspecific(magic_key);
  if (st == NULL)
    return;
  /* Setting a key this thread already set cannot fail. */
  (void)pthread_setspecific(magic_key, NULL);
  magic_state_free(st);
}
