/* tools/call: one call through the pipeline, with the MCP side of its
 * frontend (progress notifications, cancellation) and the result shape
 * (structuredContent plus one readable text block). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mcp_client.h"
#include "mcp_era.h"
#include "mcp_input.h"
#include "mcp_internal.h"
#include "mcp_listen.h"
#include "mcp_tasks.h"
#include "perm_agent.h"

static void progress(void *ctx, double value, double total, const char *message)
{
    mcp_call *c = ctx;
    if (!c->progress_token)
        return;
    pthread_mutex_lock(&c->mu);
    /* Progress must grow, and none may follow the response. */
    if (!c->finished && value > c->last_progress) {
        c->last_progress = value;
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToObject(p, "progressToken", mcp_id_copy(c->progress_token));
        cJSON_AddNumberToObject(p, "progress", value);
        if (total > 0)
            cJSON_AddNumberToObject(p, "total", total);
        if (message && *message)
            cJSON_AddStringToObject(p, "message", message);
        mcp_send_notification(c->srv, "notifications/progress", p);
    }
    pthread_mutex_unlock(&c->mu);
}

/* A client may pick a per-call agent by name only: a path would let it
 * load any readable file as a permission policy.  Checked here too so
 * that the client hears it as invalid params, before the engine runs. */
static int agent_name_ok(const cJSON *agent)
{
    const char *why;
    return !agent || (cJSON_IsString(agent) && perm_agent_name_valid(agent->valuestring, &why));
}

/* A JSON-RPC error (server error range), so that a client retries
 * instead of reading it as the tool's own failure. */
static void answer_busy(struct mcp_server *s, const cJSON *id)
{
    char text[200];
    snprintf(text, sizeof text,
             "Server busy: %d tool calls are already running (the limit, [mcp] "
             "max_concurrent_calls); wait for one to finish and retry.",
             s->max_calls);
    mcp_send_error(s, id, RPC_SERVER_BUSY, text);
}

static void call_free(mcp_call *c)
{
    pthread_mutex_destroy(&c->mu);
    mcp_input_free(c->in);
    free(c->principal);
    free(c->client_name);
    free(c->client_version);
    cJSON_Delete(c->msg);
    free(c);
}

static void unregister(struct mcp_server *s, mcp_call *c);

mcp_call *mcp_call_start(struct mcp_server *s, cJSON *msg, const cJSON *id, const cJSON *params,
                         const mcp_meta *era, const mcp_msg_ctx *ctx)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const char *why = NULL;
    if (!cJSON_IsString(name) || !name->valuestring[0])
        why = "Invalid params: tools/call needs a tool \"name\" (string)";
    else if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args))
        why = "Invalid params: \"arguments\" must be an object";
    else if (meta && !cJSON_IsObject(meta))
        why = "Invalid params: \"_meta\" must be an object";
    else if (!agent_name_ok(cJSON_GetObjectItemCaseSensitive(meta, "vthost/agent")))
        why = "Invalid params: _meta \"vthost/agent\" must be the name of an agent in "
              ".vtcode/agents/ (letters, digits, '_', '-', '.'; no leading dot, no '..', "
              "no .md suffix), not a path";
    if (why) {
        mcp_send_error(s, id, RPC_INVALID_PARAMS, why);
        cJSON_Delete(msg);
        return NULL;
    }

    mcp_call *c = calloc(1, sizeof *c);
    if (!c) {
        mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        cJSON_Delete(msg);
        return NULL;
    }
    c->srv = s;
    c->msg = msg;
    c->id = id;
    c->tool = name->valuestring;
    c->args = cJSON_IsObject(args) ? args : NULL;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
    if (cJSON_IsString(tok) || cJSON_IsNumber(tok))
        c->progress_token = tok;
    const cJSON *agent = cJSON_GetObjectItemCaseSensitive(meta, "vthost/agent");
    if (cJSON_IsString(agent) && agent->valuestring[0])
        c->agent = agent->valuestring;
    atomic_init(&c->cancel, 0);
    pthread_mutex_init(&c->mu, NULL);
    c->fe.ctx = c;
    c->fe.progress = progress;
    c->modern = era && era->modern;
    c->fe.opaque_handles = c->modern;
    c->log_level = c->modern ? era->log_level : -1;
    c->principal = strdup(ctx && ctx->principal ? ctx->principal : "local");
    if (!c->principal) {
        mcp_send_error(s, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        call_free(c);
        return NULL;
    }
    if (!c->modern) {
        mcp_client_frontend(s, c);
    } else {
        /* borrowed from _meta, in msg, which the call owns */
        c->fe.client_name = era->client_name;
        c->fe.client_version = era->client_version;
    }
    if (c->modern && mcp_input_begin(s, c, params, era) < 0) {
        call_free(c); /* answered */
        return NULL;
    }

    /* Registered before the next line is read, so a cancellation that
     * follows the request at once still finds it. */
    pthread_mutex_lock(&s->lock);
    int busy = s->ncalls >= s->max_calls;
    if (!busy) {
        c->next = s->calls;
        s->calls = c;
        s->ncalls++;
    }
    pthread_mutex_unlock(&s->lock);
    if (busy) {
        answer_busy(s, id);
        call_free(c);
        return NULL;
    }
    /* A 2025-era client that asks for a task gets one where tasks are
     * offered; elsewhere the call runs plainly, as for any client. */
    const cJSON *task = cJSON_GetObjectItemCaseSensitive(params, "task");
    if (!c->modern && cJSON_IsObject(task) && mcp_tasks_offered(s) &&
        mcp_tasks_begin(s, c, task) < 0) {
        unregister(s, c);
        call_free(c);
        return NULL;
    }
    return c;
}

