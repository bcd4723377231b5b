#include "daemon/readers/office.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib.h>
#include <libxml/xmlreader.h>

#include "daemon/readers/office-internal.h"

#define ZIP_LOCAL_HEADER 30
#define ZIP_FLAG_DESCRIPTOR 0x0008 /* sizes follow the data: the next header cannot be found */
#define ARCHIVE_BLOCK 65536

/* The archive being read and its running counts. */
typedef struct {
  struct archive *a;
  Office of;
  const OfficeFormat *fmt;
  int64_t part_bytes;  /* decompressed bytes of the current part */
  int64_t total_bytes; /* decompressed bytes of every part read */
  int limit_err;       /* -EFBIG once a limit is reached, -EBADMSG on a damaged archive */
  bool xml_huge;       /* libxml2 refused a node over its own size limits (10 MB of text) */
  const char *part;    /* the entry being read */
} Zip;

static uint16_t le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool name_is(const uint8_t *name, size_t len, const char *want) {
  return len == strlen(want) && memcmp(name, want, len) == 0;
}

static bool name_starts(const uint8_t *name, size_t len, const char *prefix) {
  return len >= strlen(prefix) && memcmp(name, prefix, strlen(prefix)) == 0;
}

/* The kind of document from the local headers in the head; see office.h. */
OfficeKind office_sniff(const uint8_t *head, size_t n) {
  bool content_types = false;
  OfficeKind kind = OFFICE_NONE;
  size_t at = 0;

  while (at + ZIP_LOCAL_HEADER <= n && memcmp(head + at, "PK\3\4", 4) == 0) {
    uint16_t flags = le16(head + at + 6), name_len = le16(head + at + 26);
    uint16_t extra_len = le16(head + at + 28);
    uint32_t size = le32(head + at + 18);
    const uint8_t *name = head + at + ZIP_LOCAL_HEADER;

    if (at + ZIP_LOCAL_HEADER + name_len > n)
      break;
    /* Microsoft Office writes [Content_Types].xml first, LibreOffice _rels/.rels. */
    if (name_is(name, name_len, "[Content_Types].xml") || name_is(name, name_len, "_rels/.rels"))
      content_types = true;
    else if (kind == OFFICE_NONE && name_starts(name, name_len, "word/"))
      kind = OFFICE_DOCX;
    else if (kind == OFFICE_NONE && name_starts(name, name_len, "xl/"))
      kind = OFFICE_XLSX;
    else if (kind == OFFICE_NONE && name_starts(name, name_len, "ppt/"))
      kind = OFFICE_PPTX;
    if (content_types && kind != OFFICE_NONE)
      return kind;
    at += (size_t)ZIP_LOCAL_HEADER + name_len + extra_len;
    if (flags & ZIP_FLAG_DESCRIPTOR) {
      /* The size follows the data (LibreOffice writes so): the next header is found by its
       * signature. */
      const uint8_t *next = at < n ? memmem(head + at, n - at, "PK\3\4", 4) : NULL;

      if (next == NULL)
        break;
      at = (size_t)(next - head);
    } else {
      at += size;
    }
  }
  return OFFICE_NONE;
}

/* "docx", "xlsx", "pptx"; see office.h. */
const char *office_format_name(OfficeKind k) {
  switch (k) {
  case OFFICE_DOCX:
    return "docx";
  case OFFICE_XLSX:
    return "xlsx";
  case OFFICE_PPTX:
    return "pptx";
  case OFFICE_NONE:
  default:
    return NULL;
  }
}

/* A relationship's target part, borrowed from of->rels; see office-internal.h. */
const char *office_rel(const Office *of, const char *source, const char *id) {
  g_autofree char *key = g_strconcat(source, "#", id, NULL);

  return g_hash_table_lookup(of->rels, key);
}

/* The r:id of r's current element: the attribute "id" in a relationships namespace (both the
 * transitional and the strict one end so), never a plain "id"; see office-internal.h. */
