/* The workspace fence, on real files, symlinks and names in a temporary folder: its checks
 * one by one, then its verdicts as the reader gives them, by whichever way it takes (a plain
 * path with no symlink on the way judged as written, any other resolved). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/readers/reader.h"
#include "daemon/readers/workspace.h"
#include "tests/lib/check-run.h"

static char *top; /* a temporary folder holding ws/ (the root) and outside/ */
static char *root;

static char *at(const char *rel) {
  return g_build_filename(top, rel, NULL);
}

static void put(const char *rel, const char *text) {
  g_autofree char *p = at(rel);

  ck_assert(g_file_set_contents(p, text, -1, NULL));
}

static void link_to(const char *target, const char *rel) {
  g_autofree char *p = at(rel);

  ck_assert_int_eq(symlink(target, p), 0);
}

static void setup(void) {
  top = g_dir_make_tmp("readerd-ws-XXXXXX", NULL);
  ck_assert_ptr_nonnull(top);
  root = at("ws");
  g_autofree char *sub = at("ws/src/deep"), *out = at("outside"), *sec = at("ws/secrets");
  ck_assert_int_eq(g_mkdir_with_parents(sub, 0700), 0);
  ck_assert_int_eq(g_mkdir_with_parents(sec, 0700), 0);
  ck_assert_int_eq(g_mkdir_with_parents(out, 0700), 0);
  put("ws/src/main.c", "int main;\n");
  put("ws/src/deep/x.txt", "x\n");
  put("ws/.env", "KEY=1\n");
  put("ws/src/server.pem", "pem\n");
  put("ws/secrets/token", "t\n");
  put("outside/secret.txt", "no\n");
  link_to("../outside/secret.txt", "ws/escape.txt");
  link_to(".env", "ws/notes.txt");
  link_to("src/main.c", "ws/main-link.c");
  link_to("../outside", "ws/outdir");
}

static void teardown(void) {
  g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", top);

  ck_assert_int_eq(system(cmd), 0);
  g_free(root);
  g_free(top);
}

/* Opens `path` (relative to the root unless absolute) and asks the workspace. Returns the
 * code, or NULL when allowed; checks that the path check and the descriptor check agree. */
static const char *verdict(const Workspace *ws, const char *path) {
  g_autofree char *full =
      g_path_is_absolute(path) ? g_strdup(path) : g_build_filename(root, path, NULL);
  FileResult a = {0}, b = {0};
  bool by_path = workspace_allows_path(ws, full, &a);
  int fd = open(full, O_RDONLY | O_CLOEXEC);
  const char *code;

  ck_assert_msg(fd >= 0, "%s: %s", full, g_strerror(errno));
  code = workspace_allows(ws, fd, path, &b) ? NULL : b.code;
  close(fd);
  /* What the path check refuses, the descriptor check refuses too. */
  if (!by_path)
    ck_assert_ptr_nonnull(code);
  if (code != NULL)
    ck_assert_ptr_nonnull(b.error);
  file_result_clear(&a);
  file_result_clear(&b);
  return code;
}

/* What the reader says of `path` (relative to the workspace's root unless absolute; an
 * expansion's file when expanded): reader_read()'s code, or NULL when it read the file, its
 * text then in *ret_content (g_free; may be NULL). *ret_error (g_free; may be NULL) gets the
 * message of a refusal. A measure with a head and one without (a file past the answer's cap,
 * only stat'ed) must give the same code, and neither says a refused file's size. */
