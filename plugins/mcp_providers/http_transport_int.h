/* Between the parts of the Streamable HTTP transport (see
 * http_transport.c): the state it keeps per provider, and one exchange
 * with the provider's endpoint (http_xfer.c: the request sent, what
 * arrives read as JSON or as an event stream). */
#ifndef VTHOST_MCPP_HTTP_TRANSPORT_INT_H
#define VTHOST_MCPP_HTTP_TRANSPORT_INT_H

#include <curl/curl.h>
#include <pthread.h>
#include <time.h>
#include "provider.h"

#define POLL_MS 50
#define ERR_BODY_MAX 300

typedef struct conn {
    CURL *easy;
    CURLM *multi; /* holds the connection cache the next transfer reuses */
    struct conn *next;
} conn;

typedef struct http_state {
    /* guarded by p->mu */
    struct curl_slist *extra; /* configured headers + Authorization (secret);
                                  built on the first connect, then immutable */
    int extra_built;
    char *session;  /* Mcp-Session-Id */
    char *version;  /* the negotiated protocol version */
    unsigned epoch; /* bumps when the connection breaks */
    int up;         /* connected, and provider_closed not yet called */
    int inflight;   /* transfers holding a conn */
    conn *idle;
    pthread_t get;
    int get_running, get_joinable;
    int get_open; /* the GET stream's answer began */
} http_state;

typedef enum { X_POST, X_GET, X_DELETE } xfer_kind;

typedef struct xfer {
    provider *p;
    http_state *s;
    CURL *easy;
    xfer_kind kind;
    const transport_req *req; /* the request POSTed, or NULL */
    int is_init;              /* req is initialize: a new session */
    int had_session;          /* the request named a session */
    unsigned epoch;
    struct timespec deadline; /* for what nobody waits on */
    long status;
    int started, sse;
    vt_strbuf body; /* JSON body; SSE: the line being read; else error text */
    vt_strbuf data; /* SSE: the data of the event being read */
    int skip_lf, other_event;
    int stopped;   /* should_stop() said so between two messages */
    char *session; /* Mcp-Session-Id of the answer to initialize */
    char *broke;   /* a protocol failure (malloc'd) */
    char *last_id; /* SSE: the last event id the server gave */
    long retry_ms; /* SSE: the server's reconnection delay, when has_retry */
    int has_retry;
    const char *resume_from; /* GET: sent as Last-Event-ID */
} xfer;

/* ---- one exchange (http_xfer.c) ---- */

/* Whether the exchange's session is over (the connection broke since it
 * began) or the provider is stopping. */
int stale(const xfer *x);
/* One JSON text: a message, or a batch of them (2025-03-26). */
void deliver(xfer *x, const char *text, size_t len);
/* Whether the exchange is to stop: broken, stale, or its request done
 * (or past its deadline). */
int should_stop(xfer *x);
struct curl_slist *add_header(struct curl_slist *h, const char *line);
/* Run x on c.  Returns the transfer's result; *aborted when it was
 * stopped by should_stop(). */
CURLcode run(xfer *x, conn *c, const char *body, int *aborted);
void xfer_free(xfer *x);
/* The start of an error body, on one line. */
void error_text(xfer *x, char *out, size_t cap);

#endif
