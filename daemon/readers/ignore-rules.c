#include "daemon/readers/ignore-rules.h"

#include <string.h>

#include <glib.h>

#include "daemon/readers/glob.h"

/* Cuts trailing spaces that are not escaped by a backslash. */
static void cut_trailing_spaces(GString *s) {
  while (s->len > 0 && s->str[s->len - 1] == ' ') {
    if (s->len > 1 && s->str[s->len - 2] == '\\') {
      /* "\ " keeps its space, without the backslash. */
      g_string_erase(s, (gssize)s->len - 2, 1);
      return;
    }
    g_string_truncate(s, s->len - 1);
  }
}

/* One line into a rule; false for blank lines and comments. */
static bool parse_line(const char *p, size_t n, IgnoreRule *ret) {
  g_autoptr(GString) s = g_string_new_len(p, (gssize)n);
  const char *pat;
  size_t len;

  if (s->len > 0 && s->str[s->len - 1] == '\r')
    g_string_truncate(s, s->len - 1);
  /* A NUL ends what the line says. */
  g_string_truncate(s, strlen(s->str));
  cut_trailing_spaces(s);
  if (s->len == 0 || s->str[0] == '#')
    return false;
  memset(ret, 0, sizeof *ret);
  ret->line = g_strdup(s->str);
  pat = s->str;
  if (*pat == '!') {
    ret->negate = true;
    pat++;
  } else if (*pat == '\\' && (pat[1] == '#' || pat[1] == '!')) {
    pat++;
  }
  len = strlen(pat);
  if (len > 0 && pat[len - 1] == '/') {
    ret->dir_only = true;
    len--;
  }
  if (len > 0 && *pat == '/') {
    ret->anchored = true;
    pat++;
    len--;
  }
  if (memchr(pat, '/', len) != NULL)
    ret->anchored = true;
  if (len == 0) {
    g_free(ret->line);
    return false;
  }
  ret->pattern = g_strndup(pat, len);
  return true;
}

IgnoreRules *ignore_rules_parse(const char *label, const char *text, size_t len) {
  IgnoreRules *r = g_new0(IgnoreRules, 1);
  GArray *rules = g_array_new(FALSE, FALSE, sizeof(IgnoreRule));
  size_t i = 0;

  r->label = g_strdup(label);
  while (i < len) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t n = nl != NULL ? (size_t)(nl - (text + i)) : len - i;
    IgnoreRule rule;

    if (parse_line(text + i, n, &rule))
      g_array_append_val(rules, rule);
    i += n + 1;
  }
  r->n_rules = rules->len;
  r->rules = (IgnoreRule *)(void *)g_array_free(rules, FALSE);
  return r;
}

const IgnoreRule *ignore_rules_match(const IgnoreRules *r, const char *rel, bool is_dir) {
  const char *name = strrchr(rel, '/');

  name = name != NULL ? name + 1 : rel;
  for (size_t i = r->n_rules; i-- > 0;) {
    const IgnoreRule *rule = &r->rules[i];

    if (rule->dir_only && !is_dir)
      continue;
    if (glob_match(rule->pattern, rule->anchored ? rel : name))
      return rule;
  }
  return NULL;
}

void ignore_rules_free(IgnoreRules *r) {
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n_rules; i++) {
    g_free(r->rules[i].line);
    g_free(r->rules[i].pattern);
  }
  g_free(r->rules);
  g_free(r->label);
  g_free(r);
}
