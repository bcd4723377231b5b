/* The internal read result: what the readers produce and every formatter consumes.
 *
 * One ReadResult answers one `read` request; files[i] answers paths[i]. Everything here is
 * plain data owned by the struct that holds it, so a result built on a worker thread can be
 * handed to the loop thread and freed there. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FileResult.modified_ms when the time is not known: every other value is a real time. */
#define RESULT_TIME_UNKNOWN INT64_MIN

typedef enum {
  FILE_TYPE_UNKNOWN = 0, /* failed before the type was known */
  FILE_TYPE_TEXT,
  FILE_TYPE_IMAGE,
  FILE_TYPE_PDF,
} FileType;

/* Per-file error codes of the wire contract. */
#define CODE_FILE_NOT_FOUND "FILE_NOT_FOUND"
#define CODE_ACCESS_DENIED "ACCESS_DENIED"
#define CODE_IS_DIRECTORY "IS_DIRECTORY"
#define CODE_NOT_REGULAR_FILE "NOT_REGULAR_FILE"
#define CODE_FILE_TOO_LARGE "FILE_TOO_LARGE"
#define CODE_UNSUPPORTED_FORMAT "UNSUPPORTED_FORMAT"
#define CODE_CORRUPTED_FILE "CORRUPTED_FILE"
#define CODE_CONVERSION_FAILED "CONVERSION_FAILED"
#define CODE_PASSWORD_PROTECTED "PASSWORD_PROTECTED"
#define CODE_PAGE_OUT_OF_RANGE "PAGE_OUT_OF_RANGE"
#define CODE_READ_ERROR "READ_ERROR"
#define CODE_CANCELLED "CANCELLED"

/* One picture to send: a whole image file, or (later) a rendered PDF page. */
typedef struct {
  char *media_type;   /* "image/png", "image/jpeg", "image/gif", "image/webp"; owned */
  char *data;         /* base64 of the bytes sent, NUL-terminated; owned */
  size_t data_len;    /* strlen(data) */
  int width, height;  /* of what `data` decodes to */
  int original_width; /* of the source when resized, else 0 */
  int original_height;
  int page; /* 1-based PDF page it shows, 0 for an image file */
} ImageOut;

/* One PDF page shown: its text, and the picture of it when it was rendered. */
typedef struct {
  int number; /* 1-based page number */
  char *text; /* the page's text, valid UTF-8 (may be empty); owned */
  size_t text_len;
  int image; /* index into the file's images[] when rendered, else -1 */
} PageOut;

typedef struct {
  char *path; /* as the client gave it; owned */
  FileType type;
  const char *code; /* one of CODE_*, static; NULL when the file was read */
  char *error;      /* human message when code is set; owned */
  int64_t bytes;    /* file size, -1 when unknown */
  int64_t
      modified_ms; /* mtime in epoch milliseconds (negative before 1970), or RESULT_TIME_UNKNOWN */

  /* FILE_TYPE_TEXT */
  char *content; /* valid UTF-8 as shown (numbered or raw, with any notice); owned */
  size_t content_len;
  int64_t lines;        /* lines in the whole file */
  const char *encoding; /* static: "utf-8", "utf-16le", "utf-16be", "iso-8859-1", ... */
  bool bom;             /* a UTF-8 file that started with a byte-order mark (dropped) */
  const char *eol;      /* static: "lf", "crlf", "mixed"; NULL when the file has no line break */
  bool truncated;       /* not the whole file is shown (text and pdf) */
  int64_t shown_first;  /* first and last line shown, 1-based; both 0 when none is shown */
  int64_t shown_last;

  /* FILE_TYPE_IMAGE: exactly one image. Later PDFs: one per rendered page. */
  ImageOut *images;
  size_t n_images;
  bool animated;

  /* FILE_TYPE_PDF (truncated and images above apply too) */
  int64_t pages; /* pages in the document */
  char *title;   /* document info, NULL when absent; owned */
  char *author;
  char *outline;     /* the document outline as indented text, NULL when none is shown; owned */
  PageOut *page_out; /* the pages shown, in order; owned */
  size_t n_page_out;
  char *notice; /* text after the last page (how to read on), NULL when none; owned */
} FileResult;

typedef struct {
  FileResult *files;
  size_t n_files;
} ReadResult;

/* Releases everything an ImageOut owns; the struct itself is not freed. NULL is fine. */
void image_out_clear(ImageOut *img);

/* Releases everything a FileResult owns and zeroes it; NULL is fine. */
void file_result_clear(FileResult *f);

/* Sets f->code and a printf-formatted f->error (replacing any earlier ones). */
void file_result_fail(FileResult *f, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Releases f's images and empties the list (a file refused after they were made). */
void file_result_drop_images(FileResult *f);

/* Appends one image to f->images, taking ownership of its members; returns the new entry. */
ImageOut *file_result_add_image(FileResult *f);

/* Appends one zeroed PageOut (image -1) to f->page_out; f owns what the caller puts there.
 * Earlier entries may move. */
PageOut *file_result_add_page(FileResult *f);

/* Frees every file and the array; the ReadResult itself is zeroed, not freed. NULL is fine. */
void read_result_clear(ReadResult *r);

/* Sums bytes and lines over the files that were read (failed files excluded). */
void read_result_totals(const ReadResult *r, int64_t *ret_bytes, int64_t *ret_lines);

/* The contract's lowercase name of a type: "text", "image", "pdf"; NULL for FILE_TYPE_UNKNOWN. */
const char *file_type_name(FileType t);

/* Decodes the UTF-8 character at the start of s[0..len): returns its length in bytes (1-4) and
 * its code point in *ret_cp (may be NULL), or 0 when s does not start with a complete, valid
 * sequence (overlong forms, surrogates and code points above U+10FFFF are invalid). len > 0. */
size_t result_utf8_decode(const char *s, size_t len, uint32_t *ret_cp);

/* Room result_format_int needs: a sign and 19 digits. */
#define RESULT_INT_MAX 20

/* Writes v in decimal, as printf's "%" PRId64 does, at buf (RESULT_INT_MAX bytes at least; no
 * NUL); returns the length. For the numbers of every file's attributes and members, which
 * printf made a tenth of the cost of formatting a small file. */
size_t result_format_int(char *buf, int64_t v);
