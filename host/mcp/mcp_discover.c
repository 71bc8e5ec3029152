/* server/discover and tools/list for 2026-07-28 clients.  Both carry
 * caching hints: the answers depend on this workspace and (the list) on
 * the tools this client's searches found, so they are "private"; the
 * list is fresh for what ops.list_ttl_ms says (0 while search_tools can
 * still add tools), and a subscriptions/listen stream hears of changes. */
#include <stdlib.h>
#include "mcp_discover.h"
#include "mcp_discover_cache.h"
#include "mcp_era.h"

/* The advertisement changes only when the workspace is reopened. */
#define DISCOVER_TTL_MS 300000

void mcp_discover_settle(struct mcp_server *s, const mcp_meta *m)
{
    atomic_store(&s->modern_seen, 1);
    pthread_mutex_lock(&s->lock);
    int first = !s->catalog_settled && !atomic_load(&s->initialized);
    s->catalog_settled = 1;
    pthread_mutex_unlock(&s->lock);
    if (first && s->ops.client_info)
        s->ops.client_info(m->client_name, m->client_version);
}

static void cache_hints(cJSON *r, int ttl_ms)
{
    cJSON_AddNumberToObject(r, "ttlMs", ttl_ms > 0 ? ttl_ms : 0);
    cJSON_AddStringToObject(r, "cacheScope", "private");
}

static cJSON *discover_result(struct mcp_server *s)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "supportedVersions"),
                         cJSON_CreateString(MCP_MODERN_VERSION));
    /* logging: a call's own log lines, when its request asks (_meta
     * io.modelcontextprotocol/logLevel). */
    cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged", 1);
    cJSON_AddObjectToObject(caps, "logging");
    char *text = s->ops.instructions ? s->ops.instructions() : NULL;
    if (text)
        cJSON_AddStringToObject(r, "instructions", text);
    free(text);
    cache_hints(r, DISCOVER_TTL_MS);
    return mcp_era_result(r, NULL);
}

/* The answer takes nothing from the request: constants, the server's
 * name and version, and the instructions.  So it is kept serialized while
 * the instructions' stamp holds (ops.instructions_stamp: the host, the
 * workspace label, the client's view of the catalog) and sent as it is;
 * without a stamp it is built each time. */
void mcp_discover(struct mcp_server *s, const cJSON *id)
{
    uint64_t stamp[MCP_STAMP_WORDS];
    int keep = s->ops.instructions_stamp != NULL;
    if (keep) {
        s->ops.instructions_stamp(stamp); /* before the instructions it vouches for */
        cJSON *kept = mcp_discover_cached(s->ops.instructions, stamp);
        if (kept) {
            mcp_send_result(s, id, kept);
            return;
        }
    }
    cJSON *r = discover_result(s);
    char *text = keep && r ? cJSON_PrintUnformatted(r) : NULL;
    cJSON *raw = text ? cJSON_CreateRaw(text) : NULL;
    if (raw) {
        cJSON_Delete(r);
        r = raw;
        mcp_discover_keep(s->ops.instructions, stamp, text);
    }
    free(text);
    mcp_send_result(s, id, r);
}

void mcp_discover_tools_list(struct mcp_server *s, const cJSON *id, const cJSON *params)
{
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    if (cursor && !cJSON_IsNull(cursor)) {
        mcp_send_error(s, id, RPC_INVALID_PARAMS, "Invalid params: unknown cursor");
        return;
    }
    cJSON *tools = s->ops.list_tools ? s->ops.list_tools() : NULL;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "tools", tools ? tools : cJSON_CreateArray());
    cache_hints(r, s->ops.list_ttl_ms ? s->ops.list_ttl_ms() : 0);
    mcp_send_result(s, id, mcp_era_result(r, NULL));
}
