/* JSON-RPC 2.0 message classification and routing for the MCP server.
 * Every line gets exactly the answer JSON-RPC prescribes: -32700 for
 * unparsable text (id null), -32600 for well-formed JSON that is not a
 * valid message, -32601 for an unknown method; notifications and
 * responses are never answered. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "json_exact.h"
#include "mcp_discover.h"
#include "mcp_era.h"
#include "mcp_internal.h"
#include "mcp_listen.h"
#include "mcp_roots.h"
#include "mcp_session.h"
#include "mcp_tasks.h"

static const mcp_msg_ctx stdio_ctx = {.principal = "local"};

static int valid_id(const cJSON *id)
{
    /* Raw: a string id holding \u0000, kept as sent (json_exact.c). */
    return cJSON_IsString(id) || cJSON_IsNumber(id) || cJSON_IsRaw(id);
}

/* Only whitespace after the parsed value. */
static int only_space(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!isspace((unsigned char)*p))
            return 0;
    return 1;
}

/* The method name in an error message, when it is short and plain. */
static void method_not_found(struct mcp_server *s, const cJSON *id, const char *method)
{
    char msg[160];
    size_t n = strlen(method);
    int plain = n > 0 && n <= 64;
    for (size_t i = 0; plain && i < n; i++)
        plain = method[i] > 0x20 && method[i] < 0x7f && method[i] != '"';
    if (plain)
        snprintf(msg, sizeof msg, "Method not found: %s", method);
    else
        snprintf(msg, sizeof msg, "Method not found");
    mcp_send_error(s, id, RPC_METHOD_NOT_FOUND, msg);
}

static void notification(struct mcp_server *s, const char *method, const cJSON *params)
{
    if (strcmp(method, "notifications/cancelled") == 0) {
        const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
        if (valid_id(rid) && !mcp_listen_cancel(s, rid))
            mcp_call_cancel(s, rid);
    } else if (strcmp(method, "notifications/initialized") == 0) {
        mcp_roots_initialized(s);
    }
    /* roots/list_changed and anything else: nothing to do (the workspace
     * is settled once), and notifications are never answered. */
}

/* A 2026-07-28 request: everything it needs is in it. */
static void modern_request(struct mcp_server *s, cJSON *msg, const cJSON *id, const char *method,
                           const cJSON *params, const mcp_meta *m, const mcp_msg_ctx *ctx,
                           mcp_call **call)
{
    mcp_discover_settle(s, m);
    if (strcmp(method, "tools/call") == 0) {
        *call = mcp_call_start(s, msg, id, params, m, ctx);
        return; /* msg now belongs to the call (or is freed) */
    }
    if (strcmp(method, "server/discover") == 0)
        mcp_discover(s, id);
    else if (strcmp(method, "tools/list") == 0)
        mcp_discover_tools_list(s, id, params);
    else if (strcmp(method, "subscriptions/listen") == 0)
        mcp_listen_open(s, id, params);
    else if (strcmp(method, "initialize") == 0 || strcmp(method, "ping") == 0 ||
             strcmp(method, "logging/setLevel") == 0)
        mcp_send_error(s, id, RPC_METHOD_NOT_FOUND,
                       "Method not found: 2026-07-28 has no initialize, ping or "
                       "logging/setLevel (send initialize without _meta "
                       "\"" MCP_META_VERSION "\" for 2025-11-25)");
    else
        method_not_found(s, id, method);
    cJSON_Delete(msg);
}

