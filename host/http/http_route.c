/* The routing of each HTTP session's engine messages to its streams,
 * and the threads its calls run on (see http_session_int.h). */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_session_int.h"
#include "http_workers.h"
#include "json_exact.h"
#include "registry.h"
#include "registry_view.h"
#include "strutil.h"

/* A number id's text: the engine echoes ids exactly as sent (a raw item
 * holding the lexeme), the front keeps the parsed number. */
static const char *number_text(const cJSON *v)
{
    if (cJSON_IsRaw(v))
        return v->valuestring;
    return cJSON_IsNumber(v) ? json_number_lexeme(v) : NULL;
}

static int same_id(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return 0;
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    const char *x = number_text(a), *y = number_text(b);
    if (x && y)
        return strcmp(x, y) == 0;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    return 0;
}

msg *hs_msg_new(const char *text, size_t len)
{
    msg *m = malloc(sizeof *m + len + 1);
    if (!m)
        return NULL;
    m->next = NULL;
    m->len = len;
    memcpy(m->text, text, len);
    m->text[len] = 0;
    return m;
}

/* Caller holds s->mu. */
void hs_push_locked(http_stream *st, msg *m)
{
    if (st->tail)
        st->tail->next = m;
    else
        st->head = m;
    st->tail = m;
    pthread_cond_broadcast(&st->cond);
}

/* A stateless call changed its principal's tool list (search_tools): the
 * principal's subscriptions/listen streams, each another request's
 * engine, are told. */
void hs_session_unref(http_session *s, int used);

static void tell_listeners(const http_session *from)
{
    enum { MAX = 64 };
    http_session *v[MAX];
    int k = 0;
    pthread_mutex_lock(&hs_mu);
    for (http_session *o = hs_stateless; o && k < MAX; o = o->next)
        if (o != from && !o->ended && strcmp(o->owner, from->owner) == 0) {
            o->refs++;
            v[k++] = o;
        }
    pthread_mutex_unlock(&hs_mu);
    for (int i = 0; i < k; i++) {
        mcp_server_tools_changed(v[i]->eng);
        hs_session_unref(v[i], 0);
    }
}

static int is_progress(const mcp_out *o)
{
    return o->kind == MCP_OUT_NOTIFICATION && o->method &&
           strcmp(o->method, "notifications/progress") == 0;
}

/* Caller holds s->mu: the stream a message goes out on, or NULL. */
static http_stream *route_locked(http_session *s, const mcp_out *o)
{
    http_stream *mine = hs_tl_stream;
    if (mine && (mine->s != s || mine->gone || mine->answered))
        mine = NULL;
    int response = o->kind == MCP_OUT_RESULT || o->kind == MCP_OUT_ERROR;
    if (response) {
        for (http_stream *st = s->streams; st; st = st->next)
            if (st->req_id && !st->answered && same_id(st->req_id, o->id))
                return st;
        /* An error to a request whose id could not be read answers the
         * request being handled on this thread. */
        return o->id ? NULL : mine;
    }
    if (mine)
        return mine;
    const cJSON *tok =
        is_progress(o) ? cJSON_GetObjectItemCaseSensitive(o->payload, "progressToken") : NULL;
    for (http_stream *st = s->streams; tok && st; st = st->next)
        if (st->progress && !st->answered && !st->gone && same_id(st->progress, tok))
            return st;
    /* A stateless request's engine has one stream: its own (a
     * subscriptions/listen stream's notices come from other threads). */
    if (s->stateless)
        return s->streams && !s->streams->gone ? s->streams : NULL;
    return s->get && !s->get->gone ? s->get : NULL;
}

/* Caller holds s->mu: kept for the GET stream; the oldest go first. */
static void backlog_locked(http_session *s, msg *m)
{
    if (s->nbacklog >= BACKLOG_MAX) {
        msg *old = s->backlog;
        s->backlog = old->next;
        if (!s->backlog)
            s->backlog_tail = NULL;
        free(old);
        s->nbacklog--;
    }
    if (s->backlog_tail)
        s->backlog_tail->next = m;
    else
        s->backlog = m;
    s->backlog_tail = m;
    s->nbacklog++;
}

/* The engine's output, routed by what it is (mcp_out), never by its
 * text. */
