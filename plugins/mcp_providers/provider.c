/* A provider's child process and the JSON-RPC connection to it.
 *
 * The child is forked by the provider's own reader thread, which lives
 * exactly as long as the child: PR_SET_PDEATHSIG fires when the thread
 * that forked exits, so forking from a short-lived call thread would
 * kill the provider when that thread ends.  The child gets its own
 * process group (the whole group is killed on stop) and one end of a
 * socket pair as stdin and stdout: writes to a socket can say
 * MSG_NOSIGNAL, so a provider that died never raises SIGPIPE in vthost.
 * Messages are newline-delimited JSON (the MCP stdio transport). */
#define _GNU_SOURCE  /* pipe2, execvpe */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "provider.h"

const vt_host_api *mcpp_api;
void (*mcpp_list_changed)(provider *p);

struct rpc_wait {
    rpc_wait *next;
    long id;
    vt_call *call;          /* progress goes here; may be NULL */
    cJSON *reply;
    char *err;
    int done;
};

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
    pthread_mutex_init(&p->wmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cond, &ca);
    pthread_condattr_destroy(&ca);
    p->fd = -1;
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

static int send_text(provider *p, const char *text)
{
    size_t len = strlen(text), off = 0;
    int rc = 0;
    pthread_mutex_lock(&p->wmu);
    pthread_mutex_lock(&p->mu);
    int fd = p->fd;
    pthread_mutex_unlock(&p->mu);
    while (fd >= 0 && off <= len) {
        const char *b = off < len ? text + off : "\n";
        size_t n = off < len ? len - off : 1;
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = -1;
            break;
        }
        if (off == len)
            break;
        off += (size_t)w;
    }
    pthread_mutex_unlock(&p->wmu);
    return fd < 0 ? -1 : rc;
}

static int send_msg(provider *p, cJSON *msg)
{
    char *text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!text)
        return -1;
    int rc = send_text(p, text);
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

int provider_notify(provider *p, const char *method, cJSON *params)
{
    return send_msg(p, rpc_new(method, params));
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
        const char *ws = mcpp_api->workspace_root();
        char *uri = malloc(strlen(ws) + 8);
        if (uri) {
            sprintf(uri, "file://%s", ws);
            cJSON *r = cJSON_CreateObject();
            cJSON_AddStringToObject(r, "uri", uri);
            cJSON_AddItemToArray(roots, r);
            free(uri);
        }
    } else {
        cJSON *e = cJSON_AddObjectToObject(m, "error");
        cJSON_AddNumberToObject(e, "code", -32601);
        char msg[256];
        snprintf(msg, sizeof msg, "vthost does not offer '%.100s' to MCP providers", method);
        cJSON_AddStringToObject(e, "message", msg);
    }
    send_msg(p, m);
}

static void on_progress(provider *p, const cJSON *params)
{
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
    const cJSON *prog = cJSON_GetObjectItemCaseSensitive(params, "progress");
    if (!cJSON_IsNumber(tok) || !cJSON_IsNumber(prog))
        return;
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(params, "total");
    const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "message"));
    pthread_mutex_lock(&p->mu);
    for (rpc_wait *w = p->waits; w; w = w->next)
        if ((double)w->id == tok->valuedouble && !w->done && w->call)
            mcpp_api->call_progress(w->call, prog->valuedouble,
                                    cJSON_IsNumber(total) ? total->valuedouble : 0, msg);
    pthread_mutex_unlock(&p->mu);
}

/* One message; returns 0, or -1 when it is not JSON-RPC at all. */
static int handle_line(provider *p, const char *line, size_t len)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    if (len == 0)
        return 0;
    cJSON *m = cJSON_ParseWithLength(line, len);
    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        return -1;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "method"));
    if (method && id) {
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

static char *describe_exit(const char *name, int status)
{
    char buf[200];
    if (WIFEXITED(status))
        snprintf(buf, sizeof buf, "MCP provider '%s' exited with status %d", name,
                 WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, sizeof buf, "MCP provider '%s' was killed by signal %d", name,
                 WTERMSIG(status));
    else
        snprintf(buf, sizeof buf, "MCP provider '%s' ended", name);
    return strdup(buf);
}

/* Reads until EOF or a protocol failure; returns the failure or NULL. */
static char *read_loop(provider *p, int fd)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    char why[256];
    if (!buf)
        return strdup("out of memory");
    for (;;) {
        if (len == cap) {
            if (cap > p->lim.max_message) {
                snprintf(why, sizeof why, "MCP provider '%s' sent a message over %zu bytes",
                         p->name, p->lim.max_message);
                free(buf);
                return strdup(why);
            }
            char *g = realloc(buf, cap * 2);
            if (!g) {
                free(buf);
                return strdup("out of memory");
            }
            buf = g;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            free(buf);
            return NULL;
        }
        size_t start = 0, scan = len;
        len += (size_t)n;
        for (size_t i = scan; i < len; i++)
            if (buf[i] == '\n') {
                if (handle_line(p, buf + start, i - start) < 0) {
                    snprintf(why, sizeof why, "MCP provider '%s' sent malformed JSON-RPC "
                             "(not a JSON object)", p->name);
                    free(buf);
                    return strdup(why);
                }
                start = i + 1;
            }
        if (len - start > p->lim.max_message) {
            snprintf(why, sizeof why, "MCP provider '%s' sent a message over %zu bytes",
                     p->name, p->lim.max_message);
            free(buf);
            return strdup(why);
        }
        memmove(buf, buf + start, len - start);
        len -= start;
    }
}

