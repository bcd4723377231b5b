/* The ways a read result is cut to a share, each on its kind's own boundaries: a PDF by pages,
 * a notebook's cells and a PPTX's slides by sections, an XLSX by rows (the same rows in every
 * sheet), a DOCX by lines (its paragraphs), a tiled picture by tiles. A row of the table of
 * kinds (kinds.h) names one; the budget's engine (daemon/request/budget-cut.c) finds how many
 * pieces fit. Pure: a FileResult in, the same FileResult cut. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/readers/kinds.h"
#include "formatters/result.h"

/* A file being cut: its pieces and the scratch a way of cutting keeps. */
typedef struct {
  FileResult *f;
  const Kind *kind;
  int64_t budget;     /* the share the notices name */
  size_t n;           /* pieces f shows */
  int64_t *rows;      /* rows: the row numbers shown, sorted, without repeats (g_malloc'd) */
  SectionOut *sheets; /* rows: the sections of a view (g_malloc'd) */
  char *notice;       /* of the view last made (g_malloc'd) */
} Cut;

struct KindCut {
  /* True when a read result of the kind can be cut at all (a picture: when sent as tiles);
   * NULL: always. */
  bool (*applies)(const FileResult *f);
  /* The pieces c->f shows, preparing c's scratch; 0 when it cannot be cut. */
  size_t (*count)(Cut *c);
  /* The pictures the first k pieces show. */
  size_t (*images)(const Cut *c, size_t k);
  /* The notice of a cut that keeps k pieces (k < n), naming where to read on; g_malloc'd. */
  char *(*notice)(const Cut *c, size_t k);
  /* v, a shallow copy of c->f, as it would be with its first k pieces (k < n). */
  void (*view)(Cut *c, size_t k, FileResult *v);
  /* c->f keeps its first k pieces (k < n) and frees the rest; its notice is set by the caller. */
  void (*commit)(Cut *c, size_t k);
  /* The text of the first piece, which a cut inside it shortens (NULL when it has none);
   * `drop_parts` says that its outputs or notes go first. Returns false for a kind whose pieces
   * cannot be cut inside (a tile). */
  bool (*first_text)(Cut *c, char **ret_text, size_t **ret_len, bool *ret_drop_parts);
  /* The pieces f shows and all of them in the file, for the whole file's estimate. */
  void (*extent)(const FileResult *f, int64_t *ret_shown, int64_t *ret_all);
};

extern const KindCut kind_cut_pages;    /* a PDF: page_out */
extern const KindCut kind_cut_sections; /* a notebook's cells, a PPTX's slides: section_out */
extern const KindCut kind_cut_rows;     /* an XLSX: the rows below a number, in every sheet */
extern const KindCut kind_cut_lines;    /* a DOCX: the lines of its content */
extern const KindCut kind_cut_tiles;    /* a picture sent as tiles: images */

/* The bytes of text that hold its first k lines. */
size_t kind_cut_lines_prefix(const char *text, size_t len, size_t k);

/* The lines of text (a last line without a newline counts). */
size_t kind_cut_count_lines(const char *text, size_t len);
