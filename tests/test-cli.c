/* Integration tests of the command line: the one-shot `readerd read`, `--version`, `--help`,
 * usage errors, and `readerd serve --stdio` driven over its stdin and stdout. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

static char *dir;

static void cli_setup(void) {
  dir = rd_tmpdir();
}

static void cli_teardown(void) {
  rd_rmtree(dir);
  g_free(dir);
  dir = NULL;
}

static char *put_str(const char *name, const char *text) {
  return rd_write_str(dir, name, text);
}

/* Runs readerd with the given arguments (NULL-terminated) in dir. */
static void run(RdRun *ret, const char *arg, ...) {
  GPtrArray *argv = g_ptr_array_new();
  va_list ap;
  g_ptr_array_add(argv, (gpointer)rd_readerd());
  va_start(ap, arg);
  for (const char *a = arg; a; a = va_arg(ap, const char *))
    g_ptr_array_add(argv, (gpointer)a);
  va_end(ap);
  g_ptr_array_add(argv, NULL);
  rd_run(dir, (const char *const *)argv->pdata, NULL, 0, 30000, ret);
  g_ptr_array_free(argv, TRUE);
}

/* Runs `sh -c script` in dir with $0 the readerd binary and `in` (may be NULL) on stdin. */
static void run_sh(RdRun *ret, const char *script, const char *in) {
  const char *argv[] = {"/bin/sh", "-c", script, rd_readerd(), NULL};
  rd_run(dir, argv, in, in ? strlen(in) : 0, 30000, ret);
}

static void assert_first_line(RdResult *r, guint i, const char *want) {
  char **t = rd_text_lines(r, i);
  ck_assert_msg(t[0] && strcmp(t[0], want) == 0, "Content %u starts '%s', expected '%s'", i,
                t[0] ? t[0] : "", want);
  g_strfreev(t);
}

/* The project version, read from the top-level meson.build. g_malloc'd. */
static char *project_version(void) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  ck_assert_msg(root, "env READERD_SOURCE_ROOT is not set");
  char *path = g_build_filename(root, "meson.build", NULL);
  char *text = rd_read_file(path, NULL);
  char *p = strstr(text, "version");
  ck_assert_ptr_nonnull(p);
  char *q1 = strchr(p, '\'');
  ck_assert_ptr_nonnull(q1);
  char *q2 = strchr(q1 + 1, '\'');
  ck_assert_ptr_nonnull(q2);
  char *v = g_strndup(q1 + 1, (gsize)(q2 - q1 - 1));
  g_free(text);
  g_free(path);
  return v;
}

START_TEST(cli_read_exit_codes) {
  g_free(put_str("good.txt", "good one\ngood two\n"));
  size_t png_len;
  unsigned char *png = rd_make_png(4, 3, &png_len);
  g_free(rd_write_file(dir, "img.png", png, png_len));
  g_free(rd_write_file(dir, "adir/inner.txt", "x", 1));
  RdRun o;

  run(&o, "read", "good.txt", "img.png", NULL);
  ck_assert_msg(o.code == 0, "read of two good files exited %d: %s", o.code, o.err);
  RdResult *r = rd_result_from_xml(o.out, o.out_len);
  ck_assert_int_eq(r->contents->len, 2);
  char *a = rd_attr(r, 0, "path");
  ck_assert_str_eq(a, "good.txt");
  g_free(a);
  a = rd_attr(r, 0, "lines");
  ck_assert_str_eq(a, "2");
  g_free(a);
  assert_first_line(r, 0, "     1\tgood one");
  a = rd_attr(r, 1, "type");
  ck_assert_str_eq(a, "image");
  g_free(a);
  a = rd_attr(r, 1, "width");
  ck_assert_str_eq(a, "4");
  g_free(a);
  rd_result_free(r);
  rd_run_clear(&o);

  run(&o, "read", "good.txt", "missing.txt", NULL);
  ck_assert_msg(o.code == 1, "read with a missing file exited %d, not 1", o.code);
  r = rd_result_from_xml(o.out, o.out_len);
  a = rd_attr(r, 1, "code");
  ck_assert_str_eq(a, "FILE_NOT_FOUND");
  g_free(a);
  assert_first_line(r, 0, "     1\tgood one");
  rd_result_free(r);
  rd_run_clear(&o);

  /* A folder is read as its files; --no-expand keeps the contract's IS_DIRECTORY. */
  run(&o, "read", "adir", NULL);
  ck_assert_int_eq(o.code, 0);
  r = rd_result_from_xml(o.out, o.out_len);
  a = rd_attr(r, 0, "path");
  ck_assert_str_eq(a, "adir/inner.txt");
  g_free(a);
  rd_result_free(r);
  rd_run_clear(&o);
  run(&o, "read", "--no-expand", "adir", NULL);
  ck_assert_int_eq(o.code, 1);
  r = rd_result_from_xml(o.out, o.out_len);
  a = rd_attr(r, 0, "code");
  ck_assert_str_eq(a, "IS_DIRECTORY");
  g_free(a);
  rd_result_free(r);
  rd_run_clear(&o);
  g_free(png);
}
END_TEST

