/* Integration tests of legacy character sets through the real daemon over its socket: Japanese,
 * Chinese, Korean and Cyrillic text (tests/encodings/, UTF-8) converted here with iconv into
 * Shift-JIS, EUC-JP, ISO-2022-JP, GB18030, GBK, Big5, EUC-KR, KOI8-R and Windows-1251, read
 * back, and compared with the UTF-8 original; short files, files mixing ASCII code with
 * comments, bad sequences, a file past the 64 KiB head, and what must stay as it was (UTF-8,
 * ASCII, UTF-16, Latin-1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/lib/rd.h"

static RdDaemon *dmn;
static RdConn *conn;

static void enc_setup(void) {
  rd_fixture_setup(&dmn, &conn);
}

static void enc_teardown(void) {
  rd_fixture_teardown(&dmn, &conn);
}

/* tests/encodings/<name>, UTF-8. g_free the result. */
static char *sample(const char *name) {
  const char *root = g_getenv("READERD_SOURCE_ROOT");
  g_autofree char *path = NULL;

  ck_assert_msg(root != NULL, "READERD_SOURCE_ROOT is not set");
  path = g_build_filename(root, "tests", "encodings", name, NULL);
  return rd_read_file(path, NULL);
}

/* utf8 converted to charset by iconv (GLib's g_convert); fails the test when it cannot. */
static char *to_charset(const char *utf8, size_t len, const char *charset, size_t *ret_len) {
  g_autoptr(GError) err = NULL;
  gsize out_len = 0;
  char *out = g_convert(utf8, (gssize)len, charset, "UTF-8", NULL, &out_len, &err);

  ck_assert_msg(out != NULL, "iconv to %s: %s", charset, err ? err->message : "?");
  *ret_len = out_len;
  return out;
}

/* Reads one file without line numbers; the result is checked against the schema and mirror. */
static RdResult *read_raw(const char *path, const char *extra) {
  const char *paths[] = {path};
  g_autofree char *more =
      g_strdup_printf("\"lineNumbers\":false%s%s", extra ? "," : "", extra ? extra : "");

  return rd_read_paths(conn, paths, 1, more);
}

/* Writes `text` (UTF-8) in `charset` as `name`, reads it, and checks that it comes back as the
 * text with `encoding` named. */
static void check_roundtrip(const char *name, const char *text, const char *charset,
                            const char *encoding) {
  size_t len;
  g_autofree char *bytes = to_charset(text, strlen(text), charset, &len);
  g_autofree char *path = rd_write_file(dmn->dir, name, bytes, len);
  RdResult *r = read_raw(path, NULL);
  g_autofree char *got = NULL;

  ck_assert_msg(rd_file_str(r, 0, "code") == NULL, "%s (%s): %s: %s", name, charset,
                rd_file_str(r, 0, "code"), rd_file_str(r, 0, "error"));
  ck_assert_msg(g_strcmp0(rd_file_str(r, 0, "encoding"), encoding) == 0,
                "%s in %s read as '%s', expected '%s'", name, charset,
                rd_file_str(r, 0, "encoding"), encoding);
  ck_assert_int_eq(rd_file_int(r, 0, "bytes"), (int64_t)len);
  ck_assert_int_eq(rd_file_int(r, 0, "lines"), rd_count_lines(text, strlen(text)));
  got = rd_text(r, 0);
  ck_assert_msg(strcmp(got, text) == 0, "%s in %s does not come back as its UTF-8 original:\n%s",
                name, charset, got);
  rd_result_free(r);
}

static void roundtrip_sample(const char *sample_name, const char *charset, const char *encoding) {
  g_autofree char *text = sample(sample_name);
  g_autofree char *name = g_strdup_printf("%s.%s", sample_name, charset);

  check_roundtrip(name, text, charset, encoding);
}

START_TEST(encodings_japanese) {
  roundtrip_sample("ja.txt", "SHIFT_JIS", "shift_jis");
  roundtrip_sample("ja.txt", "EUC-JP", "euc-jp");
  roundtrip_sample("ja.txt", "ISO-2022-JP", "iso-2022-jp");
}
END_TEST

