/* A small client library for the integration tests: starts the real readerd binary (env
 * READERD) in a temporary folder, talks line-delimited JSON-RPC to it over its socket or its
 * stdin/stdout, and checks what comes back (every result.xml is validated against the RELAX NG
 * schema named by env READERD_SCHEMA).
 *
 * Every wait has a deadline; a helper that cannot do its job fails the current check test
 * with a message saying why. Daemons still running when a test process exits are killed and
 * their folders removed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>
#include <json-glib/json-glib.h>
#include <libxml/tree.h>

/* Default deadline for one answer, in milliseconds. */
#define RD_TIMEOUT_MS 30000

/* Call once from main(): ignores SIGPIPE, initializes libxml2, makes the run's base folder
 * (exits when it cannot). */
void rd_init(void);

/* Call at the end of main() with the number of failed tests: removes the base folder (kept,
 * and named, when env READERD_TEST_KEEP is set). Returns the exit status for main(). */
int rd_finish(int failed);

/* The readerd binary (env READERD); fails the test when unset. */
const char *rd_readerd(void);

/* A new empty folder under the run's base folder; removed with rd_rmtree(). g_malloc'd. */
char *rd_tmpdir(void);

/* Removes a folder and everything below it; NULL is fine. */
void rd_rmtree(const char *dir);

/* ---------------------------------------------------------------- processes */

/* Spawns argv (argv[0] a path) in cwd with the given descriptors (-1: /dev/null for stdin,
 * inherit for stdout and stderr). The child dies with the test process. Returns its pid. */
GPid rd_spawn(const char *cwd, const char *const *argv, int in_fd, int out_fd, int err_fd);

/* Waits up to timeout_ms for pid to end. Returns true and sets *ret_status (waitpid status)
 * when it did, false when it is still running. */
bool rd_wait_pid(GPid pid, int timeout_ms, int *ret_status);

/* The exit code of a waitpid status, or -signal when it was killed. */
int rd_exit_code(int status);

/* What a finished command produced. */
typedef struct {
  int code;  /* exit code, or -signal */
  char *out; /* stdout, NUL-terminated */
  size_t out_len;
  char *err; /* stderr, NUL-terminated */
} RdRun;

/* Runs argv in cwd with `in` (may be NULL) on stdin, collects stdout and stderr; fails the test
 * when it does not finish within timeout_ms. */
void rd_run(const char *cwd, const char *const *argv, const char *in, size_t in_len, int timeout_ms,
            RdRun *ret);
void rd_run_clear(RdRun *r);

/* ---------------------------------------------------------------- the socket daemon */

typedef struct {
  char *dir;  /* temporary folder, the daemon's working directory */
  char *sock; /* dir/s.sock */
  char *log;  /* dir/readerd.log: the daemon's stdout and stderr */
  GPid pid;
  bool running;
  bool owns_dir; /* rd_daemon_start made dir: rd_daemon_free removes it */
} RdDaemon;

/* Starts `readerd serve --socket DIR/s.sock` in a new temporary folder and waits (up to 10 s)
 * until it accepts a connection. */
RdDaemon *rd_daemon_start(void);

/* Same, in an existing folder `dir` (kept) with the socket at `sock`. */
RdDaemon *rd_daemon_start_at(const char *dir, const char *sock);

/* rd_daemon_start(), with the daemon's stderr on err_fd (the caller keeps it) and only its
 * stdout in `log`. */
RdDaemon *rd_daemon_start_stderr(int err_fd);

/* Sends SIGTERM and asserts that the daemon exits 0 within 5 s and that its socket file is
 * gone. */
void rd_daemon_stop(RdDaemon *d);

/* True while the daemon process runs. */
bool rd_daemon_alive(RdDaemon *d);

/* The daemon's log so far. g_malloc'd. */
char *rd_daemon_log(const RdDaemon *d);

/* The daemon's resident memory (VmRSS of /proc/PID/status) in KiB; fails the test when it
 * cannot be read. */
int64_t rd_daemon_rss_kib(const RdDaemon *d);

/* Kills the daemon if it still runs and removes its folder (when rd_daemon_start made it).
 * NULL is fine. */
void rd_daemon_free(RdDaemon *d);

/* ---------------------------------------------------------------- connections */

