/* Fuzz target for the glob matcher (daemon/readers/glob.c) and ignore files
 * (daemon/readers/ignore-rules.c). The input is a pattern, a NUL, then a path.
 *
 * glob_match() must never crash nor take long, and where the pattern has no class and no
 * escape it must agree with a plain recursive matcher written from the definition (fnmatch(3)
 * per segment, `**` segments tried at every depth). A pattern without glob characters matches
 * itself. The whole input is also parsed as an ignore file and each of its rules matched
 * against the path. */
#include <fnmatch.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/glob.h"
#include "daemon/readers/ignore-rules.h"
#include "tests/fuzz/fuzz.h"

/* Segments compared at most by the reference (it is exponential in `**` segments). */
#define REF_MAX_SEGMENTS 12

static bool ref_match(char **pat, char **path) {
  if (*pat == NULL)
    return *path == NULL;
  if (strcmp(*pat, "**") == 0) {
    /* Zero or more whole segments. */
    for (char **p = path;; p++) {
      if (ref_match(pat + 1, p))
        return true;
      if (*p == NULL)
        return false;
    }
  }
  return *path != NULL && fnmatch(*pat, *path, 0) == 0 && ref_match(pat + 1, path + 1);
}

static bool reference(const char *pattern, const char *path) {
  g_auto(GStrv) pat = g_strsplit(pattern, "/", -1);
  g_auto(GStrv) segs = g_strsplit(path, "/", -1);
  guint np = g_strv_length(pat);

  /* A trailing globstar after a slash needs one segment at least. */
  if (np > 1 && strcmp(pat[np - 1], "**") == 0) {
    guint ns = g_strv_length(segs);
    bool r;
    char *last;

    if (ns < 2)
      return false;
    last = segs[ns - 1];
    segs[ns - 1] = NULL;
    r = ref_match(pat, segs);
    segs[ns - 1] = last;
    return r;
  }
  return ref_match(pat, segs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_autofree char *buf = g_strndup((const char *)data, size);
  const char *pattern = buf, *path;
  size_t plen = strlen(buf);
  IgnoreRules *rules;
  bool m;

  if (size > 4096)
    return 0;
  path = plen < size ? (const char *)data + plen + 1 : "";
  {
    g_autofree char *p = g_strndup(path, size - MIN(size, plen + 1));

    m = glob_match(pattern, p);
    /* (g_strsplit makes nothing of "": the walk never asks about an empty path.) */
    if (strpbrk(pattern, "[\\") == NULL && *pattern != '\0' && *p != '\0') {
      g_auto(GStrv) a = g_strsplit(pattern, "/", -1);
      g_auto(GStrv) b = g_strsplit(p, "/", -1);

      if (g_strv_length(a) <= REF_MAX_SEGMENTS && g_strv_length(b) <= REF_MAX_SEGMENTS)
        fuzz_assert(m == reference(pattern, p));
    }
    if (!glob_has_magic(pattern) && strchr(pattern, '\\') == NULL)
      fuzz_assert(glob_match(pattern, pattern));
    rules = ignore_rules_parse("fuzz", (const char *)data, size);
    for (size_t i = 0; i < rules->n_rules; i++)
      fuzz_assert(rules->rules[i].pattern[0] != '\0' && rules->rules[i].line[0] != '\0');
    (void)ignore_rules_match(rules, p, false);
    (void)ignore_rules_match(rules, p, true);
    ignore_rules_free(rules);
  }
  return 0;
}
