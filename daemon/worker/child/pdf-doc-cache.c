#include "daemon/worker/child/pdf-doc-cache.h"

#include <malloc.h>
#include <string.h>

typedef struct {
  PdfFileId id;
  char *password_digest; /* SHA-256 of the password it needed; NULL: none */
  PopplerDocument *doc;
} Entry;

/* Entries, the least recently used first. */
struct PdfDocCache {
  GArray *entries; /* of Entry */
  size_t max_docs;
  size_t max_heap;
};

static char *digest(const char *password) {
  return password != NULL ? g_compute_checksum_for_string(G_CHECKSUM_SHA256, password, -1) : NULL;
}

static void entry_clear(Entry *e) {
  g_clear_object(&e->doc);
  g_free(e->password_digest);
  e->password_digest = NULL;
}

static void drop(PdfDocCache *c, guint i) {
  entry_clear(&g_array_index(c->entries, Entry, i));
  g_array_remove_index(c->entries, i);
}

/* A new cache; see pdf-doc-cache.h. */
PdfDocCache *pdf_doc_cache_new(size_t max_docs, size_t max_heap) {
  PdfDocCache *c = g_new0(PdfDocCache, 1);

  c->entries = g_array_new(FALSE, TRUE, sizeof(Entry));
  c->max_docs = MAX(max_docs, 1);
  c->max_heap = max_heap;
  return c;
}

/* Frees the cache and its documents; see pdf-doc-cache.h. */
void pdf_doc_cache_free(PdfDocCache *c) {
  if (c == NULL)
    return;
  while (c->entries->len > 0)
    drop(c, 0);
  g_array_free(c->entries, TRUE);
  g_free(c);
}

/* Looks a document up; see pdf-doc-cache.h. */
PopplerDocument *pdf_doc_cache_get(PdfDocCache *c, const PdfFileId *id, const char *password) {
  g_autofree char *want = NULL;

  for (guint i = 0; i < c->entries->len; i++) {
    Entry e = g_array_index(c->entries, Entry, i);

    if (!pdf_file_id_equal(&e.id, id))
      continue;
    if (e.password_digest != NULL) {
      if (want == NULL)
        want = digest(password);
      if (want == NULL || strcmp(want, e.password_digest) != 0)
        return NULL;
    }
    /* The most recently used goes last. */
    g_array_remove_index(c->entries, i);
    g_array_append_val(c->entries, e);
    return g_object_ref(e.doc);
  }
  return NULL;
}

/* Keeps a document; see pdf-doc-cache.h. */
void pdf_doc_cache_put(PdfDocCache *c, const PdfFileId *id, const char *password,
                       PopplerDocument *doc) {
  Entry e = {.id = *id, .password_digest = digest(password), .doc = g_object_ref(doc)};

  /* The same file with other contents, or the same contents under another password. */
  for (guint i = c->entries->len; i-- > 0;)
    if (pdf_file_id_same_inode(&g_array_index(c->entries, Entry, i).id, id))
      drop(c, i);
  while (c->entries->len >= c->max_docs)
    drop(c, 0);
  g_array_append_val(c->entries, e);
}

/* Drops documents while the heap is over its bound; see pdf-doc-cache.h. */
size_t pdf_doc_cache_trim(PdfDocCache *c, size_t (*heap_used)(void)) {
  size_t n = 0;

  while (c->entries->len > 0 && heap_used() > c->max_heap) {
    drop(c, 0);
    n++;
  }
  return n;
}

/* Counts the documents kept; see pdf-doc-cache.h. */
size_t pdf_doc_cache_len(const PdfDocCache *c) {
  return c->entries->len;
}

/* Heap in use; see pdf-doc-cache.h. */
size_t pdf_doc_cache_heap_used(void) {
  struct mallinfo2 mi = mallinfo2();

  return mi.uordblks + mi.hblkhd;
}
