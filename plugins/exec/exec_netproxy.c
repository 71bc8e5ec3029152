/* The filtering proxy around one exec_command call (exec_netproxy.h):
 * each host is decided by the sandbox's lists and the permission policy
 * (vt_exec_policy.decide_domain: rules on the domain, a question for an
 * unlisted one while the call runs), and a question's answer holds for
 * the rest of the session. */
#include "exec_netproxy.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/grow.h>
#include "session.h"

/* The answers to questions about unlisted domains, per client session
 * (vt_host_api.call_client_id): asked once, kept until the plugin ends. */
typedef struct answer {
    uint64_t client;
    char *host;
    int allowed;
    char *why;
} answer;

#define ANSWERS_MAX 4096

static pthread_mutex_t answers_mu = PTHREAD_MUTEX_INITIALIZER;
static answer *answers;
static size_t nanswers, answers_cap;

/* The proxies of sessions still running after their exec_command call,
 * by session id, so that write_stdin's results report what they refuse.
 * Bounded: the oldest is let go (its session keeps its proxy; only the
 * report of later refusals is lost). */
typedef struct kept_proxy {
    int64_t session;
    netproxy *np;
} kept_proxy;

#define KEPT_MAX 256

static pthread_mutex_t kept_mu = PTHREAD_MUTEX_INITIALIZER;
static kept_proxy kept[KEPT_MAX];
static size_t nkept;

static void keep_proxy(int64_t session, netproxy *np)
{
    netproxy *drop = NULL;
    pthread_mutex_lock(&kept_mu);
    if (nkept == KEPT_MAX) {
        drop = kept[0].np;
        memmove(kept, kept + 1, (KEPT_MAX - 1) * sizeof *kept);
        nkept--;
    }
    kept[nkept++] = (kept_proxy){session, netproxy_retain(np)};
    pthread_mutex_unlock(&kept_mu);
    if (drop)
        netproxy_release(drop);
}

/* The kept proxy of `session` with a reference of the caller's, or NULL;
 * `forget` also takes it out of the table. */
static netproxy *kept_proxy_of(int64_t session, int forget)
{
    netproxy *np = NULL;
    pthread_mutex_lock(&kept_mu);
    for (size_t i = 0; i < nkept; i++) {
        if (kept[i].session != session)
            continue;
        np = kept[i].np;
        if (forget) {
            memmove(kept + i, kept + i + 1, (nkept - i - 1) * sizeof *kept);
            nkept--;
        } else {
            netproxy_retain(np);
        }
        break;
    }
    pthread_mutex_unlock(&kept_mu);
    return np;
}

/* One command session's decisions (owned by its proxy). */
typedef struct np_ctx {
    pthread_mutex_t mu; /* held through a decision: one question at a time,
                           and `live` stays valid while it is used */
    vt_exec_policy *pol;
    vt_call *live; /* the call, while it runs and its client can be asked */
    uint64_t client;
} np_ctx;

static void ctx_free(void *ud)
{
    np_ctx *c = ud;
    if (!c)
        return;
    if (c->pol)
        c->pol->release(c->pol);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void exec_netproxy_fini(void)
{
    pthread_mutex_lock(&kept_mu);
    for (size_t i = 0; i < nkept; i++)
        netproxy_release(kept[i].np);
    nkept = 0;
    pthread_mutex_unlock(&kept_mu);
    pthread_mutex_lock(&answers_mu);
    for (size_t i = 0; i < nanswers; i++) {
        free(answers[i].host);
        free(answers[i].why);
    }
    free(answers);
    answers = NULL;
    nanswers = answers_cap = 0;
    pthread_mutex_unlock(&answers_mu);
}

/* The answer given earlier in this client session: 0/-1 with `why`, or 1
 * when there is none. */
static int answer_find(uint64_t client, const char *host, char *why, size_t whysz)
{
    int rc = 1;
    pthread_mutex_lock(&answers_mu);
    for (size_t i = 0; rc == 1 && i < nanswers; i++)
        if (answers[i].client == client && !strcmp(answers[i].host, host)) {
            snprintf(why, whysz, "%s", answers[i].why);
            rc = answers[i].allowed ? 0 : -1;
        }
    pthread_mutex_unlock(&answers_mu);
    return rc;
}

static void answer_keep(uint64_t client, const char *host, int allowed, const char *why)
{
    pthread_mutex_lock(&answers_mu);
    if (nanswers < ANSWERS_MAX && VT_GROW(&answers, &answers_cap, nanswers + 1) == 0) {
        answer a = {client, strdup(host), allowed, strdup(why)};
        if (a.host && a.why)
            answers[nanswers++] = a;
        else {
            free(a.host);
            free(a.why);
        }
    }
    pthread_mutex_unlock(&answers_mu);
}

static int has_domain_decisions(const vt_exec_policy *p)
{
    return p &&
           p->struct_size >= offsetof(vt_exec_policy, decide_domain) + sizeof p->decide_domain &&
           p->decide_domain;
}

/* The policy's decision; a question's answer about an unlisted `host`
 * is kept for the client session. */
static int policy_decide(np_ctx *c, const char *host, int listed, char *why, size_t whysz)
{
    int rc = listed ? 1 : answer_find(c->client, host, why, whysz);
    if (rc != 1)
        return rc;
    char *reason = NULL;
    rc = c->pol->decide_domain(c->pol, c->live, host, listed, &reason);
    if (rc != VT_OK)
        snprintf(why, whysz, "%s", reason ? reason : "refused by the permission policy");
    else if (!listed)
        snprintf(why, whysz, "approved for this session");
    api->free(reason);
    /* only what a person answered is kept: a refusal for want of a
     * client to ask may be asked again when one can answer */
    if (!listed && c->live)
        answer_keep(c->client, host, rc == VT_OK, why);
    return rc == VT_OK ? 0 : -1;
}

static int decide(void *ud, const char *host, unsigned port, netproxy_verdict v, char *why,
                  size_t whysz)
{
    np_ctx *c = ud;
    int rc = v == NETPROXY_ALLOWED ? 0 : -1;
    /* denied_domains is final; the rest goes through the policy */
    if (v != NETPROXY_DENIED && has_domain_decisions(c->pol)) {
        pthread_mutex_lock(&c->mu);
        rc = policy_decide(c, host, v == NETPROXY_ALLOWED, why, whysz);
        pthread_mutex_unlock(&c->mu);
    }
    /* every decision in the log: the audit trail of what commands reached */
    api->log(rc == 0 ? VT_LOG_INFO : VT_LOG_NOTICE, "exec", "sandbox network: %s %s port %u (%s)",
             rc == 0 ? "allowed" : "refused", host, port, why);
    return rc;
}

int exec_netproxy_begin(vt_call *call, const netproxy_rules *rules, spawn_req *req, char ***env,
                        netproxy **out)
{
    np_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&c->mu, NULL);
    c->client = VT_HAS(api, call_client_id) ? api->call_client_id(call) : 0;
    /* Only a client that shows a person the question is asked about an
     * unlisted domain: an approve-everything front end (`vthost call
     * --yes`) or one with nobody to ask leaves it refused. */
    if (VT_HAS(api, client_capabilities) &&
        (api->client_capabilities(call) & VT_CLIENT_ELICITATION))
        c->live = call;
    if (VT_HAS(api, exec_policy) && api->exec_policy(call, &c->pol) != VT_OK)
        c->pol = NULL;
    int fd = -1;
    int rc = netproxy_start(rules, decide, c, ctx_free, out, &fd);
    char **e = rc == VT_OK ? netproxy_env(*env) : NULL;
    if (!e) {
        if (fd >= 0)
            close(fd);
        netproxy_release(*out);
        *out = NULL;
        return api->call_error(call, rc == VT_OK ? VT_ERR_NOMEM : rc,
                               "cannot start the sandbox's network proxy");
    }
    *env = e;
    req->envp = e;
    req->netproxy_fd = fd;
    return VT_OK;
}

