/* Plain text, as a terminal agent shows a read: for each file a header line with its path and
 * metadata, then its content as shown (cat -n numbering, notices); images and rendered PDF
 * pages are listed with their sizes, not sent. Files are separated by an empty line:
 *
 *   ==> src/main.c (text, 71 lines, 1841 bytes, utf-8, lf, modified 2025-11-22T09:25:02.123Z) <==
 *        1	#include <stdio.h>
 *
 *   ==> shot.png (image, 48211 bytes, modified …) <==
 *   ==> old.c (unchanged since the read with etag 803-1a2b-731-1732350000123456789, …) <==
 *   [image 0: image/png, 640x400, 64288 bytes of base64]
 *
 * Control characters other than tab and newline (C0, DEL, C1) and invalid UTF-8 are shown as
 * U+FFFD, so that a file cannot drive the terminal that prints it; in the header line, a
 * newline too. The result object is {"text": "…", files, bytes, lines}; bare, the text alone. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <glib.h>

#include "formatters/format-internal.h"
#include "basic/path-bytes.h"
#include "formatters/result-json.h"
#include "formatters/tokens.h"
#include "formatters/xml.h"

#define REPLACEMENT "\xEF\xBF\xBD"

/* Appends s[0..len), each control character (and, unless keep_newlines, each newline) and each
 * byte of invalid UTF-8 replaced with U+FFFD. */
static void text_put(GString *out, const char *s, size_t len, bool keep_newlines) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;

  while (i < len) {
    size_t start = i, n;
    uint32_t cp;

    /* Printable ASCII and tabs go in runs. */
    while (i < len &&
           ((u[i] >= 0x20 && u[i] < 0x7F) || u[i] == '\t' || (u[i] == '\n' && keep_newlines)))
      i++;
    g_string_append_len(out, s + start, (gssize)(i - start));
    if (i == len)
      break;
    if (u[i] < 0x80) {
      g_string_append(out, REPLACEMENT);
      i++;
    } else if ((n = result_utf8_decode(s + i, len - i, &cp)) == 0 || (cp >= 0x80 && cp < 0xA0)) {
      g_string_append(out, REPLACEMENT);
      i += n > 0 ? n : 1;
    } else {
      g_string_append_len(out, s + i, (gssize)n);
      i += n;
    }
  }
}

static void text_put_str(GString *out, const char *s) {
  if (s != NULL)
    text_put(out, s, strlen(s), false);
}

/* A block of lines, with the newline that ends its last line. */
static void text_put_block(GString *out, const char *s, size_t len) {
  if (s == NULL || len == 0)
    return;
  text_put(out, s, len, true);
  if (s[len - 1] != '\n')
    g_string_append_c(out, '\n');
}

/* "[image K: image/png, 640x400 (from 1280x800), 64288 bytes of base64]", a tile
 * "[image K: image/png, 1003x1568, tile 2 of 7: x 0-1080, y 1519-3207 of 1080x10800, …]" */
static void text_image(GString *out, const ImageOut *img, int64_t index) {
  char label[IMAGE_TILE_LABEL_MAX];

  g_string_append_printf(out, "[image %" PRId64 ": ", index);
  text_put_str(out, img->media_type);
  g_string_append_printf(out, ", %dx%d", img->width, img->height);
  if (image_tile_label(img, label))
    g_string_append_printf(out, ", %s", label);
  else if (img->original_width > 0)
    g_string_append_printf(out, " (from %dx%d)", img->original_width, img->original_height);
  g_string_append_printf(out, ", %zu bytes of base64]", img->data_len);
}

