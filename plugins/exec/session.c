/* Locking: `mu` guards the table and every session's busy flag and LRU
 * tick.  A call marks its session busy and then waits without the lock;
 * a busy session is never pruned or freed by anyone else.
 *
 * Reaping: a session nobody is waiting on is watched by the reaper
 * thread (its pidfd, polled).  When its supervisor exits the reaper
 * collects the exit status at once (no zombie), keeps what output is
 * left (bounded by FINAL_MAX) and closes the session's descriptors; the
 * next write_stdin reports both, then the session is released. */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <vthost/clock.h>
#include <vthost/services.h>

#include "sandbox.h"
#include "termfilter.h"

#define GRACE_MS 500
#define SLICE_MS 100      /* cancellation is noticed within this */
#define DRAIN_QUIET_MS 50 /* after exit, output still trickling in */
#define READ_BYTES 65536
#define FINAL_MAX (256 * 1024)         /* output kept after a reaped exit */
#define FINAL_READ_MAX (4 * FINAL_MAX) /* read (and drop) no more than this */
#define REAPER_POLL_MS 200             /* sessions without a pidfd are looked at this often */

typedef struct session {
    int64_t id;
    spawn_proc proc;
    int is_pty;
    int started;
    int reaped, exit_code;
    int out_eof;
    int busy;
    uint64_t last_used;
    char *cmd;
    char *workdir;
    term_filter tf;
    int closed;  /* reaped by the reaper: fds closed */
    int reaping; /* busy because the reaper finishes it */
    char *final; /* output read by the reaper */
    size_t final_len, final_dropped;
    int sandboxed;               /* ran under the sandbox */
    sandbox_denial_scan denials; /* its output, watched for refusals */
    execwatch *watch;            /* a reference, or NULL */
    const sandbox *sb;           /* its sandbox, told when the session ends */
    atomic_int end_noted;        /* that was done */
    uint64_t client;             /* the client session that started it */
} session;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* Client sessions that have ended (sessions_end_client), most recent
 * last: a call of theirs still running when the client went leaves no
 * command behind, neither one it starts nor one it waited on. */
#define ENDED_MAX 256
static uint64_t ended[ENDED_MAX];
static unsigned nended;
static session *table[SESSIONS_MAX];
static int live;
static int64_t next_id = 1;
static uint64_t tick;
static pthread_t reaper;
static int reaper_running, reaper_stop;
static int reaper_wake[2] = {-1, -1};

static double now_s(void) { return vt_clock_seconds(); }

/* Session leaders whose report was taken and that are still tearing
 * their namespace down: the reaper collects them as they exit (no
 * zombie stays), sessions_fini waits for the rest.  Lock order: mu, then
 * late_mu. */
typedef struct late_leader {
    pid_t pid;
    int pidfd; /* or -1: looked at every REAPER_POLL_MS */
} late_leader;
static pthread_mutex_t late_mu = PTHREAD_MUTEX_INITIALIZER;
static late_leader late[SESSIONS_MAX];
static int nlate;

static void reaper_poke(void);

static int late_gone(const late_leader *l, int hang)
{
    pid_t r;
    while ((r = waitpid(l->pid, NULL, hang ? 0 : WNOHANG)) < 0 && errno == EINTR)
        ;
    if (r == 0)
        return 0;
    if (l->pidfd >= 0)
        close(l->pidfd);
    return 1;
}

static void late_add(pid_t pid, int pidfd)
{
    late_leader l = {pid, pidfd};
    if (late_gone(&l, 0))
        return;
    pthread_mutex_lock(&late_mu);
    if (nlate == SESSIONS_MAX) {
        /* full: the oldest is about done */
        late_gone(&late[0], 1);
        memmove(late, late + 1, (size_t)(nlate - 1) * sizeof *late);
        nlate--;
    }
    late[nlate++] = l;
    pthread_mutex_unlock(&late_mu);
    reaper_poke();
}

/* Collect the late leaders that have exited (all of them: `hang`). */
static void late_sweep(int hang)
{
    pthread_mutex_lock(&late_mu);
    int k = 0;
    for (int i = 0; i < nlate; i++)
        if (!late_gone(&late[i], hang))
            late[k++] = late[i];
    nlate = k;
    pthread_mutex_unlock(&late_mu);
}

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
 * warnings; without, it waits for the next call.  Never called with mu
 * held: the check walks the workspace. */