static const char *read_as(const Workspace *ws, const char *path, bool expanded, char **ret_content,
                           char **ret_error) {
  ReaderOptions o = {.path = path, .offset = 1, .limit = 2000, .expanded = expanded};
  FileResult r = {0}, head = {0}, stat_only = {0};
  ReaderSample s;
  const char *code;

  reader_read(&o, ws, NULL, &r);
  code = r.code;
  (void)reader_measure(&o, ws, NULL, READER_SAMPLE_SIZE, &head, &s);
  (void)reader_measure(&o, ws, NULL, 0, &stat_only, &s);
  ck_assert_msg(g_strcmp0(head.code, code) == 0 && g_strcmp0(stat_only.code, code) == 0,
                "%s: read %s, measured %s, stat'ed %s", path, code, head.code, stat_only.code);
  if (code != NULL) {
    ck_assert_msg(r.error != NULL && *r.error != '\0', "%s: %s without a message", path, code);
    ck_assert_msg(r.bytes == -1 && stat_only.bytes == -1, "%s: %s, yet its size was said", path,
                  code);
  } else {
    ck_assert_int_eq(stat_only.bytes, r.bytes);
  }
  if (ret_content != NULL)
    *ret_content = code == NULL ? g_strndup(r.content, r.content_len) : NULL;
  if (ret_error != NULL)
    *ret_error = g_strdup(r.error);
  file_result_clear(&r);
  file_result_clear(&head);
  file_result_clear(&stat_only);
  return code;
}

/* Checks that the reader refuses path with `code`. */
static void assert_read_code(const Workspace *ws, const char *path, const char *code) {
  const char *got = read_as(ws, path, false, NULL, NULL);

  ck_assert_msg(g_strcmp0(got, code) == 0, "%s: %s, expected %s", path, got ? got : "read", code);
}

/* Checks that the reader reads path, and that its text is `text`. */
static void assert_read_text(const Workspace *ws, const char *path, const char *text) {
  g_autofree char *content = NULL;
  const char *got = read_as(ws, path, false, &content, NULL);

  ck_assert_msg(got == NULL, "%s: %s, expected it read", path, got);
  ck_assert_msg(g_strcmp0(content, text) == 0, "%s reads '%s', expected '%s'", path, content, text);
}

static Workspace *make(const char *r, bool confine, const char *const *exclude) {
  Workspace *ws = NULL;
  g_autofree char *err = NULL;

  ck_assert_msg(workspace_new(r, confine, exclude, &ws, &err) == 0, "%s", err);
  return ws;
}

START_TEST(workspace_confine_follows_symlinks) {
  Workspace *ws = make(root, true, NULL);
  g_autofree char *outside = at("outside/secret.txt");
  g_autofree char *dotdot = g_strdup_printf("%s/src/../../outside/secret.txt", root);

  ck_assert_ptr_null(verdict(ws, "src/main.c"));
  ck_assert_ptr_null(verdict(ws, "src/deep/x.txt"));
  ck_assert_ptr_null(verdict(ws, "main-link.c")); /* a link that stays inside */
  ck_assert_ptr_null(verdict(ws, ".env"));        /* confined, but nothing excluded */
  ck_assert_str_eq(verdict(ws, "escape.txt"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "outdir/secret.txt"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, outside), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, dotdot), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "/etc/hostname"), CODE_ACCESS_DENIED);
  workspace_unref(ws);
}
END_TEST

/* A folder whose name starts like the root's is not inside it. */
/* A missing file outside is refused like an existing one: nothing is said of what exists there. */
START_TEST(workspace_missing_outside_is_denied) {
  Workspace *ws = make(root, true, NULL);
  g_autofree char *missing_out = at("outside/nope.txt"), *missing_in = at("ws/src/nope.txt");
  FileResult a = {0}, b = {0};

  ck_assert(!workspace_allows_path(ws, missing_out, &a));
  ck_assert_str_eq(a.code, CODE_ACCESS_DENIED);
  ck_assert(workspace_allows_path(ws, missing_in, &b)); /* the open then says FILE_NOT_FOUND */
  file_result_clear(&a);
  file_result_clear(&b);
  workspace_unref(ws);
}
END_TEST

/* Whatever lies outside (a file, a folder, a missing folder, a folder readerd may not enter),
 * the answer is the same code and the same words, and names no path of the outside. */
