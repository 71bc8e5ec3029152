/* mcp_providers: other MCP servers' tools as deferred vthost tools.
 *
 * Each [[mcp.providers]] entry is an MCP server (a child process on
 * stdio, or a Streamable HTTP endpoint) started on first
 * need (a catalog search, or a call naming one of its tools) or at
 * start with eager_start.  Its tools are registered with the host as
 * mcp__<provider>__<tool> (host API 1.2 dynamic tools) and every call
 * goes through the host's whole pipeline: schema, permissions (the
 * mcp__server rules), output budget and spool, audit.  A provider that
 * fails fails only its own calls; it is restarted with backoff up to
 * retry_attempts, and its tools stay in the catalog marked unavailable. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vthost/clock.h>
#include <vthost/services.h>
#include "cache.h"
#include "config.h"
#include "provider.h"
#include "relay.h"
#include "result.h"
#include "task.h"
#include "tools.h"

#define PROTOCOL_VERSION "2025-06-18"
#define MAX_PAGES 1000

static mcpp_config g_cfg;
static pthread_t g_eager;
static int g_eager_running;
/* Re-lists providers that announced a tool list change, off the reader
 * thread (which must keep reading the answer). */
static pthread_t g_refresher;
static int g_refresher_running, g_refresh_stop, g_refresh_wanted;
static pthread_mutex_t g_refresh_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_refresh_cond = PTHREAD_COND_INITIALIZER;

static void now_mono(struct timespec *t) { vt_clock_now(t); }

static long ms_until(const struct timespec *t) { return (long)vt_clock_ms_until(t); }

/* tools/list, following nextCursor. */
static int list_tools(provider *p, char **err)
{
    cJSON *all = cJSON_CreateArray();
    char *cursor = NULL;
    int rc = VT_OK;
    for (int page = 0; page < MAX_PAGES; page++) {
        cJSON *params = cJSON_CreateObject();
        if (cursor)
            cJSON_AddStringToObject(params, "cursor", cursor);
        free(cursor);
        cursor = NULL;
        cJSON *reply = NULL;
        rc =
            provider_request(p, "tools/list", params, NULL, p->lim.request_timeout_ms, &reply, err);
        if (rc != VT_OK)
            break;
        cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
        cJSON *tools = cJSON_GetObjectItemCaseSensitive(result, "tools");
        if (!cJSON_IsArray(tools)) {
            cJSON_Delete(reply);
            char buf[200];
            snprintf(buf, sizeof buf,
                     "MCP provider '%s' answered tools/list without a tools "
                     "array",
                     p->name);
            *err = strdup(buf);
            rc = VT_ERR_IO;
            break;
        }
        cJSON *t;
        while ((t = cJSON_DetachItemFromArray(tools, 0)))
            cJSON_AddItemToArray(all, t);
        const char *next =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "nextCursor"));
        cursor = next && *next ? strdup(next) : NULL;
        cJSON_Delete(reply);
        if (!cursor)
            break;
    }
    free(cursor);
    if (rc != VT_OK) {
        cJSON_Delete(all);
        return rc;
    }
    cache_store(p, all);
    tools_sync(p, all);
    return VT_OK;
}

static int handshake(provider *p, char **err)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "protocolVersion",
                            p->protocol_version ? p->protocol_version : PROTOCOL_VERSION);
    cJSON_AddItemToObject(params, "capabilities", relay_capabilities());
    cJSON *info = cJSON_AddObjectToObject(params, "clientInfo");
    cJSON_AddStringToObject(info, "name", "vthost");
    cJSON_AddStringToObject(info, "version", "0.1.0");
    cJSON *reply = NULL;
    int rc =
        provider_request(p, "initialize", params, NULL, p->lim.startup_timeout_ms, &reply, err);
    if (rc != VT_OK)
        return rc;
    cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (!cJSON_IsObject(result) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "protocolVersion"))) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        char buf[400];
        snprintf(buf, sizeof buf, "MCP provider '%s' refused initialize: %.200s", p->name,
                 m ? m : "no protocolVersion in its answer");
        *err = strdup(buf);
        cJSON_Delete(reply);
        return VT_ERR_IO;
    }
    cJSON_Delete(reply);
    provider_notify(p, "notifications/initialized", NULL);
    return VT_OK;
}

