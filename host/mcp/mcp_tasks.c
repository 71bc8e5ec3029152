/* MCP tasks (2025-11-25) for vthost's own clients: see mcp_tasks.h.  The
 * call of a task is an ordinary registered call; only its answer moves:
 * the tools/call request is answered with the task at once, and the
 * CallToolResult goes to the tasks/result requests that wait for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "mcp_tasks.h"
#include "monotime.h"

/* Tasks a session keeps at once (running, or finished and not expired):
 * a client that starts more is told to wait for some to end. */
#define MAX_TASKS 64
#define POLL_MS 1000
/* What a client may ask for as ttl, and what it gets without one. */
#define TTL_MIN_MS 1000L
#define TTL_MAX_MS 86400000L
#define TTL_DEFAULT_MS 600000L

typedef struct mcp_task {
    struct mcp_task *next;
    char id[33];
    const char *status; /* working, completed, failed, cancelled */
    mcp_call *call;     /* while the call runs */
    cJSON *result;      /* the CallToolResult, once it ended */
    cJSON *waiting;     /* ids of tasks/result requests not answered yet */
    char created[32], updated[32];
    long ttl_ms;
    int64_t expires_ms; /* monotonic; set when it ends */
} mcp_task;

int mcp_tasks_offered(const struct mcp_server *s)
{
    return !s->sink && !s->front && !s->inline_calls;
}

void mcp_tasks_capability(const struct mcp_server *s, cJSON *caps)
{
    if (!mcp_tasks_offered(s))
        return;
    cJSON *t = cJSON_AddObjectToObject(caps, "tasks");
    cJSON_AddObjectToObject(t, "list");
    cJSON_AddObjectToObject(t, "cancel");
    cJSON_AddObjectToObject(
        cJSON_AddObjectToObject(cJSON_AddObjectToObject(t, "requests"), "tools"), "call");
}

void mcp_tasks_mark_tools(const struct mcp_server *s, cJSON *tools)
{
    if (!mcp_tasks_offered(s))
        return;
    cJSON *t;
    cJSON_ArrayForEach(t, tools)
    {
        if (cJSON_IsObject(t) && !cJSON_GetObjectItemCaseSensitive(t, "execution"))
            cJSON_AddStringToObject(cJSON_AddObjectToObject(t, "execution"), "taskSupport",
                                    "optional");
    }
}

static void stamp(char out[32])
{
    struct timespec now;
    struct tm tm;
    wall_now(&now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *task_json(const mcp_task *t)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "taskId", t->id);
    cJSON_AddStringToObject(j, "status", t->status);
    cJSON_AddStringToObject(j, "createdAt", t->created);
    cJSON_AddStringToObject(j, "lastUpdatedAt", t->updated);
    cJSON_AddNumberToObject(j, "ttl", (double)t->ttl_ms);
    cJSON_AddNumberToObject(j, "pollInterval", POLL_MS);
    return j;
}

static void task_free(mcp_task *t)
{
    cJSON_Delete(t->result);
    cJSON_Delete(t->waiting);
    free(t);
}

/* Drops ended tasks past their time and counts the rest.  Caller holds
 * s->lock. */
static int prune_locked(struct mcp_server *s)
{
    int n = 0;
    int64_t now = mono_now_ms();
    for (mcp_task **p = &s->tasks; *p;) {
        mcp_task *t = *p;
        if (!t->call && t->expires_ms && now >= t->expires_ms && !cJSON_GetArraySize(t->waiting)) {
            *p = t->next;
            task_free(t);
            continue;
        }
        n++;
        p = &t->next;
    }
    return n;
}

static mcp_task *find_locked(struct mcp_server *s, const cJSON *params)
{
    const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "taskId"));
    for (mcp_task *t = s->tasks; id && t; t = t->next)
        if (strcmp(t->id, id) == 0)
            return t;
    return NULL;
}

static long ttl_of(const cJSON *task)
{
    const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(task, "ttl");
    if (!cJSON_IsNumber(ttl))
        return TTL_DEFAULT_MS;
    double v = ttl->valuedouble;
    return v < TTL_MIN_MS ? TTL_MIN_MS : v > TTL_MAX_MS ? TTL_MAX_MS : (long)v;
}

