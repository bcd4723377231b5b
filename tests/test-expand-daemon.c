/* Folders and globs (`expand`) through the real binary: the socket daemon over JSON-RPC, and
 * the one-shot command line, on trees each test writes in the daemon's temporary folder. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;

static void setup(void) {
  rd_fixture_setup(&dmn, NULL);
}

static void teardown(void) {
  rd_fixture_teardown(&dmn, NULL);
}

/* A read with params `extra` (members after paths and cwd) of the paths given as JSON. */
static RdResult *read_in_dir(RdConn *c, const char *paths_json, const char *extra) {
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s,\"cwd\":%s%s%s}", paths_json, cwd,
                                            extra ? "," : "", extra ? extra : "");

  return rd_read(c, params);
}

/* The text of <Notice> k. g_free. */
static char *notice_text(RdResult *r, guint k) {
  xmlChar *v;
  char *s;

  ck_assert_uint_lt(k, r->notices->len);
  v = xmlNodeGetContent(g_ptr_array_index(r->notices, k));
  s = g_strdup((const char *)v);
  xmlFree(v);
  return s;
}

/* A folder, a file and a glob in one request: each expanded file is its own entry, in byte
 * order, with `from` naming its pattern, its text as on disk; the file named stays where it
 * was; a binary file is listed, not read; what ignore rules left out is a notice after the
 * expansion's last file, in the XML and in notices[]. */
START_TEST(expand_daemon_folder_file_glob) {
  static const char bin[] = "\x7f"
                            "ELF\0\0\1";
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;
  JsonArray *notices;
  g_autofree char *text = NULL;

  g_free(rd_write_str(dmn->dir, "proj/src/b.c", "int b;\n"));
  g_free(rd_write_str(dmn->dir, "proj/src/a.c", "int a;\nint aa;\n"));
  g_free(rd_write_str(dmn->dir, "proj/src/inc/a.h", "#pragma once\n"));
  g_free(rd_write_file(dmn->dir, "proj/src/blob.bin", bin, sizeof bin - 1));
  g_free(rd_write_str(dmn->dir, "proj/src/.ignore", "*.gen.c\n"));
  g_free(rd_write_str(dmn->dir, "proj/src/x.gen.c", "generated\n"));
  g_free(rd_write_str(dmn->dir, "proj/README.md", "# readme\n"));
  r = read_in_dir(c, "[\"proj/src\",\"proj/README.md\",\"proj/**/*.h\"]", "\"expand\":true");
  ck_assert_uint_eq(json_array_get_length(r->files), 7);
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "proj/src/.ignore");
  ck_assert_str_eq(rd_file_str(r, 1, "path"), "proj/src/a.c");
  ck_assert_str_eq(rd_file_str(r, 2, "path"), "proj/src/b.c");
  ck_assert_str_eq(rd_file_str(r, 3, "path"), "proj/src/blob.bin");
  ck_assert_str_eq(rd_file_str(r, 4, "path"), "proj/src/inc/a.h");
  for (guint i = 0; i < 5; i++)
    ck_assert_int_eq(rd_file_int(r, i, "from"), 0);
  text = rd_text(r, 1);
  ck_assert_str_eq(text, "     1\tint a;\n     2\tint aa;\n");
  ck_assert_int_eq(rd_file_int(r, 1, "lines"), 2);
  /* The binary file: listed with its size, no content, no error. */
  ck_assert_str_eq(rd_file_str(r, 3, "omitted"), "binary");
  ck_assert_int_eq(rd_file_int(r, 3, "bytes"), (int64_t)sizeof bin - 1);
  ck_assert_ptr_null(rd_file_str(r, 3, "code"));
  /* The file named is not an expansion's. */
  ck_assert_str_eq(rd_file_str(r, 5, "path"), "proj/README.md");
  ck_assert(!json_object_has_member(rd_file(r, 5), "from"));
  ck_assert_str_eq(rd_file_str(r, 6, "path"), "proj/src/inc/a.h");
  ck_assert_int_eq(rd_file_int(r, 6, "from"), 2);
  /* One notice, for the folder: .ignore left x.gen.c out. */
  notices = json_object_get_array_member(r->result, "notices");
  ck_assert_uint_eq(json_array_get_length(notices), 1);
  ck_assert_str_eq(json_object_get_string_member(json_array_get_object_element(notices, 0), "path"),
                   "proj/src");
  ck_assert_int_eq(json_object_get_int_member(json_array_get_object_element(notices, 0), "from"),
                   0);
  ck_assert_uint_eq(r->notices->len, 1);
  g_free(text);
  text = notice_text(r, 0);
  ck_assert_str_eq(text, "1 path left out by ignore rules (proj/src/.ignore: 1 by *.gen.c); "
                         "expand.ignored: true reads them");
  /* It sits right after the expansion's last <Content>, before README.md's. */
  ck_assert_ptr_eq(xmlNextElementSibling(rd_content(r, 4)), g_ptr_array_index(r->notices, 0));
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* Without expand, the contract's answers: IS_DIRECTORY for a folder, a glob is a name. */
START_TEST(expand_daemon_off_by_default) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  g_free(rd_write_str(dmn->dir, "d/a.txt", "a\n"));
  r = read_in_dir(c, "[\"d\",\"d/*.txt\"]", NULL);
  ck_assert_uint_eq(json_array_get_length(r->files), 2);
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "IS_DIRECTORY");
  ck_assert_str_eq(rd_file_str(r, 1, "code"), "FILE_NOT_FOUND");
  rd_result_free(r);
  r = read_in_dir(c, "[\"d\"]", "\"expand\":false");
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "IS_DIRECTORY");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* maxFiles: the first files, then a notice with how many were left; the path's own options
 * (limit) apply to every file of its expansion. A glob with no match: one FILE_NOT_FOUND. */
