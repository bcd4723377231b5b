/* Zip archives written by the tests with libarchive's own zip writer: real office documents'
 * shape, and hostile ones (a bomb, a flood of entries, a truncated file). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct RdZip RdZip;

/* Starts a zip at path; aborts the test when it cannot be written. Finish with rd_zip_close. */
RdZip *rd_zip_new(const char *path);

/* Adds an entry holding data[0, len), deflated. */
void rd_zip_add(RdZip *z, const char *name, const void *data, size_t len);

/* Adds an entry of `prefix` then copies of `unit` up to `len` bytes in all, deflated and written
 * in 1 MiB steps (never held whole). declare_size says whether its local header states the size, or
 * leaves it to a data descriptor after the data, as streaming writers (LibreOffice) do. */
void rd_zip_add_repeat(RdZip *z, const char *name, const char *prefix, const char *unit, size_t len,
                       bool declare_size);

/* Writes the central directory and closes the file; frees z. */
void rd_zip_close(RdZip *z);

/* A minimal DOCX at path whose word/document.xml holds one paragraph per line of text. */
void rd_zip_docx(const char *path, const char *text);
