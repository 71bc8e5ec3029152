/* A provider's JSON-RPC connection, whatever carries it: requests and
 * their waits (timeouts, cancellation forwarded as
 * notifications/cancelled, progress), the dispatch of what the provider
 * sends, and the connection's state.  The transport (transport.h) only
 * moves messages. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/clock.h>
#include "provider.h"
#include "relay.h"
#include "task.h"

const vt_host_api *mcpp_api;
void (*mcpp_list_changed)(provider *p);

struct rpc_wait {
    rpc_wait *next;
    long id;
    vt_call *call; /* progress goes here; may be NULL */
    struct timespec deadline;
    cJSON *reply;
    char *err;
    int done;
    cJSON *incoming;  /* requests of the provider to relay for `call` */
    int queued;       /* entries in incoming (at most RELAY_QUEUE_MAX) */
    int relayed;      /* requests admitted for `call`: queued or relayed */
    int refused_said; /* the log said once that its requests are refused */
    int elsewhere;    /* requests for `call` being relayed on other threads */
    pthread_t thread; /* the caller's (it relays them) */
};

/* Requests of one call waiting to be relayed (the call relays one at a
 * time): a provider's flood is refused at once, never buffered. */
#define RELAY_QUEUE_MAX 8

const char *provider_state_name(provider_state s)
{
    switch (s) {
    case PROV_IDLE: return "idle";
    case PROV_STARTING: return "starting";
    case PROV_READY: return "ready";
    case PROV_FAILED: return "failed";
    case PROV_DISABLED: return "disabled";
    }
    return "?";
}

void provider_init(provider *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->start_mu, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cond, &ca);
    pthread_condattr_destroy(&ca);
}

static void set_reason(provider *p, const char *why)
{
    free(p->reason);
    p->reason = why ? strdup(why) : NULL;
}

/* Every waiting request fails with `why`.  Caller holds p->mu. */
static void fail_waits_locked(provider *p, const char *why)
{
    for (rpc_wait *w = p->waits; w; w = w->next)
        if (!w->done) {
            w->err = strdup(why);
            w->done = 1;
        }
    pthread_cond_broadcast(&p->cond);
}

/* Send `msg` (taken); `req` names it when it is a request. */
static int send_msg(provider *p, cJSON *msg, const transport_req *req)
{
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!text)
        return -1;
    int rc = p->tp->send(p, text, req);
    free(text);
    return rc;
}

static cJSON *rpc_new(const char *method, cJSON *params)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    if (method)
        cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    return m;
}

int provider_send(provider *p, cJSON *msg) { return send_msg(p, msg, NULL); }

long provider_new_token(provider *p)
{
    pthread_mutex_lock(&p->mu);
    long t = ++p->next_id; /* request ids and tokens share the counter */
    pthread_mutex_unlock(&p->mu);
    return t;
}

int provider_notify(provider *p, const char *method, cJSON *params)
{
    return send_msg(p, rpc_new(method, params), NULL);
}

/* The workspace as an MCP root: {uri: "file:///...", name: its last
 * component}.  The path is percent-encoded (RFC 3986: a space, '%' or
 * '#' in a directory name must not change what the URI names).  NULL
 * when out of memory. */
static cJSON *workspace_root_entry(void)
{
    static const char keep[] = "-._~/!$&'()*+,;=:@";
    const char *ws = mcpp_api->workspace_root();
    char *uri = malloc(strlen(ws) * 3 + sizeof "file://");
    if (!uri)
        return NULL;
    char *o = uri + sprintf(uri, "file://");
    for (const unsigned char *c = (const unsigned char *)ws; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            strchr(keep, *c))
            *o++ = (char)*c;
        else
            o += sprintf(o, "%%%02X", *c);
    }
    *o = 0;
    const char *base = strrchr(ws, '/');
    base = base && base[1] ? base + 1 : ws;
    cJSON *r = cJSON_CreateObject();
    if (r) {
        cJSON_AddStringToObject(r, "uri", uri);
        cJSON_AddStringToObject(r, "name", base);
    }
    free(uri);
    return r;
}