START_TEST(expand_daemon_max_files_and_options) {
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;
  JsonObject *n;

  for (int i = 0; i < 6; i++) {
    g_autofree char *name = g_strdup_printf("many/f%d.txt", i);
    g_free(rd_write_str(dmn->dir, name, "one\ntwo\nthree\n"));
  }
  r = read_in_dir(c, "[{\"path\":\"many\",\"limit\":1},\"many/*.none\"]",
                  "\"expand\":{\"maxFiles\":4}");
  ck_assert_uint_eq(json_array_get_length(r->files), 5);
  for (guint i = 0; i < 4; i++) {
    g_autofree char *want = g_strdup_printf("many/f%u.txt", i);
    g_autofree char *text = rd_text(r, i);

    ck_assert_str_eq(rd_file_str(r, i, "path"), want);
    ck_assert(rd_file_true(r, i, "truncated"));
    ck_assert_msg(g_str_has_prefix(text, "     1\tone\n") && strstr(text, "two") == NULL, "%s",
                  text);
  }
  ck_assert_str_eq(rd_file_str(r, 4, "path"), "many/*.none");
  ck_assert_str_eq(rd_file_str(r, 4, "code"), "FILE_NOT_FOUND");
  ck_assert_str_eq(rd_file_str(r, 4, "error"), "no file matches the pattern");
  n = json_array_get_object_element(json_object_get_array_member(r->result, "notices"), 0);
  ck_assert_msg(strstr(json_object_get_string_member(n, "message"),
                       "4 of 6 files shown: 2 more left out past maxFiles (4)") != NULL,
                "%s", json_object_get_string_member(n, "message"));
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* Bad expand params are invalid params naming the field. */
START_TEST(expand_daemon_bad_params) {
  static const char *const bad[] = {"\"yes\"", "{\"maxFiles\":0}", "{\"maxFiles\":10001}",
                                    "{\"ignored\":1}", "{\"binary\":\"no\"}"};
  static const char *const field[] = {"expand must be", "expand.maxFiles", "expand.maxFiles",
                                      "expand.ignored", "expand.binary"};
  RdConn *c = rd_conn_new(dmn->sock);

  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *params = g_strdup_printf("{\"paths\":[\"x\"],\"expand\":%s}", bad[i]);
    JsonNode *m = rd_conn_call(c, "read", params);
    JsonObject *err = json_object_get_object_member(json_node_get_object(m), "error");

    ck_assert_int_eq(rd_error_code(m), -32602);
    ck_assert_msg(strstr(json_object_get_string_member(err, "message"), field[i]) != NULL, "%s",
                  json_object_get_string_member(err, "message"));
    json_node_unref(m);
  }
  rd_conn_free(c);
}
END_TEST

/* A large expansion cancelled at once ends as cancelled (or, had it finished first, as a
 * result), and the daemon answers the next read. */
