/* Waiting on one session: its output read, filtered, watched for
 * sandbox refusals and spooled, its input written, and the answer and
 * the guard's note built once the wait ends. */
#include "session_int.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vthost/services.h>

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
        if (session_try_reap(s)) {
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

/* The ending's notes and warnings, and the PTY filter's last byte. */
static void report_end(vt_call *call, session *s, const waiter *w)
{
    if (s->reaped)
        session_note_end(call, s);
    if (s->reaped && s->is_pty) {
        char c;
        if (term_filter_flush(&s->tf, &c) && w->spool)
            api->spool_write(w->spool, &c, 1);
    }
}

/* Wait for output and exit until yield_ms passes.  The caller holds the
 * session busy; this releases it (and frees it once exited). */
int session_collect(vt_call *call, session *s, double t0, int yield_ms, int kill_on_cancel,
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
        return session_end_interrupted(call, s, kill_on_cancel, oom);
    report_end(call, s, &w);
    *result = build_response(s, t0);
    if (s->reaped)
        note_exit(call, s);
    session_release(call, s);
    if (!*result)
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    return VT_OK;
}

/* Write all of buf, waiting for room until the deadline.  SIGPIPE is
 * kept to this thread and swallowed: a command that stopped reading is
 * reported, never a reason for the host to die. */
int session_write_all(vt_call *call, int fd, const char *buf, size_t len, double deadline)
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