/* The metadata of a file read, after its type: "71 lines, 1841 bytes, utf-8, lf, …". */
static void text_meta(GString *out, const FileResult *f) {
  /* A file the budget left out has a line count only when its head was the whole file. */
  if (f->type == FILE_TYPE_TEXT && f->lines >= 0)
    g_string_append_printf(out, ", %" PRId64 " %s", f->lines, f->lines == 1 ? "line" : "lines");
  if (f->type == FILE_TYPE_PDF)
    g_string_append_printf(out, ", %" PRId64 " %s", f->pages, f->pages == 1 ? "page" : "pages");
  if (f->format != NULL)
    g_string_append_printf(out, ", %s", f->format);
  if (file_result_sections_name(f) != NULL)
    g_string_append_printf(out, ", %" PRId64 " %s", f->sections, file_result_sections_name(f));
  if (f->language != NULL) {
    g_string_append(out, ", ");
    text_put_str(out, f->language);
  }
  if (f->bytes >= 0)
    g_string_append_printf(out, ", %" PRId64 " bytes", f->bytes);
  if (f->encoding != NULL)
    g_string_append_printf(out, ", %s%s", f->encoding, f->bom ? " with BOM" : "");
  /* "windows-1252 (fallback)": the encoding was not told by the bytes themselves. */
  if (f->encoding != NULL && f->encoding_source != NULL && !f->bom)
    g_string_append_printf(out, " (%s)", f->encoding_source);
  if (f->eol != NULL)
    g_string_append_printf(out, ", %s", f->eol);
  if (f->animated)
    g_string_append(out, ", animated");
  if (f->title != NULL) {
    g_string_append(out, ", title \"");
    text_put_str(out, f->title);
    g_string_append_c(out, '"');
  }
  if (f->author != NULL) {
    g_string_append(out, ", author \"");
    text_put_str(out, f->author);
    g_string_append_c(out, '"');
  }
  if (f->truncated && f->shown_first > 0 && file_result_sections_name(f) != NULL)
    g_string_append_printf(out, ", %s %" PRId64 "-%" PRId64 " shown", file_result_sections_name(f),
                           f->shown_first, f->shown_last);
  else if (f->truncated && f->shown_first > 0)
    g_string_append_printf(out, ", lines %" PRId64 "-%" PRId64 " shown", f->shown_first,
                           f->shown_last);
  else if (f->truncated)
    g_string_append(out, ", truncated");
}

/* ", pathBytes a\xff.txt" when the path cannot say the name exactly (basic/path-bytes.h):
 * the spelling holds no control character, so it goes out as it is. */
static void text_path_bytes(GString *out, const char *path) {
  g_autofree char *bytes = path_bytes_escape(path);

  if (bytes != NULL)
    g_string_append_printf(out, ", pathBytes %s", bytes);
}

/* "==> PATH (type, metadata, modified …, pathBytes …) <==" and its newline. */
static void text_header(GString *out, const FileResult *f) {
  const char *type = file_type_name(f->type);
  char time[XML_TIME_MAX];

  g_string_append(out, "==> ");
  text_put_str(out, f->path);
  g_string_append(out, " (");
  if (f->unchanged) {
    g_string_append_printf(out, "unchanged since the read with etag %s", f->etag);
    if (f->bytes >= 0)
      g_string_append_printf(out, ", %" PRId64 " bytes", f->bytes);
  } else if (f->code != NULL) {
    g_string_append_printf(out, "error %s: ", f->code);
    text_put_str(out, f->error);
    if (f->bytes >= 0)
      g_string_append_printf(out, ", %" PRId64 " bytes", f->bytes);
  } else {
    g_string_append(out, type != NULL ? type : "file");
    if (f->omitted != NULL)
      g_string_append_printf(out, ", %s, not read", f->omitted);
    text_meta(out, f);
  }
  if (f->modified_ms != RESULT_TIME_UNKNOWN) {
    xml_format_time(f->modified_ms, time);
    g_string_append_printf(out, ", modified %s", time);
  }
  text_path_bytes(out, f->path);
  g_string_append(out, ") <==\n");
}