static void add_result(vt_call *call, netproxy *np, cJSON *result)
{
    char **refused = netproxy_take_refusals(np);
    netproxy_stats st;
    netproxy_get_stats(np, &st);
    cJSON *o = result ? cJSON_AddObjectToObject(result, "network") : NULL;
    if (o) {
        cJSON_AddNumberToObject(o, "sent_bytes", (double)st.sent);
        cJSON_AddNumberToObject(o, "received_bytes", (double)st.received);
        cJSON_AddNumberToObject(o, "connections", st.connections);
        if (st.capped)
            cJSON_AddNumberToObject(o, "connections_refused_at_cap", st.capped);
    }
    cJSON *list = o ? cJSON_AddArrayToObject(o, "refused") : NULL;
    for (size_t i = 0; refused && refused[i]; i++) {
        api->call_warn(call, "%s", refused[i]);
        if (list)
            cJSON_AddItemToArray(list, cJSON_CreateString(refused[i]));
        free(refused[i]);
    }
    free(refused);
}

void exec_netproxy_end(vt_call *call, netproxy *np, spawn_req *req, cJSON *result)
{
    if (req->netproxy_fd > 2)
        close(req->netproxy_fd);
    req->netproxy_fd = 0;
    if (!np)
        return;
    if (result && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "is_exited")))
        netproxy_settle(np, 1000);
    /* Past this call nobody can be asked: the question's call is gone. */
    np_ctx *c = netproxy_ud(np);
    pthread_mutex_lock(&c->mu);
    c->live = NULL;
    pthread_mutex_unlock(&c->mu);
    add_result(call, np, result);
    const cJSON *sid = result ? cJSON_GetObjectItemCaseSensitive(result, "session_id") : NULL;
    if (cJSON_IsNumber(sid) && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "is_exited")))
        keep_proxy((int64_t)sid->valuedouble, np);
    netproxy_release(np);
}

int exec_netproxy_write_and_wait(vt_call *call, int64_t id, const char *chars, size_t len,
                                 int yield_ms, cJSON **result)
{
    netproxy *np = kept_proxy_of(id, 0);
    np_ctx *c = np ? netproxy_ud(np) : NULL;
    if (c) {
        pthread_mutex_lock(&c->mu);
        c->live = call; /* a domain first met now is asked through this call */
        pthread_mutex_unlock(&c->mu);
    }
    int rc = session_write_and_wait(call, id, chars, len, yield_ms, result);
    if (!np)
        return rc;
    int exited = rc == VT_OK && *result &&
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*result, "is_exited"));
    if (exited)
        netproxy_settle(np, 1000);
    pthread_mutex_lock(&c->mu);
    c->live = NULL;
    pthread_mutex_unlock(&c->mu);
    if (rc == VT_OK)
        add_result(call, np, *result);
    if (exited || rc == VT_ERR_NOT_FOUND) {
        netproxy *gone = kept_proxy_of(id, 1);
        if (gone)
            netproxy_release(gone);
    }
    netproxy_release(np);
    return rc;
}