static void note_end(vt_call *call, session *s)
{
    if (!s->sb || atomic_exchange(&s->end_noted, 1))
        return;
    raise_event(call, VT_EVENT_SESSION_ENDED);
}

static void session_free(session *s)
{
    if (!s)
        return;
    note_end(NULL, s);
    if (s->started)
        spawn_close(&s->proc);
    execwatch_release(s->watch);
    free(s->final);
    free(s->cmd);
    free(s->workdir);
    free(s);
}

static int status_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return -1;
}

/* Reap the session's leader if it has exited, or take its report that
 * the command and everything it started are gone (its namespace's
 * teardown then goes on without us); returns s->reaped. */
static int try_reap(session *s)
{
    if (s->reaped || !s->started)
        return s->reaped;
    if (s->proc.status_fd >= 0) {
        int code;
        if (spawn_status(&s->proc, &code)) {
            s->reaped = 1;
            s->exit_code = code;
            late_add(s->proc.pid, s->proc.pidfd);
            s->proc.pidfd = -1;
            return 1;
        }
        if (s->proc.status_fd >= 0)
            return 0;
    }
    int st;
    pid_t r = waitpid(s->proc.pid, &st, WNOHANG);
    if (r == s->proc.pid) {
        s->reaped = 1;
        s->exit_code = status_code(st);
    }
    return s->reaped;
}

/* Signal the session's process group.  The leader's pid names the
 * group; once the leader is reaped and the group is empty, the kernel
 * may hand that number to a new process, and a new supervisor (setsid)
 * makes it a group id again: a signal by the old number would then end
 * another session.  So after the reap: a session in its own PID
 * namespace has nothing left (its init took every process with it) and
 * gets no signal; otherwise the group is signalled only while no
 * process holds the number (a live group member keeps it from reuse).
 * Returns kill's result, or -1 with ESRCH when nothing was signalled. */
static int group_signal(const session *s, int sig)
{
    pid_t pid = s->proc.pid;
    if (s->reaped) {
        char path[32];
        snprintf(path, sizeof path, "/proc/%d", (int)pid);
        if (s->proc.own_pidns || access(path, F_OK) == 0) {
            errno = ESRCH;
            return -1;
        }
    }
    return kill(-pid, sig);
}

static int group_alive(const session *s) { return group_signal(s, 0) == 0; }

/* End the process groups of `v` (none busy elsewhere, all out of the
 * table): SIGTERM, up to GRACE_MS for them to go, then SIGKILL.  Every
 * leader is reaped. */
static void terminate(session **v, int n)
{
    for (int k = 0; k < n; k++)
        if (v[k]->started)
            group_signal(v[k], SIGTERM);
    double end = now_s() + GRACE_MS / 1000.0;
    for (;;) {
        int pending = 0;
        for (int k = 0; k < n; k++)
            if (v[k]->started && (!try_reap(v[k]) || group_alive(v[k])))
                pending = 1;
        if (!pending || now_s() >= end)
            break;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    for (int k = 0; k < n; k++) {
        session *s = v[k];
        if (!s->started)
            continue;
        if (!s->reaped || group_alive(s))
            group_signal(s, SIGKILL);
        if (!s->reaped) {
            int st;
            while (waitpid(s->proc.pid, &st, 0) < 0 && errno == EINTR)
                ;
            s->reaped = 1;
        }
    }
}

static void remove_locked(session *s)
{
    for (int k = 0; k < SESSIONS_MAX; k++)
        if (table[k] == s) {
            table[k] = NULL;
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
        n += table[k] && table[k]->client == client;
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
        if (table[k] && table[k]->client == client)
            by_age[n++] = table[k];
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
        if (!exited && try_reap(s))
            exited = s;
        if (!running)
            running = s;
    }
    return exited ? exited : running;
}

/* ---- the reaper ---------------------------------------------------------- */

static void reaper_poke(void)
{
    if (reaper_wake[1] >= 0) {
        ssize_t n = write(reaper_wake[1], "x", 1);
        (void)n; /* a full pipe already wakes it */
    }
}

/* The supervisor of `s` (held busy by the reaper) has exited: collect
 * it, keep the output that is left, close every descriptor. */
static void finalize(session *s)
{
    if (!try_reap(s))
        return;
    char *buf = malloc(READ_BYTES);
    size_t read_total = 0;
    double quiet_end = now_s() + DRAIN_QUIET_MS / 1000.0, hard_end = now_s() + 0.5;
    while (buf && !s->out_eof && read_total < FINAL_READ_MAX && now_s() < quiet_end &&
           now_s() < hard_end) {
        ssize_t r = read(s->proc.out_fd, buf, READ_BYTES);
        if (r > 0) {
            read_total += (size_t)r;
            size_t keep = FINAL_MAX - s->final_len;
            if (keep > (size_t)r)
                keep = (size_t)r;
            if (keep && !s->final)
                s->final = malloc(FINAL_MAX);
            if (keep && s->final) {
                memcpy(s->final + s->final_len, buf, keep);
                s->final_len += keep;
            } else {
                keep = 0;
            }
            s->final_dropped += (size_t)r - keep;
            quiet_end = now_s() + DRAIN_QUIET_MS / 1000.0;
        } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
            s->out_eof = 1;
        } else if (errno == EAGAIN) {
            struct pollfd p = {.fd = s->proc.out_fd, .events = POLLIN};
            poll(&p, 1, DRAIN_QUIET_MS);
        }
    }
    free(buf);
    spawn_close(&s->proc);
    s->out_eof = 1;
    s->closed = 1;
}