static void *io_main(void *arg)
{
    provider *p = arg;
    int sv[2] = {-1, -1}, ep[2] = {-1, -1};
    char *why = NULL;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
        why = strdup("cannot create the provider's pipes");
        goto spawned;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* the child: async-signal-safe calls only */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
            _exit(127);
        if (p->cwd && chdir(p->cwd) < 0) {
            int e = errno;
            (void)!write(ep[1], &e, sizeof e);
            _exit(127);
        }
        execvpe(p->argv[0], p->argv, p->envp);
        int e = errno;
        (void)!write(ep[1], &e, sizeof e);
        _exit(127);
    }
    close(sv[1]);
    sv[1] = -1;
    close(ep[1]);
    ep[1] = -1;
    if (pid < 0) {
        why = strdup("fork failed");
        goto spawned;
    }
    setpgid(pid, pid);
    int e = 0;
    ssize_t got;
    do
        got = read(ep[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    if (got == (ssize_t)sizeof e) {
        char buf[600];
        snprintf(buf, sizeof buf, "MCP provider '%s': cannot run '%s'%s%s: %s", p->name,
                 p->argv[0], p->cwd ? " in " : "", p->cwd ? p->cwd : "", strerror(e));
        why = strdup(buf);
        waitpid(pid, NULL, 0);
        goto spawned;
    }
    struct timeval tv = {p->lim.request_timeout_ms / 1000,
                         (p->lim.request_timeout_ms % 1000) * 1000};
    setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    pthread_mutex_lock(&p->mu);
    p->pid = pid;
    p->fd = sv[0];
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);

    char *broke = read_loop(p, sv[0]);

    pthread_mutex_lock(&p->mu);
    kill(-pid, SIGKILL);  /* the group: a provider's helpers go too */
    p->pid = 0;
    pthread_mutex_unlock(&p->mu);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&p->wmu);  /* no writer still uses the socket */
    pthread_mutex_lock(&p->mu);
    p->fd = -1;
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->wmu);
    close(sv[0]);
    sv[0] = -1;
    pthread_mutex_lock(&p->mu);
    if (!broke && p->reason && p->state == PROV_FAILED)
        broke = strdup(p->reason);  /* provider_fail said why */
    why = broke ? broke : describe_exit(p->name, status);
    if (!p->stopping) {
        p->state = PROV_FAILED;
        p->failures++;
        set_reason(p, why);
        mcpp_api->log(VT_LOG_WARNING, "mcp_providers", "%s", why);
    }
    fail_waits_locked(p, why);
    p->io_running = 0;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    free(why);
    return NULL;

spawned:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    pthread_mutex_lock(&p->mu);
    p->state = PROV_DISABLED;  /* cannot run at all: retrying will not help */
    set_reason(p, why ? why : "cannot start");
    fail_waits_locked(p, p->reason);
    p->io_running = 0;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    free(why);
    return NULL;
}

int provider_spawn(provider *p, char **err)
{
    pthread_mutex_lock(&p->mu);
    int join = p->io_joinable && !p->io_running;
    pthread_t old = p->io;
    if (join)
        p->io_joinable = 0;
    if (p->io_running) {  /* still tearing the last child down */
        pthread_mutex_unlock(&p->mu);
        *err = strdup("the provider's previous process is still ending");
        return VT_ERR_BUSY;
    }
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(old, NULL);

    pthread_mutex_lock(&p->mu);
    p->state = PROV_STARTING;
    p->generation++;
    p->list_dirty = 0;
    p->io_running = 1;
    if (pthread_create(&p->io, NULL, io_main, p) != 0) {
        p->io_running = 0;
        p->state = PROV_FAILED;
        pthread_mutex_unlock(&p->mu);
        *err = strdup("cannot start a thread for the provider");
        return VT_ERR_NOMEM;
    }
    p->io_joinable = 1;
    while (p->io_running && p->fd < 0)
        pthread_cond_wait(&p->cond, &p->mu);
    int rc = p->fd >= 0 ? VT_OK : VT_ERR_IO;
    if (rc != VT_OK)
        *err = strdup(p->reason ? p->reason : "the provider did not start");
    pthread_mutex_unlock(&p->mu);
    return rc;
}