START_TEST(encodings_chinese) {
  roundtrip_sample("zh-hans.txt", "GB18030", "gb18030");
  roundtrip_sample("zh-hans.txt", "GBK", "gb18030"); /* GBK is a subset of GB18030 */
  roundtrip_sample("zh-hant.txt", "BIG5", "big5");
}
END_TEST

START_TEST(encodings_korean) {
  roundtrip_sample("ko.txt", "EUC-KR", "euc-kr");
}
END_TEST

START_TEST(encodings_cyrillic) {
  roundtrip_sample("ru.txt", "KOI8-R", "koi8-r");
  roundtrip_sample("ru.txt", "WINDOWS-1251", "windows-1251");
}
END_TEST

/* A Latin-script code page other than Windows-1252, with high bytes enough to be told apart. */
START_TEST(encodings_central_european) {
  static const char pl[] =
      "Zażółć gęślą jaźń. Pchnąć w tę łódź jeża lub ośm skrzyń fig.\n"
      "Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych praw. Są oni "
      "obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu braterstwa.\n"
      "Każdy człowiek posiada wszystkie prawa i wolności zawarte w niniejszej Deklaracji, bez "
      "względu na różnice rasy, koloru skóry, płci, języka, wyznania.\n";

  check_roundtrip("pl.txt", pl, "WINDOWS-1250", "windows-1250");
  check_roundtrip("pl2.txt", pl, "ISO-8859-2", "iso-8859-2");
}
END_TEST

/* A first line alone: a few characters of each set are enough. */
START_TEST(encodings_short_files) {
  static const struct {
    const char *sample, *charset, *encoding;
  } cases[] = {
      {"ja.txt", "SHIFT_JIS", "shift_jis"},     {"ja.txt", "EUC-JP", "euc-jp"},
      {"ja.txt", "ISO-2022-JP", "iso-2022-jp"}, {"zh-hans.txt", "GB18030", "gb18030"},
      {"zh-hant.txt", "BIG5", "big5"},          {"ko.txt", "EUC-KR", "euc-kr"},
      {"ru.txt", "KOI8-R", "koi8-r"},           {"ru.txt", "WINDOWS-1251", "windows-1251"},
  };

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = sample(cases[i].sample);
    char *nl = strchr(text, '\n');
    g_autofree char *name = g_strdup_printf("short-%s.%s", cases[i].sample, cases[i].charset);

    nl[1] = '\0';
    check_roundtrip(name, text, cases[i].charset, cases[i].encoding);
  }
}
END_TEST

/* Source code: mostly ASCII, with comments and strings in the legacy set. */
START_TEST(encodings_mixed_with_code) {
  static const char *const cases[][3] = {
      {"main.c", "SHIFT_JIS",
       "#include <stdio.h>\n\n/* 設定ファイルを読み込む。見つからなければ既定値を使う。 */\n"
       "int main(void) {\n  printf(\"こんにちは、世界\\n\");\n  return 0; /* 終了 */\n}\n"},
      {"util.py", "GB18030",
       "# -*- coding: gb18030 -*-\n# 读取配置文件，如果找不到就使用默认值。\n"
       "def greet(name):\n    return \"你好，\" + name  # 问候用户\n"},
      {"notes.sh", "KOI8-R",
       "#!/bin/sh\n# Сначала проверяем, что каталог существует.\n"
       "test -d \"$1\" || exit 1  # иначе выходим\necho \"Готово\"\n"},
      {"hello.java", "EUC-KR",
       "// 설정 파일을 읽습니다. 없으면 기본값을 씁니다.\nclass Hello {\n"
       "  public static void main(String[] a) { System.out.println(\"안녕하세요\"); }\n}\n"},
  };
  static const char *const names[] = {"shift_jis", "gb18030", "koi8-r", "euc-kr"};

  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    check_roundtrip(cases[i][0], cases[i][2], cases[i][1], names[i]);
}
END_TEST

