/* The MCP server front end: `vthost serve`. */
#ifndef VTHOST_MCP_H
#define VTHOST_MCP_H

/* Serve MCP over stdin/stdout until EOF or SIGTERM/SIGINT.  The host is
 * already open (host_open).  Returns the process exit code. */
int mcp_serve(void);

/* --catalog MODE: auto, full or deferred (see docs/clients.md).  Returns
 * 0, or -1 for another value.  The mode is kept by pointer. */
int mcp_set_catalog_mode(const char *mode);
/* Whether a client that names itself `name` (clientInfo, may be NULL)
 * gets the whole catalog listed up front: --catalog, else [mcp] catalog,
 * else auto (the clients known never to re-list).  When auto chose it,
 * a notice on stderr says so. */
int mcp_catalog_full_for(const char *name, const char *version);

struct mcp_ops;
/* The engine's binding to the host (pipeline, registry, rendering,
 * instructions), for another transport of the same server. */
void mcp_host_ops(struct mcp_ops *ops);
/* [mcp] max_concurrent_calls, or 0 for the engine's default. */
int mcp_host_max_calls(void);
/* [mcp] approval_timeout_seconds in ms, or 0 for the engine's default
 * (mcp_server_set_input_ttl). */
int mcp_host_input_ttl_ms(void);

#endif