/* A failed provider past its restarts is disabled, saying so.  Caller
 * holds p->mu. */
static void give_up_locked(provider *p)
{
    if (p->state != PROV_FAILED || p->failures <= p->lim.retry_attempts)
        return;
    p->state = PROV_DISABLED;
    char *old = p->reason;
    size_t len = (old ? strlen(old) : 0) + 128;
    p->reason = malloc(len);
    if (p->reason)
        snprintf(p->reason, len, "%s (gave up after %d restarts)", old ? old : "failed",
                 p->lim.retry_attempts);
    free(old);
}

/* A failed provider's restart: after its backoff (VT_ERR_BUSY at once
 * when `wait` is 0 and the backoff is not over). */
static int await_restart(provider *p, vt_call *call, int wait, const struct timespec *retry_at,
                         const char *reason, char **err)
{
    long left = ms_until(retry_at);
    if (left > 0 && !wait) {
        *err = strdup(reason ? reason : "restart pending");
        return VT_ERR_BUSY;
    }
    while (left > 0 && !(call && mcpp_api->call_cancelled(call)) && !p->stopping) {
        struct timespec d = {0, (left > 50 ? 50 : left) * 1000000L};
        nanosleep(&d, NULL);
        left = ms_until(retry_at);
    }
    pthread_mutex_lock(&p->mu);
    p->restarts++;
    pthread_mutex_unlock(&p->mu);
    mcpp_api->log(VT_LOG_NOTICE, MCPP_PLUGIN, "restarting MCP provider '%s' (%s)", p->name,
                  reason ? reason : "failed");
    return VT_OK;
}

/* Start p, initialize it and list its tools; on failure p is FAILED (or
 * stays DISABLED) with the reason, and a restart waits its backoff. */
