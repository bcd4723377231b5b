/* The office reader: DOCX (paragraphs, headings, lists, tables as rows), XLSX (each sheet's rows
 * with shared strings resolved) and PPTX (each slide's text and notes), as type "document".
 *
 * The zip is streamed with libarchive, entry by entry, and each wanted part (word/document.xml,
 * xl/worksheets/…, ppt/slides/…) is parsed with libxml2's xmlReader as it is decompressed: no
 * part is ever held whole. Limits on the entries, the bytes of one part and the bytes
 * decompressed in all refuse a zip bomb (FILE_TOO_LARGE) before it costs memory; a damaged or
 * truncated archive or part is CORRUPTED_FILE. Pure but for the fd: runs on a worker thread. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formatters/result.h"

#define OFFICE_MAX_ENTRIES 10000                            /* entries in the archive */
#define OFFICE_MAX_PART_BYTES ((int64_t)64 * 1024 * 1024)   /* one part, decompressed */
#define OFFICE_MAX_TOTAL_BYTES ((int64_t)256 * 1024 * 1024) /* all parts decompressed */
#define OFFICE_MAX_NODES ((int64_t)4 * 1000 * 1000)         /* XML nodes parsed in all */
#define OFFICE_MAX_CONTENT ((size_t)256 * 1024)             /* bytes of text shown per file */
#define OFFICE_MAX_SHEET_ROWS 1000                          /* rows shown of one sheet */
#define OFFICE_MAX_COLUMNS 256                              /* cells shown of one row */

typedef enum {
  OFFICE_NONE = 0,
  OFFICE_DOCX,
  OFFICE_XLSX,
  OFFICE_PPTX,
} OfficeKind;

typedef struct {
  int64_t offset;               /* 1-based: DOCX line, XLSX row (of each sheet), PPTX slide */
  int64_t limit;                /* lines, rows or slides shown at most (>= 1) */
  const atomic_bool *cancelled; /* may be NULL; checked between parts */
} OfficeOptions;

/* The kind of an Office Open XML document from the first n bytes of its zip: the names of the
 * entries whose local headers are there ([Content_Types].xml or _rels/.rels, and the first of
 * the word/, xl/ or ppt/ parts).
 * OFFICE_NONE for anything else, a zip whose names are not in the head included. Pure. */
OfficeKind office_sniff(const uint8_t *head, size_t n);

/* The format name of a kind: "docx", "xlsx", "pptx"; NULL for OFFICE_NONE. */
const char *office_format_name(OfficeKind k);

/* Reads the document of the given kind from the zip open at fd (from its start) into res: type,
 * format, content (DOCX) or sections (XLSX sheets, PPTX slides), sections, truncated, shown_*,
 * notice. Returns 0, or a negative errno-style value with the failure set in res. */
int office_read_fd(int fd, OfficeKind kind, const OfficeOptions *o, FileResult *res);

/* Like office_read_fd() on a zip held in memory (tests, fuzzers). */
int office_read_memory(const void *data, size_t len, OfficeKind kind, const OfficeOptions *o,
                       FileResult *res);