START_TEST(expand_daemon_cancel) {
  RdConn *c = rd_conn_new(dmn->sock);
  JsonNode *m;
  RdResult *r;
  g_autofree char *key = NULL;

  if (!g_file_test("/usr/share/go-1.19/src", G_FILE_TEST_IS_DIR))
    g_free(rd_write_str(dmn->dir, "go/x.go", "package x\n"));
  key = rd_conn_request(c, "read",
                        g_file_test("/usr/share/go-1.19/src", G_FILE_TEST_IS_DIR)
                            ? "{\"paths\":[\"/usr/share/go-1.19/src\"],"
                              "\"expand\":{\"maxFiles\":10000}}"
                            : "{\"paths\":[\"go\"],\"expand\":true}",
                        "77");
  rd_conn_notify(c, "$/cancelRequest", "{\"id\":77}");
  m = rd_conn_wait(c, key, RD_TIMEOUT_MS);
  if (rd_error_code(m) != 0)
    ck_assert_int_eq(rd_error_code(m), -32800);
  json_node_unref(m);
  g_free(rd_write_str(dmn->dir, "after/a.txt", "a\n"));
  r = read_in_dir(c, "[\"after\"]", "\"expand\":true");
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "after/a.txt");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* Sets the connection's fence: rootPath root (absolute), confineToRoot, and the exclude
 * patterns given as a JSON array (NULL for none). */
static void fence(RdConn *c, const char *root, const char *exclude_json) {
  g_autofree char *q = rd_json_quote(root);
  g_autofree char *init =
      g_strdup_printf("{\"rootPath\":%s,\"confineToRoot\":true%s%s}", q,
                      exclude_json ? ",\"exclude\":" : "", exclude_json ? exclude_json : "");
  JsonNode *m = rd_conn_call(c, "initialize", init);

  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
}

/* The paths of the answer's files, one a line. g_free. */
static char *listed(RdResult *r) {
  GString *s = g_string_new(NULL);

  for (guint i = 0; i < json_array_get_length(r->files); i++)
    g_string_append_printf(s, "%s\n", rd_file_str(r, i, "path"));
  return g_string_free(s, FALSE);
}

/* The text blocks of `readerd mcp ARGS` answering one read_files call with `arguments` (JSON),
 * its input closed after the call: the server must answer and exit on its own within a
 * generous bound (rd_run fails the test otherwise). g_free. */
static char *mcp_read(const char *cwd, const char *const *args, const char *arguments) {
  g_autofree char *in = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
      "\"read_files\",\"arguments\":%s}}\n",
      arguments);
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  GString *text = g_string_new(NULL);
  g_auto(GStrv) lines = NULL;
  RdRun run;

  g_ptr_array_add(argv, (char *)rd_readerd());
  g_ptr_array_add(argv, "mcp");
  for (size_t i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add(argv, (char *)args[i]);
  g_ptr_array_add(argv, NULL);
  rd_run(cwd, (const char *const *)argv->pdata, in, strlen(in), 30000, &run);
  ck_assert_int_eq(run.code, 0);
  lines = g_strsplit(run.out, "\n", -1);
  for (size_t i = 0; lines[i] != NULL; i++) {
    JsonNode *m = *lines[i] != '\0' ? rd_json_parse(lines[i], strlen(lines[i])) : NULL;
    JsonObject *o = m != NULL ? json_node_get_object(m) : NULL;

    if (o != NULL && json_object_has_member(o, "id") && json_object_get_int_member(o, "id") == 2) {
      JsonArray *content =
          json_object_get_array_member(json_object_get_object_member(o, "result"), "content");

      for (guint k = 0; k < json_array_get_length(content); k++) {
        JsonObject *block = json_array_get_object_element(content, k);

        if (json_object_has_member(block, "text"))
          g_string_append(text, json_object_get_string_member(block, "text"));
      }
    }
    if (m != NULL)
      json_node_unref(m);
  }
  rd_run_clear(&run);
  ck_assert_msg(text->len > 0, "no answer to the read");
  return g_string_free(text, FALSE);
}

/* A confined folder read: a link in the root to a binary file outside, to an excluded file,
 * or to a text file outside is not listed at all (no size, no time, no `omitted`), as naming
 * it is ACCESS_DENIED; excluded files leave no trace, no count and no notice. */
