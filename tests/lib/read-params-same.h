/* Whether two ReadParams hold the same, field by field (strings by content, interned and static
 * names by address), for the tests and fuzzers that compare two ways of parsing the params. */
#pragma once

#include <stdbool.h>
#include <string.h>

#include "ipc/read-params.h"

static bool read_params_str_same(const char *a, const char *b) {
  return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool read_params_path_same(const PathSpec *a, const PathSpec *b) {
  return read_params_str_same(a->path, b->path) && a->offset == b->offset && a->limit == b->limit &&
         a->tail == b->tail && a->column == b->column && read_params_str_same(a->pages, b->pages) &&
         a->render == b->render && read_params_str_same(a->password, b->password) &&
         a->encoding == b->encoding;
}

static bool read_params_etags_same(GHashTable *a, GHashTable *b) {
  GHashTableIter it;
  gpointer k, v;

  if (a == NULL || b == NULL)
    return a == b;
  if (g_hash_table_size(a) != g_hash_table_size(b))
    return false;
  g_hash_table_iter_init(&it, a);
  while (g_hash_table_iter_next(&it, &k, &v))
    if (!read_params_str_same(v, g_hash_table_lookup(b, k)))
      return false;
  return true;
}

static bool read_params_same(const ReadParams *a, const ReadParams *b) {
  if (a->n_paths != b->n_paths || !read_params_str_same(a->cwd, b->cwd) || a->offset != b->offset ||
      a->limit != b->limit || a->tail != b->tail || a->line_numbers != b->line_numbers ||
      a->max_dimension != b->max_dimension ||
      a->max_total_image_bytes != b->max_total_image_bytes || a->format != b->format ||
      a->image_detail != b->image_detail || a->image_tile != b->image_tile ||
      a->max_answer_bytes != b->max_answer_bytes || memcmp(&a->expand, &b->expand, sizeof a->expand) != 0 ||
      a->budget_tokens != b->budget_tokens || a->plan != b->plan || a->encoding != b->encoding ||
      a->skip != b->skip || !read_params_etags_same(a->if_none_match, b->if_none_match))
    return false;
  for (size_t i = 0; i < a->n_paths; i++)
    if (!read_params_path_same(&a->paths[i], &b->paths[i]))
      return false;
  return true;
}

