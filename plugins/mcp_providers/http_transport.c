/* The Streamable HTTP transport (MCP 2025-03-26 to 2025-11-25).
 *
 * Every message is POSTed to the provider's endpoint.  The answer to a
 * request comes back on its own POST, as one JSON body or as a stream
 * of server-sent events that may carry the provider's notifications
 * (progress) and requests before the answer.  The session the server
 * names in Mcp-Session-Id when it answers initialize goes back on every
 * later request with the negotiated MCP-Protocol-Version; a 404 on a
 * request that named the session means the server forgot it, and the
 * provider is reconnected (a new initialize) on its next use.  A GET
 * stream carries what the server sends outside any request
 * (tools/list_changed); the session is ended with DELETE at exit.
 * A stream that ends before its answer, after the server gave it event
 * ids, is resumed: after the server's `retry` delay a GET with
 * Last-Event-ID asks for what followed (2025-11-25 "Resumability").
 *
 * With http_xfer.c (one exchange) the only files that use libcurl,
 * built with http_module.c into a module of its own (see
 * http_lazy.c).  A transfer runs in the sender's
 * thread on its own multi handle polled every POLL_MS, so it stops as
 * soon as its caller cancels, its time runs out or the provider breaks;
 * handles are pooled, so connections are reused.  Header values
 * (api_key_env's token, configured headers) are never logged. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "http_transport_int.h"

#define GET_RETRIES 3
#define DELETE_TIMEOUT_MS 2000
#define STOP_WAIT_MS 2000
/* Resuming a stream: the delay without a `retry` from the server, the
 * longest one taken from it, and the attempts without a new event. */
#define RESUME_DEFAULT_MS 1000
#define RESUME_MAX_MS 10000
#define RESUME_TRIES 3

static pthread_once_t g_curl_once = PTHREAD_ONCE_INIT;
static int g_curl_ok;

static void curl_setup(void) { g_curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }

/* ---- state and pooled handles ------------------------------------------- */

/* Caller holds p->mu. */
static http_state *state_locked(provider *p)
{
    if (!p->tp_state)
        p->tp_state = calloc(1, sizeof(http_state));
    return p->tp_state;
}

static conn *conn_take(provider *p, http_state *s)
{
    pthread_mutex_lock(&p->mu);
    conn *c = s->idle;
    if (c)
        s->idle = c->next;
    s->inflight++;
    pthread_mutex_unlock(&p->mu);
    if (c) {
        curl_easy_reset(c->easy);
        return c;
    }
    c = calloc(1, sizeof *c);
    if (c) {
        c->easy = curl_easy_init();
        c->multi = curl_multi_init();
    }
    if (!c || !c->easy || !c->multi) {
        if (c) {
            curl_easy_cleanup(c->easy);
            curl_multi_cleanup(c->multi);
        }
        free(c);
        pthread_mutex_lock(&p->mu);
        s->inflight--;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->mu);
        return NULL;
    }
    return c;
}

