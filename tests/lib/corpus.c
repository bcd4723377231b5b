#include "tests/lib/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

bool corpus_go_present(void) {
  if (g_file_test(CORPUS_GO_SRC "/fmt/print.go", G_FILE_TEST_IS_REGULAR))
    return true;
  printf("SKIP: %s is missing (Debian package golang-1.19-src; scripts/setup.sh installs it)\n",
         CORPUS_GO_SRC);
  return false;
}

static void walk(const char *dir, GPtrArray *out) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    char *p = g_build_filename(dir, name, NULL);

    if (g_file_test(p, G_FILE_TEST_IS_SYMLINK)) {
      g_free(p);
    } else if (g_file_test(p, G_FILE_TEST_IS_DIR)) {
      walk(p, out);
      g_free(p);
    } else if (g_str_has_suffix(name, ".go")) {
      g_ptr_array_add(out, p);
    } else {
      g_free(p);
    }
  }
}

static int cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char **corpus_go_files(size_t max, size_t *ret_n) {
  GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
  size_t n;
  char **out;

  if (!g_file_test(CORPUS_GO_SRC, G_FILE_TEST_IS_DIR)) {
    g_ptr_array_free(all, TRUE);
    return NULL;
  }
  walk(CORPUS_GO_SRC, all);
  g_ptr_array_sort(all, cmp_str);
  n = MIN(max, (size_t)all->len);
  out = g_new0(char *, n + 1);
  for (size_t i = 0; i < n; i++)
    out[i] = g_strdup(g_ptr_array_index(all, i));
  g_ptr_array_free(all, TRUE);
  if (ret_n != NULL)
    *ret_n = n;
  return out;
}

int64_t corpus_count_lines(const char *data, size_t len) {
  int64_t n = 0;

  for (size_t i = 0; i < len; i++)
    n += data[i] == '\n';
  return n + (len > 0 && data[len - 1] != '\n');
}

char *corpus_tmpdir(const char *name) {
  g_autofree char *tmpl = g_strdup_printf("%s-XXXXXX", name);
  GError *err = NULL;
  char *dir = g_dir_make_tmp(tmpl, &err);

  if (dir == NULL) {
    fprintf(stderr, "cannot make a temporary folder: %s\n", err->message);
    abort();
  }
  return dir;
}

char *corpus_write(const char *dir, const char *name, const char *text, size_t len) {
  char *p = g_build_filename(dir, name, NULL);
  GError *err = NULL;

  if (!g_file_set_contents(p, text, (gssize)len, &err)) {
    fprintf(stderr, "cannot write %s: %s\n", p, err->message);
    abort();
  }
  return p;
}

void corpus_rmdir(const char *dir) {
  g_autoptr(GDir) d = dir != NULL ? g_dir_open(dir, 0, NULL) : NULL;
  const char *name;

  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    g_autofree char *p = g_build_filename(dir, name, NULL);

    g_unlink(p);
  }
  if (dir != NULL)
    g_rmdir(dir);
}
