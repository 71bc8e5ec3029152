/* Server-to-client requests: each waits on its own thread for the reply,
 * which the reading thread matches by id (mcp_call_reply).  A wait ends
 * early when the call is cancelled or the server stops. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_client.h"
#include "mcp_era.h"
#include "mcp_server.h"
#include "monotime.h"
#include "strbuf.h"
#include "text_escape.h"

/* Send `method` (params taken) and wait for the client's answer, at most
 * timeout_ms when > 0.  Returns 0 and *result, VT_ERR_IO and *error (the
 * client's error object), VT_ERR_CANCELLED (the call was cancelled or
 * the server stops), VT_ERR_BUSY (timed out) or VT_ERR_INVALID (an
 * answer that is neither).  Both out-parameters are the caller's. */
static int client_request(mcp_call *c, const char *method, cJSON *params, int timeout_ms,
                          cJSON **result, cJSON **error)
{
    struct mcp_server *s = c->srv;
    mcp_pending p = {0};
    *result = NULL;
    if (error)
        *error = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->stopping || c->cancelled) {
        pthread_mutex_unlock(&s->lock);
        cJSON_Delete(params);
        return VT_ERR_CANCELLED;
    }
    p.id = (double)++s->next_request_id;
    p.next = s->pending;
    s->pending = &p;
    pthread_mutex_unlock(&s->lock);

    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(m, "id", p.id);
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    int sent = mcp_send(s, m) == 0;

    struct timespec deadline;
    if (timeout_ms > 0)
        mono_deadline_ms(&deadline, timeout_ms); /* reply_cond's clock */
    int timed_out = 0;
    pthread_mutex_lock(&s->lock);
    while (sent && !p.done && !s->stopping && !c->cancelled && !timed_out) {
        if (timeout_ms > 0)
            timed_out = pthread_cond_timedwait(&s->reply_cond, &s->lock, &deadline) == ETIMEDOUT;
        else
            pthread_cond_wait(&s->reply_cond, &s->lock);
    }
    for (mcp_pending **q = &s->pending; *q; q = &(*q)->next) {
        if (*q == &p) {
            *q = p.next;
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);

    if (!p.done) {
        if (sent) {
            cJSON *n = cJSON_CreateObject();
            cJSON_AddNumberToObject(n, "requestId", p.id);
            cJSON_AddStringToObject(n, "reason",
                                    timed_out ? "timed out" : "the tool call was cancelled");
            mcp_send_notification(s, "notifications/cancelled", n);
        }
        return timed_out ? VT_ERR_BUSY : VT_ERR_CANCELLED;
    }
    cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(p.reply, "result");
    cJSON *err = cJSON_DetachItemFromObjectCaseSensitive(p.reply, "error");
    cJSON_Delete(p.reply);
    if (cJSON_IsObject(res)) {
        cJSON_Delete(err);
        *result = res;
        return VT_OK;
    }
    cJSON_Delete(res);
    if (cJSON_IsObject(err) && error) {
        *error = err;
        return VT_ERR_IO;
    }
    cJSON_Delete(err);
    return VT_ERR_INVALID;
}

