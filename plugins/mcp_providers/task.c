/* A provider tool call run as an MCP task (2025-11-25 tasks/ methods).
 *
 * The tools/call carries `task` and a progress token of its own; the
 * provider answers with a CreateTaskResult at once.  vthost then asks
 * tasks/get every pollInterval (the provider's; at once when it sends
 * notifications/tasks/status) and relays each new statusMessage as the
 * call's progress, unless the provider reports progress itself under the
 * token, which is relayed as it comes.  Once the task is completed,
 * failed or input_required, tasks/result takes the tool's result: a
 * provider queues the requests for the client it makes in input_required
 * (an elicitation) until then, and sends them while tasks/result waits,
 * so they are relayed for this call as in a plain call.
 *
 * The call's cancellation and its deadline (tool_timeout_seconds) end
 * the task with tasks/cancel; the deadline's error says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/clock.h>
#include "task.h"

#define TASK_POLL_DEFAULT_MS 1000 /* a provider that names no pollInterval */
#define TASK_POLL_MIN_MS 50       /* a pollInterval of 0 must not spin */
#define TASK_CANCEL_WAIT_MS 5000  /* for the answer to tasks/cancel */
/* The ttl asked for: the call's time and then some, so that a result
 * that comes at the last moment can still be fetched. */
#define TASK_TTL_SLACK_MS 60000
/* What the client is shown must grow: status messages move it by a
 * hair, and a provider value at or below what was shown comes out a hair
 * above it. */
#define TASK_PROGRESS_STEP 0.001

void task_route_progress_locked(provider *p, double token, double progress, double total,
                                const char *msg)
{
    for (task_route *r = p->routes; r; r = r->next)
        if ((double)r->token == token || (r->result_token && (double)r->result_token == token)) {
            r->own_progress = 1;
            r->shown = progress > r->shown ? progress : r->shown + TASK_PROGRESS_STEP;
            mcpp_api->call_progress(r->call, r->shown, total, msg);
        }
}

void task_route_notified(provider *p, const cJSON *params)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "taskId"));
    if (!id)
        return;
    pthread_mutex_lock(&p->mu);
    for (task_route *r = p->routes; r; r = r->next)
        if (r->task_id[0] && strcmp(r->task_id, id) == 0) {
            r->kicked = 1;
            pthread_cond_broadcast(&p->cond);
        }
    pthread_mutex_unlock(&p->mu);
}

static void route_add(provider *p, task_route *r)
{
    pthread_mutex_lock(&p->mu);
    r->next = p->routes;
    p->routes = r;
    pthread_mutex_unlock(&p->mu);
}

static void route_drop(provider *p, task_route *r)
{
    pthread_mutex_lock(&p->mu);
    for (task_route **pp = &p->routes; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    pthread_mutex_unlock(&p->mu);
    free(r->status_msg);
}

/* A new statusMessage (or status) becomes the call's progress while the
 * provider sends no progress of its own. */
static void route_status(provider *p, task_route *r, const char *status, const char *msg)
{
    char text[400];
    snprintf(text, sizeof text, "MCP task %.40s%s%.300s", status, msg ? ": " : "", msg ? msg : "");
    pthread_mutex_lock(&p->mu);
    if (!r->own_progress && (!r->status_msg || strcmp(r->status_msg, text) != 0)) {
        free(r->status_msg);
        r->status_msg = strdup(text);
        r->shown += TASK_PROGRESS_STEP;
        mcpp_api->call_progress(r->call, r->shown, 0, text);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Up to ms, cut short by a status notification of r's task, the call's
 * cancellation, or the provider going away. */
static void route_wait(provider *p, task_route *r, int ms)
{
    struct timespec until;
    provider_deadline(&until, ms);
    pthread_mutex_lock(&p->mu);
    while (!r->kicked && p->connected && !p->stopping && !mcpp_api->call_cancelled(r->call)) {
        int64_t left = vt_clock_ms_until(&until);
        if (left <= 0)
            break;
        struct timespec slice; /* cancellation is polled: nothing signals it */
        provider_deadline(&slice, left < 50 ? (int)left : 50);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
    r->kicked = 0;
    pthread_mutex_unlock(&p->mu);
}

static int ms_left(const struct timespec *deadline)
{
    int64_t ms = vt_clock_ms_until(deadline);
    return ms < 1 ? 0 : ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

static cJSON *task_params(const char *task_id)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "taskId", task_id);
    return o;
}

static const char *str_of(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* The JSON-RPC error of a reply as *err ("tasks/get: message"); 1 when
 * there was one. */
static int reply_error(const provider *p, const cJSON *reply, const char *method, char **err)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (!e && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(reply, "result")))
        return 0;
    const char *m = str_of(e, "message");
    char buf[500];
    snprintf(buf, sizeof buf, "MCP provider '%s' refused %s: %.300s", p->name, method,
             e ? (m ? m : "no message") : "the answer has no result");
    *err = strdup(buf);
    return 1;
}

/* Poll the task (*task: its latest Task object, replaced as it changes)
 * until its result can be taken. */
static int poll_task(provider *p, task_route *r, const struct timespec *deadline, cJSON **task,
                     char **err)
{
    char buf[400];
    for (;;) {
        const char *status = str_of(*task, "status");
        route_status(p, r, status ? status : "?", str_of(*task, "statusMessage"));
        if (status && (strcmp(status, "completed") == 0 || strcmp(status, "failed") == 0 ||
                       strcmp(status, "input_required") == 0))
            return VT_OK;
        if (!status || strcmp(status, "working") != 0) {
            const char *m = str_of(*task, "statusMessage");
            snprintf(buf, sizeof buf,
                     "MCP provider '%s' ended the task with status '%.40s'%s%.300s", p->name,
                     status ? status : "(none)", m ? ": " : "", m ? m : "");
            *err = strdup(buf);
            r->ended = 1; /* nothing left to cancel */
            return VT_ERR_IO;
        }
        const cJSON *every = cJSON_GetObjectItemCaseSensitive(*task, "pollInterval");
        double ms = cJSON_IsNumber(every) ? every->valuedouble : TASK_POLL_DEFAULT_MS;
        int left = ms_left(deadline);
        route_wait(p, r, ms < TASK_POLL_MIN_MS ? TASK_POLL_MIN_MS : ms < left ? (int)ms : left);
        if (mcpp_api->call_cancelled(r->call))
            return VT_ERR_CANCELLED;
        if ((left = ms_left(deadline)) == 0)
            return VT_ERR_IO; /* task_call says why */
        cJSON *reply = NULL;
        int wait = p->lim.request_timeout_ms < left ? p->lim.request_timeout_ms : left;
        int rc = provider_request(p, "tasks/get", task_params(r->task_id), NULL, wait, &reply, err);
        if (rc == VT_OK && reply_error(p, reply, "tasks/get", err))
            rc = VT_ERR_IO;
        if (rc == VT_OK) {
            cJSON_Delete(*task);
            *task = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
        }
        cJSON_Delete(reply);
        if (rc != VT_OK)
            return rc;
    }
}

/* After the tools/call answered (`created`, taken): follow the task it
 * created to its result.  An answer without a task (an error, or a
 * provider that ran the tool plainly) is the reply as it is. */
static int follow(provider *p, task_route *r, const struct timespec *deadline, cJSON *created,
                  cJSON **reply, char **err)
{
    cJSON *task = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(created, "result"), "task");
    const char *id = str_of(task, "taskId");
    if (!id) {
        *reply = created;
        return VT_OK;
    }
    if (strlen(id) >= sizeof r->task_id) {
        cJSON_Delete(created);
        *err = strdup("the MCP provider's task id is longer than vthost keeps (127 bytes)");
        return VT_ERR_IO;
    }
    pthread_mutex_lock(&p->mu);
    memcpy(r->task_id, id, strlen(id) + 1);
    pthread_mutex_unlock(&p->mu);
    task = cJSON_DetachItemViaPointer(cJSON_GetObjectItemCaseSensitive(created, "result"), task);
    cJSON_Delete(created);
    int rc = poll_task(p, r, deadline, &task, err);
    cJSON_Delete(task);
    if (rc != VT_OK)
        return rc;
    int left = ms_left(deadline);
    if (left == 0)
        return VT_ERR_IO;
    /* a token of the route's own: progress under it keeps growing */
    cJSON *params = task_params(r->task_id);
    long token = provider_new_token(p);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "_meta"), "progressToken",
                            (double)token);
    pthread_mutex_lock(&p->mu);
    r->result_token = token;
    pthread_mutex_unlock(&p->mu);
    rc = provider_request(p, "tasks/result", params, r->call, left, reply, err);
    if (rc == VT_OK && cJSON_GetObjectItemCaseSensitive(*reply, "error")) {
        /* the task's own failure, as a plain call's error would be */
        return VT_OK;
    }
    return rc;
}

