/* Requests the MCP server sends to its client on behalf of a call:
 * elicitation/create (permission prompts) and sampling/createMessage
 * (the auto reviewer asking the client's model). */
#ifndef VTHOST_MCP_CLIENT_H
#define VTHOST_MCP_CLIENT_H

#include "mcp_internal.h"

/* Fill c->fe.prompt / c->fe.sample according to what the client
 * declared at initialize (left NULL otherwise). */
void mcp_client_frontend(struct mcp_server *s, mcp_call *c);

#endif