START_TEST(workspace_outside_answers_are_uniform) {
  Workspace *ws = make(root, true, NULL);
  g_autofree char *outside = at("outside");
  g_autofree char *dotdot_missing = g_strdup_printf("%s/../no-such-folder/x/y.txt", root);
  g_autofree char *via_link = g_strdup_printf("%s/outdir/no-such-folder/y.txt", root);
  g_autofree char *via_link_dotdot = g_strdup_printf("%s/outdir/../ws/src/main.c", root);
  const char *const paths[] = {
      "/etc/hostname", "/etc",           "/no-such-folder/x.txt", "/etc/no-such-folder/x.txt",
      "/root/x/y",     "/proc/self/root/etc/hostname", outside,     dotdot_missing,
      via_link,
  };
  char *first = NULL;

  for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
    FileResult r = {0};

    ck_assert_msg(!workspace_allows_path(ws, paths[i], &r), "%s was let through", paths[i]);
    ck_assert_str_eq(r.code, CODE_ACCESS_DENIED);
    if (first == NULL)
      first = g_strdup(r.error);
    ck_assert_str_eq(r.error, first);
    ck_assert_msg(strstr(r.error, "/") == NULL, "the answer names a path: %s", r.error);
    file_result_clear(&r);
  }
  /* A link out and back in is judged by where it lands, as the kernel resolves it. */
  FileResult in = {0};
  ck_assert(workspace_allows_path(ws, via_link_dotdot, &in));
  file_result_clear(&in);
  g_free(first);
  workspace_unref(ws);
}
END_TEST

/* What `exclude` promises for links, as docs/protocol.md says: a symlink is judged by the name
 * it points to too (notes.txt -> .env is refused), but a hard link is another name of its own
 * for the same file, and is read under that name. */
START_TEST(workspace_exclude_and_links) {
  const char *const exclude[] = {".env", NULL};
  Workspace *ws = make(root, true, exclude);
  g_autofree char *env = at("ws/.env"), *hard = at("ws/hard-notes.txt");

  ck_assert_int_eq(link(env, hard), 0);
  ck_assert_str_eq(verdict(ws, ".env"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "notes.txt"), CODE_ACCESS_DENIED);
  ck_assert_ptr_null(verdict(ws, "hard-notes.txt"));
  workspace_unref(ws);
}
END_TEST

START_TEST(workspace_root_prefix_is_not_inside) {
  g_autofree char *twin = at("ws2");
  g_autofree char *file = at("ws2/f.txt");
  Workspace *ws = make(root, true, NULL);

  ck_assert_int_eq(g_mkdir(twin, 0700), 0);
  ck_assert(g_file_set_contents(file, "f\n", -1, NULL));
  ck_assert_str_eq(verdict(ws, file), CODE_ACCESS_DENIED);
  workspace_unref(ws);
}
END_TEST

START_TEST(workspace_exclude_patterns) {
  static const char *const ex[] = {".env", "*.pem", "secrets/*", NULL};
  Workspace *ws = make(root, false, ex);

  ck_assert_str_eq(verdict(ws, ".env"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "notes.txt"), CODE_ACCESS_DENIED); /* a link to .env */
  ck_assert_str_eq(verdict(ws, "src/server.pem"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "secrets/token"), CODE_ACCESS_DENIED);
  ck_assert_ptr_null(verdict(ws, "src/main.c"));
  /* Not confined: outside files are read. */
  ck_assert_ptr_null(verdict(ws, "escape.txt"));
  workspace_unref(ws);
}
END_TEST

START_TEST(workspace_none_allows_everything) {
  ck_assert_ptr_null(verdict(NULL, "escape.txt"));
  ck_assert_ptr_null(verdict(NULL, ".env"));
  Workspace *ws = make(root, false, NULL);
  ck_assert_str_eq(workspace_root(ws), root);
  ck_assert_ptr_null(verdict(ws, "escape.txt"));
  ck_assert_ptr_eq(workspace_ref(ws), ws);
  workspace_unref(ws);
  workspace_unref(ws);
  workspace_unref(NULL);
}
END_TEST

/* A fence that could not be built fails closed: inside any folder, at "/", the answer is the
 * refusal. */
START_TEST(workspace_closed_refuses_everything) {
  Workspace *ws = workspace_new_closed();

  ck_assert_str_eq(verdict(ws, "src/main.c"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "escape.txt"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "/etc/hostname"), CODE_ACCESS_DENIED);
  workspace_unref(ws);
}
END_TEST