/* A PDF's body: the outline, each page shown (with its picture when rendered), the notice. */
static void text_pdf(GString *out, const FileResult *f, int64_t image_index) {
  if (f->outline != NULL) {
    g_string_append(out, "Outline:\n");
    text_put_block(out, f->outline, strlen(f->outline));
  }
  for (size_t i = 0; i < f->n_page_out; i++) {
    const PageOut *p = &f->page_out[i];

    g_string_append_printf(out, "--- page %d", p->number);
    if (p->image >= 0 && (size_t)p->image < f->n_images) {
      g_string_append_c(out, ' ');
      text_image(out, &f->images[p->image], image_index + p->image);
    }
    g_string_append(out, " ---\n");
    text_put_block(out, p->text, p->text_len);
  }
  if (f->notice != NULL)
    text_put_block(out, f->notice, strlen(f->notice));
}

/* A notebook's or document's sections: "--- cell 3 (code, python) ---", the source, each
 * output as "[output stream stdout]" and its text (a picture listed); "--- slide 2 ---" and its
 * notes as "[notes]"; "--- sheet 1: Budget (12 rows) ---" and its rows. Then the notice. */
static void text_sections(GString *out, const FileResult *f, int64_t image_index) {
  for (size_t i = 0; i < f->n_section_out; i++) {
    const SectionOut *s = &f->section_out[i];

    g_string_append_printf(out, "--- %c%s %" PRId64, g_ascii_tolower(s->element[0]), s->element + 1,
                           s->number);
    if (s->name != NULL) {
      g_string_append(out, ": ");
      text_put_str(out, s->name);
    }
    if (s->kind != NULL) {
      g_string_append_printf(out, " (%s", s->kind);
      if (s->language != NULL) {
        g_string_append(out, ", ");
        text_put_str(out, s->language);
      }
      g_string_append_c(out, ')');
    }
    if (strcmp(s->element, "Sheet") == 0)
      g_string_append_printf(out, " (%" PRId64 " %s)", s->rows, s->rows == 1 ? "row" : "rows");
    g_string_append(out, " ---\n");
    text_put_block(out, s->text, s->text_len);
    for (size_t k = 0; k < s->n_parts; k++) {
      const SectionPart *p = &s->parts[k];

      g_string_append_c(out, '[');
      g_string_append(out, p->kind != NULL ? "output " : "notes");
      if (p->kind != NULL)
        g_string_append(out, p->kind);
      if (p->name != NULL) {
        g_string_append_c(out, ' ');
        text_put_str(out, p->name);
      }
      g_string_append(out, "]\n");
      if (p->image >= 0 && (size_t)p->image < f->n_images) {
        text_image(out, &f->images[p->image], image_index + p->image);
        g_string_append_c(out, '\n');
      }
      text_put_block(out, p->text, p->text_len);
    }
  }
  if (f->notice != NULL)
    text_put_block(out, f->notice, strlen(f->notice));
}

/* One file as the terminal shows it; a file the budget summarized shows nothing, and the
 * first of them the summary. */
static void text_file_body(GString *out, const FileResult *f, size_t index, int64_t image_index) {
  if (f->summarized) {
    if (f->summary != NULL)
      g_string_append_printf(out,
                             "%s[%zu files left out by %s, from %s on (%" PRId64
                             " bytes, about %" PRId64 " tokens); read them next with the "
                             "same request and skip=%" PRId64 "]\n",
                             index > 0 ? "\n" : "", f->summary->files,
                             f->summary->cap_mib > 0 ? "the answer's size cap" : "the budget",
                             f->path, f->summary->bytes, f->summary->tokens_total,
                             f->summary->skip);
    return;
  }
  if (index > 0)
    g_string_append_c(out, '\n');
  text_header(out, f);
  if (f->code != NULL)
    return;
  text_put_block(out, f->content, f->content_len);
  if (f->type == FILE_TYPE_PDF) {
    text_pdf(out, f, image_index);
    return;
  }
  if (f->type == FILE_TYPE_NOTEBOOK || f->type == FILE_TYPE_DOCUMENT) {
    text_sections(out, f, image_index);
    return;
  }
  for (size_t k = 0; k < f->n_images; k++) {
    text_image(out, &f->images[k], image_index + (int64_t)k);
    g_string_append_c(out, '\n');
  }
  if (f->notice != NULL) /* the tiles left out */
    text_put_block(out, f->notice, strlen(f->notice));
}

