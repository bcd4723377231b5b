/* Legacy character sets that libmagic cannot name: Shift-JIS, EUC-JP, ISO-2022-JP, GB18030,
 * Big5, EUC-KR, KOI8-R, the Windows code pages and the like, guessed with uchardet from a
 * file's head and checked with iconv before they are trusted. Runs on worker threads; keeps
 * no state between calls. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the head charset_guess() looks at, at most: the guess is bounded whatever the file's
 * size, and the reader's head buffer is this size. */
#define CHARSET_SAMPLE_MAX ((size_t)64 * 1024)

typedef struct {
  const char *name;  /* reported: lowercase IANA style ("shift_jis", "koi8-r"), static */
  const char *iconv; /* the iconv charset that decodes it (a superset where one exists), static */
} Charset;

/* Guesses the legacy character set of head[0..n), the first bytes of a file that is not valid
 * UTF-8 (or is 7-bit with ISO-2022 escapes); `eof` says head is the whole file. A guess is
 * kept only with evidence enough: a multi-byte set must decode the head with almost no invalid
 * sequence, a single-byte set for another script needs some high bytes, one for a Latin
 * script more. Returns 0 with *ret set, or -ENOENT when no legacy set is named with
 * confidence (UTF-8, ASCII, ISO-8859-1 and Windows-1252 included: the caller's own rules decide
 * those), or -ENOMEM. */
int charset_guess(const uint8_t *head, size_t n, bool eof, Charset *ret);

/* True when p holds an ISO-2022 escape that designates a multi-byte set ("ESC $"): 7-bit text
 * that reads as ASCII but is not. Pure. */
bool charset_has_iso2022_escape(const uint8_t *p, size_t n);