START_TEST(workspace_bad_settings) {
  static const char *const empty[] = {"", NULL};
  g_autofree char *file = at("ws/src/main.c"), *missing = at("nope");
  Workspace *ws = NULL;
  char *err = NULL;

  ck_assert_int_eq(workspace_new(NULL, true, NULL, &ws, &err), -EINVAL);
  ck_assert_ptr_nonnull(strstr(err, "rootPath"));
  g_clear_pointer(&err, g_free);
  ck_assert_int_eq(workspace_new(file, true, NULL, &ws, &err), -EINVAL);
  g_clear_pointer(&err, g_free);
  ck_assert_int_eq(workspace_new(missing, true, NULL, &ws, &err), -EINVAL);
  g_clear_pointer(&err, g_free);
  ck_assert_int_eq(workspace_new(root, false, empty, &ws, &err), -EINVAL);
  g_clear_pointer(&err, g_free);
  ck_assert_ptr_null(ws);
}
END_TEST

/* A pattern with '/' is matched against the path below every root that holds the file: with
 * roots ws and ws/src, ws/src/deep/x.txt is refused by a pattern for deep/ whichever root comes
 * first. */
START_TEST(workspace_exclude_under_every_root) {
  static const char *const ex[] = {"deep/*", NULL};
  g_autofree char *src = at("ws/src");
  const char *const one[] = {root, src, NULL}, *const two[] = {src, root, NULL};
  const char *const *orders[] = {one, two};

  for (size_t i = 0; i < G_N_ELEMENTS(orders); i++) {
    Workspace *ws = NULL;
    g_autofree char *err = NULL;

    ck_assert_msg(workspace_new_roots(orders[i], true, ex, &ws, &err) == 0, "%s", err);
    ck_assert_str_eq(verdict(ws, "src/deep/x.txt"), CODE_ACCESS_DENIED);
    ck_assert_ptr_null(verdict(ws, "src/main.c"));
    workspace_unref(ws);
  }
}
END_TEST

/* Dangling links are followed to where they point: a link to a missing file outside is refused
 * as one to an existing file outside is, with the same words; a dangling link inside passes
 * (the open says FILE_NOT_FOUND, as for any missing file inside). */
START_TEST(workspace_dangling_links_are_no_oracle) {
  Workspace *ws = make(root, true, NULL);
  g_autofree char *missing = at("outside/missing.txt"), *deeper = at("outside/no/such.txt");
  const char *const paths[] = {"escape.txt", "to-missing", "to-deeper", "to-missing/x",
                               "to-outdir-missing"};
  char *first = NULL;

  link_to(missing, "ws/to-missing");
  link_to(deeper, "ws/to-deeper");
  link_to("outdir/nothing/here", "ws/to-outdir-missing");
  link_to("src/nothing.txt", "ws/to-inside-missing");
  for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
    g_autofree char *full = g_build_filename(root, paths[i], NULL);
    FileResult r = {0};

    ck_assert_msg(!workspace_allows_path(ws, full, &r), "%s was let through", paths[i]);
    ck_assert_str_eq(r.code, CODE_ACCESS_DENIED);
    if (first == NULL)
      first = g_strdup(r.error);
    ck_assert_str_eq(r.error, first);
    file_result_clear(&r);
  }
  {
    g_autofree char *full = g_build_filename(root, "to-inside-missing", NULL);
    FileResult r = {0};

    ck_assert(workspace_allows_path(ws, full, &r));
    file_result_clear(&r);
  }
  g_free(first);
  workspace_unref(ws);
}
END_TEST

/* ".." after a link leaves the link's target, not the link's folder, whichever way the path is
 * resolved (an existing path by its descriptor, a missing one component by component). */
START_TEST(workspace_dotdot_after_link_is_physical) {
  Workspace *ws = make(root, true, NULL);
  const char *const denied[] = {"outdir/../outside/secret.txt", "outdir/../outside/missing.txt"};
  const char *const allowed[] = {"outdir/../ws/src/main.c", "outdir/../ws/src/missing.c"};

  for (size_t i = 0; i < G_N_ELEMENTS(denied); i++) {
    g_autofree char *full = g_build_filename(root, denied[i], NULL);
    FileResult r = {0};

    ck_assert_msg(!workspace_allows_path(ws, full, &r), "%s was let through", denied[i]);
    ck_assert_str_eq(r.code, CODE_ACCESS_DENIED);
    file_result_clear(&r);
  }
  for (size_t i = 0; i < G_N_ELEMENTS(allowed); i++) {
    g_autofree char *full = g_build_filename(root, allowed[i], NULL);
    FileResult r = {0};

    ck_assert_msg(workspace_allows_path(ws, full, &r), "%s was refused", allowed[i]);
    file_result_clear(&r);
  }
  workspace_unref(ws);
}
END_TEST