/* A request from the provider to us. */
static void answer_request(provider *p, const cJSON *id, const char *method)
{
    cJSON *m = rpc_new(NULL, NULL);
    cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
    if (strcmp(method, "ping") == 0) {
        cJSON_AddObjectToObject(m, "result");
    } else if (strcmp(method, "roots/list") == 0) {
        cJSON *roots = cJSON_AddArrayToObject(cJSON_AddObjectToObject(m, "result"), "roots");
        cJSON *r = workspace_root_entry();
        if (r)
            cJSON_AddItemToArray(roots, r);
        pthread_mutex_lock(&p->mu);
        provider_deadline(&p->roots_settled, PROVIDER_ROOTS_SETTLE_MS);
        pthread_mutex_unlock(&p->mu);
    } else {
        cJSON *e = cJSON_AddObjectToObject(m, "error");
        cJSON_AddNumberToObject(e, "code", -32601);
        char msg[256];
        snprintf(msg, sizeof msg, "vthost does not offer '%.100s' to MCP providers", method);
        cJSON_AddStringToObject(e, "message", msg);
    }
    send_msg(p, m, NULL);
}

static void on_progress(provider *p, const cJSON *params)
{
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
    const cJSON *prog = cJSON_GetObjectItemCaseSensitive(params, "progress");
    if (!cJSON_IsNumber(tok) || !cJSON_IsNumber(prog) || !isfinite(prog->valuedouble))
        return; /* 1e999 parses as infinity, which JSON cannot carry on */
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(params, "total");
    double t = cJSON_IsNumber(total) && isfinite(total->valuedouble) ? total->valuedouble : 0;
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "message"));
    pthread_mutex_lock(&p->mu);
    for (rpc_wait *w = p->waits; w; w = w->next)
        if ((double)w->id == tok->valuedouble && !w->done && w->call)
            mcpp_api->call_progress(w->call, prog->valuedouble, t, msg);
    task_route_progress_locked(p, tok->valuedouble, prog->valuedouble, t, msg);
    pthread_mutex_unlock(&p->mu);
}

/* 1 while w's call may still have requests relayed: not answered, not
 * past its deadline, not cancelled.  Caller holds p->mu. */
static int relay_live_locked(const rpc_wait *w)
{
    return w->call && !w->done && !provider_past(&w->deadline) &&
           !mcpp_api->call_cancelled(w->call);
}

/* Whether a request of the provider may be relayed for w's call now:
 * NULL (admitted: counted against the call and the provider's budget),
 * or why not with *code.  `queue`: it would wait in w's queue.  Caller
 * holds p->mu. */
static const char *relay_admit_locked(provider *p, rpc_wait *w, int queue, int *code)
{
    *code = RELAY_REFUSED;
    if (!relay_live_locked(w)) {
        *code = RELAY_CANCELLED;
        return "the tool call it belongs to has ended (answered, cancelled or timed out)";
    }
    if (w->relayed >= p->lim.relay_per_call)
        return "the tool call already had max_relayed_requests_per_call requests relayed";
    if (queue && w->queued >= RELAY_QUEUE_MAX)
        return "too many of the provider's requests are waiting for the client already";
    /* a token bucket: relay_per_minute tokens, refilled over a minute */
    struct timespec now;
    vt_clock_now(&now);
    double cap = p->lim.relay_per_minute;
    if (!p->relay_clock.tv_sec && !p->relay_clock.tv_nsec) {
        p->relay_tokens = cap;
    } else {
        double s = (double)(now.tv_sec - p->relay_clock.tv_sec) +
                   (double)(now.tv_nsec - p->relay_clock.tv_nsec) / 1e9;
        p->relay_tokens += s * cap / 60.0;
        if (p->relay_tokens > cap)
            p->relay_tokens = cap;
    }
    p->relay_clock = now;
    if (p->relay_tokens < 1)
        return "the provider sent more than max_relayed_requests_per_minute requests";
    p->relay_tokens -= 1;
    w->relayed++;
    if (queue)
        w->queued++;
    return NULL;
}

/* A request to relay to vthost's client (takes m; returns what is left
 * to free).  It belongs to one of the provider's tool calls, whose own
 * thread relays it.  A transport that reads a request's answers on that
 * request's thread (HTTP) says exactly which call: the one waiting on
 * this thread, relayed right here.  Over stdio nothing says which, so
 * the earliest call in flight relays it.  Two kinds are relayed where
 * they arrive instead, with the call kept until they are done: what the
 * call's client cannot answer (refused at once, never left waiting for
 * the call's deadline), and what comes elsewhere than the call's own
 * exchange over a transport whose callers wait in send() (an HTTP GET
 * stream).  What is over the bounds, or comes once the call has ended,
 * is refused at once. */