START_TEST(cli_usage_errors) {
  g_free(put_str("good.txt", "good\n"));
  const char *cases[][5] = {
      {"read", NULL},
      {"read", "--bogus", "good.txt", NULL},
      {"read", "--offset", "0", "good.txt", NULL},
      {"read", "--limit", "abc", "good.txt", NULL},
      {"read", "--limit", "-3", "good.txt", NULL},
      {"read", "--offset", NULL},
      {"read", "--max-dimension", "0", "good.txt", NULL},
      {"read", "good.txt", "", NULL},
      {"read", "--", "", NULL},
      {"frobnicate", NULL},
      {"serve", "--bogus", NULL},
      {"serve", "--socket", NULL},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *argv[7] = {rd_readerd()};
    for (int k = 0; k < 5 && cases[i][k]; k++)
      argv[k + 1] = cases[i][k];
    RdRun o;
    rd_run(dir, argv, NULL, 0, 10000, &o);
    char *cmd = g_strjoinv(" ", (char **)argv + 1);
    ck_assert_msg(o.code == 2, "'readerd %s' exited %d, not 2 (usage error)", cmd, o.code);
    ck_assert_msg(strlen(g_strstrip(o.err)) > 0, "'readerd %s' says nothing on stderr", cmd);
    g_free(cmd);
    rd_run_clear(&o);
  }
  /* No command at all. */
  const char *bare[] = {rd_readerd(), NULL};
  RdRun o;
  rd_run(dir, bare, NULL, 0, 10000, &o);
  ck_assert_msg(o.code == 2, "readerd without a command exited %d", o.code);
  ck_assert_msg(*g_strstrip(o.err), "readerd without a command says nothing on stderr");
  rd_run_clear(&o);
}
END_TEST

START_TEST(cli_version_and_help) {
  char *version = project_version();
  RdRun o;
  run(&o, "--version", NULL);
  ck_assert_int_eq(o.code, 0);
  ck_assert_msg(strstr(o.out, version), "--version prints '%s', the project is %s", o.out, version);
  ck_assert_msg(strstr(o.out, "readerd"), "--version does not name readerd: %s", o.out);
  rd_run_clear(&o);

  run(&o, "--help", NULL);
  ck_assert_int_eq(o.code, 0);
  ck_assert_msg(strstr(o.out, "read") && strstr(o.out, "serve") && strstr(o.out, "--stdio") &&
                    strstr(o.out, "--socket") && strstr(o.out, "--json"),
                "--help does not describe the commands: %s", o.out);
  rd_run_clear(&o);
  g_free(version);
}
END_TEST

START_TEST(cli_json_output) {
  char *a_path = put_str("a.txt", "alpha\nbeta\ngamma\n");
  size_t png_len;
  unsigned char *png = rd_make_png(6, 5, &png_len);
  char *png_path = rd_write_file(dir, "pic.png", png, png_len);
  RdRun o;
  run(&o, "read", "--json", "a.txt", "pic.png", "nope.txt", NULL);
  ck_assert_int_eq(o.code, 1);
  RdResult *r = rd_result_from_json(o.out, o.out_len);
  ck_assert_int_eq(json_array_get_length(r->files), 3);
  ck_assert_str_eq(rd_file_str(r, 0, "path"), "a.txt");
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 3);
  ck_assert_int_eq(rd_file_int(r, 0, "bytes"), 17);
  ck_assert_int_eq(rd_file_int(r, 0, "modified"), rd_mtime_ms(a_path));
  ck_assert_str_eq(rd_file_str(r, 1, "mediaType"), "image/png");
  ck_assert_int_eq(rd_file_int(r, 1, "width"), 6);
  ck_assert_int_eq(rd_file_int(r, 1, "height"), 5);
  GBytes *b = rd_image_bytes(r, (guint)rd_file_int(r, 1, "image"));
  ck_assert(g_bytes_get_size(b) == png_len && memcmp(g_bytes_get_data(b, NULL), png, png_len) == 0);
  g_bytes_unref(b);
  ck_assert_str_eq(rd_file_str(r, 2, "code"), "FILE_NOT_FOUND");
  ck_assert_int_eq(json_object_get_int_member(r->result, "lines"), 3);
  ck_assert_int_eq(json_object_get_int_member(r->result, "bytes"), 17 + (int64_t)png_len);
  assert_first_line(r, 0, "     1\talpha");
  rd_result_free(r);
  rd_run_clear(&o);
  g_free(png_path);
  g_free(a_path);
  g_free(png);
}
END_TEST

