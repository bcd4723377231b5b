/* The tree of text the validator passed, built in one pass (json-parse-internal.h).
 *
 * json-glib's parser runs a general lexer (GScanner's, with comments, identifiers and
 * symbols) and emits a GObject signal per array element and object member: about 5,300
 * instructions per path of a 2,000-path `read` line, against 2,200 here, of which sealing the
 * tree (json-glib hashes every string of it) takes more than half. The text is already known
 * to be strict JSON within the depth limit, so the builder only needs to tell tokens apart by
 * their first byte; it never meets an error. */
#include "ipc/json-parse-internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ipc/json-parse.h"

/* An open container: exactly one of the two is set. */
typedef struct {
  JsonObject *object;
  JsonArray *array;
} Open;

typedef struct {
  const char *s;
  size_t len;
  size_t i;
  JsonNode *root;
  GString *text; /* the string being decoded */
  GString *key;  /* the member name the next value is for */
  bool want_key; /* the next string in the open object is a member name */
  const char *skip; /* a member of the root object left out, or NULL */
  size_t skip_at, skip_len; /* where its (last) value is in s; skip_len 0: absent */
  unsigned depth;
  Open open[JSON_PARSE_DEPTH_CAP];
} Builder;

static unsigned hex4(const char *s) {
  unsigned v = 0;

  for (int k = 0; k < 4; k++)
    v = v * 16 + (unsigned)g_ascii_xdigit_value(s[k]);
  return v;
}

/* The escape at s[i] ('\\'), appended to out; returns the index after it. The validator left
 * only complete surrogate pairs (an unpaired half is a note, and noted text is not built). */
static size_t decode_escape(const char *s, size_t i, GString *out) {
  static const char from[] = "bfnrt";
  static const char to[] = "\b\f\n\r\t";
  const char *at;
  gunichar cp;

  if (s[i + 1] != 'u') {
    at = strchr(from, s[i + 1]);
    g_string_append_c(out, at != NULL ? to[at - from] : s[i + 1]);
    return i + 2;
  }
  cp = hex4(s + i + 2);
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(s + i + 8) - 0xDC00);
    i += 6;
  }
  g_string_append_unichar(out, cp);
  return i + 6;
}

size_t json_tree_string(const char *s, size_t len, size_t i, GString *out) {
  g_string_truncate(out, 0);
  i++;
  for (;;) {
    const char *quote = memchr(s + i, '"', len - i);
    size_t end = (size_t)(quote - s);
    const char *escape = memchr(s + i, '\\', end - i);

    if (escape == NULL) {
      g_string_append_len(out, s + i, (gssize)(end - i));
      return end + 1;
    }
    g_string_append_len(out, s + i, (gssize)(escape - (s + i)));
    i = decode_escape(s, (size_t)(escape - s), out);
  }
}

/* The number at s[i] into *ret; returns the index after it. */
static size_t build_number(Builder *b, size_t i, JsonNode **ret) {
  const char *s = b->s;
  size_t start = i;
  bool negative = s[i] == '-', integral = true;
  uint64_t v = 0;
  char small[64];
  char *text;

  if (negative)
    i++;
  for (; i < b->len && g_ascii_isdigit(s[i]); i++)
    v = v * 10 + (uint64_t)(s[i] - '0');
  if (i < b->len && s[i] == '.') {
    integral = false;
    for (i++; i < b->len && g_ascii_isdigit(s[i]); i++)
      ;
  }
  if (i < b->len && (s[i] == 'e' || s[i] == 'E')) {
    integral = false;
    for (i++; i < b->len && (g_ascii_isdigit(s[i]) || s[i] == '+' || s[i] == '-'); i++)
      ;
  }
  if (integral) {
    /* The validator noted any integer outside int64_t; -2^63 is 2^63 negated. */
    *ret = json_node_init_int(json_node_alloc(), negative ? (int64_t)(UINT64_C(0) - v) : (int64_t)v);
    return i;
  }
  text = i - start < sizeof small ? small : g_malloc(i - start + 1);
  memcpy(text, s + start, i - start);
  text[i - start] = '\0';
  *ret = json_node_init_double(json_node_alloc(), g_ascii_strtod(text, NULL));
  if (text != small)
    g_free(text);
  return i;
}

/* Gives node to the open container, or makes it the root. */
static void attach(Builder *b, JsonNode *node) {
  Open *top;

  if (b->depth == 0) {
    b->root = node;
    return;
  }
  top = &b->open[b->depth - 1];
  if (top->array != NULL)
    json_array_add_element(top->array, node);
  else
    json_object_set_member(top->object, b->key->str, node);
}

static void open_container(Builder *b, bool object) {
  JsonNode *node = json_node_alloc();
  Open *o = &b->open[b->depth];

  if (object) {
    o->object = json_object_new();
    o->array = NULL;
    json_node_init_object(node, o->object);
    json_object_unref(o->object);
  } else {
    o->array = json_array_new();
    o->object = NULL;
    json_node_init_array(node, o->array);
    json_array_unref(o->array);
  }
  attach(b, node);
  b->depth++;
  b->want_key = object;
}