char *office_rel_id(xmlTextReaderPtr r) {
  char *value = NULL;

  if (xmlTextReaderMoveToFirstAttribute(r) != 1)
    return NULL;
  do {
    const char *name = (const char *)xmlTextReaderConstLocalName(r);
    const char *ns = (const char *)xmlTextReaderConstNamespaceUri(r);

    if (name != NULL && strcmp(name, "id") == 0 && ns != NULL &&
        g_str_has_suffix(ns, "/relationships")) {
      value = g_strdup((const char *)xmlTextReaderConstValue(r));
      break;
    }
  } while (xmlTextReaderMoveToNextAttribute(r) == 1);
  (void)xmlTextReaderMoveToElement(r);
  return value;
}

/* Appends what fits of s under max bytes, cut at a character boundary; see office-internal.h. */
size_t office_append_max(GString *out, const char *s, size_t max) {
  size_t len = s != NULL ? strlen(s) : 0, room = out->len < max ? max - out->len : 0, n;

  if (len <= room) {
    g_string_append_len(out, s, (gssize)len);
    return 0;
  }
  /* Back off to the lead byte of the character that would be split. */
  for (n = room; n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; n--)
    ;
  g_string_append_len(out, s, (gssize)n);
  return len - n;
}

/* An attribute by local name, the reader left on its element; see office-internal.h. */
char *office_attr(xmlTextReaderPtr r, const char *local) {
  char *value = NULL;

  if (xmlTextReaderMoveToFirstAttribute(r) != 1)
    return NULL;
  do {
    const char *name = (const char *)xmlTextReaderConstLocalName(r);

    if (name != NULL && strcmp(name, local) == 0) {
      value = g_strdup((const char *)xmlTextReaderConstValue(r));
      break;
    }
  } while (xmlTextReaderMoveToNextAttribute(r) == 1);
  (void)xmlTextReaderMoveToElement(r);
  return value;
}

/* The next node within the budget of nodes and the cancel flag; see office-internal.h. */
int office_next(Office *of, xmlTextReaderPtr r) {
  /* The cancel flag is an atomic load: looked at every 4096 nodes. */
  if ((++of->nodes & 4095) == 0 && of->o->cancelled != NULL && atomic_load(of->o->cancelled)) {
    of->stop = -ECANCELED;
    return -1;
  }
  if (of->nodes > OFFICE_MAX_NODES) {
    of->stop = -EFBIG;
    return -1;
  }
  return xmlTextReaderRead(r);
}

/* One cell's text on one line, '|' escaped; see office-internal.h. */
void office_put_cell(GString *out, const char *s) {
  for (; s != NULL && *s != '\0'; s++) {
    if (*s == '\n' || *s == '\r' || *s == '\t')
      g_string_append_c(out, ' ');
    else if (*s == '|')
      g_string_append(out, "\\|");
    else
      g_string_append_c(out, *s);
  }
}

/* The part a relationship points to: a target relative to the folder of its source part, or
 * absolute from the archive's root; ".." and "." resolved. g_malloc'd. */
static char *rel_target(const char *source, const char *target) {
  g_autofree char *dir = g_path_get_dirname(source);
  g_autofree char *joined = target[0] == '/'        ? g_strdup(target + 1)
                            : strcmp(dir, ".") == 0 ? g_strdup(target)
                                                    : g_strconcat(dir, "/", target, NULL);
  g_auto(GStrv) segs = g_strsplit(joined, "/", -1);
  GPtrArray *out = g_ptr_array_new();
  char *path;

  for (size_t i = 0; segs[i] != NULL; i++) {
    if (strcmp(segs[i], "..") == 0) {
      if (out->len > 0)
        g_ptr_array_remove_index(out, out->len - 1);
    } else if (segs[i][0] != '\0' && strcmp(segs[i], ".") != 0) {
      g_ptr_array_add(out, segs[i]);
    }
  }
  g_ptr_array_add(out, NULL);
  path = g_strjoinv("/", (char **)out->pdata);
  g_ptr_array_free(out, TRUE);
  return path;
}

