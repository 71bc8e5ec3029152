/* The MCP server engine, independent of the host's globals so that unit
 * tests and the fuzzer can drive it with their own tool backend.
 * mcp.c binds it to the real pipeline and registry for `vthost serve`. */
#ifndef VTHOST_MCP_SERVER_H
#define VTHOST_MCP_SERVER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include "call_types.h"

/* What the engine needs from the host.  `call` is required; the others
 * may be NULL. */
/* The words of an instructions stamp (mcp_ops.instructions_stamp). */
#define MCP_STAMP_WORDS 3

typedef struct mcp_ops {
    /* Run one tool call (pipeline_call). */
    int (*call)(const call_request *req, call_result *out);
    /* A new JSON array of MCP tool descriptions for tools/list. */
    cJSON *(*list_tools)(void);
    /* A readable text rendering of a response (malloc'd), or NULL to
     * use the compact JSON text. */
    char *(*render)(const char *tool, const cJSON *response);
    /* The initialize result's instructions (malloc'd), or NULL. */
    char *(*instructions)(void);
    /* Told the client's clientInfo name and version (either may be NULL)
     * during initialize, before the answer and its instructions; for a
     * 2026-07-28 client, on its first request. */
    void (*client_info)(const char *name, const char *version);
    /* How long a 2026-07-28 client may take tools/list as fresh (its
     * ttlMs hint), in ms; NULL: 0, always re-list. */
    int (*list_ttl_ms)(void);
    /* What the instructions depend on: equal stamps, equal instructions
     * (server/discover answers from its cache while the stamp holds).
     * Read before the instructions it vouches for.  NULL: no cache. */
    void (*instructions_stamp)(uint64_t stamp[MCP_STAMP_WORDS]);
} mcp_ops;

typedef struct mcp_server mcp_server;

/* A server reading requests from in_fd and writing to out_fd (both
 * borrowed, never closed here).  NULL on allocation failure. */
mcp_server *mcp_server_new(int in_fd, int out_fd, const mcp_ops *ops);

/* At most n tools/call run at once (default 128); more are answered at
 * once with a busy error.  Call before mcp_server_run. */
void mcp_server_set_max_calls(mcp_server *s, int n);

/* Serve until input ends, mcp_server_stop(), or the output breaks.
 * Calls run concurrently.  After end of input, calls already running get
 * drain_ms to finish and answer; then (or at once after a stop request)
 * they are cancelled and given grace_ms to end.  Returns 0, or -1 when
 * some call was still running after that (the server must then be
 * leaked, not freed, since that thread still uses it). */
int mcp_server_run(mcp_server *s, int drain_ms, int grace_ms);

/* Process every line of a memory buffer, each call inline, then return
 * (the fuzzer's entry point: reader + dispatcher without threads).
 * Prompts and sampling are unavailable in this mode. */
void mcp_server_run_mem(mcp_server *s, const void *data, size_t len);

/* A 2026-07-28 requestState is good for `ms` (default 600000: a person
 * answers the approval in that time).  Call before serving. */
void mcp_server_set_input_ttl(mcp_server *s, int ms);

/* Ask a running server to stop.  Async-signal-safe. */
void mcp_server_stop(mcp_server *s);

/* A host_log sink: forwards lines at or above the client's
 * logging/setLevel as notifications/message (after initialize). */
void mcp_server_log(void *server, int level, const char *who, const char *msg);

/* Tell the client (once initialized) that the listed tools changed:
 * notifications/tools/list_changed.  Thread-safe. */
void mcp_server_tools_changed(void *server);

/* What the client declared at initialize, as VT_CLIENT_* bits of
 * vthost/plugin.h (VT_CLIENT_PENDING before initialize; 0 in memory
 * mode, where nobody reads requests, and for a 2026-07-28 client, which
 * is sent no requests).  For call_client_bind. */
unsigned mcp_server_client_caps(void *server);

void mcp_server_free(mcp_server *s);

/* ---- transport mode (mcp_transport.c): a front end that does its own
 * reading and writing (HTTP) drives one engine per client session ---- */