int mcp_tasks_begin(struct mcp_server *s, mcp_call *c, const cJSON *task)
{
    unsigned char raw[16];
    mcp_task *t = calloc(1, sizeof *t);
    if (!t || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw ||
        !(t->waiting = cJSON_CreateArray())) {
        free(t);
        mcp_send_error(s, c->id, RPC_INTERNAL_ERROR, "Internal error: cannot create the task");
        return -1;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(t->id + 2 * i, 3, "%02x", raw[i]);
    t->status = "working";
    t->call = c;
    t->ttl_ms = ttl_of(task);
    stamp(t->created);
    memcpy(t->updated, t->created, sizeof t->updated);
    pthread_mutex_lock(&s->lock);
    int full = prune_locked(s) >= MAX_TASKS;
    if (!full) {
        t->next = s->tasks;
        s->tasks = t;
        c->task = t;
    }
    cJSON *answer = full ? NULL : cJSON_CreateObject();
    if (answer)
        cJSON_AddItemToObject(answer, "task", task_json(t));
    pthread_mutex_unlock(&s->lock);
    if (full) {
        task_free(t);
        mcp_send_error(s, c->id, RPC_SERVER_BUSY,
                       "Server busy: 64 tasks are kept already; take the results of finished "
                       "ones with tasks/result or cancel some, then retry.");
        return -1;
    }
    mcp_send_result(s, c->id, answer);
    return 0;
}

/* The task's result for a tasks/result request: its CallToolResult with
 * the task named in _meta. */
static cJSON *result_for(const mcp_task *t)
{
    cJSON *r = t->result ? cJSON_Duplicate(t->result, 1) : NULL;
    if (!r) {
        r = cJSON_CreateObject();
        cJSON *blk = cJSON_CreateObject();
        cJSON_AddStringToObject(blk, "type", "text");
        cJSON_AddStringToObject(blk, "text", "The task was cancelled before its tool finished.");
        cJSON_AddItemToArray(cJSON_AddArrayToObject(r, "content"), blk);
        cJSON_AddBoolToObject(r, "isError", 1);
    }
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(r, "_meta");
    if (!cJSON_IsObject(meta)) {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "_meta");
        meta = cJSON_AddObjectToObject(r, "_meta");
    }
    cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "io.modelcontextprotocol/related-task"),
                            "taskId", t->id);
    return r;
}

void mcp_tasks_finish(struct mcp_server *s, mcp_call *c, cJSON *result)
{
    mcp_task *t = c->task;
    pthread_mutex_lock(&s->lock);
    t->call = NULL;
    c->task = NULL;
    if (strcmp(t->status, "cancelled") != 0) {
        t->status = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError")) ? "failed"
                                                                                      : "completed";
        t->result = result;
        result = NULL;
        stamp(t->updated);
    }
    t->expires_ms = mono_now_ms() + t->ttl_ms;
    cJSON *waiting = t->waiting;
    t->waiting = cJSON_CreateArray();
    cJSON *answer = result_for(t);
    pthread_mutex_unlock(&s->lock);
    cJSON_Delete(result);
    const cJSON *id;
    cJSON_ArrayForEach(id, waiting) mcp_send_result(s, id, cJSON_Duplicate(answer, 1));
    cJSON_Delete(answer);
    cJSON_Delete(waiting);
}

static int terminal(const mcp_task *t) { return !t->call; }

/* tasks/cancel: the call is cancelled as by notifications/cancelled; the
 * task is cancelled at once.  Caller holds s->lock; returns the answer. */
static cJSON *cancel_locked(struct mcp_server *s, mcp_task *t)
{
    t->status = "cancelled";
    stamp(t->updated);
    if (t->call)
        atomic_store(&t->call->cancel, 1);
    pthread_cond_broadcast(&s->reply_cond); /* a call waiting on the client gives up */
    return task_json(t);
}

int mcp_tasks_request(struct mcp_server *s, const cJSON *id, const char *method,
                      const cJSON *params)
{
    if (strncmp(method, "tasks/", 6) != 0 || !mcp_tasks_offered(s))
        return 0;
    const char *m = method + 6;
    if (strcmp(m, "get") && strcmp(m, "result") && strcmp(m, "cancel") && strcmp(m, "list"))
        return 0;
    cJSON *answer = NULL;
    const char *why = NULL;
    pthread_mutex_lock(&s->lock);
    prune_locked(s);
    mcp_task *t = strcmp(m, "list") == 0 ? NULL : find_locked(s, params);
    if (strcmp(m, "list") == 0) {
        answer = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(answer, "tasks");
        for (mcp_task *x = s->tasks; x; x = x->next)
            cJSON_AddItemToArray(arr, task_json(x));
    } else if (!t) {
        why = "Invalid params: no such task (give the taskId of a task of this session that "
              "has not expired)";
    } else if (strcmp(m, "get") == 0) {
        answer = task_json(t);
    } else if (strcmp(m, "cancel") == 0) {
        if (terminal(t) || strcmp(t->status, "cancelled") == 0)
            why = "Invalid params: the task has already ended; it cannot be cancelled";
        else
            answer = cancel_locked(s, t);
    } else if (terminal(t)) {
        answer = result_for(t);
    } else {
        cJSON_AddItemToArray(t->waiting, mcp_id_copy(id)); /* answered by mcp_tasks_finish */
    }
    pthread_mutex_unlock(&s->lock);
    if (why)
        mcp_send_error(s, id, RPC_INVALID_PARAMS, why);
    else if (answer)
        mcp_send_result(s, id, answer);
    return 1;
}

void mcp_tasks_free_all(struct mcp_server *s)
{
    while (s->tasks) {
        mcp_task *next = s->tasks->next;
        task_free(s->tasks);
        s->tasks = next;
    }
}