static cJSON *text_block(const char *text)
{
    cJSON *blk = cJSON_CreateObject();
    cJSON_AddStringToObject(blk, "type", "text");
    cJSON_AddStringToObject(blk, "text", text ? text : "");
    return blk;
}

/* The CallToolResult for a finished call (takes r->response). */
static cJSON *tool_result(struct mcp_server *s, const char *tool, call_result *r)
{
    cJSON *res = cJSON_CreateObject();
    cJSON *content = cJSON_AddArrayToObject(res, "content");
    int failed = r->status != CALL_OK;
    char *text = NULL;
    if (failed && r->message)
        text = strdup(r->message);
    else if (r->response && s->ops.render)
        text = s->ops.render(tool, r->response);
    if (!text && r->response)
        text = cJSON_PrintUnformatted(r->response);
    cJSON_AddItemToArray(content, text_block(text ? text : "The tool failed."));
    free(text);
    if (cJSON_IsObject(r->response)) {
        cJSON_AddItemToObject(res, "structuredContent", r->response);
        r->response = NULL;
    }
    if (failed)
        cJSON_AddBoolToObject(res, "isError", 1);
    return res;
}

static void respond(struct mcp_server *s, mcp_call *c, call_result *r)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", mcp_id_copy(c->id));
    cJSON *res = tool_result(s, c->tool, r);
    cJSON_AddItemToObject(m, "result", c->modern ? mcp_era_result(res, NULL) : res);
    char *text = cJSON_PrintUnformatted(m);
    if (text && strlen(text) > MCP_MAX_MESSAGE) {
        cJSON_Delete(m);
        /* The output budget normally prevents this; never send a message
         * the client would refuse. */
        free(text);
        text = NULL;
        m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "jsonrpc", "2.0");
        cJSON_AddItemToObject(m, "id", mcp_id_copy(c->id));
        res = cJSON_AddObjectToObject(m, "result");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "content"),
                             text_block("The tool's response exceeds the 10 MiB message "
                                        "limit; retry with a smaller max_output_tokens "
                                        "or a narrower request."));
        cJSON_AddBoolToObject(res, "isError", 1);
        if (c->modern)
            mcp_era_result(res, NULL);
        text = cJSON_PrintUnformatted(m);
    }
    if (text)
        mcp_send_built(s, m, text, strlen(text));
    cJSON_Delete(m);
    free(text);
}

/* Before the result: a client that re-lists when it reads the notice
 * then has the found tools for the model's next turn, not one turn
 * later.  2025-era clients hear it once initialized (or from their own
 * call); 2026-07-28 clients on their subscriptions/listen streams. */
static void announce_list_change(struct mcp_server *s, mcp_call *c)
{
    if (!c->modern || atomic_load(&s->initialized))
        mcp_send_notification(s, "notifications/tools/list_changed", NULL);
    mcp_listen_tools_changed(s);
}

static int was_cancelled(struct mcp_server *s, mcp_call *c)
{
    pthread_mutex_lock(&s->lock);
    int cancelled = c->cancelled;
    pthread_mutex_unlock(&s->lock);
    return cancelled;
}

/* After the response is queued: until then the call counts against the
 * limit, so threads waiting for output room stay bounded by it. */
static void unregister(struct mcp_server *s, mcp_call *c)
{
    pthread_mutex_lock(&s->lock);
    for (mcp_call **p = &s->calls; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    s->ncalls--;
    pthread_mutex_unlock(&s->lock);
}

void mcp_call_run(struct mcp_server *s, mcp_call *c)
{
    call_request req = {
        .tool = c->tool, .args = c->args, .agent = c->agent, .fe = &c->fe, .cancel = &c->cancel};
    call_result r = {0};
    mcp_era_enter(c);
    int rc = s->ops.call(&req, &r);
    mcp_era_enter(NULL);

    pthread_mutex_lock(&c->mu);
    c->finished = 1;
    pthread_mutex_unlock(&c->mu);
    int cancelled = was_cancelled(s, c);

    if (c->task) {
        /* its request was answered with the task: the result goes to
         * tasks/result */
        if (r.list_changed)
            announce_list_change(s, c);
        mcp_tasks_finish(s, c, tool_result(s, c->tool, &r));
    } else if (cancelled || r.status == CALL_CANCELLED) {
        /* A cancelled request gets no response. */
    } else if (r.status == CALL_UNKNOWN) {
        mcp_send_error(s, c->id, RPC_INVALID_PARAMS, r.message ? r.message : "Unknown tool");
    } else if (rc < 0 && !r.response && !r.message) {
        mcp_send_error(s, c->id, RPC_INTERNAL_ERROR, "Internal error running the tool");
    } else if (!mcp_input_finish(s, c, &r)) {
        if (r.list_changed)
            announce_list_change(s, c);
        respond(s, c, &r);
    }
    unregister(s, c);
    /* call_result_free's contract, inlined so the engine needs nothing
     * of the pipeline but the ops table. */
    cJSON_Delete(r.response);
    free(r.message);
    call_free(c);
}

void mcp_call_cancel(struct mcp_server *s, const cJSON *id)
{
    pthread_mutex_lock(&s->lock);
    for (mcp_call *c = s->calls; c; c = c->next) {
        if (mcp_id_equal(c->id, id)) {
            c->cancelled = 1;
            atomic_store(&c->cancel, 1);
        }
    }
    /* A call waiting on a client reply gives up. */
    pthread_cond_broadcast(&s->reply_cond);
    pthread_mutex_unlock(&s->lock);
}

void mcp_call_cancel_all_locked(struct mcp_server *s)
{
    for (mcp_call *c = s->calls; c; c = c->next) {
        c->cancelled = 1;
        atomic_store(&c->cancel, 1);
    }
    pthread_cond_broadcast(&s->reply_cond);
}
