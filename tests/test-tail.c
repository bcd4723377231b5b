/* Finding a tail from the end of a file (daemon/readers/tail.c): the start and the true line
 * number of the last n lines against a naive count, in bytes and in UTF-16 and UTF-32 units,
 * counting through a mapping, and a file that is shorter than its reader believes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "daemon/readers/tail.h"
#include "tests/lib/files.h"
#include "tests/lib/process.h"

static char *tmpdir;

static void setup(void) {
  tmpdir = rd_tmpdir();
}

static void teardown(void) {
  rd_rmtree(tmpdir);
  g_clear_pointer(&tmpdir, g_free);
}

/* Writes data to a file and opens it. */
static int put_fd(const char *name, const void *data, size_t len) {
  g_autofree char *path = rd_write_file(tmpdir, name, data, len);
  int fd;

  fd = open(path, O_RDONLY | O_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  return fd;
}

/* The tail of the last n lines, the way the line engine counts lines, found forwards: the
 * offsets where lines start, in units of `unit` bytes holding the newline `nl`. */
static TailSpot naive(const uint8_t *p, size_t len, size_t begin, const TailNewline *nl,
                      int64_t n) {
  GArray *starts = g_array_new(FALSE, FALSE, sizeof(int64_t));
  int64_t s = (int64_t)begin, lines;
  size_t end = begin + (len - begin) / nl->unit * nl->unit;
  TailSpot spot;

  for (size_t i = begin; i < end; i += nl->unit) {
    bool is_nl = nl->unit == 1    ? p[i] == '\n'
                 : nl->big_endian ? p[i + nl->unit - 1] == '\n' && p[i] == 0
                                  : p[i] == '\n' && p[i + 1] == 0;

    if (nl->unit == 4 && is_nl)
      is_nl = nl->big_endian ? p[i + 1] == 0 && p[i + 2] == 0 : p[i + 2] == 0 && p[i + 3] == 0;
    if (is_nl && (i + nl->unit < end || end < len)) {
      g_array_append_val(starts, s);
      s = (int64_t)(i + nl->unit);
    }
  }
  g_array_append_val(starts, s);
  lines = (int64_t)starts->len;
  spot.first_line = MAX(lines - n + 1, 1);
  spot.start = g_array_index(starts, int64_t, spot.first_line - 1);
  g_array_free(starts, TRUE);
  return spot;
}

/* The ring, fed the text after begin in pieces of `step` bytes, keeps what the naive tail
 * finds: the same first line and the same bytes from there to the end. */
static void check_ring(const char *name, const uint8_t *p, size_t len, size_t begin,
                       const TailNewline *nl, int64_t n, size_t step) {
  TailSpot want = naive(p, len, begin, nl, n);
  TailRing ring;
  const uint8_t *kept;
  size_t kept_len;
  int64_t first_line;

  tail_ring_init(&ring, nl, n);
  for (size_t at = begin; at < len; at += step)
    tail_ring_feed(&ring, p + at, MIN(step, len - at));
  kept = tail_ring_lines(&ring, &kept_len, &first_line);
  ck_assert_msg(first_line == want.first_line && kept_len == len - (size_t)want.start,
                "%s, ring tail %" G_GINT64_FORMAT " in steps of %zu: line %" G_GINT64_FORMAT
                ", %zu bytes; expected line %" G_GINT64_FORMAT ", %zu bytes",
                name, n, step, first_line, kept_len, want.first_line, len - (size_t)want.start);
  ck_assert(memcmp(kept, p + want.start, kept_len) == 0);
  /* Memory holds the tail and a line or so, not the text. */
  if (len > ((size_t)2 << 20) && kept_len < len / 8)
    ck_assert_uint_lt(ring.cap, len / 2);
  tail_ring_clear(&ring);
}

static void check_tails(const char *name, const uint8_t *p, size_t len, size_t begin,
                        const TailNewline *nl) {
  int fd = put_fd(name, p, len);
  static const int64_t ns[] = {1, 2, 3, 7, 100, 1000, 100000};

  for (size_t i = 0; i < G_N_ELEMENTS(ns); i++) {
    TailSpot want = naive(p, len, begin, nl, ns[i]), got;

    ck_assert_int_eq(tail_locate(fd, (int64_t)begin, (int64_t)len, nl, ns[i], NULL, &got), 0);
    ck_assert_msg(got.start == want.start && got.first_line == want.first_line,
                  "%s, tail %" G_GINT64_FORMAT ": start %" G_GINT64_FORMAT " line %" G_GINT64_FORMAT
                  ", expected %" G_GINT64_FORMAT " line %" G_GINT64_FORMAT,
                  name, ns[i], got.start, got.first_line, want.start, want.first_line);
    check_ring(name, p, len, begin, nl, ns[i], 65536);
    if (len < 100000)
      check_ring(name, p, len, begin, nl, ns[i], 1);
    check_ring(name, p, len, begin, nl, ns[i], 7);
  }
  close(fd);
}

START_TEST(tail_small_files_in_bytes) {
  static const char *const files[] = {
      "", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "a\n\n", "\r\n\r\nx\r\n", "one\ntwo\nthree",
  };
  TailNewline nl = {.unit = 1};

  for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
    check_tails("small.txt", (const uint8_t *)files[i], strlen(files[i]), 0, &nl);
}
END_TEST

/* Lines of every length around the 64 KiB block the file is read backwards in, and a file of
 * more than 1 MiB so that the lines before the tail are counted through a mapping. */
START_TEST(tail_across_blocks_and_mapped) {
  GString *g = g_string_new(NULL);
  g_autofree char *long_line = g_strnfill(70000, 'L');
  TailNewline nl = {.unit = 1};

  for (int i = 0; g->len < 3 * 1024 * 1024; i++) {
    g_string_append_printf(g, "%d:", i);
    for (int k = 0; k < (i * 7919) % 300; k++)
      g_string_append_c(g, 'a' + k % 26);
    g_string_append_c(g, '\n');
    if (i % 1000 == 999)
      g_string_append(g, long_line); /* a line longer than a block */
  }
  check_tails("blocks.txt", (const uint8_t *)g->str, g->len, 0, &nl);
  g_string_append(g, "no newline at the end");
  check_tails("blocks2.txt", (const uint8_t *)g->str, g->len, 0, &nl);
  g_string_free(g, TRUE);
}
END_TEST

/* UTF-16 and UTF-32 in both byte orders, with a byte-order mark to skip, and characters whose
 * units hold a 0x0A byte that is not a newline (U+0A0A, U+010A). */
START_TEST(tail_wide_units) {
  static const char *const names[] = {"UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"};
  GString *g = g_string_new(NULL);

  for (int i = 0; g->len < 600 * 1024; i++)
    g_string_append_printf(g, "%d \u0a0a\u010a\U0001F600 line\n", i);
  for (size_t k = 0; k < G_N_ELEMENTS(names); k++) {
    TailNewline nl = {.unit = k < 2 ? 2 : 4, .big_endian = k % 2 == 1};
    gsize len = 0;
    g_autofree char *wide = g_convert(g->str, (gssize)g->len, names[k], "UTF-8", NULL, &len, NULL);
    g_autofree uint8_t *file = g_malloc(len + 4 + 1);

    ck_assert_ptr_nonnull(wide);
    memcpy(file, "BOM!", 4); /* what a byte-order mark takes: skipped, never looked at */
    memcpy(file + 4, wide, len);
    file[len + 4] = 0x0A; /* half a unit at the end is no newline */
    check_tails(names[k], file, len + 4, 4, &nl);
    check_tails(names[k], file, len + 5, 4, &nl);
  }
  g_string_free(g, TRUE);
}
END_TEST

/* The count through a mapping agrees with a naive count at every alignment. */
START_TEST(tail_count_mapped_matches_naive) {
  size_t len = 5 * 1024 * 1024 + 13;
  g_autofree uint8_t *p = g_malloc(len);
  TailNewline nl = {.unit = 1};
  int64_t want = 0, got;
  int fd;

  for (size_t i = 0; i < len; i++) {
    p[i] = (uint8_t)((i * 2654435761u) >> 13);
    if (p[i] == 0x8A || p[i] == 0x0B)
      p[i] = '\n'; /* and bytes one bit away from it stay what they are */
  }
  fd = put_fd("count.bin", p, len);
  for (size_t begin = 0; begin < 9; begin++) {
    want = 0;
    for (size_t i = begin; i < len - 5; i++)
      want += p[i] == '\n';
    ck_assert_int_eq(tail_count_newlines(fd, (int64_t)begin, (int64_t)len - 5, &nl, NULL, &got), 0);
    ck_assert_int_eq(got, want);
  }
  close(fd);
}
END_TEST

/* A file cut short after its size was taken: the mapping past its end faults, and the count
 * says so instead of the process dying. */
START_TEST(tail_file_shorter_than_believed) {
  size_t len = 2 * 1024 * 1024;
  g_autofree char *p = g_strnfill(len, '\n');
  TailNewline nl = {.unit = 1};
  TailSpot spot;
  int64_t got;
  int fd = put_fd("shrunk.txt", p, len);

  ck_assert_int_eq(tail_count_newlines(fd, 0, 64 * 1024 * 1024, &nl, NULL, &got), -ENODATA);
  ck_assert_int_eq(tail_locate(fd, 0, 8 * 1024 * 1024, &nl, 5, NULL, &spot), -ENODATA);
  /* And the same thread counts again afterwards. */
  ck_assert_int_eq(tail_count_newlines(fd, 0, (int64_t)len, &nl, NULL, &got), 0);
  ck_assert_int_eq(got, (int64_t)len);
  close(fd);
}
END_TEST

START_TEST(tail_cancelled) {
  g_autofree char *p = g_strnfill(4 * 1024 * 1024, 'x');
  TailNewline nl = {.unit = 1};
  atomic_bool cancelled = true;
  TailSpot spot;
  int fd = put_fd("cancel.txt", p, strlen(p));

  ck_assert_int_eq(tail_locate(fd, 0, (int64_t)strlen(p), &nl, 3, &cancelled, &spot), -ECANCELED);
  close(fd);
}
END_TEST

static Suite *tail_suite(void) {
  Suite *s = suite_create("tail");
  TCase *tc = tcase_create("core");

  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, tail_small_files_in_bytes);
  tcase_add_test(tc, tail_across_blocks_and_mapped);
  tcase_add_test(tc, tail_wide_units);
  tcase_add_test(tc, tail_count_mapped_matches_naive);
  tcase_add_test(tc, tail_file_shorter_than_believed);
  tcase_add_test(tc, tail_cancelled);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  rd_init();
  return rd_run_suite(tail_suite());
}
