/* Services the exec plugin publishes through the host's service registry.
 * stdin reaches the sessions only through EXEC_SESSIONS_SERVICE; the host's
 * anti-blind-editing guard splits commands through EXEC_SPLITTER_SERVICE. */
#ifndef VTHOST_EXEC_SERVICE_H
#define VTHOST_EXEC_SERVICE_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include <vthost/plugin.h>

#define EXEC_SPLITTER_SERVICE "exec.command_splitter"
#define EXEC_SESSIONS_SERVICE "exec.sessions"

typedef struct exec_splitter_v1 {
    uint32_t struct_size;
    /* Split shell text into the simple commands the shell would run.
     * *out: a new JSON array of {"command": "<normalised simple command>",
     * "opaque": true|false}; the caller frees it with cJSON_Delete. */
    int (*split)(const char *cmd, cJSON **out);
} exec_splitter_v1;

/* The sessions interface (exec_sessions_v1) is defined below by the exec
 * plugin. */

/* The response of exec_command and write_stdin (their output schema):
 * "sandbox" and "denied_execs" come from exec_command only. */
#define EXEC_RESPONSE_SCHEMA                                                          \
    "{\"type\":\"object\",\"properties\":{"                                         \
    "\"success\":{\"type\":\"boolean\"},"                                             \
    "\"output\":{\"type\":\"string\",\"description\":\"What the command printed "      \
    "(stdout and stderr), cut to max_output_tokens.\"},"                                \
    "\"exit_code\":{\"type\":\"integer\",\"description\":\"Once the command exited.\"}," \
    "\"session_id\":{\"type\":\"integer\",\"description\":\"While it still runs: pass "  \
    "it to write_stdin.\"},"                                                          \
    "\"is_exited\":{\"type\":\"boolean\"},"                                           \
    "\"wall_time\":{\"type\":\"number\",\"description\":\"Seconds this call waited.\"}," \
    "\"working_directory\":{\"type\":\"string\"},"                                    \
    "\"backend\":{\"type\":\"string\",\"enum\":[\"pipe\",\"pty\"]},"                     \
    "\"sandbox\":{\"type\":\"string\",\"enum\":[\"workspace-write\",\"read-only\","       \
    "\"none\"]},"                                                                     \
    "\"sandbox_denied\":{\"type\":\"boolean\"},"                                      \
    "\"sandbox_hint\":{\"type\":\"string\"},"                                         \
    "\"denied_execs\":{\"type\":\"array\",\"description\":\"Programs the run-time "      \
    "check refused.\",\"items\":{\"type\":\"object\",\"properties\":{"                  \
    "\"program\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"                  \
    "\"reason\":{\"type\":\"string\"}}}}"                                             \
    "},\"required\":[\"success\",\"is_exited\",\"wall_time\",\"working_directory\","     \
    "\"backend\"]}"


/* Live exec sessions, as write_stdin reaches them.  Published by exec's
 * init, valid until exec's fini.  Every call may come from any thread. */
typedef struct exec_sessions_v1 {
    uint32_t struct_size;
    /* Send `len` bytes of `chars` (borrowed) to session `id`'s stdin, then
     * wait up to yield_ms for output and exit, exactly as exec_command
     * waits: output goes to the call's spool, and *result receives the
     * same response object as exec_command builds.  `len` 0 only polls.
     * A lone "\x03" interrupts the session's foreground process group
     * (SIGINT) instead of being written.  Returns 0, or the status of
     * api->call_error(): VT_ERR_NOT_FOUND for an unknown or released
     * session, VT_ERR_BUSY when another call is waiting on it,
     * VT_ERR_CANCELLED when the call was cancelled (the session lives
     * on), VT_ERR_IO when the bytes could not be written. */
    int (*write_and_wait)(vt_call *call, int64_t id, const char *chars,
                          size_t len, int yield_ms, cJSON **result);
    /* Number of live sessions. */
    int (*live_count)(void);
} exec_sessions_v1;

#endif