void mcp_call_reply(struct mcp_server *s, cJSON *msg, const cJSON *id)
{
    pthread_mutex_lock(&s->lock);
    for (mcp_pending *p = s->pending; p; p = p->next) {
        if (!p->done && cJSON_IsNumber(id) && id->valuedouble == p->id) {
            p->reply = msg;
            p->done = 1;
            msg = NULL;
            pthread_cond_broadcast(&s->reply_cond);
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    cJSON_Delete(msg); /* a reply nobody waits for is dropped */
}

static void put_text(vt_strbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }

/* One value on one line, every byte of it visible (text_escape.h). */
static void put_value(vt_strbuf *b, const cJSON *v)
{
    if (cJSON_IsString(v)) {
        char *shown = text_escape(v->valuestring, 0);
        put_text(b, shown ? shown : "(cannot be shown)");
        free(shown);
        return;
    }
    char *t = cJSON_PrintUnformatted(v);
    if (t)
        put_text(b, t);
    free(t);
}

/* The approval question shown to the user: the action, what it touches
 * and the rule that asked. */
static char *prompt_text(const cJSON *request)
{
    vt_strbuf b = VT_STRBUF_INIT;
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(request, "message");
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(request, "tool");
    const cJSON *subjects = cJSON_GetObjectItemCaseSensitive(request, "subjects");
    const cJSON *rule = cJSON_GetObjectItemCaseSensitive(request, "rule");
    char *shown = cJSON_IsString(msg) ? text_escape(msg->valuestring, TEXT_KEEP_NEWLINES) : NULL;
    put_text(&b, shown ? shown : "Allow this tool call?");
    free(shown);
    if (tool) {
        put_text(&b, "\nTool: ");
        put_value(&b, tool);
    }
    if (cJSON_IsArray(subjects) && subjects->child) {
        put_text(&b, "\nTouches:");
        const cJSON *it;
        cJSON_ArrayForEach(it, subjects)
        {
            const cJSON *kind = cJSON_GetObjectItemCaseSensitive(it, "kind");
            const cJSON *value = cJSON_GetObjectItemCaseSensitive(it, "value");
            put_text(&b, "\n  - ");
            if (cJSON_IsString(kind) && value) {
                strbuf_printf(&b, "%s: ", kind->valuestring);
                put_value(&b, value);
            } else {
                put_value(&b, it);
            }
        }
    } else if (subjects) {
        put_text(&b, "\nTouches: ");
        put_value(&b, subjects);
    }
    if (rule && !cJSON_IsNull(rule)) {
        put_text(&b, "\nRule: ");
        put_value(&b, rule);
    }
    return strbuf_take(&b);
}

cJSON *mcp_client_approval_params(const cJSON *request, int modern)
{
    char *text = prompt_text(request);
    if (!text)
        return NULL;
    cJSON *params = cJSON_CreateObject();
    if (modern)
        cJSON_AddStringToObject(params, "mode", "form");
    cJSON_AddStringToObject(params, "message", text);
    free(text);
    cJSON *schema = cJSON_AddObjectToObject(params, "requestedSchema");
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON *d = cJSON_AddObjectToObject(cJSON_AddObjectToObject(schema, "properties"), "decision");
    cJSON_AddStringToObject(d, "type", "string");
    cJSON_AddStringToObject(d, "title", "Decision");
    cJSON_AddStringToObject(d, "description", "approve runs this call once; deny refuses it");
    const char *choices[] = {"approve", "deny"};
    const char *names[] = {"Approve", "Deny"};
    if (modern) {
        /* 2026-07-28 names the choices with oneOf; enumNames is legacy. */
        cJSON *one = cJSON_AddArrayToObject(d, "oneOf");
        for (int i = 0; i < 2; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "const", choices[i]);
            cJSON_AddStringToObject(o, "title", names[i]);
            cJSON_AddItemToArray(one, o);
        }
    } else {
        cJSON_AddItemToObject(d, "enum", cJSON_CreateStringArray(choices, 2));
        cJSON_AddItemToObject(d, "enumNames", cJSON_CreateStringArray(names, 2));
    }
    const char *req[] = {"decision"};
    cJSON_AddItemToObject(schema, "required", cJSON_CreateStringArray(req, 1));
    return params;
}

static int prompt(void *ctx, const cJSON *request)
{
    mcp_call *c = ctx;
    cJSON *params = mcp_client_approval_params(request, 0);
    if (!params)
        return -1;
    cJSON *res = NULL;
    if (client_request(c, "elicitation/create", params, 0, &res, NULL) != VT_OK)
        return -1;
    int answer = mcp_era_decision(res);
    cJSON_Delete(res);
    return answer;
}

/* Text of a sampling result: one content block or an array of them. */
char *mcp_client_sampled_text(const cJSON *content)
{
    if (cJSON_IsObject(content)) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(content, "text");
        return cJSON_IsString(t) ? strdup(t->valuestring) : NULL;
    }
    vt_strbuf b = VT_STRBUF_INIT;
    const cJSON *it;
    cJSON_ArrayForEach(it, content)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "text");
        if (cJSON_IsString(t))
            put_text(&b, t->valuestring);
    }
    char *text = strbuf_take(&b);
    if (text && !*text) {
        free(text);
        text = NULL;
    }
    return text;
}

