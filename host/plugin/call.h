/* The host's side of one tool call (the opaque vt_call of the SDK). */
#ifndef VTHOST_CALL_H
#define VTHOST_CALL_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdint.h>
#include <vthost/plugin.h>
#include "call_types.h"
#include "registry.h"

struct vt_call {
    uint64_t id;
    const tool_entry *tool;
    const cJSON *args;
    int max_output_tokens;
    int error_status;
    char *error;            /* first call_error message */
    cJSON *warnings;        /* array or NULL */
    cJSON *warnings_once;   /* call_warn_once's: given once per client session */
    struct vt_spool *spool; /* NULL until spool_open */
    const frontend *fe;
    atomic_int *cancel;
    const char *agent;        /* per-call agent, or NULL */
    struct guard_call *guard; /* anti-blind-editing state while it runs */
    int explaining;           /* vt_host_api.call_explaining */
};

/* Creating, releasing and the per-call operations: call/call_ops.h. */

#endif