/* A byte that is no character of the set becomes U+FFFD; the rest of the file is read. */
START_TEST(encodings_bad_sequence_replaced) {
  g_autofree char *text = sample("ja.txt");
  size_t len, cut;
  g_autofree char *sjis = to_charset(text, strlen(text), "SHIFT_JIS", &len);
  g_autofree char *path = NULL;
  g_autofree char *got = NULL;
  RdResult *r;
  GString *bad = g_string_new_len(sjis, (gssize)len);

  /* After the first line: 0xFF is never a Shift-JIS byte. */
  cut = (size_t)(strchr(sjis, '\n') - sjis) + 1;
  g_string_insert_len(bad, (gssize)cut, "\xFF", 1);
  path = rd_write_file(dmn->dir, "bad.sjis", bad->str, bad->len);
  r = read_raw(path, NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "shift_jis");
  got = rd_text(r, 0);
  {
    size_t first = (size_t)(strchr(text, '\n') - text) + 1;
    g_autofree char *want = g_strdup_printf("%.*s\xEF\xBF\xBD%s", (int)first, text, text + first);

    ck_assert_msg(strcmp(got, want) == 0, "bad byte not replaced by U+FFFD alone:\n%s", got);
  }
  rd_result_free(r);
  g_string_free(bad, TRUE);
}
END_TEST

/* The set is chosen from the first 64 KiB; what follows is decoded the same way, and a bad
 * byte there is one U+FFFD, not the end of the file. */
START_TEST(encodings_past_the_head) {
  g_autofree char *text = sample("ja.txt");
  GString *big = g_string_new(NULL), *want = g_string_new(NULL);
  g_autofree char *path = NULL;
  size_t len;
  int64_t lines;
  RdResult *r;

  while (big->len < 200 * 1024) {
    g_autofree char *sjis = to_charset(text, strlen(text), "SHIFT_JIS", &len);

    g_string_append_len(big, sjis, (gssize)len);
    g_string_append(want, text);
  }
  g_string_append(big, "\x82\xA0\xFF\x82\xA2 end\n"); /* あ, a bad byte, い */
  g_string_append(want, "\xE3\x81\x82\xEF\xBF\xBD\xE3\x81\x84 end\n");
  path = rd_write_file(dmn->dir, "long.sjis", big->str, big->len);
  lines = rd_count_lines(want->str, want->len);
  {
    g_autofree char *extra =
        g_strdup_printf("\"offset\":%" G_GINT64_FORMAT ",\"limit\":20", lines - 19);
    g_auto(GStrv) want_lines = rd_split_lines(want->str, want->len);
    g_auto(GStrv) got_lines = NULL;

    r = read_raw(path, extra);
    ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "shift_jis");
    ck_assert_int_eq(rd_file_int(r, 0, "lines"), lines);
    got_lines = rd_text_lines(r, 0);
    ck_assert_int_eq(g_strv_length(got_lines), 20);
    for (guint i = 0; i < 20; i++)
      ck_assert_str_eq(got_lines[i], want_lines[lines - 20 + i]);
    rd_result_free(r);
  }
  g_string_free(big, TRUE);
  g_string_free(want, TRUE);
}
END_TEST

/* What libmagic and the UTF-8 rules decided before stays so. */
START_TEST(encodings_unchanged_cases) {
  g_autofree char *ja = sample("ja.txt");
  static const char utf16[] = "\xFF\xFE"
                              "h\0i\0\n\0";
  static const struct {
    const char *name, *data, *encoding;
  } cases[] = {
      {"ascii.txt", "plain ASCII text\nwith two lines\n", "utf-8"},
      {"escape.txt", "\x1b[1mbold\x1b[0m terminal output\n", "utf-8"},
      {"latin1.txt", "caf\xE9\n", "iso-8859-1"},
      {"latin1-long.txt",
       "Gr\xFC\xDF"
       "e aus M\xFCnchen, caf\xE9 cr\xE8me br\xFBl\xE9"
       "e\n",
       "iso-8859-1"},
      {"cp1252.txt", "\x93quoted\x94 and \x80 5\n", "windows-1252"},
  };
  RdResult *r;
  g_autofree char *p = rd_write_str(dmn->dir, "ja-utf8.txt", ja);

  r = read_raw(p, NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "utf-8");
  rd_result_free(r);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = rd_write_str(dmn->dir, cases[i].name, cases[i].data);

    r = read_raw(path, NULL);
    ck_assert_msg(g_strcmp0(rd_file_str(r, 0, "encoding"), cases[i].encoding) == 0,
                  "%s read as '%s', expected '%s'", cases[i].name, rd_file_str(r, 0, "encoding"),
                  cases[i].encoding);
    rd_result_free(r);
  }
  {
    g_autofree char *path = rd_write_file(dmn->dir, "utf16.txt", utf16, sizeof utf16 - 1);

    r = read_raw(path, NULL);
    ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "utf-16le");
    rd_result_free(r);
  }
}
END_TEST