START_TEST(expand_daemon_fence_before_anything) {
  static const char bin[] = "\x7f"
                            "ELF\0\0\1";
  g_autofree char *ws = g_build_filename(dmn->dir, "ws", NULL);
  g_autofree char *out = g_build_filename(dmn->dir, "out", NULL);
  g_autofree char *blob = rd_write_file(out, "blob.bin", bin, sizeof bin - 1);
  g_autofree char *secret = rd_write_str(out, "secret.txt", "outside\n");
  g_autofree char *l1 = g_build_filename(ws, "bin-link", NULL);
  g_autofree char *l2 = g_build_filename(ws, "env-link.txt", NULL);
  g_autofree char *l3 = g_build_filename(ws, "secret-link.txt", NULL);
  g_autofree char *l4 = g_build_filename(ws, "inside-link.txt", NULL);
  g_autofree char *names = NULL;
  RdConn *c = rd_conn_new(dmn->sock);
  const char *const named[] = {"bin-link"};
  RdResult *r;

  g_free(rd_write_str(ws, "a.txt", "a\n"));
  g_free(rd_write_str(ws, ".env", "KEY=1\n"));
  g_free(rd_write_str(ws, "keys/.env", "KEY=2\n"));
  g_free(rd_write_str(ws, "keys/server.pem", "pem\n"));
  ck_assert_int_eq(symlink(blob, l1), 0);
  ck_assert_int_eq(symlink(".env", l2), 0);
  ck_assert_int_eq(symlink(secret, l3), 0);
  /* A link that stays inside is listed as before. */
  ck_assert_int_eq(symlink("a.txt", l4), 0);
  fence(c, ws, "[\".env\",\"*.pem\"]");
  r = rd_read_paths(c, named, 1, "\"expand\":true");
  ck_assert_str_eq(rd_file_str(r, 0, "code"), "ACCESS_DENIED");
  rd_result_free(r);
  {
    const char *const dirs[] = {".", "keys"};

    r = rd_read_paths(c, dirs, 2, "\"expand\":true");
  }
  names = listed(r);
  ck_assert_str_eq(names, "a.txt\ninside-link.txt\nkeys\n");
  ck_assert_str_eq(rd_file_str(r, 2, "code"), "FILE_NOT_FOUND");
  ck_assert_str_eq(rd_file_str(r, 2, "error"), "the folder holds no file to read");
  ck_assert_uint_eq(r->notices->len, 0);
  ck_assert(!json_object_has_member(r->result, "notices") ||
            json_array_get_length(json_object_get_array_member(r->result, "notices")) == 0);
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* An exclude with '/' holds under every root that holds the file, whichever root comes first. */
START_TEST(expand_daemon_exclude_under_every_root) {
  g_autofree char *d = g_build_filename(dmn->dir, "D", NULL);
  g_autofree char *db = g_build_filename(dmn->dir, "D", "b", NULL);
  g_autofree char *file = rd_write_str(db, "secrets/x.txt", "secret\n");
  g_autofree char *args = NULL;
  const char *const one[] = {"--root", d, "--root", db, "--exclude", "secrets/*", NULL};
  const char *const two[] = {"--root", db, "--root", d, "--exclude", "secrets/*", NULL};
  const char *const *orders[] = {one, two};
  g_autofree char *qfile = rd_json_quote(file), *qdb = rd_json_quote(db);

  g_free(rd_write_str(db, "ok.txt", "fine\n"));
  args = g_strdup_printf("{\"paths\":[%s,%s]}", qfile, qdb);
  for (size_t i = 0; i < G_N_ELEMENTS(orders); i++) {
    g_autofree char *text = mcp_read(dmn->dir, orders[i], args);

    /* Named: refused. In the folder read: ok.txt alone, nothing said of the secret. */
    ck_assert_msg(strstr(text, "secrets/x.txt' code='ACCESS_DENIED'") != NULL, "order %zu: %s", i,
                  text);
    ck_assert_msg(strstr(text, "secret\n") == NULL, "order %zu read it: %s", i, text);
    ck_assert_msg(strstr(text, "b/ok.txt'") != NULL && strstr(text, "fine") != NULL,
                  "order %zu: %s", i, text);
    ck_assert_msg(strstr(text, "secrets/x.txt'") == g_strrstr(text, "secrets/x.txt'"),
                  "order %zu listed it: %s", i, text);
    ck_assert_msg(strstr(text, "<Notice") == NULL, "order %zu: %s", i, text);
  }
}
END_TEST

typedef struct {
  char *a, *b; /* a folder and a symlink to /etc, swapped again and again */
  atomic_bool stop;
  int swaps;
} Swapper;

static gpointer swap_thread(gpointer data) {
  Swapper *s = data;

  while (!atomic_load(&s->stop)) {
    /* Atomic where the file system can (RENAME_EXCHANGE), else in two steps. */
    if (renameat2(AT_FDCWD, s->a, AT_FDCWD, s->b, RENAME_EXCHANGE) < 0) {
      g_autofree char *tmp = g_strconcat(s->a, ".tmp", NULL);

      if (rename(s->a, tmp) < 0 || rename(s->b, s->a) < 0 || rename(tmp, s->b) < 0)
        break;
    }
    s->swaps++;
  }
  return NULL;
}

/* A folder swapped for a symlink to /etc while folders are walked: the walk never follows it,
 * so nothing but the folder's own file is ever listed. */
START_TEST(expand_daemon_swap_race) {
  g_autofree char *race = g_build_filename(dmn->dir, "race", NULL);
  Swapper s = {.a = g_build_filename(race, "sub", NULL), .b = g_build_filename(race, "alt", NULL)};
  RdConn *c = rd_conn_new(dmn->sock);
  GThread *t;

  g_free(rd_write_str(race, "sub/f.txt", "f\n"));
  ck_assert_int_eq(symlink("/etc", s.b), 0);
  atomic_init(&s.stop, false);
  t = g_thread_new("swap", swap_thread, &s);
  for (int i = 0; i < 200; i++) {
    RdResult *r = read_in_dir(c, "[\"race\"]", "\"expand\":{\"maxFiles\":20,\"binary\":true}");

    for (guint k = 0; k < json_array_get_length(r->files); k++) {
      const char *p = rd_file_str(r, k, "path");

      ck_assert_msg(strcmp(p, "race/sub/f.txt") == 0 || strcmp(p, "race/alt/f.txt") == 0 ||
                        strcmp(p, "race") == 0,
                    "try %d listed %s", i, p);
    }
    rd_result_free(r);
  }
  atomic_store(&s.stop, true);
  g_thread_join(t);
  ck_assert_int_gt(s.swaps, 0);
  rd_conn_free(c);
  g_free(s.a);
  g_free(s.b);
}
END_TEST

/* Runs git with args in dir; false when git is missing or fails. */
static bool git_in(const char *dir, const char *const *args) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  int status = 0;

  g_ptr_array_add(argv, "git");
  for (size_t i = 0; args[i] != NULL; i++)
    g_ptr_array_add(argv, (char *)args[i]);
  g_ptr_array_add(argv, NULL);
  return g_spawn_sync(dir, (char **)argv->pdata, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, NULL, NULL, &status, NULL) &&
         status == 0;
}