typedef struct RdConn RdConn;

/* Connects to a socket, retrying up to timeout_ms. Returns the descriptor or -errno. */
int rd_socket_connect(const char *path, int timeout_ms);

/* A connection to the socket; fails the test when it cannot connect within 10 s. */
RdConn *rd_conn_new(const char *sock);

/* A connection over two descriptors (write to wfd, read from rfd); takes both. */
RdConn *rd_conn_new_fds(int rfd, int wfd);

/* Closes the connection and frees it; NULL is fine. */
void rd_conn_free(RdConn *c);

/* Stops writing: half-closes a socket, closes a pipe. */
void rd_conn_close_write(RdConn *c);

/* Writes everything (reading whatever arrives meanwhile, so that neither side blocks). Returns
 * 0, or -errno when the peer went away or nothing could be written for timeout_ms. */
int rd_conn_try_send(RdConn *c, const void *data, size_t len, int timeout_ms);

/* rd_conn_try_send() that fails the test on error. */
void rd_conn_send(RdConn *c, const void *data, size_t len);
void rd_conn_send_str(RdConn *c, const char *s);

/* Receives one line (without its '\n'). Returns 1 with *ret_line g_malloc'd, 0 at end of
 * stream, -ETIMEDOUT when no full line came within timeout_ms, or another -errno. */
int rd_conn_recv_line(RdConn *c, int timeout_ms, char **ret_line);

/* Receives one message: fails the test unless it is a JSON object with "jsonrpc": "2.0".
 * Queued messages (received while waiting for another id) come first. The caller unrefs it. */
JsonNode *rd_conn_recv(RdConn *c, int timeout_ms);

/* True when the peer closes the connection within timeout_ms (messages that arrive first are
 * dropped). */
bool rd_conn_wait_closed(RdConn *c, int timeout_ms);

/* Sends a request. `params` is JSON text or NULL, `id` JSON text (a number or a string) or NULL
 * for the next integer. Returns the id's key (rd_id_key), g_malloc'd. */
char *rd_conn_request(RdConn *c, const char *method, const char *params, const char *id);

/* Sends a notification (no id). */
void rd_conn_notify(RdConn *c, const char *method, const char *params);

/* Waits for the response whose id has key `key`; other responses are kept for later waits.
 * Fails the test after timeout_ms. The caller unrefs the message. */
JsonNode *rd_conn_wait(RdConn *c, const char *key, int timeout_ms);

/* rd_conn_request() then rd_conn_wait() with RD_TIMEOUT_MS. */
JsonNode *rd_conn_call(RdConn *c, const char *method, const char *params);

/* "n:7" for the number 7, "s:7" for the string "7", "null" for null or a missing id.
 * g_malloc'd. */
char *rd_id_key(JsonNode *id);

/* The error code of a response, or 0 when it has none. */
int rd_error_code(JsonNode *msg);

/* The response's id key (rd_id_key of its "id"). g_malloc'd. */
char *rd_msg_id_key(JsonNode *msg);

/* ---------------------------------------------------------------- JSON and text helpers */

/* s as a JSON string literal, quotes included. g_malloc'd. */
char *rd_json_quote(const char *s);

/* A JSON array of the n strings. g_malloc'd. */
char *rd_json_paths(const char *const *paths, size_t n);

/* Parses JSON text; fails the test when it is not JSON. The caller unrefs it. */
JsonNode *rd_json_parse(const char *text, size_t len);

/* Writes a file (dir/name), creating folders on the way. Returns its path, g_malloc'd. */
char *rd_write_file(const char *dir, const char *name, const void *data, size_t len);
char *rd_write_str(const char *dir, const char *name, const char *text);

/* Reads a whole file; fails the test when it cannot. g_malloc'd, NUL-terminated. */
char *rd_read_file(const char *path, size_t *ret_len);

/* Lines in data as the contract counts them: every '\n', plus a last line without one. */
int64_t rd_count_lines(const char *data, size_t len);

/* The lines of data without their '\n' (nor a '\r' before it), NULL-terminated. g_strfreev. */
char **rd_split_lines(const char *data, size_t len);

/* cat -n of lines[0..n): "%6d\t%s" numbered from `first`. g_strfreev. */
char **rd_numbered(const char *const *lines, size_t n, int64_t first);

