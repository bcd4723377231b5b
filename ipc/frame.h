/* Line framing for line-delimited JSON-RPC: pure, no I/O.
 *
 * Bytes go in as they arrive (any split); complete lines come out. A partial line is kept
 * across feeds. A line longer than the cap is reported once and skipped up to its newline,
 * so memory stays bounded by the cap plus one feed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define FRAME_MAX_LINE ((size_t)16 * 1024 * 1024)

typedef struct Framer Framer;

/* A framer that refuses lines longer than max_line bytes (not counting the '\n').
 * Free with framer_free(). Never returns NULL (glib aborts on out-of-memory). */
Framer *framer_new(size_t max_line);

/* Frees the framer and any partial line it holds; NULL is fine. */
void framer_free(Framer *f);

/* Appends len bytes. The data is copied; the caller keeps ownership of `data`. */
void framer_feed(Framer *f, const char *data, size_t len);

/* Marks the end of input: the bytes after the last '\n', if any, become a last line that
 * framer_next() hands out (a '\r' at its end dropped, as before a '\n'). Bytes fed after
 * this are ignored. */
void framer_end(Framer *f);

/* Takes the next complete line, without its '\n' (nor a '\r' just before it).
 * Returns 1 and sets *ret_line and *ret_len (valid until the next framer_* call; the line is
 * NUL-terminated at ret_line[ret_len]), 0 when no complete line is buffered, or -E2BIG once
 * for each line longer than the cap (its bytes are dropped, up to and including its '\n'). */
int framer_next(Framer *f, const char **ret_line, size_t *ret_len);

/* True when the line, or anything of it, is more than spaces, tabs and carriage returns. */
bool frame_line_has_content(const char *line, size_t len);

/* Bytes currently buffered (a partial line). */
size_t framer_pending(const Framer *f);
