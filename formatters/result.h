/* The internal read result: what the readers produce and every formatter consumes.
 *
 * One ReadResult answers one `read` request; files[i] answers paths[i]. Everything here is
 * plain data owned by the struct that holds it, so a result built on a worker thread can be
 * handed to the loop thread and freed there. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formatters/tokens.h"

/* FileResult.modified_ms when the time is not known: every other value is a real time. */
#define RESULT_TIME_UNKNOWN INT64_MIN

/* Room for an etag and its NUL: four numbers and their dashes (file_result_set_etag). */
#define RESULT_ETAG_MAX 120

typedef enum {
  FILE_TYPE_UNKNOWN = 0, /* failed before the type was known */
  FILE_TYPE_TEXT,
  FILE_TYPE_IMAGE,
  FILE_TYPE_PDF,
  FILE_TYPE_NOTEBOOK, /* a Jupyter notebook: cells in section_out */
  FILE_TYPE_DOCUMENT, /* an office document (FileResult.format): text, slides or sheets */
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

/* Where a tile of a tall or wide picture lies in it (images.tile). */
typedef struct {
  int x, y, width, height; /* its box, in pixels of the upright original */
  int index;               /* 1-based, in order: top to bottom, or left to right */
  int count;               /* tiles the picture was cut into; 0 when this image is not a tile */
} ImageTile;

/* One picture to send: a whole image file, a tile of one, or a rendered PDF page. */
typedef struct {
  char *media_type;   /* "image/png", "image/jpeg", "image/gif", "image/webp"; owned */
  char *data;         /* base64 of the bytes sent, NUL-terminated; owned */
  size_t data_len;    /* strlen(data) */
  int width, height;  /* of what `data` decodes to */
  int original_width; /* of the source when resized, else 0 */
  int original_height;
  int page; /* 1-based PDF page it shows, 0 for an image file */
  ImageTile tile; /* a tile: original_width/height are then the whole picture's, always set */
  int cell; /* 1-based index of the notebook cell whose output it is, 0 otherwise */
} ImageOut;

/* One PDF page shown: its text, and the picture of it when it was rendered. */
typedef struct {
  int number; /* 1-based page number */
  char *text; /* the page's text, valid UTF-8 (may be empty); owned */
  size_t text_len;
  int image; /* index into the file's images[] when rendered, else -1 */
} PageOut;

/* A word about an expansion (a folder or glob in paths[]): the files past maxFiles, what ignore
 * rules left out. It follows the last file of that expansion. */
typedef struct {
  char *path;    /* the folder or glob as given in paths[]; owned */
  size_t from;   /* its index in paths[] */
  char *message; /* owned */
} ResultNotice;

/* FileResult.omitted: why a file that is not an error has no content. */
#define OMITTED_BINARY "binary" /* a binary file an expansion listed without reading it */
#define OMITTED_BUDGET "budget" /* the request's budget left the file out */
/* Something shown under a section: one output of a notebook cell, or a slide's notes. */
typedef struct {
  const char *element; /* static: "Output" or "Notes" */
  const char *kind;    /* static, outputs only: "stream", "result", "display", "error"; else NULL */
  char *name; /* stream name ("stdout"), error name ("ValueError"); NULL when none; owned */
  char *text; /* valid UTF-8, may be NULL or empty; owned */
  size_t text_len;
  int image; /* index into the file's images[] when the part shows a picture, else -1 */
} SectionPart;

/* One section of a notebook or an office document, the same shape for all of them: a cell
 * (<Cell index kind language>), a slide (<Slide number>) or a sheet (<Sheet number name rows>).
 * Its text is the cell's source, the slide's text or the sheet's rows; its parts the cell's
 * outputs or the slide's notes. */
typedef struct {
  const char *element; /* static: "Cell", "Slide" or "Sheet" */
  int64_t number;      /* 1-based: cell index, slide number, sheet number */
  const char *kind;    /* static, cells only: "code", "markdown", "raw"; else NULL */
  char *language;      /* cells: the language of a code cell; NULL otherwise; owned */
  char *name;          /* sheets: the sheet's name; NULL otherwise; owned */
  int64_t rows;        /* sheets: rows holding a value in the whole sheet; 0 otherwise */
  char *text;          /* valid UTF-8, may be NULL; owned */
  size_t text_len;
  SectionPart *parts; /* owned */
  size_t n_parts;
} SectionOut;

typedef struct {
  char *path; /* as the client gave it; owned */
  FileType type;
  const char *code; /* one of CODE_*, static; NULL when the file was read */
  char *error;      /* human message when code is set; owned */
  int64_t bytes;    /* file size, -1 when unknown */
  int64_t
      modified_ms; /* mtime in epoch milliseconds (negative before 1970), or RESULT_TIME_UNKNOWN */
  char etag[RESULT_ETAG_MAX]; /* the opened file's version (file_result_set_etag); "" when none */
  bool unchanged; /* the etag matched the client's ifNoneMatch: nothing read, no type, no content */

  /* FILE_TYPE_TEXT */
  char *content; /* valid UTF-8 as shown (numbered or raw, with any notice); owned */
  size_t content_len;
  int64_t lines;        /* lines in the whole file */
  const char *encoding; /* static: "utf-8", "utf-16le", "utf-16be", "iso-8859-1", ... */
  const char *encoding_source; /* static: how encoding was chosen, "bom", "detected",
                                  "fallback" or "client"; NULL for UTF-8 told by its bytes */
  bool bom;             /* a UTF-8 file that started with a byte-order mark (dropped) */
  const char *eol;      /* static: "lf", "crlf", "mixed"; NULL when the file has no line break */
  bool truncated;       /* not the whole file is shown (text and pdf) */
  int64_t shown_first;  /* first and last line shown, 1-based; both 0 when none is shown */
  int64_t shown_last;

  /* FILE_TYPE_IMAGE: one image, or its tiles in order (images[0].tile.count > 0; fewer than
   * that when the image budget left some out, with truncated and notice set). FILE_TYPE_PDF:
   * one per rendered page. */
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
  char *notice; /* text after the last page, tile or section (how to read on), NULL when none;
                   owned */

  /* Files of an expansion (a folder or glob in paths[]). */
  bool expanded;         /* from is set */
  size_t from;           /* index into paths[] of the folder or glob the file came from */
  const char *omitted;   /* static (OMITTED_*): why the content is left out though the file is
                            fine; bytes, lines (-1: unknown) and tokens_total still given */
  ResultNotice *notices; /* what follows this file: the notices of its expansion; owned */
  size_t n_notices;

  /* FILE_TYPE_NOTEBOOK and FILE_TYPE_DOCUMENT (truncated, shown_*, images, notice and, for a
   * DOCX, content apply too; shown_* count sections, or a DOCX's lines) */
  const char *format;      /* static, documents: "docx", "xlsx", "pptx"; NULL otherwise */
  char *language;          /* notebooks: the kernel's language, NULL when unknown; owned */
  int64_t sections;        /* cells, slides or sheets in the whole file */
  SectionOut *section_out; /* the sections shown, in order; owned */
  size_t n_section_out;

  /* Token estimates (formatters/tokens.h) */
  int64_t tokens;       /* of what is shown of this file (text, pages, pictures); 0 when failed */
  int64_t tokens_total; /* of the whole file as a read would show it (plan and omitted entries) */
  bool planned;         /* a plan entry: what a read would show, without the content */
  /* The estimate of content in thousandths, as its reader priced it (the line engine under a
   * token cap): valid while content and content_len are still priced and priced_len. */
  const char *priced;
  size_t priced_len;
  int64_t priced_milli;
  int width, height;    /* an image's size as sent, in an entry without images[] (plan) */

  /* A budget's answer past what it lists one by one (ResultSummary): the file has no
   * <Content> of its own in the answer the model reads (its files[] entry stays); the first
   * such file carries the summary of them all. */
  bool summarized;
  struct ResultSummary *summary; /* owned; on the first summarized file only, else NULL */
} FileResult;

/* The files a budget leaves out past what it lists one by one: the answer's entries from
 * `skip` on, in request order, written as one <Omitted> element in place of theirs. */
typedef struct ResultSummary {
  size_t files;         /* entries summarized: every one from this file to the last */
  int64_t bytes;        /* their sizes summed (those known) */
  int64_t tokens_total; /* their estimated tokens summed (tokensTotal) */
  int64_t skip;         /* the request's `skip` that answers them next: this entry's index in
                           the request's (expanded) paths */
  size_t cap_mib;       /* > 0: they are past the answer's size cap (this many MiB of content),
                           not the budget */
} ResultSummary;

/* An entry that says what is known of a file and what it would cost, without its content: a
 * plan entry, or a file the budget left out. */
bool file_result_listed(const FileResult *f);

/* A file a summary counts that has nothing of its own to say (not the summary's first, no
 * notice after it): every format writes nothing for it. */
static inline bool file_result_silent(const FileResult *f) {
  return f->summarized && f->summary == NULL && f->n_notices == 0;
}

typedef struct {
  FileResult *files;
  size_t n_files;
  int64_t budget; /* the request's budget.tokens, 0 when it has none */
  bool plan;      /* the answer is a plan: entries without content */
  /* With a budget: the estimated tokens of the whole answer the model reads (content and
   * the XML markup around it); 0 otherwise. */
  int64_t answer_tokens;
} ReadResult;

/* Releases everything an ImageOut owns; the struct itself is not freed. NULL is fine. */
void image_out_clear(ImageOut *img);

#define IMAGE_TILE_LABEL_MAX 128 /* bytes of a tile's label, with its NUL */

/* Writes img's label into buf (IMAGE_TILE_LABEL_MAX bytes), e.g.
 * "tile 2 of 7: x 0-1080, y 1519-3207 of 1080x10800" (its box as half-open pixel ranges of the
 * whole picture). Returns false, with buf empty, when img is not a tile. */
bool image_tile_label(const ImageOut *img, char *buf);

/* Releases a g_malloc'd array of n images and all they own. NULL is fine. */
void image_out_list_free(ImageOut *list, size_t n);

/* Releases everything a FileResult owns and zeroes it; NULL is fine. */
void file_result_clear(FileResult *f);

/* Sets f->code and a printf-formatted f->error (replacing any earlier ones). */
void file_result_fail(FileResult *f, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with a message already written (copied): for many entries failed alike. */
void file_result_fail_text(FileResult *f, const char *code, const char *message);

/* Sets f->etag from what fstat() says of the opened file: device, inode and size in lowercase
 * hex, then the modification time in nanoseconds since the epoch in decimal, joined by dashes
 * ("803-1a2b3c-1f40-1732350000123456789"); the readers then append the status change time
 * (file_result_etag_add_time()), which a change of content always moves. A time outside what 64-bit nanoseconds hold (before 1678, after 2262) is
 * written as seconds.nanoseconds. */
void file_result_set_etag(FileResult *f, uint64_t dev, uint64_t ino, int64_t size, int64_t sec,
                          int64_t nsec);

/* Appends a dash and a second time to f->etag (set by file_result_set_etag()), written the same
 * way: the readers add the status change time, which a rewrite moves even when the modification
 * time is put back ("touch -d"). */
void file_result_etag_add_time(FileResult *f, int64_t sec, int64_t nsec);

/* Releases f's images and empties the list (a file refused after they were made). */
void file_result_drop_images(FileResult *f);

/* Appends one image to f->images, taking ownership of its members; returns the new entry. */
ImageOut *file_result_add_image(FileResult *f);

/* Appends one zeroed PageOut (image -1) to f->page_out; f owns what the caller puts there.
 * Earlier entries may move. */
PageOut *file_result_add_page(FileResult *f);

/* Appends a notice to f->notices (path and message copied). */
void file_result_add_notice(FileResult *f, const char *path, size_t from, const char *message);
/* Appends one zeroed SectionOut to f->section_out; f owns what the caller puts there. Earlier
 * entries may move. */
SectionOut *file_result_add_section(FileResult *f);

/* Releases everything s owns and zeroes it. */
void section_out_clear(SectionOut *s);

/* Releases f's sections and empties the list (a file listed or planned: nothing shown). */
void file_result_drop_sections(FileResult *f);

/* Appends one zeroed SectionPart (image -1) to s->parts; s owns what the caller puts there.
 * Earlier entries may move. */
SectionPart *section_add_part(SectionOut *s);

/* The name of f->sections in files[] and on <Content>: "cells", "slides" or "sheets"; NULL when
 * the file has no sections to count (a DOCX, or a file of another type). */
const char *file_result_sections_name(const FileResult *f);

/* Frees every file and the array; the ReadResult itself is zeroed, not freed. NULL is fine. */
void read_result_clear(ReadResult *r);

/* Sums bytes and lines over the files that were read (failed, unchanged and omitted files
 * excluded; in a plan, over every entry that is not refused). */
void read_result_totals(const ReadResult *r, int64_t *ret_bytes, int64_t *ret_lines);

/* The pictures over the files that did not fail (n_images summed). */
size_t read_result_image_count(const ReadResult *r);

/* Sums tokens over every file (*ret_tokens: what is shown) and, in a plan, tokens_total over
 * the entries not refused (*ret_total; 0 outside a plan). Either may be NULL. */
void read_result_tokens(const ReadResult *r, int64_t *ret_tokens, int64_t *ret_total);

/* Sets f->tokens from what f shows: its text, its pages' text, outline and notice, its
 * sections' text and their parts' (cells and outputs, slides and notes, sheets' rows), and its
 * pictures by p's formula (the answer's format's: formatters/format.h). A failed file shows
 * nothing: 0. */
void file_result_count_tokens(FileResult *f, const TokensPricing *p);

/* The contract's lowercase name of a type: "text", "image", "pdf", "notebook", "document"; NULL for
 * FILE_TYPE_UNKNOWN. */
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