/* "dir/_rels/name.rels" names the relationships of "dir/name". */
static char *rels_source(const char *name) {
  const char *rels = strstr(name, "_rels/");
  g_autofree char *dir = NULL;
  const char *base;
  size_t base_len;

  if (rels == NULL || !g_str_has_suffix(name, ".rels"))
    return NULL;
  base = rels + strlen("_rels/");
  base_len = strlen(base) - strlen(".rels");
  dir = g_strndup(name, (gsize)(rels - name));
  return g_strdup_printf("%s%.*s", dir, (int)base_len, base);
}

/* A .rels part: each <Relationship Id Target Type> into of->rels. */
static int parse_rels(Office *of, const char *name, xmlTextReaderPtr r) {
  g_autofree char *source = rels_source(name);
  int rc;

  while ((rc = office_next(of, r)) == 1) {
    const char *local = (const char *)xmlTextReaderConstLocalName(r);
    g_autofree char *id = NULL, *target = NULL, *type = NULL, *mode = NULL;

    if (source == NULL || xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT ||
        g_strcmp0(local, "Relationship") != 0)
      continue;
    id = office_attr(r, "Id");
    target = office_attr(r, "Target");
    type = office_attr(r, "Type");
    mode = office_attr(r, "TargetMode");
    if (id == NULL || target == NULL || g_strcmp0(mode, "External") == 0)
      continue;
    g_hash_table_insert(of->rels, g_strconcat(source, "#", id, NULL), rel_target(source, target));
    if (type != NULL && g_str_has_suffix(type, "/notesSlide"))
      g_hash_table_insert(of->rels, g_strconcat(source, "#notesSlide", NULL),
                          rel_target(source, target));
  }
  return rc < 0 ? -EBADMSG : 0;
}

/* xmlReader's input: the current entry's data, counted against the limits. */
static int zip_read_cb(void *ctx, char *buf, int len) {
  Zip *z = ctx;
  la_ssize_t n = archive_read_data(z->a, buf, (size_t)len);

  if (n < 0) {
    z->limit_err = -EBADMSG;
    return -1;
  }
  z->part_bytes += n;
  z->total_bytes += n;
  if (z->part_bytes > OFFICE_MAX_PART_BYTES || z->total_bytes > OFFICE_MAX_TOTAL_BYTES) {
    z->limit_err = -EFBIG;
    return -1;
  }
  return (int)n;
}

static int zip_close_cb(void *ctx) {
  return 0;
}

/* Parse errors are answered as the file's code, not printed. libxml2 refuses a text node
 * over 10 MB (XML_MAX_TEXT_LENGTH) as if memory ran out: that is a limit, not damage. */
static void quiet_error_cb(void *arg, xmlErrorPtr err) {
  Zip *z = arg;

  if (err != NULL && err->domain == XML_FROM_PARSER &&
      (err->code == XML_ERR_NO_MEMORY ||
       (err->message != NULL &&
        (strstr(err->message, "huge") != NULL || strstr(err->message, "Huge") != NULL))))
    z->xml_huge = true;
}

/* Sets the failure of a limit reached while reading part `name`. */
static int fail_limit(FileResult *res, const Zip *z, const char *name) {
  if (z->part_bytes > OFFICE_MAX_PART_BYTES)
    file_result_fail(res, CODE_FILE_TOO_LARGE,
                     "part %s decompresses to more than %" PRId64 " MiB (a zip bomb?)", name,
                     OFFICE_MAX_PART_BYTES / (1024 * 1024));
  else
    file_result_fail(res, CODE_FILE_TOO_LARGE,
                     "the document decompresses to more than %" PRId64 " MiB (a zip bomb?)",
                     OFFICE_MAX_TOTAL_BYTES / (1024 * 1024));
  return -EFBIG;
}

