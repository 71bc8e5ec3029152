/* The MCP server engine, independent of the host's globals so that unit
 * tests and the fuzzer can drive it with their own tool backend.
 * mcp.c binds it to the real pipeline and registry for `vthost serve`. */
#ifndef VTHOST_MCP_SERVER_H
#define VTHOST_MCP_SERVER_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "call_types.h"

/* What the engine needs from the host.  `call` is required; the others
 * may be NULL. */
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
     * during initialize, before the answer and its instructions. */
    void (*client_info)(const char *name, const char *version);
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
 * mode, where nobody reads requests).  For call_client_bind. */
unsigned mcp_server_client_caps(void *server);

void mcp_server_free(mcp_server *s);

#endif
