/* Open subscriptions/listen streams, kept on the server under its lock.
 * On stdio they share the one output; each message names its stream
 * with _meta io.modelcontextprotocol/subscriptionId (the request's id). */
#include <stdlib.h>
#include "mcp_era.h"
#include "mcp_listen.h"

/* Streams a client may hold open at once; more are refused. */
#define MAX_SUBS 64

static cJSON *tagged(const cJSON *id)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToObject(cJSON_AddObjectToObject(p, "_meta"), MCP_META_SUBSCRIPTION,
                          mcp_id_copy(id));
    return p;
}

void mcp_listen_open(struct mcp_server *s, const cJSON *id, const cJSON *params)
{
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(params, "notifications");
    if (!cJSON_IsObject(filter)) {
        mcp_send_error(s, id, RPC_INVALID_PARAMS,
                       "Invalid params: subscriptions/listen needs \"notifications\", an object "
                       "such as {\"toolsListChanged\": true}");
        return;
    }
    mcp_sub *sub = calloc(1, sizeof *sub);
    if (sub)
        sub->id = mcp_id_copy(id);
    sub = sub && sub->id ? sub : (free(sub), NULL);
    if (sub)
        sub->tools = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(filter, "toolsListChanged"));
    int n = 0, dup = 0;
    pthread_mutex_lock(&s->lock);
    for (mcp_sub *o = s->subs; o; o = o->next)
        n++, dup |= mcp_id_equal(o->id, id);
    int ok = sub && n < MAX_SUBS && !dup && !s->stopping;
    if (ok) {
        sub->next = s->subs;
        s->subs = sub;
    }
    pthread_mutex_unlock(&s->lock);
    if (!ok) {
        if (sub)
            cJSON_Delete(sub->id);
        free(sub);
        mcp_send_error(s, id, RPC_INVALID_REQUEST,
                       dup ? "Invalid Request: a subscription with this id is open already"
                           : "Invalid Request: too many subscriptions are open; cancel one first");
        return;
    }
    /* The acknowledgement names only what is honoured: vthost has no
     * prompts or resources. */
    cJSON *p = tagged(id);
    cJSON *agreed = cJSON_AddObjectToObject(p, "notifications");
    if (sub->tools)
        cJSON_AddBoolToObject(agreed, "toolsListChanged", 1);
    mcp_send_notification(s, "notifications/subscriptions/acknowledged", p);
}

int mcp_listen_cancel(struct mcp_server *s, const cJSON *id)
{
    mcp_sub *gone = NULL;
    pthread_mutex_lock(&s->lock);
    for (mcp_sub **p = &s->subs; *p; p = &(*p)->next) {
        if (mcp_id_equal((*p)->id, id)) {
            gone = *p;
            *p = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (!gone)
        return 0;
    cJSON_Delete(gone->id);
    free(gone);
    return 1;
}

void mcp_listen_tools_changed(struct mcp_server *s)
{
    /* Copies of the ids: sending happens outside the lock. */
    cJSON *ids = cJSON_CreateArray();
    pthread_mutex_lock(&s->lock);
    for (mcp_sub *o = s->subs; o; o = o->next)
        if (o->tools)
            cJSON_AddItemToArray(ids, mcp_id_copy(o->id));
    pthread_mutex_unlock(&s->lock);
    const cJSON *id;
    cJSON_ArrayForEach(id, ids)
    {
        mcp_send_notification(s, "notifications/tools/list_changed", tagged(id));
    }
    cJSON_Delete(ids);
}

void mcp_listen_end(struct mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    mcp_sub *all = s->subs;
    s->subs = NULL;
    pthread_mutex_unlock(&s->lock);
    while (all) {
        mcp_sub *next = all->next;
        mcp_send_result(s, all->id, mcp_era_result(tagged(all->id), NULL));
        cJSON_Delete(all->id);
        free(all);
        all = next;
    }
}
