/* The MCP engine's threads: leader/follower over one input stream.
 *
 * One thread at a time (the leader) reads stdin and answers cheap
 * messages (ping, initialize, tools/list, notifications, client replies)
 * itself.  When it reads a tools/call it gives up leadership and runs
 * the call itself, so the thread that read a call runs it: no hand-off
 * between threads on a call's path.
 *
 * Leadership is given up quietly (no wake-up on the call's path): one
 * idle thread, the standby, polls every STANDBY_POLL_US while calls are
 * coming in and takes over reading when the leader is busy in a call.
 * So a call waiting 30 s for output (or for the user's approval) never
 * stops the reading: ping, replies and other calls are answered within
 * a millisecond, while a quick call is over before the standby looks and
 * its thread simply goes on reading.  After a quiet second the standby
 * sleeps and is woken explicitly.  Threads beyond a few idle ones end,
 * and sequential calls create none. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mcp_internal.h"
#include "mcp_listen.h"
#include "mcp_tasks.h"
#include "monotime.h"

/* Idle followers beyond this end themselves. */
#define MAX_IDLE 4
/* How often the standby looks whether the leader is busy in a call, and
 * how long after the last call it keeps looking before it sleeps. */
#define STANDBY_POLL_US 1000
#define QUIET_US 1000000

mcp_server *mcp_server_alloc(const mcp_ops *ops)
{
    mcp_server *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ops = *ops;
    s->out_fd = -1;
    s->wake[0] = s->wake[1] = -1;
    s->out_wake[0] = s->out_wake[1] = -1;
    s->max_calls = MCP_MAX_CALLS;
    s->input_ttl_ms = 600000;
    mcp_reader_init_fd(&s->rd, -1, -1, MCP_MAX_LINE);
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->lock, NULL);
    /* Timed waits (standby polling, shutdown) count on the monotonic clock. */
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->lead_cond, &ca);
    pthread_cond_init(&s->reply_cond, &ca); /* client requests time out */
    pthread_cond_init(&s->exit_cond, &ca);
    pthread_cond_init(&s->room_cond, &ca);
    pthread_cond_init(&s->out_cond, NULL);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->stop_requested, 0);
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
    pthread_cond_destroy(&s->room_cond);
    pthread_cond_destroy(&s->out_cond);
    pthread_mutex_destroy(&s->wlock);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->lead_cond);
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
    pthread_cond_broadcast(&s->lead_cond);
    pthread_cond_broadcast(&s->reply_cond);
    pthread_mutex_unlock(&s->lock);
    mcp_server_wake(s);
}

/* Read and answer messages until a tools/call needs running (returned)
 * or the server stops (NULL). */
static mcp_call *lead(mcp_server *s)
{
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

/* The leader starts a call: leave reading to the standby, or make sure
 * some thread will pick it up.  Caller holds s->lock. */
static void release_leadership_locked(mcp_server *s)
{
    s->has_leader = 0;
    s->last_call_us = mono_now_us();
    if (s->standby && !s->standby_sleeping)
        return; /* it is polling and will notice if the call takes long */
    if (s->idle > 0)
        pthread_cond_signal(&s->lead_cond);
    else
        spawn_locked(s); /* on failure: reading resumes after the call */
}

/* Wait until leadership is free.  One waiter is the standby: it polls
 * while calls are coming in and sleeps after a quiet second.  Returns 0
 * to lead, -1 to end this thread.  Caller holds s->lock. */
static int wait_to_lead(mcp_server *s)
{
    int standby = 0;
    while (s->has_leader && !s->stopping) {
        if (!s->standby) {
            s->standby = 1;
            standby = 1;
        }
        if (!standby && s->idle >= MAX_IDLE)
            return -1;
        s->idle++;
        if (standby && mono_now_us() - s->last_call_us < QUIET_US) {
            struct timespec t;
            mono_deadline_us(&t, STANDBY_POLL_US);
            pthread_cond_timedwait(&s->lead_cond, &s->lock, &t);
        } else {
            if (standby)
                s->standby_sleeping = 1;
            pthread_cond_wait(&s->lead_cond, &s->lock);
            if (standby)
                s->standby_sleeping = 0;
        }
        s->idle--;
    }
    if (standby)
        s->standby = 0;
    return s->stopping ? -1 : 0;
}

/* Lead, run calls, follow; until the server stops. */
static void serve(mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    while (wait_to_lead(s) == 0) {
        s->has_leader = 1;
        pthread_mutex_unlock(&s->lock);
        mcp_call *call = lead(s);
        pthread_mutex_lock(&s->lock);
        if (!call) {
            s->has_leader = 0;
            break;
        }
        release_leadership_locked(s);
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

int mcp_server_run(mcp_server *s, int drain_ms, int grace_ms)
{
    /* The first leader is a worker like every other; this thread only
     * watches for the end, so that a call it ran could never delay it. */
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
    pthread_cond_broadcast(&s->lead_cond);
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