/* Options may follow the paths, as with most GNU tools; after "--" everything is a path. */
START_TEST(cli_options_anywhere_and_double_dash) {
  g_free(put_str("a.txt", "alpha\nbeta\n"));
  g_free(put_str("--json", "a file named like an option\n"));
  RdRun o;
  run(&o, "read", "a.txt", "--json", NULL);
  ck_assert_msg(o.code == 0, "exit %d: %s", o.code, o.err);
  RdResult *r = rd_result_from_json(o.out, o.out_len);
  ck_assert_int_eq(json_array_get_length(r->files), 1);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 2);
  rd_result_free(r);
  rd_run_clear(&o);

  run(&o, "read", "--", "--json", NULL);
  ck_assert_msg(o.code == 0, "exit %d: %s", o.code, o.err);
  r = rd_result_from_xml(o.out, o.out_len);
  char *a = rd_attr(r, 0, "path");
  ck_assert_str_eq(a, "--json");
  g_free(a);
  assert_first_line(r, 0, "     1\ta file named like an option");
  rd_result_free(r);
  rd_run_clear(&o);
}
END_TEST

/* --pages and --render reach every PDF given; a real PDF written by other people. */
START_TEST(cli_pdf_pages_and_render) {
  static const char pdf[] = "/usr/share/doc/libtasn1-doc/libtasn1.pdf";
  RdRun o;

  if (!g_file_test(pdf, G_FILE_TEST_EXISTS))
    SKIP_CASE("cli_pdf_pages_and_render: %s is missing (Debian package libtasn1-doc)", pdf);
  run(&o, "read", "--json", "--pages", "2-3", "--render", pdf, NULL);
  ck_assert_msg(o.code == 0, "exit %d: %s", o.code, o.err);
  RdResult *r = rd_result_from_json(o.out, o.out_len);
  ck_assert_str_eq(rd_file_str(r, 0, "type"), "pdf");
  ck_assert_int_eq(rd_file_int(r, 0, "pages"), 36);
  const char *xml = json_object_get_string_member(r->result, "xml");
  ck_assert_msg(strstr(xml, "<Page number='2'") && strstr(xml, "<Page number='3'"),
                "pages 2 and 3 missing");
  ck_assert_msg(!strstr(xml, "<Page number='1'") && !strstr(xml, "<Page number='4'"),
                "pages outside 2-3 shown");
  JsonArray *images = json_object_get_array_member(r->result, "images");
  ck_assert_int_eq(json_array_get_length(images), 2);
  for (guint i = 0; i < 2; i++)
    ck_assert_int_eq(json_object_get_int_member(json_array_get_object_element(images, i), "page"),
                     2 + i);
  rd_result_free(r);
  rd_run_clear(&o);

  run(&o, "read", "--pages", "2-", "nope.pdf", NULL);
  ck_assert_int_eq(o.code, 1);
  rd_run_clear(&o);
  run(&o, "read", "--pages", "three", pdf, NULL);
  ck_assert_int_eq(o.code, 2);
  ck_assert_msg(strstr(o.err, "--pages"), "usage error does not name --pages: %s", o.err);
  rd_run_clear(&o);
}
END_TEST

/* readerd read's options go through the one parser of the read's params: its rule, named
 * by the option; and a name that is not UTF-8 still reads (sent as its pathBytes). */
START_TEST(cli_params_checked_by_the_protocols_parser) {
  static const struct {
    const char *option, *value, *said;
  } cases[] = {
      {"--offset", "abc", "--offset: offset must be an integer >= 1: abc"},
      {"--image-tile", "sideways", "--image-tile: images.tile must be one of"},
      {"--max-files", "0", "--max-files: expand.maxFiles must be an integer from 1 to 10000"},
      {"--format", "yaml", "--format: format must be one of"},
      {"--budget", "0", "--budget: budget.tokens must be an integer >= 1"},
  };
  g_autofree char *good = put_str("good.txt", "good\n");
  g_autofree char *odd = put_str("odd\xff.txt", "odd name\n");
  RdRun o;

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    run(&o, "read", cases[i].option, cases[i].value, good, NULL);
    ck_assert_msg(o.code == 2, "%s %s exited %d", cases[i].option, cases[i].value, o.code);
    ck_assert_msg(strstr(o.err, cases[i].said) != NULL, "%s %s said: %s", cases[i].option,
                  cases[i].value, o.err);
    rd_run_clear(&o);
  }
  run(&o, "read", "--password", "pw", odd, NULL);
  ck_assert_msg(o.code == 0, "a name that is not UTF-8 exited %d: %s", o.code, o.err);
  ck_assert_msg(strstr(o.out, "odd name") != NULL, "not read: %s", o.out);
  rd_run_clear(&o);
  /* Its etag, given back for its name, answers it unchanged. */
  run(&o, "read", "--json", odd, NULL);
  RdResult *r = rd_result_from_json(o.out, o.out_len);
  g_autofree char *etag = g_strdup(rd_file_str(r, 0, "etag"));
  g_autofree char *match = g_strdup_printf("%s=%s", odd, etag);
  rd_result_free(r);
  rd_run_clear(&o);
  run(&o, "read", "--json", "--if-none-match", match, odd, NULL);
  ck_assert_int_eq(o.code, 0);
  r = rd_result_from_json(o.out, o.out_len);
  ck_assert_msg(rd_file_true(r, 0, "unchanged"), "not unchanged: %s", o.out);
  rd_result_free(r);
  rd_run_clear(&o);
}
END_TEST

