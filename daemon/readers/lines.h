/* The line engine: turns a stream of UTF-8 into the content shown for a text file.
 *
 * Pure: no I/O, no decoding. The caller feeds valid UTF-8 in pieces of any size (one byte at
 * a time gives the same result as the whole file at once); the engine counts every line of
 * the stream, keeps only the lines in the requested window, numbers them (cat -n), cuts
 * over-long lines after a number of characters with a marker naming the column to continue
 * from, shows the first line of the window from a given column, stops before a content cap,
 * notes the line ending style, and at the end appends a notice saying how to continue.
 *
 * Memory stays bounded by the content cap (plus one line) whatever the stream's size. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tokens kept free under a token cap (max_tokens) for the final notice, which the estimator
 * prices at about 20 ("… 120 more lines not shown; continue with offset=81"). */
#define LINES_NOTICE_TOKENS 40

/* How runs of whole shown lines are found and copied. Every path gives the same content; tests
 * force each in turn to compare them. */
typedef enum {
  LINES_PATH_BEST = 0, /* the fastest this build and CPU have */
  LINES_PATH_GENERAL,  /* line by line, no run of lines at all */
  LINES_PATH_SSE2,     /* 16 bytes at a time */
  LINES_PATH_AVX2,     /* 32 bytes at a time */
} LinesPath;

typedef struct {
  int64_t offset;        /* 1-based first line to show; values < 1 mean 1 */
  int64_t limit;         /* lines to show at most; values < 1 mean 1 */
  bool line_numbers;     /* prefix each shown line with printf("%6d\t") */
  size_t max_line_chars; /* characters (code points) shown of one line; 0 means no cut */
  size_t max_content;    /* bytes of content, numbers and notice included; 0 means no cap */
  size_t size_hint;      /* expected input size, to size the first allocation; may be 0 */
  int64_t column;        /* 1-based first character shown of line `offset`; values < 1 mean 1 */
  int64_t first_line;    /* number of the stream's first line (a tail starts mid-file); values
                            < 1 mean 1 */
  int64_t max_tokens;    /* estimated tokens of content (formatters/tokens.h), numbers and
                            notice included; lines past it are left out, the first one too;
                            0 means no cap */
  LinesPath path;      /* LINES_PATH_BEST but in tests; one this CPU lacks means the best */
} LinesOptions;

/* What lines_finish hands over. */
typedef struct {
  char *content; /* NUL-terminated valid UTF-8; owned by the receiver, g_free() */
  size_t content_len;
  int64_t lines;       /* lines in the whole stream ("\n" count, +1 for an unterminated last) */
  const char *eol;     /* static: "lf", "crlf", "mixed"; NULL when no line ended */
  bool truncated;      /* not everything is shown: offset > 1, lines after, or a line was cut */
  int64_t shown_first; /* first and last line shown, both 0 when none is */
  int64_t shown_last;
  int64_t milli; /* the estimate of content in thousandths (formatters/tokens.h) when max_tokens
                    priced its lines, -1 otherwise */
} LinesResult;

/* Engine state. Embed it (e.g. on the stack); the fields are private. */
typedef struct Lines {
  LinesOptions opt;
  int64_t end;    /* first line number past the window: offset + limit, saturated */
  size_t reserve; /* bytes kept free under the cap for the final notice */
  /* The run of whole lines shown as they are (no token cap, no column) starts at this line
   * number; 0: never. Content may grow to fast_room before a line goes the general way. */
  int64_t fast_from;
  size_t fast_room;
  const char *(*fast)(struct Lines *l, const char *s, const char *e); /* the run's path */

  int64_t lines;     /* "\n" seen so far */
  bool in_line;      /* bytes of an unterminated line have been fed */
  bool last_cr;      /* the last byte fed was '\r' */
  unsigned eol_seen; /* bit 0: a bare LF ended a line, bit 1: a CRLF did */

  bool cur_shown;   /* the current line goes into the content */
  size_t cur_start; /* content length before the current line, to take it back */
  size_t cur_body;  /* content offset where the current line's text starts */
  size_t cur_chars; /* characters of it appended so far; only bytes until cur_exact */
  bool cur_exact;   /* cur_chars counts characters (the line got near the cut) */
  int64_t cur_cut;  /* characters of the current line cut so far */

  /* The current line's first shown character: column 1 but on line `offset`. */
  int64_t cur_col;
  int64_t cur_skip;    /* characters before cur_col still to skip */
  int64_t cur_skipped; /* characters skipped so far */
  bool cur_skipping;   /* skipping: ends at the first lead byte once cur_skip is 0 */

  bool capped;        /* the content cap (bytes or tokens) stopped adding lines */
  bool capped_tokens; /* it was the token cap */
  int64_t milli;      /* estimated thousandths of a token of the lines kept (max_tokens) */
  bool tent;          /* lines kept in the room the notice would need: they stay only if the
                         stream ends with them shown (no notice), else they are taken back */
  size_t tent_start;  /* content length before the first of them */
  int64_t tent_first; /* its line number */
  int64_t tent_milli; /* l->milli before it */
  bool any_cut;       /* a shown line was cut */
  int64_t shown_first;
  int64_t shown_last;

  /* The last line number written, as printf("%6d\t") gives it, right-aligned: the next one is
   * counted up in place, not printed again. num[] ends with the tab at NUM_END; the 16 bytes
   * after it are padding that a fixed-size copy may read. */
  int64_t num_last; /* the number num holds; 0: none yet */
  size_t num_digits;
  char num[24 + 16];

  char *buf; /* the content being built */
  size_t len;
  size_t cap;
} Lines;

/* Whether this build and CPU have path (LINES_PATH_BEST and LINES_PATH_GENERAL always). */
bool lines_path_available(LinesPath path);

/* Prepares l for a new stream. o is copied. Never fails (allocations abort on OOM). */
void lines_init(Lines *l, const LinesOptions *o);

/* Feeds the next n bytes of the stream, which must be valid UTF-8 as a whole (a piece may
 * end or start inside a multi-byte character). p may be NULL when n is 0. */
void lines_feed(Lines *l, const char *p, size_t n);

/* Ends the stream: counts an unterminated last line, appends the notice when lines were
 * left out, and moves the content into ret (the engine is then empty; lines_clear is still
 * fine to call). */
void lines_finish(Lines *l, LinesResult *ret);

/* Frees what the engine holds. NULL is fine; safe to call more than once. */
void lines_clear(Lines *l);
