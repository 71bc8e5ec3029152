/* Shared state of the MCP engine's files.  Not for use outside
 * host/mcp/mcp_*.c.  The files call each other in one direction only,
 * lowest first (a file calls only files before it):
 *   mcp_reader, mcp_id, mcp_stop
 *   <- mcp_out <- mcp_tasks
 *   <- mcp_roots, mcp_session, mcp_client
 *   <- mcp_call <- mcp_dispatch <- mcp_server, mcp_transport
 * and, outside the engine, serve_workspace (roots) <- mcp.c (binding). */
#ifndef VTHOST_MCP_INTERNAL_H
#define VTHOST_MCP_INTERNAL_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "call_types.h"
#include "mcp_reader.h"
#include "mcp_server.h"

/* JSON-RPC error codes. */
#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602
#define RPC_INTERNAL_ERROR -32603
#define RPC_SERVER_BUSY -32000 /* implementation-defined server error */
/* MCP's own codes (2026-07-28: -32020 to -32099 are the specification's). */
#define RPC_HEADER_MISMATCH -32020
#define RPC_UNSUPPORTED_VERSION -32022

/* Default bound on concurrently running tools/call ([mcp]
 * max_concurrent_calls); beyond it a call is answered at once with a busy
 * error instead of another thread. */
#define MCP_MAX_CALLS 128
/* Output queue bounds.  Past OUT_SOFT queued bytes the leader stops
 * reading requests until the client has read enough (backpressure); past
 * OUT_HARD a finishing call waits for room (its thread is still counted
 * among the running calls, so threads stay bounded too). */
#define MCP_OUT_SOFT ((size_t)1 * 1024 * 1024)
#define MCP_OUT_HARD ((size_t)32 * 1024 * 1024)
/* Keep every message under the MCP clients' 10 MiB limit. */
#define MCP_MAX_MESSAGE ((size_t)10 * 1024 * 1024 - 4096)

/* One tools/call in flight. */
typedef struct mcp_call {
    struct mcp_call *next;
    struct mcp_server *srv;
    cJSON *msg; /* the request; owns everything below */
    const cJSON *id;
    const char *tool;
    const cJSON *args;
    const cJSON *progress_token;
    const char *agent;
    atomic_int cancel;    /* call_request.cancel */
    int cancelled;        /* under srv->lock: send no response */
    pthread_mutex_t mu;   /* orders progress before the response */
    int finished;         /* under mu: no more progress */
    double last_progress; /* under mu */
    frontend fe;
    /* A 2026-07-28 request (mcp_era.h): answered statelessly, its
     * questions to the client as input_required (mcp_input.c). */
    int modern;
    int log_level;        /* modern: _meta logLevel as an index, -1 none */
    char *principal;      /* who sent it (mcp_msg_ctx), malloc'd */
    struct mcp_input *in; /* modern only */
    /* 2025 era: the session's clientInfo, copied for the call (fe's
     * client_name and client_version point here or into msg). */
    char *client_name, *client_version;
    struct mcp_task *task; /* under srv->lock: the task it runs as, or NULL */
} mcp_call;

/* Where a message came from: given by the front end with each message. */
typedef struct mcp_msg_ctx {
    const char *principal;      /* the authenticated client ("local" on stdio) */
    const char *header_version; /* HTTP MCP-Protocol-Version, or NULL */
} mcp_msg_ctx;

/* The per-request fields of a 2026-07-28 request (mcp_era.c). */
typedef struct mcp_meta {
    int modern;              /* _meta names a protocol version */
    const char *version;     /* which (a supported one once read) */
    const cJSON *caps;       /* io.modelcontextprotocol/clientCapabilities */
    const char *client_name; /* io.modelcontextprotocol/clientInfo, or NULL */
    const char *client_version;
    int log_level; /* io.modelcontextprotocol/logLevel as an index, -1 when absent */
} mcp_meta;

/* A subscriptions/listen stream (mcp_listen.c). */
typedef struct mcp_sub {
    struct mcp_sub *next;
    cJSON *id; /* the listen request's id, copied */
    int tools; /* toolsListChanged */
} mcp_sub;

/* A request the server sent to the client (elicitation, sampling). */
typedef struct mcp_pending {
    struct mcp_pending *next;
    double id;
    cJSON *reply; /* the client's response message */
    int done;
} mcp_pending;

struct mcp_server {
    mcp_ops ops;
    int out_fd;
    int wake[2];      /* self-pipe: stop requests, signals */
    mcp_reader rd;    /* used only by the current leader */
    int inline_calls; /* memory mode: no threads, no prompts */

    /* The output queue, drained by one writer thread (or written
     * directly in memory mode and before the writer starts). */
    pthread_mutex_t wlock;    /* everything in this block */
    pthread_cond_t out_cond;  /* writer: something queued, or stop */
    pthread_cond_t room_cond; /* producers: the queue shrank */
    struct mcp_out_msg *out_head, *out_tail;
    size_t out_bytes; /* queued, not yet written */
    int out_dead;     /* output broken: drop everything */
    int writer_running, writer_stop;
    pthread_t writer;
    int out_wake[2]; /* wakes the writer out of poll() */
    int max_calls;   /* [mcp] max_concurrent_calls */
    /* Transport mode (mcp_transport.c): every message goes to sink on
     * the sending thread instead of the queue; no reader, no writer. */
    mcp_sink_fn sink;
    void *sink_ud;

