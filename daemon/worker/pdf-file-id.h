/* A PDF file's identity as fstat sees it: device, inode, size, modification and change times.
 * readerd sends it with each request (PDF_REQ_FILE_ID) so that a worker can keep a document
 * open for the next read of the same file (pdf-doc-cache.h) and so that readerd can give that
 * read to the same worker (pdf-spawn.h). Pure: no I/O. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <glib.h>

#include "daemon/worker/pdf-wire.h"

#define PDF_FILE_ID_BYTES 48 /* the record's payload */

typedef struct {
  uint64_t dev;
  uint64_t ino;
  uint64_t size;
  int64_t mtime_sec;
  uint32_t mtime_nsec;
  int64_t ctime_sec; /* a rewrite that sets the mtime back still moves the ctime */
  uint32_t ctime_nsec;
} PdfFileId;

/* The identity of the file fstat described in st. */
void pdf_file_id_from_stat(const struct stat *st, PdfFileId *ret);

/* True when a and b name the same file with the same contents as far as fstat can tell. */
bool pdf_file_id_equal(const PdfFileId *a, const PdfFileId *b);

/* True when a and b are the same inode on the same device (whatever its contents). */
bool pdf_file_id_same_inode(const PdfFileId *a, const PdfFileId *b);

/* Appends the identity to out as one record with tag `tag`. */
void pdf_file_id_put(GByteArray *out, uint32_t tag, const PdfFileId *id);

/* Reads an identity out of a record's payload. Returns 0, or -EBADMSG when its length is not
 * PDF_FILE_ID_BYTES or a nanosecond field is out of range. */
int pdf_file_id_parse(const PdfRecord *rec, PdfFileId *ret);
