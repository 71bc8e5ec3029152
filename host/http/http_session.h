/* The sessions of `vthost serve --http`: one MCP engine per client
 * session (its own calls, prompts, pending client requests and
 * negotiated capabilities), and the streams its messages go out on.
 *
 * A stream is one HTTP response being written: the answer to one POSTed
 * request (SSE or JSON), or the session's GET stream.  The engine's
 * messages are routed by what they are: a response to the stream of its
 * request; a message sent by a call's thread (progress, elicitation,
 * sampling) to that call's stream; progress by its token; the rest
 * (list_changed, log messages) to the GET stream, or a short backlog
 * until one opens. */
#ifndef VTHOST_HTTP_SESSION_H
#define VTHOST_HTTP_SESSION_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <vthost/plugin.h>
#include "mcp_server.h"

#define HTTP_SESSION_ID_LEN 32

typedef struct http_session http_session;
typedef struct http_stream http_stream;

typedef struct http_limits {
    int max_per_owner;   /* sessions one client identity may hold */
    int max_sessions;    /* sessions of all clients together */
    int max_calls;       /* tools/call running at once in one session */
    int idle_s;          /* a session unused this long ends */
    int idle_commands_s; /* ... this long when its commands live on */
    int resume_s;        /* a dropped SSE stream is held this long; 0: never */
} http_limits;

/* Before the first session: the host's engine binding (copied) and the
 * limits. */
void http_sessions_init(const mcp_ops *host_ops, const http_limits *limits);
/* End every session: calls get grace_ms to finish, then are cancelled;
 * returns once every call thread has ended or grace_ms more passed. */
void http_sessions_shutdown(int grace_ms);
/* End sessions idle longer than the limit (none of their calls running,
 * no stream open). */
void http_sessions_expire(void);
/* notifications/tools/list_changed to every initialized session. */
void http_sessions_tools_changed(void *ud);
/* Sessions alive now. */
int http_sessions_count(void);

/* A new session for `owner` (copied).  At the owner's limit its least
 * recently used idle session is ended to make room.  Returns 0 and *out
 * (a reference: http_session_put), or 429 when the owner holds its limit
 * and every one of those sessions is in use, 503 when the server holds
 * max_sessions (of all clients), 500 when out of memory. */
int http_session_create(const char *owner, http_session **out);
/* An engine for one stateless (2026-07-28) request of `owner`, whose
 * calls run as client `client_id` (the principal's: its command sessions
 * and spool view).  It has no id and is no session (none of the session
 * limits, no expiry); it ends when the request's stream closes.  Returns
 * 0 and *out (a reference: http_session_put), 429 when the owner has as
 * many requests open as its sessions could run calls
 * (max_per_owner * max_calls), or 500. */
int http_session_stateless(const char *owner, uint64_t client_id, http_session **out);
/* A stateless request's answer is in hand: it stops counting against its
 * client's limit now, not when its bytes have left and its engine ends
 * (a client sending its next request the moment it has read the answer
 * would otherwise meet a slot still taken). */
void http_session_answered(http_session *s);
/* The session `id` when it exists and belongs to `owner` (a reference),
 * else NULL: unknown, ended, expired or someone else's look the same. */
http_session *http_session_find(const char *id, const char *owner);
void http_session_put(http_session *s);
const char *http_session_id(const http_session *s);
/* The protocol version initialize agreed on ("" before). */
const char *http_session_version(http_session *s);
/* tools/call running now. */
int http_session_calls(http_session *s);
/* DELETE: end the session (its calls cancelled, its streams closed). */
void http_session_end(http_session *s);

/* A stream for the answer to request `req_id` (borrowed, copied; NULL
 * for the GET stream), whose progress token is `progress` (may be NULL).
 * NULL when the session already has a GET stream, or on allocation
 * failure.  The caller owns one reference (http_stream_close). */
http_stream *http_stream_open(http_session *s, const cJSON *req_id, const cJSON *progress);
/* Hand one parsed message (taken) to the session's engine on behalf of
 * `st` (NULL for a notification or response), with the request's
 * MCP-Protocol-Version header (NULL: none).  A tools/call runs on a
 * thread of its own or, on this thread before this returns, when the
 * tool only reads (a plugin's own tool, neither executing nor on the
 * network), `st` asked for no progress and the session's client can be
 * asked nothing (it declared no elicitation, sampling or roots: no
 * approval can be put to it). */
void http_session_submit(http_session *s, http_stream *st, cJSON *msg, const char *header_version);
/* The next bytes of an SSE stream, waiting for them; `fd` is the
 * connection's socket, watched for the client going away.  Returns the
 * count, -1 at the end of the stream, -2 when the client has gone. */
ssize_t http_stream_read(http_stream *st, char *buf, size_t max, int fd);
/* Wait up to `wait_ms` for the call of POST stream `st` to be over.  1
 * when it is (its response, or its end, is queued: the whole stream can
 * be taken at once); 0 as soon as a message that is not the last is
 * queued (a progress notification, a request to the client: it must go
 * out while the call runs), the client or session is gone, or the time
 * is up. */
int http_stream_settle(http_stream *st, int wait_ms);
/* The whole of a stream whose call is over (http_stream_settle), as the
 * bytes http_stream_read would have handed out, appended to *out.  0, or
 * -1 when out of memory. */
int http_stream_take_all(http_stream *st, vt_strbuf *out);
/* JSON mode: wait for the answer.  Returns the response as the engine
 * handed it over (its text: http_answer_text; free with free()) or NULL
 * when the client went away or the session ended. */
struct msg *http_stream_wait_answer(http_stream *st, int fd);
const char *http_answer_text(const struct msg *answer);
/* Whether the answer is there and is a result (not an error). */
int http_stream_answer_ok(http_stream *st);
/* Whether the answer is already there (a request answered at once). */
int http_stream_answered(http_stream *st);
/* The connection is done with the stream: a request not yet answered is
 * cancelled (its client went away).  Drops the caller's reference. */
void http_stream_close(http_stream *st);
/* For the access log: the tool called ("" for none) and the decision
 * ("allow", "deny", "invalid", "unknown", "failed", "cancelled" or ""). */
void http_stream_outcome(http_stream *st, char *tool, size_t tool_size, const char **decision);

/* The answer goes out as JSON: a request of the call to the client
 * (elicitation, sampling) cannot be delivered and fails at once. */
void http_stream_json_only(http_stream *st);
/* The connection of a resumable SSE stream ended before the stream did:
 * hold the stream (its call running, its events logged) for
 * the resume window (http_limits.resume_s) so that its client can resume it.  Returns 1
 * when held (the call is then not cancelled by http_stream_close). */
int http_stream_detach(http_stream *st);
/* GET with Last-Event-ID: the held stream that event belongs to, set to
 * replay what followed it (*out: a reference for the connection,
 * http_stream_close).  A stream that has finished gives a stream that
 * replays what is still kept of it (its events within the resume
 * window) and then ends.  VT_ERR_INVALID for an id that is not one of
 * ours, VT_ERR_NOT_FOUND for a stream this session never had or an
 * event never sent on it, VT_ERR_BUSY when the stream's connection is
 * still open, VT_ERR_NOMEM. */
int http_stream_resume(http_session *s, const char *last_event_id, http_stream **out);

#endif