/* A request; a tools/call to run is returned through *call. */
static void request(struct mcp_server *s, cJSON *msg, const cJSON *id, const char *method,
                    const cJSON *params, const mcp_msg_ctx *ctx, mcp_call **call)
{
    mcp_meta m;
    if (mcp_era_read(s, id, params, ctx, &m) < 0) {
        cJSON_Delete(msg); /* answered */
        return;
    }
    if (m.modern) {
        modern_request(s, msg, id, method, params, &m, ctx, call);
        return;
    }
    if (strcmp(method, "tools/call") == 0) {
        *call = mcp_call_start(s, msg, id, params, NULL, ctx);
        return; /* msg now belongs to the call (or is freed) */
    }
    if (strcmp(method, "ping") == 0)
        mcp_send_result(s, id, cJSON_CreateObject());
    else if (strcmp(method, "initialize") == 0)
        mcp_session_initialize(s, id, params);
    else if (strcmp(method, "tools/list") == 0)
        mcp_session_tools_list(s, id, params);
    else if (strcmp(method, "logging/setLevel") == 0)
        mcp_session_set_level(s, id, params);
    else if (mcp_tasks_request(s, id, method, params))
        ; /* answered, or answered when the task's call ends */
    else if (strcmp(method, "server/discover") == 0 || strcmp(method, "subscriptions/listen") == 0)
        /* Without the _meta that makes a request 2026-07-28's, this is a
         * 2025-era message, and that era has no such method: -32601, as
         * the reference SDK's server answers, is what every client's
         * fallback to initialize keys on (some SDKs on nothing else). */
        mcp_send_error(s, id, RPC_METHOD_NOT_FOUND,
                       "Method not found: server/discover and subscriptions/listen are "
                       "2026-07-28 requests; send params._meta with \"" MCP_META_VERSION
                       "\" (\"" MCP_MODERN_VERSION "\") and \"" MCP_META_CAPS
                       "\" (an object), or initialize for 2025-11-25");
    else
        method_not_found(s, id, method);
    cJSON_Delete(msg);
}

void mcp_dispatch_line(struct mcp_server *s, const char *line, size_t len, mcp_call **call)
{
    *call = NULL;
    if (only_space(line, line + len))
        return; /* blank lines between messages are tolerated */
    cJSON *msg = json_parse_document(line, len);
    if (!msg) {
        mcp_send_error(s, NULL, RPC_PARSE_ERROR, "Parse error: not valid JSON");
        return;
    }
    mcp_dispatch_message(s, msg, &stdio_ctx, call);
}

void mcp_dispatch_message(struct mcp_server *s, cJSON *msg, const mcp_msg_ctx *ctx, mcp_call **call)
{
    *call = NULL;
    if (!ctx || !ctx->principal)
        ctx = &stdio_ctx;
    if (cJSON_IsArray(msg)) {
        cJSON_Delete(msg);
        mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
                       "Invalid Request: batches are not supported; send one message per line");
        return;
    }
    if (!cJSON_IsObject(msg)) {
        cJSON_Delete(msg);
        mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
                       "Invalid Request: a message is a JSON-RPC 2.0 object");
        return;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *reply_id = valid_id(id) ? id : NULL;
    const char *why = NULL;

    if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0)
        why = "Invalid Request: \"jsonrpc\" must be \"2.0\"";
    else if (id && !valid_id(id))
        why = "Invalid Request: \"id\" must be a string or a number";
    else if (!method) {
        int has_result = cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL;
        int has_error = cJSON_GetObjectItemCaseSensitive(msg, "error") != NULL;
        if (id && has_result != has_error) {
            if (!mcp_roots_reply(msg, id))
                mcp_call_reply(s, msg, id); /* a response to our request */
            return;
        }
        why = "Invalid Request: no \"method\"";
    } else if (!cJSON_IsString(method) || !method->valuestring[0])
        why = "Invalid Request: \"method\" must be a non-empty string";
    else if (params && !cJSON_IsObject(params) && !cJSON_IsArray(params))
        why = "Invalid Request: \"params\" must be an object";

    if (why) {
        mcp_send_error(s, reply_id, RPC_INVALID_REQUEST, why);
        cJSON_Delete(msg);
        return;
    }
    if (!id) {
        notification(s, method->valuestring, params);
        cJSON_Delete(msg);
        return;
    }
    if (params && !cJSON_IsObject(params)) {
        mcp_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: MCP params are an object");
        cJSON_Delete(msg);
        return;
    }
    request(s, msg, id, method->valuestring, params, ctx, call);
}
