/* Folders and globs into files (daemon/request/expand.c, daemon/request/expand-walk.c), the glob matcher
 * (daemon/readers/glob.c) and ignore files (daemon/readers/ignore-rules.c), on real trees each
 * test builds in a temporary folder, on a real git repository, and on the Go tree from Debian's
 * golang-1.19-src, checked against what find and git ls-files list. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/request/expand-walk.h"
#include "daemon/request/expand.h"
#include "daemon/readers/glob.h"
#include "daemon/readers/ignore-rules.h"
#include "tests/lib/check-run.h"
#include "tests/lib/skip.h"

#define GO_SRC "/usr/share/go-1.19/src"

static char *top;

static void put(const char *rel, const char *text, gssize len) {
  g_autofree char *p = g_build_filename(top, rel, NULL);
  g_autofree char *dir = g_path_get_dirname(p);

  ck_assert_int_eq(g_mkdir_with_parents(dir, 0700), 0);
  ck_assert(g_file_set_contents(p, text, len, NULL));
}

static void setup(void) {
  top = g_dir_make_tmp("readerd-expand-XXXXXX", NULL);
  ck_assert_ptr_nonnull(top);
}

static void rm_rf(const char *path) {
  g_autofree char *argv0 = g_find_program_in_path("rm");
  char *argv[] = {argv0, "-rf", (char *)path, NULL};

  ck_assert(g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL));
}

static void teardown(void) {
  rm_rf(top);
  g_clear_pointer(&top, g_free);
}

/* Runs a command in dir; its standard output, or NULL when it could not run or failed. */
static char *run_in(const char *dir, const char *const *argv) {
  char *out = NULL;
  int status = 0;

  if (!g_spawn_sync(dir, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                    NULL, NULL, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status(status, NULL)) {
    g_free(out);
    return NULL;
  }
  return out;
}

static bool git(const char *const *args) {
  const char *argv[16] = {"git", "-c", "user.name=t", "-c", "user.email=t@example.org"};
  size_t n = 5;
  g_autofree char *out = NULL;

  for (size_t i = 0; args[i] != NULL && n < G_N_ELEMENTS(argv) - 1; i++)
    argv[n++] = args[i];
  out = run_in(top, argv);
  return out != NULL;
}

static int cmp_ptr_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text sorted by their bytes, each ending with '\n'. Takes text. */
static char *sort_lines(char *text) {
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autoptr(GPtrArray) a = g_ptr_array_new();
  GString *s = g_string_new(NULL);

  g_free(text);
  for (size_t i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      g_ptr_array_add(a, lines[i]);
  g_ptr_array_sort(a, cmp_ptr_str);
  for (guint i = 0; i < a->len; i++)
    g_string_append_printf(s, "%s\n", (const char *)g_ptr_array_index(a, i));
  return g_string_free(s, FALSE);
}

/* Expands one path (relative to cwd) with opt; the new paths joined with '\n' (each line
 * ends with one). */
static char *expand1(const char *cwd, const char *path, ReadExpand opt, Expansion *ret) {
  ReadParams p;
  GString *s = g_string_new(NULL);

  read_params_init(&p);
  p.paths = g_new0(PathSpec, 1);
  p.n_paths = 1;
  p.paths[0].path = g_strdup(path);
  p.paths[0].limit = 7;
  p.cwd = g_strdup(cwd);
  p.expand = opt;
  p.expand.on = true;
  if (p.expand.max_files == 0)
    p.expand.max_files = READ_DEFAULT_MAX_FILES;
  ck_assert_int_eq(expand_paths(&p, 0, 0, NULL, NULL, NULL, ret), 0);
  /* No path expanded: the entries are the request's own paths. */
  for (size_t i = 0; i < ret->n_paths; i++)
    g_string_append_printf(s, "%s\n", (ret->paths != NULL ? ret->paths : p.paths)[i].path);
  read_params_clear(&p);
  return g_string_free(s, FALSE);
}

/* All notices of an expansion, joined. */
static char *notices(const Expansion *e) {
  GString *s = g_string_new(NULL);

  for (size_t i = 0; i < e->n_paths; i++)
    for (size_t k = 0; k < e->items[i].n_notices; k++)
      g_string_append_printf(s, "%s\n", e->items[i].notices[k].message);
  return g_string_free(s, FALSE);
}

START_TEST(glob_match_cases) {
  static const struct {
    const char *pattern, *path;
    bool match;
  } cases[] = {
      {"*.c", "a.c", true},
      {"*.c", "src/a.c", false},
      {"**/*.c", "a.c", true},
      {"**/*.c", "src/deep/a.c", true},
      {"src/**/*.c", "src/a.c", true},
      {"src/**/*.c", "src/x/y/a.c", true},
      {"src/**/*.c", "lib/a.c", false},
      {"src/**", "src/a", true},
      {"src/**", "src", false},
      {"a?c", "abc", true},
      {"a?c", "a/c", false},
      {"[a-c]x", "bx", true},
      {"[!a-c]x", "bx", false},
      {"[^a-c]x", "dx", true},
      {"[]]", "]", true},
      {"\\*", "*", true},
      {"\\*", "a", false},
      {"a**b", "axxb", true},
      {"a**b", "a/b", false},
      {"**", "any/depth/file", true},
      {"*", ".hidden", true},
      {"[ab", "[ab", true},
      {"*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
       false},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    ck_assert_msg(glob_match(cases[i].pattern, cases[i].path) == cases[i].match,
                  "glob_match(\"%s\", \"%s\") should be %d", cases[i].pattern, cases[i].path,
                  cases[i].match);
  ck_assert(glob_has_magic("src/*.c") && glob_has_magic("a[1]") && !glob_has_magic("src/a.c"));
  ck_assert_int_eq(glob_max_depth("*.c"), 1);
  ck_assert_int_eq(glob_max_depth("a/*/b"), 3);
  ck_assert_int_eq(glob_max_depth("a/**/b"), -1);
}
END_TEST

START_TEST(ignore_rules_parse_and_match) {
  static const char text[] = "# comment\n\nbuild/\n*.o\n!keep.o\n/root.txt\ndoc/*.md\n"
                             "\\#hash\nspace\\ \ntrail   \n";
  IgnoreRules *r = ignore_rules_parse("x/.gitignore", text, sizeof text - 1);
  const IgnoreRule *m;

  ck_assert_uint_eq(r->n_rules, 8);
  ck_assert_ptr_nonnull(m = ignore_rules_match(r, "build", true));
  ck_assert_str_eq(m->line, "build/");
  ck_assert_ptr_null(ignore_rules_match(r, "build", false)); /* folders only */
  ck_assert_ptr_nonnull(m = ignore_rules_match(r, "deep/a.o", false));
  ck_assert(!m->negate);
  ck_assert_ptr_nonnull(m = ignore_rules_match(r, "deep/keep.o", false));
  ck_assert(m->negate);
  ck_assert_ptr_nonnull(ignore_rules_match(r, "root.txt", false));
  ck_assert_ptr_null(ignore_rules_match(r, "sub/root.txt", false)); /* anchored */
  ck_assert_ptr_nonnull(ignore_rules_match(r, "doc/a.md", false));
  ck_assert_ptr_null(ignore_rules_match(r, "x/doc/a.md", false));
  ck_assert_ptr_nonnull(ignore_rules_match(r, "#hash", false));
  ck_assert_ptr_nonnull(ignore_rules_match(r, "space ", false));
  ck_assert_ptr_nonnull(ignore_rules_match(r, "trail", false));
  ignore_rules_free(r);
}
END_TEST

/* A folder outside any repository: every file, sorted by the bytes of the path ("a-b" before
 * "a/b", as git ls-files sorts), .git/ never, display paths under the folder as written. */
START_TEST(expand_folder_sorted) {
  Expansion e = {0};
  g_autofree char *got = NULL;

  put("t/a/b", "1\n", -1);
  put("t/a-b", "2\n", -1);
  put("t/B", "3\n", -1);
  put("t/.hidden", "4\n", -1);
  put("t/.git/config", "5\n", -1);
  put("t/z/y/x", "6\n", -1);
  got = expand1(top, "t/", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "t/.hidden\nt/B\nt/a-b\nt/a/b\nt/z/y/x\n");
  /* Options of the path apply to each file; each says where it came from. */
  for (size_t i = 0; i < e.n_paths; i++) {
    ck_assert_int_eq(e.paths[i].limit, 7);
    ck_assert(e.items[i].expanded);
    ck_assert_uint_eq(e.items[i].from, 0);
  }
  expansion_clear(&e);
  g_free(got);
  /* "t" and "./t/" are written the same way back. */
  got = expand1(top, "./t", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "./t/.hidden\n./t/B\n./t/a-b\n./t/a/b\n./t/z/y/x\n");
  expansion_clear(&e);
}
END_TEST

/* Nested .gitignore files with a negation, .git/info/exclude, and .ignore files (which win
 * over git's rules, `!` included); the notice names each ignore file and its rules. */
START_TEST(expand_ignore_rules) {
  static const char *const init[] = {"init", "-q", ".", NULL};
  Expansion e = {0};
  g_autofree char *got = NULL, *why = NULL;

  if (!git(init))
    SKIP_CASE("git cannot make a repository here");
  put(".gitignore", "*.log\nbuild/\n", -1);
  put("src/.gitignore", "*.tmp\n!keep.tmp\n", -1);
  put("src/a.c", "a\n", -1);
  put("src/x.tmp", "x\n", -1);
  put("src/keep.tmp", "k\n", -1);
  put("src/debug.log", "d\n", -1);
  put("build/out.c", "o\n", -1);
  put("vendor/v.c", "v\n", -1);
  put("src/gen/g.c", "g\n", -1);
  put("src/.ignore", "gen/\n!important.log\n", -1);
  put("src/important.log", "i\n", -1);
  {
    g_autofree char *ex = g_build_filename(top, ".git", "info", "exclude", NULL);
    ck_assert(g_file_set_contents(ex, "vendor/\n", -1, NULL));
  }
  got = expand1(top, ".", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, ".gitignore\nsrc/.gitignore\nsrc/.ignore\nsrc/a.c\nsrc/important.log\n"
                        "src/keep.tmp\n");
  why = notices(&e);
  ck_assert_msg(strstr(why, "5 paths left out by ignore rules") != NULL, "%s", why);
  ck_assert_msg(strstr(why, ".gitignore: 2 by build/, *.log") != NULL, "%s", why);
  ck_assert_msg(strstr(why, "src/.gitignore: 1 by *.tmp") != NULL, "%s", why);
  ck_assert_msg(strstr(why, ".git/info/exclude: 1 by vendor/") != NULL, "%s", why);
  ck_assert_msg(strstr(why, "src/.ignore: 1 by gen/") != NULL, "%s", why);
  /* The notice follows the last file of the expansion. */
  ck_assert_uint_eq(e.items[e.n_paths - 1].n_notices, 1);
  expansion_clear(&e);
  g_free(got);

  /* ignored: true takes them all, .git/ still never. */
  got = expand1(top, ".", (ReadExpand){.ignored = true}, &e);
  ck_assert_str_eq(got, ".gitignore\nbuild/out.c\nsrc/.gitignore\nsrc/.ignore\nsrc/a.c\n"
                        "src/debug.log\nsrc/gen/g.c\nsrc/important.log\nsrc/keep.tmp\nsrc/x.tmp\n"
                        "vendor/v.c\n");
  expansion_clear(&e);
  g_free(got);

  /* A folder git ignores, named by the client, is read. */
  got = expand1(top, "build", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "build/out.c\n");
  expansion_clear(&e);
  g_free(got);

  /* A glob one level deep neither enters build/ nor counts it as left out. */
  got = expand1(top, "*.c", (ReadExpand){0}, &e);
  {
    FileResult f = {0};

    ck_assert(expansion_answer(&e, 0, &f));
    ck_assert_str_eq(f.error, "no file matches the pattern");
    file_result_clear(&f);
  }
  expansion_clear(&e);
}
END_TEST

/* What git ls-files lists (tracked, and untracked not ignored) is what a folder expands to. */
START_TEST(expand_matches_git_ls_files) {
  static const char *const init[] = {"init", "-q", ".", NULL};
  static const char *const add[] = {"add", "-A", NULL};
  static const char *const ls[] = {"git",      "ls-files",           "--cached",
                                   "--others", "--exclude-standard", NULL};
  Expansion e = {0};
  g_autofree char *got = NULL, *want = NULL;

  if (!git(init))
    SKIP_CASE("git cannot make a repository here");
  put(".gitignore", "*.o\n/out/\ndocs/**/*.html\n!docs/keep/*.html\n", -1);
  put("lib/x.c", "x\n", -1);
  put("lib/x.o", "o\n", -1);
  put("out/a", "a\n", -1);
  put("sub/out/b", "b\n", -1);
  put("docs/a/b/c.html", "c\n", -1);
  put("docs/keep/k.html", "k\n", -1);
  put("docs/readme", "r\n", -1);
  put("lib/sub/.gitignore", "*\n!*.h\n!.gitignore\n", -1);
  put("lib/sub/a.h", "h\n", -1);
  put("lib/sub/a.c", "c\n", -1);
  ck_assert(git(add));
  put("untracked.txt", "u\n", -1);
  want = run_in(top, ls);
  ck_assert_ptr_nonnull(want);
  /* git lists the tracked files first, then the others: one order for both. */
  want = sort_lines(want);
  got = expand1(top, ".", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, want);
  expansion_clear(&e);
}
END_TEST

/* A glob: ** across folders, * within one, the folder part written back as given. */
START_TEST(expand_glob_patterns) {
  Expansion e = {0};
  g_autofree char *got = NULL;

  put("p/a.c", "1\n", -1);
  put("p/b.h", "2\n", -1);
  put("p/q/c.c", "3\n", -1);
  put("p/q/r/d.c", "4\n", -1);
  got = expand1(top, "p/**/*.c", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "p/a.c\np/q/c.c\np/q/r/d.c\n");
  expansion_clear(&e);
  g_free(got);
  got = expand1(top, "p/*.c", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "p/a.c\n");
  expansion_clear(&e);
  g_free(got);
  got = expand1(top, "p/?/*.[ch]", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "p/q/c.c\n");
  expansion_clear(&e);
  g_free(got);
  /* A glob character in the name of a file that exists: that file. */
  put("p/odd[1].txt", "5\n", -1);
  got = expand1(top, "p/odd[1].txt", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "p/odd[1].txt\n");
  ck_assert(!e.items[0].expanded);
  expansion_clear(&e);
}
END_TEST

/* Past maxFiles: the first files in order, and a notice saying how many were left and how to
 * narrow the pattern. */
START_TEST(expand_max_files_notice) {
  Expansion e = {0};
  g_autofree char *got = NULL, *why = NULL;

  for (int i = 0; i < 12; i++) {
    g_autofree char *name = g_strdup_printf("m/f%02d.txt", i);
    put(name, "x\n", -1);
  }
  got = expand1(top, "m", (ReadExpand){.max_files = 5}, &e);
  ck_assert_str_eq(got, "m/f00.txt\nm/f01.txt\nm/f02.txt\nm/f03.txt\nm/f04.txt\n");
  why = notices(&e);
  ck_assert_msg(strstr(why, "5 of 12 files shown: 7 more left out past maxFiles (5)") != NULL, "%s",
                why);
  ck_assert_msg(strstr(why, "\"m/**/*.txt\"") != NULL, "%s", why);
  ck_assert_msg(strstr(why, "expand.maxFiles") != NULL, "%s", why);
  expansion_clear(&e);
}
END_TEST

/* A binary file is listed, with its size, and not read; with binary: true it is read. */
START_TEST(expand_binary_listed) {
  static const char bin[] = "ELF\0\1\2\3";
  static const char utf16[] = "\xFF\xFEh\0i\0";
  Expansion e = {0};
  g_autofree char *got = NULL;
  FileResult f = {0};

  put("b/prog", bin, sizeof bin - 1);
  put("b/text.txt", "hello\n", -1);
  put("b/wide.txt", utf16, sizeof utf16 - 1);
  got = expand1(top, "b", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "b/prog\nb/text.txt\nb/wide.txt\n");
  ck_assert(expansion_answer(&e, 0, &f));
  ck_assert_str_eq(f.omitted, OMITTED_BINARY);
  ck_assert_int_eq(f.bytes, (int64_t)sizeof bin - 1);
  ck_assert_ptr_null(f.code);
  ck_assert_str_eq(f.path, "b/prog");
  file_result_clear(&f);
  ck_assert(!expansion_answer(&e, 1, &f)); /* text is read */
  ck_assert(!expansion_answer(&e, 2, &f)); /* so is UTF-16, NUL bytes and all */
  expansion_clear(&e);
  g_free(got);
  got = expand1(top, "b", (ReadExpand){.binary = true}, &e);
  ck_assert(!expansion_answer(&e, 0, &f));
  expansion_clear(&e);
}
END_TEST

/* A folder or glob with no file: one FILE_NOT_FOUND entry for the pattern saying why. */
START_TEST(expand_empty_match) {
  Expansion e = {0};
  g_autofree char *got = NULL;
  FileResult f = {0};

  put("e/.gitignore-not-a-repo/x.log", "l\n", -1);
  put("e/only.log", "l\n", -1);
  put("e/.ignore", "*.log\n", -1);
  got = expand1(top, "e/*.c", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "e/*.c\n");
  ck_assert(expansion_answer(&e, 0, &f));
  ck_assert_str_eq(f.code, "FILE_NOT_FOUND");
  ck_assert_str_eq(f.error, "no file matches the pattern");
  file_result_clear(&f);
  expansion_clear(&e);
  g_free(got);
  /* Everything ignored: the message says by what. */
  got = expand1(top, "e/**/*.log", (ReadExpand){0}, &e);
  ck_assert(expansion_answer(&e, 0, &f));
  ck_assert_str_eq(f.code, "FILE_NOT_FOUND");
  /* Outside a repository, ignore files are named as the client wrote the folder. */
  ck_assert_str_eq(f.error, "no file matches the pattern: 2 paths left out by ignore rules "
                            "(e/.ignore: 2 by *.log); expand.ignored: true reads them");
  file_result_clear(&f);
  expansion_clear(&e);
  g_free(got);
  got = expand1(top, "missing/**/*.c", (ReadExpand){0}, &e);
  ck_assert(expansion_answer(&e, 0, &f));
  ck_assert_str_eq(f.code, "FILE_NOT_FOUND");
  ck_assert_msg(strstr(f.error, "missing/ is not a folder") != NULL, "%s", f.error);
  file_result_clear(&f);
  expansion_clear(&e);
}
END_TEST

/* Lines of a command's output, each with the prefix cut, as expand1 lists them. */
static char *find_list(const char *const *argv, const char *cut, const char *prefix) {
  g_autofree char *out = run_in(NULL, argv);
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) rel = g_ptr_array_new();
  GString *s = g_string_new(NULL);

  ck_assert_ptr_nonnull(out);
  lines = g_strsplit(out, "\n", -1);
  for (size_t i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix(lines[i], cut))
      g_ptr_array_add(rel, lines[i] + strlen(cut));
  g_ptr_array_sort(rel, cmp_ptr_str);
  for (guint i = 0; i < rel->len; i++)
    g_string_append_printf(s, "%s%s\n", prefix, (const char *)g_ptr_array_index(rel, i));
  return g_string_free(s, FALSE);
}

/* The Go tree (no repository, no .ignore under these folders): a glob and a folder give what
 * find lists, in byte order. */
START_TEST(expand_go_tree_like_find) {
  static const char *const find_tests[] = {"find",  GO_SRC "/net/http", "-xtype", "f",
                                           "-name", "*_test.go",        NULL};
  static const char *const find_all[] = {"find", GO_SRC "/encoding", "-xtype", "f", NULL};
  Expansion e = {0};
  g_autofree char *got = NULL, *want = NULL;

  if (!g_file_test(GO_SRC "/net/http", G_FILE_TEST_IS_DIR))
    SKIP_CASE("%s is missing (Debian package golang-1.19-src)", GO_SRC);
  want = find_list(find_tests, GO_SRC "/net/http/", "net/http/");
  ck_assert(strlen(want) > 0);
  got = expand1(GO_SRC, "net/http/**/*_test.go", (ReadExpand){.max_files = 10000}, &e);
  ck_assert_str_eq(got, want);
  expansion_clear(&e);
  g_free(got);
  g_free(want);
  /* A whole folder, binary files and all (testdata holds some). */
  want = find_list(find_all, GO_SRC "/encoding/", GO_SRC "/encoding/");
  got = expand1(NULL, GO_SRC "/encoding", (ReadExpand){.max_files = 10000, .binary = true}, &e);
  ck_assert_str_eq(got, want);
  expansion_clear(&e);
}
END_TEST

/* Patterns that make a backtracking matcher take exponential time match at once here, and
 * right: the rule applies when the name has the letters, and not otherwise. */
START_TEST(glob_pathological_patterns) {
  g_autofree char *as = g_strnfill(4000, 'a');
  g_autofree char *asb = g_strconcat(as, "b", NULL);
  g_autofree char *deep = NULL;
  static const char rules[] = "*a*a*a*a*a*a*a*a*a*a*a*a*b\n**/**/**/**/**/**/**/**/**/**/z\n";
  IgnoreRules *r = ignore_rules_parse("t", rules, sizeof rules - 1);
  GString *path = g_string_new(NULL);

  ck_assert(!glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*b", as));
  ck_assert(glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*b", asb));
  for (int i = 0; i < 200; i++)
    g_string_append(path, "a/");
  g_string_append(path, "y");
  ck_assert(!glob_match("**/**/**/**/**/**/**/**/**/**/z", path->str));
  path->str[path->len - 1] = 'z';
  ck_assert(glob_match("**/**/**/**/**/**/**/**/**/**/z", path->str));
  ck_assert_ptr_null(ignore_rules_match(r, as, false));
  ck_assert_ptr_nonnull(ignore_rules_match(r, asb, false));
  ck_assert_ptr_nonnull(ignore_rules_match(r, path->str, false));
  deep = g_strndup(path->str, path->len - 1);
  ck_assert_ptr_null(ignore_rules_match(r, deep, true));
  ignore_rules_free(r);
  g_string_free(path, TRUE);
}
END_TEST

/* git's excludes file (core.excludesFile) is applied, and its rule named. */
START_TEST(expand_global_excludes) {
  static const char *const init[] = {"init", "-q", ".", NULL};
  Expansion e = {0};
  g_autofree char *got = NULL, *why = NULL;
  g_autofree char *global = g_build_filename(top, "global-ignore", NULL);
  const char *const config[] = {"config", "core.excludesFile", global, NULL};

  if (!git(init) || !git(config))
    SKIP_CASE("git cannot make a repository here");
  put("global-ignore", "*.swp\n", -1);
  put("a.c", "a\n", -1);
  put("a.c.swp", "s\n", -1);
  got = expand1(top, ".", (ReadExpand){0}, &e);
  ck_assert_str_eq(got, "a.c\nglobal-ignore\n");
  why = notices(&e);
  ck_assert_msg(strstr(why, "git's excludes file (core.excludesFile): 1 by *.swp") != NULL, "%s",
                why);
  expansion_clear(&e);
}
END_TEST

/* The walk checks the request's cancel flag between entries: a cancelled walk stops with
 * -ECANCELED and lists nothing. */
START_TEST(expand_walk_cancelled) {
  atomic_bool cancelled;
  g_autofree char *base = realpath(top, NULL);
  Walk w = {.base = base, .ignored = true, .cancelled = &cancelled};

  put("a.txt", "a\n", -1);
  put("b/c.txt", "c\n", -1);
  atomic_init(&cancelled, true);
  ck_assert_int_eq(walk_run(&w), -ECANCELED);
  ck_assert_uint_eq(w.files->len, 0);
  walk_clear(&w);
  memset(&w, 0, sizeof w);
  w.base = base;
  w.ignored = true;
  w.cancelled = &cancelled;
  atomic_store(&cancelled, false);
  ck_assert_int_eq(walk_run(&w), 0);
  ck_assert_uint_eq(w.files->len, 2);
  walk_clear(&w);
}
END_TEST

static Suite *expand_suite(void) {
  Suite *s = suite_create("expand");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, glob_match_cases);
  tcase_add_test(tc, ignore_rules_parse_and_match);
  tcase_add_test(tc, expand_folder_sorted);
  tcase_add_test(tc, expand_ignore_rules);
  tcase_add_test(tc, expand_matches_git_ls_files);
  tcase_add_test(tc, expand_glob_patterns);
  tcase_add_test(tc, expand_max_files_notice);
  tcase_add_test(tc, expand_binary_listed);
  tcase_add_test(tc, expand_empty_match);
  tcase_add_test(tc, expand_go_tree_like_find);
  tcase_add_test(tc, glob_pathological_patterns);
  tcase_add_test(tc, expand_global_excludes);
  tcase_add_test(tc, expand_walk_cancelled);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int failed;

  skip_init();
  failed = check_run(expand_suite());
  return skip_status(failed == 0 ? 0 : 1);
}
