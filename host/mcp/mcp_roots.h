/* The client's roots (MCP roots/list), asked once after initialize when
 * the client declares the roots capability.  Protocol only: what the
 * roots mean for the workspace is serve_workspace.c's business. */
#ifndef VTHOST_MCP_ROOTS_H
#define VTHOST_MCP_ROOTS_H

#include <cjson/cJSON.h>

struct mcp_server;

/* Ask for roots at all (vthost serve without --workspace); off by default,
 * so engine tests and the fuzzer never send the request. */
void mcp_roots_enable(int on);
/* initialize: note whether the client declared the roots capability. */
void mcp_roots_initialize(const cJSON *capabilities);
/* Whether roots will be asked for (enabled, and the client declared them). */
int mcp_roots_expected(void);
/* notifications/initialized: send roots/list once, when declared. */
void mcp_roots_initialized(struct mcp_server *s);
/* A response message with id `id`: 1 when it answers our roots/list
 * (msg is then taken), 0 when it is someone else's. */
int mcp_roots_reply(cJSON *msg, const cJSON *id);
/* 2026-07-28: no server requests, so a call whose request declares roots
 * asks for them in an input_required result (mcp_input.c).  Whether the
 * roots are still wanted (enabled, the workspace not settled, nothing
 * asked or answered yet): */
int mcp_roots_open(void);
/* A client's roots/list result (borrowed), as if it answered our
 * request; ignored when they are no longer wanted. */
void mcp_roots_supply(const cJSON *list_result);
/* The workspace is settled: roots are not asked for any more. */
void mcp_roots_settled(void);
/* Wait (at most timeout_ms) for the answer.  Returns 0 when no roots were
 * asked for; 1 with *roots the client's "roots" array (owned by the
 * caller; NULL when it answered with an error, or not in time). */
int mcp_roots_wait(int timeout_ms, cJSON **roots);

#endif
