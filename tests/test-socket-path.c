/* Where `readerd serve` may listen: socket_path_check on real folders. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/socket-path.h"
#include "tests/lib/check-run.h"

static char *base;

static void setup(void) {
  base = g_build_filename(g_get_tmp_dir(), "test-socket-path-XXXXXX", NULL);
  ck_assert_ptr_nonnull(g_mkdtemp(base));
}

static void teardown(void) {
  g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", base);

  ck_assert_int_eq(system(cmd), 0);
  g_free(base);
  base = NULL;
}

/* Checks path; returns the error message (g_malloc'd) or NULL when it is accepted. */
static char *check(const char *path, int *ret_r) {
  char *err = NULL;
  int r = socket_path_check(path, &err);

  ck_assert_int_eq(r == 0, err == NULL);
  ck_assert_int_le(r, 0);
  if (ret_r != NULL)
    *ret_r = r;
  return err;
}

static void assert_refused(const char *path, int want_r, const char *want_text) {
  int r;
  g_autofree char *err = check(path, &r);

  ck_assert_msg(err != NULL, "%s was accepted", path != NULL ? path : "(null)");
  ck_assert_int_eq(r, want_r);
  ck_assert_msg(strstr(err, want_text) != NULL, "'%s' does not say '%s'", err, want_text);
}

START_TEST(socket_path_own_folder_accepted) {
  g_autofree char *sock = g_build_filename(base, "s.sock", NULL);
  g_autofree char *sub = g_build_filename(base, "run", NULL);
  g_autofree char *sub_sock = g_build_filename(sub, "readerd.sock", NULL);

  ck_assert_ptr_null(check(sock, NULL));
  /* 0755 is fine: others may look, not write. */
  ck_assert_int_eq(mkdir(sub, 0755), 0);
  ck_assert_int_eq(chmod(sub, 0755), 0);
  ck_assert_ptr_null(check(sub_sock, NULL));
}
END_TEST

START_TEST(socket_path_empty_and_abstract_refused) {
  assert_refused(NULL, -EINVAL, "empty");
  assert_refused("", -EINVAL, "abstract");
  assert_refused("@readerd", -EINVAL, "abstract");
  assert_refused("@", -EINVAL, "abstract");
}
END_TEST

START_TEST(socket_path_missing_folder_named) {
  g_autofree char *dir = g_build_filename(base, "no", "such", NULL);
  g_autofree char *sock = g_build_filename(dir, "s.sock", NULL);
  g_autofree char *want = g_strdup_printf("no such folder: %s", dir);
  g_autofree char *file = g_build_filename(base, "file", NULL);
  g_autofree char *under_file = g_build_filename(file, "s.sock", NULL);

  assert_refused(sock, -ENOENT, want);
  ck_assert(g_file_set_contents(file, "x", 1, NULL));
  assert_refused(under_file, -ENOTDIR, "is not a folder");
}
END_TEST

START_TEST(socket_path_symlinked_folder_refused) {
  g_autofree char *real = g_build_filename(base, "real", NULL);
  g_autofree char *link = g_build_filename(base, "link", NULL);
  g_autofree char *sock = g_build_filename(link, "s.sock", NULL);

  ck_assert_int_eq(mkdir(real, 0700), 0);
  ck_assert_int_eq(symlink(real, link), 0);
  assert_refused(sock, -ELOOP, "symlink");
}
END_TEST

START_TEST(socket_path_writable_folder_refused) {
  static const mode_t modes[] = {0770, 0707, 0722, 01777};
  g_autofree char *dir = g_build_filename(base, "shared", NULL);
  g_autofree char *sock = g_build_filename(dir, "s.sock", NULL);

  ck_assert_int_eq(mkdir(dir, 0700), 0);
  for (size_t i = 0; i < G_N_ELEMENTS(modes); i++) {
    ck_assert_int_eq(chmod(dir, modes[i]), 0);
    assert_refused(sock, -EPERM, "writable by others");
  }
  ck_assert_int_eq(chmod(dir, 0700), 0);
  ck_assert_ptr_null(check(sock, NULL));
}
END_TEST

START_TEST(socket_path_others_folder_refused) {
  g_autofree char *dir = g_build_filename(base, "theirs", NULL);
  g_autofree char *sock = g_build_filename(dir, "s.sock", NULL);

  if (geteuid() != 0) {
    /* "/" is root's. */
    assert_refused("/s.sock", -EPERM, "belongs to uid 0");
    return;
  }
  /* As root, a folder given to nobody (65534), private as it is, is someone else's. */
  ck_assert_int_eq(mkdir(dir, 0700), 0);
  ck_assert_int_eq(chown(dir, 65534, 65534), 0);
  assert_refused(sock, -EPERM, "belongs to uid 65534");
  ck_assert_int_eq(chown(dir, 0, 0), 0);
  ck_assert_ptr_null(check(sock, NULL));
}
END_TEST

START_TEST(socket_path_too_long_refused) {
  GString *p = g_string_new(base);

  while (p->len < 120)
    g_string_append(p, "/abcdefghij");
  g_string_append(p, "/s.sock");
  assert_refused(p->str, -ENAMETOOLONG, "longer than 107 bytes");
  g_string_free(p, TRUE);
}
END_TEST

START_TEST(socket_path_relative_uses_working_folder) {
  g_autofree char *old = g_get_current_dir();
  g_autofree char *shared = g_build_filename(base, "shared", NULL);

  ck_assert_int_eq(chdir(base), 0);
  ck_assert_ptr_null(check("s.sock", NULL));
  ck_assert_int_eq(mkdir(shared, 0777), 0);
  ck_assert_int_eq(chmod(shared, 0777), 0);
  ck_assert_int_eq(chdir(shared), 0);
  assert_refused("s.sock", -EPERM, "the folder . is writable by others");
  ck_assert_int_eq(chdir(old), 0);
}
END_TEST

static Suite *socket_path_suite(void) {
  Suite *s = suite_create("socket-path");
  TCase *tc = tcase_create("check");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, socket_path_own_folder_accepted);
  tcase_add_test(tc, socket_path_empty_and_abstract_refused);
  tcase_add_test(tc, socket_path_missing_folder_named);
  tcase_add_test(tc, socket_path_symlinked_folder_refused);
  tcase_add_test(tc, socket_path_writable_folder_refused);
  tcase_add_test(tc, socket_path_others_folder_refused);
  tcase_add_test(tc, socket_path_too_long_refused);
  tcase_add_test(tc, socket_path_relative_uses_working_folder);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return check_run(socket_path_suite()) == 0 ? 0 : 1;
}
