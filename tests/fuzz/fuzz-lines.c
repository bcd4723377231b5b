/* Fuzz target for the line engine (daemon/readers/lines.c): the input is a header of options and then
 * the text of a file.
 *
 * Header bytes: offset, limit, flags (bit 0: line numbers; bit 1: a token cap of the content
 * cap's low byte + 1 tokens), max_line_chars (0: no cut), two bytes of content cap (0: none),
 * the seed of the piece sizes, the column line offset is shown from, and the number of the
 * stream's first line (a tail's; offset then counts from it). The text is made valid UTF-8 (the
 * engine's precondition: the decoders guarantee it) and fed once whole and once in pieces of 1
 * to 64 bytes; both must give the same result. That result must count lines as a naive count
 * does, note the same line endings, respect the window and the cap, be valid UTF-8, and without
 * a cap be exactly what a naive rendering of the window shows; under a token cap, its estimate
 * (formatters/tokens.h) never passes the cap. */
#include <string.h>

#include <glib.h>

#include "daemon/readers/lines.h"
#include "formatters/tokens.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_HEADER 9
#define FUZZ_MAX_PIECE 64

/* Runs the engine over text, in pieces when state is not NULL. */
static void run(const LinesOptions *o, const char *text, size_t n, uint32_t *state,
                LinesResult *ret) {
  Lines l;

  lines_init(&l, o);
  for (size_t i = 0; i < n;) {
    size_t k = state != NULL ? fuzz_piece(state, FUZZ_MAX_PIECE, n - i) : n - i;

    lines_feed(&l, text + i, k);
    i += k;
  }
  lines_finish(&l, ret);
  lines_clear(&l);
}

/* What the engine should show, built the plain way: the lines split on "\n", each without its
 * "\r\n" or "\n", cut after max characters, numbered, then the notice. No cap. */
static char *render(const LinesOptions *o, const char *text, size_t n, int64_t total) {
  GString *gs = g_string_new(NULL);
  int64_t offset = MAX(o->offset, 1), limit = MAX(o->limit, 1), last = 0;
  int64_t column = MAX(o->column, 1), first = MAX(o->first_line, 1);
  const char *s = text, *e = text + n;

  if (total == 0 && offset == 1 && column == 1)
    return g_string_free(gs, FALSE);
  if (offset > total) {
    g_string_printf(gs,
                    "\u2026 offset %" G_GINT64_FORMAT
                    " is past the end of the file (%" G_GINT64_FORMAT " lines)\n",
                    offset, total);
    return g_string_free(gs, FALSE);
  }
  for (int64_t k = first; s < e; k++) {
    const char *nl = memchr(s, '\n', (size_t)(e - s));
    const char *end = nl != NULL ? nl : e;
    size_t len = (size_t)(end - s), chars;

    if (nl != NULL && len > 0 && s[len - 1] == '\r')
      len--;
    if (k >= offset && k - offset < limit) {
      int64_t col = k == offset ? column : 1;
      const char *from;

      if (o->line_numbers)
        g_string_append_printf(gs, "%6" G_GINT64_FORMAT "\t", k);
      chars = (size_t)g_utf8_strlen(s, (gssize)len);
      if (col > 1 && (size_t)(col - 1) >= chars) {
        g_string_append_printf(gs,
                               "\u2026 [line %" G_GINT64_FORMAT
                               " has %zu characters; column %" G_GINT64_FORMAT " is past its end]",
                               k, chars, col);
      } else {
        from = g_utf8_offset_to_pointer(s, (glong)(col - 1));
        len -= (size_t)(from - s);
        chars -= (size_t)(col - 1);
        if (o->max_line_chars > 0 && chars > o->max_line_chars) {
          const char *cut = g_utf8_offset_to_pointer(from, (glong)o->max_line_chars);

          g_string_append_len(gs, from, cut - from);
          g_string_append_printf(
              gs,
              " \u2026 [%zu more characters cut; continue with offset=%" G_GINT64_FORMAT
              ", column=%" G_GINT64_FORMAT "]",
              chars - o->max_line_chars, k, col + (int64_t)o->max_line_chars);
        } else {
          g_string_append_len(gs, from, (gssize)len);
        }
      }
      g_string_append_c(gs, '\n');
      last = k;
    }
    s = nl != NULL ? nl + 1 : e;
  }
  if (last < total)
    g_string_append_printf(gs,
                           "\u2026 %" G_GINT64_FORMAT
                           " more lines not shown; continue with offset=%" G_GINT64_FORMAT "\n",
                           total - last, last + 1);
  return g_string_free(gs, FALSE);
}

