/* Requests a provider sends its client during a tool call
 * (elicitation/create, sampling/createMessage), relayed to vthost's own
 * MCP client through the host (vt_host_api.client_request, ABI 1.3). */
#ifndef MCPP_RELAY_H
#define MCPP_RELAY_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "provider.h"

/* 1 when `method` is a request vthost relays to its client. */
int relay_method(const char *method);

/* The client capabilities to declare to a provider at initialize (a new
 * object): what vthost can relay, i.e. what its own client declared
 * (elicitation, sampling).  Before vthost's client has initialized
 * (eager start) both are declared and refused per request if the client
 * turns out not to take them; front ends without an MCP client (the
 * CLI) declare neither.  `roots` is always declared: vthost answers
 * roots/list itself with the workspace (provider.c). */
cJSON *relay_capabilities(void);

/* 1 when `call`'s client could answer `req` (its front end relays and
 * the client declared what the method needs); else relaying it would
 * only be refused, which relay_serve does at once on any thread. */
int relay_answerable(const vt_call *call, const cJSON *req);

/* Relay `req` (a request message of p, borrowed) on behalf of `call`,
 * waiting at most until `deadline` (CLOCK_MONOTONIC, the call's), and
 * answer p under the request's own id with the client's result or
 * error.  Once the deadline has passed or the call was cancelled nothing
 * reaches the client: p gets a refusal.  Runs on the call's thread. */
void relay_serve(provider *p, vt_call *call, const cJSON *req, const struct timespec *deadline);

/* Answer `req` (borrowed) with a JSON-RPC error saying `why`: nothing
 * to relay it for (no call in progress, the call ended). */
void relay_refuse(provider *p, const cJSON *req, int code, const char *why);

/* JSON-RPC codes of refusals: the client cannot take it, or the call it
 * belonged to was cancelled or timed out. */
#define RELAY_REFUSED -32000
#define RELAY_CANCELLED -32800

#endif
