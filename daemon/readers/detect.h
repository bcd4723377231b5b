/* What a file is, by content: magic bytes first (fast, exact), libmagic for the rest.
 * Called on worker threads: libmagic handles are per thread (see detect_thread_magic). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  DETECT_UNKNOWN = 0, /* no signature: maybe text, decided by the text reader */
  DETECT_PNG,
  DETECT_JPEG,
  DETECT_GIF,
  DETECT_WEBP,
  DETECT_PDF,
  DETECT_BMP,
  DETECT_TIFF,
  DETECT_ICO,
  DETECT_DOCX, /* a zip whose first entries are [Content_Types].xml and word/ parts */
  DETECT_XLSX, /* ... xl/ parts */
  DETECT_PPTX, /* ... ppt/ parts */
} DetectKind;

/* Classifies the first n bytes of a file by signature alone. Pure. */
DetectKind detect_magic(const uint8_t *head, size_t n);

/* The media type of a signature kind ("image/png", "application/pdf"), NULL for UNKNOWN: its
 * row's in the table of kinds (kinds.h). */
const char *detect_media_type(DetectKind k);

/* True for the office documents (DOCX, XLSX, PPTX). */
bool detect_is_office(DetectKind k);

/* True for the kinds sent to the model as they are (PNG, JPEG, GIF, WebP): its row says so. */
bool detect_is_web_image(DetectKind k);

/* libmagic's MIME type of a buffer ("application/zip"), written into buf (NUL-terminated,
 * cut to size). Uses this thread's libmagic handle, created on first use. Returns 0, or a
 * negative errno when libmagic is not usable (buf then holds "application/octet-stream"). */
int detect_mime(const uint8_t *head, size_t n, char *buf, size_t size);

/* libmagic's guess of the character set of a buffer that is not valid UTF-8: "iso-8859-1",
 * "unknown-8bit", "utf-16le", "ebcdic", "binary"... written into buf like detect_mime. */
int detect_charset(const uint8_t *head, size_t n, char *buf, size_t size);

/* Closes this thread's libmagic handle, if any. Safe to call on any thread, any number of times. */
void detect_thread_cleanup(void);
