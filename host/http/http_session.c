/* Sessions and streams of `vthost serve --http`: see http_session.h.
 *
 * Locking: g_mu guards the session list and every session's reference
 * count; a session's mu guards its streams and their queues.  g_mu is
 * taken before a session's mu, never after.  The engine is never called
 * with either held (its sink takes the session's mu). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <vthost/services.h>
#include "host.h"
#include "http_session.h"
#include "http_sse.h"
#include "json_exact.h"
#include "monotime.h"
#include "registry_view.h"
#include "services.h"
#include "spool_dir.h"

/* Messages kept for a GET stream that is not open (yet). */
#define BACKLOG_MAX 64
/* How often a waiting stream looks whether its client is still there,
 * and how long a quiet SSE stream goes without a keep-alive comment. */
#define POLL_MS 200
#define KEEPALIVE_MS 20000

typedef struct msg {
    struct msg *next;
    size_t len;
    char text[];
} msg;

struct http_stream {
    http_stream *next;
    http_session *s; /* referenced */
    int refs;        /* under s->mu */
    cJSON *req_id;   /* NULL: the GET stream */
    cJSON *progress;
    msg *head, *tail;
    char *out; /* the SSE event being written */
    size_t out_len, out_pos;
    int answered;  /* the response is queued */
    int answer_ok; /* ... and it is a result, not an error */
    int gone;      /* the connection is done */
    int posting;   /* a POST's response, counted in g_posts until closed */
    int64_t last_write_ms;
    pthread_cond_t cond;
    char tool[64];     /* access log */
    int status;        /* call_status + 1; 0: no call ran */
    unsigned no;       /* the stream's number in its session (event ids) */
    http_sse_log *log; /* resumable: events sent, for a resume */
    int primed;        /* the priming event is out */
    int json_only;     /* answered with JSON: requests to the client fail */
    int detached;      /* its connection dropped; held for a resume */
    int call_over;     /* its call ended without a response (cancelled) */
    int64_t hold_until;
};

