/* The one way in: every front end runs tool calls through pipeline_call.
 *   registry -> schema check -> preflight -> subjects -> permission
 *   -> guard -> run -> output budget -> response                       */
#ifndef VTHOST_PIPELINE_H
#define VTHOST_PIPELINE_H

#include <stdatomic.h>
#include <cjson/cJSON.h>
#include <vthost/plugin.h>

/* What a front end offers the pipeline.  Every member may be NULL. */
typedef struct frontend {
    void *ctx;
    /* Progress of a long call (MCP notifications/progress). */
    void (*progress)(void *ctx, double progress, double total, const char *msg);
    /* Ask the user about `request` (tool, subjects, rule, message).
     * Return 1 approve, 0 deny, negative when no prompt is possible. */
    int (*prompt)(void *ctx, const cJSON *request);
    /* Ask the client's model (MCP sampling).  Return 0 and a malloc'd
     * *answer, or negative when sampling is unavailable. */
    int (*sample)(void *ctx, const char *system_prompt, const char *user_text,
                  const char *model_hint, char **answer);
} frontend;

typedef enum call_status {
    CALL_OK = 0,          /* the tool ran (its own success may be false) */
    CALL_TOOL_FAILED = 1, /* the tool reported an error */
    CALL_DENIED = 2,      /* permission denied or guard blocked */
    CALL_INVALID = 3,     /* schema or preflight refused the arguments */
    CALL_UNKNOWN = 4,     /* no such tool (or a legacy / gated name) */
    CALL_CANCELLED = 5    /* the client cancelled it */
} call_status;

typedef struct call_request {
    const char *tool;
    const cJSON *args;          /* borrowed; NULL means {} */
    const char *agent;          /* per-call agent, NULL: the host's */
    const frontend *fe;         /* may be NULL */
    atomic_int *cancel;         /* set non-zero to cancel; may be NULL */
} call_request;

typedef struct call_result {
    call_status status;
    cJSON *response;  /* always an object; owned by the caller */
    char *message;    /* malloc'd text for failures, else NULL */
    int list_changed; /* the listed tool set changed during the call */
} call_result;

int pipeline_call(const call_request *req, call_result *out);
void call_result_free(call_result *r);

/* The permission decision a call would get, with its trace, without
 * running it: registry, schema, preflight and subjects as for a call,
 * then permission_explain.  *out is {"tool", "subjects", "decision",
 * "trace", ...}; on refusal before the permission step, out->status and
 * message say why, as for pipeline_call. */
int pipeline_explain(const call_request *req, call_result *out);

#endif