void provider_fail(provider *p, const char *why)
{
    pthread_mutex_lock(&p->mu);
    if (p->pid > 0) {
        p->state = PROV_FAILED;
        set_reason(p, why);
        kill(-p->pid, SIGKILL);
    }
    pthread_mutex_unlock(&p->mu);
}

static void deadline_after(struct timespec *t, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static int past(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void send_cancel(provider *p, long id, const char *reason)
{
    cJSON *params = cJSON_CreateObject();
    cJSON_AddNumberToObject(params, "requestId", (double)id);
    cJSON_AddStringToObject(params, "reason", reason);
    provider_notify(p, "notifications/cancelled", params);
}

int provider_request(provider *p, const char *method, cJSON *params, vt_call *call,
                     int timeout_ms, cJSON **reply, char **err)
{
    *reply = NULL;
    *err = NULL;
    rpc_wait *w = calloc(1, sizeof *w);
    if (!w) {
        cJSON_Delete(params);
        return VT_ERR_NOMEM;
    }
    pthread_mutex_lock(&p->mu);
    if (p->fd < 0) {
        pthread_mutex_unlock(&p->mu);
        free(w);
        cJSON_Delete(params);
        *err = strdup(p->reason ? p->reason : "the MCP provider is not running");
        return VT_ERR_IO;
    }
    w->id = ++p->next_id;
    w->call = call;
    w->next = p->waits;
    p->waits = w;
    pthread_mutex_unlock(&p->mu);

    if (!params)
        params = cJSON_CreateObject();
    if (call) {
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
        if (!meta)
            meta = cJSON_AddObjectToObject(params, "_meta");
        cJSON_AddNumberToObject(meta, "progressToken", (double)w->id);
    }
    cJSON *msg = rpc_new(method, params);
    cJSON_AddNumberToObject(msg, "id", (double)w->id);
    int sent = send_msg(p, msg);

    struct timespec deadline;
    deadline_after(&deadline, timeout_ms);
    int rc = VT_OK, cancelled = 0, timed_out = 0;
    pthread_mutex_lock(&p->mu);
    if (sent < 0 && !w->done) {
        w->err = strdup(p->reason ? p->reason : "the MCP provider does not read its input");
        w->done = 1;
    }
    while (!w->done) {
        if (call && mcpp_api->call_cancelled(call)) {
            cancelled = 1;
            break;
        }
        if (past(&deadline)) {
            timed_out = 1;
            break;
        }
        struct timespec slice;
        deadline_after(&slice, 50);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
    for (rpc_wait **pp = &p->waits; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    pthread_mutex_unlock(&p->mu);

    if (cancelled) {
        send_cancel(p, w->id, "cancelled by the client");
        rc = VT_ERR_CANCELLED;
    } else if (timed_out) {
        send_cancel(p, w->id, "timed out");
        char buf[300];
        snprintf(buf, sizeof buf, "MCP provider '%s' did not answer %s within %d s", p->name,
                 method, (timeout_ms + 999) / 1000);
        *err = strdup(buf);
        rc = VT_ERR_IO;
    } else if (w->err) {
        *err = w->err;
        w->err = NULL;
        rc = VT_ERR_IO;
    } else {
        *reply = w->reply;
        w->reply = NULL;
    }
    cJSON_Delete(w->reply);
    free(w->err);
    free(w);
    return rc;
}

void provider_stop(provider *p)
{
    pthread_mutex_lock(&p->mu);
    p->stopping = 1;
    pid_t pid = p->pid;
    if (pid > 0)
        kill(-pid, SIGTERM);
    struct timespec deadline;
    deadline_after(&deadline, 1000);
    while (p->io_running && !past(&deadline)) {
        struct timespec slice;
        deadline_after(&slice, 20);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
    if (p->io_running && p->pid > 0)
        kill(-p->pid, SIGKILL);
    int join = p->io_joinable;
    p->io_joinable = 0;
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(p->io, NULL);
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
    free(p->reason);
    pthread_mutex_destroy(&p->start_mu);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->wmu);
    pthread_cond_destroy(&p->cond);
}
