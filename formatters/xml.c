#include "formatters/xml.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "basic/path-bytes.h"
#include "formatters/result-json.h"
#include "formatters/tokens.h"

/* U+FFFD REPLACEMENT CHARACTER, for whatever XML 1.0 cannot carry. */
#define REPLACEMENT "\xEF\xBF\xBD"

/* Where the element goes: appended to out as it is, or (json) escaped as the inside of a JSON
 * string, so that the JSON formats never hold the element twice nor pass over it twice. */
typedef struct {
  GString *out;
  bool json;
} Sink;

/* Small pieces are gathered here and handed to the sink together. */
#define OUT_BUF_SIZE 4096

/* Elements open at once, at most: <Content>, a section, a part. */
#define OUT_DEPTH 8

/* The element writer. It writes what the contract's XML needs and no more: elements with
 * attributes in single quotes (values escaped by put_attr_len), CDATA sections, raw text; an
 * element with nothing inside ends "/>". The failure flag is sticky, so that the formatting code
 * can write everything and check once at the end. */
typedef struct {
  Sink *sink;
  char buf[OUT_BUF_SIZE];
  size_t len;
  const char *open[OUT_DEPTH]; /* names of the open elements, static */
  int depth;
  bool tag_open; /* the last start tag still owes its '>' */
  bool in_attr;  /* an attribute's value is being written */
  bool failed;
  bool in_cdata;
  bool skeleton; /* the markup alone: each text the file shows is left out of its CDATA */
  int64_t seams; /* texts the skeleton left out */
} XmlOut;

/* Every call hands over whole characters: the writer's own output (names, quotes, brackets) is
 * ASCII, and the raw runs below end at character boundaries (see out_raw). */
static void sink_put(Sink *s, const char *p, size_t len) {
  if (s->json)
    result_json_escape(s->out, p, len);
  else
    g_string_append_len(s->out, p, (gssize)len);
}

static void out_flush(XmlOut *x) {
  if (x->len > 0)
    sink_put(x->sink, x->buf, x->len);
  x->len = 0;
}

/* Raw writes at least this long skip the buffer. */
#define OUT_DIRECT_MIN 256

/* Appends whole characters: a piece that does not fit goes after what the buffer holds, and a
 * long one (a file's text) straight to the sink, not copied once more. */
static void out_put(XmlOut *x, const char *s, size_t len) {
  if (len > sizeof x->buf - x->len)
    out_flush(x);
  if (len >= OUT_DIRECT_MIN) {
    out_flush(x);
    sink_put(x->sink, s, len);
    return;
  }
  memcpy(x->buf + x->len, s, len);
  x->len += len;
}

/* The '>' a start tag owes before anything goes inside its element. */
static void out_close_tag(XmlOut *x) {
  if (x->tag_open) {
    out_put(x, ">", 1);
    x->tag_open = false;
  }
}

/* Raw bytes, inside the open element or an attribute's value. */
static void out_raw(XmlOut *x, const char *s, size_t len) {
  if (x->failed || len == 0)
    return;
  if (!x->in_attr)
    out_close_tag(x);
  out_put(x, s, len);
}

static void out_start_element(XmlOut *x, const char *name) {
  if (x->failed)
    return;
  if (x->depth == OUT_DEPTH) {
    x->failed = true;
    return;
  }
  out_close_tag(x);
  out_put(x, "<", 1);
  out_put(x, name, strlen(name));
  x->open[x->depth++] = name;
  x->tag_open = true;
}

static void out_end_element(XmlOut *x) {
  const char *name;

  if (x->failed || x->depth == 0)
    return;
  name = x->open[--x->depth];
  if (x->tag_open) {
    out_put(x, "/>", 2);
    x->tag_open = false;
    return;
  }
  out_put(x, "</", 2);
  out_put(x, name, strlen(name));
  out_put(x, ">", 1);
}

/* For the non-ASCII character at s: its length when it is valid UTF-8 that XML 1.0 allows;
 * otherwise 0, and *ret_skip says how many bytes one U+FFFD replaces. */
static size_t xml_multibyte(const char *s, size_t len, size_t *ret_skip) {
  uint32_t cp;
  size_t n = result_utf8_decode(s, len, &cp);

  if (n == 0) {
    *ret_skip = 1;
    return 0;
  }
  if (cp == 0xFFFE || cp == 0xFFFF) {
    *ret_skip = n;
    return 0;
  }
  return n;
}

