/* Which era a request belongs to, and the checks the 2026-07-28 revision
 * makes of every request: the version it names, the capabilities it
 * must declare, the log level it may ask for. */
#include <stdio.h>
#include <string.h>
#include "host.h"
#include "mcp_era.h"

const char *const mcp_legacy_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
const size_t mcp_legacy_version_count = sizeof mcp_legacy_versions / sizeof *mcp_legacy_versions;

static const char *const log_levels[] = {"debug", "info",     "notice", "warning",
                                         "error", "critical", "alert",  "emergency"};

static const cJSON *meta_of(const cJSON *params)
{
    return cJSON_GetObjectItemCaseSensitive(params, "_meta");
}

int mcp_message_is_modern(const cJSON *msg)
{
    const cJSON *meta = meta_of(cJSON_GetObjectItemCaseSensitive(msg, "params"));
    return cJSON_IsObject(meta) && cJSON_GetObjectItemCaseSensitive(meta, MCP_META_VERSION);
}

/* Every version this server speaks, the stateless one first. */
static cJSON *supported_versions(void)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateString(MCP_MODERN_VERSION));
    for (size_t i = 0; i < mcp_legacy_version_count; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(mcp_legacy_versions[i]));
    return a;
}

static void unsupported(struct mcp_server *s, const cJSON *id, const char *requested)
{
    cJSON *data = cJSON_CreateObject();
    cJSON_AddItemToObject(data, "supported", supported_versions());
    cJSON_AddStringToObject(data, "requested", requested);
    char msg[200];
    snprintf(msg, sizeof msg,
             "Unsupported protocol version: %.40s (this server speaks %s per request, and "
             "2025-11-25 and earlier through initialize)",
             requested, MCP_MODERN_VERSION);
    mcp_send_error_data(s, id, RPC_UNSUPPORTED_VERSION, msg, data);
}

static _Thread_local mcp_call *current;

void mcp_era_enter(mcp_call *c) { current = c; }
mcp_call *mcp_era_current(void) { return current; }

/* The index of a log level name, -1 for another string or NULL. */
static int level_index(const char *level)
{
    for (size_t i = 0; level && i < sizeof log_levels / sizeof *log_levels; i++)
        if (strcmp(level, log_levels[i]) == 0)
            return (int)i;
    return -1;
}

/* What is wrong with a modern request's _meta, or NULL. */
static const char *malformed(const cJSON *meta, mcp_meta *m)
{
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CAPS);
    const cJSON *info = cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CLIENT);
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(meta, MCP_META_LOG_LEVEL);
    if (!cJSON_IsObject(caps))
        return "Invalid params: _meta \"" MCP_META_CAPS "\" is required (an object; {} "
               "declares no optional capability)";
    if (info && !cJSON_IsObject(info))
        return "Invalid params: _meta \"" MCP_META_CLIENT "\" must be an object with "
               "\"name\" and \"version\"";
    m->log_level = level ? level_index(cJSON_GetStringValue(level)) : -1;
    if (level && m->log_level < 0)
        return "Invalid params: _meta \"" MCP_META_LOG_LEVEL "\" must be one of debug, info, "
               "notice, warning, error, critical, alert, emergency";
    m->caps = caps;
    m->client_name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "name"));
    m->client_version = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "version"));
    return NULL;
}

int mcp_era_read(struct mcp_server *s, const cJSON *id, const cJSON *params, const mcp_msg_ctx *ctx,
                 mcp_meta *m)
{
    memset(m, 0, sizeof *m);
    m->log_level = -1;
    const cJSON *meta = meta_of(params);
    const cJSON *v =
        cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, MCP_META_VERSION) : NULL;
    if (!v)
        return 0; /* the 2025 era */
    m->modern = 1;
    const char *why = NULL;
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        why = "Invalid params: _meta \"" MCP_META_VERSION "\" must be a protocol version string "
              "such as \"" MCP_MODERN_VERSION "\"";
    } else if (ctx && ctx->header_version && strcmp(ctx->header_version, v->valuestring) != 0) {
        mcp_send_error(
            s, id, RPC_HEADER_MISMATCH,
            "Header mismatch: the MCP-Protocol-Version header and _meta \"" MCP_META_VERSION
            "\" name different versions; send the same in both");
        return -1;
    } else if (strcmp(v->valuestring, MCP_MODERN_VERSION) != 0) {
        unsupported(s, id, v->valuestring);
        return -1;
    } else {
        m->version = MCP_MODERN_VERSION;
        why = malformed(meta, m);
    }
    if (why) {
        mcp_send_error(s, id, RPC_INVALID_PARAMS, why);
        return -1;
    }
    return 0;
}

cJSON *mcp_era_result(cJSON *result, const char *type)
{
    if (!result)
        return NULL;
    cJSON_AddStringToObject(result, "resultType", type ? type : "complete");
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
    if (!cJSON_IsObject(meta))
        meta = cJSON_AddObjectToObject(result, "_meta");
    cJSON *info = cJSON_AddObjectToObject(meta, MCP_META_SERVER);
    cJSON_AddStringToObject(info, "name", "vthost");
    cJSON_AddStringToObject(info, "version", VTHOST_VERSION);
    return result;
}

int mcp_era_decision(const cJSON *res)
{
    const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "action"));
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(res, "content");
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(content, "decision"));
    if (a && strcmp(a, "accept") == 0)
        return d && strcmp(d, "approve") == 0 ? PROMPT_APPROVED : PROMPT_DENIED;
    if (a && strcmp(a, "decline") == 0)
        return PROMPT_DECLINED;
    if (a && strcmp(a, "cancel") == 0)
        return PROMPT_CANCELLED;
    return PROMPT_DENIED;
}
