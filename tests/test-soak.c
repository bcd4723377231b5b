/* Soak test of the real daemon over its socket: many cycles of connect, read a few hundred Go
 * files, then cancel the read ($/cancelRequest) or hang up after a few milliseconds. The
 * daemon's resident memory, once idle, must stay near what it was after a warm-up, and the
 * daemon must still serve a read. Every cancelled or disconnected read used to leak what it had
 * formatted; this is how such a leak shows through the real binary.
 *
 * Then, after large reads, the idle daemon must give memory back.
 *
 * Bounded in cycles (SOAK_CYCLES) and time (SOAK_SECONDS). Alone:
 *   meson test -C build --suite soak -v */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "tests/lib/corpus.h"
#include "tests/lib/rd.h"
#include "tests/lib/sanitizer.h"

#define SOAK_CYCLES 200
#define SOAK_WARMUP 20    /* cycles before the reference RSS is taken */
#define SOAK_SECONDS 60   /* the cycles stop there, however many ran */
#define SOAK_FILES 300    /* Go files per read */
#define SOAK_SLACK_MIB 32 /* growth allowed over the warm reference (allocator caches, arenas) */


static char **go;
static size_t n_go;

/* Waits until the daemon's RSS settles (two samples 100 ms apart within 1 MiB, 3 s at most),
 * so that cancelled reads still winding down on its pool are not counted. Returns it in KiB. */
static int64_t idle_rss_kib(const RdDaemon *d) {
  int64_t prev = rd_daemon_rss_kib(d), cur = prev;

  for (int i = 0; i < 30; i++) {
    g_usleep(100000);
    cur = rd_daemon_rss_kib(d);
    if (llabs(cur - prev) < 1024)
      break;
    prev = cur;
  }
  return cur;
}

/* One cycle: connect, read SOAK_FILES Go files (one read, or two for every fourth cycle),
 * wait 1 to 8 ms, then cancel (even cycles: the answer is -32800, or the result when the read
 * was quicker) or hang up (odd cycles). Returns true when a read answered -32800. */
static bool soak_cycle(RdDaemon *d, int i) {
  RdConn *c = rd_conn_new(d->sock);
  size_t off = ((size_t)i * 97) % (n_go - SOAK_FILES);
  g_autofree char *paths = rd_json_paths((const char *const *)go + off, SOAK_FILES);
  g_autofree char *params = g_strdup_printf("{\"paths\":%s}", paths);
  g_autofree char *key = rd_conn_request(c, "read", params, "1");
  bool cancelled = false;

  /* Every fourth cycle has a second read in flight, never answered before the client goes. */
  if (i % 4 == 3)
    g_free(rd_conn_request(c, "read", params, "2"));

  g_usleep((gulong)(1 + i % 8) * 1000);
  if (i % 2 == 0) {
    g_autoptr(JsonNode) msg = NULL;
    int code;

    rd_conn_notify(c, "$/cancelRequest", "{\"id\":1}");
    msg = rd_conn_wait(c, key, RD_TIMEOUT_MS);
    code = rd_error_code(msg);
    ck_assert_msg(code == 0 || code == -32800, "cycle %d: the cancelled read answered %d", i, code);
    cancelled = code == -32800;
  }
  rd_conn_free(c);
  return cancelled;
}