static void cdata_put(XmlOut *x, const char *s, size_t len) {
  if (len == 0 || x->failed)
    return;
  if (!x->in_cdata) {
    out_raw(x, "<![CDATA[", 9);
    x->in_cdata = true;
  }
  out_raw(x, s, len);
}

static void cdata_close(XmlOut *x) {
  if (!x->in_cdata)
    return;
  out_raw(x, "]]>", 3);
  x->in_cdata = false;
}

/* 1 for the bytes CDATA carries as they are and that need no look: printable ASCII but '>',
 * tab and LF. Everything else stops the scan. */
/* clang-format off */
static const uint8_t cdata_plain[256] = {
    ['\t'] = 1, ['\n'] = 1,
    [0x20] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20-0x2f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1,           /* 0x30-0x3f, '>' = 0x3e */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x40-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x50-0x5f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x60-0x6f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x70-0x7f */
};
/* clang-format on */

/* How many bytes from p CDATA carries with no look (at most n). */
static inline size_t cdata_plain_run(const unsigned char *p, size_t n) {
  size_t i = 0;
#ifdef __SSE2__
  const __m128i space = _mm_set1_epi8(0x20), gt = _mm_set1_epi8('>');
  const __m128i tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n');

  /* 16 bytes at a time: a signed compare with 0x20 catches controls and non-ASCII at once;
   * tab and LF, the common controls, are let through. */
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lf));
    __m128i stop =
        _mm_or_si128(_mm_andnot_si128(ok, _mm_cmplt_epi8(v, space)), _mm_cmpeq_epi8(v, gt));
    int mask = _mm_movemask_epi8(stop);

    if (mask != 0)
      return i + (size_t)__builtin_ctz((unsigned)mask);
  }
#endif
  while (i < n && cdata_plain[p[i]])
    i++;
  return i;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CDATA_AVX2 1

/* cdata_plain_run() 32 bytes at a time, on a CPU with AVX2; the last bytes go 16 at a time. */
static __attribute__((target("avx2"))) size_t cdata_plain_run_avx2(const unsigned char *p,
                                                                   size_t n) {
  const __m256i space = _mm256_set1_epi8(0x20), gt = _mm256_set1_epi8('>');
  const __m256i tab = _mm256_set1_epi8('\t'), lf = _mm256_set1_epi8('\n');
  size_t i = 0;

  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
    __m256i ok = _mm256_or_si256(_mm256_cmpeq_epi8(v, tab), _mm256_cmpeq_epi8(v, lf));
    __m256i stop = _mm256_or_si256(_mm256_andnot_si256(ok, _mm256_cmpgt_epi8(space, v)),
                                   _mm256_cmpeq_epi8(v, gt));
    unsigned mask = (unsigned)_mm256_movemask_epi8(stop);

    if (mask != 0)
      return i + (size_t)__builtin_ctz(mask);
  }
  return i + cdata_plain_run(p + i, n - i);
}
#endif

/* Writes s as CDATA sections in one pass, copying runs of acceptable bytes straight through.
 * A section ends after "]]" whenever ">" follows, so "]]>" never appears inside one; a CR goes
 * between sections as &#13; because a parser would turn a CR inside CDATA into LF. */
static void put_cdata(XmlOut *x, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t run = 0, i = 0;
#ifdef CDATA_AVX2
  const bool avx2 = __builtin_cpu_supports("avx2");
#endif

  while (i < len && !x->failed) {
    unsigned char c;
    size_t skip = 1;

#ifdef CDATA_AVX2
    i += avx2 ? cdata_plain_run_avx2(u + i, len - i) : cdata_plain_run(u + i, len - i);
#else
    i += cdata_plain_run(u + i, len - i);
#endif
    if (i == len)
      break;
    c = u[i];
    if (c == '>') {
      if (i >= 2 && u[i - 1] == ']' && u[i - 2] == ']') {
        cdata_put(x, s + run, i - run);
        cdata_close(x);
        run = i;
      }
      i++;
      continue;
    }
    if (c >= 0x80) {
      size_t n = xml_multibyte(s + i, len - i, &skip);

      if (n > 0) {
        i += n;
        continue;
      }
    }
    cdata_put(x, s + run, i - run);
    if (c == '\r') {
      cdata_close(x);
      out_raw(x, "&#13;", 5);
    } else {
      cdata_put(x, REPLACEMENT, strlen(REPLACEMENT));
    }
    i += skip;
    run = i;
  }
  cdata_put(x, s + run, i - run);
  cdata_close(x);
}

