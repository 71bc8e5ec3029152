/* The streams of an HTTP session: one POSTed request's answer or the
 * session's GET stream, read by the connection's thread (see
 * http_session.h and http_session_int.h). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "http_session_int.h"
#include "strbuf.h"
#include "strutil.h"

http_stream *http_stream_open(http_session *s, const cJSON *req_id, const cJSON *progress)
{
    http_stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->req_id = req_id ? cJSON_Duplicate(req_id, 1) : NULL;
    st->progress = progress ? cJSON_Duplicate(progress, 1) : NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->cond, &ca);
    pthread_condattr_destroy(&ca);
    st->refs = 1;
    st->last_write_ms = now_ms();
    st->posting = req_id != NULL;
    pthread_mutex_lock(&hs_mu);
    s->refs++;
    hs_posts += st->posting;
    pthread_mutex_unlock(&hs_mu);
    st->s = s;
    if (!req_id) {
        /* A new GET stream without Last-Event-ID replaces one held for a
         * resume. */
        pthread_mutex_lock(&s->mu);
        if (s->get && s->get->detached)
            s->get->hold_until = 0;
        pthread_mutex_unlock(&s->mu);
        http_streams_release_held(s, now_ms());
    }
    pthread_mutex_lock(&s->mu);
    st->no = ++s->next_stream;
    /* Resumable streams are 2025-11-25's: older clients cannot read a
     * priming event's empty data, and 2026-07-28 dropped resumption. */
    if (strcmp(s->version, "2025-11-25") == 0)
        st->log = http_sse_log_new(st->no);
    if (!req_id) {
        if (s->get && !s->get->gone) {
            pthread_mutex_unlock(&s->mu);
            cJSON_Delete(st->progress);
            http_sse_log_free(st->log);
            pthread_cond_destroy(&st->cond);
            free(st);
            http_session_put(s);
            return NULL;
        }
        s->get = st;
        /* What came while no GET stream was open. */
        st->head = s->backlog;
        st->tail = s->backlog_tail;
        s->backlog = s->backlog_tail = NULL;
        s->nbacklog = 0;
    }
    st->next = s->streams;
    s->streams = st;
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* Caller holds st->s->mu; returns 1 when that was the last reference. */
int hs_stream_unref_locked(http_stream *st)
{
    if (--st->refs > 0)
        return 0;
    http_session *s = st->s;
    for (http_stream **p = &s->streams; *p; p = &(*p)->next) {
        if (*p == st) {
            *p = st->next;
            break;
        }
    }
    if (s->get == st)
        s->get = NULL;
    return 1;
}

/* Caller holds s->mu: no piece pending any more (see http_stream). */
static void piece_drop_locked(http_stream *st)
{
    free(st->out);
    st->out = NULL;
    free(st->cur);
    st->cur = NULL;
    if (st->pinned && st->log)
        http_sse_unpin(st->log);
    st->pinned = 0;
    st->out_pos = 0;
}

/* A finished resumable stream's log is kept for the resume window
 * (kept_log); the oldest kept goes when the session keeps as many as it
 * may hold streams.  Only a primed one: a request answered with JSON
 * sent no event id, so no Last-Event-ID can name its stream, and keeping
 * its log pushed a finished call's log out of the keep after 16 such
 * answers (and cost an allocation and a walk of the keep per request).
 * Caller holds s->mu. */
static void keep_log_locked(http_session *s, http_stream *st)
{
    piece_drop_locked(st);
    kept_log *k =
        st->log && st->primed && hs_limits.resume_s > 0 && !s->ended ? malloc(sizeof *k) : NULL;
    if (!k)
        return;
    *k = (kept_log){s->kept, st->log, st->no, now_ms() + (int64_t)hs_limits.resume_s * 1000};
    s->kept = k;
    st->log = NULL;
    int n = 0;
    for (kept_log **p = &s->kept; *p; p = &(*p)->next) {
        if (++n > HTTP_SSE_MAX_HELD) {
            kept_log *old = *p;
            *p = NULL;
            for (kept_log *o = old, *nx; o; o = nx) {
                nx = o->next;
                http_sse_log_free(o->log);
                free(o);
            }
            break;
        }
    }
}

static void keep_log(http_session *s, http_stream *st)
{
    pthread_mutex_lock(&s->mu);
    keep_log_locked(s, st);
    pthread_mutex_unlock(&s->mu);
}

