/* The fixture most integration tests share: a socket daemon in its own temporary folder and,
 * when the test wants one, a connection to it, both kept in the test's own statics so that its
 * cases use them directly. Call from the test's checked-fixture setup and teardown. */
#pragma once

#include "tests/lib/daemon.h"
#include "tests/lib/rpc-client.h"

/* Starts a daemon (rd_daemon_start) into *ret_dmn and, when ret_conn is not NULL, connects to
 * it into *ret_conn (rd_conn_new); fails the test when either cannot be done. */
void rd_fixture_setup(RdDaemon **ret_dmn, RdConn **ret_conn);

/* Undoes rd_fixture_setup(): frees the connection (conn may be NULL, *conn too), stops the
 * daemon when it still runs (rd_daemon_stop asserts a clean exit), frees it, and sets both
 * statics to NULL. */
void rd_fixture_teardown(RdDaemon **dmn, RdConn **conn);