/* The reference an attribute value needs for an ASCII byte, or NULL when it goes as is.
 * Tab, LF and CR are referenced so that attribute-value normalization keeps them. */
static const char *attr_escape(unsigned char c) {
  switch (c) {
  case '&':
    return "&amp;";
  case '<':
    return "&lt;";
  case '>':
    return "&gt;";
  case '\'':
    return "&apos;";
  case '\t':
    return "&#9;";
  case '\n':
    return "&#10;";
  case '\r':
    return "&#13;";
  default:
    return c < 0x20 ? REPLACEMENT : NULL;
  }
}

/* 1 for the bytes an attribute's value carries as they are (attr_escape() gives NULL): printable
 * ASCII but '&', '<', '>' and the quote, and DEL. */
/* clang-format off */
static const uint8_t attr_plain[256] = {
    [0x20] = 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20-0x2f: '&' 0x26, '\'' 0x27 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1,           /* 0x30-0x3f: '<' 0x3c, '>' 0x3e */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x40-0x4f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x50-0x5f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x60-0x6f */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           /* 0x70-0x7f */
};
/* clang-format on */

/* Writes one attribute. libxml2's own escaping leaves the quote character alone when it is
 * '\'', and passes invalid UTF-8 on, so the value is escaped here and written raw. */
static void put_attr_len(XmlOut *x, const char *name, const char *s, size_t len) {
  size_t run = 0, i = 0;

  if (x->failed)
    return;
  if (!x->tag_open) {
    x->failed = true;
    return;
  }
  out_put(x, " ", 1);
  out_put(x, name, strlen(name));
  out_put(x, "='", 2);
  x->in_attr = true;
  while (i < len && !x->failed) {
    unsigned char c;
    const char *esc = NULL;
    size_t skip = 1;

    while (i < len && attr_plain[(unsigned char)s[i]])
      i++;
    if (i == len)
      break;
    c = (unsigned char)s[i];
    if (c < 0x80) {
      esc = attr_escape(c);
      if (esc == NULL) {
        i++;
        continue;
      }
    } else {
      size_t n = xml_multibyte(s + i, len - i, &skip);

      if (n > 0) {
        i += n;
        continue;
      }
      esc = REPLACEMENT;
    }
    out_raw(x, s + run, i - run);
    out_raw(x, esc, strlen(esc));
    i += skip;
    run = i;
  }
  out_raw(x, s + run, i - run);
  x->in_attr = false;
  out_put(x, "'", 1);
}

static void put_attr(XmlOut *x, const char *name, const char *value) {
  if (value == NULL)
    value = "";
  put_attr_len(x, name, value, strlen(value));
}

static void put_attr_int(XmlOut *x, const char *name, int64_t v) {
  char buf[RESULT_INT_MAX];

  put_attr_len(x, name, buf, result_format_int(buf, v));
}

/* path, and pathBytes when path cannot say the name exactly (basic/path-bytes.h). */
static void put_path(XmlOut *x, const char *path) {
  g_autofree char *bytes = path_bytes_escape(path);

  put_attr(x, "path", path);
  if (bytes != NULL)
    put_attr(x, "pathBytes", bytes);
}

/* A notebook's or document's attributes: format, the count of its sections, language. */
static void put_section_fields(XmlOut *x, const FileResult *f) {
  const char *count = file_result_sections_name(f);

  if (f->format != NULL)
    put_attr(x, "format", f->format);
  if (count != NULL)
    put_attr_int(x, count, f->sections);
  if (f->language != NULL)
    put_attr(x, "language", f->language);
}

/* Text, failure, pdf and image attributes after path, type, code and error, in the order the
 * contract shows them. Each is written only when it is set. */