void hs_kept_prune(http_session *s, int64_t now)
{
    pthread_mutex_lock(&s->mu);
    for (kept_log **p = &s->kept; *p;) {
        kept_log *k = *p;
        if (now < k->until) {
            p = &k->next;
            continue;
        }
        *p = k->next;
        http_sse_log_free(k->log);
        free(k);
    }
    pthread_mutex_unlock(&s->mu);
}

void hs_stream_free(http_stream *st)
{
    http_session *s = st->s;
    hs_free_msgs(st->head);
    keep_log(s, st); /* and the piece pending, if any */
    http_sse_log_free(st->log);
    cJSON_Delete(st->req_id);
    cJSON_Delete(st->progress);
    pthread_cond_destroy(&st->cond);
    free(st);
    http_session_put(s);
}

/* Streams held for a resume whose client did not come back in time (or
 * all of them at now == INT64_MAX): released, their calls cancelled. */
void http_streams_release_held(http_session *s, int64_t now)
{
    for (;;) {
        pthread_mutex_lock(&s->mu);
        http_stream *st = s->streams;
        while (st && !(st->detached && now >= st->hold_until))
            st = st->next;
        cJSON *id = st && st->req_id && !st->answered ? cJSON_Duplicate(st->req_id, 1) : NULL;
        int last = 0;
        if (st) {
            st->detached = 0;
            st->gone = 1;
            last = hs_stream_unref_locked(st);
        }
        pthread_mutex_unlock(&s->mu);
        if (!st)
            return;
        if (id && now != INT64_MAX)
            mcp_server_cancel(s->eng, id);
        cJSON_Delete(id);
        if (last)
            hs_stream_free(st);
    }
}
static int client_gone(int fd)
{
    if (fd < 0)
        return 0;
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* Wait for something on `st` for up to POLL_MS.  Caller holds s->mu. */
static void wait_locked(http_stream *st)
{
    struct timespec t;
    mono_deadline_ms(&t, POLL_MS);
    mono_cond_wait(&st->cond, &st->s->mu, &t);
}

/* Caller holds s->mu: the next bytes of the pending piece into buf.  The
 * answer crosses from the call's thread as one buffer (the message, or
 * the event in the log) and is copied once, here, into libmicrohttpd's. */
static size_t piece_copy_locked(http_stream *st, char *buf, size_t max)
{
    static const char head[] = "event: message\ndata: ";
    const char *part[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    if (st->out) {
        part[0] = st->out, len[0] = st->out_len;
    } else if (st->cur) {
        part[0] = head, len[0] = sizeof head - 1;
        part[1] = st->cur->text, len[1] = st->cur->len;
        part[2] = "\n\n", len[2] = 2;
    } else {
        part[0] = http_sse_pinned(st->log, &len[0]);
    }
    size_t pos = st->out_pos, n = 0;
    for (int i = 0; i < 3 && n < max; i++) {
        if (pos >= len[i]) {
            pos -= len[i];
            continue;
        }
        size_t k = len[i] - pos < max - n ? len[i] - pos : max - n;
        memcpy(buf + n, part[i] + pos, k);
        n += k;
        pos = 0;
    }
    st->out_pos += n;
    if (st->out_pos == len[0] + len[1] + len[2])
        piece_drop_locked(st);
    return n;
}

ssize_t http_stream_read(http_stream *st, char *buf, size_t max, int fd)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (st->out || st->cur || st->pinned) {
            size_t n = piece_copy_locked(st, buf, max);
            st->last_write_ms = now_ms();
            pthread_mutex_unlock(&s->mu);
            return (ssize_t)n;
        }
        if (st->log && (!st->primed || (st->out = http_sse_replay(st->log, &st->out_len)))) {
            if (!st->primed)
                st->out = http_sse_priming(st->log, &st->out_len);
            st->primed = 1;
            st->out_pos = 0;
            if (!st->out) {
                pthread_mutex_unlock(&s->mu);
                return -2;
            }
            continue;
        }
        if (st->head) {
            msg *m = st->head;
            st->head = m->next;
            if (!st->head)
                st->tail = NULL;
            st->out_pos = 0;
            if (!st->log) {
                st->cur = m; /* written as it is, framed on the way */
                continue;
            }
            st->pinned = http_sse_event_pinned(st->log, m->text, m->len) == 0;
            free(m);
            if (!st->pinned) {
                pthread_mutex_unlock(&s->mu);
                return -2;
            }
            continue;
        }
        if ((st->req_id && (st->answered || st->call_over)) || st->finished || s->drained ||
            st->gone) {
            /* Its last byte is out: the client may come back for it
             * before the connection has let go of the stream. */
            keep_log_locked(s, st);
            pthread_mutex_unlock(&s->mu);
            return -1;
        }
        if (now_ms() - st->last_write_ms >= KEEPALIVE_MS) {
            /* An SSE comment: proxies keep a quiet stream open. */
            st->out = strdup(": keep-alive\n\n");
            st->out_len = st->out ? strlen(st->out) : 0;
            st->out_pos = 0;
            continue;
        }
        wait_locked(st);
        if (!st->head && !st->answered) {
            pthread_mutex_unlock(&s->mu);
            int gone = client_gone(fd);
            pthread_mutex_lock(&s->mu);
            if (gone) {
                st->gone = !st->log; /* a resumable stream waits for its client */
                pthread_mutex_unlock(&s->mu);
                return -2;
            }
        }
    }
}

