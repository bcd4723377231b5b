/* The MCP tools' descriptions and input schemas, written with the JSON Schema writers of
 * json-schema.h; the table in mcp-tools.c puts each in its tool's entry of tools/list. */
#include "ipc/mcp/json-schema.h"
#include "ipc/mcp/mcp-tools-internal.h"

#define NO SCHEMA_NO_LIMIT

/* What the model reads about the tool: what it reads, how each file comes back, the limits
 * and how to go on past them; under 2 KB, where Claude Code cuts a description. */
const char mcp_read_files_description[] =
    "Reads files and returns their contents, many in one call: use it instead of reading files "
    "one by one. Text comes with line numbers (cat -n) in a <Content path='...'> element with its "
    "size, lines, encoding and etag; images come as pictures you can see; PDFs page by page "
    "(text, and pictures of scanned pages, or of every page with render: true); Jupyter notebooks "
    "with their outputs; DOCX, XLSX and PPTX as their text. A file that cannot be read gets "
    "code='...' and error='...' while the others are still read. A folder or glob (src/, "
    "src/**/*.ts) reads the files under it, leaving out what .gitignore ignores. Per file: 2000 "
    "lines and 100 KiB of text, 20 PDF pages, 8 MiB a call (the files past it in one <Omitted>); a "
    "file cut short says which offset or pages to read next. The answer fits a budget (25,000 "
    "estimated tokens unless budget.tokens says): files past it are listed with omitted='budget', "
    "and an <Omitted> element names the skip that reads the rest with the same arguments. To read "
    "again a file you have, pass ifNoneMatch {path: etag}: an unchanged file comes back without "
    "its content. To see what a folder holds and what reading it would cost, use list_files "
    "first. Relative paths resolve against the workspace root; files outside it and secrets "
    "(.env, keys) are refused: workspace_info says where the fence is.";

const char mcp_list_files_description[] =
    "Lists what a folder or glob holds without reading it: each file with its type (text, image, "
    "pdf, notebook, document; a binary file says omitted='binary'), size, lines and the tokens "
    "reading it would cost (readerd's plan of a read). Use it before read_files to choose what to "
    "read in a large folder, or to find files by glob (src/**/*.test.ts). Files that .gitignore "
    "and .ignore files ignore are left out unless ignored is true; secrets and files outside the "
    "workspace are refused. The listing fits the same budget as a read: past it, an <Omitted> "
    "element names the skip that lists the rest.";

const char mcp_workspace_info_description[] =
    "Says where files may be read: the folders of the workspace (relative paths resolve against "
    "the first), where they come from, and the patterns of files never read. Use it when a file "
    "comes back ACCESS_DENIED or outside the workspace, or to learn the root before using "
    "relative paths.";

const char mcp_read_images_description[] =
    "Ask a vision model a question about images and PDF pages (figures, charts, scanned tables, "
    "screenshots) and get its answer in text. Give every picture the question is about in one "
    "call. Images of any common format are converted and scaled as needed; PDFs are rendered "
    "page by page (pages selects them). A file that cannot be read is named with its error and "
    "the others are still asked.";

/* anyOf: [{required: [path]}, {required: [pathBytes]}]: an object names its file one way. */
static void path_or_bytes(JsonBuilder *b) {
  static const char *const path[] = {"path", NULL}, *const bytes[] = {"pathBytes", NULL};

  json_builder_set_member_name(b, "anyOf");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  schema_required(b, path);
  json_builder_end_object(b);
  json_builder_begin_object(b);
  schema_required(b, bytes);
  json_builder_end_object(b);
  json_builder_end_array(b);
}

/* An item of paths: a path, or an object with the path and its own options. */
static void path_item(JsonBuilder *b) {
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "anyOf");
  json_builder_begin_array(b);
  schema_string_value(b, 1);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "object");
  json_builder_set_member_name(b, "additionalProperties");
  json_builder_add_boolean_value(b, FALSE);
  path_or_bytes(b);
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
  schema_string(b, "path", 1, NULL);
  schema_string(b, "pathBytes", 0,
                "Instead of path: a name that is not UTF-8, as a <Content pathBytes='...'> gave "
                "it.");
  schema_integer(b, "offset", 1, NO, "First line to show.");
  schema_integer(b, "limit", 1, NO, "Lines to show.");
  schema_integer(b, "tail", 1, NO, "The last lines to show, instead of offset and limit.");
  schema_integer(b, "column", 1, NO,
                 "Line offset shown from this character, as a cut line's marker says.");
  schema_string(b, "pages", 0, "PDF pages, such as \"1-3,7\" or \"21-\".");
  schema_boolean(b, "render", "Pictures of the PDF's pages; an SVG as a picture.");
  schema_string(b, "password", 0, "The PDF's password.");
  schema_string(b, "encoding", 0, "This file's character set.");
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_end_object(b);
}