static void put_fields(XmlOut *x, const FileResult *f, int64_t image_index) {
  bool ok = f->code == NULL;
  char buf[XML_TIME_MAX > 24 ? XML_TIME_MAX : 24];

  if (f->bytes >= 0)
    put_attr_int(x, "bytes", f->bytes);
  if (ok && f->type == FILE_TYPE_TEXT && f->lines >= 0)
    put_attr_int(x, "lines", f->lines);
  if (f->modified_ms != RESULT_TIME_UNKNOWN)
    put_attr_len(x, "modified", buf, xml_format_time(f->modified_ms, buf));
  /* A file the budget left out shows nothing whose version the model would hold: its etag
   * is in files[] only, and the listing stays short. */
  if (f->etag[0] != '\0' && !f->unchanged && g_strcmp0(f->omitted, OMITTED_BUDGET) != 0)
    put_attr(x, "etag", f->etag);
  put_attr_int(x, "tokens", f->tokens);
  if (file_result_listed(f))
    put_attr_int(x, "tokensTotal", f->tokens_total);
  if (!ok || f->unchanged)
    return;
  /* A plan entry or an omission: what is known of the file, nothing shown. */
  if (f->omitted != NULL || f->planned) {
    if (f->encoding != NULL)
      put_attr(x, "encoding", f->encoding);
    if (f->type == FILE_TYPE_PDF && f->pages > 0)
      put_attr_int(x, "pages", f->pages);
    if (f->type == FILE_TYPE_IMAGE && f->width > 0) {
      put_attr_int(x, "width", f->width);
      put_attr_int(x, "height", f->height);
    }
    /* A notebook's cells, a document's slides or sheets, a DOCX's lines. */
    if (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT)
      put_section_fields(x, f);
    if (f->type == FILE_TYPE_DOCUMENT && f->lines > 0)
      put_attr_int(x, "lines", f->lines);
    return;
  }
  if (f->encoding != NULL)
    put_attr(x, "encoding", f->encoding);
  if (f->encoding_source != NULL)
    put_attr(x, "encodingSource", f->encoding_source);
  if (f->bom)
    put_attr(x, "bom", "true");
  if (f->eol != NULL)
    put_attr(x, "eol", f->eol);
  if (f->type == FILE_TYPE_PDF) {
    put_attr_int(x, "pages", f->pages);
    if (f->title != NULL)
      put_attr(x, "title", f->title);
    if (f->author != NULL)
      put_attr(x, "author", f->author);
  }
  if (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT)
    put_section_fields(x, f);
  if (f->truncated)
    put_attr(x, "truncated", "true");
  if (f->shown_first > 0) {
    char range[2 * RESULT_INT_MAX + 1];
    size_t n = result_format_int(range, f->shown_first);

    range[n++] = '-';
    n += result_format_int(range + n, f->shown_last);
    put_attr_len(x, "shown", range, n);
  }
  if (f->type == FILE_TYPE_IMAGE && f->n_images > 0) {
    const ImageOut *img = &f->images[0];

    put_attr(x, "mediaType", img->media_type);
    put_attr_int(x, "width", img->width);
    put_attr_int(x, "height", img->height);
    if (img->original_width > 0) {
      put_attr_int(x, "originalWidth", img->original_width);
      put_attr_int(x, "originalHeight", img->original_height);
    }
    if (f->animated)
      put_attr(x, "animated", "true");
    put_attr_int(x, "image", image_index);
    if (img->tile.count > 0)
      put_attr_int(x, "tiles", img->tile.count);
  }
}

/* Ends the open element and puts a newline after it. */
static void put_end_line(XmlOut *x) {
  out_end_element(x);
  out_raw(x, "\n", 1);
}

/* Text as CDATA, then a newline unless the text is empty or ends with one. A skeleton keeps
 * the CDATA wrapper and the newline, and leaves the text out. */
static void put_cdata_line(XmlOut *x, const char *text, size_t len) {
  if (x->skeleton) {
    if (len > 0) {
      out_raw(x, "<![CDATA[]]>\n", 13);
      x->seams++;
    }
    return;
  }
  put_cdata(x, text, len);
  if (len > 0 && text[len - 1] != '\n')
    out_raw(x, "\n", 1);
}

/* Text inside an element that has more after it: a newline before, and after unless the text
 * ends with one. Nothing for no text. */
static void put_inner_text(XmlOut *x, const char *text, size_t len) {
  /* A skeleton needs only the length: the text may already live in the file's piece. */
  if ((text == NULL && !x->skeleton) || len == 0)
    return;
  out_raw(x, "\n", 1);
  put_cdata_line(x, text, len);
}

/* The file's notice (when it has one) as text after its elements. */
static void put_notice(XmlOut *x, const FileResult *f) {
  if (f->notice != NULL)
    put_cdata_line(x, f->notice, strlen(f->notice));
}

/* A tiled picture's body: one <Tile image='k' x y width height/> per tile sent (its box in
 * pixels of the whole picture), then the notice naming the tiles left out. */
