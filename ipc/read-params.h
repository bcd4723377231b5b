/* Validation of the `read` method's params into plain C: pure, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

#define READ_MAX_PATHS 10000    /* paths per request */
#define READ_DEFAULT_LIMIT 2000 /* lines shown per file */
#define READ_DEFAULT_MAX_DIMENSION 1568
#define READ_MAX_MAX_DIMENSION 8000
#define READ_MIN_MAX_DIMENSION 16
#define READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES ((int64_t)20 * 1024 * 1024) /* base64 of one request */
#define READ_MAX_MAX_TOTAL_IMAGE_BYTES ((int64_t)1024 * 1024 * 1024)
/* Bytes of files' content (text, pages, base64) one answer holds at most; the files past it
 * are answered FILE_TOO_LARGE, naming the cap. */
#define READ_MAX_ANSWER_BYTES ((size_t)64 * 1024 * 1024)
/* budget.tokens at most: far past any model's context, and safe to count in thousandths. */
#define READ_MAX_BUDGET_TOKENS ((int64_t)1000 * 1000 * 1000)


/* Files one folder or glob expands to at most, unless `expand.maxFiles` says otherwise. */
#define READ_DEFAULT_MAX_FILES 500

/* `expand`: folders and globs in paths[] read as the files under them (daemon/readers/expand.h). */
typedef struct {
  bool on;           /* false: a folder answers IS_DIRECTORY, a glob is a file name (default) */
  int64_t max_files; /* files per expansion at most, default READ_DEFAULT_MAX_FILES */
  bool ignored;      /* files that ignore rules leave out are read too */
  bool binary;       /* binary files are read (and refused) rather than listed */
} ReadExpand;

/* `images.detail`: what the openai format asks of the model for each picture. */
typedef enum {
  READ_IMAGE_DETAIL_AUTO = 0,
  READ_IMAGE_DETAIL_LOW,
  READ_IMAGE_DETAIL_HIGH,
} ReadImageDetail;

/* `images.tile`: tall or wide pictures as overlapping tiles (docs/protocol.md). */
typedef enum {
  READ_IMAGE_TILE_AUTO = 0, /* when fitting would shrink a picture beyond 2.5:1 below half */
  READ_IMAGE_TILE_NEVER,
  READ_IMAGE_TILE_ALWAYS, /* whenever a picture is larger than maxDimension or than its
                           * provider takes unscaled (image-tiles.h) */
} ReadImageTile;

typedef struct {
  char *path;     /* as given, never empty; owned */
  int64_t offset; /* 1-based first line; 0 = the request's */
  int64_t limit;  /* lines; 0 = the request's */
  int64_t tail;   /* the last lines instead of offset and limit; 0 = the request's */
  int64_t column; /* 1-based first character shown of line offset; 0 = 1 */
  char *pages;    /* PDF page selection as given, NULL when absent; owned */
  bool render;    /* render PDF pages */
  char *password; /* PDF password, NULL when absent; owned */
  const char *encoding; /* text: the encoding to decode from (read_params_encoding), interned;
                           NULL: the request's */
} PathSpec;

typedef struct {
  PathSpec *paths;
  size_t n_paths;
  char *cwd;         /* NULL when absent; owned */
  int64_t offset;    /* default 1 */
  int64_t limit;     /* default READ_DEFAULT_LIMIT */
  int64_t tail;      /* the last lines of each text file; 0 (default): none */
  bool line_numbers; /* default true */
  int max_dimension; /* default READ_DEFAULT_MAX_DIMENSION */
  int64_t
      max_total_image_bytes; /* images.maxTotalBytes, default READ_DEFAULT_MAX_TOTAL_IMAGE_BYTES */
  const char *format;        /* a formatter's name (static, formatters/format.h); default "xml" */
  ReadImageDetail image_detail; /* images.detail, default READ_IMAGE_DETAIL_AUTO */
  ReadImageTile image_tile;     /* images.tile, default READ_IMAGE_TILE_AUTO */
  size_t max_answer_bytes;      /* not a param: the face's cap, default READ_MAX_ANSWER_BYTES */
  GHashTable *if_none_match;    /* ifNoneMatch: path (as files[].path gives it) -> etag, both
                                   owned strings; NULL when absent */
  ReadExpand expand;            /* expand: false, true or an object; default off */
  int64_t budget_tokens;        /* budget.tokens, 0 when there is no budget */
  bool plan;                    /* plan: answer what a read would show, without content */
  const char *encoding;         /* encoding: text files decoded from it, without detection;
                                   interned (read_params_encoding); NULL: detected */
  int64_t skip;                 /* skip: the first entries (after expansion) are not answered,
                                   the continuation a budget's summary names; default 0 */
} ReadParams;