static void check(const LinesOptions *o, const char *text, size_t n, const LinesResult *r) {
  int64_t lf = 0, crlf = 0, total;
  int64_t offset = MAX(o->offset, 1), limit = MAX(o->limit, 1), first = MAX(o->first_line, 1);
  const char *eol;

  for (size_t i = 0; i < n; i++)
    if (text[i] == '\n') {
      if (i > 0 && text[i - 1] == '\r')
        crlf++;
      else
        lf++;
    }
  total = first - 1 + lf + crlf + (n > 0 && text[n - 1] != '\n');
  fuzz_assert(r->lines == total);
  eol = lf && crlf ? "mixed" : lf ? "lf" : crlf ? "crlf" : NULL;
  fuzz_assert(eol == NULL ? r->eol == NULL : r->eol != NULL && strcmp(r->eol, eol) == 0);
  fuzz_assert(r->content != NULL && strlen(r->content) == r->content_len);
  fuzz_assert(g_utf8_validate(r->content, (gssize)r->content_len, NULL));

  fuzz_assert((r->shown_first == 0) == (r->shown_last == 0));
  if (r->shown_first != 0) {
    fuzz_assert(r->shown_first == MAX(offset, first));
    fuzz_assert(r->shown_last >= r->shown_first && r->shown_last <= total);
    fuzz_assert(r->shown_last - r->shown_first < limit);
  } else {
    /* Under a token cap even the first line may not fit. */
    fuzz_assert(offset > total || total == first - 1 || o->max_tokens > 0);
  }
  if (!r->truncated)
    fuzz_assert(offset == 1 && MAX(o->column, 1) == 1 && r->shown_last == total);
  if (o->max_content > 0 && r->shown_last > r->shown_first)
    fuzz_assert(r->content_len <= o->max_content);

  if (o->max_tokens > 0 && r->shown_last > 0)
    fuzz_assert(tokens_text(r->content, r->content_len) <= o->max_tokens);
  /* Under a token cap the engine's estimate of what it shows is the content's. */
  fuzz_assert(r->milli == (o->max_tokens > 0 ? tokens_text_milli(r->content, r->content_len) : -1));

  if (o->max_content == 0 && o->max_tokens == 0) {
    g_autofree char *want = render(o, text, n, total);

    fuzz_assert(strcmp(want, r->content) == 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  LinesOptions o;
  LinesResult whole, pieces;
  g_autofree char *raw = NULL, *text = NULL;
  uint32_t state;

  if (size < FUZZ_HEADER)
    return 0;
  memset(&o, 0, sizeof o);
  o.offset = data[0] < 250 ? data[0] : INT64_MAX - (255 - data[0]); /* and past the end */
  o.limit = data[1] < 250 ? data[1] : INT64_MAX - (255 - data[1]);
  o.line_numbers = data[2] & 1;
  o.max_line_chars = data[3];
  o.max_content = (size_t)data[4] << 8 | data[5];
  o.size_hint = data[2] >> 1;
  o.max_tokens = data[2] & 2 ? (int64_t)data[5] + 1 : 0;
  state = data[6] | 0x100u;
  o.column = data[7] < 250 ? data[7] : INT64_MAX - (255 - data[7]);
  o.first_line = data[8] < 128 ? 1 : data[8] - 126;
  if (o.first_line > 1 && o.offset < 250)
    o.offset = MAX(o.offset, 1) + o.first_line - 1; /* as a tail asks: from its first line on */

  /* The engine's input is valid UTF-8 without NUL bytes, as the decoders hand it over. */
  raw = g_malloc(size - FUZZ_HEADER + 1);
  memcpy(raw, data + FUZZ_HEADER, size - FUZZ_HEADER);
  for (size_t i = 0; i < size - FUZZ_HEADER; i++)
    if (raw[i] == '\0')
      raw[i] = ' ';
  text = g_utf8_make_valid(raw, (gssize)(size - FUZZ_HEADER));

  run(&o, text, strlen(text), NULL, &whole);
  run(&o, text, strlen(text), &state, &pieces);
  check(&o, text, strlen(text), &whole);
  fuzz_assert(pieces.content_len == whole.content_len);
  fuzz_assert(memcmp(pieces.content, whole.content, whole.content_len) == 0);
  fuzz_assert(pieces.lines == whole.lines && pieces.eol == whole.eol);
  fuzz_assert(pieces.truncated == whole.truncated);
  fuzz_assert(pieces.shown_first == whole.shown_first && pieces.shown_last == whole.shown_last);
  g_free(whole.content);
  g_free(pieces.content);
  return 0;
}