/* Czech in ISO-8859-2 using only letters windows-1250 shares, which uchardet takes for
 * windows-1250: named ISO-8859-2, and said to be detected. */
START_TEST(encodings_iso_8859_2_not_windows_1250) {
  static const char line[] =
      "Jsou nadáni rozumem a svědomím a mají spolu jednat v duchu bratrství.\n";
  GString *text = g_string_new(NULL);
  RdResult *r;
  size_t len;
  g_autofree char *bytes = NULL;
  g_autofree char *path = NULL;

  for (int i = 0; i < 8; i++)
    g_string_append(text, line);
  check_roundtrip("cs.txt", text->str, "ISO-8859-2", "iso-8859-2");
  bytes = to_charset(text->str, text->len, "ISO-8859-2", &len);
  path = rd_write_file(dmn->dir, "cs2.txt", bytes, len);
  r = read_raw(path, NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "encodingSource"), "detected");
  rd_result_free(r);
  g_string_free(text, TRUE);
}
END_TEST

/* Eight bytes of GBK: no guess with so little, the bytes shown as Latin-1 and said to be the
 * fallback; `encoding` names the set (for the request, or a path: the path's wins, also for
 * the files of a folder), and a name iconv does not know is -32602. */
START_TEST(encodings_client_names_the_set) {
  size_t len;
  g_autofree char *gbk = to_charset("中文测试", strlen("中文测试"), "GBK", &len);
  g_autofree char *path = rd_write_file(dmn->dir, "zh/short.txt", gbk, len);
  g_autofree char *cwd = rd_json_quote(dmn->dir);
  g_autofree char *params = NULL;
  g_autofree char *text = NULL;
  RdResult *r;
  JsonNode *msg;

  ck_assert_uint_eq(len, 8);
  r = read_raw(path, NULL);
  ck_assert_str_eq(rd_file_str(r, 0, "encodingSource"), "fallback");
  ck_assert_str_ne(rd_file_str(r, 0, "encoding"), "koi8-r");
  rd_result_free(r);

  r = read_raw(path, "\"encoding\":\"GBK\"");
  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "gbk");
  ck_assert_str_eq(rd_file_str(r, 0, "encodingSource"), "client");
  text = rd_text(r, 0);
  ck_assert_str_eq(text, "中文测试\n");
  rd_result_free(r);

  params = g_strdup_printf("{\"paths\":[\"zh/short.txt\",{\"path\":\"zh\",\"encoding\":\"gbk\"}],"
                           "\"cwd\":%s,\"lineNumbers\":false,\"expand\":true,"
                           "\"encoding\":\"big5\"}",
                           cwd);
  r = rd_read(conn, params);
  ck_assert_str_eq(rd_file_str(r, 0, "encoding"), "big5");
  ck_assert_str_eq(rd_file_str(r, 1, "encoding"), "gbk");
  ck_assert_int_eq(rd_file_int(r, 1, "from"), 1);
  g_free(text);
  text = rd_text(r, 1);
  ck_assert_str_eq(text, "中文测试\n");
  rd_result_free(r);

  msg = rd_conn_call(conn, "read", "{\"paths\":[\"a\"],\"encoding\":\"klingon\"}");
  ck_assert_int_eq(rd_error_code(msg), -32602);
  ck_assert_msg(
      strstr(json_object_get_string_member(
                 json_object_get_object_member(json_node_get_object(msg), "error"), "message"),
             "\"klingon\" is not one") != NULL,
      "the message does not name the encoding");
  json_node_unref(msg);
}
END_TEST

