#include "daemon/request/dl-table.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *dl_table_open(const char *what, const char *file_env, const char *soname,
                    const DlSymbol *syms, size_t n_syms, void *table, const char **ret_file,
                    char *error, size_t error_size) {
  const char *file = secure_getenv(file_env);
  void *h, *f;

  if (file == NULL || *file == '\0')
    file = soname;
  if (ret_file != NULL)
    *ret_file = file;
  h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    snprintf(error, error_size, "%s cannot be loaded: %s", what, dlerror());
    return NULL;
  }
  /* Every name first: the table is written whole or not at all. */
  for (size_t i = 0; i < n_syms; i++)
    if (dlsym(h, syms[i].name) == NULL) {
      snprintf(error, error_size, "%s cannot be loaded: %s has no %s", what, file, syms[i].name);
      dlclose(h);
      return NULL;
    }
  for (size_t i = 0; i < n_syms; i++) {
    f = dlsym(h, syms[i].name);
    /* POSIX lets dlsym's pointer be a function's. */
    memcpy((char *)table + syms[i].offset, &f, sizeof f);
  }
  return h;
}
