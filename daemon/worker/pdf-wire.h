/* The records readerd and its worker process (pdf-worker.h: PDFs, and pictures to convert)
 * exchange over a socket: an 8-byte header (tag, payload length, both 32-bit little-endian)
 * and the payload. Building records into a GByteArray and cutting them out of a buffer is
 * pure; only pdf_wire_write_all() does I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>

#define PDF_WIRE_HEADER 8
#define PDF_WIRE_MAX_PAYLOAD ((size_t)64 * 1024 * 1024) /* a longer record is a broken stream */

typedef enum {
  /* readerd -> worker, one request: these records in any order, then PDF_REQ_END */
  PDF_REQ_PAGES = 1,    /* selection string; absent: the default window */
  PDF_REQ_PASSWORD,     /* bytes */
  PDF_REQ_RENDER,       /* u32 0/1: render every page shown */
  PDF_REQ_MAX_DIM,      /* u32: long edge of rendered pages, pixels */
  PDF_REQ_BUDGET_MS,    /* u32: the time budget, for the worker's own CPU limit */
  PDF_REQ_IMAGE_BUDGET, /* u32: base64 bytes of all pictures at most; 0: no pictures */
  PDF_REQ_END,          /* the request is complete; the PDF's descriptor came with it */
  PDF_REQ_FILE_ID = 24, /* PdfFileId (pdf-file-id.h): the PDF's identity, for the worker's cache */

  /* worker -> readerd */
  PDF_RES_DOC = 32,   /* u32 page count: the document opened */
  PDF_RES_TITLE,      /* UTF-8 */
  PDF_RES_AUTHOR,     /* UTF-8 */
  PDF_RES_OUTLINE,    /* UTF-8 */
  PDF_RES_PAGE_START, /* u32 page number: work on that page begins */
  PDF_RES_PAGE_TEXT,  /* UTF-8 text of the page begun */
  PDF_RES_PAGE_IMAGE, /* u32 width, u32 height, u32 media (PdfWireMedia), then the bytes */
  PDF_RES_PAGE_DONE,  /* the page begun is complete */
  PDF_RES_TRUNCATED,  /* not every page of the document is shown */
  PDF_RES_NOTICE,     /* UTF-8: the text after the last page */
  PDF_RES_ERROR,      /* u32 PdfWireError, then a UTF-8 message; the worker stops */
  PDF_RES_END,        /* everything was sent */

  /* Image conversion (image-worker.h): one PDF_REQ_IMAGE and PDF_REQ_END, with a descriptor
   * holding the bytes to decode; the worker answers PDF_RES_IMAGE or PDF_RES_IMAGE_ERROR, then
   * PDF_RES_END. */
  PDF_REQ_IMAGE = 64,  /* u32 flags (ImageWorkerFlag), u32 max_dim, u32 budget_ms, loader name */
  PDF_RES_IMAGE,       /* u32 width, height, original width, height, media, animated, tile x,
                          y, width, height, index, count (0: not a tile); base64. One per tile */
  PDF_RES_IMAGE_ERROR, /* u32 errno (positive), u32 animated, then a UTF-8 message */
} PdfWireTag;

typedef enum {
  PDF_MEDIA_PNG = 1,
  PDF_MEDIA_JPEG = 2,
} PdfWireMedia;

/* Failures the worker reports; readerd maps them to per-file codes. */
typedef enum {
  PDF_ERR_CORRUPTED = 1,
  PDF_ERR_PASSWORD,
  PDF_ERR_PAGE_RANGE,
  PDF_ERR_INTERNAL,
} PdfWireError;

typedef struct {
  uint32_t tag;
  const uint8_t *data; /* points into the buffer given to pdf_wire_next */
  size_t len;
} PdfRecord;

/* Appends one record with payload data[0..len) to out. */
void pdf_wire_put(GByteArray *out, uint32_t tag, const void *data, size_t len);

/* Appends a record whose payload is one u32. */
void pdf_wire_put_u32(GByteArray *out, uint32_t tag, uint32_t v);

/* Appends a record whose payload is a NUL-terminated string, without the NUL (NULL is ""). */
void pdf_wire_put_str(GByteArray *out, uint32_t tag, const char *s);

/* Cuts the first record out of buf[0..len). Returns the bytes it takes (header included) and
 * fills *ret; 0 when buf holds only part of a record; -EBADMSG when the header announces more
 * than PDF_WIRE_MAX_PAYLOAD. */
ssize_t pdf_wire_next(const uint8_t *buf, size_t len, PdfRecord *ret);

/* Reads the u32 at byte `at` of a record's payload into *ret. Returns 0, or -EBADMSG when the
 * payload is too short. */
int pdf_wire_u32(const PdfRecord *rec, size_t at, uint32_t *ret);

/* Writes all of data to fd, retrying on EINTR and short writes; with a socket, SIGPIPE is not
 * raised. Returns 0 or a negative errno. */
int pdf_wire_write_all(int fd, const void *data, size_t len);