/* The path check opens nothing: a FIFO with no writer inside the root passes at once (the
 * reader then refuses it from its stat), and one outside reached through a link is refused. */
START_TEST(workspace_path_check_opens_nothing) {
  Workspace *ws = make(root, true, NULL);
  g_autofree char *in = at("ws/pipe"), *out = at("outside/pipe");
  FileResult a = {0}, b = {0};

  ck_assert_int_eq(mkfifo(in, 0600), 0);
  ck_assert_int_eq(mkfifo(out, 0600), 0);
  link_to(out, "ws/pipe-link");
  ck_assert(workspace_allows_path(ws, in, &a));
  {
    g_autofree char *link = at("ws/pipe-link");

    ck_assert(!workspace_allows_path(ws, link, &b));
    ck_assert_str_eq(b.code, CODE_ACCESS_DENIED);
  }
  file_result_clear(&a);
  file_result_clear(&b);
  workspace_unref(ws);
}
END_TEST

/* An excluded name is refused by the path check whether or not it exists. */
START_TEST(workspace_excluded_missing_is_denied) {
  static const char *const ex[] = {".env", "secrets/*", NULL};
  Workspace *ws = make(root, false, ex);
  g_autofree char *env = at("ws/src/.env"), *sec = at("ws/secrets/none");
  FileResult a = {0}, b = {0};

  ck_assert(!workspace_allows_path(ws, env, &a));
  ck_assert_str_eq(a.code, CODE_ACCESS_DENIED);
  ck_assert(!workspace_allows_path(ws, sec, &b));
  ck_assert_str_eq(b.code, CODE_ACCESS_DENIED);
  file_result_clear(&a);
  file_result_clear(&b);
  workspace_unref(ws);
}
END_TEST

/* Inside a confined root, nothing in a .git folder is read (its config, its hooks), nor through
 * a link; without confinement the fence leaves .git alone. A walk's check on a real path says
 * the same as the descriptor check. */
START_TEST(workspace_git_folder_confined) {
  Workspace *ws = make(root, true, NULL), *open_ws = make(root, false, NULL);
  g_autofree char *git = at("ws/.git"), *cfg = at("ws/.git/config");

  ck_assert_int_eq(g_mkdir(git, 0700), 0);
  put("ws/.git/config", "[core]\n");
  link_to(".git/config", "ws/cfg");
  ck_assert_str_eq(verdict(ws, ".git/config"), CODE_ACCESS_DENIED);
  ck_assert_str_eq(verdict(ws, "cfg"), CODE_ACCESS_DENIED);
  ck_assert_ptr_null(verdict(open_ws, ".git/config"));
  ck_assert(!workspace_allows_real(ws, cfg, "config"));
  ck_assert(workspace_allows_real(open_ws, cfg, "config"));
  ck_assert(workspace_path_in_git(cfg));
  ck_assert(!workspace_path_in_git("/a/.gitx/b"));
  ck_assert(workspace_path_in_git(".git"));
  workspace_unref(ws);
  workspace_unref(open_ws);
}
END_TEST

/* The reader's verdicts, whichever way it takes: a plain path with no symlink on the way is
 * judged as written, any other is resolved first. Each case below has to come out as the
 * resolved path would have it. */

/* A name pattern refuses a file by the name it is read under and by its real name: a link
 * notes.txt to .env and a link .env to a harmless file are both refused; a hard link is a name
 * of its own. */