START_TEST(cli_offset_limit_and_raw) {
  GString *s = g_string_new(NULL);
  for (int i = 1; i <= 300; i++)
    g_string_append_printf(s, "row %d\n", i);
  g_free(rd_write_file(dir, "rows.txt", s->str, s->len));
  RdRun o;

  run(&o, "read", "--offset", "10", "--limit", "5", "rows.txt", NULL);
  ck_assert_int_eq(o.code, 0);
  RdResult *r = rd_result_from_xml(o.out, o.out_len);
  char *a = rd_attr(r, 0, "shown");
  ck_assert_str_eq(a, "10-14");
  g_free(a);
  a = rd_attr(r, 0, "truncated");
  ck_assert_str_eq(a, "true");
  g_free(a);
  char **t = rd_text_lines(r, 0);
  for (int i = 0; i < 5; i++) {
    char *want = g_strdup_printf("%6d\trow %d", 10 + i, 10 + i);
    ck_assert_str_eq(t[i], want);
    g_free(want);
  }
  char *rest = g_strjoinv("\n", t + 5);
  ck_assert_msg(strstr(rest, "offset=15"), "no way to continue: %s", rest);
  g_free(rest);
  g_strfreev(t);
  rd_result_free(r);
  rd_run_clear(&o);

  run(&o, "read", "--json", "--no-line-numbers", "--limit", "2", "rows.txt", NULL);
  ck_assert_int_eq(o.code, 0);
  r = rd_result_from_json(o.out, o.out_len);
  JsonArray *shown = json_object_get_array_member(rd_file(r, 0), "shown");
  ck_assert_int_eq(json_array_get_int_element(shown, 0), 1);
  ck_assert_int_eq(json_array_get_int_element(shown, 1), 2);
  t = rd_text_lines(r, 0);
  ck_assert_str_eq(t[0], "row 1");
  ck_assert_str_eq(t[1], "row 2");
  g_strfreev(t);
  rd_result_free(r);
  rd_run_clear(&o);
  g_string_free(s, TRUE);
}
END_TEST

START_TEST(cli_relative_paths) {
  g_free(rd_write_file(dir, "sub/f.txt", "in sub\n", 7));
  char *base = g_path_get_basename(dir);
  char *updown = g_strdup_printf("../%s/sub/f.txt", base);
  char *abs = g_build_filename(dir, "sub", "f.txt", NULL);
  RdRun o;
  run(&o, "read", "sub/f.txt", updown, abs, NULL);
  ck_assert_msg(o.code == 0, "exit %d: %s", o.code, o.err);
  RdResult *r = rd_result_from_xml(o.out, o.out_len);
  const char *given[] = {"sub/f.txt", updown, abs};
  for (guint i = 0; i < 3; i++) {
    char *a = rd_attr(r, (int)i, "path");
    ck_assert_str_eq(a, given[i]);
    g_free(a);
    assert_first_line(r, i, "     1\tin sub");
  }
  rd_result_free(r);
  rd_run_clear(&o);
  g_free(abs);
  g_free(updown);
  g_free(base);
}
END_TEST

/* A file name that is not UTF-8 (possible only on the command line): the output stays valid
 * XML and JSON, the name shown with U+FFFD. */
START_TEST(cli_non_utf8_name) {
  g_free(rd_write_str(dir, "caf\xe9.txt", "latin name\n"));
  RdRun o;
  run(&o, "read", "caf\xe9.txt", NULL);
  ck_assert_msg(o.code == 0, "exit %d: %s", o.code, o.err);
  RdResult *r = rd_result_from_xml(o.out, o.out_len);
  char *a = rd_attr(r, 0, "path");
  ck_assert_str_eq(a, "caf\xef\xbf\xbd.txt");
  g_free(a);
  assert_first_line(r, 0, "     1\tlatin name");
  rd_result_free(r);
  rd_run_clear(&o);

  run(&o, "read", "--json", "caf\xe9.txt", NULL);
  ck_assert_int_eq(o.code, 0);
  ck_assert_msg(g_utf8_validate(o.out, (gssize)o.out_len, NULL), "--json output is not UTF-8");
  r = rd_result_from_json(o.out, o.out_len);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 1);
  rd_result_free(r);
  rd_run_clear(&o);
}
END_TEST