/* Reap every idle session whose supervisor has exited; their ids go to
 * reaped[slot] for finalize.  Caller holds mu. */
static void reap_exited_locked(int64_t *reaped)
{
    for (int k = 0; k < SESSIONS_MAX; k++) {
        session *s = table[k];
        if (s && !s->busy && s->started && !s->reaped && try_reap(s))
            reaped[k] = s->id;
    }
}

static void *reaper_main(void *arg)
{
    (void)arg;
    struct pollfd fds[2 * SESSIONS_MAX + 1];
    pthread_mutex_lock(&mu);
    while (!reaper_stop) {
        int n = 1, no_pidfd = 0;
        fds[0] = (struct pollfd){.fd = reaper_wake[0], .events = POLLIN};
        for (int k = 0; k < SESSIONS_MAX; k++) {
            session *s = table[k];
            if (!s || s->busy || !s->started || s->reaped)
                continue;
            if (s->proc.pidfd < 0) {
                no_pidfd = 1;
                continue;
            }
            fds[n++] = (struct pollfd){.fd = s->proc.pidfd, .events = POLLIN};
        }
        int nsess = n;
        pthread_mutex_lock(&late_mu);
        for (int i = 0; i < nlate && n < (int)(sizeof fds / sizeof *fds); i++) {
            if (late[i].pidfd < 0)
                no_pidfd = 1;
            else
                fds[n++] = (struct pollfd){.fd = late[i].pidfd, .events = POLLIN};
        }
        pthread_mutex_unlock(&late_mu);
        pthread_mutex_unlock(&mu);
        /* Idle with nothing to watch: sleep until poked. */
        int pr = poll(fds, (nfds_t)n, n > 1 || no_pidfd ? REAPER_POLL_MS : -1);
        if (pr > 0 && fds[0].revents) {
            char drainbuf[64];
            while (read(reaper_wake[0], drainbuf, sizeof drainbuf) > 0)
                ;
        }
        if (n > nsess || no_pidfd)
            late_sweep(0);
        pthread_mutex_lock(&mu);
        /* Collect every exited supervisor before each session's remaining
         * output is read (waitpid is cheap, and done under the lock as
         * pruning does): no zombie waits for another session's drain. */
        int64_t reaped_now[SESSIONS_MAX] = {0};
        for (;;) {
            late_sweep(0); /* leaders done tearing down wait for no drain */
            reap_exited_locked(reaped_now);
            session *s = NULL;
            for (int k = 0; k < SESSIONS_MAX && !s; k++) {
                session *t = table[k];
                if (t && reaped_now[k] == t->id && !t->busy && !t->closed) {
                    s = t;
                    reaped_now[k] = 0;
                }
            }
            if (!s || reaper_stop)
                break;
            s->busy = s->reaping = 1; /* ours while we finish it */
            pthread_mutex_unlock(&mu);
            finalize(s);
            if (s->closed)
                note_end(NULL, s);
            pthread_mutex_lock(&mu);
            s->busy = s->reaping = 0;
        }
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* ---- waiting ------------------------------------------------------------ */

typedef struct waiter {
    vt_call *call;
    session *s;
    char *fbuf; /* filtered PTY output, READ_BYTES + 1 */
    vt_spool *spool;
    int spool_failed;
} waiter;

static void emit_output(waiter *w, char *buf, size_t n)
{
    if (w->s->is_pty) {
        n = term_filter_run(&w->s->tf, buf, n, w->fbuf);
        buf = w->fbuf;
    }
    if (!n)
        return;
    if (w->s->sandboxed)
        sandbox_denial_feed(&w->s->denials, buf, n);
    if (w->spool_failed)
        return;
    if (!w->spool)
        w->spool = api->spool_open(w->call);
    if (!w->spool || api->spool_write(w->spool, buf, n) != VT_OK) {
        w->spool_failed = 1;
        api->call_warn(w->call, "part of the command's output could not be kept");
    }
}

/* Read what is there; returns 1 when something was read. */
static int drain(waiter *w, char *buf)
{
    session *s = w->s;
    int got = 0;
    for (int rounds = 0; rounds < 64 && !s->out_eof; rounds++) {
        ssize_t r = read(s->proc.out_fd, buf, READ_BYTES);
        if (r > 0) {
            emit_output(w, buf, (size_t)r);
            got = 1;
        } else if (r == 0) {
            s->out_eof = 1;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN) {
            break;
        } else {
            s->out_eof = 1; /* EIO: the PTY's last slave closed */
        }
    }
    return got;
}

static cJSON *build_response(session *s, double t0)
{
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return NULL;
    cJSON_AddBoolToObject(r, "success", 1);
    if (s->reaped)
        cJSON_AddNumberToObject(r, "exit_code", s->exit_code);
    else
        cJSON_AddNumberToObject(r, "session_id", (double)s->id);
    cJSON_AddBoolToObject(r, "is_exited", s->reaped);
    cJSON_AddNumberToObject(r, "wall_time", now_s() - t0);
    cJSON_AddStringToObject(r, "working_directory", s->workdir);
    if (s->sandboxed && s->reaped && s->exit_code != 0 && s->denials.seen) {
        cJSON_AddBoolToObject(r, "sandbox_denied", 1);
        cJSON_AddStringToObject(r, "sandbox_hint",
                                "The command failed and its output looks like a sandbox "
                                "refusal (a write outside the writable roots, or a network "
                                "connection). If it needs that access, retry with "
                                "\"sandbox_permissions\": \"with_additional_permissions\" "
                                "and \"additional_permissions\" naming the paths to write "
                                "or the network (or \"require_escalated\" to run outside "
                                "the sandbox), and a \"justification\"; the user will be "
                                "asked.");
    }
    if (!cJSON_AddStringToObject(r, "backend", s->is_pty ? "pty" : "pipe")) {
        cJSON_Delete(r);
        return NULL;
    }
    return r;
}

/* The argv arrays of `progs` (the watcher's [[argv0, ...], ...]) as the
 * NULL-ended lists vt_command_ran holds, pointing into `progs`; one
 * allocation (free it), NULL when out of memory. */
static const char *const *const *argv_lists(const cJSON *progs)
{
    size_t n = 0, words = 0;
    const cJSON *p, *a;
    cJSON_ArrayForEach(p, progs)
    {
        n++;
        words += (size_t)cJSON_GetArraySize(p) + 1;
    }
    /* the list's pointers first, then the words they point to */
    void **block = calloc(n + 1 + words, sizeof(void *));
    if (!block)
        return NULL;
    const char **w = (const char **)(block + n + 1);
    size_t i = 0;
    cJSON_ArrayForEach(p, progs)
    {
        block[i++] = (void *)w;
        cJSON_ArrayForEach(a, p) if (cJSON_IsString(a)) *w++ = a->valuestring;
        *w++ = NULL;
    }
    return (const char *const *const *)block;
}

/* The guard learns what the command ran from the watcher, not from its
 * text; without a watcher it is given no program list. */
static void note_exit(vt_call *call, const session *s)
{
    if (!VT_HAS(api, command_ran)) {
        api->note(call, VT_NOTE_COMMAND_EXIT, s->cmd, s->exit_code);
        return;
    }
    vt_command_ran ran = {
        .struct_size = sizeof ran, .command = s->cmd, .exit_code = s->exit_code, .complete = 1};
    cJSON *progs = NULL;
    const char *const *const *lists = NULL;
    if (s->watch) {
        int complete = 1;
        progs = execwatch_programs(s->watch, &complete);
        cJSON *denied = execwatch_denied(s->watch);
        ran.complete = complete;
        ran.refused = denied ? (size_t)cJSON_GetArraySize(denied) : 0;
        cJSON_Delete(denied);
        lists = progs ? argv_lists(progs) : NULL;
        /* out of memory: an empty list, never counted as a verification */
        static const char *const *const none[] = {NULL};
        ran.programs = lists ? lists : none;
        ran.complete &= lists != NULL;
    }
    api->command_ran(call, &ran);
    free((void *)lists);
    cJSON_Delete(progs);
}

/* What the reaper kept, through the same filter as live output. */
static void replay_final(waiter *w, char *buf)
{
    session *s = w->s;
    for (size_t off = 0; off < s->final_len; off += READ_BYTES) {
        size_t n = s->final_len - off < READ_BYTES ? s->final_len - off : READ_BYTES;
        memcpy(buf, s->final + off, n);
        emit_output(w, buf, n);
    }
    free(s->final);
    s->final = NULL;
    if (s->final_dropped)
        api->call_warn(w->call,
                       "%zu bytes of output the command printed after %zu were "
                       "dropped: nobody was waiting on the session when it ended",
                       s->final_dropped, s->final_len);
    s->final_len = 0;
}

/* One poll of the output and the exit, at most until deadline (or
 * *quiet_end once reaped); returns -1 when poll failed. */
static int pump(waiter *w, char *buf, double now, double deadline, double *quiet_end)
{
    session *s = w->s;
    struct pollfd fds[2];
    int nfds = 0, out_ix = -1, pid_ix = -1;
    if (!s->out_eof) {
        out_ix = nfds;
        fds[nfds++] = (struct pollfd){.fd = s->proc.out_fd, .events = POLLIN};
    }
    if (!s->reaped && (s->proc.status_fd >= 0 || s->proc.pidfd >= 0)) {
        /* the leader's report comes before its exit */
        pid_ix = nfds;
        fds[nfds++] = (struct pollfd){
            .fd = s->proc.status_fd >= 0 ? s->proc.status_fd : s->proc.pidfd, .events = POLLIN};
    }
    double limit = deadline;
    if (s->reaped && *quiet_end < limit)
        limit = *quiet_end;
    double left_ms = (limit - now) * 1000.0 + 1;
    int timeout = left_ms > SLICE_MS ? SLICE_MS : (int)left_ms;
    if (!s->reaped && s->proc.pidfd < 0 && timeout > 10)
        timeout = 10; /* no pidfd: look for the exit now and then */
    int pr = poll(fds, (nfds_t)nfds, timeout);
    if (pr < 0 && errno != EINTR)
        return -1;
    if (out_ix >= 0 && pr > 0 && fds[out_ix].revents) {
        if (drain(w, buf) && s->reaped)
            *quiet_end = now_s() + DRAIN_QUIET_MS / 1000.0;
    }
    if (!s->reaped &&
        (s->proc.pidfd < 0 || s->out_eof || (pid_ix >= 0 && pr > 0 && fds[pid_ix].revents))) {
        if (try_reap(s)) {
            drain(w, buf);
            *quiet_end = now_s() + DRAIN_QUIET_MS / 1000.0;
        }
    }
    return 0;
}

/* Wait for output and exit until yield_ms passes (yield_ms < 0: until the
 * exit, for a one-shot front end); returns 1 when the call was cancelled. */
static int wait_output(waiter *w, char *buf, double t0, int yield_ms)
{
    session *s = w->s;
    double deadline = yield_ms < 0 ? INFINITY : t0 + yield_ms / 1000.0;
    double next_progress = t0 + 1.0, quiet_end = 0;
    for (;;) {
        if (api->call_cancelled(w->call))
            return 1;
        double now = now_s();
        if (s->reaped && (s->out_eof || now >= quiet_end))
            return 0;
        if (now >= deadline)
            return 0;
        if (now >= next_progress) {
            api->call_progress(w->call, now - t0, yield_ms < 0 ? 0 : yield_ms / 1000.0,
                               "waiting for output");
            next_progress = now + 1.0;
        }
        if (pump(w, buf, now, deadline, &quiet_end) < 0)
            return 0;
    }
}

/* A cancelled call (or one out of memory) ends the session or leaves it
 * running for a later poll, and answers with the error. */
static int end_interrupted(vt_call *call, session *s, int kill_on_cancel, int oom)
{
    long long id = (long long)s->id;
    int end = kill_on_cancel || oom;
    pthread_mutex_lock(&mu);
    end = end || ended_locked(s->client); /* nobody is left to poll it */
    if (end)
        remove_locked(s);
    else
        s->busy = 0;
    pthread_mutex_unlock(&mu);
    if (!end)
        reaper_poke();
    if (end) {
        terminate(&s, 1);
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

/* The ending's notes and warnings, and the PTY filter's last byte. */
static void report_end(vt_call *call, session *s, const waiter *w)
{
    if (s->reaped)
        note_end(call, s);
    if (s->reaped && s->is_pty) {
        char c;
        if (term_filter_flush(&s->tf, &c) && w->spool)
            api->spool_write(w->spool, &c, 1);
    }
}

/* Frees the session once exited (or orphaned), else hands it back to the
 * reaper; warns when the client nears its session cap. */
static void release_session(vt_call *call, session *s)
{
    pthread_mutex_lock(&mu);
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
    pthread_mutex_unlock(&mu);
    if (orphan)
        terminate(&s, 1);
    if (s->reaped || orphan)
        session_free(s);
    else
        reaper_poke(); /* watch it while nobody waits on it */
    if (n >= cap - (SESSIONS_MAX - SESSIONS_WARN))
        api->call_warn(call,
                       "%d of %d exec sessions are live; from then on the least recently "
                       "used are ended: finish or poll the ones you need",
                       n, cap);
}

/* Wait for output and exit until yield_ms passes.  The caller holds the
 * session busy; this releases it (and frees it once exited). */
static int collect(vt_call *call, session *s, double t0, int yield_ms, int kill_on_cancel,
                   cJSON **result)
{
    /* Opened up front so that "output" is always set, "" when silent. */
    waiter w = {.call = call, .s = s, .spool = api->spool_open(call)};
    char *buf = malloc(READ_BYTES);
    w.fbuf = s->is_pty ? malloc(READ_BYTES + 1) : NULL;
    int cancelled = 0, oom = !buf || (s->is_pty && !w.fbuf);
    if (!oom) {
        if (s->closed && s->final)
            replay_final(&w, buf);
        cancelled = wait_output(&w, buf, t0, yield_ms);
    }
    free(buf);
    free(w.fbuf);
    if (cancelled || oom)
        return end_interrupted(call, s, kill_on_cancel, oom);
    report_end(call, s, &w);
    *result = build_response(s, t0);
    if (s->reaped)
        note_exit(call, s);
    release_session(call, s);
    if (!*result)
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    return VT_OK;
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
    pthread_mutex_lock(&mu);
    if (ended_locked(s->client)) {
        pthread_mutex_unlock(&mu);
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
        if (!table[k])
            slot = k;
    if (slot >= 0) {
        table[slot] = s;
        live++;
        s->id = next_id++;
        s->last_used = ++tick;
    }
    pthread_mutex_unlock(&mu);
    if (victim) {
        terminate(&victim, 1);
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
        pthread_mutex_lock(&mu);
        remove_locked(s);
        pthread_mutex_unlock(&mu);
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
    pthread_mutex_lock(&mu);
    s->started = 1;
    pthread_mutex_unlock(&mu);
    /* No session outlives a one-shot front end: run to the end. */
    if (VT_HAS(api, call_one_shot) && api->call_one_shot(call))
        yield_ms = -1;
    return collect(call, s, t0, yield_ms, 1, result);
}

/* Write all of buf, waiting for room until the deadline.  SIGPIPE is
 * kept to this thread and swallowed: a command that stopped reading is
 * reported, never a reason for the host to die. */
static int write_all(vt_call *call, int fd, const char *buf, size_t len, double deadline)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int rc = VT_OK;
    size_t off = 0;
    while (off < len) {
        ssize_t r = write(fd, buf + off, len - off);
        if (r > 0) {
            off += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN && now_s() < deadline && !api->call_cancelled(call)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, SLICE_MS);
            continue;
        }
        rc = errno == EAGAIN ? VT_ERR_BUSY : VT_ERR_IO;
        break;
    }
    if (rc == VT_ERR_IO && errno == EPIPE) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == VT_ERR_BUSY)
        api->call_warn(call,
                       "only %zu of %zu bytes were written: the command is not reading its input",
                       off, len);
    else if (rc != VT_OK)
        api->call_warn(call, "the input could not be written: the command no longer reads it");
    return rc;
}

int session_write_and_wait(vt_call *call, int64_t id, const char *chars, size_t len, int yield_ms,
                           cJSON **result)
{
    double t0 = now_s();
    session *s = NULL;
    int busy = 0;
    uint64_t client = VT_HAS(api, call_client_id) ? api->call_client_id(call) : 0;
    pthread_mutex_lock(&mu);
    for (int waited = 0;; waited++) {
        s = NULL;
        /* Another client's session is as unknown as a finished one. */
        for (int k = 0; k < SESSIONS_MAX && !s; k++)
            if (table[k] && table[k]->id == id && table[k]->client == client)
                s = table[k];
        /* The reaper is finishing it (well under a second): wait. */
        if (!s || !s->reaping || waited >= 100)
            break;
        pthread_mutex_unlock(&mu);
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&mu);
    }
    if (s && s->busy)
        busy = 1;
    else if (s) {
        s->busy = 1;
        s->last_used = ++tick;
    }
    pthread_mutex_unlock(&mu);
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
        write_all(call, s->proc.in_fd, chars, len, t0 + yield_ms / 1000.0);
    }
    return collect(call, s, t0, yield_ms, 0, result);
}

int sessions_live(void)
{
    pthread_mutex_lock(&mu);
    int n = live;
    pthread_mutex_unlock(&mu);
    return n;
}

int sessions_client_count(uint64_t client)
{
    int n = 0;
    pthread_mutex_lock(&mu);
    for (int k = 0; k < SESSIONS_MAX; k++)
        n += table[k] && table[k]->client == client;
    pthread_mutex_unlock(&mu);
    return n;
}

static void wake_close(void)
{
    close(reaper_wake[0]);
    close(reaper_wake[1]);
    reaper_wake[0] = reaper_wake[1] = -1;
}

int sessions_init(void)
{
    if (pipe2(reaper_wake, O_CLOEXEC | O_NONBLOCK) < 0)
        return VT_ERR_IO;
    reaper_stop = 0;
    if (pthread_create(&reaper, NULL, reaper_main, NULL) != 0) {
        wake_close();
        return VT_ERR_NOMEM;
    }
    reaper_running = 1;
    return VT_OK;
}

static void reaper_end(void)
{
    if (!reaper_running)
        return;
    pthread_mutex_lock(&mu);
    reaper_stop = 1;
    pthread_mutex_unlock(&mu);
    reaper_poke();
    pthread_join(reaper, NULL);
    reaper_running = 0;
    wake_close();
}

void sessions_end_client(uint64_t client)
{
    session *idle[SESSIONS_MAX];
    pid_t waited[SESSIONS_MAX];
    int n = 0, nw = 0;
    pthread_mutex_lock(&mu);
    if (client)
        ended[nended++ % ENDED_MAX] = client;
    for (int k = 0; k < SESSIONS_MAX; k++) {
        session *s = table[k];
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
    pthread_mutex_unlock(&mu);
    for (int k = 0; k < nw; k++)
        kill(-waited[k], SIGTERM);
    terminate(idle, n);
    for (int k = 0; k < n; k++)
        session_free(idle[k]);
}

void sessions_fini(void)
{
    reaper_end();
    session *idle[SESSIONS_MAX];
    pid_t waited[SESSIONS_MAX];
    int n = 0, nw = 0;
    pthread_mutex_lock(&mu);
    for (int k = 0; k < SESSIONS_MAX; k++) {
        session *s = table[k];
        if (!s)
            continue;
        /* A session a call is still waiting on belongs to that call: only
         * its process group is ended here; the call reaps and frees it. */
        if (!s->busy)
            idle[n++] = s;
        else if (s->started)
            waited[nw++] = s->proc.pid;
        table[k] = NULL;
    }
    live = 0;
    pthread_mutex_unlock(&mu);
    for (int k = 0; k < nw; k++)
        kill(-waited[k], SIGTERM);
    terminate(idle, n);
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
    late_sweep(1);
}