START_TEST(workspace_read_names_real_and_given) {
  static const char *const ex[] = {".env", NULL};
  Workspace *ws = make(root, true, ex);
  g_autofree char *cfg = at("ws/cfg"), *env = at("ws/.env"), *hard = at("ws/hard-notes.txt");
  g_autofree char *abs_env = at("ws/.env"), *abs_link = at("ws/cfg/.env");

  ck_assert_int_eq(g_mkdir(cfg, 0700), 0);
  put("ws/cfg/notes-real.txt", "real notes\n");
  link_to("notes-real.txt", "ws/cfg/.env");
  ck_assert_int_eq(link(env, hard), 0);
  assert_read_code(ws, ".env", CODE_ACCESS_DENIED);
  assert_read_code(ws, abs_env, CODE_ACCESS_DENIED);
  assert_read_code(ws, "notes.txt", CODE_ACCESS_DENIED);
  assert_read_code(ws, "cfg/.env", CODE_ACCESS_DENIED);
  assert_read_code(ws, abs_link, CODE_ACCESS_DENIED);
  assert_read_code(ws, "src/.env", CODE_ACCESS_DENIED); /* missing: refused all the same */
  assert_read_text(ws, "cfg/notes-real.txt", "real notes\n");
  assert_read_text(ws, "hard-notes.txt", "KEY=1\n");
  assert_read_text(ws, "src/main.c", "int main;\n");
  workspace_unref(ws);
}
END_TEST

/* A pattern with '/' is matched against the real path below the root, not the path as
 * written: a folder link pub -> secrets leads into secrets/ and is refused; secrets/x.txt, a
 * link to public/x.txt, and private/y.txt, below a folder link private -> public, are public
 * files and read. A path spelled with "//", "/./" or ".." is judged where it lands. */
START_TEST(workspace_read_path_patterns_on_real_path) {
  static const char *const ex[] = {"secrets/*", "private/*", NULL};
  g_autofree char *pub = at("ws/public");
  g_autofree char *dslash = g_strdup_printf("%s//secrets/token", root);
  g_autofree char *dot = g_strdup_printf("%s/./secrets/token", root);
  g_autofree char *dotdot = g_strdup_printf("%s/public/../secrets/token", root);
  g_autofree char *dotdot_in = g_strdup_printf("%s/secrets/../public/y.txt", root);

  ck_assert_int_eq(g_mkdir(pub, 0700), 0);
  put("ws/public/x.txt", "public x\n");
  put("ws/public/y.txt", "public y\n");
  link_to("../public/x.txt", "ws/secrets/x.txt");
  link_to("secrets", "ws/pub");
  link_to("public", "ws/private");
  for (int confine = 0; confine <= 1; confine++) {
    Workspace *ws = make(root, confine, ex);

    assert_read_code(ws, "secrets/token", CODE_ACCESS_DENIED);
    assert_read_code(ws, "pub/token", CODE_ACCESS_DENIED);
    assert_read_code(ws, "secrets/none", CODE_ACCESS_DENIED);
    assert_read_code(ws, dslash, CODE_ACCESS_DENIED);
    assert_read_code(ws, dot, CODE_ACCESS_DENIED);
    assert_read_code(ws, dotdot, CODE_ACCESS_DENIED);
    assert_read_text(ws, "secrets/x.txt", "public x\n");
    assert_read_text(ws, "private/y.txt", "public y\n");
    assert_read_text(ws, "public/y.txt", "public y\n");
    assert_read_text(ws, dotdot_in, "public y\n");
    workspace_unref(ws);
  }
}
END_TEST

/* Confined: whatever lies outside (a file, a missing one, a folder, a FIFO, a folder whose name
 * starts like the root's), named directly, by "..", through a link to a file or a folder, gets
 * one answer in the same words. A path that leaves the root and comes back, or is spelled with
 * "//" or "/./", is read where it lands; one that names a file as a folder is not found. */
