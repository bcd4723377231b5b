/* The text reader: decoding, line numbering, limits. Runs on a worker thread.
 *
 * Streams the file in chunks: lines are counted over the whole file, but only the shown
 * lines are kept, so memory stays bounded whatever the file's size. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formatters/result.h"

#define TEXT_MAX_LINE_CHARS 2000              /* characters shown of one line */
#define TEXT_MAX_CONTENT ((size_t)100 * 1024) /* bytes of content per file */

typedef struct {
  int64_t offset;               /* 1-based first line to show (>= 1) */
  int64_t limit;                /* lines to show at most (>= 1) */
  bool line_numbers;            /* cat -n: printf("%6d\t%s") */
  int64_t column;               /* 1-based first character shown of line `offset`; 0 means 1 */
  int64_t tail;                 /* > 0: the last `tail` lines instead of offset and limit */
  int64_t max_tokens;           /* estimated tokens of content at most (the budget's share);
                                   0: no cap */
  const atomic_bool *cancelled; /* may be NULL; checked between chunks */
  const char *encoding;         /* the client's: an iconv name decoded from without detection
                                   (read_params_encoding checks it); NULL: detected */
  size_t size; /* the file's bytes when fstat's size ends it (KindFile.size), else 0: the
                  first buffer is sized for it, and its last byte read ends the file without
                  a read() returning 0 */
} TextOptions;

/* FileResult.encoding_source: how the encoding was chosen (NULL: UTF-8, valid by its bytes). */
#define TEXT_SOURCE_BOM "bom"           /* a byte-order mark */
#define TEXT_SOURCE_DETECTED "detected" /* told from the bytes with evidence (uchardet, libmagic) */
#define TEXT_SOURCE_FALLBACK "fallback" /* nothing told it: 8-bit text shown as Latin-1/cp1252 */
#define TEXT_SOURCE_CLIENT "client"     /* the request's `encoding` */

/* Reads a text file into res (type, content, lines, encoding, eol, truncated, shown_*).
 * With opt->tail, the last lines are found from the end of the file (daemon/readers/tail.h;
 * fd must then be the whole file, read with pread and lseek) and as many of them as the content
 * cap holds are shown, with a notice naming the rest; eol then describes the lines read.
 * `head` holds the file's first head_len bytes, already read from fd, and fd is positioned
 * right after them; `eof` says head is the whole file. On a file that is not text
 * (NUL bytes, no character set), res gets CODE_UNSUPPORTED_FORMAT; on a read error
 * CODE_READ_ERROR; when cancelled CODE_CANCELLED. res->bytes and res->modified_ms are the
 * caller's. Returns 0 when the file was read, else a negative errno-style value. */
int text_read(int fd, const uint8_t *head, size_t head_len, bool eof, const TextOptions *opt,
              FileResult *res);

/* How text_read() would decode a file from its head (valid for the call, as text_read takes
 * it), `encoding` being TextOptions.encoding (may be NULL): *ret_encoding gets the encoding's
 * name (static). Returns 0, or a negative errno with res failed as text_read() would fail it
 * (a binary file: CODE_UNSUPPORTED_FORMAT). */
int text_sniff(const uint8_t *head, size_t head_len, bool eof, const char *encoding,
               const char **ret_encoding, FileResult *res);
