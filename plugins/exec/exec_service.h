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

#endif
