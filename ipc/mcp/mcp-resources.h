/* MCP resources of `readerd mcp` (docs/mcp.md, "Resources"): the file:///{+path} template,
 * the roots as resources, resources/read's contents made from a read's content blocks, and the
 * ranking of completion/complete. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "ipc/read-params.h"

#define MCP_RESOURCE_TEMPLATE "file:///{+path}"
#define MCP_COMPLETION_MAX 100

/* resources/templates/list's result. g_free the result. */
char *mcp_resource_templates_json(void);

/* resources/list's result: each root (NULL-terminated, may be NULL) as a folder resource
 * file:///ROOT/. g_free the result. */
char *mcp_resource_roots_json(const char *const *roots);

/* The absolute path a file:// URI names, or NULL (not a local file URI). g_free the result.
 * *ret_folder is set when the URI ends with '/'. */
char *mcp_resource_path(const char *uri, bool *ret_folder);

/* Rewrites in place a piece of read_files' content blocks ({"type":"text","text":...},
 * {"type":"image","data":...,"mimeType":...}) into resource contents of `uri`
 * ({"uri":...,"mimeType":"text/plain","text":...}, {"uri":...,"blob":...,"mimeType":...}). */
void mcp_resource_contents(GString *piece, const char *uri);

/* completion/complete's result for `value` among `paths` (absolute, sorted; root-relative
 * matches rank first): at most MCP_COMPLETION_MAX values, each a path as the template's {+path}
 * takes it (without its leading '/'), with total and hasMore. roots resolve relative values.
 * g_free the result. */
char *mcp_completion_json(const char *const *roots, GPtrArray *paths, const char *value);

/* resources/read's params ({uri}) as the read that answers them: a file read as read_files
 * reads it (default_budget tokens), a folder (a URI ending with '/') listed as a plan of its
 * files. *ret_uri (borrowed from params) is the URI. Returns 0, or -EINVAL with *ret_error
 * (g_malloc'd) when params name no local file:// URI; *ret (read_params_init'ed) is then
 * cleared. */
int mcp_resource_read_parse(JsonNode *params, int64_t default_budget, ReadParams *ret,
                            const char **ret_uri, char **ret_error);

/* completion/complete's params: true when they ask for values of the template's path
 * argument, with *ret_value (borrowed; "" when absent) the text typed so far. Anything else
 * (prompts, other arguments) has no values to offer. */
bool mcp_completion_parse(JsonNode *params, const char **ret_value);
