/* Requests the MCP server sends to its client on behalf of a call:
 * elicitation/create (permission prompts) and sampling/createMessage
 * (the auto reviewer asking the client's model). */
#ifndef VTHOST_MCP_CLIENT_H
#define VTHOST_MCP_CLIENT_H

#include "mcp_internal.h"

/* Fill c->fe.prompt / c->fe.sample according to what the client
 * declared at initialize (left NULL otherwise). */
void mcp_client_frontend(struct mcp_server *s, mcp_call *c);

/* The elicitation/create params of a permission question (`request`:
 * tool, subjects, rule, message): a form with one "decision" field,
 * approve or deny; `modern` names the choices the 2026-07-28 way.
 * NULL when out of memory. */
cJSON *mcp_client_approval_params(const cJSON *request, int modern);
/* The sampling/createMessage params of one question to the model. */
cJSON *mcp_client_sampling_params(const char *system_prompt, const char *user_text,
                                  const char *model_hint);
/* The text of a sampling result's content (one block or an array),
 * malloc'd, or NULL when it has none. */
char *mcp_client_sampled_text(const cJSON *content);

#endif
