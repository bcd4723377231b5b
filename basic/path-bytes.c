#include "basic/path-bytes.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "basic/utf8.h"

/* Bytes of the character at p[0..n) kept as they are: 0 when its bytes are escaped. */
static size_t kept_len(const uint8_t *p, size_t n) {
  uint32_t cp;
  size_t len;

  if (utf8_decode(p, n, &cp, &len) != 1)
    return 0;
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0xFFFE || cp == 0xFFFF)
    return 0;
  return len;
}

bool path_bytes_needed(const char *path) {
  const uint8_t *p = (const uint8_t *)path;
  size_t n, i = 0, len;

  if (path == NULL)
    return false;
  n = strlen(path);
  while (i < n) {
    if (p[i] >= 0x20 && p[i] < 0x7F) {
      i++;
      continue;
    }
    if ((len = kept_len(p + i, n - i)) == 0)
      return true;
    i += len;
  }
  return false;
}

char *path_bytes_escape(const char *path) {
  const uint8_t *p = (const uint8_t *)path;
  GString *out;
  size_t n, i = 0, len;

  if (!path_bytes_needed(path))
    return NULL;
  n = strlen(path);
  out = g_string_sized_new(n + 16);
  while (i < n) {
    if (p[i] == '\\') {
      g_string_append(out, "\\\\");
      i++;
    } else if ((len = kept_len(p + i, n - i)) > 0) {
      g_string_append_len(out, path + i, (gssize)len);
      i += len;
    } else {
      g_string_append_printf(out, "\\x%02x", p[i]);
      i++;
    }
  }
  return g_string_free(out, FALSE);
}

int path_bytes_unescape(const char *s, char **ret) {
  GString *out;
  int hi, lo;

  if (s == NULL || *s == '\0')
    return -EINVAL;
  out = g_string_sized_new(strlen(s));
  for (; *s != '\0'; s++) {
    if (*s != '\\') {
      g_string_append_c(out, *s);
      continue;
    }
    if (s[1] == '\\') {
      g_string_append_c(out, '\\');
      s++;
      continue;
    }
    if (s[1] != 'x' || (hi = g_ascii_xdigit_value(s[2])) < 0 ||
        (lo = g_ascii_xdigit_value(s[3])) < 0 || (hi == 0 && lo == 0)) {
      g_string_free(out, TRUE);
      return -EINVAL;
    }
    g_string_append_c(out, (char)(hi << 4 | lo));
    s += 3;
  }
  *ret = g_string_free(out, FALSE);
  return 0;
}
