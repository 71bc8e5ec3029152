/* The table of live sessions: admission (each client's share, the least
 * recently used pruned), lookup, and the calls that run and poll them.
 *
 * Locking: `session_mu` guards the table and every session's busy flag
 * and LRU tick.  A call marks its session busy and then waits without
 * the lock; a busy session is never pruned or freed by anyone else. */
#include "session_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <vthost/services.h>

pthread_mutex_t session_mu = PTHREAD_MUTEX_INITIALIZER;
/* Client sessions that have ended (sessions_end_client), most recent
 * last: a call of theirs still running when the client went leaves no
 * command behind, neither one it starts nor one it waited on. */
#define ENDED_MAX 256
static uint64_t ended[ENDED_MAX];
static unsigned nended;
session *session_table[SESSIONS_MAX];
static int live;
static int64_t next_id = 1;
static uint64_t tick;

/* A sandboxed session started or ended, told to the host (ABI 1.10):
 * the host owns the check of what commands leave behind in the
 * workspace, and runs it when a session ends.  A host without the
 * events service has no such check to run. */
static void raise_event(vt_call *call, uint32_t kind)
{
    static const vt_events_v1 *_Atomic events;
    const vt_events_v1 *ev = events;
    if (!ev) {
        ev = api->service_lookup(VT_EVENTS_SERVICE);
        if (!ev || ev->struct_size < sizeof *ev)
            return;
        events = ev;
    }
    ev->raise(call, kind);
}

/* The session's process tree has ended: the host checks what it left
 * behind now, once.  With a call, the report goes into that call's
 * warnings; without, it waits for the next call.  Never called with session_mu
 * held: the check walks the workspace. */
void session_note_end(vt_call *call, session *s)
{
    if (!s->sb || atomic_exchange(&s->end_noted, 1))
        return;
    raise_event(call, VT_EVENT_SESSION_ENDED);
}

static void session_free(session *s)
{
    if (!s)
        return;
    session_note_end(NULL, s);
    if (s->started)
        spawn_close(&s->proc);
    execwatch_release(s->watch);
    free(s->final);
    free(s->cmd);
    free(s->workdir);
    free(s);
}

static void remove_locked(session *s)
{
    for (int k = 0; k < SESSIONS_MAX; k++)
        if (session_table[k] == s) {
            session_table[k] = NULL;
            live--;
            return;
        }
}

static int ended_locked(uint64_t client)
{
    unsigned n = nended < ENDED_MAX ? nended : ENDED_MAX;
    for (unsigned i = 0; client && i < n; i++)
        if (ended[i] == client)
            return 1;
    return 0;
}

/* How many sessions `client` may hold at once. */
static int client_cap(uint64_t client) { return client ? SESSIONS_PER_CLIENT : SESSIONS_MAX; }

static int client_live_locked(uint64_t client)
{
    int n = 0;
    for (int k = 0; k < SESSIONS_MAX; k++)
        n += session_table[k] && session_table[k]->client == client;
    return n;
}

/* The session of `client` to drop when the client holds its share or
 * the table is full: never another client's (one client cannot end
 * another's commands by starting its own), never one of its
 * SESSIONS_PROTECTED most recently used, never a busy one; the least
 * recently used exited one first, else the least recently used. */
static session *pick_victim_locked(uint64_t client)
{
    session *by_age[SESSIONS_MAX];
    int n = 0;
    for (int k = 0; k < SESSIONS_MAX; k++)
        if (session_table[k] && session_table[k]->client == client)
            by_age[n++] = session_table[k];
    /* insertion sort, most recent first: n <= 64 */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && by_age[j]->last_used > by_age[j - 1]->last_used; j--) {
            session *t = by_age[j];
            by_age[j] = by_age[j - 1];
            by_age[j - 1] = t;
        }
    session *exited = NULL, *running = NULL;
    for (int i = n - 1; i >= SESSIONS_PROTECTED; i--) {
        session *s = by_age[i];
        if (s->busy)
            continue;
        if (!exited && session_try_reap(s))
            exited = s;
        if (!running)
            running = s;
    }
    return exited ? exited : running;
}

/* A cancelled call (or one out of memory) ends the session or leaves it
 * running for a later poll, and answers with the error. */
int session_end_interrupted(vt_call *call, session *s, int kill_on_cancel, int oom)
{
    long long id = (long long)s->id;
    int end = kill_on_cancel || oom;
    pthread_mutex_lock(&session_mu);
    end = end || ended_locked(s->client); /* nobody is left to poll it */
    if (end)
        remove_locked(s);
    else
        s->busy = 0;
    pthread_mutex_unlock(&session_mu);
    if (!end)
        session_reaper_poke();
    if (end) {
        session_terminate(&s, 1);
        session_free(s);
    }
    if (oom)
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    if (end)
        return api->call_error(call, VT_ERR_CANCELLED,
                               "cancelled; the command's process group was ended");
    return api->call_error(call, VT_ERR_CANCELLED, "cancelled; exec session %lld keeps running",
                           id);
}