static cJSON *queue_relay(provider *p, cJSON *m)
{
    rpc_wait *target = NULL, *mine = NULL;
    pthread_t self = pthread_self();
    const char *why = "it arrived while no tool call of this provider was running";
    int code = RELAY_REFUSED;
    pthread_mutex_lock(&p->mu);
    for (rpc_wait *w = p->waits; w; w = w->next) { /* newest first */
        if (w->call && !w->done && pthread_equal(w->thread, self)) {
            mine = w;
            break;
        }
        if (relay_live_locked(w) || (!target && w->call && !w->done))
            target = w;
    }
    rpc_wait *w = mine ? mine : target;
    int here = w && (mine || p->tp->answers_on_send || !relay_answerable(w->call, m));
    if (w)
        why = relay_admit_locked(p, w, !here, &code);
    if (w && !why && here) {
        vt_call *call = w->call;
        struct timespec deadline = w->deadline;
        if (!mine)
            w->elsewhere++; /* its call waits for this before it ends */
        pthread_mutex_unlock(&p->mu);
        relay_serve(p, call, m, &deadline);
        if (!mine) {
            pthread_mutex_lock(&p->mu);
            w->elsewhere--;
            pthread_cond_broadcast(&p->cond);
            pthread_mutex_unlock(&p->mu);
        }
        return m;
    }
    if (w && !why && (w->incoming || (w->incoming = cJSON_CreateArray()))) {
        cJSON_AddItemToArray(w->incoming, m);
        m = NULL;
        pthread_cond_broadcast(&p->cond);
    }
    int say = w && why && code == RELAY_REFUSED && !w->refused_said;
    if (say)
        w->refused_said = 1;
    pthread_mutex_unlock(&p->mu);
    if (say)
        mcpp_api->log(VT_LOG_WARNING, "mcp_providers",
                      "MCP provider '%s': requests for the "
                      "client refused (%s)",
                      p->name, why);
    if (m)
        relay_refuse(p, m, code, why ? why : "out of memory");
    return m;
}

int provider_receive(provider *p, cJSON *m)
{
    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        return -1;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "method"));
    if (method && id && relay_method(method)) {
        m = queue_relay(p, m);
    } else if (method && id) {
        answer_request(p, id, method);
    } else if (method) {
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
        if (strcmp(method, "notifications/tools/list_changed") == 0) {
            pthread_mutex_lock(&p->mu);
            p->list_dirty = 1;
            pthread_mutex_unlock(&p->mu);
            if (mcpp_list_changed)
                mcpp_list_changed(p);
        } else if (strcmp(method, "notifications/progress") == 0) {
            on_progress(p, params);
        } else if (strcmp(method, "notifications/tasks/status") == 0) {
            task_route_notified(p, params);
        } else if (strcmp(method, "notifications/message") == 0) {
            char *t = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(params, "data"));
            mcpp_api->log(VT_LOG_DEBUG, "mcp_providers", "%s: %.500s", p->name, t ? t : "");
            free(t);
        }
    } else if (cJSON_IsNumber(id)) {
        pthread_mutex_lock(&p->mu);
        for (rpc_wait *w = p->waits; w; w = w->next)
            if ((double)w->id == id->valuedouble && !w->done) {
                w->reply = m;
                m = NULL;
                w->done = 1;
                pthread_cond_broadcast(&p->cond);
                break;
            }
        pthread_mutex_unlock(&p->mu);
    } else {
        cJSON_Delete(m);
        return -1;
    }
    cJSON_Delete(m);
    return 0;
}