/* Fills *ret with defaults. */
void read_params_init(ReadParams *ret);

/* Validates `params` (a JSON object; NULL is invalid since paths is required) and fills *ret,
 * which must have been read_params_init'ed. Returns 0, or -EINVAL with *ret_error a g_malloc'd
 * message naming the offending field (e.g. "paths[3].offset must be an integer >= 1").
 * On failure *ret is left cleared. */
int read_params_parse(JsonNode *params, ReadParams *ret, char **ret_error);

/* read_params_parse() of the params given as JSON text: strict JSON that json_parse_validate()
 * passed without a note (jsonrpc.h, JSONRPC_PARSE_READ_TEXT), such as a line's `params` value.
 * The same results and errors as read_params_parse() of its tree, with a `paths` array of
 * strings read from the text without building a tree of it. */
int read_params_parse_json(const char *text, size_t len, ReadParams *ret, char **ret_error);

/* The array of 1 to READ_MAX_PATHS non-empty strings text[0..len) (JSON as
 * read_params_parse_json() takes it) into *ret_paths (path set, the rest zero; free with
 * read_params_paths_free) and *ret_n. Returns 0, or -EINVAL with nothing allocated for anything
 * else: any other value, an empty string, an object item, more items. */
int read_params_paths_json(const char *text, size_t len, PathSpec **ret_paths, size_t *ret_n);

/* Frees n PathSpecs and what they own; NULL is fine. */
void read_params_paths_free(PathSpec *paths, size_t n);

/* The params (or arguments) object in text, with its `paths` read from the text by
 * read_params_paths_json() into *ret_paths and *ret_n, and one stand-in path "-" in their place
 * in the tree returned (sealed), so that the other members are judged as they would be beside
 * them. NULL, with nothing allocated, when there are no paths to take so (the caller then parses
 * the whole text as a tree). */
JsonNode *read_params_paths_apart(const char *text, size_t len, PathSpec **ret_paths,
                                  size_t *ret_n);

/* The etag the client sent for path in ifNoneMatch (borrowed from p), or NULL. A path that is
 * not UTF-8 (basic/path-bytes.h) is looked up by its pathBytes spelling. */
const char *read_params_if_none_match(const ReadParams *p, const char *path);

/* True when spec is a valid PDF page selection: comma-separated items, each "N", "N-M" with
 * N <= M, or "N-" (N to the last page), page numbers from 1 to INT_MAX, spaces allowed around
 * items. NULL and "" are not valid. */
bool read_params_pages_valid(const char *spec);


/* What file i is read with of offset, column and tail, the path's own over the request's: a
 * path's offset sets aside the request's tail, a path's tail the request's offset. *ret_tail
 * is 0 when no tail applies. */
void read_params_window(const ReadParams *p, size_t i, int64_t *ret_offset, int64_t *ret_column,
                        int64_t *ret_tail);

/* Characters of an `encoding` name at most. */
#define READ_ENCODING_NAME_MAX 40

/* Checks a client's encoding name: at most READ_ENCODING_NAME_MAX letters, digits and "-_.:"
 * (no iconv "//" suffix) that iconv can convert to UTF-8. Returns 0 with *ret the name in
 * lowercase, interned (g_intern_string: the names iconv knows are a finite set), or -EINVAL. */
int read_params_encoding(const char *name, const char **ret);

/* The format names, quoted and separated by commas, for messages. g_free the result. */
char *read_format_names(void);

/* The name of an image detail level ("auto", "low", "high"); static. */
const char *read_image_detail_name(ReadImageDetail detail);

/* The detail level called name. Returns 0, or -EINVAL when there is none. */
int read_image_detail_from_name(const char *name, ReadImageDetail *ret);

/* The tile mode called name ("auto", "never", "always"). Returns 0, or -EINVAL when there is
 * none. */
int read_image_tile_from_name(const char *name, ReadImageTile *ret);

/* Releases what the params own and re-initializes them; NULL is fine. */
void read_params_clear(ReadParams *p);