/* Parses the current entry as XML with fn. Returns 0 or a negative errno with res set. */
static int zip_parse_part(Zip *z, const char *name,
                          int (*fn)(Office *of, const char *name, xmlTextReaderPtr r)) {
  xmlTextReaderPtr r;
  int rc;

  z->part_bytes = 0;
  z->limit_err = 0;
  z->xml_huge = false;
  r = xmlReaderForIO(zip_read_cb, zip_close_cb, z, name, NULL,
                     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_COMPACT);
  if (r == NULL) {
    if (z->limit_err == -EFBIG)
      return fail_limit(z->of.res, z, name);
    file_result_fail(z->of.res, CODE_CORRUPTED_FILE, "part %s cannot be read", name);
    return -EBADMSG;
  }
  xmlTextReaderSetStructuredErrorHandler(r, quiet_error_cb, z);
  rc = fn(&z->of, name, r);
  xmlFreeTextReader(r);
  if (z->of.stop == -ECANCELED) {
    file_result_fail(z->of.res, CODE_CANCELLED, "request cancelled");
    return -ECANCELED;
  }
  if (z->of.stop == -EFBIG) {
    file_result_fail(z->of.res, CODE_FILE_TOO_LARGE,
                     "the document holds more than %" PRId64 " XML nodes (read up to %s)",
                     OFFICE_MAX_NODES, name);
    return -EFBIG;
  }
  if (z->limit_err == -EFBIG)
    return fail_limit(z->of.res, z, name);
  if (z->limit_err == -EBADMSG) {
    file_result_fail(z->of.res, CODE_CORRUPTED_FILE, "the archive is damaged or truncated: %s",
                     archive_error_string(z->a) != NULL ? archive_error_string(z->a) : name);
    return -EBADMSG;
  }
  if (rc < 0 && z->xml_huge && z->of.res->code == NULL) {
    file_result_fail(z->of.res, CODE_FILE_TOO_LARGE,
                     "part %s holds a text over the XML parser's 10 MB limit", name);
    return -EFBIG;
  }
  if (rc < 0 && z->of.res->code == NULL)
    file_result_fail(z->of.res, CODE_CORRUPTED_FILE, "part %s is not well-formed XML", name);
  return rc < 0 ? rc : 0;
}

/* Reads an entry that is not parsed: skipped when its size is known (no decompression), else
 * decompressed and counted, so that a bomb cannot hide in a part nobody wants. */
static int zip_skip(Zip *z, struct archive_entry *e, const char *name) {
  char buf[ARCHIVE_BLOCK];
  la_ssize_t n;

  if (archive_entry_size_is_set(e))
    return archive_read_data_skip(z->a) == ARCHIVE_OK ? 0 : -EBADMSG;
  z->part_bytes = 0;
  while ((n = archive_read_data(z->a, buf, sizeof buf)) > 0) {
    z->part_bytes += n;
    z->total_bytes += n;
    if (z->part_bytes > OFFICE_MAX_PART_BYTES || z->total_bytes > OFFICE_MAX_TOTAL_BYTES)
      return fail_limit(z->of.res, z, name);
  }
  return n < 0 ? -EBADMSG : 0;
}

/* One entry: refused when it is too many or declares too large a size, else parsed or
 * skipped. */
static int zip_entry(Zip *z, struct archive_entry *e, int64_t index) {
  const char *name = archive_entry_pathname(e);
  FileResult *res = z->of.res;
  int r;

  if (index > OFFICE_MAX_ENTRIES) {
    file_result_fail(res, CODE_FILE_TOO_LARGE, "the archive holds more than %d entries",
                     OFFICE_MAX_ENTRIES);
    return -EFBIG;
  }
  if (name == NULL)
    return zip_skip(z, e, "(unnamed)");
  if (archive_entry_is_encrypted(e)) {
    file_result_fail(res, CODE_PASSWORD_PROTECTED, "part %s is encrypted", name);
    return -EACCES;
  }
  if (!z->fmt->wants(name) && !g_str_has_suffix(name, ".rels"))
    return zip_skip(z, e, name);
  if (archive_entry_size_is_set(e) && archive_entry_size(e) > OFFICE_MAX_PART_BYTES) {
    file_result_fail(res, CODE_FILE_TOO_LARGE,
                     "part %s declares %jd bytes decompressed; the limit is %" PRId64 " MiB", name,
                     (intmax_t)archive_entry_size(e), OFFICE_MAX_PART_BYTES / (1024 * 1024));
    return -EFBIG;
  }
  r = zip_parse_part(z, name, z->fmt->wants(name) ? z->fmt->part : parse_rels);
  return r;
}

