/* Who may hold a connection of `vthost serve --http` open, and for how
 * long: a client that has not authenticated gets a bounded time to send
 * its request's headers (header_timeout_seconds) and shares a bounded
 * number of connections with every other such client
 * (max_unauthenticated_connections), so strangers trickling bytes or
 * sitting idle cannot shut the user's clients out.
 *
 * The server reports each connection's steps: accepted and closed (the
 * connection-notification callback), a request's headers complete, the
 * request authenticated, the request done. */
#ifndef VTHOST_HTTP_GUARD_H
#define VTHOST_HTTP_GUARD_H

#include <stddef.h>
#include <sys/socket.h>
#include "http_peer.h"
#include "mhd_lib.h"

typedef struct http_guard_limits {
    int header_timeout_s; /* headers complete within this, until authenticated */
    int max_unauthenticated;
} http_guard_limits;

/* Before the daemon starts. */
void http_guard_init(const mhd_lib *lib, const http_guard_limits *lim);

/* A connection accepted (MHD_CONNECTION_NOTIFY_STARTED) or closed
 * (MHD_CONNECTION_NOTIFY_CLOSED); *socket_context is the guard's. */
void http_guard_connection(struct MHD_Connection *c, void **socket_context,
                           enum MHD_ConnectionNotificationCode code);

/* Where the connection keeps the verdict on who is at its other end
 * (http_peer_check), for its own thread; NULL for a connection the
 * guard does not hold (out of memory when it was accepted: shut down). */
http_peer_verdict *http_guard_peer(struct MHD_Connection *c);

/* The connection's peer address as text (no port), for the access log:
 * formatted when the connection was accepted.  NULL for a connection the
 * guard does not hold. */
const char *http_guard_peer_text(struct MHD_Connection *c);

/* An IPv4 or IPv6 address as text into out[size] ("" for another
 * family). */
void http_guard_address_text(const struct sockaddr *sa, char *out, size_t size);

/* A request's headers are complete: its deadline no longer runs. */
void http_guard_request(struct MHD_Connection *c);

/* The request carried valid credentials: the connection no longer
 * counts as a stranger's, and later requests on it have no header
 * deadline (connection_timeout_seconds still closes it when idle). */
void http_guard_authenticated(struct MHD_Connection *c);

/* The request was answered: on a connection that never authenticated,
 * the next request's header deadline starts now. */
void http_guard_request_done(struct MHD_Connection *c);

/* Close the connections past their header deadline, and say on stderr
 * how many were closed since the last sweep and why.  Call about once a
 * second. */
void http_guard_sweep(void);

#endif
