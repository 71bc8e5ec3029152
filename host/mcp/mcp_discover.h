/* The 2026-07-28 server methods that need no call: server/discover and
 * tools/list, each answered from the request alone. */
#ifndef VTHOST_MCP_DISCOVER_H
#define VTHOST_MCP_DISCOVER_H

#include <cjson/cJSON.h>
#include "mcp_internal.h"

/* Tell ops.client_info the client's name once, on its first request
 * (2026-07-28 clients never initialize): it settles the catalog mode. */
void mcp_discover_settle(struct mcp_server *s, const mcp_meta *m);

void mcp_discover(struct mcp_server *s, const cJSON *id);
void mcp_discover_tools_list(struct mcp_server *s, const cJSON *id, const cJSON *params);

#endif
