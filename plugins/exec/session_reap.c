/* A session's processes: its leader reaped (or its report taken and the
 * leader left to tear its namespace down, a late leader), its process
 * group signalled and ended, and the reaper thread.
 *
 * Reaping: a session nobody is waiting on is watched by the reaper
 * thread (its pidfd, polled).  When its supervisor exits the reaper
 * collects the exit status at once (no zombie), keeps what output is
 * left (bounded by FINAL_MAX) and closes the session's descriptors; the
 * next write_stdin reports both, then the session is released. */
#include "session_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FINAL_MAX (256 * 1024)         /* output kept after a reaped exit */
#define FINAL_READ_MAX (4 * FINAL_MAX) /* read (and drop) no more than this */
#define REAPER_POLL_MS 200             /* sessions without a pidfd are looked at this often */

static pthread_t reaper;
static int reaper_running, reaper_stop;
static int reaper_wake[2] = {-1, -1};

/* Session leaders whose report was taken and that are still tearing
 * their namespace down: the reaper collects them as they exit (no
 * zombie stays), sessions_fini waits for the rest.  Lock order: session_mu, then
 * late_mu. */
typedef struct late_leader {
    pid_t pid;
    int pidfd; /* or -1: looked at every REAPER_POLL_MS */
} late_leader;
static pthread_mutex_t late_mu = PTHREAD_MUTEX_INITIALIZER;
static late_leader late[SESSIONS_MAX];
static int nlate;

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
    session_reaper_poke();
}

/* Collect the late leaders that have exited (all of them: `hang`). */
void session_late_sweep(int hang)
{
    pthread_mutex_lock(&late_mu);
    int k = 0;
    for (int i = 0; i < nlate; i++)
        if (!late_gone(&late[i], hang))
            late[k++] = late[i];
    nlate = k;
    pthread_mutex_unlock(&late_mu);
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
int session_try_reap(session *s)
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
void session_terminate(session **v, int n)
{
    for (int k = 0; k < n; k++)
        if (v[k]->started)
            group_signal(v[k], SIGTERM);
    double end = now_s() + GRACE_MS / 1000.0;
    for (;;) {
        int pending = 0;
        for (int k = 0; k < n; k++)
            if (v[k]->started && (!session_try_reap(v[k]) || group_alive(v[k])))
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
/* ---- the reaper ---------------------------------------------------------- */

void session_reaper_poke(void)
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
    if (!session_try_reap(s))
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
 * reaped[slot] for finalize.  Caller holds session_mu. */
static void reap_exited_locked(int64_t *reaped)
{
    for (int k = 0; k < SESSIONS_MAX; k++) {
        session *s = session_table[k];
        if (s && !s->busy && s->started && !s->reaped && session_try_reap(s))
            reaped[k] = s->id;
    }
}

static void *reaper_main(void *arg)
{
    (void)arg;
    struct pollfd fds[2 * SESSIONS_MAX + 1];
    pthread_mutex_lock(&session_mu);
    while (!reaper_stop) {
        int n = 1, no_pidfd = 0;
        fds[0] = (struct pollfd){.fd = reaper_wake[0], .events = POLLIN};
        for (int k = 0; k < SESSIONS_MAX; k++) {
            session *s = session_table[k];
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
        pthread_mutex_unlock(&session_mu);
        /* Idle with nothing to watch: sleep until poked. */
        int pr = poll(fds, (nfds_t)n, n > 1 || no_pidfd ? REAPER_POLL_MS : -1);
        if (pr > 0 && fds[0].revents) {
            char drainbuf[64];
            while (read(reaper_wake[0], drainbuf, sizeof drainbuf) > 0)
                ;
        }
        if (n > nsess || no_pidfd)
            session_late_sweep(0);
        pthread_mutex_lock(&session_mu);
        /* Collect every exited supervisor before each session's remaining
         * output is read (waitpid is cheap, and done under the lock as
         * pruning does): no zombie waits for another session's drain. */
        int64_t reaped_now[SESSIONS_MAX] = {0};
        for (;;) {
            session_late_sweep(0); /* leaders done tearing down wait for no drain */
            reap_exited_locked(reaped_now);
            session *s = NULL;
            for (int k = 0; k < SESSIONS_MAX && !s; k++) {
                session *t = session_table[k];
                if (t && reaped_now[k] == t->id && !t->busy && !t->closed) {
                    s = t;
                    reaped_now[k] = 0;
                }
            }
            if (!s || reaper_stop)
                break;
            s->busy = s->reaping = 1; /* ours while we finish it */
            pthread_mutex_unlock(&session_mu);
            finalize(s);
            if (s->closed)
                session_note_end(NULL, s);
            pthread_mutex_lock(&session_mu);
            s->busy = s->reaping = 0;
        }
    }
    pthread_mutex_unlock(&session_mu);
    return NULL;
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

void session_reaper_end(void)
{
    if (!reaper_running)
        return;
    pthread_mutex_lock(&session_mu);
    reaper_stop = 1;
    pthread_mutex_unlock(&session_mu);
    session_reaper_poke();
    pthread_join(reaper, NULL);
    reaper_running = 0;
    wake_close();
}