/* expand: true, false, or an object with its options. */
static void expand(JsonBuilder *b) {
  json_builder_set_member_name(b, "expand");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, "Folders and globs in paths read as the files under them "
                                   "(default true); false answers IS_DIRECTORY for a folder.");
  json_builder_set_member_name(b, "anyOf");
  json_builder_begin_array(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "boolean");
  json_builder_end_object(b);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "object");
  json_builder_set_member_name(b, "additionalProperties");
  json_builder_add_boolean_value(b, FALSE);
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
  schema_integer(b, "maxFiles", 1, 10000, "Files per folder or glob at most (default 500).");
  schema_boolean(b, "ignored", "Also files that .gitignore or .ignore leave out (default false).");
  schema_boolean(b, "binary", "Read binary files rather than list them (default false).");
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_end_array(b);
  json_builder_end_object(b);
}

/* ifNoneMatch: an object of paths to etags. */
static void if_none_match(JsonBuilder *b) {
  json_builder_set_member_name(b, "ifNoneMatch");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, "object");
  json_builder_set_member_name(b, "additionalProperties");
  schema_string_value(b, 1);
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, "For files read before: path (as given then) to the etag its "
                                   "<Content> had. A file still the same comes back as "
                                   "unchanged='true' without its content.");
  json_builder_end_object(b);
}

void mcp_read_files_properties(JsonBuilder *b) {
  static const char *const tiles[] = {"auto", "never", "always", NULL};
  static const char *const tokens[] = {"tokens", NULL};

  schema_array_begin(b, "paths", 1, 10000,
                     "The files to read, in the order their results should come back: a path, or "
                     "an object with the path and its own options.");
  path_item(b);
  schema_array_end(b);
  schema_integer(b, "offset", 1, NO, "First line to show of every text file (default 1).");
  schema_integer(b, "limit", 1, NO, "Lines to show of every text file (default 2000).");
  schema_integer(b, "tail", 1, NO,
                 "The last lines to show of every text file, instead of offset and limit.");
  schema_string(b, "pages", 0,
                "PDF pages to read of every PDF without its own, such as \"1-3,7\" (default: the "
                "first 20).");
  schema_boolean(b, "render",
                 "Pictures of every PDF page shown, not only of scanned ones; SVG files as "
                 "pictures.");
  schema_string(b, "encoding", 0,
                "Character set of the text files, such as \"iso-8859-2\" or \"gbk\", when the "
                "detected one (encodingSource) is wrong.");
  expand(b);
  schema_object_begin(b, "images", NULL, NULL);
  schema_integer(b, "maxDimension", 16, 8000, "Long edge of pictures, in pixels (default 1568).");
  schema_integer(b, "maxTotalBytes", 0, NO,
                 "Base64 bytes of all pictures of the call (default 8 MiB).");
  schema_enum(b, "tile", tiles,
              "Tall or wide pictures (a scrolled screenshot) as overlapping tiles, each labelled "
              "with its place (default auto: when scaling would shrink one beyond 2.5:1 below "
              "half).");
  schema_object_end(b);
  if_none_match(b);
  schema_object_begin(b, "budget",
                      "Estimated tokens the whole answer may take, content and markup (default "
                      "25000): files in order, each within a fair share; files left out are "
                      "listed with omitted='budget', their size and tokensTotal, the rest counted "
                      "in one <Omitted> element that names the skip to read them with.",
                      tokens);
  schema_integer(b, "tokens", 1, NO, NULL);
  schema_object_end(b);
  schema_integer(b, "skip", 0, 10000,
                 "Answer the entries (after folders and globs are expanded) from this index on: "
                 "the skip an <Omitted> element names, with the same other arguments.");
  schema_boolean(b, "plan",
                 "Say what each file is and what reading it would cost (tokens, tokensTotal), "
                 "without its content.");
}

void mcp_list_files_properties(JsonBuilder *b) {
  schema_string(b, "path", 0,
                "The folder or glob to list (default: the workspace root), as in read_files' "
                "paths.");
  schema_array_begin(b, "paths", 1, 100,
                     "Several folders, globs or files at once, instead of path.");
  schema_string_value(b, 1);
  schema_array_end(b);
  schema_boolean(b, "ignored", "Also files that .gitignore or .ignore leave out (default false).");
  schema_integer(b, "maxFiles", NO, NO,
                 "Files per folder or glob at most (default 500, at most 10000).");
  schema_integer(b, "skip", NO, NO,
                 "List from this entry on: the skip an <Omitted> element names.");
}

void mcp_workspace_info_properties(JsonBuilder *b) {
  (void)b;
}

void mcp_read_images_properties(JsonBuilder *b) {
  static const char *const details[] = {"auto", "low", "high", NULL};

  schema_array_begin(b, "paths", 1, 100, "The image files and PDFs to ask about.");
  schema_string_value(b, 1);
  schema_array_end(b);
  schema_string(b, "query", 1, "The question.");
  schema_enum(b, "detail", details,
              "low: at most 512 px on the long edge (cheap, for a glance); high: up to 2048 px "
              "and 768 px on the short side (small print); auto (default) picks by size.");
  schema_string(b, "pages", 0, "PDF pages, such as \"3\" or \"1-2\".");
  schema_string(b, "model", 1, "Another model of the configured endpoint.");
  schema_integer(b, "maxTokens", 1, 131072, "Longest answer, in tokens (default 1024).");
}
