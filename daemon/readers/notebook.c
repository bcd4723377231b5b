#include "daemon/readers/notebook.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "basic/window.h"
#include "basic/utf8.h"
#include "formatters/tokens.h"
#include "ipc/json-parse.h"

#define SNIFF_BYTES ((size_t)64 * 1024)

/* What a parse keeps between cells. */
typedef struct {
  const NotebookOptions *o;
  FileResult *res;
  const char *language; /* the notebook's, borrowed from res */
  size_t shown_bytes;   /* text of the cells shown so far */
  int64_t image_bytes;  /* base64 of the pictures sent so far */
} Parse;

/* A JSON object naming "cells" and "nbformat" in its head; see notebook.h. */
bool notebook_sniff(const uint8_t *head, size_t n) {
  size_t i = 0, lim = MIN(n, SNIFF_BYTES);

  if (head == NULL)
    return false;
  if (lim >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  while (i < lim && g_ascii_isspace(head[i]))
    i++;
  if (i >= lim || head[i] != '{')
    return false;
  return memmem(head + i, lim - i, "\"cells\"", 7) != NULL &&
         memmem(head + i, lim - i, "\"nbformat\"", 10) != NULL;
}

/* Appends a notebook "multiline string": a string, or an array of strings joined as they are
 * (each already ends with its newline). Anything else adds nothing. */
static void append_multiline(GString *out, JsonNode *node) {
  if (node == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING) {
    g_string_append(out, json_node_get_string(node));
    return;
  }
  if (!JSON_NODE_HOLDS_ARRAY(node))
    return;
  for (guint i = 0, n = json_array_get_length(json_node_get_array(node)); i < n; i++) {
    JsonNode *e = json_array_get_element(json_node_get_array(node), i);

    if (JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING)
      g_string_append(out, json_node_get_string(e));
  }
}

/* A string member of an object, or NULL. */
static const char *member_string(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string(n);
}

/* An object member of an object, or NULL. */
static JsonObject *member_object(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

/* An array member of an object, or NULL. */
static JsonArray *member_array(JsonObject *o, const char *name) {
  JsonNode *n = o != NULL ? json_object_get_member(o, name) : NULL;

  return n != NULL && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

/* Removes ANSI escape sequences (colours in tracebacks): CSI "ESC [ ... final", OSC
 * "ESC ] ... BEL or ESC \", and the two-byte forms. In place. */
static void strip_ansi(GString *s) {
  size_t r = 0, w = 0, n = s->len;
  char *p = s->str;

  while (r < n) {
    if (p[r] != '\x1b') {
      p[w++] = p[r++];
      continue;
    }
    r++;
    if (r < n && p[r] == '[') {
      r++;
      while (r < n && !((unsigned char)p[r] >= 0x40 && (unsigned char)p[r] <= 0x7e))
        r++;
      r++;
    } else if (r < n && p[r] == ']') {
      while (r < n && p[r] != '\a' && !(p[r] == '\x1b' && r + 1 < n && p[r + 1] == '\\'))
        r++;
      r += r < n && p[r] == '\a' ? 1 : 2;
    } else if (r < n) {
      r++;
    }
  }
  g_string_truncate(s, MIN(w, n));
}

/* Cuts s to at most max bytes on a character boundary, saying how much was left out. */
static void cap_text(GString *s, size_t max) {
  size_t cut = max, dropped;

  if (s->len <= max)
    return;
  while (cut > 0 && ((unsigned char)s->str[cut] & 0xC0) == 0x80)
    cut--;
  dropped = s->len - cut;
  g_string_truncate(s, cut);
  g_string_append_printf(s, "\n[... %zu more bytes of this output not shown]\n", dropped);
}

/* Makes s valid UTF-8 (json-glib checks its input, but a \u escape may give a lone surrogate)
 * and moves it into *ret_text / *ret_len. */
static void take_text(GString *s, char **ret_text, size_t *ret_len) {
  char *valid = g_utf8_make_valid(s->str, (gssize)s->len);

  *ret_len = strlen(valid);
  *ret_text = valid;
  g_string_free(s, TRUE);
}

/* A picture output: sent through the hook within the notebook's limits, or a line saying why
 * not. Returns the image index in res->images, or -1 with the reason appended to text. */
static int add_picture(Parse *ps, const char *media_type, const char *b64, int64_t cell,
                       GString *text) {
  FileResult *res = ps->res;
  g_autofree guchar *raw = NULL;
  g_autofree char *error = NULL;
  gsize raw_len = 0;
  int64_t need;
  int r;

  if (ps->o->image == NULL) {
    g_string_append_printf(text, "[%s output]\n", media_type);
    return -1;
  }
  if (res->n_images >= NOTEBOOK_MAX_IMAGES) {
    g_string_append_printf(text,
                           "[%s output not shown: at most %d pictures are sent of one notebook; "
                           "read from cell %" PRId64 " with offset to see it]\n",
                           media_type, NOTEBOOK_MAX_IMAGES, cell);
    return -1;
  }
  raw = g_base64_decode(b64, &raw_len);
  r = ps->o->image(ps->o->image_ctx, media_type, raw, raw_len, res, &error);
  if (r < 0) {
    g_string_append_printf(text, "[%s output not shown: %s]\n", media_type,
                           error != NULL ? error : g_strerror(-r));
    return -1;
  }
  need = (int64_t)res->images[res->n_images - 1].data_len;
  if (ps->image_bytes + need > ps->o->max_image_bytes) {
    image_out_clear(&res->images[--res->n_images]);
    g_string_append_printf(text,
                           "[%s output not shown: the request's image budget is spent; read "
                           "from cell %" PRId64 " in another request]\n",
                           media_type, cell);
    return -1;
  }
  ps->image_bytes += need;
  res->images[res->n_images - 1].cell = (int)cell;
  return (int)res->n_images - 1;
}

/* The data of an execute_result or display_data: a picture when there is one, else the first
 * textual form. */
static void output_data(Parse *ps, JsonObject *data, int64_t cell, SectionPart *p, GString *text) {
  static const char *const pictures[] = {"image/png", "image/jpeg"};
  static const char *const texts[] = {"text/plain", "text/markdown", "text/latex",
                                      "application/json"};

  /* An output without a "data" object (or with something else there) shows nothing. */
  if (data == NULL)
    return;
  for (size_t i = 0; i < G_N_ELEMENTS(pictures); i++) {
    g_autoptr(GString) b64 = g_string_new(NULL);

    if (!json_object_has_member(data, pictures[i]))
      continue;
    append_multiline(b64, json_object_get_member(data, pictures[i]));
    p->image = add_picture(ps, pictures[i], b64->str, cell, text);
    if (p->image >= 0)
      return;
    break;
  }
  for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
    if (!json_object_has_member(data, texts[i]))
      continue;
    append_multiline(text, json_object_get_member(data, texts[i]));
    return;
  }
  if (text->len == 0 && json_object_get_size(data) > 0) {
    GList *keys = json_object_get_members(data);

    g_string_append_printf(text, "[%s output]\n", (const char *)keys->data);
    g_list_free(keys);
  }
}

/* One output of a code cell as a part of its section. Returns the bytes of its text (0 for an
 * output without a type, which is left out). */
static size_t add_output(Parse *ps, SectionOut *s, JsonObject *out) {
  const char *type = member_string(out, "output_type");
  SectionPart *p;
  GString *text = g_string_new(NULL);

  if (type == NULL) {
    g_string_free(text, TRUE);
    return 0;
  }
  p = section_add_part(s);
  p->element = "Output";
  if (strcmp(type, "stream") == 0) {
    p->kind = "stream";
    p->name = g_strdup(member_string(out, "name"));
    append_multiline(text, json_object_get_member(out, "text"));
  } else if (strcmp(type, "error") == 0) {
    JsonArray *tb = member_array(out, "traceback");

    p->kind = "error";
    p->name = g_strdup(member_string(out, "ename"));
    for (guint i = 0; tb != NULL && i < json_array_get_length(tb); i++) {
      append_multiline(text, json_array_get_element(tb, i));
      g_string_append_c(text, '\n');
    }
    if (text->len == 0)
      g_string_append_printf(text, "%s: %s\n", p->name != NULL ? p->name : "Error",
                             member_string(out, "evalue") ? member_string(out, "evalue") : "");
    strip_ansi(text);
  } else {
    p->kind = strcmp(type, "execute_result") == 0 ? "result" : "display";
    output_data(ps, member_object(out, "data"), s->number, p, text);
    strip_ansi(text);
  }
  if (p->name != NULL && !g_utf8_validate(p->name, -1, NULL)) {
    char *valid = g_utf8_make_valid(p->name, -1);

    g_free(p->name);
    p->name = valid;
  }
  cap_text(text, NOTEBOOK_MAX_OUTPUT);
  take_text(text, &p->text, &p->text_len);
  return p->text_len;
}

/* The language of a cell: its own (VS Code's languageId) when set, else the notebook's for
 * code; "markdown" for markdown cells; none for raw cells. */
static const char *cell_language(Parse *ps, JsonObject *cell, const char *kind) {
  const char *own =
      member_string(member_object(member_object(cell, "metadata"), "vscode"), "languageId");

  if (strcmp(kind, "markdown") == 0)
    return "markdown";
  if (strcmp(kind, "code") != 0)
    return NULL;
  return own != NULL ? own : ps->language;
}

/* One cell as a section of res: its source, then its outputs. Returns its text's bytes. */
static size_t add_cell(Parse *ps, JsonObject *cell, int64_t index) {
  const char *type = member_string(cell, "cell_type");
  JsonArray *outputs = member_array(cell, "outputs");
  SectionOut *s = file_result_add_section(ps->res);
  GString *src = g_string_new(NULL);
  const char *language;
  size_t bytes;

  s->element = "Cell";
  s->number = index;
  s->kind = type == NULL                    ? "raw"
            : strcmp(type, "code") == 0     ? "code"
            : strcmp(type, "markdown") == 0 ? "markdown"
                                            : "raw";
  language = cell_language(ps, cell, s->kind);
  if (language != NULL)
    s->language = g_utf8_make_valid(language, -1);
  append_multiline(src, json_object_get_member(cell, "source"));
  take_text(src, &s->text, &s->text_len);
  bytes = s->text_len;
  for (guint i = 0; outputs != NULL && i < json_array_get_length(outputs); i++) {
    JsonNode *out = json_array_get_element(outputs, i);

    if (!JSON_NODE_HOLDS_OBJECT(out))
      continue;
    bytes += add_output(ps, s, json_node_get_object(out));
  }
  return bytes;
}

/* The notebook's language: kernelspec.language, else language_info.name. */
static void notebook_language(FileResult *res, JsonObject *meta) {
  const char *lang = member_string(member_object(meta, "kernelspec"), "language");

  if (lang == NULL)
    lang = member_string(member_object(meta, "language_info"), "name");
  if (lang != NULL)
    res->language = g_utf8_make_valid(lang, -1);
}

/* The cells from offset on, within limit and NOTEBOOK_MAX_CONTENT; the notice says how to read
 * on when some are left. */
static int add_cells(Parse *ps, JsonArray *cells) {
  FileResult *res = ps->res;
  int64_t n = (int64_t)json_array_get_length(cells), first = ps->o->offset, i;
  int64_t last = MIN(window_last(first, ps->o->limit), n);

  res->sections = n;
  if (first > n) {
    res->notice = g_strdup_printf(
        "[offset %" PRId64 " is past the last cell: the notebook has %" PRId64 " cells]", first, n);
    return 0;
  }
  for (i = first; i <= last; i++) {
    JsonNode *cell = json_array_get_element(cells, (guint)(i - 1));

    if (ps->o->cancelled != NULL && atomic_load(ps->o->cancelled)) {
      file_result_fail(res, CODE_CANCELLED, "request cancelled");
      return -ECANCELED;
    }
    if (i > first && ps->shown_bytes >= NOTEBOOK_MAX_CONTENT)
      break;
    if (!JSON_NODE_HOLDS_OBJECT(cell)) {
      file_result_fail(res, CODE_CORRUPTED_FILE, "cell %" PRId64 " is not a JSON object", i);
      return -EBADMSG;
    }
    ps->shown_bytes += add_cell(ps, json_node_get_object(cell), i);
  }
  res->shown_first = first;
  res->shown_last = i - 1;
  res->truncated = first > 1 || i - 1 < n;
  if (i - 1 < n)
    res->notice = g_strdup_printf("[cells %" PRId64 "-%" PRId64 " of %" PRId64
                                  " not shown; read on with offset %" PRId64 "]",
                                  i, n, n, i);
  return 0;
}

/* The notebook in data into res, pictures through o->image; see notebook.h. */
int notebook_parse(const char *data, size_t len, const NotebookOptions *o, FileResult *res) {
  g_autoptr(JsonNode) tree = NULL;
  g_autofree char *error = NULL;
  Parse ps = {.o = o, .res = res};
  JsonObject *root;
  JsonNode *nbformat;
  JsonArray *cells;

  res->type = FILE_TYPE_NOTEBOOK;
  /* The head may start with a byte order mark (notebook_sniff() allows one); JSON has none. */
  if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
    data += 3;
    len -= 3;
  }
  if (json_parse_bounded(data, len, NOTEBOOK_MAX_DEPTH, &tree, &error) < 0) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a notebook: invalid JSON: %s", error);
    return -EBADMSG;
  }
  if (!JSON_NODE_HOLDS_OBJECT(tree)) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a notebook: the JSON is not an object");
    return -EBADMSG;
  }
  root = json_node_get_object(tree);
  nbformat = json_object_get_member(root, "nbformat");
  if (nbformat != NULL && JSON_NODE_HOLDS_VALUE(nbformat) &&
      json_node_get_value_type(nbformat) == G_TYPE_INT64 && json_node_get_int(nbformat) < 4) {
    file_result_fail(res, CODE_UNSUPPORTED_FORMAT,
                     "nbformat %" PRId64 " notebooks are not supported; nbformat 4 is (jupyter "
                     "nbconvert --to notebook upgrades one)",
                     (int64_t)json_node_get_int(nbformat));
    return -ENOTSUP;
  }
  cells = member_array(root, "cells");
  if (cells == NULL) {
    file_result_fail(res, CODE_CORRUPTED_FILE, "not a notebook: no \"cells\" array");
    return -EBADMSG;
  }
  notebook_language(res, member_object(root, "metadata"));
  ps.language = res->language;
  return add_cells(&ps, cells);
}

