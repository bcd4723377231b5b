/* The result `initialize` answers: the server's name and version and what it can do (pure). */
#pragma once

/* The result object as JSON text: serverInfo {name, version}, capabilities {read {types,
 * maxPaths, defaultLimit, maxAnswerBytes, formats}, cancelRequest}. g_free the result. */
char *initialize_result_json(void);