/* Makes dir a git repository: `git init`, or by hand the least libgit2 opens when git is
 * missing. */
static void git_repo_in(const char *dir) {
  static const char *const init[] = {"init", "-q", ".", NULL};
  g_autofree char *objects = g_build_filename(dir, ".git/objects", NULL);
  g_autofree char *refs = g_build_filename(dir, ".git/refs", NULL);

  if (git_in(dir, init))
    return;
  g_free(rd_write_str(dir, ".git/HEAD", "ref: refs/heads/main\n"));
  g_free(rd_write_str(dir, ".git/config", "[core]\n\trepositoryformatversion = 0\n"));
  ck_assert_int_eq(g_mkdir_with_parents(objects, 0700), 0);
  ck_assert_int_eq(g_mkdir_with_parents(refs, 0700), 0);
}

/* A one-line .gitignore that makes a backtracking matcher take exponential time answers at
 * once, rule applied: `readerd mcp` answers the folder and exits when its input closes. */
START_TEST(expand_daemon_pathological_gitignore) {
  g_autofree char *repo = g_build_filename(dmn->dir, "slow", NULL);
  GString *kept = g_string_new(NULL), *matched = NULL;
  g_autofree char *text = NULL;

  /* "abab...abx" keeps a backtracking matcher busy for ever (the text never runs out before
   * the pattern's last 'b' fails); "abab...ab" is what the rule leaves out. */
  for (int i = 0; i < 40; i++)
    g_string_append(kept, "ab");
  matched = g_string_new(kept->str);
  g_string_append_c(kept, 'x');
  g_free(rd_write_str(repo, "x.txt", "x\n"));
  g_free(rd_write_str(repo, kept->str, "not ignored\n"));
  g_free(rd_write_str(repo, matched->str, "ignored\n"));
  g_free(rd_write_str(repo, ".gitignore", "*a*a*a*a*a*a*a*a*a*a*a*a*b\n"));
  g_string_free(kept, TRUE);
  g_string_free(matched, TRUE);
  git_repo_in(repo);
  text = mcp_read(repo, NULL, "{\"paths\":[\".\"]}");
  ck_assert_msg(strstr(text, "path='x.txt'") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "not ignored") != NULL, "%s", text);
  ck_assert_msg(strstr(text, "\tignored") == NULL, "the rule was not applied: %s", text);
  ck_assert_msg(strstr(text, "1 by *a*a*a*a*a*a*a*a*a*a*a*a*b") != NULL,
                "the rule is not named: %s", text);
}
END_TEST

/* Under confineToRoot, the ignore rules of a repository's folders above the root still apply,
 * but what they say stays outside: the notice counts what they left out without naming their
 * file or their lines. */
