/* Fuzz target for ignore files (daemon/readers/ignore-rules.c) as a folder walk uses them. The
 * input is an ignore file, a NUL, then paths one a line, each asked as a file and as a folder.
 *
 * Matching must never crash nor take long, whatever the rules (libFuzzer's -timeout catches a
 * matcher that backtracks: `*a*a*a*a*a*a*a*a*a*a*a*a*b` against "abab...abx" is in the
 * corpus). The rule returned is the last one that applies: a folder-only rule only to a
 * folder, an anchored rule to the whole path, another to the last name. Where a pattern has
 * no class, no escape, no `**` and few `*`, whether it applies agrees with fnmatch(3) with
 * FNM_PATHNAME, written from the definition. What matches a file matches the folder of the
 * same name too. */
#include <fnmatch.h>
#include <string.h>

#include <glib.h>

#include "daemon/readers/glob.h"
#include "daemon/readers/ignore-rules.h"
#include "tests/fuzz/fuzz.h"

/* Paths asked at most per input. */
#define MAX_PATHS 64
/* Stars in a pattern compared with fnmatch at most: fnmatch backtracks. */
#define REF_MAX_STARS 6

static bool ref_applies(const IgnoreRule *rule, const char *path, bool is_dir) {
  const char *name = strrchr(path, '/');
  const char *subject = rule->anchored ? path : (name != NULL ? name + 1 : path);

  if (rule->dir_only && !is_dir)
    return false;
  return fnmatch(rule->pattern, subject, FNM_PATHNAME) == 0;
}

static bool ref_comparable(const char *pattern) {
  size_t stars = 0;

  for (const char *p = pattern; *p != '\0'; p++)
    stars += *p == '*';
  return strpbrk(pattern, "[\\") == NULL && strstr(pattern, "**") == NULL && stars <= REF_MAX_STARS;
}

static void check_path(const IgnoreRules *rules, const char *path, bool is_dir) {
  const IgnoreRule *m = ignore_rules_match(rules, path, is_dir);
  size_t at = m != NULL ? (size_t)(m - rules->rules) : SIZE_MAX;

  if (m != NULL) {
    fuzz_assert(at < rules->n_rules);
    fuzz_assert(!m->dir_only || is_dir);
  }
  /* No later rule applies where the reference can tell. */
  for (size_t i = rules->n_rules; i-- > 0 && (m == NULL || i > at);) {
    const IgnoreRule *r = &rules->rules[i];

    if (ref_comparable(r->pattern))
      fuzz_assert(!ref_applies(r, path, is_dir));
  }
  if (m != NULL && ref_comparable(m->pattern))
    fuzz_assert(ref_applies(m, path, is_dir));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_autofree char *buf = g_strndup((const char *)data, size);
  size_t text_len = strlen(buf);
  g_autofree char *rest = NULL;
  g_auto(GStrv) paths = NULL;
  IgnoreRules *rules;

  if (size > 8192)
    return 0;
  rules = ignore_rules_parse("fuzz", (const char *)data, text_len);
  fuzz_assert(strcmp(rules->label, "fuzz") == 0);
  for (size_t i = 0; i < rules->n_rules; i++)
    fuzz_assert(rules->rules[i].pattern[0] != '\0' && rules->rules[i].line[0] != '\0');
  rest = text_len < size ? g_strndup((const char *)data + text_len + 1, size - text_len - 1)
                         : g_strdup("");
  paths = g_strsplit(rest, "\n", MAX_PATHS + 1);
  for (size_t i = 0; paths[i] != NULL && i < MAX_PATHS; i++) {
    const char *p = paths[i];

    /* A walk asks about relative paths without empty segments. */
    if (*p == '\0' || *p == '/' || strstr(p, "//") != NULL || g_str_has_suffix(p, "/"))
      continue;
    check_path(rules, p, false);
    check_path(rules, p, true);
    if (ignore_rules_match(rules, p, false) != NULL)
      fuzz_assert(ignore_rules_match(rules, p, true) != NULL);
  }
  ignore_rules_free(rules);
  return 0;
}