START_TEST(soak_cancel_and_disconnect) {
  RdDaemon *d = rd_daemon_start();
  gint64 until = g_get_monotonic_time() + (gint64)SOAK_SECONDS * G_USEC_PER_SEC;
  int64_t start_kib = idle_rss_kib(d), warm_kib = 0, end_kib;
  int cycles = 0, cancelled = 0;
  RdConn *c;
  RdResult *r;

  for (; cycles < SOAK_CYCLES; cycles++) {
    if (cycles == SOAK_WARMUP)
      warm_kib = idle_rss_kib(d);
    if (cycles > SOAK_WARMUP && g_get_monotonic_time() > until)
      break;
    cancelled += soak_cycle(d, cycles);
    ck_assert_msg(rd_daemon_alive(d), "the daemon died in cycle %d", cycles);
  }
  ck_assert_int_gt(cycles, SOAK_WARMUP);
  end_kib = idle_rss_kib(d);
  printf("soak: %d cycles (%d reads answered -32800); RSS at start %" G_GINT64_FORMAT
         " KiB, after %d cycles %" G_GINT64_FORMAT " KiB, at the end %" G_GINT64_FORMAT " KiB\n",
         cycles, cancelled, start_kib, SOAK_WARMUP, warm_kib, end_kib);
  /* The cycles did cancel reads mid-way, not only after they finished. */
  ck_assert_int_gt(cancelled, 0);
#ifdef RD_RSS_UNRELIABLE
  /* A sanitizer's allocator keeps memory resident: RSS says nothing here. A leak is
   * LeakSanitizer's to report when the daemon exits (rd_daemon_stop wants status 0). */
  printf("soak: sanitizer build: RSS not compared\n");
#else
  ck_assert_msg(end_kib <= warm_kib + SOAK_SLACK_MIB * 1024,
                "the idle daemon grew from %" G_GINT64_FORMAT
                " KiB after %d cycles to %" G_GINT64_FORMAT
                " KiB after %d (more than %d MiB): memory is leaking",
                warm_kib, SOAK_WARMUP, end_kib, cycles, SOAK_SLACK_MIB);
#endif
  /* It still serves a read. */
  c = rd_conn_new(d->sock);
  r = rd_read_paths(c, (const char *const *)go, 3, NULL);
  for (guint i = 0; i < 3; i++) {
    ck_assert_str_eq(rd_file_str(r, i, "path"), go[i]);
    ck_assert_msg(rd_file_str(r, i, "code") == NULL, "%s: %s", go[i], rd_file_str(r, i, "error"));
  }
  rd_result_free(r);
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

/* After large reads, the allocator keeps what the answers took; once the daemon has been idle
 * for a few seconds it gives it back (server.c, malloc_trim), so a daemon left alone does not
 * sit on the memory of its largest read. */
START_TEST(soak_memory_given_back_when_idle) {
  RdDaemon *d = rd_daemon_start();
  RdConn *c = rd_conn_new(d->sock);
  size_t n = MIN(n_go, (size_t)2000);
  int64_t start_kib = idle_rss_kib(d), busy_kib, idle_kib = 0;

  for (int i = 0; i < 6; i++)
    rd_result_free(rd_read_paths(c, (const char *const *)go, n, NULL));
  busy_kib = rd_daemon_rss_kib(d);
  /* The server looks every 2 s and gives memory back after a whole idle period. */
  for (int i = 0; i < 80; i++) {
    g_usleep(100000);
    idle_kib = rd_daemon_rss_kib(d);
    if (idle_kib <= busy_kib - (busy_kib - start_kib) / 4)
      break;
  }
  printf("soak: RSS at start %" G_GINT64_FORMAT " KiB, after 6 reads of %zu files %" G_GINT64_FORMAT
         " KiB, idle %" G_GINT64_FORMAT " KiB\n",
         start_kib, n, busy_kib, idle_kib);
#ifdef RD_RSS_UNRELIABLE
  printf("soak: sanitizer build: RSS not compared\n");
#else
  ck_assert_msg(idle_kib <= busy_kib - (busy_kib - start_kib) / 4,
                "the idle daemon kept %" G_GINT64_FORMAT " KiB of the %" G_GINT64_FORMAT
                " KiB the reads took",
                idle_kib - start_kib, busy_kib - start_kib);
#endif
  rd_conn_free(c);
  rd_daemon_stop(d);
  rd_daemon_free(d);
}
END_TEST

static Suite *soak_suite(void) {
  Suite *s = suite_create("soak");
  TCase *tc = tcase_create("core");

  tcase_add_test(tc, soak_cancel_and_disconnect);
  tcase_add_test(tc, soak_memory_given_back_when_idle);
  tcase_set_timeout(tc, SOAK_SECONDS + 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  int status;

  rd_init();
  if (!corpus_go_present()) {
    rd_finish(0);
    return 77;
  }
  go = corpus_go_files(G_MAXSIZE, &n_go);
  if (n_go < 2 * SOAK_FILES) {
    printf("SKIP: only %zu Go files under %s; the soak test reads %d at a time\n", n_go,
           CORPUS_GO_SRC, SOAK_FILES);
    g_strfreev(go);
    rd_finish(0);
    return 77;
  }
  status = rd_run_suite(soak_suite());
  g_strfreev(go);
  return status;
}
