/* server/discover's answers, serialized, each kept with the stamp of the
 * instructions in it (mcp_ops.instructions_stamp).  Process-wide: every
 * stateless HTTP request has an engine of its own.  Safe from any thread. */
#ifndef VTHOST_MCP_DISCOVER_CACHE_H
#define VTHOST_MCP_DISCOVER_CACHE_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include "mcp_server.h"

typedef char *(*mcp_instructions_fn)(void);

/* A raw JSON item holding the answer kept for `source` at `stamp`, or NULL
 * (none, or out of memory). */
cJSON *mcp_discover_cached(mcp_instructions_fn source, const uint64_t stamp[MCP_STAMP_WORDS]);
/* Keep a copy of `text` (the answer's JSON) for `source` at `stamp`, in
 * place of what was kept for the same client (stamp[1]). */
void mcp_discover_keep(mcp_instructions_fn source, const uint64_t stamp[MCP_STAMP_WORDS],
                       const char *text);
/* Drop every answer kept (at exit, for leak checkers). */
void mcp_discover_forget(void);

#endif