cJSON *mcp_client_sampling_params(const char *system_prompt, const char *user_text,
                                  const char *model_hint)
{
    cJSON *params = cJSON_CreateObject();
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "user");
    cJSON *content = cJSON_AddObjectToObject(m, "content");
    cJSON_AddStringToObject(content, "type", "text");
    cJSON_AddStringToObject(content, "text", user_text ? user_text : "");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(params, "messages"), m);
    if (system_prompt)
        cJSON_AddStringToObject(params, "systemPrompt", system_prompt);
    if (model_hint && *model_hint) {
        cJSON *h = cJSON_CreateObject();
        cJSON_AddStringToObject(h, "name", model_hint);
        cJSON_AddItemToArray(
            cJSON_AddArrayToObject(cJSON_AddObjectToObject(params, "modelPreferences"), "hints"),
            h);
    }
    cJSON_AddStringToObject(params, "includeContext", "none");
    cJSON_AddNumberToObject(params, "maxTokens", 256);
    return params;
}

static int sample(void *ctx, const char *system_prompt, const char *user_text,
                  const char *model_hint, char **answer)
{
    mcp_call *c = ctx;
    *answer = NULL;
    cJSON *params = mcp_client_sampling_params(system_prompt, user_text, model_hint);
    cJSON *res = NULL;
    if (client_request(c, "sampling/createMessage", params, 0, &res, NULL) != VT_OK)
        return -1;
    *answer = mcp_client_sampled_text(cJSON_GetObjectItemCaseSensitive(res, "content"));
    cJSON_Delete(res);
    return *answer ? 0 : -1;
}

/* frontend.client_request: a plugin's request, relayed as it is. */
static int relay(void *ctx, const char *method, const cJSON *params, int timeout_ms, cJSON **result,
                 cJSON **error)
{
    cJSON *copy = params ? cJSON_Duplicate(params, 1) : NULL;
    if (params && !copy)
        return VT_ERR_NOMEM;
    return client_request(ctx, method, copy, timeout_ms, result, error);
}

/* VT_CLIENT_* bits of what the client declared.  Caller holds s->lock. */
static unsigned caps_locked(const struct mcp_server *s)
{
    return (s->cap_elicitation ? VT_CLIENT_ELICITATION : 0) |
           (s->cap_elicitation_url ? VT_CLIENT_ELICITATION_URL : 0) |
           (s->cap_sampling ? VT_CLIENT_SAMPLING : 0) | (s->cap_roots ? VT_CLIENT_ROOTS : 0);
}

unsigned mcp_server_client_caps(void *server)
{
    struct mcp_server *s = server;
    if (!s)
        return 0;
    if (s->inline_calls)
        return 0;
    /* A 2026-07-28 client is sent no requests at all: nothing pending. */
    if (!atomic_load(&s->initialized))
        return atomic_load(&s->modern_seen) ? 0 : VT_CLIENT_PENDING;
    pthread_mutex_lock(&s->lock);
    unsigned caps = caps_locked(s);
    pthread_mutex_unlock(&s->lock);
    return caps;
}

void mcp_client_frontend(struct mcp_server *s, mcp_call *c)
{
    pthread_mutex_lock(&s->lock);
    /* Out of memory leaves the call without a name, as a client that
     * gave none. */
    c->client_name = s->client_name ? strdup(s->client_name) : NULL;
    c->client_version = s->client_version ? strdup(s->client_version) : NULL;
    c->fe.client_name = c->client_name;
    c->fe.client_version = c->client_version;
    if (s->inline_calls) {
        pthread_mutex_unlock(&s->lock);
        return; /* nobody would read the reply */
    }
    if (s->cap_elicitation)
        c->fe.prompt = prompt;
    if (s->cap_sampling)
        c->fe.sample = sample;
    c->fe.client_caps = caps_locked(s);
    c->fe.client_request = relay;
    pthread_mutex_unlock(&s->lock);
}
