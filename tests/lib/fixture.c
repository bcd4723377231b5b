/* The shared daemon fixture: see fixture.h. */
#include "tests/lib/fixture.h"

#include <stddef.h>

void rd_fixture_setup(RdDaemon **ret_dmn, RdConn **ret_conn) {
  *ret_dmn = rd_daemon_start();
  if (ret_conn != NULL)
    *ret_conn = rd_conn_new((*ret_dmn)->sock);
}

void rd_fixture_teardown(RdDaemon **dmn, RdConn **conn) {
  if (conn != NULL) {
    rd_conn_free(*conn);
    *conn = NULL;
  }
  if (*dmn != NULL && (*dmn)->running)
    rd_daemon_stop(*dmn);
  rd_daemon_free(*dmn);
  *dmn = NULL;
}
