/* The HTTP front end: `vthost serve --http`, the MCP engine over the
 * Streamable HTTP transport, one engine per client session. */
#ifndef VTHOST_HTTP_H
#define VTHOST_HTTP_H

/* Serve MCP over HTTP on `listen` (ADDR:PORT; NULL: 127.0.0.1:8765) until
 * SIGTERM/SIGINT.  `token_file` (may be NULL) overrides the default token
 * file.  The host is already open.  Returns the process exit code. */
int http_serve(const char *listen, const char *token_file);

#endif
