/* `readerd mcp`'s logging (docs/mcp.md, "Logging"): logging/setLevel, and what the server
 * warns about said to the client as notifications/message as well as on stderr. */
#include <stddef.h>
#include <string.h>

#include <glib.h>

#include "daemon/log.h"
#include "daemon/mcp/mcp-internal.h"

void mcp_log(Conn *c, McpLogLevel level, const char *text) {
  mcp_log_for(c, mcp_of(c)->log_level, level, text);
}

void mcp_log_for(Conn *c, int threshold, McpLogLevel level, const char *text) {
  size_t len;
  char *line;

  if (level >= MCP_LOG_ERROR)
    log_error("mcp: %s", text);
  else
    log_warning("mcp: %s", text);
  if (threshold < 0 || (int)level < threshold)
    return;
  line = mcp_log_line(level, text, &len);
  conn_send_line(c, line, len);
}

/* The error attribute of a refusal by an exclude pattern, found at its '=' in the element's
 * attributes [s, end): a few attributes, each with one '=' outside its quoted value (an '='
 * inside one is found too, and fails the comparison). Cheaper than memmem, which prepares a
 * table for every call, on thousands of short start tags. */
static const char *find_excluded(const char *s, const char *end) {
  static const char name[] = " error", value[] = "='excluded by the workspace";
  const size_t name_len = sizeof name - 1, value_len = sizeof value - 1;

  for (const char *q = s; q < end && (q = memchr(q, '=', (size_t)(end - q))) != NULL; q++)
    if (q - s >= (ptrdiff_t)name_len && (size_t)(end - q) >= value_len &&
        memcmp(q - name_len, name, name_len) == 0 && memcmp(q, value, value_len) == 0)
      return q - name_len + 1;
  return NULL;
}

/* Files refused by an exclude pattern are said to the client too (at warning), with the first
 * one's path: the model sees ACCESS_DENIED, the person at the client why. Only a read with
 * failed files is looked through. */
void mcp_log_excluded(Conn *c, int threshold, GString **pieces, size_t n) {
  g_autofree char *first = NULL, *text = NULL, *patterns = NULL;
  size_t count = 0;

  /* memchr, not g_strstr_len (a byte at a time): on the loop, this looks at every piece of
   * a read in which any file failed, and a read past the answer's cap always has one. A
   * piece starts with its element, after the JSON that holds it. */
  for (size_t i = 0; i < n; i++) {
    const char *s = pieces[i]->str, *end = s + pieces[i]->len, *open = s;
    const char *close, *hit, *p, *e;

    while ((open = memchr(open, '<', (size_t)(end - open))) != NULL &&
           ((size_t)(end - open) < 9 || memcmp(open, "<Content ", 9) != 0))
      open++;
    close = open != NULL ? memchr(open, '>', (size_t)(end - open)) : NULL;
    /* Only the element's attributes count, never a file's content that quotes them. */
    if (close == NULL || (hit = find_excluded(open, close)) == NULL)
      continue;
    if (count++ == 0 && (p = g_strstr_len(open, hit - open, "path='")) != NULL &&
        (e = memchr(p + 6, '\'', (size_t)(close - p - 6))) != NULL)
      first = g_strndup(p + 6, (gsize)(e - p - 6));
  }
  if (count == 0)
    return;
  patterns = g_strjoinv(" ", mcp_config.exclude != NULL ? mcp_config.exclude : (char *[]){NULL});
  text = g_strdup_printf("%zu file%s refused by the exclude patterns (%s)%s%s", count,
                         count == 1 ? "" : "s", patterns, first != NULL ? ", first " : "",
                         first != NULL ? first : "");
  mcp_log_for(c, threshold, MCP_LOG_WARNING, text);
}

/* logging/setLevel: notifications/message at that level and above from now on. */
void mcp_logging_set_level(Conn *c, const JsonrpcMessage *msg, size_t len) {
  JsonObject *p = mcp_params(msg);
  const char *name =
      p != NULL && json_object_has_member(p, "level") &&
              JSON_NODE_HOLDS_VALUE(json_object_get_member(p, "level")) &&
              json_node_get_value_type(json_object_get_member(p, "level")) == G_TYPE_STRING
          ? json_object_get_string_member(p, "level")
          : NULL;
  int level = mcp_log_level(name);

  if (level < 0) {
    reply_error(c, msg->id, JSONRPC_INVALID_PARAMS,
                "level must be one of debug, info, notice, warning, error, critical, alert, "
                "emergency");
    return;
  }
  mcp_of(c)->log_level = level;
  mcp_reply(c, msg->id, "{}", NULL);
}
