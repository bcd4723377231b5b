/* The rules of one ignore file (.gitignore, .git/info/exclude, .ignore), as git reads them:
 * pure, no I/O. Lines are patterns (glob.h) relative to the file's folder; `#` starts a
 * comment, `!` re-includes, a trailing '/' matches folders only, a pattern with a '/' elsewhere
 * is anchored to the folder, one without matches a name at any depth; trailing spaces are cut
 * unless escaped, `\#` and `\!` are literal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *line;    /* the line as written (trailing spaces cut), for messages; owned */
  char *pattern; /* what is matched: no '!', no leading or trailing '/'; owned */
  bool negate;   /* `!pattern`: re-includes */
  bool dir_only; /* `pattern/` */
  bool anchored; /* has a '/' before its end: matched against the whole relative path */
} IgnoreRule;

typedef struct {
  char *label; /* how messages name the file (e.g. "src/.gitignore"); owned */
  IgnoreRule *rules;
  size_t n_rules;
} IgnoreRules;

/* Parses text[0..len) (any bytes; NUL ends a line's use) into a new IgnoreRules named label.
 * Never fails; free with ignore_rules_free. */
IgnoreRules *ignore_rules_parse(const char *label, const char *text, size_t len);

/* The last rule of r that matches rel (relative to the file's folder, no leading '/'), a folder
 * when is_dir; NULL when none does. The caller reads rule->negate. */
const IgnoreRule *ignore_rules_match(const IgnoreRules *r, const char *rel, bool is_dir);

/* NULL is fine. */
void ignore_rules_free(IgnoreRules *r);