START_TEST(expand_daemon_rules_outside_unnamed) {
  g_autofree char *repo = g_build_filename(dmn->dir, "outer", NULL);
  g_autofree char *root = g_build_filename(repo, "inner", NULL);
  g_autofree char *names = NULL, *text = NULL;
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  g_free(rd_write_str(repo, ".gitignore", "secret-rule-*.log\n"));
  g_free(rd_write_str(root, "kept.txt", "kept\n"));
  g_free(rd_write_str(root, "secret-rule-1.log", "left out\n"));
  git_repo_in(repo);
  fence(c, root, NULL);
  r = read_in_dir(c, "[\"outer/inner\"]", "\"expand\":true");
  names = listed(r);
  ck_assert_str_eq(names, "outer/inner/kept.txt\n");
  ck_assert_uint_eq(r->notices->len, 1);
  text = notice_text(r, 0);
  ck_assert_msg(strstr(text, "secret-rule") == NULL, "a rule outside is named: %s", text);
  ck_assert_msg(strstr(text, ".gitignore") == NULL, "a file outside is named: %s", text);
  ck_assert_msg(strstr(text, "outside the workspace") != NULL, "%s", text);
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* .git is never expanded: neither named as a folder or under a glob, nor reached through a link
 * in a folder; named as a file it is read without a fence (documented) and refused inside a
 * confined root. */
START_TEST(expand_daemon_never_git) {
  g_autofree char *repo = g_build_filename(dmn->dir, "r", NULL);
  g_autofree char *link = g_build_filename(repo, "cfg", NULL);
  g_autofree char *names = NULL;
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  g_free(rd_write_str(repo, "x.txt", "x\n"));
  g_free(rd_write_str(repo, ".git/config", "[remote \"origin\"]\n\turl = secret\n"));
  g_free(rd_write_str(repo, ".git/hooks/pre-commit", "#!/bin/sh\n"));
  g_free(rd_write_str(repo, "sub/.git", "gitdir: ../.git\n"));
  ck_assert_int_eq(symlink(".git/config", link), 0);
  r = read_in_dir(c, "[\"r/.git\",\"r/.git/*\",\"r/.git/hooks\",\"r\"]", "\"expand\":true");
  names = listed(r);
  ck_assert_str_eq(names, "r/.git\nr/.git/*\nr/.git/hooks\nr/x.txt\n");
  for (guint i = 0; i < 3; i++)
    ck_assert_str_eq(rd_file_str(r, i, "code"), "ACCESS_DENIED");
  rd_result_free(r);
  r = read_in_dir(c, "[\"r/.git/config\"]", NULL);
  ck_assert_ptr_null(rd_file_str(r, 0, "code"));
  rd_result_free(r);
  fence(c, repo, NULL);
  r = read_in_dir(c, "[\".git/config\",\"cfg\",\"sub/.git\"]", NULL);
  for (guint i = 0; i < 3; i++)
    ck_assert_str_eq(rd_file_str(r, i, "code"), "ACCESS_DENIED");
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* Under confineToRoot a link in the root to a missing file outside and one to an existing file
 * outside answer the same: nothing says what exists out there. */
START_TEST(expand_daemon_dangling_link_same_answer) {
  g_autofree char *ws = g_build_filename(dmn->dir, "dl", NULL);
  g_autofree char *out = g_build_filename(dmn->dir, "dl-out", NULL);
  g_autofree char *there = rd_write_str(out, "there.txt", "x\n");
  g_autofree char *missing = g_build_filename(out, "missing.txt", NULL);
  g_autofree char *missing_dir = g_build_filename(out, "no-dir", "missing.txt", NULL);
  g_autofree char *l1 = NULL, *l2 = NULL, *l3 = NULL;
  const char *const paths[] = {"to-there", "to-missing", "to-missing-dir", "to-missing/x"};
  RdConn *c = rd_conn_new(dmn->sock);
  RdResult *r;

  g_free(rd_write_str(ws, "in.txt", "in\n"));
  l1 = g_build_filename(ws, "to-there", NULL);
  l2 = g_build_filename(ws, "to-missing", NULL);
  l3 = g_build_filename(ws, "to-missing-dir", NULL);
  ck_assert_int_eq(symlink(there, l1), 0);
  ck_assert_int_eq(symlink(missing, l2), 0);
  ck_assert_int_eq(symlink(missing_dir, l3), 0);
  fence(c, ws, NULL);
  r = rd_read_paths(c, paths, G_N_ELEMENTS(paths), NULL);
  for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
    ck_assert_msg(g_strcmp0(rd_file_str(r, i, "code"), "ACCESS_DENIED") == 0, "%s: %s", paths[i],
                  rd_file_str(r, i, "code"));
    ck_assert_str_eq(rd_file_str(r, i, "error"), rd_file_str(r, 0, "error"));
  }
  rd_result_free(r);
  rd_conn_free(c);
}
END_TEST

/* A file below the walk's depth limit is not read, and a notice says so. */
START_TEST(expand_daemon_too_deep_notice) {
  GString *rel = g_string_new("deep");
  RdResult *r;
  RdConn *c = rd_conn_new(dmn->sock);
  g_autofree char *text = NULL;

  g_free(rd_write_str(dmn->dir, "deep/top.txt", "top\n"));
  for (int i = 0; i < 130; i++)
    g_string_append(rel, "/d");
  g_string_append(rel, "/bottom.txt");
  g_free(rd_write_str(dmn->dir, rel->str, "bottom\n"));
  r = read_in_dir(c, "[\"deep\"]", "\"expand\":true");
  ck_assert_uint_eq(json_array_get_length(r->files), 1);
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "deep/top.txt");
  ck_assert_uint_eq(r->notices->len, 1);
  text = notice_text(r, 0);
  ck_assert_msg(strstr(text, "1 folder deeper than 128 levels not entered") != NULL, "%s", text);
  rd_result_free(r);
  rd_conn_free(c);
  g_string_free(rel, TRUE);
}
END_TEST

