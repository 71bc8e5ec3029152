/* Requests to the client on behalf of a call.  The capability check is
 * made here, once, for every front end: the transport (the MCP engine's
 * frontend.client_request) only sends and waits. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "call.h"
#include "call_client.h"
#include "call_ops.h"

/* JSON-RPC codes of the errors composed here.  -32601 is not one of
 * them: the method exists, the client cannot take it. */
#define CLIENT_REFUSED -32000   /* no client can answer (capability, front end) */
#define CLIENT_CANCELLED -32800 /* the request was given up (cancel, timeout) */
#define CLIENT_INVALID -32602

static pthread_mutex_t bind_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned (*bound_fn)(void *ud);
static void *bound_ud;

void call_client_bind(unsigned (*fn)(void *ud), void *ud)
{
    pthread_mutex_lock(&bind_mu);
    bound_fn = fn;
    bound_ud = ud;
    pthread_mutex_unlock(&bind_mu);
}

unsigned call_client_capabilities(const vt_call *call)
{
    if (call) {
        const frontend *fe = call->fe;
        return fe && fe->client_request && !fe->one_shot ? fe->client_caps : 0;
    }
    pthread_mutex_lock(&bind_mu);
    unsigned caps = bound_fn ? bound_fn(bound_ud) : 0;
    pthread_mutex_unlock(&bind_mu);
    return caps;
}

int call_client_info(const vt_call *call, const char **name, const char **version)
{
    const frontend *fe = call ? call->fe : NULL;
    const char *n = fe ? fe->client_name : NULL;
    const char *v = fe ? fe->client_version : NULL;
    if (name)
        *name = n;
    if (version)
        *version = v;
    return n || v ? 0 : VT_ERR_NOT_FOUND;
}

cJSON *call_client_error(int code, const char *message)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return NULL;
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    return e;
}

/* The capability `method` needs (0 for ping), or -1 for a method a
 * server may not send its client. */
static long needed(const char *method, const cJSON *params, const char **what)
{
    if (strcmp(method, "ping") == 0)
        return 0;
    if (strcmp(method, "roots/list") == 0) {
        *what = "roots";
        return VT_CLIENT_ROOTS;
    }
    if (strcmp(method, "sampling/createMessage") == 0) {
        *what = "sampling";
        return VT_CLIENT_SAMPLING;
    }
    if (strcmp(method, "elicitation/create") == 0) {
        const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "mode"));
        if (mode && strcmp(mode, "url") == 0) {
            *what = "URL-mode elicitation";
            return VT_CLIENT_ELICITATION_URL;
        }
        *what = "elicitation";
        return VT_CLIENT_ELICITATION;
    }
    return -1;
}

int call_client_request(vt_call *call, const char *method, const cJSON *params, int timeout_ms,
                        cJSON **result, cJSON **error)
{
    if (result)
        *result = NULL;
    if (error)
        *error = NULL;
    if (!call || !method || !result || !error || (params && !cJSON_IsObject(params))) {
        if (error)
            *error = call_client_error(CLIENT_INVALID, "invalid request to the client");
        return VT_ERR_INVALID;
    }
    const char *what = NULL;
    long need = needed(method, params, &what);
    char msg[300];
    if (need < 0) {
        snprintf(msg, sizeof msg, "'%.100s' is not a request vthost sends to its client", method);
        *error = call_client_error(CLIENT_INVALID, msg);
        return VT_ERR_INVALID;
    }
    const frontend *fe = call->fe;
    if (!fe || !fe->client_request || fe->one_shot) {
        snprintf(msg, sizeof msg,
                 "vthost cannot relay %.100s here: this front end has no MCP client to ask "
                 "(only `vthost serve` relays requests to its client)",
                 method);
        *error = call_client_error(CLIENT_REFUSED, msg);
        return VT_ERR_UNSUPPORTED;
    }
    if ((fe->client_caps & (unsigned)need) != (unsigned)need) {
        snprintf(msg, sizeof msg,
                 "vthost cannot relay %.100s: its MCP client did not declare the %s "
                 "capability",
                 method, what);
        *error = call_client_error(CLIENT_REFUSED, msg);
        return VT_ERR_UNSUPPORTED;
    }
    if (call_cancelled(call)) {
        *error = call_client_error(CLIENT_CANCELLED, "the tool call was cancelled");
        return VT_ERR_CANCELLED;
    }
    int rc = fe->client_request(fe->ctx, method, params, timeout_ms, result, error);
    if (rc != VT_OK && !*error) {
        const char *why = rc == VT_ERR_CANCELLED ? "the tool call was cancelled"
                          : rc == VT_ERR_BUSY    ? "the client did not answer in time"
                                                 : "the client gave no usable answer";
        *error = call_client_error(
            rc == VT_ERR_CANCELLED || rc == VT_ERR_BUSY ? CLIENT_CANCELLED : CLIENT_REFUSED, why);
    }
    return rc;
}