/* A scalar value starting at s[i]; returns the index after it. */
static size_t build_scalar(Builder *b, size_t i) {
  JsonNode *node;

  switch (b->s[i]) {
  case '"':
    i = json_tree_string(b->s, b->len, i, b->text);
    node = json_node_init_string(json_node_alloc(), b->text->str);
    break;
  case 't':
    node = json_node_init_boolean(json_node_alloc(), TRUE);
    i += 4;
    break;
  case 'f':
    node = json_node_init_boolean(json_node_alloc(), FALSE);
    i += 5;
    break;
  case 'n':
    node = json_node_init_null(json_node_alloc());
    i += 4;
    break;
  default:
    i = build_number(b, i, &node);
    break;
  }
  attach(b, node);
  return i;
}

/* The index after the closing quote of the string whose opening quote is at s[i]: the next
 * quote not escaped, that is after an even run of backslashes. */
static size_t skip_string(const char *s, size_t len, size_t i) {
  for (i++;;) {
    size_t at = (size_t)((const char *)memchr(s + i, '"', len - i) - s), k = at;

    while (k > i && s[k - 1] == '\\')
      k--;
    if ((at - k) % 2 == 0)
      return at + 1;
    i = at + 1;
  }
}

/* The end of the value at s[i] (not whitespace) of validated text, without building it. */
static size_t skip_value(const char *s, size_t len, size_t i) {
  unsigned depth = 0;

  do {
    switch (s[i]) {
    case '"':
      i = skip_string(s, len, i);
      break;
    case '{':
    case '[':
      depth++;
      i++;
      break;
    case '}':
    case ']':
      depth--;
      i++;
      break;
    default:
      /* A number, a literal, or what separates the members of a container being skipped. */
      if (depth == 0) {
        while (i < len && strchr(",}] \t\r\n", s[i]) == NULL)
          i++;
        return i;
      }
      i++;
      break;
    }
  } while (depth > 0);
  return i;
}

/* Whether the value at s[i] is the root member left out. */
static bool skipped(const Builder *b) {
  return b->skip != NULL && b->depth == 1 && b->open[0].object != NULL &&
         strcmp(b->key->str, b->skip) == 0;
}

/* The token at s[i] (not whitespace); returns the index after it. */
static size_t build_token(Builder *b, size_t i) {
  char c = b->s[i];

  if (skipped(b) && !b->want_key && c != ',' && c != ':' && c != '}') {
    b->skip_at = i;
    i = skip_value(b->s, b->len, i);
    b->skip_len = i - b->skip_at;
    return i;
  }
  switch (c) {
  case '{':
  case '[':
    open_container(b, b->s[i] == '{');
    return i + 1;
  case '}':
  case ']':
    b->depth--;
    b->want_key = false;
    return i + 1;
  case ',':
    b->want_key = b->open[b->depth - 1].object != NULL;
    return i + 1;
  case ':':
    return i + 1;
  case '"':
    if (b->want_key) {
      b->want_key = false;
      return json_tree_string(b->s, b->len, i, b->key);
    }
    /* fall through */
  default:
    return build_scalar(b, i);
  }
}

/* Builds the tree of data, leaving out the root member named skip (NULL: none). Unsealed. */
static JsonNode *build(const char *data, size_t len, const char *skip, size_t *ret_at,
                       size_t *ret_len) {
  Builder *b = g_new(Builder, 1);
  JsonNode *root;

  b->s = data;
  b->len = len;
  b->root = NULL;
  b->text = g_string_sized_new(256);
  b->key = g_string_sized_new(64);
  b->want_key = false;
  b->skip = skip;
  b->skip_at = b->skip_len = 0;
  b->depth = 0;
  for (size_t i = 0; i < len;) {
    char c = data[i];

    if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
      i++;
    else
      i = build_token(b, i);
  }
  root = b->root;
  if (ret_at != NULL) {
    *ret_at = b->skip_at;
    *ret_len = b->skip_len;
  }
  g_string_free(b->text, TRUE);
  g_string_free(b->key, TRUE);
  g_free(b);
  return root;
}

JsonNode *json_tree_build(const char *data, size_t len) {
  JsonNode *root = build(data, len, NULL, NULL, NULL);

  /* As json_parser_new_immutable() leaves it: a copy of a sealed node shares its children. */
  json_node_seal(root);
  return root;
}

JsonNode *json_tree_build_except(const char *data, size_t len, const char *name, size_t *ret_at,
                                 size_t *ret_len) {
  return build(data, len, name, ret_at, ret_len);
}

JsonNode *json_tree_glib(const char *data, size_t len, char **ret_error) {
  g_autoptr(JsonParser) parser = json_parser_new_immutable();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  if (!json_parser_load_from_data(parser, data, (gssize)len, &error)) {
    *ret_error = g_strdup(error->message);
    return NULL;
  }
  root = json_parser_steal_root(parser);
  if (root == NULL)
    *ret_error = g_strdup("no JSON value");
  return root;
}