START_TEST(cli_many_files) {
  enum { N = 300 };
  const char *argv[N + 3] = {rd_readerd(), "read"};
  char *names[N];
  for (int i = 0; i < N; i++) {
    names[i] = g_strdup_printf("f%03d.txt", i);
    char *text = g_strdup_printf("file %d\n", i);
    g_free(rd_write_str(dir, names[i], text));
    g_free(text);
    argv[i + 2] = names[i];
  }
  RdRun o;
  rd_run(dir, argv, NULL, 0, 60000, &o);
  ck_assert_int_eq(o.code, 0);
  RdResult *r = rd_result_from_xml(o.out, o.out_len);
  ck_assert_int_eq(r->contents->len, N);
  for (guint i = 0; i < N; i++) {
    char *want = g_strdup_printf("     1\tfile %u", i);
    char *a = rd_attr(r, (int)i, "path");
    ck_assert_str_eq(a, names[i]);
    assert_first_line(r, i, want);
    g_free(a);
    g_free(want);
  }
  char *total = rd_attr(r, -1, "lines");
  ck_assert_str_eq(total, "300");
  g_free(total);
  rd_result_free(r);
  rd_run_clear(&o);
  for (int i = 0; i < N; i++)
    g_free(names[i]);
}
END_TEST

/* ---------------------------------------------------------------- serve --stdio */

START_TEST(cli_stdio_session) {
  RdStdio *s = rd_stdio_start();
  g_free(rd_write_str(s->dir, "a.txt", "stdio one\nstdio two\n"));
  JsonNode *m = rd_conn_call(s->conn, "initialize", "{}");
  JsonObject *info = json_object_get_object_member(
      json_object_get_object_member(json_node_get_object(m), "result"), "serverInfo");
  ck_assert_str_eq(json_object_get_string_member(info, "name"), "readerd");
  json_node_unref(m);

  RdResult *r = rd_read(s->conn, "{\"paths\":[\"a.txt\"]}");
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), 2);
  char **t = rd_text_lines(r, 0);
  ck_assert_str_eq(t[0], "     1\tstdio one");
  ck_assert_str_eq(t[1], "     2\tstdio two");
  g_strfreev(t);
  rd_result_free(r);

  m = rd_conn_call(s->conn, "no/such/method", NULL);
  ck_assert_int_eq(rd_error_code(m), -32601);
  json_node_unref(m);
  rd_conn_send_str(s->conn, "{not json\n");
  m = rd_conn_recv(s->conn, 10000);
  ck_assert_int_eq(rd_error_code(m), -32700);
  json_node_unref(m);

  m = rd_conn_call(s->conn, "shutdown", NULL);
  JsonObject *o = json_node_get_object(m);
  ck_assert(json_object_has_member(o, "result") &&
            JSON_NODE_HOLDS_NULL(json_object_get_member(o, "result")));
  json_node_unref(m);
  rd_conn_notify(s->conn, "exit", NULL);
  ck_assert_msg(rd_conn_wait_closed(s->conn, 5000), "stdout stays open after exit");
  ck_assert_int_eq(rd_stdio_wait(s, 5000), 0);
  rd_stdio_free(s);
}
END_TEST

/* Everything written at once, then stdin closed, as a script piping a file would: every request
 * sent before shutdown is answered before the process exits 0. */
