/* Relaying a provider's requests to vthost's client.
 *
 * The reader thread hands each relayed request to the tool call it
 * belongs to (provider.c); that call's own thread relays it here, inside
 * its wait for the provider's answer, so the relay ends exactly when the
 * call does: cancelled by the client, or past tool_timeout_seconds.
 * What goes to the client is the provider's request with two changes:
 * an elicitation's message names the provider (the user must not take
 * it for vthost's own permission prompt), and sampling never asks the
 * client to include its own context (a provider sees only the answer to
 * its messages).  The provider's _meta stays between it and vthost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vthost/clock.h>
#include "relay.h"
#include "tools.h"

int relay_method(const char *method)
{
    return strcmp(method, "elicitation/create") == 0 ||
           strcmp(method, "sampling/createMessage") == 0;
}

cJSON *relay_capabilities(void)
{
    cJSON *caps = cJSON_CreateObject();
    /* the workspace, answered by provider.c; it never changes while
     * vthost runs, so no listChanged */
    cJSON_AddObjectToObject(caps, "roots");
    unsigned c = VT_HAS(mcpp_api, client_capabilities) ? mcpp_api->client_capabilities(NULL) : 0;
    if (c & VT_CLIENT_PENDING)
        c = VT_CLIENT_ELICITATION | VT_CLIENT_SAMPLING;
    if (c & VT_CLIENT_ELICITATION) {
        cJSON *e = cJSON_AddObjectToObject(caps, "elicitation");
        if (c & VT_CLIENT_ELICITATION_URL) {
            cJSON_AddObjectToObject(e, "form");
            cJSON_AddObjectToObject(e, "url");
        }
    }
    if (c & VT_CLIENT_SAMPLING)
        cJSON_AddObjectToObject(caps, "sampling");
    return caps;
}

int relay_answerable(const vt_call *call, const cJSON *req)
{
    if (!VT_HAS(mcpp_api, client_capabilities) || !VT_HAS(mcpp_api, client_request))
        return 0;
    unsigned caps = mcpp_api->client_capabilities(call);
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "method"));
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
    if (method && strcmp(method, "sampling/createMessage") == 0)
        return (caps & VT_CLIENT_SAMPLING) != 0;
    const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "mode"));
    if (mode && strcmp(mode, "url") == 0)
        return (caps & VT_CLIENT_ELICITATION_URL) != 0;
    return (caps & VT_CLIENT_ELICITATION) != 0;
}

static void answer(provider *p, const cJSON *id, cJSON *result, cJSON *error)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
    if (result)
        cJSON_AddItemToObject(m, "result", result);
    else
        cJSON_AddItemToObject(m, "error", error);
    provider_send(p, m);
}

void relay_refuse(provider *p, const cJSON *req, int code, const char *why)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "method"));
    char msg[400];
    snprintf(msg, sizeof msg, "vthost did not relay %.60s to its client: %.300s",
             method ? method : "the request", why);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", msg);
    answer(p, id, NULL, e);
}

/* The request as the client gets it (see the top of this file). */
static cJSON *forwarded(const provider *p, const char *method, const cJSON *params)
{
    cJSON *fwd = cJSON_IsObject(params) ? cJSON_Duplicate(params, 1) : cJSON_CreateObject();
    if (!fwd)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(fwd, "_meta");
    if (strcmp(method, "elicitation/create") == 0) {
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fwd, "message"));
        char *text = mcpp_api->format("MCP server '%s' asks: %s", p->name, m ? m : "");
        if (text) {
            cJSON_DeleteItemFromObjectCaseSensitive(fwd, "message");
            cJSON_AddStringToObject(fwd, "message", text);
            mcpp_api->free(text);
        }
    } else if (cJSON_GetObjectItemCaseSensitive(fwd, "includeContext")) {
        cJSON_ReplaceItemInObjectCaseSensitive(fwd, "includeContext", cJSON_CreateString("none"));
    }
    return fwd;
}

/* Milliseconds until t, or 0 once it has passed. */
static int ms_until(const struct timespec *t)
{
    int64_t ms = vt_clock_ms_until(t);
    return ms < 1 ? 0 : ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

void relay_serve(provider *p, vt_call *call, const cJSON *req, const struct timespec *deadline)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req, "id");
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "method"));
    if (!method)
        return;
    int timeout_ms = ms_until(deadline);
    if (timeout_ms == 0 || mcpp_api->call_cancelled(call)) {
        /* the call is over: a prompt now would reach the user for nothing */
        relay_refuse(p, req, RELAY_CANCELLED,
                     timeout_ms ? "the tool call was cancelled" : "the tool call timed out");
        return;
    }
    if (!VT_HAS(mcpp_api, client_request)) {
        relay_refuse(p, req, RELAY_REFUSED, "this vthost cannot relay requests (host ABI < 1.3)");
        return;
    }
    cJSON *fwd = forwarded(p, method, cJSON_GetObjectItemCaseSensitive(req, "params"));
    cJSON *result = NULL, *error = NULL;
    int rc = fwd ? mcpp_api->client_request(call, method, fwd, timeout_ms, &result, &error)
                 : VT_ERR_NOMEM;
    cJSON_Delete(fwd);
    if (rc == VT_OK && result) {
        mcpp_api->log(VT_LOG_INFO, MCPP_PLUGIN, "%s: relayed %s to the client", p->name, method);
        answer(p, id, result, NULL);
        return;
    }
    cJSON_Delete(result);
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(error, "message"));
    mcpp_api->log(VT_LOG_INFO, MCPP_PLUGIN, "%s: %s not answered by the client (status %d): %s",
                  p->name, method, rc, why ? why : "no message");
    if (error) {
        /* the client's own error, or the host's refusal: passed on as is */
        answer(p, id, NULL, error);
        return;
    }
    relay_refuse(p, req,
                 rc == VT_ERR_CANCELLED || rc == VT_ERR_BUSY ? RELAY_CANCELLED : RELAY_REFUSED,
                 "the client gave no answer");
}
