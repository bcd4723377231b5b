/* The test vision server's lifecycle: see vision-server.h. */
#include "tests/lib/vision-server.h"

#include <signal.h>
#include <stdlib.h>

#include <check.h>

#include "tests/lib/process.h"

void rd_vision_server_start(GPid *ret_pid, char **ret_rec, char **ret_base) {
  const char *root = getenv("READERD_SOURCE_ROOT");
  g_autofree char *script =
      g_build_filename(root != NULL ? root : ".", "tests", "vision-server.py", NULL);
  g_autofree char *port_file = NULL;
  const char *argv[] = {"/usr/bin/env", "python3", script, NULL, NULL};
  static const char *const proxies[] = {"http_proxy",  "HTTP_PROXY", "https_proxy",
                                        "HTTPS_PROXY", "all_proxy",  "ALL_PROXY"};
  char *port = NULL;

  *ret_rec = rd_tmpdir();
  argv[3] = *ret_rec;
  *ret_pid = rd_spawn(*ret_rec, argv, -1, -1, -1);
  port_file = g_build_filename(*ret_rec, "port", NULL);
  for (int i = 0; i < 200 && !g_file_get_contents(port_file, &port, NULL, NULL); i++)
    g_usleep(50 * 1000);
  ck_assert_msg(port != NULL, "the test server did not start");
  *ret_base = g_strdup_printf("http://127.0.0.1:%s", port);
  g_free(port);
  /* The test's proxies must not take 127.0.0.1's requests. */
  for (size_t i = 0; i < G_N_ELEMENTS(proxies); i++)
    unsetenv(proxies[i]);
}

void rd_vision_server_stop(GPid *pid, char **rec, char **base) {
  if (*pid > 0) {
    kill(*pid, SIGKILL);
    rd_wait_pid(*pid, 5000, NULL);
    *pid = 0;
  }
  rd_rmtree(*rec);
  g_clear_pointer(rec, g_free);
  g_clear_pointer(base, g_free);
}
