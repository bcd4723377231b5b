/* The Model Context Protocol's messages that `readerd mcp` answers (docs/mcp.md): the tools and
 * their arguments (mcp-tools.c: the table of tools; mcp-tool-schemas.c, mcp.c, mcp-args.c,
 * mcp-list-files.c), tool results, roots and progress; the eras
 * are in mcp-era.h, logging in mcp-log.h, resources in mcp-resources.h. Pure: JSON in, JSON
 * text out; the connection side is daemon/mcp*.c. */
#pragma once

#include <stddef.h>

#include <json-glib/json-glib.h>

#include "ipc/mcp/mcp-era.h"
#include "ipc/mcp/mcp-log.h"
#include "ipc/read-images-params.h"
#include "ipc/read-params.h"

/* One tool result's content at most, and the pictures' base64 when the call does not say: MCP
 * clients read a message whole (the TypeScript SDK refuses lines over 10 MiB). */
#define MCP_MAX_ANSWER_BYTES ((size_t)8 * 1024 * 1024)
#define MCP_DEFAULT_MAX_IMAGE_BYTES ((int64_t)8 * 1024 * 1024)
#define MCP_TOOL_READ_FILES "read_files"
#define MCP_TOOL_READ_IMAGES "read_images"
#define MCP_TOOL_LIST_FILES "list_files"
#define MCP_TOOL_WORKSPACE_INFO "workspace_info"

/* The token budget of a read_files call that names none: what the client takes of one tool
 * result (Claude Code: MAX_MCP_OUTPUT_TOKENS, 25,000 by default; docs/mcp.md). */
#define MCP_DEFAULT_BUDGET_TOKENS 25000

/* Characters of a tool result Claude Code keeps inline; past them it saves the result to a
 * file and shows a preview, unless the result's _meta["anthropic/maxResultSizeChars"] allows
 * more, up to MCP_MAX_RESULT_SIZE_CHARS. */
#define MCP_INLINE_RESULT_CHARS 50000
#define MCP_MAX_RESULT_SIZE_CHARS 500000

/* The default budget for a client, by initialize's clientInfo.name (NULL: unknown). */
int64_t mcp_client_budget(const char *client_name);

/* What closes a read's result whose content is `chars` characters long: its _meta asks for
 * them inline when they are more than MCP_INLINE_RESULT_CHARS; in the 2026-07-28 era (modern)
 * it says its resultType. g_free the result. */
char *mcp_read_result_tail(size_t chars, bool modern, size_t *ret_len);

/* The tools, in the order tools/list lists them (the table in ipc/mcp/mcp-tools.c). */
typedef enum {
  MCP_TOOL_ID_READ_FILES,
  MCP_TOOL_ID_LIST_FILES,
  MCP_TOOL_ID_WORKSPACE_INFO,
  MCP_TOOL_ID_READ_IMAGES, /* only with a vision model (docs/vision.md) */
  MCP_TOOL_COUNT,
} McpToolId;

/* tools/list's result: each tool with its JSON Schema, built from the table of tools, read_images
 * too for a server with a vision model configured. Static text. */
const char *mcp_tools_list_json(bool vision);

/* A tools/call, parsed. */
typedef struct {
  McpToolId tool;
  JsonNode *progress_token; /* params._meta.progressToken, borrowed from params; NULL: none */
  ReadParams read;          /* read_files and list_files: the read (a plan for list_files) */
  ReadImagesParams images;  /* read_images */
} McpToolCall;

/* Parses tools/call's params (name, arguments, _meta) into *ret: which tool, and its arguments
 * as the params of what it runs (read_files' with default_budget tokens when the call names
 * none). The arguments are params' member, or, when arguments_text is not NULL, that text
 * (JSONRPC_PARSE_CALL_TEXT's msg->arguments_text: strict JSON without a noted value, in place of
 * the member; read_files takes its paths straight from it). read_images is a tool only when
 * `vision` is set. Returns 0; -ENOENT when params name no tool (the protocol's error), or
 * -EINVAL when the tool's arguments are wrong (the tool's error, ret->tool set), each with
 * *ret_error (g_malloc'd). mcp_tool_call_clear() releases *ret whatever the outcome. */
int mcp_tool_call_parse(JsonNode *params, const char *arguments_text, size_t arguments_len,
                        bool vision, int64_t default_budget, McpToolCall *ret, char **ret_error);

