/* MCP's logging: the levels of logging/setLevel (syslog's, RFC 5424) and the
 * notifications/message line that carries one message to the client. Pure. */
#pragma once

#include <stddef.h>

typedef enum {
  MCP_LOG_DEBUG,
  MCP_LOG_INFO,
  MCP_LOG_NOTICE,
  MCP_LOG_WARNING,
  MCP_LOG_ERROR,
  MCP_LOG_CRITICAL,
  MCP_LOG_ALERT,
  MCP_LOG_EMERGENCY,
} McpLogLevel;

/* The level called `name` ("debug" ... "emergency"), or -1. */
int mcp_log_level(const char *name);

/* The name of a level. Static. */
const char *mcp_log_level_name(McpLogLevel level);

/* A notifications/message line ('\n'-terminated) saying `text` at `level`, from logger
 * "readerd". g_free the result; its length in *ret_len. */
char *mcp_log_line(McpLogLevel level, const char *text, size_t *ret_len);
