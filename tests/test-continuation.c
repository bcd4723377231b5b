/* The continuations the daemon remembers (daemon/request/continuation.c): which requests share
 * a key (anything that could change the expansion tells them apart; what is read of each file
 * does not), and the slots, found by key and skip, the least recently used going first. */
#include <check.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/request/continuation.h"
#include "tests/lib/check-run.h"

/* A request's params from its JSON, which must be valid. */
static void params_of(const char *json, ReadParams *ret) {
  g_autofree char *error = NULL;

  read_params_init(ret);
  ck_assert_msg(read_params_parse_json(json, strlen(json), ret, &error) == 0, "%s", error);
}

static ContentHash key_of(const char *json, const Workspace *ws) {
  ReadParams p;
  ContentHash h;

  params_of(json, &p);
  h = continuation_key(&p, ws);
  read_params_clear(&p);
  return h;
}

static bool same_key(ContentHash a, ContentHash b) {
  return a.lo == b.lo && a.hi == b.hi;
}

#define BASE "\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":true"

/* What the expansion depends on changes the key; what is read of each file, the budget, the
 * skip and the format do not. */
START_TEST(continuation_key_tells_expansions_apart) {
  static const char *const other[] = {
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.hh\"],\"cwd\":\"/w\",\"expand\":true}",
      "{\"paths\":[\"a.c\",\"src\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":true}",
      "{\"paths\":[\"src\",\"a.c\"],\"cwd\":\"/w\",\"expand\":true}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\",\"\\u00e9\"],\"cwd\":\"/w\",\"expand\":true}",
      "{\"paths\":[\"sr\",\"ca.c\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":true}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"cwd\":\"/x\",\"expand\":true}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"expand\":true}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":{\"maxFiles\":499}}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":{\"ignored\":true}}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":{\"binary\":true}}",
      "{\"paths\":[\"src\",\"a.c\",\"lib/*.h\"],\"cwd\":\"/w\",\"expand\":false}",
  };
  static const char *const same[] = {
      "{" BASE ",\"skip\":7}",
      "{" BASE ",\"budget\":{\"tokens\":900}}",
      "{" BASE ",\"offset\":3,\"limit\":9,\"format\":\"mcp\"}",
      "{\"paths\":[{\"path\":\"src\",\"limit\":4},\"a.c\",\"lib/*.h\"],\"cwd\":\"/w\","
      "\"expand\":{\"maxFiles\":500}}",
  };
  ContentHash base = key_of("{" BASE "}", NULL);

  for (size_t i = 0; i < G_N_ELEMENTS(other); i++)
    ck_assert_msg(!same_key(key_of(other[i], NULL), base), "%s", other[i]);
  for (size_t i = 0; i < G_N_ELEMENTS(same); i++)
    ck_assert_msg(same_key(key_of(same[i], NULL), base), "%s", same[i]);
}
END_TEST

/* The workspace is part of the key: its root, its fence and its patterns. */
START_TEST(continuation_key_workspace) {
  g_autofree char *a = g_dir_make_tmp("readerd-cont-XXXXXX", NULL);
  g_autofree char *b = g_dir_make_tmp("readerd-cont-XXXXXX", NULL);
  static const char *const env[] = {".env", NULL};
  Workspace *ws[5] = {NULL};
  ContentHash k[G_N_ELEMENTS(ws) + 1];

  ck_assert_int_eq(workspace_new(a, true, NULL, &ws[0], NULL), 0);
  ck_assert_int_eq(workspace_new(b, true, NULL, &ws[1], NULL), 0);
  ck_assert_int_eq(workspace_new(a, false, NULL, &ws[2], NULL), 0);
  ck_assert_int_eq(workspace_new(a, true, env, &ws[3], NULL), 0);
  ck_assert_int_eq(workspace_new(a, true, NULL, &ws[4], NULL), 0);
  for (size_t i = 0; i < G_N_ELEMENTS(ws); i++)
    k[i] = key_of("{" BASE "}", ws[i]);
  k[G_N_ELEMENTS(ws)] = key_of("{" BASE "}", NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(k); i++)
    for (size_t j = i + 1; j < G_N_ELEMENTS(k); j++)
      ck_assert_msg(same_key(k[i], k[j]) == (i == 0 && j == 4), "%zu %zu", i, j);
  for (size_t i = 0; i < G_N_ELEMENTS(ws); i++)
    workspace_unref(ws[i]);
  g_rmdir(a);
  g_rmdir(b);
}
END_TEST

static ContentHash key_n(uint64_t n) {
  g_autofree char *json = g_strdup_printf("{\"paths\":[\"k%" G_GUINT64_FORMAT "\"]}", n);

  return key_of(json, NULL);
}

/* Found by key and skip; the last remembered for both wins; past CONTINUATION_SLOTS others,
 * the least recently used (remembered or found) is gone first. */
START_TEST(continuation_slots) {
  ContentHash a = key_n(1), b = key_n(2);
  size_t path = 0, before = 0;

  continuation_remember(a, 5, 2, 3);
  continuation_remember(a, 9, 4, 8);
  continuation_remember(a, 5, 3, 4);
  ck_assert(continuation_find(a, 5, &path, &before));
  ck_assert_uint_eq(path, 3);
  ck_assert_uint_eq(before, 4);
  ck_assert(continuation_find(a, 9, &path, &before));
  ck_assert_uint_eq(path, 4);
  ck_assert_uint_eq(before, 8);
  ck_assert(!continuation_find(a, 6, &path, &before));
  ck_assert(!continuation_find(b, 5, &path, &before));

  /* The slots full: a@5 found again, a@9 is now the least recently used, and goes first. */
  for (uint64_t n = 0; n < CONTINUATION_SLOTS - 2; n++)
    continuation_remember(key_n(100 + n), 1, 0, 1);
  ck_assert(continuation_find(a, 5, &path, &before));
  continuation_remember(b, 1, 0, 1);
  ck_assert(!continuation_find(a, 9, &path, &before));
  ck_assert(continuation_find(a, 5, &path, &before));
  ck_assert(continuation_find(b, 1, &path, &before));
  for (uint64_t n = 0; n < CONTINUATION_SLOTS - 2; n++)
    ck_assert(continuation_find(key_n(100 + n), 1, &path, &before));
}
END_TEST

static Suite *continuation_suite(void) {
  Suite *s = suite_create("continuation");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, continuation_key_tells_expansions_apart);
  tcase_add_test(tc, continuation_key_workspace);
  tcase_add_test(tc, continuation_slots);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(continuation_suite());
}
