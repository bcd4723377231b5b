/* The token estimator's speed (formatters/tokens.c), in MB/s on one core: Go source (every .go
 * file of /usr/share/go-1.19/src, in name order, up to 40 MB, joined) and Japanese text (Vim's
 * Japanese tutor repeated to about 40 MB), each priced whole (tokens_text_milli: a file's
 * content) and line by line after a line number (a TokenCounter fed "%6d\t" and each line, as
 * the line engine prices what it shows under a budget), best of 7 runs. Prints one line per
 * text and way; exits 77 when a text is missing.
 * Usage: bench-tokens [GO_ROOT [JAPANESE_FILE]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "formatters/tokens.h"

#define TEXT_BYTES ((gsize)40 * 1000 * 1000)
#define RUNS 7

static double now_s(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static gint cmp_str(gconstpointer a, gconstpointer b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends every .go file under dir (name order) to out, up to TEXT_BYTES. */
static void add_go(GString *out, const char *dir) {
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name(d)) != NULL)
    g_ptr_array_add(names, g_strdup(name));
  g_ptr_array_sort(names, cmp_str);
  for (guint i = 0; i < names->len && out->len < TEXT_BYTES; i++) {
    g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL);
    g_autofree char *s = NULL;
    gsize n;

    if (g_file_test(path, G_FILE_TEST_IS_SYMLINK))
      continue;
    if (g_file_test(path, G_FILE_TEST_IS_DIR))
      add_go(out, path);
    else if (g_str_has_suffix(path, ".go") && g_file_get_contents(path, &s, &n, NULL))
      g_string_append_len(out, s, (gssize)n);
  }
}

/* The estimate of text fed line by line, each after its number. */
static int64_t by_line(const GString *text) {
  const char *p = text->str, *end = text->str + text->len;
  TokenCounter c;
  int line = 1;

  token_counter_init(&c);
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(end - p);
    char prefix[24];
    int len = snprintf(prefix, sizeof prefix, "%6d\t", line++);

    token_counter_feed(&c, prefix, (size_t)len);
    token_counter_feed(&c, p, n);
    p += n;
  }
  return token_counter_milli(&c);
}

/* Prints the best speed of RUNS estimates of text, whole and line by line. */
static void measure(const char *what, const GString *text) {
  for (int way = 0; way < 2; way++) {
    double best = 1e30;
    int64_t milli = 0;

    for (int r = 0; r < RUNS; r++) {
      double t0 = now_s(), t;

      milli = way == 0 ? tokens_text_milli(text->str, text->len) : by_line(text);
      t = now_s() - t0;
      if (t < best)
        best = t;
    }
    printf("%-10s %-8s %6.1f MB  %7.0f MB/s  %" G_GINT64_FORMAT " tokens\n", what,
           way == 0 ? "whole" : "by line", (double)text->len / 1e6, (double)text->len / best / 1e6,
           tokens_from_milli(milli));
  }
}

int main(int argc, char **argv) {
  const char *go_root = argc > 1 ? argv[1] : "/usr/share/go-1.19/src";
  const char *ja = argc > 2 ? argv[2] : "/usr/share/vim/vim90/tutor/tutor.ja.utf-8";
  g_autoptr(GString) go = g_string_new(NULL), japanese = g_string_new(NULL);
  g_autofree char *s = NULL;
  gsize n = 0;

  add_go(go, go_root);
  if (go->len == 0 || !g_file_get_contents(ja, &s, &n, NULL) || n == 0) {
    fprintf(stderr, "SKIP: %s or %s is missing (golang-1.19-src, vim-runtime)\n", go_root, ja);
    return 77;
  }
  while (japanese->len < TEXT_BYTES)
    g_string_append_len(japanese, s, (gssize)n);
  measure("Go source", go);
  measure("Japanese", japanese);
  return 0;
}
