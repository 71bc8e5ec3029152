/* How a provider's JSON-RPC messages travel.  provider.c owns requests,
 * their waits and the dispatch of what arrives; a transport only moves
 * messages and says when its connection ends:
 *   stdio_transport.c  a child process, newline-delimited JSON
 *   http_transport.c   MCP Streamable HTTP (libcurl), built as a module
 *                      of its own that http_lazy.c opens on first use
 * A transport may use p->mu and p->cond for its own fields (the provider
 * lock); it calls the provider_* functions below without holding it. */
#ifndef MCPP_TRANSPORT_H
#define MCPP_TRANSPORT_H

#include <cjson/cJSON.h>
#include <time.h>

typedef struct provider provider;

/* A request whose answer its sender waits for. */
typedef struct transport_req {
    long id;
    const char *method;
} transport_req;

typedef struct transport_ops {
    const char *name; /* "stdio", "http": the status's "transport" */
    /* Connect (start the child); the provider is STARTING and its lock
     * not held.  On success the transport has called
     * provider_connected().  Returns 0, or a negative status with *err
     * (malloc'd). */
    int (*open)(provider *p, char **err);
    /* Send one message (`text` borrowed).  `req` is non-NULL when the
     * message is a request.  A transport that carries the answer on the
     * request's own exchange (HTTP) delivers it with provider_receive()
     * and returns once provider_req_done() says nobody waits any more.
     * Returns 0, or -1 when the message was not sent. */
    int (*send)(provider *p, const char *text, const transport_req *req);
    /* Break the connection (the provider misbehaved or hung); returns
     * once provider_closed() has run.  p->reason already says why. */
    void (*fail)(provider *p);
    /* vthost ends: close for good (politely first), and wait for it. */
    void (*stop)(provider *p);
    /* Free the transport's state (p->tp_state); p is not connected. */
    void (*destroy)(provider *p);
    /* Add the transport's fields ("command", "endpoint") to a status
     * object; called with the provider lock held. */
    void (*describe)(const provider *p, cJSON *status);
    /* 1 when send() of a request returns only once it is answered (HTTP):
     * the caller's thread cannot relay what arrives for its call
     * elsewhere (a GET stream) meanwhile, so that is relayed where it
     * arrives. */
    int answers_on_send;
} transport_ops;

extern const transport_ops stdio_transport;
/* What config.c gives HTTP providers: http_lazy.c's forwarders to the
 * libcurl transport in the module (a start without an HTTP provider
 * never maps libcurl and its thirty libraries). */
extern const transport_ops http_transport;
/* The libcurl transport itself (http_transport.c). */
extern const transport_ops http_curl_transport;

/* ---- what transports call (provider.c) ---- */

/* One message from the provider; `msg` is taken.  Returns -1 when it is
 * not a JSON-RPC message (the transport then fails the provider). */
int provider_receive(provider *p, cJSON *msg);
/* The connection is up: requests may be sent. */
void provider_connected(provider *p);
/* The connection ended: every waiting request fails with `why` (or the
 * reason provider_fail gave).  Unless vthost is stopping, the provider
 * becomes FAILED (restarted on its next use) or, with `cannot_run`,
 * DISABLED (retrying will not help). */
void provider_closed(provider *p, const char *why, int cannot_run);
/* 1 when nobody waits for the answer to request `id` any more: it was
 * answered, its caller cancelled, its time ran out, or vthost stops. */
int provider_req_done(provider *p, long id);
/* Request `id` failed on its own (the provider stays connected): its
 * caller gets `why`. */
void provider_req_failed(provider *p, long id, const char *why);

/* ---- the HTTP transport's module (mcp_providers.d/http-transport.mod) ---- */

/* The provider functions above, and the plugin's host API, handed to the
 * module when it is bound: the plugin is opened RTLD_LOCAL, so the module
 * cannot link against its symbols.  Plugin and module ship together. */
typedef struct provider_calls {
    int (*receive)(provider *p, cJSON *msg);
    void (*connected)(provider *p);
    void (*closed)(provider *p, const char *why, int cannot_run);
    int (*req_done)(provider *p, long id);
    void (*req_failed)(provider *p, long id, const char *why);
    void (*deadline)(struct timespec *t, int ms);
    int (*past)(const struct timespec *t);
    const struct vt_host_api *api;
} provider_calls;

/* Bound once; returns the module's &http_curl_transport.  `calls` is
 * borrowed for the life of the process. */
typedef const transport_ops *(*mcpp_http_entry_fn)(const provider_calls *calls);
#define MCPP_HTTP_ENTRY_SYMBOL "mcpp_http_transport_v1"
/* Relative to the directory of mcp_providers.so. */
#define MCPP_HTTP_MODULE_PATH "mcp_providers.d/http-transport.mod"

#endif
