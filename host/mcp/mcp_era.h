/* The two eras of MCP on one engine: 2026-07-28 requests carry their
 * protocol version, client info and capabilities in params._meta and are
 * served statelessly; everything else is the 2025 era (initialize
 * settles the version and the capabilities for the connection). */
#ifndef VTHOST_MCP_ERA_H
#define VTHOST_MCP_ERA_H

#include <cjson/cJSON.h>
#include "mcp_internal.h"

#define MCP_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT "io.modelcontextprotocol/clientInfo"
#define MCP_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define MCP_META_SERVER "io.modelcontextprotocol/serverInfo"
#define MCP_META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"

/* The versions initialize negotiates, newest first (2025 era). */
extern const char *const mcp_legacy_versions[];
extern const size_t mcp_legacy_version_count;

/* Read a request's per-request fields into *m.  Returns 0: a 2025-era
 * request (m->modern 0), or a 2026-07-28 request whose version this
 * server speaks and whose fields are well-formed.  Otherwise answers the
 * request itself (-32022 with the supported versions, -32602 naming the
 * malformed field, -32020 for a header that disagrees) and returns -1. */
int mcp_era_read(struct mcp_server *s, const cJSON *id, const cJSON *params, const mcp_msg_ctx *ctx,
                 mcp_meta *m);

/* A 2026-07-28 result: resultType (`type`, "complete" when NULL) and the
 * server's identity in _meta.  Returns result. */
cJSON *mcp_era_result(cJSON *result, const char *type);

/* The call this thread runs (set by mcp_call_run around the tool), so
 * that a log line it writes goes to that call's client when its request
 * asked for log messages (2026-07-28 _meta logLevel); NULL outside. */
void mcp_era_enter(mcp_call *c);
mcp_call *mcp_era_current(void);

/* A form-mode elicitation's answer as a client gives it: PROMPT_* of
 * call_types.h (an accept without "approve" is a denial). */
int mcp_era_decision(const cJSON *elicit_result);

#endif