/* The command line's --encoding, and the MCP tool's encoding argument (on UTF-16 without a
 * byte-order mark, for each path and for the call). */
START_TEST(encodings_cli_and_mcp) {
  size_t len;
  g_autofree char *gbk = to_charset("中文测试\n", strlen("中文测试\n"), "GBK", &len);
  g_autofree char *path = rd_write_file(dmn->dir, "short.gbk", gbk, len);
  const char *cli[] = {rd_readerd(), "read", "--encoding", "gbk", "short.gbk", NULL};
  const char *bad[] = {rd_readerd(), "read", "--encoding", "klingon", "short.gbk", NULL};
  const char *mcp[] = {rd_readerd(), "mcp", "--root", dmn->dir, NULL};
  g_autofree char *utf16 = to_charset("中文测试\n", strlen("中文测试\n"), "UTF-16LE", &len);
  g_autofree char *path16 = rd_write_file(dmn->dir, "short.u16", utf16, len);
  static const char in[] =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"read_files\","
      "\"arguments\":{\"paths\":[{\"path\":\"short.u16\",\"encoding\":\"utf-16le\"}]}}}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_files\","
      "\"arguments\":{\"paths\":[\"short.u16\"],\"encoding\":\"UTF-16LE\"}}}\n";
  RdRun run;

  rd_run(dmn->dir, cli, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 0);
  ck_assert_msg(strstr(run.out, "encoding='gbk' encodingSource='client'") != NULL, "%s", run.out);
  ck_assert_msg(strstr(run.out, "中文测试") != NULL, "%s", run.out);
  rd_run_clear(&run);
  {
    const char *text[] = {rd_readerd(),     "read",      "--format=text",
                          "--encoding=GBK", "short.gbk", NULL};

    rd_run(dmn->dir, text, NULL, 0, 10000, &run);
    ck_assert_int_eq(run.code, 0);
    ck_assert_msg(strstr(run.out, ", gbk (client), lf") != NULL, "%s", run.out);
    rd_run_clear(&run);
  }
  rd_run(dmn->dir, bad, NULL, 0, 10000, &run);
  ck_assert_int_eq(run.code, 2);
  ck_assert_msg(strstr(run.err, "--encoding") != NULL, "%s", run.err);
  rd_run_clear(&run);

  rd_run(dmn->dir, mcp, in, strlen(in), 10000, &run);
  ck_assert_int_eq(run.code, 0);
  {
    g_auto(GStrv) lines = g_strsplit(run.out, "\n", -1);
    int answers = 0;

    for (char **l = lines; *l != NULL; l++) {
      if (strstr(*l, "\"id\":2") == NULL && strstr(*l, "\"id\":3") == NULL)
        continue;
      answers++;
      ck_assert_msg(strstr(*l, "encodingSource='client'") != NULL && strstr(*l, "中文测试"), "%s",
                    *l);
    }
    ck_assert_int_eq(answers, 2);
  }
  rd_run_clear(&run);
}
END_TEST

static Suite *encodings_suite(void) {
  Suite *s = suite_create("encodings");
  TCase *tc = tcase_create("daemon");

  tcase_add_checked_fixture(tc, enc_setup, enc_teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, encodings_japanese);
  tcase_add_test(tc, encodings_chinese);
  tcase_add_test(tc, encodings_korean);
  tcase_add_test(tc, encodings_cyrillic);
  tcase_add_test(tc, encodings_central_european);
  tcase_add_test(tc, encodings_short_files);
  tcase_add_test(tc, encodings_mixed_with_code);
  tcase_add_test(tc, encodings_bad_sequence_replaced);
  tcase_add_test(tc, encodings_past_the_head);
  tcase_add_test(tc, encodings_unchanged_cases);
  tcase_add_test(tc, encodings_iso_8859_2_not_windows_1250);
  tcase_add_test(tc, encodings_client_names_the_set);
  tcase_add_test(tc, encodings_cli_and_mcp);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(encodings_suite());
}
