/* PDF passwords cut to the length the PDF standard reads, before they reach poppler: pure, no
 * I/O. poppler 22.12 copies an AES-256 password whole into a fixed buffer of its key hash, so a
 * password of 128 bytes or more overruns its stack; the standard never reads past the lengths
 * below, so cutting changes nothing a conforming PDF writer produced. */
#pragma once

#include <stddef.h>

#define PDF_PASSWORD_AES256_MAX 127 /* bytes of UTF-8 (ISO 32000-2 7.6.4.3.3) */
#define PDF_PASSWORD_PADDED_MAX 32  /* bytes of the padding algorithm (revisions 2 to 4) */

typedef enum {
  PDF_PASSWORD_AES256, /* revisions 5 and 6: the UTF-8 bytes, cut to 127 */
  PDF_PASSWORD_PADDED, /* RC4 and AES-128 (revisions 2 to 4): 32 bytes, padded when shorter */
} PdfPasswordRule;

/* How many leading bytes of the password pw[0..len) the rule keeps. For PDF_PASSWORD_AES256
 * that is at most 127 bytes, cut where the 127th byte falls, even inside a character, as the
 * standard says and as conforming writers do. For PDF_PASSWORD_PADDED, the standard counts
 * bytes of PDFDocEncoding and poppler-glib converts a UTF-8 password to Latin-1 first: when the
 * first 32 characters are valid UTF-8 at or below U+00FF (one byte each once converted), it
 * keeps those 32 characters, else the first 32 bytes. pw need not be NUL-terminated nor valid
 * UTF-8; it is not read past len. */
size_t pdf_password_cut(const char *pw, size_t len, PdfPasswordRule rule);