static int start_provider(provider *p, char **err)
{
    int rc = provider_open(p, err);
    if (rc == VT_OK)
        rc = handshake(p, err);
    if (rc == VT_OK) {
        pthread_mutex_lock(&p->mu);
        if (p->state == PROV_STARTING)
            p->state = PROV_READY;
        pthread_mutex_unlock(&p->mu);
        rc = list_tools(p, err);
    }
    pthread_mutex_lock(&p->mu);
    if (rc != VT_OK) {
        if (p->connected) {
            pthread_mutex_unlock(&p->mu);
            provider_fail(p, *err ? *err : "start failed");
            pthread_mutex_lock(&p->mu);
        }
        if (p->state != PROV_DISABLED) {
            p->state = PROV_FAILED;
            free(p->reason);
            p->reason = strdup(*err ? *err : "start failed");
        }
    }
    if (p->state == PROV_FAILED) {
        /* backoff: 250 ms, doubling, at most 8 s */
        int f = p->failures < 1 ? 1 : p->failures > 6 ? 6 : p->failures;
        now_mono(&p->retry_at);
        long ms = 250L << (f - 1);
        p->retry_at.tv_sec += ms / 1000;
        p->retry_at.tv_nsec += (ms % 1000) * 1000000L;
        if (p->retry_at.tv_nsec >= 1000000000L) {
            p->retry_at.tv_sec++;
            p->retry_at.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_unlock(&p->mu);
    if (rc != VT_OK)
        tools_mark(p, 0);
    return rc;
}

/* Start (or restart) p when it is not ready; re-list when it said its
 * tools changed.  `wait` 0: skip a provider still in its backoff.
 * Returns 0 when ready, else a status with *err (malloc'd). */
static int ensure_ready(provider *p, vt_call *call, int wait, char **err)
{
    *err = NULL;
    pthread_mutex_lock(&p->start_mu);
    pthread_mutex_lock(&p->mu);
    give_up_locked(p);
    provider_state st = p->state;
    int dirty = p->list_dirty;
    p->list_dirty = 0;
    char *reason = p->reason ? strdup(p->reason) : NULL;
    struct timespec retry_at = p->retry_at;
    pthread_mutex_unlock(&p->mu);

    int rc = VT_OK;
    pthread_mutex_lock(&p->mu);
    int stopping = p->stopping;
    pthread_mutex_unlock(&p->mu);
    if (stopping) {
        *err = strdup("vthost is ending");
        rc = VT_ERR_CANCELLED;
    } else if (st == PROV_READY) {
        if (dirty && list_tools(p, err) != VT_OK) {
            mcpp_api->log(VT_LOG_WARNING, MCPP_PLUGIN, "%s", *err ? *err : "tools/list failed");
            free(*err);
            *err = NULL;
        }
    } else if (st == PROV_DISABLED) {
        size_t len = strlen(p->name) + (reason ? strlen(reason) : 0) + 64;
        *err = malloc(len);
        if (*err)
            snprintf(*err, len, "MCP provider '%s' is unavailable: %s", p->name,
                     reason ? reason : "disabled");
        rc = VT_ERR_UNSUPPORTED;
    } else {
        if (st == PROV_FAILED)
            rc = await_restart(p, call, wait, &retry_at, reason, err);
        if (rc == VT_OK)
            rc = start_provider(p, err);
    }
    free(reason);
    pthread_mutex_unlock(&p->start_mu);
    return rc;
}

/* ---- calls ---------------------------------------------------------- */

static int gate_enter(provider *p, vt_call *call)
{
    pthread_mutex_lock(&p->mu);
    while (p->active_calls >= p->lim.max_concurrent && !mcpp_api->call_cancelled(call)) {
        struct timespec t;
        now_mono(&t);
        t.tv_nsec += 50000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->mu, &t);
    }
    int ok = p->active_calls < p->lim.max_concurrent;
    if (ok) {
        p->active_calls++;
        p->calls++;
    }
    pthread_mutex_unlock(&p->mu);
    return ok ? VT_OK : VT_ERR_CANCELLED;
}

static void gate_leave(provider *p)
{
    pthread_mutex_lock(&p->mu);
    p->active_calls--;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

/* A call that timed out: a provider that no longer answers a ping is
 * hung, and is killed so the next call starts a fresh one. */
static void check_alive(provider *p)
{
    cJSON *reply = NULL;
    char *err = NULL;
    int rc = provider_request(p, "ping", NULL, NULL, 2000, &reply, &err);
    cJSON_Delete(reply);
    if (rc != VT_OK) {
        char buf[300];
        snprintf(buf, sizeof buf, "MCP provider '%s' stopped answering (hung)", p->name);
        provider_fail(p, buf);
    }
    free(err);
}

/* The connection ended before the provider processed what was in
 * flight (an HTTP server that forgot the session): sending it again is
 * safe.  Clears the mark. */
static int resend_ok(provider *p)
{
    pthread_mutex_lock(&p->mu);
    int ok = p->resend_ok && p->state == PROV_FAILED;
    p->resend_ok = 0;
    pthread_mutex_unlock(&p->mu);
    return ok;
}

/* The tools/call (params taken): a plain request, or a task (task.h). */
static int send_call(provider *p, vt_call *call, cJSON *params, int task, cJSON **reply, char **err)
{
    if (task)
        return task_call(p, call, params, p->lim.tool_timeout_ms, reply, err);
    return provider_request(p, "tools/call", params, call, p->lim.tool_timeout_ms, reply, err);
}

int mcpp_run(vt_call *call, const cJSON *args, cJSON **result)
{
    char *tool = NULL, *err = NULL;
    provider *p = tools_lookup(mcpp_api->call_tool(call), &tool);
    if (!p)
        return mcpp_api->call_error(call, VT_ERR_NOT_FOUND, "no MCP provider owns tool '%s'",
                                    mcpp_api->call_tool(call));
    int rc = ensure_ready(p, call, 1, &err);
    if (rc != VT_OK) {
        rc = mcpp_api->call_error(call, rc == VT_ERR_CANCELLED ? rc : VT_ERR_IO, "%s",
                                  err ? err : "the MCP provider is unavailable");
        goto out;
    }
    if ((rc = gate_enter(p, call)) != VT_OK) {
        rc = mcpp_api->call_error(call, VT_ERR_CANCELLED, "cancelled");
        goto out;
    }
    provider_roots_settle(p);
    cJSON *params = cJSON_CreateObject();
    cJSON_AddStringToObject(params, "name", tool);
    cJSON *a = cJSON_Duplicate(args, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(a, "max_output_tokens"); /* vthost's own */
    cJSON_AddItemToObject(params, "arguments", a);
    cJSON *again = cJSON_Duplicate(params, 1);
    cJSON *reply = NULL;
    int task = tools_task_only(mcpp_api->call_tool(call));
    rc = send_call(p, call, params, task, &reply, &err);
    if (rc == VT_ERR_IO && resend_ok(p)) {
        /* the server forgot the session before it saw the call: a new
         * session, and the call once more */
        char *why = err;
        err = NULL;
        if (ensure_ready(p, call, 1, &err) == VT_OK) {
            free(why);
            rc = send_call(p, call, again, task, &reply, &err);
            again = NULL;
        } else {
            free(err);
            err = why;
        }
    }
    cJSON_Delete(again);
    gate_leave(p);
    if (rc == VT_ERR_CANCELLED) {
        rc = mcpp_api->call_error(call, VT_ERR_CANCELLED, "cancelled");
    } else if (rc != VT_OK) {
        if (err && strstr(err, "did not answer"))
            check_alive(p);
        rc = mcpp_api->call_error(call, VT_ERR_IO, "%s", err ? err : "the MCP provider failed");
        pthread_mutex_lock(&p->mu);
        int failed = p->state == PROV_FAILED;
        pthread_mutex_unlock(&p->mu);
        if (failed)
            tools_mark(p, 0);
    } else {
        rc = result_convert(call, p, tool, reply, result);
        pthread_mutex_lock(&p->mu);
        p->failures = 0; /* a provider that answers is healthy again */
        pthread_mutex_unlock(&p->mu);
    }
    cJSON_Delete(reply);
out:
    free(err);
    free(tool);
    return rc;
}

/* ---- start on demand --------------------------------------------------- */

typedef struct start_job {
    provider *p;
    pthread_t th;
    int started;
} start_job;

static void *start_main(void *arg)
{
    start_job *j = arg;
    char *err = NULL;
    if (ensure_ready(j->p, NULL, 0, &err) != VT_OK && err)
        mcpp_api->log(VT_LOG_WARNING, MCPP_PLUGIN, "%s", err);
    free(err);
    return NULL;
}

/* Bring every enabled provider up at once (each bounded by its startup
 * timeout) and wait for them: the catalog is about to be searched. */
static void start_all(int only_eager)
{
    start_job *jobs = calloc(g_cfg.count ? g_cfg.count : 1, sizeof *jobs);
    if (!jobs)
        return;
    for (size_t i = 0; i < g_cfg.count; i++) {
        provider *p = g_cfg.providers[i];
        pthread_mutex_lock(&p->mu);
        int skip = p->state == PROV_DISABLED || (p->state == PROV_READY && !p->list_dirty) ||
                   (only_eager && !p->eager);
        pthread_mutex_unlock(&p->mu);
        if (skip)
            continue;
        jobs[i].p = p;
        jobs[i].started = pthread_create(&jobs[i].th, NULL, start_main, &jobs[i]) == 0;
    }
    for (size_t i = 0; i < g_cfg.count; i++)
        if (jobs[i].started)
            pthread_join(jobs[i].th, NULL);
    free(jobs);
}

/* Callers inside on_demand (a host thread may start providers in the
 * background): fini waits for them before it stops the providers. */
static pthread_mutex_t g_demand_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_demand_cond = PTHREAD_COND_INITIALIZER;
static int g_demand_active, g_closing;

static void on_demand_tool(const char *tool);

static void on_demand(void *ud, const char *tool)
{
    (void)ud;
    pthread_mutex_lock(&g_demand_mu);
    int closing = g_closing;
    g_demand_active += !closing;
    pthread_mutex_unlock(&g_demand_mu);
    if (closing)
        return;
    if (tool)
        on_demand_tool(tool);
    else
        start_all(0);
    pthread_mutex_lock(&g_demand_mu);
    g_demand_active--;
    pthread_cond_broadcast(&g_demand_cond);
    pthread_mutex_unlock(&g_demand_mu);
}

static void on_demand_tool(const char *tool)
{
    for (size_t i = 0; i < g_cfg.count; i++) {
        provider *p = g_cfg.providers[i];
        if (strncmp(tool, p->prefix, strlen(p->prefix)) != 0)
            continue;
        pthread_mutex_lock(&p->mu);
        int idle = p->state == PROV_IDLE;
        pthread_mutex_unlock(&p->mu);
        char *err = NULL;
        if (idle)
            ensure_ready(p, NULL, 0, &err);
        free(err);
    }
}

static void on_list_changed(provider *p)
{
    (void)p;
    pthread_mutex_lock(&g_refresh_mu);
    g_refresh_wanted = 1;
    pthread_cond_signal(&g_refresh_cond);
    pthread_mutex_unlock(&g_refresh_mu);
}

static void *refresh_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_refresh_mu);
    for (;;) {
        while (!g_refresh_wanted && !g_refresh_stop)
            pthread_cond_wait(&g_refresh_cond, &g_refresh_mu);
        if (g_refresh_stop)
            break;
        g_refresh_wanted = 0;
        pthread_mutex_unlock(&g_refresh_mu);
        for (size_t i = 0; i < g_cfg.count; i++) {
            provider *p = g_cfg.providers[i];
            pthread_mutex_lock(&p->mu);
            int due = p->state == PROV_READY && p->list_dirty;
            pthread_mutex_unlock(&p->mu);
            char *err = NULL;
            if (due)
                ensure_ready(p, NULL, 0, &err);
            free(err);
        }
        pthread_mutex_lock(&g_refresh_mu);
    }
    pthread_mutex_unlock(&g_refresh_mu);
    return NULL;
}

static void *eager_main(void *arg)
{
    (void)arg;
    start_all(1);
    return NULL;
}

/* ---- status (the CLI's `vthost mcp` and `vthost plugins`) ---------------- */

static cJSON *status(const char *only)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < g_cfg.count; i++) {
        provider *p = g_cfg.providers[i];
        if (only && strcmp(only, p->name) != 0)
            continue;
        cJSON *o = cJSON_CreateObject();
        pthread_mutex_lock(&p->mu);
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddStringToObject(o, "transport", p->tp->name);
        p->tp->describe(p, o);
        cJSON_AddStringToObject(o, "state", provider_state_name(p->state));
        cJSON_AddBoolToObject(o, "eager_start", p->eager);
        if (p->reason && p->state != PROV_READY)
            cJSON_AddStringToObject(o, "reason", p->reason);
        cJSON_AddNumberToObject(o, "restarts", (double)p->restarts);
        cJSON_AddNumberToObject(o, "calls", (double)p->calls);
        pthread_mutex_unlock(&p->mu);
        cJSON_AddNumberToObject(o, "tools", (double)tools_count(p));
        if (only)
            cJSON_AddItemToObject(o, "tool_list", tools_describe(p));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static int start_named(const char *name, char **err)
{
    for (size_t i = 0; i < g_cfg.count; i++)
        if (strcmp(g_cfg.providers[i]->name, name) == 0)
            return ensure_ready(g_cfg.providers[i], NULL, 1, err);
    *err = strdup("no such MCP provider");
    return VT_ERR_NOT_FOUND;
}

static const vt_mcp_providers_v1 g_status = {
    .struct_size = sizeof(vt_mcp_providers_v1),
    .list = status,
    .start = start_named,
};

static int init(const vt_host_api *api, char **errmsg)
{
    mcpp_api = api;
    g_closing = 0;
    if (!VT_HAS(api, tool_add) || !VT_HAS(api, tool_remove) || !VT_HAS(api, catalog_on_demand) ||
        !VT_HAS(api, strbuf_append)) {
        *errmsg = api->strdup("mcp_providers needs a host with dynamic tools (ABI 1.2)");
        return VT_ERR_UNSUPPORTED;
    }
    char *err = NULL;
    if (mcpp_config_load(api->config(), api->workspace_root(), &g_cfg, &err) < 0) {
        mcpp_config_free(&g_cfg);
        *errmsg = api->strdup(err ? err : "cannot read [mcp] from vtcode.toml");
        free(err);
        return VT_ERR_INVALID;
    }
    if (!g_cfg.enabled)
        for (size_t i = 0; i < g_cfg.count; i++)
            g_cfg.providers[i]->state = PROV_DISABLED;
    api->service_publish(VT_MCP_PROVIDERS_SERVICE, (void *)&g_status);
    if (g_cfg.count == 0 || !g_cfg.enabled)
        return VT_OK;
    cache_prime(api, g_cfg.providers, g_cfg.count);
    api->catalog_on_demand(MCPP_PLUGIN, on_demand, NULL);
    g_refresh_stop = 0;
    g_refresher_running = pthread_create(&g_refresher, NULL, refresh_main, NULL) == 0;
    if (g_refresher_running)
        mcpp_list_changed = on_list_changed;
    int eager = 0;
    for (size_t i = 0; i < g_cfg.count; i++)
        eager |= g_cfg.providers[i]->eager;
    /* eager start runs beside the host: initialize never waits for it */
    if (eager)
        g_eager_running = pthread_create(&g_eager, NULL, eager_main, NULL) == 0;
    return VT_OK;
}

static void fini(void)
{
    pthread_mutex_lock(&g_demand_mu);
    g_closing = 1;
    /* a start under way (tools/list's, in the background) gives up now
     * rather than within its startup timeout */
    for (size_t i = 0; i < g_cfg.count; i++)
        provider_abandon(g_cfg.providers[i]);
    while (g_demand_active)
        pthread_cond_wait(&g_demand_cond, &g_demand_mu);
    pthread_mutex_unlock(&g_demand_mu);
    if (g_eager_running)
        pthread_join(g_eager, NULL);
    g_eager_running = 0;
    if (g_refresher_running) {
        pthread_mutex_lock(&g_refresh_mu);
        g_refresh_stop = 1;
        pthread_cond_signal(&g_refresh_cond);
        pthread_mutex_unlock(&g_refresh_mu);
        pthread_join(g_refresher, NULL);
        g_refresher_running = 0;
    }
    mcpp_list_changed = NULL;
    for (size_t i = 0; i < g_cfg.count; i++)
        provider_stop(g_cfg.providers[i]);
    tools_clear();
    cache_clear();
    mcpp_config_free(&g_cfg);
}

static const vt_tool no_tools[] = {{0}};

static const vt_plugin plugin = {
    VT_PLUGIN_HEADER, .name = "mcp_providers", .version = "0.1.0",
    .license = "MIT", .tools = no_tools,       .init = init,
    .fini = fini,
};

VT_PLUGIN_ENTRY(plugin)