/* The one-shot command line expands by default; --no-expand and --max-files. */
START_TEST(expand_cli_defaults) {
  const char *argv[] = {rd_readerd(), "read", "--format", "text", "cli", NULL, NULL};
  RdRun run = {0};

  g_free(rd_write_str(dmn->dir, "cli/one.txt", "1\n"));
  g_free(rd_write_str(dmn->dir, "cli/two.txt", "2\n"));
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "==> cli/one.txt (text") != NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "==> cli/two.txt (text") != NULL, "%s", run.out);
  rd_run_clear(&run);
  argv[5] = "--no-expand";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 1);
  ck_assert_msg(strstr(run.out, "error IS_DIRECTORY") != NULL, "%s", run.out);
  rd_run_clear(&run);
  argv[5] = "--max-files=1";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "==> cli/two.txt") == NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "[notice for cli: 1 of 2 files shown") != NULL, "%s", run.out);
  rd_run_clear(&run);
}
END_TEST

/* --ignored and --binary: expand.ignored and expand.binary on the command line. */
START_TEST(expand_cli_ignored_binary) {
  const char *argv[] = {rd_readerd(), "read", "--format", "text", "cli2", NULL, NULL};
  static const char bin[] = {'\0', '\1', '\2', 'b', 'i', 'n', '\0'};
  RdRun run = {0};

  g_free(rd_write_str(dmn->dir, "cli2/a.txt", "a\n"));
  g_free(rd_write_str(dmn->dir, "cli2/skip.txt", "s\n"));
  g_free(rd_write_str(dmn->dir, "cli2/.ignore", "skip.txt\n"));
  g_free(rd_write_file(dmn->dir, "cli2/bin.dat", bin, sizeof bin));
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "==> cli2/skip.txt") == NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "==> cli2/bin.dat (file, binary, not read") != NULL, "%s", run.out);
  rd_run_clear(&run);
  argv[5] = "--ignored";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "==> cli2/skip.txt (text") != NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "left out by ignore rules") == NULL, "%s", run.out);
  rd_run_clear(&run);
  argv[5] = "--binary";
  rd_run(dmn->dir, argv, NULL, 0, 30000, &run);
  ck_assert_int_eq(run.code, 1);
  ck_assert_msg(strstr(run.out, "==> cli2/bin.dat (error UNSUPPORTED_FORMAT") != NULL, "%s",
                run.out);
  ck_assert_msg(strstr(run.out, "==> cli2/skip.txt") == NULL, "%s", run.out);
  rd_run_clear(&run);
}
END_TEST

/* A list long enough for the lookups of its paths to be shared between threads
 * (expand-probe.h): files in forty folders, folders, paths that name nothing, a symlink and a
 * glob, interleaved; every entry in order with its `from` and its text, as one thread would
 * give them, and the same list again with a skip that starts between a folder's two entries. */