    pthread_mutex_t lock;      /* everything below */
    pthread_cond_t reply_cond; /* waiters for client replies */
    pthread_cond_t exit_cond;  /* worker threads ending */
    int has_leader, threads, stopping;
    int waiting;      /* threads waiting for input in epoll_wait (mcp_server.c) */
    int ep;           /* that epoll: the input (one-shot), the wake pipe, kick */
    int kick;         /* eventfd: a waiter must lead now, or -1 */
    int input_polled; /* the input is in the epoll (else: always readable) */
    atomic_int ready; /* an input event no read has used yet (mcp_reader) */
    int ncalls;
    mcp_call *calls;
    mcp_pending *pending;
    long next_request_id;

    atomic_int stop_requested;          /* mcp_server_stop: cancel, don't drain */
    atomic_int log_level;               /* notifications/message threshold */
    atomic_int initialized;             /* initialize answered */
    int cap_elicitation, cap_sampling;  /* set once by initialize */
    int cap_elicitation_url, cap_roots; /* likewise */
    char *client_name, *client_version; /* initialize's clientInfo, malloc'd or NULL */
    struct mcp_task *tasks;             /* mcp_tasks.c: this session's tasks */

    /* Structured output (mcp_server_set_output): each message goes to
     * front as kind, id and payload instead of sink or the queue. */
    mcp_out_fn front;
    void *front_ud;
    mcp_sub *subs;          /* under lock: open subscriptions/listen streams */
    int catalog_settled;    /* under lock: ops.client_info told once */
    atomic_int modern_seen; /* a 2026-07-28 request came: it accepts no requests */
    int input_ttl_ms;       /* how long a requestState is good for */
};

/* An engine with no input and no self-pipe (mcp_server.c): a front
 * end's, or the start of mcp_server_new's.  NULL when out of memory. */
struct mcp_server *mcp_server_alloc(const mcp_ops *ops);
/* Wake the reader's poll, when there is a reader (mcp_stop.c). */
void mcp_server_wake(struct mcp_server *s);

/* ---- output (mcp_out.c); each takes ownership of the cJSON passed ---- */
/* Start the writer thread; until then (and in memory mode) sends write
 * directly.  Returns 0 or -1. */
int mcp_out_start(struct mcp_server *s);
/* Let the writer flush for up to ms, then stop and join it. */
void mcp_out_finish(struct mcp_server *s, int ms);
/* The leader's backpressure: wait while more than MCP_OUT_SOFT bytes are
 * queued.  Returns early on a stop request or broken output. */
void mcp_out_wait_room(struct mcp_server *s);
/* Write one message.  Returns 0, or -1 once the output is broken. */
int mcp_send(struct mcp_server *s, cJSON *msg);
/* Write one already serialised message (no newline in it). */
int mcp_send_text(struct mcp_server *s, const char *text, size_t len);
void mcp_send_result(struct mcp_server *s, const cJSON *id, cJSON *result);
void mcp_send_error(struct mcp_server *s, const cJSON *id, int code, const char *message);
void mcp_send_notification(struct mcp_server *s, const char *method, cJSON *params);
/* An error with a "data" member (taken). */
void mcp_send_error_data(struct mcp_server *s, const cJSON *id, int code, const char *message,
                         cJSON *data);
/* A result that settles the protocol version (initialize): the front
 * end is told `version` with it. */
void mcp_send_result_version(struct mcp_server *s, const cJSON *id, cJSON *result,
                             const char *version);
/* Deliver a message already serialised as `text` (msg and text
 * borrowed).  Returns as mcp_send. */
int mcp_send_built(struct mcp_server *s, const cJSON *msg, const char *text, size_t len);

/* ---- dispatch (mcp_dispatch.c) ---- */
/* Handle one input line.  A tools/call to run is registered and
 * returned in *call (run it with mcp_call_run); everything else is
 * answered here. */
void mcp_dispatch_line(struct mcp_server *s, const char *line, size_t len, mcp_call **call);
/* The same for a parsed message (taken), from `ctx`. */
void mcp_dispatch_message(struct mcp_server *s, cJSON *msg, const mcp_msg_ctx *ctx,
                          mcp_call **call);

/* ---- calls (mcp_call.c) ---- */
/* Validate a tools/call request (takes ownership of msg).  Returns a
 * registered call, or NULL after answering the request itself. */
mcp_call *mcp_call_start(struct mcp_server *s, cJSON *msg, const cJSON *id, const cJSON *params,
                         const mcp_meta *meta, const mcp_msg_ctx *ctx);
/* Run the call, answer it (unless cancelled), unregister and free it. */
void mcp_call_run(struct mcp_server *s, mcp_call *c);
/* notifications/cancelled for request `id`. */
void mcp_call_cancel(struct mcp_server *s, const cJSON *id);
/* Cancel everything (shutdown); caller holds s->lock. */
void mcp_call_cancel_all_locked(struct mcp_server *s);

/* ---- client requests (mcp_client.c) ---- */
/* A response to one of the server's own requests (takes msg). */
void mcp_call_reply(struct mcp_server *s, cJSON *msg, const cJSON *id);

/* ---- ids (mcp_id.c) ---- */
/* JSON-RPC ids are equal when both are equal strings or equal numbers. */
int mcp_id_equal(const cJSON *a, const cJSON *b);
/* A copy of a request id or progress token that prints exactly as an
 * integer was sent (cJSON alone rounds past 15 digits). */
cJSON *mcp_id_copy(const cJSON *id);

#endif
