/* The integration tests' client library, in one include: starts the real readerd binary (env
 * READERD) in a temporary folder, talks line-delimited JSON-RPC to it over its socket or its
 * stdin/stdout, and checks what comes back (every result.xml is validated against the RELAX NG
 * schema named by env READERD_SCHEMA).
 *
 * Every wait has a deadline; a helper that cannot do its job fails the current check test
 * with a message saying why. Daemons still running when a test process exits are killed and
 * their folders removed. Each piece has its own header: */
#pragma once

#include "tests/lib/process.h"       /* rd_init, rd_finish, temporary folders, spawn, rd_run */
#include "tests/lib/daemon.h"        /* RdDaemon: the socket daemon's lifecycle */
#include "tests/lib/fixture.h"       /* a daemon and a connection per test case */
#include "tests/lib/rpc-client.h"    /* RdConn: connections, JSON-RPC messages, ids */
#include "tests/lib/json-text.h"     /* JSON quoting and parsing */
#include "tests/lib/results.h"       /* RdResult: read results, files, images, Content */
#include "tests/lib/xml-check.h"     /* result.xml against docs/read-results.rng */
#include "tests/lib/files.h"         /* test files, lines, mtimes, ISO times */
#include "tests/lib/images.h"        /* image sizes, PNG and WebP writers */
#include "tests/lib/zip.h"           /* zip archives: office documents, bombs, floods */
#include "tests/lib/stdio-mode.h"    /* RdStdio: readerd serve --stdio */
#include "tests/lib/vision-server.h" /* tests/vision-server.py on 127.0.0.1 */
