/* The session registry of `vthost serve --http` (see http_session.h,
 * and http_session_int.h for how its parts meet). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "host.h"
#include "http_session_int.h"
#include "http_workers.h"
#include "registry_view.h"
#include "services.h"
#include "spool_dir.h"

pthread_mutex_t hs_mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t hs_cond = PTHREAD_COND_INITIALIZER;
http_session *hs_sessions;
http_session *hs_stateless;
int hs_count, hs_threads;
int hs_posts;
mcp_ops hs_host_ops;
http_limits hs_limits;
__thread http_stream *hs_tl_stream;

void http_sessions_init(const mcp_ops *ops, const http_limits *l)
{
    hs_host_ops = *ops;
    hs_limits = *l;
}

static void session_free(http_session *s)
{
    mcp_server_free(s->eng);
    /* Every call of the session has ended (each held a reference): its
     * spool view goes with it unless it holds output.  A stateless
     * request's view is its principal's, kept for the principal's next
     * requests and removed at shutdown (http_stateless_reset). */
    if (!s->stateless)
        spool_view_remove(host_workspace(), s->client_id);
    hs_free_msgs(s->backlog);
    hs_kept_prune(s, INT64_MAX);
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
        for (http_session *o = hs_sessions; o && !used; o = o->next)
            used = o->client_id == id;
        if (!used)
            return id;
    }
}

/* A session of `owner` with its engine, not yet listed; NULL when out of
 * memory or randomness.  A stateless request's has no id (it is never
 * named or looked up): no random bytes are drawn for it. */