static void put_tiles(XmlOut *x, const FileResult *f, int64_t image_index) {
  out_raw(x, "\n", 1);
  for (size_t i = 0; i < f->n_images && !x->failed; i++) {
    const ImageTile *t = &f->images[i].tile;

    out_start_element(x, "Tile");
    put_attr_int(x, "image", image_index + (int64_t)i);
    put_attr_int(x, "x", t->x);
    put_attr_int(x, "y", t->y);
    put_attr_int(x, "width", t->width);
    put_attr_int(x, "height", t->height);
    put_end_line(x);
  }
  put_notice(x, f);
}

/* An element holding text: <name>, a newline, the text as CDATA, a newline, </name>. */
static void put_text_element(XmlOut *x, const char *name, const char *text, size_t len) {
  out_start_element(x, name);
  out_raw(x, "\n", 1);
  put_cdata_line(x, text, len);
  put_end_line(x);
}

/* A PDF's body: the outline, one <Page> per page shown (image='k' when it was rendered; k
 * counts from the file's first image, image_index), then the notice. */
static void put_pdf(XmlOut *x, const FileResult *f, int64_t image_index) {
  out_raw(x, "\n", 1);
  if (f->outline != NULL)
    put_text_element(x, "Outline", f->outline, strlen(f->outline));
  for (size_t i = 0; i < f->n_page_out && !x->failed; i++) {
    const PageOut *p = &f->page_out[i];

    out_start_element(x, "Page");
    put_attr_int(x, "number", p->number);
    if (p->image >= 0)
      put_attr_int(x, "image", image_index + p->image);
    put_inner_text(x, p->text, p->text_len);
    put_end_line(x);
  }
  put_notice(x, f);
}

/* One part of a section: <Output kind name image> or <Notes>, with its text. */
static void put_part(XmlOut *x, const SectionPart *p, int64_t image_index) {
  out_start_element(x, p->element);
  if (p->kind != NULL)
    put_attr(x, "kind", p->kind);
  if (p->name != NULL)
    put_attr(x, "name", p->name);
  if (p->image >= 0)
    put_attr_int(x, "image", image_index + p->image);
  put_inner_text(x, p->text, p->text_len);
  put_end_line(x);
}

/* A notebook's or document's sections (<Cell index kind language>, <Slide number>, <Sheet
 * number name rows>), each with its text and its parts; then the notice. */
static void put_sections(XmlOut *x, const FileResult *f, int64_t image_index) {
  if (f->content == NULL || f->content_len == 0)
    out_raw(x, "\n", 1);
  for (size_t i = 0; i < f->n_section_out && !x->failed; i++) {
    const SectionOut *s = &f->section_out[i];

    out_start_element(x, s->element);
    put_attr_int(x, strcmp(s->element, "Cell") == 0 ? "index" : "number", s->number);
    if (s->kind != NULL)
      put_attr(x, "kind", s->kind);
    if (s->language != NULL)
      put_attr(x, "language", s->language);
    if (s->name != NULL)
      put_attr(x, "name", s->name);
    if (strcmp(s->element, "Sheet") == 0)
      put_attr_int(x, "rows", s->rows);
    put_inner_text(x, s->text, s->text_len);
    if (s->n_parts > 0 && (s->text == NULL || s->text_len == 0))
      out_raw(x, "\n", 1);
    for (size_t k = 0; k < s->n_parts && !x->failed; k++)
      put_part(x, &s->parts[k], image_index);
    put_end_line(x);
  }
  put_notice(x, f);
}

/* The budget's summary of the files it left out from f on: <Omitted files bytes tokensTotal
 * first skip>, and what to do about them in words. */
static void put_summary(XmlOut *x, const FileResult *f) {
  const ResultSummary *s = f->summary;
  g_autofree char *message = NULL;

  out_start_element(x, "Omitted");
  put_attr_int(x, "files", (int64_t)s->files);
  put_attr_int(x, "bytes", s->bytes);
  put_attr_int(x, "tokensTotal", s->tokens_total);
  put_attr(x, "first", f->path);
  put_attr_int(x, "skip", s->skip);
  if (s->cap_mib > 0)
    message = g_strdup_printf("%zu files past the answer's cap of %zu MiB of content, from the "
                              "one named first on; read them next with the same request and "
                              "skip=%" PRId64,
                              s->files, s->cap_mib, s->skip);
  else
    message = g_strdup_printf("%zu files left out by the budget, from the one named first "
                              "on; read them next with the same request and skip=%" PRId64,
                              s->files, s->skip);
  put_cdata(x, message, strlen(message));
  put_end_line(x);
}