/* Frees the session once exited (or orphaned), else hands it back to the
 * reaper; warns when the client nears its session cap. */
void session_release(vt_call *call, session *s)
{
    pthread_mutex_lock(&session_mu);
    /* its client ended while this call ran: nobody is left to poll it */
    int orphan = !s->reaped && ended_locked(s->client);
    if (s->reaped || orphan)
        remove_locked(s);
    else {
        s->busy = 0;
        s->last_used = ++tick;
    }
    /* the warning counts what this client's pruning is judged on */
    int cap = client_cap(s->client);
    int n = s->client ? client_live_locked(s->client) : live;
    pthread_mutex_unlock(&session_mu);
    if (orphan)
        session_terminate(&s, 1);
    if (s->reaped || orphan)
        session_free(s);
    else
        session_reaper_poke(); /* watch it while nobody waits on it */
    if (n >= cap - (SESSIONS_MAX - SESSIONS_WARN))
        api->call_warn(call,
                       "%d of %d exec sessions are live; from then on the least recently "
                       "used are ended: finish or poll the ones you need",
                       n, cap);
}

/* ---- the calls ---------------------------------------------------------- */

int session_run(vt_call *call, const spawn_req *req, const char *cmd, execwatch *watch,
                int yield_ms, cJSON **result)
{
    double t0 = now_s();
    session *s = calloc(1, sizeof *s);
    if (!s || !(s->cmd = strdup(cmd)) || !(s->workdir = strdup(req->workdir))) {
        session_free(s);
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }
    s->is_pty = req->tty;
    s->sandboxed = req->sandbox != NULL;
    s->client = VT_HAS(api, call_client_id) ? api->call_client_id(call) : 0;
    s->watch = execwatch_retain(watch);
    s->busy = 1;

    session *victim = NULL;
    pthread_mutex_lock(&session_mu);
    if (ended_locked(s->client)) {
        pthread_mutex_unlock(&session_mu);
        session_free(s);
        return api->call_error(call, VT_ERR_CANCELLED,
                               "the client session of this call has ended: nothing was started");
    }
    int mine = client_live_locked(s->client), cap = client_cap(s->client);
    if (live >= SESSIONS_MAX || mine >= cap) {
        victim = pick_victim_locked(s->client);
        if (victim) {
            remove_locked(victim);
            mine--;
        }
    }
    int slot = -1;
    for (int k = 0; k < SESSIONS_MAX && slot < 0 && mine < cap; k++)
        if (!session_table[k])
            slot = k;
    if (slot >= 0) {
        session_table[slot] = s;
        live++;
        s->id = next_id++;
        s->last_used = ++tick;
    }
    pthread_mutex_unlock(&session_mu);
    if (victim) {
        session_terminate(&victim, 1);
        session_free(victim);
    }
    if (slot < 0) {
        session_free(s);
        if (mine >= cap)
            return api->call_error(call, VT_ERR_BUSY,
                                   "all %d exec sessions of this client are in use by running "
                                   "calls; try again when one returns",
                                   cap);
        return api->call_error(call, VT_ERR_BUSY,
                               "all %d exec sessions of the server are held by other clients' "
                               "commands; try again when one ends",
                               SESSIONS_MAX);
    }

    char *refused = NULL;
    spawn_req with_error = *req;
    with_error.plan_error = &refused;
    int rc = spawn_start(&with_error, &s->proc);
    if (rc == VT_OK && req->sandbox)
        raise_event(call, VT_EVENT_SESSION_STARTED);
    if (rc != VT_OK) {
        pthread_mutex_lock(&session_mu);
        remove_locked(s);
        pthread_mutex_unlock(&session_mu);
        session_free(s);
        if (refused) {
            rc = api->call_error(call, rc, "%s", refused);
            free(refused);
            return rc;
        }
        return api->call_error(call, rc, "cannot start the command: %s",
                               strerror(errno ? errno : EIO));
    }
    s->sb = req->sandbox;
    pthread_mutex_lock(&session_mu);
    s->started = 1;
    pthread_mutex_unlock(&session_mu);
    /* No session outlives a one-shot front end: run to the end. */
    if (VT_HAS(api, call_one_shot) && api->call_one_shot(call))
        yield_ms = -1;
    return session_collect(call, s, t0, yield_ms, 1, result);
}