START_TEST(workspace_read_confined_outside) {
  Workspace *ws = make(root, true, NULL);
  g_autofree char *secret = at("outside/secret.txt"), *missing = at("outside/nope.txt");
  g_autofree char *out_dir = at("outside"), *fifo = at("outside/pipe"), *twin = at("ws2");
  g_autofree char *twin_file = at("ws2/f.txt"), *git = at("ws/.git");
  g_autofree char *climb = g_strdup_printf("%s/../outside/secret.txt", root);
  g_autofree char *back = g_strdup_printf("%s/src/../src/main.c", root);
  g_autofree char *dslash = g_strdup_printf("%s//src//main.c", root);
  g_autofree char *dot = g_strdup_printf("%s/src/./main.c", root);
  g_autofree char *slash_end = g_strdup_printf("%s/src/main.c/", root);
  g_autofree char *dot_end = g_strdup_printf("%s/src/main.c/.", root);
  g_autofree char *root_slash = g_strdup_printf("%s/", root);
  g_autofree char *first = NULL;
  const char *const outside[] = {secret,
                                 missing,
                                 out_dir,
                                 fifo,
                                 twin_file,
                                 climb,
                                 "escape.txt",
                                 "outdir",
                                 "outdir/secret.txt",
                                 "../outside/secret.txt"};

  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_int_eq(g_mkdir(twin, 0700), 0);
  put("ws2/f.txt", "twin\n");
  ck_assert_int_eq(g_mkdir(git, 0700), 0);
  put("ws/.git/config", "[core]\n");
  for (size_t i = 0; i < G_N_ELEMENTS(outside); i++) {
    g_autofree char *error = NULL;
    const char *code = read_as(ws, outside[i], false, NULL, &error);

    ck_assert_msg(g_strcmp0(code, CODE_ACCESS_DENIED) == 0, "%s: %s", outside[i], code);
    if (first == NULL)
      first = g_strdup(error);
    ck_assert_msg(strcmp(error, first) == 0, "%s: '%s', where %s had '%s'", outside[i], error,
                  outside[0], first);
  }
  assert_read_code(ws, ".git/config", CODE_ACCESS_DENIED);
  assert_read_text(ws, back, "int main;\n");
  assert_read_text(ws, "src/deep/../main.c", "int main;\n");
  assert_read_text(ws, dslash, "int main;\n");
  assert_read_text(ws, dot, "int main;\n");
  assert_read_code(ws, slash_end, CODE_FILE_NOT_FOUND);
  assert_read_code(ws, dot_end, CODE_FILE_NOT_FOUND);
  assert_read_code(ws, "src/nope.txt", CODE_FILE_NOT_FOUND);
  assert_read_code(ws, root, CODE_IS_DIRECTORY);
  assert_read_code(ws, root_slash, CODE_IS_DIRECTORY);
  assert_read_code(ws, "src", CODE_IS_DIRECTORY);
  workspace_unref(ws);
}
END_TEST

/* A root given through a symlink: the files under it read, by the link's path and by the real
 * one, and the fence holds by either. */
START_TEST(workspace_read_root_through_link) {
  static const char *const ex[] = {".env", "secrets/*", NULL};
  g_autofree char *via = at("ws-link"), *real_main = at("ws/src/main.c");
  g_autofree char *real_env = at("ws/.env"), *real_token = at("ws/secrets/token");
  g_autofree char *via_main = at("ws-link/src/main.c"), *via_env = at("ws-link/.env");
  g_autofree char *secret = at("outside/secret.txt");
  Workspace *ws;

  link_to("ws", "ws-link");
  ws = make(via, true, ex);
  assert_read_text(ws, "src/main.c", "int main;\n");
  assert_read_text(ws, "main-link.c", "int main;\n");
  assert_read_text(ws, real_main, "int main;\n");
  assert_read_text(ws, via_main, "int main;\n");
  assert_read_code(ws, ".env", CODE_ACCESS_DENIED);
  assert_read_code(ws, "notes.txt", CODE_ACCESS_DENIED);
  assert_read_code(ws, "secrets/token", CODE_ACCESS_DENIED);
  assert_read_code(ws, real_env, CODE_ACCESS_DENIED);
  assert_read_code(ws, via_env, CODE_ACCESS_DENIED);
  assert_read_code(ws, real_token, CODE_ACCESS_DENIED);
  assert_read_code(ws, "escape.txt", CODE_ACCESS_DENIED);
  assert_read_code(ws, secret, CODE_ACCESS_DENIED);
  workspace_unref(ws);
}
END_TEST

/* What is not a regular file: a FIFO inside is NOT_REGULAR_FILE and is never opened (after the
 * read, no reader holds it: a writer's non-blocking open finds none), a folder IS_DIRECTORY;
 * an excluded FIFO or folder is refused before its kind is said, however the folder's path is
 * spelled. */
