/* Resumable SSE streams (MCP 2025-11-25 Streamable HTTP, "Resumability
 * and Redelivery"): every event of a stream carries an id
 * "<stream>-<seq>", the stream opens with a priming event (an id, a
 * `retry` field and empty data), and the events already handed to the
 * connection are kept in a bounded log, so that a client reconnecting
 * with GET and `Last-Event-ID` gets the events after that id again and
 * then the rest live.
 *
 * The log keeps at most HTTP_SSE_LOG_EVENTS events and HTTP_SSE_LOG_BYTES
 * bytes (the newest event always, whatever its size); the oldest go
 * first.  A client that stays away long enough for events to be dropped
 * resumes at the oldest one kept.  Not thread-safe: the stream's owner
 * locks. */
#ifndef VTHOST_HTTP_SSE_H
#define VTHOST_HTTP_SSE_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_SSE_LOG_EVENTS 256
#define HTTP_SSE_LOG_BYTES ((size_t)1024 * 1024)
/* The reconnection delay clients are told (SSE `retry`, milliseconds). */
#define HTTP_SSE_RETRY_MS 1000
/* Streams one session holds for a resume at once; beyond, a dropped
 * stream's call is cancelled as before. */
#define HTTP_SSE_MAX_HELD 16

typedef struct http_sse_log http_sse_log;

/* A log for stream number `stream`; NULL when out of memory. */
http_sse_log *http_sse_log_new(unsigned stream);
void http_sse_log_free(http_sse_log *l);

/* The priming event (malloc'd, its length in *len): id "<stream>-0",
 * retry, empty data.  NULL when out of memory. */
char *http_sse_priming(http_sse_log *l, size_t *len);
/* `text` (one JSON-RPC message, `n` bytes) as the stream's next event,
 * kept in the log; returns a malloc'd copy to write (length in *len) or
 * NULL when out of memory. */
char *http_sse_event(http_sse_log *l, const char *text, size_t n, size_t *len);
/* The same, written from the log itself (no copy): the event is pinned
 * (never trimmed) until http_sse_unpin; http_sse_pinned gives its text
 * (NULL when none is pinned), valid while pinned.  0 or VT_ERR_NOMEM. */
int http_sse_event_pinned(http_sse_log *l, const char *text, size_t n);
const char *http_sse_pinned(const http_sse_log *l, size_t *len);
void http_sse_unpin(http_sse_log *l);
/* Log `text` as the next event without handing it out (the connection
 * is gone; a resume replays it). */
int http_sse_keep(http_sse_log *l, const char *text, size_t n);

/* A Last-Event-ID value: its stream number and sequence.  0, or
 * VT_ERR_INVALID when it is not one of ours. */
int http_sse_parse_id(const char *id, unsigned *stream, uint64_t *seq);
/* Replay what came after event `seq`: the following http_sse_replay
 * calls return those events.  VT_ERR_NOT_FOUND when `seq` was never
 * sent on this stream. */
int http_sse_rewind(http_sse_log *l, uint64_t seq);
/* The next event to replay (malloc'd, length in *len), or NULL when
 * replay has caught up. */
char *http_sse_replay(http_sse_log *l, size_t *len);

#endif