int session_write_and_wait(vt_call *call, int64_t id, const char *chars, size_t len, int yield_ms,
                           cJSON **result)
{
    double t0 = now_s();
    session *s = NULL;
    int busy = 0;
    uint64_t client = VT_HAS(api, call_client_id) ? api->call_client_id(call) : 0;
    pthread_mutex_lock(&session_mu);
    for (int waited = 0;; waited++) {
        s = NULL;
        /* Another client's session is as unknown as a finished one. */
        for (int k = 0; k < SESSIONS_MAX && !s; k++)
            if (session_table[k] && session_table[k]->id == id &&
                session_table[k]->client == client)
                s = session_table[k];
        /* The reaper is finishing it (well under a second): wait. */
        if (!s || !s->reaping || waited >= 100)
            break;
        pthread_mutex_unlock(&session_mu);
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&session_mu);
    }
    if (s && s->busy)
        busy = 1;
    else if (s) {
        s->busy = 1;
        s->last_used = ++tick;
    }
    pthread_mutex_unlock(&session_mu);
    if (!s)
        return api->call_error(call, VT_ERR_NOT_FOUND,
                               "exec session %lld not found: it has finished (its exit was "
                               "already reported and the session released) or was never "
                               "started; run the command again with exec_command",
                               (long long)id);
    if (busy)
        return api->call_error(call, VT_ERR_BUSY,
                               "exec session %lld is being waited on by another call",
                               (long long)id);
    if (len == 1 && chars[0] == 0x03 && !s->reaped) {
        pid_t pg = s->is_pty ? tcgetpgrp(s->proc.out_fd) : -1;
        if (pg <= 0)
            pg = s->proc.pid;
        /* A session still being set up has no group of its own yet: its
         * first process keeps the signal pending for the shell (spawn.c,
         * keyboard_set). */
        if (kill(-pg, SIGINT) < 0 && errno == ESRCH && pg == s->proc.pid)
            kill(pg, SIGINT);
    } else if (len > 0 && !s->reaped) {
        session_write_all(call, s->proc.in_fd, chars, len, t0 + yield_ms / 1000.0);
    }
    return session_collect(call, s, t0, yield_ms, 0, result);
}

int sessions_live(void)
{
    pthread_mutex_lock(&session_mu);
    int n = live;
    pthread_mutex_unlock(&session_mu);
    return n;
}

int sessions_client_count(uint64_t client)
{
    int n = 0;
    pthread_mutex_lock(&session_mu);
    for (int k = 0; k < SESSIONS_MAX; k++)
        n += session_table[k] && session_table[k]->client == client;
    pthread_mutex_unlock(&session_mu);
    return n;
}

void sessions_end_client(uint64_t client)
{
    session *idle[SESSIONS_MAX];
    pid_t waited[SESSIONS_MAX];
    int n = 0, nw = 0;
    pthread_mutex_lock(&session_mu);
    if (client)
        ended[nended++ % ENDED_MAX] = client;
    for (int k = 0; k < SESSIONS_MAX; k++) {
        session *s = session_table[k];
        if (!s || s->client != client)
            continue;
        /* One a call still waits on is that call's to reap (the call is
         * being cancelled with its session): its group only is ended. */
        if (s->busy) {
            if (s->started)
                waited[nw++] = s->proc.pid;
        } else {
            idle[n++] = s;
            remove_locked(s);
        }
    }
    pthread_mutex_unlock(&session_mu);
    for (int k = 0; k < nw; k++)
        kill(-waited[k], SIGTERM);
    session_terminate(idle, n);
    for (int k = 0; k < n; k++)
        session_free(idle[k]);
}

void sessions_fini(void)
{
    session_reaper_end();
    session *idle[SESSIONS_MAX];
    pid_t waited[SESSIONS_MAX];
    int n = 0, nw = 0;
    pthread_mutex_lock(&session_mu);
    for (int k = 0; k < SESSIONS_MAX; k++) {
        session *s = session_table[k];
        if (!s)
            continue;
        /* A session a call is still waiting on belongs to that call: only
         * its process group is ended here; the call reaps and frees it. */
        if (!s->busy)
            idle[n++] = s;
        else if (s->started)
            waited[nw++] = s->proc.pid;
        session_table[k] = NULL;
    }
    live = 0;
    pthread_mutex_unlock(&session_mu);
    for (int k = 0; k < nw; k++)
        kill(-waited[k], SIGTERM);
    session_terminate(idle, n);
    double end = now_s() + GRACE_MS / 1000.0;
    for (int k = 0; k < nw; k++) {
        while (kill(-waited[k], 0) == 0 && now_s() < end) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
        kill(-waited[k], SIGKILL);
    }
    for (int k = 0; k < n; k++)
        session_free(idle[k]);
    session_late_sweep(1);
}
