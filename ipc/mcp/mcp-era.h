/* The two eras of the Model Context Protocol that `readerd mcp` speaks (docs/mcp.md): the
 * revisions of the initialize handshake (2024-11-05 to 2025-11-25), and 2026-07-28, in which
 * every request names its revision and the client's capabilities in its _meta, server/discover
 * replaces initialize, and results say their resultType (list results also how long they may
 * be cached). Pure: JSON in, JSON text out. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <json-glib/json-glib.h>

/* The newest revision of the initialize era, answered to a client asking for one readerd does
 * not know; the revision of the stateless era. */
#define MCP_PROTOCOL_LATEST "2025-11-25"
#define MCP_PROTOCOL_MODERN "2026-07-28"

/* The error of a request naming a revision readerd does not speak (2026-07-28). */
#define MCP_UNSUPPORTED_PROTOCOL_VERSION (-32022)

/* The _meta keys of a 2026-07-28 request. */
#define MCP_META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CLIENT_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define MCP_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define MCP_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* What a request's params._meta says of its era. */
typedef struct {
  bool modern;         /* it names a revision of the stateless era (2026-07-28) */
  const char *version; /* the revision it names (static), or NULL */
  const char *asked;   /* the revision as the request spells it (points into params), or NULL */
  bool roots;          /* its clientCapabilities offer roots */
  const char *client;  /* clientInfo.name, or NULL (points into params) */
  int log_level;       /* the logLevel it asks for (mcp_log_level()), or -1 */
} McpRequestMeta;

/* Reads the _meta of a request's params (params may be NULL). Returns 0, or
 * MCP_UNSUPPORTED_PROTOCOL_VERSION when it names a revision readerd does not speak, or
 * -EINVAL when the revision is there but not a string; *ret is filled either way. */
int mcp_request_meta(JsonNode *params, McpRequestMeta *ret);

/* The revision of the initialize era to answer a client that asked for `requested` (may be
 * NULL): the same when readerd speaks it, else MCP_PROTOCOL_LATEST. Static. */
const char *mcp_protocol_version(const char *requested);

/* The data of a -32022 error: {supported: [...], requested}. g_free the result. */
char *mcp_unsupported_version_data(const char *requested);

/* The capabilities readerd offers, as a JSON builder's member value. */
void mcp_capabilities_build(JsonBuilder *b);

/* server/discover's result (2026-07-28): supportedVersions (both eras), capabilities,
 * instructions, serverInfo in _meta, resultType, ttlMs and cacheScope. g_free the result. */
char *mcp_discover_result_json(void);

/* How long a 2026-07-28 result may be cached, and by whom; NULL cache_scope: not a cacheable
 * result (no ttlMs nor cacheScope). */
typedef struct {
  long ttl_ms;
  const char *cache_scope; /* "public" or "private" */
} McpCache;

/* How long a list (tools, resource templates) may be cached: it does not change while the
 * server runs. */
#define MCP_LIST_TTL_MS 3600000L

/* result_json (a JSON object) with resultType "complete" and, for a cacheable result, ttlMs and
 * cacheScope added before its closing brace. g_free the result. */
char *mcp_result_modern(const char *result_json, const McpCache *cache);

/* What closes a result object of the 2026-07-28 era: `,"resultType":"complete"` and the cache
 * members (cache may be NULL). g_free the result. */
char *mcp_result_modern_members(const McpCache *cache);

/* initialize's result for revision `version`. g_free the result. */
char *mcp_initialize_result_json(const char *version);