START_TEST(workspace_read_not_regular) {
  static const char *const ex[] = {"*.pem", "secrets", NULL};
  Workspace *ws = make(root, true, ex);
  g_autofree char *pipe = at("ws/pipe"), *pem = at("ws/pipe.pem");
  g_autofree char *sec_slash = g_strdup_printf("%s/secrets/", root);
  g_autofree char *sec_dot = g_strdup_printf("%s/secrets/.", root);
  g_autofree char *src_slash = g_strdup_printf("%s/src/", root);
  int fd;

  ck_assert_int_eq(mkfifo(pipe, 0600), 0);
  ck_assert_int_eq(mkfifo(pem, 0600), 0);
  assert_read_code(ws, "pipe", CODE_NOT_REGULAR_FILE);
  assert_read_code(ws, pipe, CODE_NOT_REGULAR_FILE);
  fd = open(pipe, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  ck_assert_msg(fd < 0 && errno == ENXIO, "the FIFO is held open for reading");
  assert_read_code(ws, "pipe.pem", CODE_ACCESS_DENIED);
  assert_read_code(ws, "src", CODE_IS_DIRECTORY);
  assert_read_code(ws, src_slash, CODE_IS_DIRECTORY);
  assert_read_code(ws, "secrets", CODE_ACCESS_DENIED);
  assert_read_code(ws, sec_slash, CODE_ACCESS_DENIED);
  assert_read_code(ws, sec_dot, CODE_ACCESS_DENIED);
  workspace_unref(ws);
}
END_TEST

/* A file an expansion found is refused inside a .git folder, in a fenced workspace that is not
 * confined too; the same file named by the client is read. */
START_TEST(workspace_read_expansion_skips_git) {
  static const char *const ex[] = {"*.pem", NULL};
  Workspace *ws = make(root, false, ex);
  g_autofree char *git = at("ws/.git"), *cfg = at("ws/.git/config"), *content = NULL;

  ck_assert_int_eq(g_mkdir(git, 0700), 0);
  put("ws/.git/config", "[core]\n");
  ck_assert_str_eq(read_as(ws, cfg, true, NULL, NULL), CODE_ACCESS_DENIED);
  ck_assert_str_eq(read_as(ws, ".git/config", true, NULL, NULL), CODE_ACCESS_DENIED);
  ck_assert_ptr_null(read_as(ws, "src/main.c", true, &content, NULL));
  ck_assert_str_eq(content, "int main;\n");
  assert_read_text(ws, cfg, "[core]\n");
  workspace_unref(ws);
}
END_TEST

static Suite *workspace_suite(void) {
  Suite *s = suite_create("workspace");
  TCase *tc = tcase_create("core");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, workspace_confine_follows_symlinks);
  tcase_add_test(tc, workspace_root_prefix_is_not_inside);
  tcase_add_test(tc, workspace_missing_outside_is_denied);
  tcase_add_test(tc, workspace_outside_answers_are_uniform);
  tcase_add_test(tc, workspace_exclude_and_links);
  tcase_add_test(tc, workspace_exclude_patterns);
  tcase_add_test(tc, workspace_none_allows_everything);
  tcase_add_test(tc, workspace_closed_refuses_everything);
  tcase_add_test(tc, workspace_bad_settings);
  tcase_add_test(tc, workspace_exclude_under_every_root);
  tcase_add_test(tc, workspace_dangling_links_are_no_oracle);
  tcase_add_test(tc, workspace_dotdot_after_link_is_physical);
  tcase_add_test(tc, workspace_path_check_opens_nothing);
  tcase_add_test(tc, workspace_excluded_missing_is_denied);
  tcase_add_test(tc, workspace_git_folder_confined);
  tcase_add_test(tc, workspace_read_names_real_and_given);
  tcase_add_test(tc, workspace_read_path_patterns_on_real_path);
  tcase_add_test(tc, workspace_read_confined_outside);
  tcase_add_test(tc, workspace_read_root_through_link);
  tcase_add_test(tc, workspace_read_not_regular);
  tcase_add_test(tc, workspace_read_expansion_skips_git);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(workspace_suite()) == 0 ? 0 : 1;
}
