/* Fuzz target for the worker wire (daemon/worker/pdf-wire.c): the input is a stream of records as
 * either side of the worker socket may receive it.
 *
 * The first byte seeds the cuts: the rest arrives in pieces of 1 to 300 bytes and records are
 * cut out of the buffer as the readers do (complete ones at its front, the rest kept). The
 * records must be the same as those cut from the whole stream at once, lie inside the buffer,
 * and encode back (pdf_wire_put) to exactly the bytes they were cut from; pdf_wire_u32 must
 * answer true exactly when four bytes lie at the offset asked. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "daemon/worker/pdf-wire.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_MAX_PIECE 300

/* Checks pdf_wire_u32 at offsets around the payload's end, and far past it. */
static void check_u32(const PdfRecord *rec) {
  size_t ats[] = {0,
                  1,
                  4,
                  8,
                  12,
                  rec->len,
                  rec->len - 1,
                  rec->len - 3,
                  rec->len - 4,
                  rec->len - 5,
                  rec->len + 1,
                  SIZE_MAX,
                  SIZE_MAX - 3};

  for (size_t i = 0; i < G_N_ELEMENTS(ats); i++) {
    size_t at = ats[i];
    bool fits = at <= rec->len && rec->len - at >= 4;
    uint32_t v = 0;

    fuzz_assert((pdf_wire_u32(rec, at, &v) == 0) == fits);
    if (fits)
      fuzz_assert(v == ((uint32_t)rec->data[at] | (uint32_t)rec->data[at + 1] << 8 |
                        (uint32_t)rec->data[at + 2] << 16 | (uint32_t)rec->data[at + 3] << 24));
  }
}

/* Cuts the records at the front of buf as the readers do, appending each re-encoded to `out`
 * and removing it. Returns pdf_wire_next's last answer (0 or -EBADMSG). */
static ssize_t cut_records(GByteArray *buf, GByteArray *out) {
  size_t at = 0;
  ssize_t used;

  if (buf->len == 0) /* data is NULL then, and NULL + 0 is undefined */
    return 0;
  for (;;) {
    PdfRecord rec;

    used = pdf_wire_next(buf->data + at, buf->len - at, &rec);
    fuzz_assert(used <= 0 || (size_t)used <= buf->len - at);
    if (used <= 0)
      break;
    fuzz_assert((size_t)used == PDF_WIRE_HEADER + rec.len);
    fuzz_assert(rec.data == buf->data + at + PDF_WIRE_HEADER);
    fuzz_assert(rec.len <= PDF_WIRE_MAX_PAYLOAD);
    fuzz_assert(memcmp(&rec.tag, buf->data + at, 4) == 0 || G_BYTE_ORDER != G_LITTLE_ENDIAN);
    check_u32(&rec);
    pdf_wire_put(out, rec.tag, rec.data, rec.len);
    fuzz_assert(memcmp(out->data + out->len - (size_t)used, buf->data + at, (size_t)used) == 0);
    at += (size_t)used;
  }
  g_byte_array_remove_range(buf, 0, (guint)at);
  return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  GByteArray *buf, *out_pieces, *out_whole;
  uint32_t state;
  size_t i;
  ssize_t r = 0, r_whole;

  if (size < 1)
    return 0;
  state = data[0] | 0x100u;
  data++;
  size--;

  buf = g_byte_array_new();
  out_pieces = g_byte_array_new();
  for (i = 0; i < size && r == 0;) {
    size_t n = fuzz_piece(&state, FUZZ_MAX_PIECE, size - i);

    g_byte_array_append(buf, data + i, (guint)n);
    i += n;
    r = cut_records(buf, out_pieces);
  }
  fuzz_assert(r == 0 || r == -EBADMSG);

  /* The whole stream at once gives the same records and the same verdict. */
  g_byte_array_set_size(buf, 0);
  g_byte_array_append(buf, data, (guint)size);
  out_whole = g_byte_array_new();
  r_whole = cut_records(buf, out_whole);
  fuzz_assert(r_whole == r);
  fuzz_assert(out_whole->len == out_pieces->len);
  /* Re-encoded, the records are the stream's first bytes (an empty array's data is NULL). */
  fuzz_assert(out_whole->len == 0 || memcmp(out_whole->data, data, out_whole->len) == 0);
  fuzz_assert(out_pieces->len == 0 || memcmp(out_pieces->data, data, out_pieces->len) == 0);
  /* What is left is one record's start, or the header of a record announced too long. */
  if (r == 0 && buf->len >= PDF_WIRE_HEADER) {
    uint32_t len = (uint32_t)buf->data[4] | (uint32_t)buf->data[5] << 8 |
                   (uint32_t)buf->data[6] << 16 | (uint32_t)buf->data[7] << 24;

    fuzz_assert(buf->len - PDF_WIRE_HEADER < len);
  }
  if (r < 0) {
    uint32_t len = (uint32_t)buf->data[4] | (uint32_t)buf->data[5] << 8 |
                   (uint32_t)buf->data[6] << 16 | (uint32_t)buf->data[7] << 24;

    fuzz_assert(len > PDF_WIRE_MAX_PAYLOAD);
  }

  g_byte_array_unref(buf);
  g_byte_array_unref(out_pieces);
  g_byte_array_unref(out_whole);
  return 0;
}
