/* What a front end hands the pipeline and gets back: the types every
 * layer from perm up shares (permission prompts go through frontend).
 * The pipeline itself is call/pipeline.h. */
#ifndef VTHOST_CALL_TYPES_H
#define VTHOST_CALL_TYPES_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdint.h>
#include <vthost/plugin.h>

/* Answers of frontend.prompt.  Declined and cancelled are the client's
 * own answers without a decision (MCP elicitation "decline", "cancel"):
 * an unattended client gives them without asking anyone. */
enum {
    PROMPT_DENIED = 0,    /* the user chose to refuse */
    PROMPT_APPROVED = 1,  /* the user approved */
    PROMPT_DECLINED = 2,  /* the client declined the prompt */
    PROMPT_CANCELLED = 3, /* the prompt was dismissed or cancelled */
};

/* What a front end offers the pipeline.  Every member may be NULL. */
typedef struct frontend {
    void *ctx;
    /* Progress of a long call (MCP notifications/progress). */
    void (*progress)(void *ctx, double progress, double total, const char *msg);
    /* Ask the user about `request` (tool, subjects, rule, message).
     * Return a PROMPT_* answer, negative when no prompt is possible. */
    int (*prompt)(void *ctx, const cJSON *request);
    /* Ask the client's model (MCP sampling).  Return 0 and a malloc'd
     * *answer, or negative when sampling is unavailable. */
    int (*sample)(void *ctx, const char *system_prompt, const char *user_text,
                  const char *model_hint, char **answer);
    /* Non-zero: the front end ends after this call (the CLI), so no
     * session may outlive it (vt_host_api.call_one_shot). */
    int one_shot;
    /* What the client accepts (VT_CLIENT_* of plugin.h; 0: nothing). */
    unsigned client_caps;
    /* Send a request to the client and wait for its answer (the transport
     * behind vt_host_api.client_request, which has checked the method
     * against client_caps).  Returns 0 and *result, or a vt_status and
     * *error (both new, owned by the caller) as that member says. */
    int (*client_request)(void *ctx, const char *method, const cJSON *params, int timeout_ms,
                          cJSON **result, cJSON **error);
    /* The client session the call belongs to (vt_host_api.call_client_id):
     * 0 for the only client (stdio, the CLI), else one per HTTP session. */
    uint64_t client_id;
    /* Who the call (and so its prompts) belongs to, for the audit record:
     * the HTTP session's id and the principal it authenticated as (its
     * owner key: "token", or "oauth:" and a hash of issuer and subject);
     * NULL for the only client.  Borrowed for the call. */
    const char *session;
    const char *principal;
    /* Non-zero: the client speaks the 2026-07-28 revision and gets opaque
     * handles (call/handles.h) for the values tools name as handles. */
    int opaque_handles;
    /* The MCP client as it named itself (clientInfo name and version, from
     * initialize or a 2026-07-28 request's _meta), each NULL when not
     * given; NULL for the CLI.  Borrowed for the call
     * (vt_host_api.call_client_info). */
    const char *client_name;
    const char *client_version;
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
    const cJSON *args;  /* borrowed; NULL means {} */
    const char *agent;  /* per-call agent, NULL: the host's */
    const frontend *fe; /* may be NULL */
    atomic_int *cancel; /* set non-zero to cancel; may be NULL */
} call_request;

typedef struct call_result {
    call_status status;
    cJSON *response;  /* always an object; owned by the caller */
    char *message;    /* malloc'd text for failures, else NULL */
    int list_changed; /* the listed tool set changed during the call */
} call_result;

#endif
