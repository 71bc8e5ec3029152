/* The MCP engine's threads: leader/follower over one input stream.
 *
 * One thread at a time (the leader) reads stdin and answers cheap
 * messages (ping, initialize, tools/list, notifications, client replies)
 * itself.  When it reads a tools/call it gives up leadership and runs
 * the call itself, so the thread that read a call runs it: no hand-off
 * between threads on a call's path.
 *
 * Leadership is given up quietly (no wake-up, no timer on the call's
 * path).  Every thread that is not leading or running a call waits in
 * epoll_wait on one epoll holding the input, registered one-shot, and
 * the wake pipe.  The kernel wakes one waiter per event, the one that
 * began waiting last; the input is armed again each time a leader gives
 * up leadership (one epoll_ctl).  So while a leader reads, no waiter is
 * woken; when the leader turns to a call and more input arrives (a
 * ping, a client's reply, another call), a waiter takes over reading at
 * once, however long the call takes; and a quick call is over before
 * any input comes, its thread waiting again first in line for the next.
 * Input that is already there when a call starts (a whole line read
 * ahead, or an input that cannot be polled, such as a regular file)
 * kicks a waiter through an eventfd.  Threads beyond a few waiting ones
 * end, and sequential calls create none. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "crypto_lib.h"
#include "mcp_internal.h"
#include "mcp_listen.h"
#include "mcp_tasks.h"
#include "monotime.h"

/* Threads waiting for input beyond this end themselves. */
#define MAX_IDLE 4
/* What an epoll event is. */
enum { EV_INPUT = 1, EV_WAKE, EV_KICK };

mcp_server *mcp_server_alloc(const mcp_ops *ops)
{
    mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ops = *ops;
    s->out_fd = -1;
    s->wake[0] = s->wake[1] = -1;
    s->out_wake[0] = s->out_wake[1] = -1;
    s->ep = s->kick = -1;
    s->max_calls = MCP_MAX_CALLS;
    s->input_ttl_ms = 600000;
    mcp_reader_init_fd(&s->rd, -1, -1, MCP_MAX_LINE);
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->lock, NULL);
    /* Timed waits (shutdown, client replies) count on the monotonic clock. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->reply_cond, &ca); /* client requests time out */
    pthread_cond_init(&s->exit_cond, &ca);
    pthread_cond_init(&s->room_cond, &ca);
    pthread_cond_init(&s->out_cond, NULL);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->stop_requested, 0);
    atomic_init(&s->ready, 0);
    atomic_init(&s->log_level, VT_LOG_WARNING);
    atomic_init(&s->initialized, 0);
    atomic_init(&s->modern_seen, 0);
    return s;
}

mcp_server *mcp_server_new(int in_fd, int out_fd, const mcp_ops *ops)
{
    mcp_server *s = mcp_server_alloc(ops);
    if (!s)
        return NULL;
    if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
        s->wake[0] = s->wake[1] = -1;
        mcp_server_free(s);
        return NULL;
    }
    s->out_fd = out_fd;
    mcp_reader_init_fd(&s->rd, in_fd, s->wake[0], MCP_MAX_LINE);
    return s;
}

void mcp_server_set_max_calls(mcp_server *s, int n)
{
    if (n > 0)
        s->max_calls = n;
}

void mcp_server_set_input_ttl(mcp_server *s, int ms)
{
    if (ms > 0)
        s->input_ttl_ms = ms;
}

void mcp_server_free(mcp_server *s)
{
    if (!s)
        return;
    while (s->subs) {
        mcp_sub *next = s->subs->next;
        cJSON_Delete(s->subs->id);
        free(s->subs);
        s->subs = next;
    }
    mcp_reader_free(&s->rd);
    free(s->client_name);
    free(s->client_version);
    mcp_tasks_free_all(s);
    if (s->wake[0] >= 0) {
        close(s->wake[0]);
        close(s->wake[1]);
    }
    if (s->out_wake[0] >= 0) {
        close(s->out_wake[0]);
        close(s->out_wake[1]);
    }
    if (s->ep >= 0)
        close(s->ep);
    if (s->kick >= 0)
        close(s->kick);
    pthread_cond_destroy(&s->room_cond);
    pthread_cond_destroy(&s->out_cond);
    pthread_mutex_destroy(&s->wlock);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->reply_cond);
    pthread_cond_destroy(&s->exit_cond);
    free(s);
}

/* No more reading: no more leaders, and waiters for client replies give
 * up (no reply can come).  Running calls are left to mcp_server_run,
 * which lets them finish briefly after end of input and cancels them at
 * once on a stop request. */