/* True when both NULL-terminated lists have the same strings; on a difference prints both
 * around it to stderr (labelled `what`). */
bool rd_lines_equal(const char *what, const char *const *got, const char *const *want);

/* mtime of path in epoch milliseconds (lstat when nofollow). */
int64_t rd_mtime_ms(const char *path);

/* ISO-8601 UTC with milliseconds of an epoch-milliseconds time. g_malloc'd. */
char *rd_iso_ms(int64_t ms);

/* Width and height parsed from the header of PNG, GIF, JPEG or WebP bytes, independently of the
 * daemon. Returns false for anything else. */
bool rd_image_size(const unsigned char *data, size_t len, int *ret_w, int *ret_h);

/* A valid RGB PNG of w x h pixels (stored deflate, real CRCs), g_malloc'd. */
unsigned char *rd_make_png(int w, int h, size_t *ret_len);

/* A valid lossless WebP (VP8L) of w x h pixels of one colour, g_malloc'd. */
unsigned char *rd_make_webp(int w, int h, size_t *ret_len);

/* ---------------------------------------------------------------- read results */

typedef struct {
  JsonNode *msg;      /* the whole response; owned */
  JsonObject *result; /* the result object */
  JsonArray *files;
  JsonArray *images;
  xmlDocPtr doc;       /* result.xml, valid against the schema; owned */
  GPtrArray *contents; /* the <Content> elements (xmlNodePtr), in order */
} RdResult;

/* Takes a response; fails the test unless it is a read result with xml, files and images,
 * whose XML parses, validates against the schema and has one <Content> per file. */
RdResult *rd_result_new(JsonNode *msg);

/* Parses and validates a bare result.xml (from the CLI); files and images are NULL. */
RdResult *rd_result_from_xml(const char *xml, size_t len);

/* Parses and validates a result object's JSON text (from `readerd read --json`). */
RdResult *rd_result_from_json(const char *json, size_t len);

void rd_result_free(RdResult *r);

/* Calls read with params (JSON text) and returns its result. */
RdResult *rd_read(RdConn *c, const char *params);

/* Reads the given paths with extra params (JSON members without braces, or NULL). */
RdResult *rd_read_paths(RdConn *c, const char *const *paths, size_t n, const char *extra);

/* files[i]; fails the test when out of range. */
JsonObject *rd_file(RdResult *r, guint i);

/* A member of files[i] as an integer; fails the test when it is missing or not a number. */
int64_t rd_file_int(RdResult *r, guint i, const char *member);

/* A string member of files[i], or NULL when missing. Points into the result. */
const char *rd_file_str(RdResult *r, guint i, const char *member);

/* True when files[i] has the boolean member set to true. */
bool rd_file_true(RdResult *r, guint i, const char *member);

/* Content element i; fails the test when out of range. */
xmlNodePtr rd_content(RdResult *r, guint i);

/* An attribute of Content i (or of the root element when i is -1), g_malloc'd, or NULL. */
char *rd_attr(RdResult *r, int i, const char *name);

/* The text of Content i as shown: its text without the one newline that opens it. g_malloc'd. */
char *rd_text(RdResult *r, guint i);

/* The lines of rd_text(), without a last empty one. g_strfreev. */
char **rd_text_lines(RdResult *r, guint i);

/* The decoded bytes of images[k]; fails the test when it is not base64. */
GBytes *rd_image_bytes(RdResult *r, guint k);

/* Parses xml and validates it against the schema; fails the test otherwise. xmlFreeDoc. */
xmlDocPtr rd_xml_parse_valid(const char *xml, size_t len);

/* ---------------------------------------------------------------- stdio mode */

typedef struct {
  GPid pid;
  RdConn *conn; /* writes to its stdin, reads its stdout */
  char *dir;    /* temporary folder (its working directory) */
  char *log;    /* its stderr */
} RdStdio;

/* Starts `readerd serve --stdio` in a new temporary folder. */
RdStdio *rd_stdio_start(void);

/* Waits for it to exit; fails the test after timeout_ms. Returns the exit code (or -signal). */
int rd_stdio_wait(RdStdio *s, int timeout_ms);

/* Kills it if it still runs, removes the folder. NULL is fine. */
void rd_stdio_free(RdStdio *s);
