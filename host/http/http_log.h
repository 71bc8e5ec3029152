/* The access log of `vthost serve --http`: one JSON object per line per
 * request, with what an operator needs (client address, session, method,
 * tool, permission decision, status, duration) and never arguments or
 * credentials. */
#ifndef VTHOST_HTTP_LOG_H
#define VTHOST_HTTP_LOG_H

typedef struct http_log_entry {
    const char *remote; /* client address */
    const char *method; /* HTTP method */
    const char *path;
    int status;
    const char *session;  /* Mcp-Session-Id, or "" */
    const char *rpc;      /* JSON-RPC method, or "" */
    const char *tool;     /* tools/call: the tool, or "" */
    const char *decision; /* tools/call: allow, deny, ... or "" */
    double ms;
} http_log_entry;

/* Log to `path` (appended, created 0600), or stderr when NULL.  Returns
 * 0, or -1 when the file cannot be opened.  Lines are written in the
 * order of their requests' ends, within HTTP_LOG_OUT_DELAY_MS
 * (http_log_out.h) of it; every line is out once http_log_close returns. */
int http_log_open(const char *path);
void http_log_write(const http_log_entry *e);
void http_log_close(void);

/* Write every line so far now: before a message that must follow them. */
void http_log_flush(void);

#endif
