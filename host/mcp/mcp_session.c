/* MCP session methods: initialize, tools/list, logging/setLevel, and the
 * log sink that turns host log lines into notifications/message. */
#include <stdlib.h>
#include <string.h>
#include "host.h"
#include "mcp_era.h"
#include "mcp_internal.h"
#include "mcp_roots.h"
#include "mcp_session.h"
#include "mcp_tasks.h"

/* MCP (RFC 5424) level names; the host's five levels map onto the first
 * five, and the three above error silence host logging entirely. */
static const char *const level_names[] = {"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};
#define LEVEL_COUNT (sizeof level_names / sizeof level_names[0])

/* Form-mode elicitation: an empty capability object means form mode
 * (2025-06-18); later revisions name the modes. */
static int supports_form_elicitation(const cJSON *cap)
{
    if (!cJSON_IsObject(cap))
        return 0;
    return cap->child == NULL || cJSON_GetObjectItemCaseSensitive(cap, "form") != NULL;
}

/* Kept for the session's calls (vt_host_api.call_client_info); a
 * repeated initialize replaces it, each call has its own copy. */
static void remember_client(struct mcp_server *s, const char *name, const char *version)
{
    char *n = name ? strdup(name) : NULL;
    char *v = version ? strdup(version) : NULL;
    pthread_mutex_lock(&s->lock);
    free(s->client_name);
    free(s->client_version);
    s->client_name = n;
    s->client_version = v;
    pthread_mutex_unlock(&s->lock);
}

void mcp_session_initialize(struct mcp_server *s, const cJSON *id, const cJSON *params)
{
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    /* Another version (2026-07-28 too: it has no initialize) gets the
     * newest this handshake speaks, and the client decides. */
    const char *version = mcp_legacy_versions[0];
    for (size_t i = 0; cJSON_IsString(pv) && i < mcp_legacy_version_count; i++)
        if (strcmp(pv->valuestring, mcp_legacy_versions[i]) == 0)
            version = mcp_legacy_versions[i];

    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
    pthread_mutex_lock(&s->lock);
    s->cap_elicitation =
        supports_form_elicitation(cJSON_GetObjectItemCaseSensitive(caps, "elicitation"));
    s->cap_sampling = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "sampling"));
    s->cap_elicitation_url = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(caps, "elicitation"), "url"));
    s->cap_roots = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "roots"));
    pthread_mutex_unlock(&s->lock);
    mcp_roots_initialize(caps);
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(params, "clientInfo");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ci, "name"));
    const char *ver = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ci, "version"));
    remember_client(s, name, ver);
    if (s->ops.client_info)
        s->ops.client_info(name, ver);

    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "protocolVersion", version);
    cJSON *c = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(c, "tools"), "listChanged", 1);
    cJSON_AddObjectToObject(c, "logging");
    mcp_tasks_capability(s, c);
    cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
    cJSON_AddStringToObject(info, "name", "vthost");
    cJSON_AddStringToObject(info, "version", VTHOST_VERSION);
    char *text = s->ops.instructions ? s->ops.instructions() : NULL;
    if (text)
        cJSON_AddStringToObject(r, "instructions", text);
    free(text);
    /* known before the answer goes out: a client may call a tool (which
     * asks what it accepts) as soon as it reads the answer */
    atomic_store(&s->initialized, 1);
    mcp_send_result_version(s, id, r, version);
}

void mcp_session_tools_list(struct mcp_server *s, const cJSON *id, const cJSON *params)
{
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    if (cursor && !cJSON_IsNull(cursor)) {
        /* Every list fits one page, so no cursor was ever handed out. */
        mcp_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: unknown cursor");
        return;
    }
    cJSON *tools = s->ops.list_tools ? s->ops.list_tools() : NULL;
    if (!tools)
        tools = cJSON_CreateArray();
    mcp_tasks_mark_tools(s, tools);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "tools", tools);
    mcp_send_result(s, id, r);
}

void mcp_session_set_level(struct mcp_server *s, const cJSON *id, const cJSON *params)
{
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(params, "level");
    for (size_t i = 0; cJSON_IsString(level) && i < LEVEL_COUNT; i++) {
        if (strcmp(level->valuestring, level_names[i]) == 0) {
            atomic_store(&s->log_level, (int)i);
            mcp_send_result(s, id, cJSON_CreateObject());
            return;
        }
    }
    mcp_send_error(s, id, RPC_INVALID_PARAMS,
                   "Invalid params: level must be one of debug, info, notice, "
                   "warning, error, critical, alert, emergency");
}

void mcp_server_log(void *server, int level, const char *who, const char *msg)
{
    struct mcp_server *s = server;
    if (!s)
        return;
    if (level < 0)
        level = 0;
    if (level > VT_LOG_ERROR)
        level = VT_LOG_ERROR;
    /* A 2026-07-28 call's own lines go to its client only when its
     * request asked (_meta logLevel); no other line reaches that era. */
    const mcp_call *c = mcp_era_current();
    if (c && c->srv == s && c->modern) {
        if (c->log_level < 0 || level < c->log_level)
            return;
    } else if (!atomic_load(&s->initialized) || level < atomic_load(&s->log_level)) {
        return;
    }
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "level", level_names[level]);
    cJSON_AddStringToObject(p, "logger", who ? who : "vthost");
    cJSON_AddStringToObject(p, "data", msg ? msg : "");
    mcp_send_notification(s, "notifications/message", p);
}
