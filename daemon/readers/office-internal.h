/* What office.c shares with the readers of each document kind; private to office-*.c. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <archive.h>
#include <glib.h>
#include <libxml/xmlreader.h>

#include "daemon/readers/office.h"

typedef struct Office Office;

/* One document kind: which parts it reads, how, and how it builds the result at the end. */
typedef struct {
  /* True for a part (entry name) the kind parses. */
  bool (*wants)(const char *name);
  /* Parses one wanted part from r (positioned before its first node). Returns 0, or -EBADMSG
   * when r reported an error (office.c tells a damaged part from a limit reached). */
  int (*part)(Office *of, const char *name, xmlTextReaderPtr r);
  /* Once every entry was seen: fills the result. Returns 0 or a negative errno with res set. */
  int (*finish)(Office *of);
  /* Frees the kind's state (of->state); NULL is fine. */
  void (*free)(void *state);
} OfficeFormat;

struct Office {
  const OfficeOptions *o;
  FileResult *res;
  int64_t nodes;    /* XML nodes read in every part */
  int stop;         /* why office_next() stopped: -EFBIG (OFFICE_MAX_NODES), -ECANCELED */
  GHashTable *rels; /* "source part#Id" (and "source part#notesSlide") -> target part */
  void *state;      /* the kind's own */
};

extern const OfficeFormat office_docx;
extern const OfficeFormat office_xlsx;
extern const OfficeFormat office_pptx;

/* xmlTextReaderRead() counted against OFFICE_MAX_NODES and watching the cancel flag: 1 for a
 * node, 0 at the end, -1 on an error or when it stopped (of->stop says why). */
int office_next(Office *of, xmlTextReaderPtr r);

/* The relationship target of `source` (a part name) by Id, or NULL. */
const char *office_rel(const Office *of, const char *source, const char *id);

/* The relationship id (r:id) of r's current element, g_malloc'd, or NULL. Unlike
 * office_attr(r, "id"), a plain "id" attribute (a slide's number) is not taken for it. */
char *office_rel_id(xmlTextReaderPtr r);

/* Appends s to out while out stays within max bytes, cut at a UTF-8 character boundary (s is
 * valid UTF-8, as libxml2 hands it). Returns the bytes of s left out, 0 when all fit. s may be
 * NULL. */
size_t office_append_max(GString *out, const char *s, size_t max);

/* An attribute of r's current element by local name (any namespace), g_malloc'd, or NULL. */
char *office_attr(xmlTextReaderPtr r, const char *local);

/* Appends s to out with every newline, tab and CR turned into a space and '|' escaped as "\|":
 * one cell of a row written as "a | b | c". */
void office_put_cell(GString *out, const char *s);