START_TEST(expand_daemon_long_list) {
  RdConn *c = rd_conn_new(dmn->sock);
  g_autoptr(GString) paths = g_string_new("[");
  g_autoptr(GPtrArray) want = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GArray) from = g_array_new(FALSE, FALSE, sizeof(int64_t));
  g_autofree char *link = NULL;
  guint skips[2] = {0, 0};
  const int64_t none = -1;

  for (int64_t k = 0; k < 700; k++) {
    g_autofree char *path = NULL;

    if (k % 97 == 0) { /* a folder of two files */
      path = g_strdup_printf("long/dir%" PRId64, k);
      for (int j = 0; j < 2; j++) {
        g_autofree char *f = g_strdup_printf("%s/f%d.txt", path, j);

        if (k == 291 && j == 1)
          skips[1] = want->len;
        g_free(rd_write_str(dmn->dir, f, f));
        g_ptr_array_add(want, g_steal_pointer(&f));
        g_array_append_val(from, k);
      }
    } else if (k % 13 == 0) { /* nothing there */
      path = g_strdup_printf("long/d%" PRId64 "/missing.txt", k % 40);
      g_ptr_array_add(want, g_strdup(path));
      g_array_append_val(from, none);
    } else if (k == 500) { /* a symlink, named as given */
      path = g_strdup("long/link.txt");
      link = g_build_filename(dmn->dir, path, NULL);
      ck_assert_int_eq(symlink("d1/f1.txt", link), 0);
      g_ptr_array_add(want, g_strdup(path));
      g_array_append_val(from, none);
    } else if (k == 600) { /* a glob: f123.txt and f163.txt of d3 */
      path = g_strdup("long/d3/f1?3.txt");
      g_ptr_array_add(want, g_strdup("long/d3/f123.txt"));
      g_array_append_val(from, k);
      g_ptr_array_add(want, g_strdup("long/d3/f163.txt"));
      g_array_append_val(from, k);
    } else { /* a file, in one of forty folders */
      path = g_strdup_printf("long/d%" PRId64 "/f%" PRId64 ".txt", k % 40, k);
      g_free(rd_write_str(dmn->dir, path, path));
      g_ptr_array_add(want, g_strdup(path));
      g_array_append_val(from, none);
    }
    g_string_append_printf(paths, "%s\"%s\"", k > 0 ? "," : "", path);
  }
  g_string_append_c(paths, ']');
  ck_assert_uint_gt(skips[1], 0);
  for (guint s = 0; s < G_N_ELEMENTS(skips); s++) {
    g_autofree char *extra = g_strdup_printf("\"expand\":true,\"skip\":%u", skips[s]);
    RdResult *r = read_in_dir(c, paths->str, extra);

    ck_assert_uint_eq(json_array_get_length(r->files), want->len - skips[s]);
    for (guint i = 0; i < want->len - skips[s]; i++) {
      const char *p = g_ptr_array_index(want, i + skips[s]);

      ck_assert_str_eq(rd_file_str(r, i, "path"), p);
      /* `from` is said of the entries of a folder or a glob (-1 here for the others). */
      if (g_array_index(from, int64_t, i + skips[s]) >= 0)
        ck_assert_int_eq(rd_file_int(r, i, "from"), g_array_index(from, int64_t, i + skips[s]));
      else
        ck_assert(!json_object_has_member(rd_file(r, i), "from"));
      if (strstr(p, "missing") != NULL) {
        ck_assert_str_eq(rd_file_str(r, i, "code"), "FILE_NOT_FOUND");
      } else {
        g_autofree char *text = rd_text(r, i);
        g_autofree char *line = g_strdup_printf(
            "     1\t%s\n", strcmp(p, "long/link.txt") == 0 ? "long/d1/f1.txt" : p);

        ck_assert_str_eq(text, line);
      }
    }
    rd_result_free(r);
  }
  rd_conn_free(c);
}
END_TEST

static Suite *expand_daemon_suite(void) {
  Suite *s = suite_create("expand-daemon");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, expand_daemon_folder_file_glob);
  tcase_add_test(tc, expand_daemon_long_list);
  tcase_add_test(tc, expand_daemon_off_by_default);
  tcase_add_test(tc, expand_daemon_max_files_and_options);
  tcase_add_test(tc, expand_daemon_bad_params);
  tcase_add_test(tc, expand_daemon_cancel);
  tcase_add_test(tc, expand_cli_defaults);
  tcase_add_test(tc, expand_cli_ignored_binary);
  tcase_add_test(tc, expand_daemon_fence_before_anything);
  tcase_add_test(tc, expand_daemon_exclude_under_every_root);
  tcase_add_test(tc, expand_daemon_swap_race);
  tcase_add_test(tc, expand_daemon_pathological_gitignore);
  tcase_add_test(tc, expand_daemon_rules_outside_unnamed);
  tcase_add_test(tc, expand_daemon_never_git);
  tcase_add_test(tc, expand_daemon_dangling_link_same_answer);
  tcase_add_test(tc, expand_daemon_too_deep_notice);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(expand_daemon_suite());
}
