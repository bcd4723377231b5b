/* A library opened with dlopen on its first use rather than linked (git-dl.c, and the vision
 * client's curl-dl.c): its functions looked up by name into the caller's table of pointers.
 * Pure of readerd; any thread (the callers serialise it with pthread_once). */
#pragma once

#include <stddef.h>

/* One function of a table: its name in the library, and the offset of its pointer in the
 * caller's struct. */
typedef struct {
  const char *name;
  size_t offset;
} DlSymbol;

/* Opens the file named by the environment variable file_env (read with secure_getenv), or
 * soname when that is unset or empty, and stores each of the n_syms functions into table at
 * its offset. Returns the handle, with *ret_file (unless NULL) the file opened (file_env's value
 * or soname); or NULL, with nothing of table written and error[0..error_size) saying
 * "WHAT cannot be loaded: why". */
void *dl_table_open(const char *what, const char *file_env, const char *soname,
                    const DlSymbol *syms, size_t n_syms, void *table, const char **ret_file,
                    char *error, size_t error_size);