/* One <Content> element and the newline after it; for a file the budget summarized, its
 * summary when it is the first of them, else nothing. */
static void put_content(XmlOut *x, const FileResult *f, int64_t image_index) {
  const char *type = file_type_name(f->type);

  if (x->failed)
    return;
  if (f->summarized) {
    if (f->summary != NULL)
      put_summary(x, f);
    return;
  }
  out_start_element(x, "Content");
  put_path(x, f->path);
  if (f->unchanged) {
    /* What the client already has is current: the element says so and nothing more. */
    put_attr(x, "unchanged", "true");
    put_attr(x, "etag", f->etag);
  }
  if (type != NULL)
    put_attr(x, "type", type);
  if (f->code != NULL) {
    put_attr(x, "code", f->code);
    put_attr(x, "error", f->error);
  }
  if (f->expanded)
    put_attr_int(x, "from", (int64_t)f->from);
  if (f->omitted != NULL)
    put_attr(x, "omitted", f->omitted);
  put_fields(x, f, image_index);
  if (f->code == NULL && (f->omitted != NULL || f->planned)) {
    /* Nothing shown. */
  } else if (f->code == NULL) {
    put_inner_text(x, f->content, f->content_len);
  }
  if (f->code == NULL && f->type == FILE_TYPE_PDF && f->omitted == NULL && !f->planned)
    put_pdf(x, f, image_index);
  if (f->code == NULL && f->type == FILE_TYPE_IMAGE && f->n_images > 0 &&
      f->images[0].tile.count > 0)
    put_tiles(x, f, image_index);
  if (f->code == NULL && f->omitted == NULL && !f->planned &&
      (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT))
    put_sections(x, f, image_index);
  put_end_line(x);
}

/* The notices that follow f, one <Notice> element a line. */
static void put_notices(XmlOut *x, const FileResult *f) {
  for (size_t i = 0; i < f->n_notices && !x->failed; i++) {
    const ResultNotice *n = &f->notices[i];

    out_start_element(x, "Notice");
    put_path(x, n->path);
    put_attr_int(x, "from", (int64_t)n->from);
    put_cdata(x, n->message, strlen(n->message));
    put_end_line(x);
  }
}

static int format_content(Sink *sink, const FileResult *f, int64_t image_index, bool skeleton,
                          int64_t *ret_seams) {
  XmlOut *x;
  int rc;

  if (file_result_silent(f))
    return 0; /* nothing to write: a file the budget's summary counts */
  x = g_new(XmlOut, 1);
  x->sink = sink;
  x->len = 0;
  x->depth = 0;
  x->tag_open = x->in_attr = x->failed = x->in_cdata = false;
  x->skeleton = skeleton;
  x->seams = 0;
  put_content(x, f, image_index);
  put_notices(x, f);
  out_flush(x);
  if (ret_seams != NULL)
    *ret_seams = x->seams;
  rc = x->failed || x->depth != 0 ? -EINVAL : 0;
  g_free(x);
  return rc;
}

/* Appends one <Content> element; see xml.h. */
int xml_format_content(GString *out, const FileResult *f, int64_t image_index) {
  Sink sink = {.out = out, .json = false};

  return format_content(&sink, f, image_index, false, NULL);
}

/* The estimated tokens of f's piece of the XML; see xml.h. */
int64_t xml_content_tokens(const FileResult *f, int64_t image_index, bool markup_only) {
  GString *out = g_string_sized_new(512);
  Sink sink = {.out = out, .json = false};
  int64_t n = -EINVAL, seams = 0;

  /* Where a text meets its CDATA wrapper, the estimate of the two together is up to about
   * XML_SEAM_TOKENS more than their estimates apart (a run of punctuation or blanks that
   * spans the seam is priced once, not twice, and may be priced higher). */
  if (format_content(&sink, f, image_index, markup_only, &seams) == 0)
    n = tokens_text(out->str, out->len) + seams * XML_SEAM_TOKENS;
  g_string_free(out, TRUE);
  return n;
}

/* Appends one <Content> element as the inside of a JSON string; see xml.h. */
int xml_format_content_json(GString *out, const FileResult *f, int64_t image_index) {
  Sink sink = {.out = out, .json = true};

  return format_content(&sink, f, image_index, false, NULL);
}