START_TEST(cli_stdio_pipelined_until_exit) {
  enum { N = 3000 };
  RdStdio *s = rd_stdio_start();
  g_free(rd_write_str(s->dir, "a.txt", "piped\n"));
  GString *all =
      g_string_new("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":[");
  for (int i = 0; i < N; i++)
    g_string_append_printf(all, "%s\"a.txt\"", i ? "," : "");
  g_string_append(all, "]}}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}\n"
                       "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}\n");
  rd_conn_send(s->conn, all->str, all->len);
  rd_conn_close_write(s->conn);
  JsonNode *m = rd_conn_wait(s->conn, "n:2", 20000);
  char *text = json_to_string(m, FALSE);
  ck_assert_msg(rd_error_code(m) == 0, "the read sent before shutdown was answered %.200s", text);
  g_free(text);
  RdResult *r = rd_result_new(m);
  ck_assert_int_eq(json_array_get_length(r->files), N);
  assert_first_line(r, N - 1, "     1\tpiped");
  rd_result_free(r);
  m = rd_conn_wait(s->conn, "n:3", 10000);
  ck_assert_int_eq(rd_error_code(m), 0);
  json_node_unref(m);
  ck_assert_int_eq(rd_stdio_wait(s, 5000), 0);
  rd_stdio_free(s);
  g_string_free(all, TRUE);
}
END_TEST

START_TEST(cli_stdio_eof_answers) {
  RdStdio *s = rd_stdio_start();
  g_free(rd_write_str(s->dir, "a.txt", "before eof\n"));
  GString *paths = g_string_new("[");
  for (int i = 0; i < 200; i++)
    g_string_append_printf(paths, "%s\"a.txt\"", i ? "," : "");
  g_string_append_c(paths, ']');
  char *line = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":%s}}\n",
      paths->str);
  rd_conn_send_str(s->conn, line);
  rd_conn_close_write(s->conn);
  RdResult *r = rd_result_new(rd_conn_wait(s->conn, "n:2", 10000));
  ck_assert_int_eq(json_array_get_length(r->files), 200);
  assert_first_line(r, 199, "     1\tbefore eof");
  rd_result_free(r);
  ck_assert_int_eq(rd_stdio_wait(s, 5000), 0);
  rd_stdio_free(s);
  g_free(line);
  g_string_free(paths, TRUE);
}
END_TEST

START_TEST(cli_stdio_exit_without_shutdown) {
  RdStdio *s = rd_stdio_start();
  JsonNode *m = rd_conn_call(s->conn, "initialize", NULL);
  json_node_unref(m);
  rd_conn_notify(s->conn, "exit", NULL);
  ck_assert_int_eq(rd_stdio_wait(s, 5000), 1);
  rd_stdio_free(s);
}
END_TEST

/* A standard descriptor closed by the caller is /dev/null to readerd: libuv never sees it
 * taken by a file or a socket (it aborts on that), and nothing is read from or written to
 * a file that happens to get its number. */
START_TEST(cli_closed_std_descriptors) {
  g_free(put_str("a.txt", "alpha\n"));
  RdRun o;
  run_sh(&o, "exec \"$0\" read a.txt <&-", NULL);
  ck_assert_msg(o.code == 0, "read with stdin closed exited %d: %s", o.code, o.err);
  RdResult *r = rd_result_from_xml(o.out, o.out_len);
  assert_first_line(r, 0, "     1\talpha");
  rd_result_free(r);
  rd_run_clear(&o);

  run_sh(&o, "exec \"$0\" read a.txt >&-", NULL);
  ck_assert_msg(o.code == 0, "read with stdout closed exited %d: %s", o.code, o.err);
  rd_run_clear(&o);

  run_sh(&o, "READERD_LOG=debug exec \"$0\" read a.txt missing.txt 2>&-", NULL);
  ck_assert_msg(o.code == 1, "read of a missing file with stderr closed exited %d", o.code);
  r = rd_result_from_xml(o.out, o.out_len);
  ck_assert_int_eq(r->contents->len, 2);
  rd_result_free(r);
  rd_run_clear(&o);

  run_sh(&o, "exec \"$0\" read a.txt <&- >&- 2>&-", NULL);
  ck_assert_msg(o.code == 0, "read with every standard descriptor closed exited %d", o.code);
  rd_run_clear(&o);
}
END_TEST

/* Output that cannot be written is a failure of its own (exit 3), said once on stderr. */
START_TEST(cli_output_write_failure) {
  g_free(put_str("a.txt", "alpha\n"));
  const char *scripts[] = {
      "exec \"$0\" read a.txt >/dev/full",
      "exec \"$0\" read --json a.txt missing.txt >/dev/full",
      "exec \"$0\" --version >/dev/full",
      "exec \"$0\" --help >/dev/full",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(scripts); i++) {
    RdRun o;
    run_sh(&o, scripts[i], NULL);
    ck_assert_msg(o.code == 3, "'%s' exited %d, not 3", scripts[i], o.code);
    ck_assert_msg(strstr(o.err, "cannot write the output: No space left on device") != NULL,
                  "'%s' said '%s'", scripts[i], o.err);
    ck_assert_msg(strstr(o.err, "cannot write") == g_strrstr(o.err, "cannot write"),
                  "'%s' said it more than once", scripts[i]);
    rd_run_clear(&o);
  }
}
END_TEST

/* The daemon's limit on paths per read holds for the CLI too: one more is a usage error. */
START_TEST(cli_path_limit) {
  g_free(put_str("a.txt", "alpha\n"));
  GPtrArray *argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)rd_readerd());
  g_ptr_array_add(argv, "read");
  for (int i = 0; i < 10000; i++)
    g_ptr_array_add(argv, "a.txt");
  g_ptr_array_add(argv, NULL);
  RdRun o;
  rd_run(dir, (const char *const *)argv->pdata, NULL, 0, 60000, &o);
  ck_assert_msg(o.code == 0, "a read of 10,000 paths exited %d: %.200s", o.code, o.err);
  rd_run_clear(&o);
  argv->pdata[argv->len - 1] = "a.txt";
  g_ptr_array_add(argv, NULL);
  rd_run(dir, (const char *const *)argv->pdata, NULL, 0, 60000, &o);
  ck_assert_msg(o.code == 2, "a read of 10,001 paths exited %d", o.code);
  ck_assert_msg(strstr(o.err, "paths must have at most 10000 items") != NULL, "said: %.200s",
                o.err);
  ck_assert_uint_eq(o.out_len, 0);
  rd_run_clear(&o);
  g_ptr_array_free(argv, TRUE);
}
END_TEST

