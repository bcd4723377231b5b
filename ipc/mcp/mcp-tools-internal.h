/* What the table of MCP tools (mcp-tools.c) takes from the file that writes each tool's words
 * and input schema (mcp-tool-schemas.c). Pure. */
#pragma once

#include <json-glib/json-glib.h>

/* What the model reads about each tool. */
extern const char mcp_read_files_description[];
extern const char mcp_list_files_description[];
extern const char mcp_workspace_info_description[];
extern const char mcp_read_images_description[];

/* Each tool's input schema properties, as members of the `properties` object being built. */
void mcp_read_files_properties(JsonBuilder *b);
void mcp_list_files_properties(JsonBuilder *b);
void mcp_workspace_info_properties(JsonBuilder *b);
void mcp_read_images_properties(JsonBuilder *b);
