#include "daemon/worker/pdf-file-id.h"

#include <errno.h>

static void put_le(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes) {
  uint64_t v = 0;

  for (int i = 0; i < bytes; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* An identity from fstat's answer; see pdf-file-id.h. */
void pdf_file_id_from_stat(const struct stat *st, PdfFileId *ret) {
  *ret = (PdfFileId){.dev = (uint64_t)st->st_dev,
                     .ino = (uint64_t)st->st_ino,
                     .size = (uint64_t)st->st_size,
                     .mtime_sec = (int64_t)st->st_mtim.tv_sec,
                     .mtime_nsec = (uint32_t)st->st_mtim.tv_nsec,
                     .ctime_sec = (int64_t)st->st_ctim.tv_sec,
                     .ctime_nsec = (uint32_t)st->st_ctim.tv_nsec};
}

/* Compares two identities field by field; see pdf-file-id.h. */
bool pdf_file_id_equal(const PdfFileId *a, const PdfFileId *b) {
  return pdf_file_id_same_inode(a, b) && a->size == b->size && a->mtime_sec == b->mtime_sec &&
         a->mtime_nsec == b->mtime_nsec && a->ctime_sec == b->ctime_sec &&
         a->ctime_nsec == b->ctime_nsec;
}

/* Compares device and inode; see pdf-file-id.h. */
bool pdf_file_id_same_inode(const PdfFileId *a, const PdfFileId *b) {
  return a->dev == b->dev && a->ino == b->ino;
}

/* Appends the identity record; see pdf-file-id.h. */
void pdf_file_id_put(GByteArray *out, uint32_t tag, const PdfFileId *id) {
  uint8_t b[PDF_FILE_ID_BYTES];

  put_le(b, id->dev, 8);
  put_le(b + 8, id->ino, 8);
  put_le(b + 16, id->size, 8);
  put_le(b + 24, (uint64_t)id->mtime_sec, 8);
  put_le(b + 32, id->mtime_nsec, 4);
  put_le(b + 36, (uint64_t)id->ctime_sec, 8);
  put_le(b + 44, id->ctime_nsec, 4);
  pdf_wire_put(out, tag, b, sizeof(b));
}

/* Reads the identity record; see pdf-file-id.h. */
int pdf_file_id_parse(const PdfRecord *rec, PdfFileId *ret) {
  const uint8_t *b = rec->data;
  PdfFileId id;

  if (rec->len != PDF_FILE_ID_BYTES)
    return -EBADMSG;
  id = (PdfFileId){.dev = get_le(b, 8),
                   .ino = get_le(b + 8, 8),
                   .size = get_le(b + 16, 8),
                   .mtime_sec = (int64_t)get_le(b + 24, 8),
                   .mtime_nsec = (uint32_t)get_le(b + 32, 4),
                   .ctime_sec = (int64_t)get_le(b + 36, 8),
                   .ctime_nsec = (uint32_t)get_le(b + 44, 4)};
  if (id.mtime_nsec >= 1000000000u || id.ctime_nsec >= 1000000000u)
    return -EBADMSG;
  *ret = id;
  return 0;
}
