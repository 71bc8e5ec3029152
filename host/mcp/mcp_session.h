/* MCP session methods: initialize, tools/list, logging/setLevel. */
#ifndef VTHOST_MCP_SESSION_H
#define VTHOST_MCP_SESSION_H

#include <cjson/cJSON.h>

struct mcp_server;

void mcp_session_initialize(struct mcp_server *s, const cJSON *id, const cJSON *params);
void mcp_session_tools_list(struct mcp_server *s, const cJSON *id, const cJSON *params);
void mcp_session_set_level(struct mcp_server *s, const cJSON *id, const cJSON *params);

#endif