/* The notices after a file: "[notice for src/: message]". */
static void text_notices(GString *out, const FileResult *f) {
  for (size_t i = 0; i < f->n_notices; i++) {
    g_string_append(out, "[notice for ");
    text_put_str(out, f->notices[i].path);
    text_path_bytes(out, f->notices[i].path);
    g_string_append(out, ": ");
    text_put_str(out, f->notices[i].message);
    g_string_append(out, "]\n");
  }
}

/* One file, then its notices. */
static void text_body(GString *out, const FileResult *f, size_t index, int64_t image_index) {
  text_file_body(out, f, index, image_index);
  text_notices(out, f);
}

/* f with none of the texts it shows (its content, outline, notice, pages', sections' and
 * outputs' texts): what is left of its piece is markup. The arrays are copies, freed by
 * text_bare_free(); the texts are f's. */
static void text_bare(const FileResult *f, FileResult *ret) {
  *ret = *f;
  ret->content = ret->outline = ret->notice = NULL;
  ret->content_len = 0;
  ret->page_out = g_memdup2(f->page_out, f->n_page_out * sizeof *f->page_out);
  for (size_t i = 0; i < f->n_page_out; i++)
    ret->page_out[i].text_len = 0;
  ret->section_out = g_memdup2(f->section_out, f->n_section_out * sizeof *f->section_out);
  for (size_t i = 0; i < f->n_section_out; i++) {
    SectionOut *s = &ret->section_out[i];

    s->text_len = 0;
    s->parts = g_memdup2(s->parts, s->n_parts * sizeof *s->parts);
    for (size_t k = 0; k < s->n_parts; k++)
      s->parts[k].text_len = 0;
  }
}

static void text_bare_free(FileResult *bare) {
  for (size_t i = 0; i < bare->n_section_out; i++)
    g_free(bare->section_out[i].parts);
  g_free(bare->section_out);
  g_free(bare->page_out);
}

/* The estimate of f's piece as it follows another file's (its blank line included); see
 * Formatter.file_tokens. Its pictures are listed, not sent. */
static int64_t text_file_tokens(const FileResult *f, int64_t image_index, bool markup_only) {
  GString *out = g_string_sized_new(256);
  FileResult bare;
  int64_t n;

  if (markup_only) {
    text_bare(f, &bare);
    text_body(out, &bare, 1, image_index);
    text_bare_free(&bare);
  } else {
    text_body(out, f, 1, image_index);
  }
  n = tokens_text(out->str, out->len);
  g_string_free(out, TRUE);
  return n;
}

static void text_head(GString *out, const ReadResult *r, const FormatOptions *o) {
  if (!o->bare)
    g_string_append(out, "{\"text\":\"");
}

static int text_file(GString *out, const FileResult *f, size_t index, int64_t image_index,
                     const FormatOptions *o) {
  GString *t;

  if (o->bare) {
    text_body(out, f, index, image_index);
    return 0;
  }
  t = g_string_sized_new(f->content_len + 256);
  text_body(t, f, index, image_index);
  result_json_escape(out, t->str, t->len);
  g_string_free(t, TRUE);
  return 0;
}

static void text_tail(GString *out, const ReadResult *r, const FormatOptions *o) {
  if (o->bare)
    return;
  g_string_append(out, "\",");
  result_json_format_files(out, r);
}

const Formatter format_text = {
    .name = "text",
    .head = text_head,
    .file = text_file,
    .tail = text_tail,
    .tail_uses_image_data = false,
    .file_tokens = text_file_tokens,
    .images = TOKENS_IMAGES_NONE,
};
