/*
 * vthost/services.h — versioned contracts of the named services that more
 * than one plugin (or the host) consumes, published and looked up through
 * api->service_publish() / api->service_lookup().
 *
 * Rules, as for vt_reviewer_v1 in plugin.h: the major version is in the
 * type's name; a contract only grows at the end, and a consumer checks
 * `struct_size` covers the members it calls.  The interface pointer is
 * borrowed from the publisher and valid until the publisher's fini.
 * Memory rules are those of plugin.h.
 */
#ifndef VTHOST_SDK_SERVICES_H
#define VTHOST_SDK_SERVICES_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include <vthost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A command splitter (the exec plugin publishes one): shell text into the
 * simple commands the shell would run. */
#define VT_SPLITTER_SERVICE "exec.command_splitter"

typedef struct vt_splitter_v1 {
    uint32_t struct_size;   /* sizeof(vt_splitter_v1) of the publisher */
    /* *out: a new JSON array of {"command": "<normalised simple command>",
     * "opaque": true|false}; the caller frees it with cJSON_Delete().
     * `cmd` is borrowed.  Thread-safe. */
    int (*split)(const char *cmd, cJSON **out);
} vt_splitter_v1;

/* Live command sessions (the exec plugin publishes them; write_stdin
 * reaches them only through this service). */
#define VT_SESSIONS_SERVICE "exec.sessions"

typedef struct vt_sessions_v1 {
    uint32_t struct_size;   /* sizeof(vt_sessions_v1) of the publisher */
    /* Send `len` bytes of `chars` (borrowed) to session `id`'s stdin, then
     * wait up to yield_ms for output and exit, exactly as the command
     * tool waits: output goes to the call's spool, and *result receives
     * the same response object as the command tool builds (the host takes
     * it).  `len` 0 only polls.  A lone "\x03" interrupts the session's
     * foreground process group (SIGINT) instead of being written.
     * Returns 0, or the status of api->call_error(): VT_ERR_NOT_FOUND for
     * an unknown or released session, VT_ERR_BUSY when another call is
     * waiting on it, VT_ERR_CANCELLED when the call was cancelled (the
     * session lives on), VT_ERR_IO when the bytes could not be written.
     * May be called from any thread. */
    int (*write_and_wait)(vt_call *call, int64_t id, const char *chars,
                          size_t len, int yield_ms, cJSON **result);
    /* Number of live sessions.  Thread-safe. */
    int (*live_count)(void);
} vt_sessions_v1;

#ifdef __cplusplus
}
#endif
/* JSON Schema of the response write_and_wait builds (the same as the
 * command tool's; both tools list it as their output schema):
 * "sandbox" and "denied_execs" come from exec_command only. */
#define VT_SESSIONS_RESPONSE_SCHEMA                                                          \
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

#endif /* VTHOST_SDK_SERVICES_H */
