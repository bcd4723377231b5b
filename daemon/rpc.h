/* readerd's own methods on a connection (docs/protocol.md): initialize, read, shutdown, exit
 * and $/cancelRequest, as JSON-RPC 2.0. The reads of a connection: how many run at once,
 * which wait, parsed, and when they start. Lives on the loop thread. */
#pragma once

#include "daemon/conn.h"

/* The handler a connection speaking readerd's protocol is opened with. */
extern const ConnHandler rpc_handler;

/* Reads of one connection running at once, and waiting (or their messages' bytes) before the
 * connection stops reading; docs/protocol.md, "Memory per connection", gives the bound. */
#define RPC_MAX_RUNNING 4
#define RPC_MAX_WAITING 64
#define RPC_MAX_WAITING_COST ((size_t)16 * 1024 * 1024)
/* What a waiting read's parsed params cost beyond its message text, per path. */
#define RPC_PATH_COST 128
