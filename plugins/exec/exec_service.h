/* Former names of the service contracts now in <vthost/services.h>, kept
 * only for code not yet moved to the SDK names (remove with the last
 * user). */
#ifndef VTHOST_EXEC_SERVICE_H
#define VTHOST_EXEC_SERVICE_H

#include <vthost/services.h>

#define EXEC_SPLITTER_SERVICE VT_SPLITTER_SERVICE
#define EXEC_SESSIONS_SERVICE VT_SESSIONS_SERVICE
typedef vt_splitter_v1 exec_splitter_v1;
typedef vt_sessions_v1 exec_sessions_v1;

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

#endif
