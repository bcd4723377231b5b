/* The tools of `readerd mcp` that are not reads: workspace_info. */
#include <glib.h>

#include "daemon/mcp-internal.h"

void mcp_tool_workspace_info(Conn *c, JsonNode *id, JsonNode *params, size_t len) {
  Mcp *m = mcp_of(c);
  const char *source = mcp_config.roots != NULL ? "--root on readerd mcp's command line"
                       : m->fence_roots != NULL ? "the client's roots (roots/list)"
                                                : "the working directory readerd mcp started in";
  g_autofree char *text = mcp_workspace_info_text(workspace_real_roots(m->ws), source,
                                                  workspace_patterns(m->ws), m->fence_problem);
  g_autofree char *result = mcp_tool_text_json(text, false);

  mcp_reply(c, id, result, NULL);
}