/* Receives each outgoing message (one serialised JSON-RPC message,
 * borrowed for the call) on the thread that sends it.  Returns 0, or -1
 * when the message could not be delivered. */
typedef int (*mcp_sink_fn)(void *ud, const char *text, size_t len);

/* A tools/call accepted by mcp_server_handle, to be run by the caller. */
struct mcp_call;

/* An engine without descriptors: messages go to sink(ud, ...).  NULL on
 * allocation failure.  Free with mcp_server_free once mcp_server_end has
 * been called and mcp_server_running says 0. */
mcp_server *mcp_server_new_sink(const mcp_ops *ops, mcp_sink_fn sink, void *ud);
/* Handle one message of `len` bytes (borrowed).  Answers (through the
 * sink, on this thread) everything but a tools/call, which is registered
 * and returned in *call for mcp_server_run_call (on any thread). */
void mcp_server_handle(mcp_server *s, const char *text, size_t len, struct mcp_call **call);
/* Run a call from mcp_server_handle, answer it (unless cancelled) and
 * free it. */
void mcp_server_run_call(mcp_server *s, struct mcp_call *call);
/* As notifications/cancelled for request `id` (borrowed): the call's
 * client went away. */
void mcp_server_cancel(mcp_server *s, const cJSON *id);
/* The session ends: cancel every call, fail every wait for a client
 * reply, accept no more client requests. */
void mcp_server_end(mcp_server *s);
/* Calls registered and not yet finished. */
int mcp_server_running(mcp_server *s);

/* ---- structure between the engine and its front ends ---- */

/* The protocol revision of the stateless era, and whether a parsed
 * message belongs to it: a request or notification whose params._meta
 * names a protocol version (io.modelcontextprotocol/protocolVersion).
 * Everything else is the 2025 era (initialize, sessions). */
#define MCP_MODERN_VERSION "2026-07-28"
int mcp_message_is_modern(const cJSON *msg);

/* What a message out of the engine is. */
typedef enum mcp_out_kind {
    MCP_OUT_RESULT = 1,       /* a response with "result" */
    MCP_OUT_ERROR = 2,        /* a response with "error" */
    MCP_OUT_NOTIFICATION = 3, /* progress, log lines, list changes, acknowledgements */
    MCP_OUT_REQUEST = 4       /* to the client (2025 era only: elicitation, sampling, roots) */
} mcp_out_kind;

/* One outgoing message, everything borrowed for the call. */
typedef struct mcp_out {
    mcp_out_kind kind;
    /* RESULT, ERROR: the id of the request answered (NULL for an error
     * to a message whose id could not be read); REQUEST: its own id;
     * NOTIFICATION: NULL (progress names its call by the progressToken
     * in the payload, a subscription's notice by its _meta). */
    const cJSON *id;
    const char *method;   /* NOTIFICATION, REQUEST */
    const cJSON *payload; /* the result, the error object, or the params (may be NULL) */
    /* The protocol version a result settles: initialize's negotiated
     * version; NULL for every other message. */
    const char *version;
    const char *text; /* the whole message, serialised (no newline) */
    size_t len;
} mcp_out;

/* Receives each outgoing message on the thread that sends it.  Returns
 * 0, or -1 when it could not be delivered. */
typedef int (*mcp_out_fn)(void *ud, const mcp_out *out);

/* Deliver every outgoing message to fn (instead of the sink, or the
 * descriptor) from now on.  Call before the first message. */
void mcp_server_set_output(mcp_server *s, mcp_out_fn fn, void *ud);

/* Handle one parsed message (taken: freed here or by the call).
 * principal names the authenticated client (a static token's owner, an
 * OAuth iss+sub; NULL: "local"): a 2026-07-28 requestState is good only
 * for the principal it was issued to.  header_version is an HTTP
 * MCP-Protocol-Version header (NULL when there is none): a modern
 * request whose _meta names another version is refused (-32020).
 * Answers everything through the output but a tools/call, which is
 * registered and returned in *call for mcp_server_run_call. */
void mcp_server_handle_json(mcp_server *s, cJSON *msg, const char *principal,
                            const char *header_version, struct mcp_call **call);

#endif