/* Appends the document's start tag; see xml.h. Numbers need no escaping. */
void xml_format_open(GString *out, const ReadResult *r) {
  int64_t bytes, lines, tokens, total;

  read_result_totals(r, &bytes, &lines);
  read_result_tokens(r, &tokens, &total);
  g_string_append_printf(
      out, "<ReadResults bytes='%" PRId64 "' lines='%" PRId64 "' tokens='%" PRId64 "'", bytes,
      lines, tokens);
  if (r != NULL && r->budget > 0 && !r->plan)
    g_string_append_printf(out, " answerTokens='%" PRId64 "'", r->answer_tokens);
  if (r != NULL && r->budget > 0)
    g_string_append_printf(out, " budget='%" PRId64 "'", r->budget);
  if (r != NULL && r->plan)
    g_string_append_printf(out, " plan='true' tokensTotal='%" PRId64 "'", total);
  g_string_append(out, ">\n");
}

/* What the document will roughly take, so the string is allocated once in the usual case. */
static size_t xml_estimate(const ReadResult *r) {
  size_t n = 64;

  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    n += 256 + f->content_len + f->content_len / 64;
    n += f->path != NULL ? strlen(f->path) : 0;
    n += f->error != NULL ? strlen(f->error) : 0;
  }
  return n;
}

/* Formats r as the contract's XML document; see xml.h. */
char *xml_format(const ReadResult *r, size_t *ret_len) {
  static const ReadResult empty = {0};
  int64_t image_index = 0;
  GString *gs;

  if (r == NULL)
    r = &empty;
  gs = g_string_sized_new(xml_estimate(r));
  xml_format_open(gs, r);
  for (size_t i = 0; i < r->n_files; i++) {
    const FileResult *f = &r->files[i];

    if (xml_format_content(gs, f, image_index) < 0) {
      g_string_free(gs, TRUE);
      return NULL;
    }
    if (f->code == NULL)
      image_index += (int64_t)f->n_images;
  }
  g_string_append(gs, XML_RESULTS_CLOSE);
  if (ret_len != NULL)
    *ret_len = gs->len;
  return g_string_free(gs, FALSE);
}

/* Writes v (>= 0) as n digits, zero-padded, at p; returns p + n. */
static char *put_digits(char *p, int64_t v, int n) {
  for (int i = n - 1; i >= 0; i--, v /= 10)
    p[i] = (char)('0' + v % 10);
  return p + n;
}

/* Writes ms as ISO-8601 UTC with milliseconds; see xml.h. */
size_t xml_format_time(int64_t ms, char *buf) {
  int64_t secs = ms / 1000, milli = ms % 1000, days, sod, era, doe, yoe, doy, mp, year;
  int month, day;

  /* C division truncates toward zero; times before 1970 need floor division. */
  if (milli < 0) {
    milli += 1000;
    secs--;
  }
  days = secs / 86400;
  sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days--;
  }
  /* Civil date from days since 1970-01-01 in the proleptic Gregorian calendar, counted in
   * 400-year eras that start on March 1st so that the leap day ends each year. */
  days += 719468;
  era = (days >= 0 ? days : days - 146096) / 146097;
  doe = days - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  day = (int)(doy - (153 * mp + 2) / 5 + 1);
  month = (int)(mp < 10 ? mp + 3 : mp - 9);
  year = yoe + era * 400 + (month <= 2);

  if (year < 0 || year > 9999)
    return (size_t)snprintf(buf, XML_TIME_MAX, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d.%03dZ",
                            year, month, day, (int)(sod / 3600), (int)(sod / 60 % 60),
                            (int)(sod % 60), (int)milli);
  /* Every file has one: printed digit by digit, not through printf (a tenth of a small file's
   * formatting). */
  {
    char *p = put_digits(buf, year, 4);

    *p++ = '-';
    p = put_digits(p, month, 2);
    *p++ = '-';
    p = put_digits(p, day, 2);
    *p++ = 'T';
    p = put_digits(p, sod / 3600, 2);
    *p++ = ':';
    p = put_digits(p, sod / 60 % 60, 2);
    *p++ = ':';
    p = put_digits(p, sod % 60, 2);
    *p++ = '.';
    p = put_digits(p, milli, 3);
    *p++ = 'Z';
    *p = '\0';
    return (size_t)(p - buf);
  }
}