/* Writes requests to dir/name and returns the path. */
static char *stdio_requests(const char *name, bool last_newline) {
  char *text = g_strdup_printf(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read\",\"params\":{\"paths\":[\"a.txt\"]}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"shutdown\"}%s",
      last_newline ? "\n" : "");
  char *path = put_str(name, text);
  g_free(text);
  return path;
}

/* `readerd serve --stdio < requests.jsonl > answers.jsonl`: regular files and /dev/null on
 * stdin and stdout, relayed off the loop. */
START_TEST(cli_stdio_files) {
  g_free(put_str("a.txt", "alpha\nbeta\n"));
  g_free(stdio_requests("req.jsonl", true));
  g_free(stdio_requests("req-nonl.jsonl", false));
  const char *scripts[] = {
      "exec \"$0\" serve --stdio <req.jsonl >ans.jsonl",
      "exec \"$0\" serve --stdio <req-nonl.jsonl >ans.jsonl",
      "cat req.jsonl | \"$0\" serve --stdio >ans.jsonl",
      "exec \"$0\" serve --stdio <req.jsonl 2>/dev/null | cat >ans.jsonl",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(scripts); i++) {
    RdRun o;
    run_sh(&o, scripts[i], NULL);
    ck_assert_msg(o.code == 0, "'%s' exited %d: %s", scripts[i], o.code, o.err);
    rd_run_clear(&o);
    char *path = g_build_filename(dir, "ans.jsonl", NULL);
    size_t len;
    char *ans = rd_read_file(path, &len);
    char **lines = rd_split_lines(ans, len);
    ck_assert_msg(g_strv_length(lines) == 3, "'%s' gave %u answers", scripts[i],
                  g_strv_length(lines));
    int seen = 0;
    for (int k = 0; k < 3; k++) {
      JsonNode *m = rd_json_parse(lines[k], strlen(lines[k]));
      ck_assert_int_eq(rd_error_code(m), 0);
      char *key = rd_msg_id_key(m);
      if (strcmp(key, "n:2") == 0) {
        RdResult *r = rd_result_new(m);
        assert_first_line(r, 0, "     1\talpha");
        rd_result_free(r);
      } else {
        json_node_unref(m);
      }
      seen |= 1 << (key[2] - '0');
      g_free(key);
    }
    ck_assert_int_eq(seen, 0xe);
    g_strfreev(lines);
    g_free(ans);
    g_free(path);
  }
  /* /dev/null in and out, and a closed stdin: end of input at once, exit 0. */
  const char *quiet[] = {
      "exec \"$0\" serve --stdio </dev/null",
      "exec \"$0\" serve --stdio <&-",
      "exec \"$0\" serve --stdio <req.jsonl >/dev/null",
      "exec \"$0\" serve --stdio <req.jsonl >&-",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(quiet); i++) {
    RdRun o;
    run_sh(&o, quiet[i], NULL);
    ck_assert_msg(o.code == 0, "'%s' exited %d: %s", quiet[i], o.code, o.err);
    ck_assert_msg(o.out_len == 0, "'%s' wrote to the test's pipe", quiet[i]);
    rd_run_clear(&o);
  }
  /* Answers that cannot be written: exit 3, said on stderr. */
  RdRun o;
  run_sh(&o, "exec \"$0\" serve --stdio <req.jsonl >/dev/full", NULL);
  ck_assert_msg(o.code == 3, "serve --stdio >/dev/full exited %d", o.code);
  ck_assert_msg(strstr(o.err, "cannot write the output") != NULL, "said: %s", o.err);
  rd_run_clear(&o);
}
END_TEST

#define PIPE_FILES 1500 /* more pieces than one writev takes (IOV_MAX, 1024) */

/* Reads fd to its end. */
static GString *read_all(int fd) {
  GString *out = g_string_new(NULL);
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    ck_assert_msg(n > 0, "read: %s", g_strerror(errno));
    g_string_append_len(out, buf, n);
  }
  return out;
}

/* Each of the files' first lines is in the output once. */
static void assert_every_file(const GString *out) {
  for (int i = 0; i < PIPE_FILES; i++) {
    char want[32];
    g_snprintf(want, sizeof want, "file %04d here", i);
    const char *at = strstr(out->str, want);
    ck_assert_msg(at != NULL, "%s is missing from the output", want);
    ck_assert_msg(strstr(at + 1, want) == NULL, "%s is in the output twice", want);
  }
}