void provider_connected(provider *p)
{
    pthread_mutex_lock(&p->mu);
    p->connected = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

void provider_closed(provider *p, const char *why, int cannot_run)
{
    pthread_mutex_lock(&p->mu);
    /* provider_fail set the state and said why before breaking it */
    char *msg = strdup(p->connected && p->state == PROV_FAILED && p->reason ? p->reason
                       : why                                                ? why
                                                                            : "ended");
    p->connected = 0;
    if (cannot_run) {
        p->state = PROV_DISABLED; /* cannot run at all: retrying will not help */
        set_reason(p, msg);
    } else if (!p->stopping) {
        p->state = PROV_FAILED;
        p->failures++;
        set_reason(p, msg);
        mcpp_api->log(VT_LOG_WARNING, "mcp_providers", "%s", msg ? msg : "failed");
    }
    fail_waits_locked(p, msg ? msg : "the MCP provider ended");
    pthread_mutex_unlock(&p->mu);
    free(msg);
}

int provider_open(provider *p, char **err)
{
    *err = NULL;
    pthread_mutex_lock(&p->mu);
    p->state = PROV_STARTING;
    p->resend_ok = 0;
    p->generation++;
    p->list_dirty = 0;
    pthread_mutex_unlock(&p->mu);
    int rc = p->tp->open(p, err);
    if (rc != VT_OK && !*err) {
        pthread_mutex_lock(&p->mu);
        *err = strdup(p->reason ? p->reason : "the provider did not start");
        pthread_mutex_unlock(&p->mu);
    }
    return rc;
}

void provider_fail(provider *p, const char *why)
{
    pthread_mutex_lock(&p->mu);
    int up = p->connected;
    if (up) {
        p->state = PROV_FAILED;
        set_reason(p, why);
    }
    pthread_mutex_unlock(&p->mu);
    if (up)
        p->tp->fail(p);
}

void provider_deadline(struct timespec *t, int ms) { vt_clock_deadline_ms(t, ms); }

void provider_roots_settle(provider *p)
{
    pthread_mutex_lock(&p->mu);
    struct timespec until = p->roots_settled;
    pthread_mutex_unlock(&p->mu);
    if (until.tv_sec == 0 && until.tv_nsec == 0)
        return;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
        ;
}

int provider_past(const struct timespec *t) { return vt_clock_past(t); }

static void send_cancel(provider *p, long id, const char *reason)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddNumberToObject(params, "requestId", (double)id);
    cJSON_AddStringToObject(params, "reason", reason);
    provider_notify(p, "notifications/cancelled", params);
}

/* A new wait for a request to p, listed in p->waits; NULL with *rc and
 * *err when p cannot carry one. */
static rpc_wait *wait_register(provider *p, vt_call *call, int timeout_ms, int *rc, char **err)
{
    rpc_wait *w = calloc(1, sizeof *w);
    if (!w) {
        *rc = VT_ERR_NOMEM;
        return NULL;
    }
    pthread_mutex_lock(&p->mu);
    if (!p->connected) {
        pthread_mutex_unlock(&p->mu);
        free(w);
        *err = strdup(p->reason ? p->reason : "the MCP provider is not running");
        *rc = VT_ERR_IO;
        return NULL;
    }
    w->id = ++p->next_id;
    w->call = call;
    w->thread = pthread_self();
    provider_deadline(&w->deadline, timeout_ms);
    w->next = p->waits;
    p->waits = w;
    pthread_mutex_unlock(&p->mu);
    return w;
}

/* Until w is answered, its call cancelled or its deadline passed, serving
 * the requests relayed for it on this thread.  Takes w off p->waits and
 * returns the relayed requests still queued.  Caller holds p->mu. */