int hs_route_out(void *ud, const mcp_out *o)
{
    http_session *s = ud;
    msg *m = hs_msg_new(o->text, o->len);
    if (!m)
        return -1;
    int rc = 0;
    int response = o->kind == MCP_OUT_RESULT || o->kind == MCP_OUT_ERROR;
    pthread_mutex_lock(&s->mu);
    if (o->version && !s->version[0])
        str_copy(s->version, sizeof s->version, o->version);
    http_stream *to = route_locked(s, o);
    if (to && (to->json_only || to->running_here) && o->kind == MCP_OUT_REQUEST) {
        /* A JSON answer cannot carry a request to the client, nor can a
         * stream whose connection's thread is running the call: the
         * engine's request fails at once instead of waiting forever. */
        free(m);
        rc = -1;
    } else if (to) {
        if (response) {
            to->answered = 1;
            to->answer_ok = o->kind == MCP_OUT_RESULT;
        }
        if (to->detached && to->log) {
            http_sse_keep(to->log, m->text, m->len); /* replayed on resume */
            free(m);
            pthread_cond_broadcast(&to->cond);
        } else {
            hs_push_locked(to, m);
        }
    } else if (response || is_progress(o) || s->ended || s->stateless) {
        free(m); /* its request's client went away */
        rc = -1;
    } else {
        backlog_locked(s, m);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ops.call: the host's, noting the outcome for the access log. */
int hs_session_call(const call_request *req, call_result *out)
{
    http_stream *st = hs_tl_stream;
    /* The call belongs to its session's client: its command sessions are
     * that client's alone (vt_host_api.call_client_id). */
    frontend fe = req->fe ? *req->fe : (frontend){0};
    fe.client_id = st ? st->s->client_id : UINT64_MAX;
    fe.session = st && !st->s->stateless ? st->s->id : NULL;
    fe.principal = st ? st->s->owner : NULL;
    call_request mine = *req;
    mine.fe = &fe;
    /* The tool list it sees, and what its searches find, are its own. */
    registry_view_as(fe.client_id == UINT64_MAX ? 0 : fe.client_id);
    int rc = hs_host_ops.call(&mine, out);
    registry_view_as(0);
    if (st && st->s->stateless && out->list_changed)
        tell_listeners(st->s);
    if (st) {
        pthread_mutex_lock(&st->s->mu);
        str_copy(st->tool, sizeof st->tool, req->tool ? req->tool : "");
        st->status = (int)out->status + 1;
        pthread_mutex_unlock(&st->s->mu);
    }
    return rc;
}

void hs_free_msgs(msg *m)
{
    while (m) {
        msg *n = m->next;
        free(m);
        m = n;
    }
}

typedef struct job {
    http_session *s;
    http_stream *st;
    struct mcp_call *call;
    int heap;
} job;

static void call_main(void *arg)
{
    job *j = arg;
    hs_tl_stream = j->st;
    mcp_server_run_call(j->s->eng, j->call);
    hs_tl_stream = NULL;
    http_session *s = j->s;
    pthread_mutex_lock(&s->mu);
    s->threads--;
    /* A cancelled call has no response (the client asked it not to):
     * its stream ends all the same. */
    j->st->call_over = 1;
    pthread_cond_broadcast(&j->st->cond);
    int last = hs_stream_unref_locked(j->st);
    pthread_mutex_unlock(&s->mu);
    if (last)
        hs_stream_free(j->st);
    if (j->heap)
        free(j);
    http_session_put(s);
    pthread_mutex_lock(&hs_mu);
    hs_threads--;
    pthread_cond_broadcast(&hs_cond);
    pthread_mutex_unlock(&hs_mu);
}

/* Whether the tools/call `msg` (still the caller's) may run on the
 * connection's thread: the tool only reads, on this machine -- no
 * command to wait for, no other server to relay for (a dynamic tool is
 * another server's) -- so its client going away while it runs costs
 * little, and a stream quiet while it runs needs no keep-alive.  Judged
 * from the message itself before the engine takes it (the whole name:
 * a copy cut short could name another tool). */
static int only_reads(const cJSON *msg)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    if (!cJSON_IsString(method) || strcmp(method->valuestring, "tools/call") != 0)
        return 0;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (!cJSON_IsString(name))
        return 0;
    const uint32_t slow = VT_EFFECT_EXECUTES | VT_EFFECT_NETWORK | VT_EFFECT_MUTATES_WORKSPACE;
    const tool_entry *e = registry_find(name->valuestring);
    return e && !e->dynamic && (e->t.effects & VT_EFFECT_READ_ONLY) && !(e->t.effects & slow);
}

void http_session_submit(http_session *s, http_stream *st, cJSON *msg, const char *header_version)
{
    struct mcp_call *call = NULL;
    /* A POST stream's progress token is set when it opens, by this
     * thread: a call asking for progress streams it. */
    int reads = st && !st->progress && only_reads(msg);
    hs_tl_stream = st;
    registry_view_as(s->client_id); /* tools/list: the client's own */
    mcp_server_handle_json(s->eng, msg, s->owner, header_version, &call);
    registry_view_as(0);
    hs_tl_stream = NULL;
    if (!call)
        return;
    /* Whether the call runs on this thread.  A client that declared no
     * capability is asked nothing (call_client.c refuses every request
     * but a ping; an approval is not asked at all), so its call never
     * waits on a message of this stream reaching it, and the hand-over
     * to a call thread and back (two wake-ups) is saved.  The engine has
     * the message's capabilities now (a 2026-07-28 request's are in it). */
    int here = reads && mcp_server_client_caps(s->eng) == 0;
    pthread_mutex_lock(&hs_mu);
    s->refs++;
    hs_threads++;
    pthread_mutex_unlock(&hs_mu);
    pthread_mutex_lock(&s->mu);
    st->refs++;
    s->threads++;
    st->running_here = here; /* a ping to the client fails at once */
    pthread_mutex_unlock(&s->mu);
    job *j = here ? NULL : malloc(sizeof *j);
    if (j) {
        *j = (job){s, st, call, 1};
        if (hs_workers_run(call_main, j) == 0)
            return;
        free(j);
    }
    /* Here: a call that waits on nothing of its client, or no thread
     * to be had (the answer still arrives). */
    job local = {s, st, call, 0};
    call_main(&local);
}