static void begin_stop(mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->reply_cond);
    pthread_mutex_unlock(&s->lock);
    mcp_server_wake(s);
}

/* Read and answer messages until a tools/call needs running (returned),
 * the input has nothing more for now (NULL, *more set), or the server
 * stops (NULL). */
static mcp_call *lead(mcp_server *s, int *more)
{
    *more = 0;
    for (;;) {
        const char *line;
        size_t len;
        /* Backpressure: a client that does not read gets no more of its
         * requests read, so nothing grows while it sleeps. */
        mcp_out_wait_room(s);
        int rc = mcp_reader_next(&s->rd, &line, &len);
        if (rc == MCP_READ_LINE) {
            mcp_call *call;
            mcp_dispatch_line(s, line, len, &call);
            if (call)
                return call;
        } else if (rc == MCP_READ_TOO_LONG) {
            mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
                           "Invalid Request: message exceeds the 16 MiB line limit");
        } else if (rc == MCP_READ_AGAIN) {
            *more = 1;
            return NULL;
        } else {
            begin_stop(s);
            return NULL;
        }
    }
}

static void *worker_main(void *arg);

/* Start one more worker thread.  Caller holds s->lock. */
static int spawn_locked(mcp_server *s)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, worker_main, s);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        s->threads++;
    return rc == 0 ? 0 : -1;
}

/* The next input event goes to one waiter. */
static void arm_input(mcp_server *s)
{
    struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u32 = EV_INPUT};
    if (s->input_polled)
        (void)epoll_ctl(s->ep, EPOLL_CTL_MOD, s->rd.fd, &ev);
}

/* Whether a thread taking leadership now has something to read. */
static int input_here(mcp_server *s)
{
    return !s->input_polled || atomic_load(&s->ready) || mcp_reader_has_line(&s->rd);
}

/* The leader gives up leadership, to wait for input itself or (`call`)
 * to run a call.  Caller holds s->lock. */
static void release_leadership_locked(mcp_server *s, int call)
{
    s->has_leader = 0;
    arm_input(s);
    if (!call)
        return;
    if (!input_here(s) && s->waiting > 0)
        return; /* a waiter gets the next input event */
    if (s->waiting > 0) {
        uint64_t one = 1;
        ssize_t n = write(s->kick, &one, sizeof one);
        (void)n; /* a full counter wakes them all the same */
    } else {
        spawn_locked(s); /* on failure: reading resumes after the call */
    }
}

/* Take the events of one wait.  Caller holds s->lock. */
static void took_events(mcp_server *s, const struct epoll_event *ev, int n)
{
    for (int i = 0; i < n; i++) {
        if (ev[i].data.u32 == EV_INPUT) {
            atomic_store(&s->ready, 1);
        } else if (ev[i].data.u32 == EV_KICK) {
            uint64_t v;
            ssize_t r = read(s->kick, &v, sizeof v);
            (void)r; /* EAGAIN: another waiter took it */
        } else if (!s->stopping) {
            /* the wake pipe: a stop request or a signal; as the reader
             * would have seen it */
            s->stopping = 1;
            pthread_cond_broadcast(&s->reply_cond);
        }
    }
}

/* Wait until this thread can lead with something to read.  Returns 0
 * with leadership taken, -1 to end this thread.  Caller holds s->lock. */
static int wait_to_lead(mcp_server *s)
{
    for (;;) {
        if (s->stopping)
            return -1;
        if (!s->has_leader && input_here(s)) {
            s->has_leader = 1;
            return 0;
        }
        if (s->waiting >= MAX_IDLE)
            return -1;
        s->waiting++;
        pthread_mutex_unlock(&s->lock);
        struct epoll_event ev[3];
        int n = epoll_wait(s->ep, ev, 3, -1);
        pthread_mutex_lock(&s->lock);
        s->waiting--;
        if (n < 0 && errno != EINTR) {
            s->stopping = 1; /* cannot wait: as if the input ended */
            pthread_cond_broadcast(&s->reply_cond);
        }
        took_events(s, ev, n > 0 ? n : 0);
    }
}