/* Releases what a parsed call owns; NULL is fine. */
void mcp_tool_call_clear(McpToolCall *call);

/* list_files' arguments (path or paths, ignored, maxFiles, budget) into the params of a plan:
 * read_files' with plan: true. Returns 0, or -EINVAL with *ret_error (g_malloc'd). */
int mcp_list_args_parse(JsonNode *arguments, int64_t default_budget, ReadParams *ret,
                        char **ret_error);

/* workspace_info takes no argument: 0, or -EINVAL with *ret_error for any. */
int mcp_workspace_info_args_check(JsonNode *arguments, char **ret_error);

/* What workspace_info answers: the folders that may be read (roots, NULL-terminated, may be
 * NULL or empty), where they come from (`source`), the exclude patterns (may be NULL) and why
 * no file can be read (problem, may be NULL). g_free the result. */
char *mcp_workspace_info_text(const char *const *roots, const char *source,
                              const char *const *excludes, const char *problem);

/* Validates read_images' arguments (an object with paths and query; also detail, pages, model,
 * maxTokens, nothing else: never an endpoint or a key) into *ret. Returns 0, or -EINVAL with
 * *ret_error (g_malloc'd); *ret is then cleared. */
int mcp_read_images_args_parse(JsonNode *arguments, ReadImagesParams *ret, char **ret_error);

/* A tool result holding text, with isError as given. g_free the result. */
char *mcp_tool_text_json(const char *text, bool is_error);

/* read_files' arguments as models send them, read as what they mean: one `path` or
 * `file_path` as paths: [it], offset: 0 as 1, pages: "" as no selection, start_line/end_line as
 * offset/limit (in the call and in each paths[] object). *ret is a new node (json_node_unref),
 * or NULL when arguments is not an object. Returns 0, or -EINVAL with *ret_error (g_malloc'd)
 * when they contradict each other (path and paths, start_line and offset, ...). */
int mcp_args_tolerate(JsonNode *arguments, JsonNode **ret, char **ret_error);

/* Validates read_files' arguments (an object; NULL is invalid: paths is required; tolerated
 * as mcp_args_tolerate() says) into read params in the mcp format; a call without `budget` gets
 * default_budget tokens (0: none). Returns 0, or -EINVAL with *ret_error (g_malloc'd) naming the
 * argument; *ret (read_params_init'ed) is then cleared. */
int mcp_read_args_parse(JsonNode *arguments, int64_t default_budget, ReadParams *ret,
                        char **ret_error);

/* mcp_read_args_parse() of the arguments given as JSON text (strict JSON without a noted
 * value, as mcp_tool_call_parse() takes it): the same results and errors, with a `paths` array
 * of strings read from the text without building a tree of it (mcp-args-text.c). */
int mcp_read_args_parse_json(const char *text, size_t len, int64_t default_budget, ReadParams *ret,
                             char **ret_error);

/* A tool result saying `message` with isError true (bad arguments). g_free the result. */
char *mcp_tool_error_json(const char *message);

/* What goes before a read's content blocks in a tools/call answer, after the JSON-RPC
 * envelope's head, and what closes it (with the envelope's tail). */
#define MCP_READ_RESULT_HEAD "{\"content\":"
#define MCP_READ_RESULT_TAIL ",\"isError\":false}}\n"

/* The folders of a roots/list result ({roots: [{uri: "file:///..."}]}), each root taken on its
 * own: *ret_paths gets the usable ones, a NULL-terminated array (g_strfreev), maybe empty; a
 * root that is not a local file:// URI (another scheme, another host, no uri, an escaped NUL)
 * is left out, and *ret_skipped (may be NULL; g_strfreev) gets a line saying so for each.
 * Returns 0, or -EINVAL with *ret_error when the result has no roots array. */
int mcp_roots_parse(JsonNode *result, char ***ret_paths, char ***ret_skipped, char **ret_error);

/* A notifications/progress line ('\n'-terminated) for token (a string or number node).
 * g_free the result; its length in *ret_len. */
char *mcp_progress_line(JsonNode *token, size_t done, size_t total, size_t *ret_len);

/* A request line ('\n'-terminated) from the server: id (a string), method, no params. */
char *mcp_request_line(const char *id, const char *method, size_t *ret_len);