struct http_session {
    http_session *next;
    char id[HTTP_SESSION_ID_LEN + 1];
    char owner[128];
    char version[16];
    uint64_t client_id; /* vt_host_api.call_client_id of its calls */
    mcp_server *eng;
    int refs;             /* under g_mu */
    int ended;            /* under g_mu and mu */
    int stateless;        /* one 2026-07-28 request's engine, on g_stateless */
    int64_t last_used_ms; /* under g_mu */
    pthread_mutex_t mu;
    http_stream *streams; /* under mu */
    http_stream *get;
    msg *backlog, *backlog_tail;
    int nbacklog;
    int threads; /* call threads running, under mu */
    unsigned next_stream;
    /* Ended, and every unanswered request's error queued (under mu): a
     * stream ends on `ended` only then, or an answer still to be queued
     * (shutdown stops the sessions one after another) was never sent. */
    int drained;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER; /* a call thread ended */
static http_session *g_sessions;
/* Engines of stateless requests still being answered: off g_sessions
 * (no id, no limit, no expiry), told of list changes all the same. */
static http_session *g_stateless;
static int g_count, g_threads;
/* POST responses still open: at shutdown an answered call's response is
 * left to reach its client before the daemon closes the connections. */
static int g_posts;
static mcp_ops host_ops;
static http_limits limits;

/* The stream and session a call's thread works for (the sink's routing,
 * the access log). */
static __thread http_stream *tl_stream;

static int64_t now_ms(void) { return mono_now_ms(); }

/* ---- routing the engine's messages -------------------------------------- */

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

static msg *msg_new(const char *text, size_t len)
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
static void push_locked(http_stream *st, msg *m)
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
static void session_unref(http_session *s, int used);

static void tell_listeners(const http_session *from)
{
    enum { MAX = 64 };
    http_session *v[MAX];
    int k = 0;
    pthread_mutex_lock(&g_mu);
    for (http_session *o = g_stateless; o && k < MAX; o = o->next)
        if (o != from && !o->ended && strcmp(o->owner, from->owner) == 0) {
            o->refs++;
            v[k++] = o;
        }
    pthread_mutex_unlock(&g_mu);
    for (int i = 0; i < k; i++) {
        mcp_server_tools_changed(v[i]->eng);
        session_unref(v[i], 0);
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
    http_stream *mine = tl_stream;
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
static int route_out(void *ud, const mcp_out *o)
{
    http_session *s = ud;
    msg *m = msg_new(o->text, o->len);
    if (!m)
        return -1;
    int rc = 0;
    int response = o->kind == MCP_OUT_RESULT || o->kind == MCP_OUT_ERROR;
    pthread_mutex_lock(&s->mu);
    if (o->version && !s->version[0])
        snprintf(s->version, sizeof s->version, "%s", o->version);
    http_stream *to = route_locked(s, o);
    if (to && to->json_only && o->kind == MCP_OUT_REQUEST) {
        /* A JSON answer cannot carry a request to the client: the
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
            push_locked(to, m);
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
static int session_call(const call_request *req, call_result *out)
{
    http_stream *st = tl_stream;
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
    int rc = host_ops.call(&mine, out);
    registry_view_as(0);
    if (st && st->s->stateless && out->list_changed)
        tell_listeners(st->s);
    if (st) {
        pthread_mutex_lock(&st->s->mu);
        snprintf(st->tool, sizeof st->tool, "%s", req->tool ? req->tool : "");
        st->status = (int)out->status + 1;
        pthread_mutex_unlock(&st->s->mu);
    }
    return rc;
}

/* ---- sessions ----------------------------------------------------------- */

void http_sessions_init(const mcp_ops *ops, const http_limits *l)
{
    host_ops = *ops;
    limits = *l;
}

static void free_msgs(msg *m)
{
    while (m) {
        msg *n = m->next;
        free(m);
        m = n;
    }
}

static void session_free(http_session *s)
{
    mcp_server_free(s->eng);
    /* Every call of the session has ended (each held a reference): its
     * spool view goes with it unless it holds output. */
    spool_view_remove(host_workspace(), s->client_id);
    free_msgs(s->backlog);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* A client id no session has: random, so a client of a later server on
 * the same workspace never gets an earlier one's spool view
 * (.vtcode/context/tool_outputs/c-ID, named after it). */
static uint64_t new_client_id_locked(void)
{
    for (;;) {
        uint64_t id = 0;
        if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
            id = ((uint64_t)now_ms() << 20) ^ (uint64_t)getpid();
        int used = id == 0 || id == UINT64_MAX;
        for (http_session *o = g_sessions; o && !used; o = o->next)
            used = o->client_id == id;
        if (!used)
            return id;
    }
}

/* A session of `owner` with its engine, not yet listed; NULL when out of
 * memory or randomness. */
static http_session *session_new(const char *owner)
{
    unsigned char raw[HTTP_SESSION_ID_LEN / 2];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return NULL;
    http_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        s->id[2 * i] = hex[raw[i] >> 4];
        s->id[2 * i + 1] = hex[raw[i] & 15];
    }
    snprintf(s->owner, sizeof s->owner, "%s", owner);
    pthread_mutex_init(&s->mu, NULL);
    mcp_ops ops = host_ops;
    ops.call = session_call;
    s->eng = mcp_server_new_sink(&ops, NULL, NULL);
    if (!s->eng) {
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    mcp_server_set_output(s->eng, route_out, s);
    if (limits.max_calls > 0)
        mcp_server_set_max_calls(s->eng, limits.max_calls);
    s->refs = 2; /* the list's and the caller's */
    s->last_used_ms = now_ms();
    return s;
}

static int held_locked(http_session *s);

/* Idle: only the list holds it, and streams held for a resume (no
 * request, no open stream, no call).  A held stream is a replay buffer
 * for a client that may never come back -- most drop their GET stream
 * when they close without ending the session -- so it does not keep the
 * session from making room.  Caller holds g_mu (taken before s->mu). */
static int idle_locked(http_session *s)
{
    if (s->refs == 1)
        return 1;
    pthread_mutex_lock(&s->mu);
    int held = held_locked(s);
    pthread_mutex_unlock(&s->mu);
    return s->refs == 1 + held;
}

/* The owner's least recently used idle session (caller holds g_mu), or
 * NULL when every one of them is in use. */
static http_session *lru_idle_locked(const char *owner)
{
    http_session *lru = NULL;
    for (http_session *o = g_sessions; o; o = o->next)
        if (strcmp(o->owner, owner) == 0 && idle_locked(o) &&
            (!lru || o->last_used_ms < lru->last_used_ms))
            lru = o;
    return lru;
}

static int unlink_locked(http_session *s);
static void stop_session(http_session *s);

int http_session_create(const char *owner, http_session **out)
{
    *out = NULL;
    http_session *s = session_new(owner);
    if (!s)
        return 500;
    pthread_mutex_lock(&g_mu);
    int mine = 0;
    for (http_session *o = g_sessions; o; o = o->next)
        mine += strcmp(o->owner, s->owner) == 0;
    /* At the owner's limit its least recently used idle session makes
     * room: clients that never end their sessions (most do not) must not
     * lock the next one out.  Only when every session of the owner is
     * busy is the newcomer refused. */
    http_session *evict = NULL;
    if (limits.max_per_owner > 0 && mine >= limits.max_per_owner &&
        (evict = lru_idle_locked(owner)))
        unlink_locked(evict);
    int full = limits.max_per_owner > 0 && mine >= limits.max_per_owner && !evict ? 429
               : limits.max_sessions > 0 && g_count >= limits.max_sessions        ? 503
                                                                                  : 0;
    if (!full) {
        s->client_id = new_client_id_locked();
        s->next = g_sessions;
        g_sessions = s;
        g_count++;
    }
    pthread_mutex_unlock(&g_mu);
    if (evict) {
        stop_session(evict);
        http_session_put(evict);
    }
    if (full) {
        session_free(s);
        return full;
    }
    *out = s;
    return 0;
}

int http_session_stateless(const char *owner, uint64_t client_id, http_session **out)
{
    http_session *s = session_new(owner);
    if (!(*out = s))
        return 500;
    s->stateless = 1;
    s->client_id = client_id;
    /* As many requests at once as the principal's sessions could run
     * calls: stateless requests are no way around the limits. */
    long cap = (long)(limits.max_per_owner > 0 ? limits.max_per_owner : 16) *
               (limits.max_calls > 0 ? limits.max_calls : 16);
    long mine = 0;
    pthread_mutex_lock(&g_mu);
    for (http_session *o = g_stateless; o; o = o->next)
        mine += strcmp(o->owner, s->owner) == 0;
    if (mine < cap) {
        s->next = g_stateless;
        g_stateless = s;
    }
    pthread_mutex_unlock(&g_mu);
    if (mine >= cap) {
        session_free(s);
        *out = NULL;
        return 429;
    }
    return 0;
}

http_session *http_session_find(const char *id, const char *owner)
{
    if (!id || strlen(id) != HTTP_SESSION_ID_LEN)
        return NULL;
    pthread_mutex_lock(&g_mu);
    http_session *s = g_sessions;
    while (s && strcmp(s->id, id) != 0)
        s = s->next;
    if (s && strcmp(s->owner, owner) != 0)
        s = NULL; /* another client's: as if unknown */
    if (s) {
        s->refs++;
        s->last_used_ms = now_ms();
    }
    pthread_mutex_unlock(&g_mu);
    return s;
}

/* Drop a reference; `used`: the client used the session (a request of
 * its own), which keeps it from expiring.  The host's own visits (the
 * sweeps, a tool-list notice) are not use. */
static void session_unref(http_session *s, int used)
{
    if (!s)
        return;
    pthread_mutex_lock(&g_mu);
    int last = --s->refs == 0;
    if (!last && used)
        s->last_used_ms = now_ms();
    pthread_mutex_unlock(&g_mu);
    if (last)
        session_free(s);
}

void http_session_put(http_session *s) { session_unref(s, 1); }

const char *http_session_id(const http_session *s) { return s->id; }

const char *http_session_version(http_session *s) { return s->version; }

int http_session_calls(http_session *s) { return mcp_server_running(s->eng); }

/* Take `s` off the list (caller holds g_mu); the list's reference is the
 * caller's to drop.  Returns 0 when it was already off. */
static int unlink_locked(http_session *s)
{
    for (http_session **p = s->stateless ? &g_stateless : &g_sessions; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            g_count -= !s->stateless;
            s->ended = 1;
            return 1;
        }
    }
    return 0;
}

static void http_streams_release_held(http_session *s, int64_t now);
static int stream_unref_locked(http_stream *st);
static void stream_free(http_stream *st);

/* After unlinking: stop the engine and wake every stream. */
static void stop_session(http_session *s)
{
    mcp_server_end(s->eng);
    if (!s->stateless)
        registry_view_forget(s->client_id); /* and what its searches found */
    pthread_mutex_lock(&s->mu);
    for (http_stream *st = s->streams; st; st = st->next) {
        /* A request still unanswered gets an error, not silence: its
         * client would otherwise wait for an answer that never comes. */
        if (st->req_id && !st->answered && !st->gone) {
            cJSON *m = cJSON_CreateObject();
            cJSON_AddStringToObject(m, "jsonrpc", "2.0");
            cJSON_AddItemToObject(m, "id", cJSON_Duplicate(st->req_id, 1));
            cJSON *e = cJSON_AddObjectToObject(m, "error");
            cJSON_AddNumberToObject(e, "code", -32603);
            cJSON_AddStringToObject(e, "message",
                                    "The session ended before the call finished (the server is "
                                    "stopping, or the session was deleted or expired)");
            char *text = cJSON_PrintUnformatted(m);
            cJSON_Delete(m);
            msg *em = text ? msg_new(text, strlen(text)) : NULL;
            free(text);
            if (em) {
                st->answered = 1;
                push_locked(st, em);
            }
        }
        pthread_cond_broadcast(&st->cond);
    }
    s->drained = 1;
    pthread_mutex_unlock(&s->mu);
    /* Its command sessions end with it, after the answers are queued:
     * ending a command that ignores SIGTERM takes half a second, and at
     * shutdown the sessions are stopped one after another, so each
     * such wait used to delay every later session's answers.  A
     * stateless request's commands belong to its principal and live on. */
    const vt_sessions_v1 *exec = s->stateless ? NULL : services_lookup(VT_SESSIONS_SERVICE);
    if (exec &&
        exec->struct_size >= offsetof(vt_sessions_v1, end_client) + sizeof exec->end_client &&
        exec->end_client)
        exec->end_client(s->client_id);
    http_streams_release_held(s, INT64_MAX);
}

void http_session_end(http_session *s)
{
    pthread_mutex_lock(&g_mu);
    int was = unlink_locked(s);
    pthread_mutex_unlock(&g_mu);
    if (was) {
        stop_session(s);
        http_session_put(s);
    }
}

/* Streams held for a resume whose client did not come back in time (or
 * all of them at now == INT64_MAX): released, their calls cancelled. */
static void http_streams_release_held(http_session *s, int64_t now)
{
    for (;;) {
        pthread_mutex_lock(&s->mu);
        http_stream *st = s->streams;
        while (st && !(st->detached && now >= st->hold_until))
            st = st->next;
        cJSON *id = st && st->req_id && !st->answered ? cJSON_Duplicate(st->req_id, 1) : NULL;
        int last = 0;
        if (st) {
            st->detached = 0;
            st->gone = 1;
            last = stream_unref_locked(st);
        }
        pthread_mutex_unlock(&s->mu);
        if (!st)
            return;
        if (id && now != INT64_MAX)
            mcp_server_cancel(s->eng, id);
        cJSON_Delete(id);
        if (last)
            stream_free(st);
    }
}

static void release_all_held(int64_t now)
{
    pthread_mutex_lock(&g_mu);
    int k = 0;
    http_session **v = calloc((size_t)g_count + 1, sizeof *v);
    for (http_session *s = g_sessions; v && s; s = s->next) {
        s->refs++;
        v[k++] = s;
    }
    pthread_mutex_unlock(&g_mu);
    for (int i = 0; i < k; i++) {
        http_streams_release_held(v[i], now);
        session_unref(v[i], 0);
    }
    free(v);
}

/* Whether the session's client still holds command sessions (a
 * background build it will come back to with write_stdin). */
static int holds_commands(const http_session *s)
{
    const vt_sessions_v1 *exec = services_lookup(VT_SESSIONS_SERVICE);
    if (!exec ||
        exec->struct_size < offsetof(vt_sessions_v1, client_count) + sizeof exec->client_count ||
        !exec->client_count)
        return 0;
    return exec->client_count(s->client_id) > 0;
}

/* Idle past its timeout: idle_s, or idle_commands_s while its commands
 * live on.  Caller holds g_mu. */
static int expired_locked(http_session *s, int64_t now)
{
    if (!idle_locked(s))
        return 0;
    int64_t idle = now - s->last_used_ms;
    if (idle <= (int64_t)limits.idle_s * 1000)
        return 0;
    return limits.idle_commands_s <= limits.idle_s ||
           idle > (int64_t)limits.idle_commands_s * 1000 || !holds_commands(s);
}

void http_sessions_expire(void)
{
    int64_t now = now_ms();
    release_all_held(now);
    if (limits.idle_s <= 0)
        return;
    for (;;) {
        http_session *victim = NULL;
        pthread_mutex_lock(&g_mu);
        for (http_session *s = g_sessions; s && !victim; s = s->next)
            if (expired_locked(s, now))
                victim = s;
        if (victim)
            unlink_locked(victim);
        pthread_mutex_unlock(&g_mu);
        if (!victim)
            return;
        stop_session(victim);
        http_session_put(victim);
    }
}

int http_sessions_count(void)
{
    pthread_mutex_lock(&g_mu);
    int n = g_count;
    pthread_mutex_unlock(&g_mu);
    return n;
}

void http_sessions_tools_changed(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&g_mu);
    int n = g_count, k = 0;
    for (http_session *s = g_stateless; s; s = s->next)
        n++;
    http_session **v = calloc((size_t)n + 1, sizeof *v);
    for (int l = 0; l < 2; l++)
        for (http_session *s = l ? g_stateless : g_sessions; v && s; s = s->next) {
            s->refs++;
            v[k++] = s;
        }
    pthread_mutex_unlock(&g_mu);
    for (int i = 0; i < k; i++) {
        mcp_server_tools_changed(v[i]->eng);
        session_unref(v[i], 0);
    }
    free(v);
}

void http_sessions_shutdown(int grace_ms)
{
    /* Running calls may finish, and their answers reach their clients,
     * within the grace period. */
    struct timespec end;
    mono_deadline_ms(&end, grace_ms);
    pthread_mutex_lock(&g_mu);
    while ((g_threads > 0 || g_posts > 0) && mono_cond_wait(&g_cond, &g_mu, &end) != ETIMEDOUT)
        ;
    http_session *list = g_sessions;
    g_sessions = NULL;
    g_count = 0;
    /* Stateless requests' engines end with the sessions. */
    for (http_session **p = &list;; p = &(*p)->next) {
        if (!*p) {
            *p = g_stateless;
            g_stateless = NULL;
            break;
        }
    }
    for (http_session *s = list; s; s = s->next)
        s->ended = 1;
    pthread_mutex_unlock(&g_mu);
    while (list) {
        http_session *n = list->next;
        stop_session(list);
        http_session_put(list);
        list = n;
    }
    /* Cancelled calls end their commands and answer; a moment more. */
    mono_deadline_ms(&end, grace_ms > 2000 ? grace_ms : 2000);
    pthread_mutex_lock(&g_mu);
    while ((g_threads > 0 || g_posts > 0) && mono_cond_wait(&g_cond, &g_mu, &end) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&g_mu);
}

/* ---- streams ------------------------------------------------------------ */

http_stream *http_stream_open(http_session *s, const cJSON *req_id, const cJSON *progress)
{
    http_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->req_id = req_id ? cJSON_Duplicate(req_id, 1) : NULL;
    st->progress = progress ? cJSON_Duplicate(progress, 1) : NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->cond, &ca);
    pthread_condattr_destroy(&ca);
    st->refs = 1;
    st->last_write_ms = now_ms();
    st->posting = req_id != NULL;
    pthread_mutex_lock(&g_mu);
    s->refs++;
    g_posts += st->posting;
    pthread_mutex_unlock(&g_mu);
    st->s = s;
    if (!req_id) {
        /* A new GET stream without Last-Event-ID replaces one held for a
         * resume. */
        pthread_mutex_lock(&s->mu);
        if (s->get && s->get->detached)
            s->get->hold_until = 0;
        pthread_mutex_unlock(&s->mu);
        http_streams_release_held(s, now_ms());
    }
    pthread_mutex_lock(&s->mu);
    st->no = ++s->next_stream;
    /* Resumable streams are 2025-11-25's: older clients cannot read a
     * priming event's empty data, and 2026-07-28 dropped resumption. */
    if (strcmp(s->version, "2025-11-25") == 0)
        st->log = http_sse_log_new(st->no);
    if (!req_id) {
        if (s->get && !s->get->gone) {
            pthread_mutex_unlock(&s->mu);
            cJSON_Delete(st->progress);
            http_sse_log_free(st->log);
            pthread_cond_destroy(&st->cond);
            free(st);
            http_session_put(s);
            return NULL;
        }
        s->get = st;
        /* What came while no GET stream was open. */
        st->head = s->backlog;
        st->tail = s->backlog_tail;
        s->backlog = s->backlog_tail = NULL;
        s->nbacklog = 0;
    }
    st->next = s->streams;
    s->streams = st;
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* Caller holds st->s->mu; returns 1 when that was the last reference. */
static int stream_unref_locked(http_stream *st)
{
    if (--st->refs > 0)
        return 0;
    http_session *s = st->s;
    for (http_stream **p = &s->streams; *p; p = &(*p)->next) {
        if (*p == st) {
            *p = st->next;
            break;
        }
    }
    if (s->get == st)
        s->get = NULL;
    return 1;
}

static void stream_free(http_stream *st)
{
    http_session *s = st->s;
    free_msgs(st->head);
    free(st->out);
    http_sse_log_free(st->log);
    cJSON_Delete(st->req_id);
    cJSON_Delete(st->progress);
    pthread_cond_destroy(&st->cond);
    free(st);
    http_session_put(s);
}

typedef struct job {
    http_session *s;
    http_stream *st;
    struct mcp_call *call;
    int heap;
} job;

static void *call_main(void *arg)
{
    job *j = arg;
    tl_stream = j->st;
    mcp_server_run_call(j->s->eng, j->call);
    tl_stream = NULL;
    http_session *s = j->s;
    pthread_mutex_lock(&s->mu);
    s->threads--;
    /* A cancelled call has no response (the client asked it not to):
     * its stream ends all the same. */
    j->st->call_over = 1;
    pthread_cond_broadcast(&j->st->cond);
    int last = stream_unref_locked(j->st);
    pthread_mutex_unlock(&s->mu);
    if (last)
        stream_free(j->st);
    if (j->heap)
        free(j);
    http_session_put(s);
    pthread_mutex_lock(&g_mu);
    g_threads--;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_mu);
    return NULL;
}

int http_session_submit(http_session *s, http_stream *st, cJSON *msg, const char *header_version)
{
    struct mcp_call *call = NULL;
    tl_stream = st;
    registry_view_as(s->client_id); /* tools/list: the client's own */
    mcp_server_handle_json(s->eng, msg, s->owner, header_version, &call);
    registry_view_as(0);
    tl_stream = NULL;
    if (!call)
        return 0;
    job local, *j = malloc(sizeof *j);
    pthread_mutex_lock(&g_mu);
    s->refs++;
    g_threads++;
    pthread_mutex_unlock(&g_mu);
    pthread_mutex_lock(&s->mu);
    st->refs++;
    s->threads++;
    pthread_mutex_unlock(&s->mu);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (j) {
        *j = (job){s, st, call, 1};
        if (pthread_create(&t, &attr, call_main, j) != 0) {
            j->heap = 0;
            local = *j;
            free(j);
            j = NULL;
        }
    } else {
        local = (job){s, st, call, 0};
    }
    pthread_attr_destroy(&attr);
    if (!j)
        call_main(&local); /* no thread: run it here; the answer still arrives */
    return 1;
}

static int client_gone(int fd)
{
    if (fd < 0)
        return 0;
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* Wait for something on `st` for up to POLL_MS.  Caller holds s->mu. */
static void wait_locked(http_stream *st)
{
    struct timespec t;
    mono_deadline_ms(&t, POLL_MS);
    mono_cond_wait(&st->cond, &st->s->mu, &t);
}

ssize_t http_stream_read(http_stream *st, char *buf, size_t max, int fd)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (st->out) {
            size_t n = st->out_len - st->out_pos;
            if (n > max)
                n = max;
            memcpy(buf, st->out + st->out_pos, n);
            st->out_pos += n;
            if (st->out_pos == st->out_len) {
                free(st->out);
                st->out = NULL;
            }
            st->last_write_ms = now_ms();
            pthread_mutex_unlock(&s->mu);
            return (ssize_t)n;
        }
        if (st->log && (!st->primed || (st->out = http_sse_replay(st->log, &st->out_len)))) {
            if (!st->primed)
                st->out = http_sse_priming(st->log, &st->out_len);
            st->primed = 1;
            st->out_pos = 0;
            if (!st->out) {
                pthread_mutex_unlock(&s->mu);
                return -2;
            }
            continue;
        }
        if (st->head) {
            msg *m = st->head;
            st->head = m->next;
            if (!st->head)
                st->tail = NULL;
            if (st->log) {
                st->out = http_sse_event(st->log, m->text, m->len, &st->out_len);
            } else {
                st->out_len = m->len + sizeof "event: message\ndata: \n\n" - 1;
                st->out = malloc(st->out_len + 1);
                if (st->out)
                    snprintf(st->out, st->out_len + 1, "event: message\ndata: %s\n\n", m->text);
            }
            st->out_pos = 0;
            free(m);
            if (!st->out) {
                pthread_mutex_unlock(&s->mu);
                return -2;
            }
            continue;
        }
        if ((st->req_id && (st->answered || st->call_over)) || s->drained || st->gone) {
            pthread_mutex_unlock(&s->mu);
            return -1;
        }
        if (now_ms() - st->last_write_ms >= KEEPALIVE_MS) {
            /* An SSE comment: proxies keep a quiet stream open. */
            st->out = strdup(": keep-alive\n\n");
            st->out_len = st->out ? strlen(st->out) : 0;
            st->out_pos = 0;
            continue;
        }
        wait_locked(st);
        if (!st->head && !st->answered) {
            pthread_mutex_unlock(&s->mu);
            int gone = client_gone(fd);
            pthread_mutex_lock(&s->mu);
            if (gone) {
                st->gone = !st->log; /* a resumable stream waits for its client */
                pthread_mutex_unlock(&s->mu);
                return -2;
            }
        }
    }
}

char *http_stream_wait_answer(http_stream *st, int fd)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        /* Only the response: anything else on a JSON answer is dropped. */
        while (st->head && !(st->answered && st->head == st->tail)) {
            msg *m = st->head;
            st->head = m->next;
            if (!st->head)
                st->tail = NULL; /* else the answer is queued behind a freed message */
            free(m);
        }
        if (st->answered && st->head) {
            msg *m = st->head;
            st->head = st->tail = NULL;
            pthread_mutex_unlock(&s->mu);
            char *text = strdup(m->text);
            free(m);
            return text;
        }
        if (s->drained || st->gone)
            break;
        wait_locked(st);
        if (!st->answered) {
            pthread_mutex_unlock(&s->mu);
            int gone = client_gone(fd);
            pthread_mutex_lock(&s->mu);
            if (gone) {
                st->gone = 1;
                break;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int http_stream_answer_ok(http_stream *st)
{
    pthread_mutex_lock(&st->s->mu);
    int ok = st->answered && st->answer_ok;
    pthread_mutex_unlock(&st->s->mu);
    return ok;
}

int http_stream_answered(http_stream *st)
{
    pthread_mutex_lock(&st->s->mu);
    int a = st->answered;
    pthread_mutex_unlock(&st->s->mu);
    return a;
}

void http_stream_outcome(http_stream *st, char *tool, size_t tool_size, const char **decision)
{
    static const char *const names[] = {"",        "allow",   "failed",   "deny",
                                        "invalid", "unknown", "cancelled"};
    pthread_mutex_lock(&st->s->mu);
    snprintf(tool, tool_size, "%s", st->tool);
    int k = st->status;
    if (st->gone && !st->answered && st->req_id)
        k = 6; /* its client went away: cancelled */
    pthread_mutex_unlock(&st->s->mu);
    *decision = k >= 0 && k < 7 ? names[k] : "";
}

void http_stream_close(http_stream *st)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    int cancel = st->req_id && !st->answered && !st->detached;
    int posting = st->posting;
    st->posting = 0;
    st->gone = !st->detached;
    cJSON *id = cancel ? cJSON_Duplicate(st->req_id, 1) : NULL;
    int last = stream_unref_locked(st);
    pthread_mutex_unlock(&s->mu);
    if (posting) {
        pthread_mutex_lock(&g_mu);
        g_posts--;
        pthread_cond_broadcast(&g_cond);
        pthread_mutex_unlock(&g_mu);
    }
    if (id) {
        /* The client went away mid-call: the call ends, and with it the
         * commands it started. */
        mcp_server_cancel(s->eng, id);
        cJSON_Delete(id);
    }
    if (s->stateless)
        http_session_end(s); /* its one request is over */
    if (last)
        stream_free(st);
}

void http_stream_json_only(http_stream *st)
{
    pthread_mutex_lock(&st->s->mu);
    st->json_only = 1;
    pthread_mutex_unlock(&st->s->mu);
}

/* Streams of `s` held for a resume.  Caller holds s->mu. */
static int held_locked(http_session *s)
{
    int n = 0;
    for (http_stream *st = s->streams; st; st = st->next)
        n += st->detached;
    return n;
}

int http_stream_detach(http_stream *st)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    int hold = limits.resume_s > 0 && st->log && st->primed && !st->gone && !st->detached &&
               !s->ended && held_locked(s) < HTTP_SSE_MAX_HELD;
    if (hold) {
        /* What was queued but not sent goes to the log, for the resume. */
        while (st->head) {
            msg *m = st->head;
            st->head = m->next;
            http_sse_keep(st->log, m->text, m->len);
            free(m);
        }
        st->tail = NULL;
        free(st->out); /* already in the log */
        st->out = NULL;
        st->detached = 1;
        st->hold_until = now_ms() + (int64_t)limits.resume_s * 1000;
        st->refs++;
    }
    pthread_mutex_unlock(&s->mu);
    return hold;
}

int http_stream_resume(http_session *s, const char *last_event_id, http_stream **out)
{
    unsigned no;
    uint64_t seq;
    *out = NULL;
    if (http_sse_parse_id(last_event_id, &no, &seq) != 0)
        return VT_ERR_INVALID;
    pthread_mutex_lock(&s->mu);
    http_stream *st = s->streams;
    while (st && !(st->no == no && st->log))
        st = st->next;
    int rc = !st ? VT_ERR_NOT_FOUND : !st->detached ? VT_ERR_BUSY : http_sse_rewind(st->log, seq);
    if (rc == 0) {
        st->detached = 0; /* the hold's reference is the connection's now */
        st->primed = 1;
        *out = st;
        pthread_cond_broadcast(&st->cond);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}
