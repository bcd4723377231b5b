#include "daemon/worker/pdf-wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void put_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Appends one record; see pdf-wire.h. */
void pdf_wire_put(GByteArray *out, uint32_t tag, const void *data, size_t len) {
  uint8_t head[PDF_WIRE_HEADER];

  put_le32(head, tag);
  put_le32(head + 4, (uint32_t)len);
  g_byte_array_append(out, head, sizeof(head));
  if (len > 0)
    g_byte_array_append(out, data, (guint)len);
}

/* Appends a one-u32 record; see pdf-wire.h. */
void pdf_wire_put_u32(GByteArray *out, uint32_t tag, uint32_t v) {
  uint8_t b[4];

  put_le32(b, v);
  pdf_wire_put(out, tag, b, sizeof(b));
}

/* Appends a string record; see pdf-wire.h. */
void pdf_wire_put_str(GByteArray *out, uint32_t tag, const char *s) {
  pdf_wire_put(out, tag, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

/* Cuts one record out of a buffer; see pdf-wire.h. */
ssize_t pdf_wire_next(const uint8_t *buf, size_t len, PdfRecord *ret) {
  size_t payload;

  if (len < PDF_WIRE_HEADER)
    return 0;
  payload = get_le32(buf + 4);
  if (payload > PDF_WIRE_MAX_PAYLOAD)
    return -EBADMSG;
  if (len - PDF_WIRE_HEADER < payload)
    return 0;
  ret->tag = get_le32(buf);
  ret->data = buf + PDF_WIRE_HEADER;
  ret->len = payload;
  return (ssize_t)(PDF_WIRE_HEADER + payload);
}

/* Reads a u32 out of a payload; see pdf-wire.h. */
int pdf_wire_u32(const PdfRecord *rec, size_t at, uint32_t *ret) {
  if (rec->len < at || rec->len - at < 4)
    return -EBADMSG;
  *ret = get_le32(rec->data + at);
  return 0;
}

/* Writes everything; see pdf-wire.h. */
int pdf_wire_write_all(int fd, const void *data, size_t len) {
  const uint8_t *p = data;

  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

    if (n < 0 && errno == ENOTSOCK)
      n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}
