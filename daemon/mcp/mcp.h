/* `readerd mcp`: the Model Context Protocol on a connection (docs/mcp.md), a ConnHandler beside
 * rpc.h. Its read_files tool reads through the same queue, scheduler, readers and formatters as
 * the `read` method. Lives on the loop thread. */
#pragma once

#include <stdbool.h>

#include "daemon/conn.h"

/* The handler a connection speaking MCP is opened with. */
extern const ConnHandler mcp_handler;

/* What the server is started with (the command line). Strings are copied. */
typedef struct {
  const char *const *roots;   /* --root: the fence; NULL: the client's roots, else the cwd */
  const char *const *exclude; /* --exclude patterns, added to the defaults */
  bool no_default_excludes;   /* --no-default-excludes */
} McpOptions;

/* Sets the options of the connections opened from now on. */
void mcp_configure(const McpOptions *opt);

/* Frees what mcp_configure() kept. */
void mcp_configure_clear(void);

/* Patterns of secrets never read unless --no-default-excludes, NULL-terminated. */
extern const char *const mcp_default_excludes[];
