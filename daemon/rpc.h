/* readerd's own methods on a connection (docs/protocol.md): initialize, read, shutdown, exit
 * and $/cancelRequest, as JSON-RPC 2.0; its reads go through a ReadQueue (read-queue.h). Lives
 * on the loop thread. */
#pragma once

#include "daemon/conn.h"

/* The handler a connection speaking readerd's protocol is opened with. */
extern const ConnHandler rpc_handler;
