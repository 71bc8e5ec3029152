/* The HTTP side of the proxy: a request head read by a client of the
 * proxy, parsed with the kept http-parser library (the one place that
 * calls it), and the head sent on to the origin server. */
#ifndef VTHOST_EXEC_NETPROXY_HTTP_H
#define VTHOST_EXEC_NETPROXY_HTTP_H

#include <stddef.h>

#define NETPROXY_HEAD_MAX (64 * 1024)

typedef struct netproxy_request {
    int connect;    /* CONNECT host:port: a tunnel */
    char host[256]; /* as the request names it (a name or an address) */
    unsigned port;
    char *head; /* plain requests: the head for the origin server (origin-form
                        target, Host from the URL, the proxy's headers dropped,
                        Connection: close), malloc'd; NULL for CONNECT */
    size_t head_len;
    size_t consumed; /* bytes of the input the head took */
} netproxy_request;

/* `buf` holds what the client sent so far.  1: the head is complete and
 * *req is filled (free req->head); 0: more is needed; -1: not a request
 * the proxy serves, *why says why (static text). */
int netproxy_http_parse(const char *buf, size_t len, netproxy_request *req, const char **why);

#endif
