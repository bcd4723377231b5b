/* Test files, lines and times: see files.h. */
#include "tests/lib/files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <check.h>

#include "tests/lib/rd-internal.h"

char *rd_write_file(const char *dir, const char *name, const void *data, size_t len) {
  char *path = g_build_filename(dir, name, NULL);
  char *parent = g_path_get_dirname(path);
  ck_assert_msg(g_mkdir_with_parents(parent, 0755) == 0, "mkdir %s: %s", parent, g_strerror(errno));
  g_free(parent);
  GError *err = NULL;
  ck_assert_msg(g_file_set_contents(path, data, (gssize)len, &err), "cannot write %s: %s", path,
                err ? err->message : "?");
  return path;
}

char *rd_write_str(const char *dir, const char *name, const char *text) {
  return rd_write_file(dir, name, text, strlen(text));
}

char *rd_read_file(const char *path, size_t *ret_len) {
  char *data = NULL;
  gsize len = 0;
  GError *err = NULL;
  ck_assert_msg(g_file_get_contents(path, &data, &len, &err), "cannot read %s: %s", path,
                err ? err->message : "?");
  if (ret_len)
    *ret_len = len;
  return data;
}

int64_t rd_count_lines(const char *data, size_t len) {
  int64_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += data[i] == '\n';
  if (len > 0 && data[len - 1] != '\n')
    n++;
  return n;
}

char **rd_split_lines(const char *data, size_t len) {
  GPtrArray *a = g_ptr_array_new();
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len && start == len)
      break;
    if (i == len || data[i] == '\n') {
      size_t end = i;
      if (i < len && end > start && data[end - 1] == '\r')
        end--;
      g_ptr_array_add(a, g_strndup(data + start, end - start));
      start = i + 1;
    }
  }
  g_ptr_array_add(a, NULL);
  return (char **)g_ptr_array_free(a, FALSE);
}

char **rd_numbered(const char *const *lines, size_t n, int64_t first) {
  char **out = g_new0(char *, n + 1);
  for (size_t i = 0; i < n; i++)
    out[i] = g_strdup_printf("%6" G_GINT64_FORMAT "\t%s", first + (int64_t)i, lines[i]);
  return out;
}

bool rd_lines_equal(const char *what, const char *const *got, const char *const *want) {
  size_t i = 0;
  for (; got[i] && want[i]; i++) {
    if (strcmp(got[i], want[i]) != 0)
      break;
  }
  if (!got[i] && !want[i])
    return true;
  fprintf(stderr, "%s: first difference at line %zu:\n  got:  %.300s\n  want: %.300s\n", what,
          i + 1, got[i] ? got[i] : "(end)", want[i] ? want[i] : "(end)");
  return false;
}

int64_t rd_mtime_ms(const char *path) {
  struct stat st;
  ck_assert_msg(lstat(path, &st) == 0, "lstat %s: %s", path, g_strerror(errno));
  return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

char *rd_iso_ms(int64_t ms) {
  int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
  int frac = (int)(ms - secs * 1000);
  time_t t = (time_t)secs;
  struct tm tm;
  gmtime_r(&t, &tm);
  return g_strdup_printf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}