/* The pipe the output went through was enlarged to a megabyte, where the system allows it. */
static void assert_pipe_enlarged(int fd) {
  char *max = rd_read_file("/proc/sys/fs/pipe-max-size", NULL);
  if (max != NULL && g_ascii_strtoll(max, NULL, 10) >= 1048576)
    ck_assert_int_ge(fcntl(fd, F_GETPIPE_SZ), 1048576);
  g_free(max);
}

/* Runs readerd with argv in dir, stdin from in_fd (-1: /dev/null), stdout to out_fd. */
static pid_t spawn_to(char **argv, int in_fd, int out_fd) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (chdir(dir) != 0)
      _exit(126);
    if (in_fd >= 0)
      dup2(in_fd, 0);
    else
      close(0);
    dup2(out_fd, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  return pid;
}

static int wait_exit(pid_t pid) {
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* A large answer to a pipe, the one-shot CLI's and serve --stdio's: written whole through a
 * pipe enlarged for it, to a descriptor left non-blocking by whoever set it up too. */
START_TEST(cli_large_answers_to_pipes) {
  GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
  GString *req = g_string_new("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read\","
                              "\"params\":{\"paths\":[");
  char *filler = g_strnfill(2000, 'x');
  g_ptr_array_add(argv, g_strdup(rd_readerd()));
  g_ptr_array_add(argv, g_strdup("read"));
  for (int i = 0; i < PIPE_FILES; i++) {
    char *name = g_strdup_printf("f%04d.txt", i);
    char *text = g_strdup_printf("file %04d here\n%s\n", i, filler);
    g_free(put_str(name, text));
    g_string_append_printf(req, "%s\"%s\"", i > 0 ? "," : "", name);
    g_ptr_array_add(argv, name);
    g_free(text);
  }
  g_string_append(req, "]}}\n");
  g_ptr_array_add(argv, NULL);

  int p[2];
  ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
  ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
  pid_t pid = spawn_to((char **)argv->pdata, -1, p[1]);
  close(p[1]);
  GString *out = read_all(p[0]);
  ck_assert_int_eq(wait_exit(pid), 0);
  ck_assert(out->len > 3 * 1024 * 1024 && out->str[out->len - 1] == '\n');
  assert_every_file(out);
  assert_pipe_enlarged(p[0]);
  close(p[0]);
  g_string_free(out, TRUE);

  int in[2];
  char *serve[] = {(char *)rd_readerd(), "serve", "--stdio", NULL};
  ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
  ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
  pid = spawn_to(serve, in[0], p[1]);
  close(in[0]);
  close(p[1]);
  ck_assert_int_eq(write(in[1], req->str, req->len), (ssize_t)req->len);
  close(in[1]);
  out = read_all(p[0]);
  ck_assert_int_eq(wait_exit(pid), 0);
  ck_assert_msg(g_str_has_prefix(out->str, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"),
                "not a result: %.200s", out->str);
  ck_assert(strchr(out->str, '\n') == out->str + out->len - 1);
  assert_every_file(out);
  assert_pipe_enlarged(p[0]);
  close(p[0]);
  g_string_free(out, TRUE);
  g_string_free(req, TRUE);
  g_free(filler);
  g_ptr_array_free(argv, TRUE);
}
END_TEST

static Suite *cli_suite(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, cli_setup, cli_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, cli_read_exit_codes);
  tcase_add_test(tc, cli_usage_errors);
  tcase_add_test(tc, cli_params_checked_by_the_protocols_parser);
  tcase_add_test(tc, cli_version_and_help);
  tcase_add_test(tc, cli_json_output);
  tcase_add_test(tc, cli_options_anywhere_and_double_dash);
  tcase_add_test(tc, cli_pdf_pages_and_render);
  tcase_add_test(tc, cli_offset_limit_and_raw);
  tcase_add_test(tc, cli_relative_paths);
  tcase_add_test(tc, cli_non_utf8_name);
  tcase_add_test(tc, cli_many_files);
  tcase_add_test(tc, cli_stdio_session);
  tcase_add_test(tc, cli_stdio_pipelined_until_exit);
  tcase_add_test(tc, cli_stdio_eof_answers);
  tcase_add_test(tc, cli_stdio_exit_without_shutdown);
  tcase_add_test(tc, cli_closed_std_descriptors);
  tcase_add_test(tc, cli_output_write_failure);
  tcase_add_test(tc, cli_path_limit);
  tcase_add_test(tc, cli_stdio_files);
  tcase_add_test(tc, cli_large_answers_to_pipes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  skip_init();
  return skip_status(rd_run_suite(cli_suite()));
}