static http_session *session_new(const char *owner, int stateless)
{
    unsigned char raw[HTTP_SESSION_ID_LEN / 2];
    if (!stateless && getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return NULL;
    http_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw && !stateless; i++) {
        s->id[2 * i] = hex[raw[i] >> 4];
        s->id[2 * i + 1] = hex[raw[i] & 15];
    }
    snprintf(s->owner, sizeof s->owner, "%s", owner);
    pthread_mutex_init(&s->mu, NULL);
    mcp_ops ops = hs_host_ops;
    ops.call = hs_session_call;
    s->eng = mcp_server_new_sink(&ops, NULL, NULL);
    if (!s->eng) {
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    mcp_server_set_output(s->eng, hs_route_out, s);
    if (hs_limits.max_calls > 0)
        mcp_server_set_max_calls(s->eng, hs_limits.max_calls);
    s->refs = 2; /* the list's and the caller's */
    s->last_used_ms = now_ms();
    return s;
}

int hs_held_locked(http_session *s);

/* Idle: only the list holds it, and streams held for a resume (no
 * request, no open stream, no call).  A held stream is a replay buffer
 * for a client that may never come back -- most drop their GET stream
 * when they close without ending the session -- so it does not keep the
 * session from making room.  Caller holds hs_mu (taken before s->mu). */
static int idle_locked(http_session *s)
{
    if (s->refs == 1)
        return 1;
    pthread_mutex_lock(&s->mu);
    int held = hs_held_locked(s);
    pthread_mutex_unlock(&s->mu);
    return s->refs == 1 + held;
}

/* The owner's least recently used idle session (caller holds hs_mu), or
 * NULL when every one of them is in use. */
static http_session *lru_idle_locked(const char *owner)
{
    http_session *lru = NULL;
    for (http_session *o = hs_sessions; o; o = o->next)
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
    http_session *s = session_new(owner, 0);
    if (!s)
        return 500;
    pthread_mutex_lock(&hs_mu);
    int mine = 0;
    for (http_session *o = hs_sessions; o; o = o->next)
        mine += strcmp(o->owner, s->owner) == 0;
    /* At the owner's limit its least recently used idle session makes
     * room: clients that never end their sessions (most do not) must not
     * lock the next one out.  Only when every session of the owner is
     * busy is the newcomer refused. */
    http_session *evict = NULL;
    if (hs_limits.max_per_owner > 0 && mine >= hs_limits.max_per_owner &&
        (evict = lru_idle_locked(owner)))
        unlink_locked(evict);
    int full = hs_limits.max_per_owner > 0 && mine >= hs_limits.max_per_owner && !evict ? 429
               : hs_limits.max_sessions > 0 && hs_count >= hs_limits.max_sessions       ? 503
                                                                                        : 0;
    if (!full) {
        s->client_id = new_client_id_locked();
        s->next = hs_sessions;
        hs_sessions = s;
        hs_count++;
    }
    pthread_mutex_unlock(&hs_mu);
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
    http_session *s = session_new(owner, 1);
    if (!(*out = s))
        return 500;
    s->stateless = 1;
    s->client_id = client_id;
    /* As many requests at once as the principal's sessions could run
     * calls: stateless requests are no way around the hs_limits. */
    long cap = (long)(hs_limits.max_per_owner > 0 ? hs_limits.max_per_owner : 16) *
               (hs_limits.max_calls > 0 ? hs_limits.max_calls : 16);
    long mine = 0;
    pthread_mutex_lock(&hs_mu);
    for (http_session *o = hs_stateless; o; o = o->next)
        mine += !o->answered && strcmp(o->owner, s->owner) == 0;
    if (mine < cap) {
        s->next = hs_stateless;
        hs_stateless = s;
    }
    pthread_mutex_unlock(&hs_mu);
    if (mine >= cap) {
        session_free(s);
        *out = NULL;
        return 429;
    }
    return 0;
}

void http_session_answered(http_session *s)
{
    pthread_mutex_lock(&hs_mu);
    s->answered = 1;
    pthread_mutex_unlock(&hs_mu);
}

http_session *http_session_find(const char *id, const char *owner)
{
    if (!id || strlen(id) != HTTP_SESSION_ID_LEN)
        return NULL;
    pthread_mutex_lock(&hs_mu);
    http_session *s = hs_sessions;
    while (s && strcmp(s->id, id) != 0)
        s = s->next;
    if (s && strcmp(s->owner, owner) != 0)
        s = NULL; /* another client's: as if unknown */
    if (s) {
        s->refs++;
        s->last_used_ms = now_ms();
    }
    pthread_mutex_unlock(&hs_mu);
    return s;
}

/* Drop a reference; `used`: the client used the session (a request of
 * its own), which keeps it from expiring.  The host's own visits (the
 * sweeps, a tool-list notice) are not use. */
void hs_session_unref(http_session *s, int used)
{
    if (!s)
        return;
    pthread_mutex_lock(&hs_mu);
    int last = --s->refs == 0;
    if (!last && used)
        s->last_used_ms = now_ms();
    pthread_mutex_unlock(&hs_mu);
    if (last)
        session_free(s);
}

void http_session_put(http_session *s) { hs_session_unref(s, 1); }

const char *http_session_id(const http_session *s) { return s->id; }

const char *http_session_version(http_session *s) { return s->version; }

int http_session_calls(http_session *s) { return mcp_server_running(s->eng); }

/* Take `s` off the list (caller holds hs_mu); the list's reference is the
 * caller's to drop.  Returns 0 when it was already off. */
static int unlink_locked(http_session *s)
{
    for (http_session **p = s->stateless ? &hs_stateless : &hs_sessions; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            hs_count -= !s->stateless;
            s->ended = 1;
            return 1;
        }
    }
    return 0;
}

void http_streams_release_held(http_session *s, int64_t now);
int hs_stream_unref_locked(http_stream *st);
void hs_stream_free(http_stream *st);

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
            msg *em = text ? hs_msg_new(text, strlen(text)) : NULL;
            free(text);
            if (em) {
                st->answered = 1;
                hs_push_locked(st, em);
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
    pthread_mutex_lock(&hs_mu);
    int was = unlink_locked(s);
    pthread_mutex_unlock(&hs_mu);
    if (was) {
        stop_session(s);
        http_session_put(s);
    }
}