int http_stream_settle(http_stream *st, int wait_ms)
{
    http_session *s = st->s;
    struct timespec end;
    mono_deadline_ms(&end, wait_ms);
    pthread_mutex_lock(&s->mu);
    int over;
    while (!(over = st->answered || st->call_over) && !st->head && !st->gone && !s->drained &&
           mono_cond_wait(&st->cond, &s->mu, &end) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&s->mu);
    return over;
}

int http_stream_take_all(http_stream *st, vt_strbuf *out)
{
    /* The call is over: the reads below never wait, and the last one
     * keeps the log for a resume as a streamed answer's would. */
    char buf[16 * 1024];
    for (;;) {
        ssize_t n = http_stream_read(st, buf, sizeof buf, -1);
        if (n == -1)
            return 0;
        if (n < 0 || strbuf_append(out, buf, (size_t)n) != 0)
            return -1;
    }
}

const char *http_answer_text(const msg *answer) { return answer->text; }

msg *http_stream_wait_answer(http_stream *st, int fd)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        /* Only the response: anything else on a JSON answer is dropped. */
        while (st->head && !(st->answered && st->head == st->tail)) {
            msg *m = st->head;
            st->head = m->next;
            if (!st->head)
                st->tail = NULL; /* else the answer is queued behind a freed message */
            free(m);
        }
        if (st->answered && st->head) {
            msg *m = st->head;
            st->head = st->tail = NULL;
            pthread_mutex_unlock(&s->mu);
            return m; /* handed over as it is: no copy */
        }
        if (s->drained || st->gone)
            break;
        wait_locked(st);
        if (!st->answered) {
            pthread_mutex_unlock(&s->mu);
            int gone = client_gone(fd);
            pthread_mutex_lock(&s->mu);
            if (gone) {
                st->gone = 1;
                break;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int http_stream_answer_ok(http_stream *st)
{
    pthread_mutex_lock(&st->s->mu);
    int ok = st->answered && st->answer_ok;
    pthread_mutex_unlock(&st->s->mu);
    return ok;
}

int http_stream_answered(http_stream *st)
{
    pthread_mutex_lock(&st->s->mu);
    int a = st->answered;
    pthread_mutex_unlock(&st->s->mu);
    return a;
}

void http_stream_outcome(http_stream *st, char *tool, size_t tool_size, const char **decision)
{
    static const char *const names[] = {"",        "allow",   "failed",   "deny",
                                        "invalid", "unknown", "cancelled"};
    pthread_mutex_lock(&st->s->mu);
    str_copy(tool, tool_size, st->tool);
    int k = st->status;
    if (st->gone && !st->answered && st->req_id)
        k = 6; /* its client went away: cancelled */
    pthread_mutex_unlock(&st->s->mu);
    *decision = k >= 0 && k < 7 ? names[k] : "";
}

void http_stream_close(http_stream *st)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    int cancel = st->req_id && !st->answered && !st->detached;
    int posting = st->posting;
    st->posting = 0;
    st->gone = !st->detached;
    cJSON *id = cancel ? cJSON_Duplicate(st->req_id, 1) : NULL;
    int last = hs_stream_unref_locked(st);
    pthread_mutex_unlock(&s->mu);
    if (posting) {
        pthread_mutex_lock(&hs_mu);
        hs_posts--;
        pthread_cond_broadcast(&hs_cond);
        pthread_mutex_unlock(&hs_mu);
    }
    if (id) {
        /* The client went away mid-call: the call ends, and with it the
         * commands it started. */
        mcp_server_cancel(s->eng, id);
        cJSON_Delete(id);
    }
    if (s->stateless)
        http_session_end(s); /* its one request is over */
    if (last)
        hs_stream_free(st);
}

void http_stream_json_only(http_stream *st)
{
    pthread_mutex_lock(&st->s->mu);
    st->json_only = 1;
    pthread_mutex_unlock(&st->s->mu);
}

/* Streams of `s` held for a resume.  Caller holds s->mu. */
int hs_held_locked(http_session *s)
{
    int n = 0;
    for (http_stream *st = s->streams; st; st = st->next)
        n += st->detached;
    return n;
}

int http_stream_detach(http_stream *st)
{
    http_session *s = st->s;
    pthread_mutex_lock(&s->mu);
    int hold = hs_limits.resume_s > 0 && st->log && st->primed && !st->gone && !st->detached &&
               !s->ended && hs_held_locked(s) < HTTP_SSE_MAX_HELD;
    if (hold) {
        /* What was queued but not sent goes to the log, for the resume. */
        while (st->head) {
            msg *m = st->head;
            st->head = m->next;
            http_sse_keep(st->log, m->text, m->len);
            free(m);
        }
        st->tail = NULL;
        piece_drop_locked(st); /* already in the log */
        st->detached = 1;
        st->hold_until = now_ms() + (int64_t)hs_limits.resume_s * 1000;
        st->refs++;
    }
    pthread_mutex_unlock(&s->mu);
    return hold;
}

/* A stream to replay a finished stream's kept log from event `seq` (the
 * log taken from the session's keep; kept again when this replay is
 * freed), or one that ends at once when nothing of it is kept any more.
 * Caller holds s->mu.  VT_ERR_NOT_FOUND when stream `no` never was or
 * `seq` was never sent on it, VT_ERR_NOMEM. */
static int replay_finished_locked(http_session *s, unsigned no, uint64_t seq, http_stream **out)
{
    if (no == 0 || no > s->next_stream)
        return VT_ERR_NOT_FOUND;
    kept_log **p = &s->kept;
    while (*p && (*p)->no != no)
        p = &(*p)->next;
    if (*p && http_sse_rewind((*p)->log, seq) != 0)
        return VT_ERR_NOT_FOUND;
    http_stream *st = calloc(1, sizeof *st);
    if (!st)
        return VT_ERR_NOMEM;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (*p) {
        kept_log *k = *p;
        *p = k->next;
        st->log = k->log;
        free(k);
    }
    st->refs = 1;
    st->s = s;
    st->no = no;
    st->primed = 1;
    st->finished = 1;
    st->last_write_ms = now_ms();
    st->next = s->streams;
    s->streams = st;
    *out = st;
    return 0;
}

int http_stream_resume(http_session *s, const char *last_event_id, http_stream **out)
{
    unsigned no;
    uint64_t seq;
    *out = NULL;
    if (http_sse_parse_id(last_event_id, &no, &seq) != 0)
        return VT_ERR_INVALID;
    pthread_mutex_lock(&s->mu);
    http_stream *st = s->streams;
    while (st && !(st->no == no && st->log))
        st = st->next;
    int rc = !st             ? replay_finished_locked(s, no, seq, out)
             : !st->detached ? VT_ERR_BUSY
                             : http_sse_rewind(st->log, seq);
    if (rc == 0 && st) {
        st->detached = 0; /* the hold's reference is the connection's now */
        st->primed = 1;
        *out = st;
        pthread_cond_broadcast(&st->cond);
    }
    int fresh = rc == 0 && !st;
    pthread_mutex_unlock(&s->mu);
    if (fresh) {
        pthread_mutex_lock(&hs_mu);
        s->refs++; /* the replay's, dropped when it is freed */
        pthread_mutex_unlock(&hs_mu);
    }
    return rc;
}