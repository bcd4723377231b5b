/* The test vision server, tests/vision-server.py: OpenAI-shaped and Anthropic-shaped answers on
 * 127.0.0.1, its behaviour chosen by the URL's first segment, every request it receives
 * recorded as REC/NNNN.json. Started and stopped into the test's own statics. */
#pragma once

#include <glib.h>

/* Starts the server (python3, the script under env READERD_SOURCE_ROOT) recording into a new
 * temporary folder *ret_rec, waits up to 10 s for the port it chose and sets *ret_base to
 * "http://127.0.0.1:PORT" (both g_malloc'd), *ret_pid to its pid. Unsets the proxy variables
 * (http_proxy, https_proxy, all_proxy, either case) so that requests to 127.0.0.1 go straight
 * to it. Fails the test when the server does not start. */
void rd_vision_server_start(GPid *ret_pid, char **ret_rec, char **ret_base);

/* Kills the server when *pid is set, waits for it, removes its folder and frees and clears
 * *rec and *base. */
void rd_vision_server_stop(GPid *pid, char **rec, char **base);
