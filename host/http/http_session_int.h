/* Between the parts of http_session.c: the session registry
 * (http_session.c), the routing of each engine's messages and the call
 * threads (http_route.c), and the streams a session's messages go out on
 * (http_stream.c).
 *
 * Locking: hs_mu guards the session list and every session's reference
 * count; a session's mu guards its streams and their queues.  hs_mu is
 * taken before a session's mu, never after.  The engine is never called
 * with either held (its sink takes the session's mu). */
#ifndef VTHOST_HTTP_SESSION_INT_H
#define VTHOST_HTTP_SESSION_INT_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdint.h>
#include "http_session.h"
#include "http_sse.h"
#include "mcp_server.h"
#include "monotime.h"

/* Messages kept for a GET stream that is not open (yet). */
#define BACKLOG_MAX 64
/* How often a waiting stream looks whether its client is still there,
 * and how long a quiet SSE stream goes without a keep-alive comment. */
#define POLL_MS 200
#define KEEPALIVE_MS 20000

typedef struct msg {
    struct msg *next;
    size_t len;
    char text[];
} msg;

struct http_stream {
    http_stream *next;
    http_session *s; /* referenced */
    int refs;        /* under s->mu */
    cJSON *req_id;   /* NULL: the GET stream */
    cJSON *progress;
    msg *head, *tail;
    /* The piece being written, out_pos bytes of it already: `out`
     * (malloc'd), or the message `cur` framed as an SSE event as it is
     * copied, or the log's pinned event (`pinned`), written from there. */
    char *out;
    size_t out_len, out_pos;
    msg *cur;
    int pinned;
    int answered;  /* the response is queued */
    int answer_ok; /* ... and it is a result, not an error */
    int gone;      /* the connection is done */
    int posting;   /* a POST's response, counted in hs_posts until closed */
    int64_t last_write_ms;
    pthread_cond_t cond;
    char tool[64];     /* access log */
    int status;        /* call_status + 1; 0: no call ran */
    unsigned no;       /* the stream's number in its session (event ids) */
    http_sse_log *log; /* resumable: events sent, for a resume */
    int primed;        /* the priming event is out */
    int json_only;     /* answered with JSON: requests to the client fail */
    int running_here;  /* its call runs on the connection's thread: requests
                        * to the client fail */
    int detached;      /* its connection dropped; held for a resume */
    int call_over;     /* its call ended without a response (cancelled) */
    int64_t hold_until;
    int finished; /* a replay of a finished stream: ends when caught up */
};

/* The event log of a resumable stream that finished, kept for the resume
 * window: a client that comes back with Last-Event-ID for it gets what
 * followed that event again and a clean end, not a 404 it would read as
 * "session gone". */
typedef struct kept_log {
    struct kept_log *next;
    http_sse_log *log;
    unsigned no;
    int64_t until;
} kept_log;

struct http_session {
    http_session *next;
    char id[HTTP_SESSION_ID_LEN + 1];
    char owner[128];
    char version[16];
    uint64_t client_id; /* vt_host_api.call_client_id of its calls */
    mcp_server *eng;
    int refs;             /* under hs_mu */
    int ended;            /* under hs_mu and mu */
    int stateless;        /* one 2026-07-28 request's engine, on hs_stateless */
    int answered;         /* stateless: its answer is in hand (hs_mu); it no
                             longer counts against its client's limit */
    int64_t last_used_ms; /* under hs_mu */
    pthread_mutex_t mu;
    http_stream *streams; /* under mu */
    http_stream *get;
    msg *backlog, *backlog_tail;
    int nbacklog;
    int threads; /* call threads running, under mu */
    unsigned next_stream;
    /* Ended, and every unanswered request's error queued (under mu): a
     * stream ends on `ended` only then, or an answer still to be queued
     * (shutdown stops the sessions one after another) was never sent. */
    int drained;
    kept_log *kept; /* under mu, newest first, at most HTTP_SSE_MAX_HELD */
};

extern pthread_mutex_t hs_mu;
extern pthread_cond_t hs_cond; /* a call thread ended */
extern http_session *hs_sessions;
/* Engines of stateless requests still being answered: off hs_sessions
 * (no id, no limit, no expiry), told of list changes all the same. */
extern http_session *hs_stateless;
extern int hs_count, hs_threads;
/* POST responses still open: at shutdown an answered call's response is
 * left to reach its client before the daemon closes the connections. */
extern int hs_posts;
extern mcp_ops hs_host_ops;
extern http_limits hs_limits;

/* The stream and session a call's thread works for (the sink's routing,
 * the access log). */
extern __thread http_stream *hs_tl_stream;

static inline int64_t now_ms(void) { return mono_now_ms(); }

/* http_route.c */
msg *hs_msg_new(const char *text, size_t len);
void hs_free_msgs(msg *m);
/* Caller holds s->mu. */
void hs_push_locked(http_stream *st, msg *m);
/* The engine's output sink (mcp_server_set_output), `ud` the session. */
int hs_route_out(void *ud, const mcp_out *o);
/* ops.call of every session's engine. */
int hs_session_call(const call_request *req, call_result *out);

/* http_session.c */
/* Drop a reference; `used`: the client used the session. */
void hs_session_unref(http_session *s, int used);

/* http_stream.c */
/* Caller holds st->s->mu; returns 1 when that was the last reference. */
int hs_stream_unref_locked(http_stream *st);
void hs_stream_free(http_stream *st);
/* Streams of `s` held for a resume.  Caller holds s->mu. */
int hs_held_locked(http_session *s);
/* Streams held for a resume whose client did not come back in time (or
 * all of them at now == INT64_MAX): released, their calls cancelled. */
void http_streams_release_held(http_session *s, int64_t now);
/* Finished streams' logs past the resume window (all of them at now ==
 * INT64_MAX) are freed. */
void hs_kept_prune(http_session *s, int64_t now);

#endif