static cJSON *wait_answer_locked(provider *p, rpc_wait *w, vt_call *call, int *cancelled,
                                 int *timed_out)
{
    while (!w->done) {
        if (call && mcpp_api->call_cancelled(call)) {
            *cancelled = 1;
            break;
        }
        if (p->stopping) { /* vthost ends: a start under way gives up */
            w->err = strdup("vthost is ending");
            w->done = 1;
            break;
        }
        if (provider_past(&w->deadline)) {
            *timed_out = 1;
            break;
        }
        cJSON *in = w->incoming ? cJSON_DetachItemFromArray(w->incoming, 0) : NULL;
        if (in) {
            /* relayed on this thread: it ends when the call ends */
            w->queued--;
            struct timespec deadline = w->deadline;
            pthread_mutex_unlock(&p->mu);
            relay_serve(p, call, in, &deadline);
            cJSON_Delete(in);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        struct timespec slice;
        provider_deadline(&slice, 50);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
    for (rpc_wait **pp = &p->waits; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    cJSON *left = w->incoming;
    w->incoming = NULL;
    return left;
}

/* The outcome of a finished wait: the reply, or why there is none. */
static int wait_outcome(provider *p, rpc_wait *w, const char *method, int timeout_ms, int cancelled,
                        int timed_out, cJSON **reply, char **err)
{
    if (cancelled) {
        send_cancel(p, w->id, "cancelled by the client");
        return VT_ERR_CANCELLED;
    }
    if (timed_out) {
        send_cancel(p, w->id, "timed out");
        char buf[300];
        snprintf(buf, sizeof buf, "MCP provider '%s' did not answer %s within %d s", p->name,
                 method, (timeout_ms + 999) / 1000);
        *err = strdup(buf);
        return VT_ERR_IO;
    }
    if (w->err) {
        *err = w->err;
        w->err = NULL;
        return VT_ERR_IO;
    }
    *reply = w->reply;
    w->reply = NULL;
    return VT_OK;
}

int provider_request(provider *p, const char *method, cJSON *params, vt_call *call, int timeout_ms,
                     cJSON **reply, char **err)
{
    *reply = NULL;
    *err = NULL;
    int rc = VT_OK;
    rpc_wait *w = wait_register(p, call, timeout_ms, &rc, err);
    if (!w) {
        cJSON_Delete(params);
        return rc;
    }
    if (!params)
        params = cJSON_CreateObject();
    if (call) {
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
        if (!meta)
            meta = cJSON_AddObjectToObject(params, "_meta");
        if (!cJSON_GetObjectItemCaseSensitive(meta, "progressToken")) /* a task's own */
            cJSON_AddNumberToObject(meta, "progressToken", (double)w->id);
    }
    cJSON *msg = rpc_new(method, params);
    cJSON_AddNumberToObject(msg, "id", (double)w->id);
    transport_req req = {w->id, method};
    int sent = send_msg(p, msg, &req);

    int cancelled = 0, timed_out = 0;
    pthread_mutex_lock(&p->mu);
    if (sent < 0 && !w->done) {
        w->err = strdup(p->reason ? p->reason : "the MCP provider does not read its input");
        w->done = 1;
    }
    cJSON *left = wait_answer_locked(p, w, call, &cancelled, &timed_out);
    while (w->elsewhere) /* relayed on another thread: bounded by the deadline */
        pthread_cond_wait(&p->cond, &p->mu);
    pthread_mutex_unlock(&p->mu);

    const cJSON *in;
    cJSON_ArrayForEach(in, left)
    {
        relay_refuse(p, in, RELAY_CANCELLED,
                     cancelled   ? "the tool call was cancelled"
                     : timed_out ? "the tool call timed out"
                                 : "the tool call ended");
    }
    cJSON_Delete(left);
    rc = wait_outcome(p, w, method, timeout_ms, cancelled, timed_out, reply, err);
    cJSON_Delete(w->reply);
    free(w->err);
    free(w);
    return rc;
}

int provider_req_done(provider *p, long id)
{
    int done = 1;
    pthread_mutex_lock(&p->mu);
    for (rpc_wait *w = p->waits; w; w = w->next)
        if (w->id == id) {
            done = w->done || p->stopping || provider_past(&w->deadline) ||
                   (w->call && mcpp_api->call_cancelled(w->call));
            break;
        }
    pthread_mutex_unlock(&p->mu);
    return done;
}

void provider_req_failed(provider *p, long id, const char *why)
{
    pthread_mutex_lock(&p->mu);
    for (rpc_wait *w = p->waits; w; w = w->next)
        if (w->id == id && !w->done) {
            w->err = strdup(why);
            w->done = 1;
            pthread_cond_broadcast(&p->cond);
            break;
        }
    pthread_mutex_unlock(&p->mu);
}

void provider_abandon(provider *p)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

void provider_stop(provider *p)
{
    provider_abandon(p);
    p->tp->stop(p);
}

void provider_free(provider *p)
{
    free(p->name);
    free(p->prefix);
    for (char **a = p->argv; a && *a; a++)
        free(*a);
    free(p->argv);
    for (char **a = p->envp; a && *a; a++)
        free(*a);
    free(p->envp);
    free(p->cwd);
    free(p->endpoint);
    for (char **a = p->headers; a && *a; a++)
        free(*a);
    free(p->headers);
    for (char **a = p->env_headers; a && *a; a++)
        free(*a);
    free(p->env_headers);
    free(p->api_key_env);
    free(p->protocol_version);
    free(p->reason);
    if (p->tp)
        p->tp->destroy(p);
    pthread_mutex_destroy(&p->start_mu);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cond);
}
