/* subscriptions/listen (2026-07-28): a long-lived request whose answer is
 * a stream of the change notices the client opted in to.  vthost has
 * tools only, so the one notice is notifications/tools/list_changed. */
#ifndef VTHOST_MCP_LISTEN_H
#define VTHOST_MCP_LISTEN_H

#include <cjson/cJSON.h>
#include "mcp_internal.h"

/* Open a stream for request `id` (params.notifications is the filter):
 * acknowledged at once, answered only when the server ends it. */
void mcp_listen_open(struct mcp_server *s, const cJSON *id, const cJSON *params);
/* notifications/cancelled for `id`: 1 when it closed a stream. */
int mcp_listen_cancel(struct mcp_server *s, const cJSON *id);
/* The tool list changed: tell every stream that asked. */
void mcp_listen_tools_changed(struct mcp_server *s);
/* The server ends: answer every open stream (a graceful end) and drop it. */
void mcp_listen_end(struct mcp_server *s);

#endif