/* Reads the whole notebook (within NOTEBOOK_MAX_FILE_BYTES) and parses it; see notebook.h. */
int notebook_read(int fd, const struct stat *st, const uint8_t *head, size_t head_len,
                  const NotebookOptions *o, FileResult *res) {
  size_t cap = (size_t)NOTEBOOK_MAX_FILE_BYTES, len = head_len;
  g_autofree char *buf = NULL;

  res->type = FILE_TYPE_NOTEBOOK;
  if (st->st_size > NOTEBOOK_MAX_FILE_BYTES) {
    file_result_fail(res, CODE_FILE_TOO_LARGE, "notebook is %jd bytes; the limit is %jd bytes",
                     (intmax_t)st->st_size, (intmax_t)NOTEBOOK_MAX_FILE_BYTES);
    return -EFBIG;
  }
  buf = g_malloc(MAX((size_t)st->st_size, head_len) + 1);
  memcpy(buf, head, head_len);
  /* Read to the size fstat gave: a file that grows meanwhile is read as it was. */
  while (len < (size_t)st->st_size && len < cap) {
    ssize_t n = read(fd, buf + len, (size_t)st->st_size - len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      file_result_fail(res, CODE_READ_ERROR, "read failed: %s", g_strerror(errno));
      return -EIO;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  return notebook_parse(buf, len, o, res);
}

/* True when the JSON string s[0, n) (quotes included) is a picture's base64: 200 characters or
 * more of its alphabet, with escaped line breaks at most. */
static bool is_base64_string(const char *s, size_t n) {
  if (n < 200)
    return false;
  for (size_t i = 1; i + 1 < n; i++) {
    char c = s[i];

    if (c == '\\' && s[i + 1] == 'n')
      i++;
    else if (!g_ascii_isalnum(c) && c != '+' && c != '/' && c != '=')
      return false;
  }
  return true;
}

int64_t notebook_guess(const uint8_t *head, size_t n, bool eof, int64_t bytes) {
  const char *p = (const char *)head, *end = p + n;
  int64_t milli = 0;

  while (p < end) {
    const char *q = memchr(p, '"', (size_t)(end - p)), *close = NULL;

    if (q == NULL)
      q = end;
    milli += tokens_text_milli(p, (size_t)(q - p));
    if (q == end)
      break;
    /* The string's end: the next quote that no backslash escapes. */
    for (const char *c = q + 1; c < end && close == NULL; c++) {
      if (*c == '\\')
        c++;
      else if (*c == '"')
        close = c + 1;
    }
    if (close == NULL)
      close = end;
    if (!is_base64_string(q, (size_t)(close - q)))
      milli += tokens_text_milli(q, (size_t)(close - q));
    p = close;
  }
  if (!eof && n > 0)
    milli = (int64_t)((double)milli * (double)bytes / (double)n);
  return tokens_from_milli(milli) * 6 / 10 + 1;
}