static const OfficeFormat *format_of(OfficeKind k) {
  switch (k) {
  case OFFICE_DOCX:
    return &office_docx;
  case OFFICE_XLSX:
    return &office_xlsx;
  case OFFICE_PPTX:
    return &office_pptx;
  case OFFICE_NONE:
  default:
    return NULL;
  }
}

/* Walks the archive opened in z->a; see office.h. */
static int zip_walk(Zip *z) {
  FileResult *res = z->of.res;
  struct archive_entry *e;
  int64_t index = 0;
  int r = 0, ar;

  while ((ar = archive_read_next_header(z->a, &e)) == ARCHIVE_OK || ar == ARCHIVE_WARN) {
    if (z->of.o->cancelled != NULL && atomic_load(z->of.o->cancelled)) {
      file_result_fail(res, CODE_CANCELLED, "request cancelled");
      return -ECANCELED;
    }
    r = zip_entry(z, e, ++index);
    if (r == -EBADMSG && res->code == NULL)
      file_result_fail(res, CODE_CORRUPTED_FILE, "the archive is damaged or truncated: %s",
                       archive_error_string(z->a) != NULL ? archive_error_string(z->a)
                                                          : "bad entry");
    if (r < 0)
      return r;
  }
  if (ar != ARCHIVE_EOF) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "the archive is damaged or truncated: %s",
                     archive_error_string(z->a) != NULL ? archive_error_string(z->a)
                                                        : "unreadable header");
    return -EBADMSG;
  }
  return z->fmt->finish(&z->of);
}

/* Sets up z, opens the archive with open_fn, walks it and cleans up. */
static int office_read(OfficeKind kind, const OfficeOptions *o, FileResult *res,
                       int (*open_fn)(struct archive *a, void *ctx), void *ctx) {
  Zip z = {.fmt = format_of(kind), .of = {.o = o, .res = res}};
  int r;

  res->type = FILE_TYPE_DOCUMENT;
  res->format = office_format_name(kind);
  if (z.fmt == NULL) {
    file_result_fail(res, CODE_UNSUPPORTED_FORMAT, "not an office document");
    return -ENOTSUP;
  }
  z.a = archive_read_new();
  if (z.a == NULL) {
    file_result_fail(res, CODE_READ_ERROR, "out of memory");
    return -ENOMEM;
  }
  z.of.rels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  if (archive_read_support_format_zip_streamable(z.a) != ARCHIVE_OK ||
      open_fn(z.a, ctx) != ARCHIVE_OK) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a zip archive: %s",
                     archive_error_string(z.a) != NULL ? archive_error_string(z.a) : "unknown");
    r = -EBADMSG;
  } else {
    r = zip_walk(&z);
  }
  archive_read_free(z.a);
  z.fmt->free(z.of.state);
  g_hash_table_unref(z.of.rels);
  if (r < 0 && res->code != NULL) {
    /* What was built before the failure is not shown. */
    g_clear_pointer(&res->content, g_free);
    res->content_len = 0;
  }
  return r;
}

typedef struct {
  const void *data;
  size_t len;
} MemorySource;

static int open_memory(struct archive *a, void *ctx) {
  MemorySource *m = ctx;

  return archive_read_open_memory(a, m->data, m->len);
}

static int open_fd(struct archive *a, void *ctx) {
  return archive_read_open_fd(a, *(int *)ctx, ARCHIVE_BLOCK);
}

/* The document in the zip open at fd, read from its start; see office.h. */
int office_read_fd(int fd, OfficeKind kind, const OfficeOptions *o, FileResult *res) {
  /* The caller read the head to find the kind: the archive is read from its start. */
  if (lseek(fd, 0, SEEK_SET) < 0) {
    res->type = FILE_TYPE_DOCUMENT;
    res->format = office_format_name(kind);
    file_result_fail(res, CODE_READ_ERROR, "seek failed: %s", g_strerror(errno));
    return -errno;
  }
  return office_read(kind, o, res, open_fd, &fd);
}

/* The document in a zip held in memory; see office.h. */
int office_read_memory(const void *data, size_t len, OfficeKind kind, const OfficeOptions *o,
                       FileResult *res) {
  MemorySource m = {.data = data, .len = len};

  return office_read(kind, o, res, open_memory, &m);
}