static void release_all_held(int64_t now)
{
    pthread_mutex_lock(&hs_mu);
    int k = 0;
    http_session **v = calloc((size_t)hs_count + 1, sizeof *v);
    for (http_session *s = hs_sessions; v && s; s = s->next) {
        s->refs++;
        v[k++] = s;
    }
    pthread_mutex_unlock(&hs_mu);
    for (int i = 0; i < k; i++) {
        http_streams_release_held(v[i], now);
        hs_kept_prune(v[i], now);
        hs_session_unref(v[i], 0);
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
 * live on.  Caller holds hs_mu. */
static int expired_locked(http_session *s, int64_t now)
{
    if (!idle_locked(s))
        return 0;
    int64_t idle = now - s->last_used_ms;
    if (idle <= (int64_t)hs_limits.idle_s * 1000)
        return 0;
    return hs_limits.idle_commands_s <= hs_limits.idle_s ||
           idle > (int64_t)hs_limits.idle_commands_s * 1000 || !holds_commands(s);
}

void http_sessions_expire(void)
{
    int64_t now = now_ms();
    release_all_held(now);
    if (hs_limits.idle_s <= 0)
        return;
    for (;;) {
        http_session *victim = NULL;
        pthread_mutex_lock(&hs_mu);
        for (http_session *s = hs_sessions; s && !victim; s = s->next)
            if (expired_locked(s, now))
                victim = s;
        if (victim)
            unlink_locked(victim);
        pthread_mutex_unlock(&hs_mu);
        if (!victim)
            return;
        stop_session(victim);
        http_session_put(victim);
    }
}

int http_sessions_count(void)
{
    pthread_mutex_lock(&hs_mu);
    int n = hs_count;
    pthread_mutex_unlock(&hs_mu);
    return n;
}

void http_sessions_tools_changed(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&hs_mu);
    int n = hs_count, k = 0;
    for (http_session *s = hs_stateless; s; s = s->next)
        n++;
    http_session **v = calloc((size_t)n + 1, sizeof *v);
    for (int l = 0; l < 2; l++)
        for (http_session *s = l ? hs_stateless : hs_sessions; v && s; s = s->next) {
            s->refs++;
            v[k++] = s;
        }
    pthread_mutex_unlock(&hs_mu);
    for (int i = 0; i < k; i++) {
        mcp_server_tools_changed(v[i]->eng);
        hs_session_unref(v[i], 0);
    }
    free(v);
}

void http_sessions_shutdown(int grace_ms)
{
    /* Running calls may finish, and their answers reach their clients,
     * within the grace period. */
    struct timespec end;
    mono_deadline_ms(&end, grace_ms);
    pthread_mutex_lock(&hs_mu);
    while ((hs_threads > 0 || hs_posts > 0) && mono_cond_wait(&hs_cond, &hs_mu, &end) != ETIMEDOUT)
        ;
    http_session *list = hs_sessions;
    hs_sessions = NULL;
    hs_count = 0;
    /* Stateless requests' engines end with the sessions. */
    for (http_session **p = &list;; p = &(*p)->next) {
        if (!*p) {
            *p = hs_stateless;
            hs_stateless = NULL;
            break;
        }
    }
    for (http_session *s = list; s; s = s->next)
        s->ended = 1;
    pthread_mutex_unlock(&hs_mu);
    while (list) {
        http_session *n = list->next;
        stop_session(list);
        http_session_put(list);
        list = n;
    }
    /* Cancelled calls end their commands and answer; a moment more. */
    mono_deadline_ms(&end, grace_ms > 2000 ? grace_ms : 2000);
    pthread_mutex_lock(&hs_mu);
    while ((hs_threads > 0 || hs_posts > 0) && mono_cond_wait(&hs_cond, &hs_mu, &end) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&hs_mu);
    hs_workers_stop(1000);
}