static void conn_give(provider *p, http_state *s, conn *c)
{
    pthread_mutex_lock(&p->mu);
    c->next = s->idle;
    s->idle = c;
    s->inflight--;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

/* The connection broke (seen by a transfer of `epoch`): later transfers
 * of that session stop, and the provider learns it once. */
static void break_conn(provider *p, unsigned epoch, const char *why, int resend_ok)
{
    http_state *s = p->tp_state;
    pthread_mutex_lock(&p->mu);
    int mine = s->epoch == epoch && s->up;
    if (mine) {
        s->epoch++;
        s->up = 0;
        free(s->session);
        s->session = NULL;
        if (resend_ok)
            p->resend_ok = 1;
    }
    pthread_mutex_unlock(&p->mu);
    if (mine)
        provider_closed(p, why, 0);
}

static void start_get(provider *p, http_state *s, unsigned epoch);
static int is_initialized(const char *text);

/* A 2xx answer: its JSON body delivered (an event stream was, as it
 * came); a request with no response is failed.  0, or -1 when the body
 * broke the connection. */
static int post_answered(provider *p, xfer *x, const char *what)
{
    const transport_req *req = x->req;
    char why[700];
    if (!x->sse && x->body.len)
        deliver(x, x->body.data, x->body.len);
    if (x->broke) {
        break_conn(p, x->epoch, x->broke, 0);
        return -1;
    }
    if (req && !provider_req_done(p, req->id)) {
        snprintf(why, sizeof why,
                 x->sse ? "MCP provider '%s' closed its event stream "
                          "before answering %s"
                        : "MCP provider '%s' answered %s with HTTP %ld "
                          "and no JSON-RPC response",
                 p->name, what, x->status);
        provider_req_failed(p, req->id, why);
    }
    return 0;
}

/* What a finished POST means: a broken connection (said once, why), a
 * refused request, or an answer.  0 when it went through (for a request:
 * the caller knows the outcome), -1 otherwise. */
static int post_outcome(provider *p, xfer *x, CURLcode res, int aborted)
{
    const transport_req *req = x->req;
    char why[700], body[ERR_BODY_MAX + 1];
    const char *what = req ? req->method : "a notification";
    if (x->broke) {
        break_conn(p, x->epoch, x->broke, 0);
    } else if (stale(x)) {
        /* someone else broke the connection, and said why */
    } else if (aborted) {
        return req ? 0 : -1; /* answered, cancelled or timed out: the caller knows */
    } else if (res != CURLE_OK) {
        snprintf(why, sizeof why, "MCP provider '%s': cannot reach %.300s: %s", p->name,
                 p->endpoint, curl_easy_strerror(res));
        break_conn(p, x->epoch, why, 0);
    } else if (x->status == 404 && x->had_session) {
        snprintf(why, sizeof why,
                 "MCP provider '%s' ended the session (HTTP 404 to %s); it is "
                 "reconnected on its next use",
                 p->name, what);
        break_conn(p, x->epoch, why, 1);
    } else if (x->status >= 500) {
        error_text(x, body, sizeof body);
        snprintf(why, sizeof why, "MCP provider '%s' answered %s with HTTP %ld: %s", p->name, what,
                 x->status, body[0] ? body : "(no text)");
        break_conn(p, x->epoch, why, 0);
    } else if (x->status < 200 || x->status >= 300) {
        error_text(x, body, sizeof body);
        snprintf(why, sizeof why, "MCP provider '%s' refused %s with HTTP %ld: %s", p->name, what,
                 x->status, body[0] ? body : "(no text)");
        if (req)
            provider_req_failed(p, req->id, why);
        else
            mcpp_api->log(VT_LOG_WARNING, "mcp_providers", "%s", why);
    } else {
        return post_answered(p, x, what);
    }
    return -1;
}

/* The session id an initialize answer gave, kept unless the connection
 * changed meanwhile. */
static void keep_session(provider *p, http_state *s, xfer *x)
{
    pthread_mutex_lock(&p->mu);
    if (s->epoch == x->epoch) {
        free(s->session);
        s->session = x->session;
        x->session = NULL;
    }
    pthread_mutex_unlock(&p->mu);
}

static void pause_ms(int ms);

/* Whether a POST's event stream ended or broke before its answer in a way
 * a resume may mend: the server gave it an event id, and the request is
 * still waited for. */
static int resumable(provider *p, xfer *x, CURLcode res, int aborted)
{
    return !aborted && !x->broke && x->sse && x->last_id && x->req && !stale(x) &&
           (res != CURLE_OK || (x->status >= 200 && x->status < 300)) &&
           !provider_req_done(p, x->req->id);
}

/* Resume x's stream: wait the server's `retry` delay, then GET with
 * Last-Event-ID, as often as new events keep coming (RESUME_TRIES
 * without one).  *res and *aborted become the last transfer's. */
static void resume_post(provider *p, http_state *s, xfer *x, CURLcode *res, int *aborted)
{
    for (int tries = 0; tries < RESUME_TRIES && resumable(p, x, *res, *aborted); tries++) {
        long wait = x->has_retry ? x->retry_ms : RESUME_DEFAULT_MS;
        for (long w = 0; w < (wait < RESUME_MAX_MS ? wait : RESUME_MAX_MS) && !should_stop(x);
             w += POLL_MS)
            pause_ms(POLL_MS);
        if (should_stop(x))
            return; /* answered meanwhile, cancelled or out of time */
        xfer g = {.p = p,
                  .s = s,
                  .kind = X_GET,
                  .req = x->req,
                  .epoch = x->epoch,
                  .resume_from = x->last_id,
                  .retry_ms = x->retry_ms,
                  .has_retry = x->has_retry};
        g.deadline = x->deadline;
        conn *c = conn_take(p, s);
        if (!c)
            return;
        *res = run(&g, c, NULL, aborted);
        conn_give(p, s, c);
        int ok = g.status >= 200 && g.status < 300 && g.sse;
        if (g.last_id && strcmp(g.last_id, x->last_id) != 0) {
            tries = -1; /* new events: the stream moves on */
            free(x->last_id);
            x->last_id = g.last_id;
            g.last_id = NULL;
        }
        x->retry_ms = g.retry_ms;
        x->has_retry = g.has_retry;
        if (g.broke && !x->broke) {
            x->broke = g.broke;
            g.broke = NULL;
        }
        xfer_free(&g);
        if (!ok)
            return; /* the server cannot resume it: the stream's end stands */
    }
}

static int http_send(provider *p, const char *text, const transport_req *req)
{
    pthread_mutex_lock(&p->mu);
    http_state *s = p->tp_state;
    int up = s && s->up;
    unsigned epoch = s ? s->epoch : 0;
    pthread_mutex_unlock(&p->mu);
    if (!up)
        return -1;
    xfer x = {.p = p,
              .s = s,
              .kind = X_POST,
              .req = req,
              .epoch = epoch,
              .is_init = req && strcmp(req->method, "initialize") == 0};
    provider_deadline(&x.deadline, p->lim.request_timeout_ms);
    conn *c = conn_take(p, s);
    if (!c)
        return -1;
    int aborted;
    CURLcode res = run(&x, c, text, &aborted);
    conn_give(p, s, c);
    if (resumable(p, &x, res, aborted)) {
        resume_post(p, s, &x, &res, &aborted);
        if (!x.broke && x.req && provider_req_done(p, x.req->id))
            res = CURLE_OK, aborted = 0; /* answered on the resumed stream */
    }
    int rc = post_outcome(p, &x, res, aborted);
    if (rc == 0 && !req && is_initialized(text))
        start_get(p, s, x.epoch);
    if (x.is_init && x.session && !x.broke)
        keep_session(p, s, &x);
    xfer_free(&x);
    return rc;
}

/* ---- the GET stream: what the server sends outside a request -------------------- */

static void pause_ms(int ms)
{
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
}

static void *get_main(void *arg)
{
    provider *p = arg;
    http_state *s = p->tp_state;
    pthread_mutex_lock(&p->mu);
    unsigned epoch = s->epoch;
    pthread_mutex_unlock(&p->mu);
    int failures = 0;
    char *last = NULL; /* the stream's last event id: a reconnect resumes there */
    long retry = RESUME_DEFAULT_MS / 2;
    while (failures < GET_RETRIES) {
        xfer x = {.p = p, .s = s, .kind = X_GET, .epoch = epoch, .resume_from = last};

        conn *c = conn_take(p, s);
        if (!c)
            break;
        struct timespec began;
        provider_deadline(&began, 1000);
        int aborted;
        CURLcode res = run(&x, c, NULL, &aborted);
        conn_give(p, s, c);
        int done = 0;
        if (x.broke) {
            break_conn(p, epoch, x.broke, 0);
            done = 1;
        } else if (aborted || stale(&x)) {
            done = 1;
        } else if (res != CURLE_OK) {
            failures++;
        } else if (x.status == 404 && x.had_session) {
            break_conn(p, epoch, "the MCP provider ended the session (HTTP 404)", 1);
            done = 1;
        } else if (x.status < 200 || x.status >= 300 || !x.sse) {
            done = 1; /* 405: the server offers no such stream */
        } else {
            /* the stream ended; one that ends at once counts as a failure */
            failures = provider_past(&began) ? 0 : failures + 1;
        }
        if (x.last_id) {
            free(last);
            last = x.last_id;
            x.last_id = NULL;
        }
        if (x.has_retry)
            retry = x.retry_ms < RESUME_MAX_MS ? x.retry_ms : RESUME_MAX_MS;
        xfer_free(&x);
        if (done)
            break;
        for (long w = 0; w < retry && !stale(&x); w += POLL_MS)
            pause_ms(POLL_MS);
    }
    free(last);
    pthread_mutex_lock(&p->mu);
    s->get_running = 0;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Open the GET stream once the session is initialized, and wait (a
 * little) until the server answers it: a list change right after the
 * handshake would otherwise be sent while no stream is open, and lost. */
static void start_get(provider *p, http_state *s, unsigned epoch)
{
    pthread_mutex_lock(&p->mu);
    if (s->epoch != epoch || s->get_joinable) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    s->get_open = 0;
    s->get_running = 1;
    if (pthread_create(&s->get, NULL, get_main, p) != 0) {
        s->get_running = 0; /* no stream: list changes are seen on the next start */
        pthread_mutex_unlock(&p->mu);
        return;
    }
    s->get_joinable = 1;
    struct timespec deadline;
    provider_deadline(&deadline,
                      p->lim.request_timeout_ms < 2000 ? p->lim.request_timeout_ms : 2000);
    while (s->get_running && !s->get_open && !provider_past(&deadline)) {
        struct timespec slice;
        provider_deadline(&slice, 20);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
    pthread_mutex_unlock(&p->mu);
}

/* "notifications/initialized": the session is ready for the GET stream. */
static int is_initialized(const char *text)
{
    cJSON *m = cJSON_Parse(text);
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "method"));
    int yes = method && strcmp(method, "notifications/initialized") == 0;
    cJSON_Delete(m);
    return yes;
}

/* ---- the transport ---------------------------------------------------------- */

/* Configured headers and the bearer token, once.  Caller holds p->mu.
 * Returns NULL or why not (malloc'd). */
static char *build_extra_locked(provider *p, http_state *s)
{
    if (s->extra_built)
        return NULL;
    char line[1100];
    struct curl_slist *h = NULL;
    for (char **a = p->headers; a && *a; a++)
        h = add_header(h, *a);
    for (char **a = p->env_headers; a && *a; a++) {
        const char *colon = strchr(*a, ':');
        const char *v = colon ? getenv(colon + 2) : NULL;
        if (v && *v && !strpbrk(v, "\r\n")) { /* empty or unset: no header */
            snprintf(line, sizeof line, "%.*s: %s", (int)(colon - *a), *a, v);
            h = add_header(h, line);
        }
    }
    if (p->api_key_env) {
        const char *key = getenv(p->api_key_env);
        if (!key || !*key || strpbrk(key, "\r\n")) {
            curl_slist_free_all(h);
            snprintf(line, sizeof line,
                     "MCP provider '%s': the environment variable %.200s "
                     "(api_key_env) is %s",
                     p->name, p->api_key_env, key && *key ? "not a one-line token" : "not set");
            return strdup(line);
        }
        snprintf(line, sizeof line, "Authorization: Bearer %.1000s", key);
        h = add_header(h, line);
        memset(line, 0, sizeof line); /* the token stays only in the header list */
    }
    s->extra = h;
    s->extra_built = 1;
    return NULL;
}

static int http_open(provider *p, char **err)
{
    pthread_once(&g_curl_once, curl_setup);
    pthread_mutex_lock(&p->mu);
    http_state *s = state_locked(p);
    if (!s || !g_curl_ok) {
        pthread_mutex_unlock(&p->mu);
        *err = strdup(s ? "cannot initialise libcurl" : "out of memory");
        return VT_ERR_NOMEM;
    }
    /* the previous session's stream ends by itself (its epoch is over) */
    int join = s->get_joinable;
    s->get_joinable = 0;
    pthread_t old = s->get;
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(old, NULL);

    pthread_mutex_lock(&p->mu);
    char *why = build_extra_locked(p, s);
    pthread_mutex_unlock(&p->mu);
    if (why) {
        provider_closed(p, why, 1); /* the environment will not change */
        *err = why;
        return VT_ERR_INVALID;
    }
    pthread_mutex_lock(&p->mu);
    s->epoch++;
    s->up = 1;
    free(s->session);
    free(s->version);
    s->session = s->version = NULL;
    pthread_mutex_unlock(&p->mu);
    provider_connected(p);
    return VT_OK;
}

static void http_fail(provider *p)
{
    http_state *s = p->tp_state;
    pthread_mutex_lock(&p->mu);
    int mine = s && s->up;
    if (mine) {
        s->epoch++;
        s->up = 0;
        free(s->session);
        s->session = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    if (mine)
        provider_closed(p, NULL, 0);
}

/* vthost ends: every transfer stops (p->stopping), then DELETE ends the
 * session at the server. */
static void http_stop(provider *p)
{
    pthread_mutex_lock(&p->mu);
    http_state *s = p->tp_state;
    if (!s) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    int join = s->get_joinable;
    s->get_joinable = 0;
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(s->get, NULL);
    struct timespec deadline;
    provider_deadline(&deadline, STOP_WAIT_MS);
    pthread_mutex_lock(&p->mu);
    while (s->inflight > 0 && !provider_past(&deadline)) {
        struct timespec slice;
        provider_deadline(&slice, 20);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
    int up = s->up;
    s->up = 0;
    s->epoch++;
    char *session = s->session;
    s->session = NULL;
    pthread_mutex_unlock(&p->mu);
    if (up)
        provider_closed(p, "vthost stopped", 0);
    if (!session)
        return;
    pthread_mutex_lock(&p->mu);
    s->session = session; /* for the DELETE's header */
    pthread_mutex_unlock(&p->mu);
    xfer x = {.p = p, .s = s, .kind = X_DELETE};
    provider_deadline(&x.deadline, DELETE_TIMEOUT_MS);
    conn *c = conn_take(p, s);
    if (c) {
        int aborted;
        run(&x, c, NULL, &aborted); /* 405 (not offered) is fine too */
        conn_give(p, s, c);
    }
    xfer_free(&x);
    pthread_mutex_lock(&p->mu);
    free(s->session);
    s->session = NULL;
    pthread_mutex_unlock(&p->mu);
}

static void http_destroy(provider *p)
{
    http_state *s = p->tp_state;
    if (!s)
        return;
    while (s->idle) {
        conn *c = s->idle;
        s->idle = c->next;
        curl_multi_cleanup(c->multi);
        curl_easy_cleanup(c->easy);
        free(c);
    }
    curl_slist_free_all(s->extra);
    free(s->session);
    free(s->version);
    free(s);
    p->tp_state = NULL;
}

static void http_describe(const provider *p, cJSON *o)
{
    cJSON_AddStringToObject(o, "endpoint", p->endpoint ? p->endpoint : "");
}

const transport_ops http_curl_transport = {
    .name = "http",
    .open = http_open,
    .send = http_send,
    .fail = http_fail,
    .stop = http_stop,
    .destroy = http_destroy,
    .describe = http_describe,
    .answers_on_send = 1,
};