/* Ask the provider to stop the task; its answer is only logged. */
static void cancel_task(provider *p, const char *task_id, const char *why)
{
    cJSON *reply = NULL;
    char *err = NULL;
    int rc = provider_request(p, "tasks/cancel", task_params(task_id), NULL, TASK_CANCEL_WAIT_MS,
                              &reply, &err);
    const char *m = str_of(cJSON_GetObjectItemCaseSensitive(reply, "error"), "message");
    mcpp_api->log(VT_LOG_INFO, "mcp_providers", "%s: task %s cancelled (%s)%s%s", p->name, task_id,
                  why,
                  rc != VT_OK ? ": "
                  : m         ? ": the provider says "
                              : "",
                  rc != VT_OK ? (err ? err : "no answer")
                  : m         ? m
                              : "");
    cJSON_Delete(reply);
    free(err);
}

int task_call(provider *p, vt_call *call, cJSON *params, int timeout_ms, cJSON **reply, char **err)
{
    *reply = NULL;
    *err = NULL;
    task_route r = {0};
    r.token = provider_new_token(p);
    r.call = call;
    char *tool = strdup(str_of(params, "name") ? str_of(params, "name") : "?");
    struct timespec deadline;
    provider_deadline(&deadline, timeout_ms);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "task"), "ttl",
                            (double)timeout_ms + TASK_TTL_SLACK_MS);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(params, "_meta"), "progressToken",
                            (double)r.token);
    route_add(p, &r);
    cJSON *created = NULL;
    int rc = provider_request(p, "tools/call", params, call, timeout_ms, &created, err);
    if (rc == VT_OK)
        rc = follow(p, &r, &deadline, created, reply, err);
    route_drop(p, &r);
    if (rc != VT_OK && r.task_id[0] && !r.ended) {
        int cancelled = rc == VT_ERR_CANCELLED || mcpp_api->call_cancelled(call);
        int late = !cancelled && ms_left(&deadline) == 0;
        cancel_task(p, r.task_id,
                    cancelled ? "the call was cancelled"
                    : late    ? "timed out"
                              : "failed");
        if (cancelled) {
            rc = VT_ERR_CANCELLED;
        } else if (late) {
            char buf[400];
            snprintf(buf, sizeof buf,
                     "MCP provider '%s' did not finish the task of '%.100s' within %d s "
                     "(tool_timeout_seconds): vthost cancelled it (tasks/cancel)",
                     p->name, tool, (timeout_ms + 999) / 1000);
            free(*err);
            *err = strdup(buf);
            rc = VT_ERR_IO;
        }
    }
    free(tool);
    return rc;
}
