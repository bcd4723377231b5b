/* Runs a fuzz target over files, so that its corpus runs as a plain test without libFuzzer.
 * Each argument is a file or a directory of files. Exits 77 (skipped) when there was no input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs the target on one file; returns 0 or -1 when it cannot be read. */
static int fuzz_main_file(const char *path) {
  g_autoptr(GError) error = NULL;
  char *data = NULL;
  size_t size;

  if (!g_file_get_contents(path, &data, &size, &error)) {
    fprintf(stderr, "%s\n", error->message);
    return -1;
  }
  /* Named first, so that a target that aborts shows which input did it. */
  printf("%s\n", path);
  fflush(stdout);
  LLVMFuzzerTestOneInput((const uint8_t *)data, size);
  g_free(data);
  return 0;
}

/* Runs the target on every file of a directory; returns how many, or -1. */
static int fuzz_main_dir(const char *dir_path) {
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open(dir_path, 0, &error);
  const char *name;
  int n = 0;

  if (!dir) {
    fprintf(stderr, "%s\n", error->message);
    return -1;
  }
  while ((name = g_dir_read_name(dir))) {
    g_autofree char *path = g_build_filename(dir_path, name, NULL);

    if (g_file_test(path, G_FILE_TEST_IS_DIR))
      continue;
    if (fuzz_main_file(path) < 0)
      return -1;
    n++;
  }
  return n;
}

int main(int argc, char **argv) {
  int total = 0;

  for (int i = 1; i < argc; i++) {
    int n = g_file_test(argv[i], G_FILE_TEST_IS_DIR) ? fuzz_main_dir(argv[i])
                                                     : (fuzz_main_file(argv[i]) < 0 ? -1 : 1);

    if (n < 0)
      return EXIT_FAILURE;
    total += n;
  }
  printf("%d inputs ran\n", total);
  if (total == 0) {
    printf("SKIP: no input in the corpus given\n");
    return 77;
  }
  return EXIT_SUCCESS;
}