/* Lead, run calls, follow; until the server stops. */
static void serve(mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    while (wait_to_lead(s) == 0) {
        pthread_mutex_unlock(&s->lock);
        int more;
        mcp_call *call = lead(s, &more);
        pthread_mutex_lock(&s->lock);
        if (!call && !more) {
            s->has_leader = 0;
            break;
        }
        release_leadership_locked(s, call != NULL);
        if (!call)
            continue;
        pthread_mutex_unlock(&s->lock);
        mcp_call_run(s, call);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
}

static void *worker_main(void *arg)
{
    mcp_server *s = arg;
    serve(s);
    crypto_thread_end(); /* before the count says this thread is gone */
    pthread_mutex_lock(&s->lock);
    s->threads--;
    pthread_cond_broadcast(&s->exit_cond);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Wait until every worker has ended or `ms` passed; with `watch`, also
 * return early on a stop request.  Caller holds s->lock. */
static void wait_workers(mcp_server *s, int ms, int watch)
{
    struct timespec end, step;
    mono_deadline_ms(&end, ms);
    while (s->threads > 0 && !(watch && atomic_load(&s->stop_requested))) {
        /* Short steps: a signal can only set a flag, not signal us. */
        mono_deadline_ms(&step, 10);
        if (step.tv_sec > end.tv_sec || (step.tv_sec == end.tv_sec && step.tv_nsec > end.tv_nsec))
            step = end;
        if (pthread_cond_timedwait(&s->exit_cond, &s->lock, &step) == ETIMEDOUT &&
            step.tv_sec == end.tv_sec && step.tv_nsec == end.tv_nsec)
            break;
    }
}

/* The epoll the waiting threads share (see the top of this file).  An
 * input epoll refuses (a regular file, /dev/null) is always readable:
 * the reader then polls it itself, and never waits. */
static int input_wait_start(mcp_server *s)
{
    s->ep = epoll_create1(EPOLL_CLOEXEC);
    s->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event wake = {.events = EPOLLIN, .data.u32 = EV_WAKE};
    struct epoll_event kick = {.events = EPOLLIN, .data.u32 = EV_KICK};
    struct epoll_event in = {.events = EPOLLIN | EPOLLONESHOT, .data.u32 = EV_INPUT};
    if (s->ep < 0 || s->kick < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->wake[0], &wake) < 0 ||
        epoll_ctl(s->ep, EPOLL_CTL_ADD, s->kick, &kick) < 0)
        return -1;
    s->input_polled = epoll_ctl(s->ep, EPOLL_CTL_ADD, s->rd.fd, &in) == 0;
    if (s->input_polled)
        s->rd.ready = &s->ready;
    return 0;
}

int mcp_server_run(mcp_server *s, int drain_ms, int grace_ms)
{
    /* The first leader is a worker like every other; this thread only
     * watches for the end, so that a call it ran could never delay it. */
    if (input_wait_start(s) < 0)
        return -1;
    if (mcp_out_start(s) < 0)
        return -1;
    pthread_mutex_lock(&s->lock);
    int rc = spawn_locked(s);
    pthread_mutex_unlock(&s->lock);
    if (rc < 0) {
        mcp_out_finish(s, 0);
        return -1;
    }

    struct pollfd p = {.fd = s->wake[0], .events = POLLIN};
    while (poll(&p, 1, -1) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_cond_broadcast(&s->reply_cond);
    /* End of input: calls already read may still finish and answer. */
    if (!atomic_load(&s->stop_requested))
        wait_workers(s, drain_ms, 1);
    mcp_call_cancel_all_locked(s);
    wait_workers(s, grace_ms, 0);
    int left = s->threads;
    pthread_mutex_unlock(&s->lock);
    /* Open subscriptions/listen streams end gracefully: answered. */
    mcp_listen_end(s);
    /* Answers already queued reach a reading client; one that stopped
     * reading does not hold the exit up for long. */
    mcp_out_finish(s, atomic_load(&s->stop_requested) ? grace_ms : drain_ms + grace_ms);
    return left > 0 ? -1 : 0;
}

void mcp_server_run_mem(mcp_server *s, const void *data, size_t len)
{
    mcp_reader_free(&s->rd);
    mcp_reader_init_mem(&s->rd, data, len, MCP_MAX_LINE);
    s->inline_calls = 1;
    for (;;) {
        const char *line;
        size_t n;
        int rc = mcp_reader_next(&s->rd, &line, &n);
        if (rc == MCP_READ_LINE) {
            mcp_call *call;
            mcp_dispatch_line(s, line, n, &call);
            if (call)
                mcp_call_run(s, call);
        } else if (rc == MCP_READ_TOO_LONG) {
            mcp_send_error(s, NULL, RPC_INVALID_REQUEST,
                           "Invalid Request: message exceeds the 16 MiB line limit");
        } else {
            break;
        }
    }
}

void mcp_server_tools_changed(void *server)
{
    mcp_server *s = server;
    if (s && atomic_load(&s->initialized))
        mcp_send_notification(s, "notifications/tools/list_changed", NULL);
    if (s)
        mcp_listen_tools_changed(s);
}
