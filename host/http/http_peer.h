/* Who is at the other end of an HTTP connection: a request that comes
 * from this vthost itself or from a process it started (one of its
 * commands, sandboxed or not, or anything such a command started) is
 * refused before anything of it is read, whatever token it carries.  A
 * command must never speak to the server that runs it: it would answer
 * its own approval prompts.
 *
 * The kernel is asked, not the request: the socket diagnostics
 * (NETLINK_SOCK_DIAG, inet_diag) name the socket at the other end of a
 * connection made on this machine, and /proc names the processes that
 * hold it and their parents.  Whatever cannot be told for certain (a
 * socket nobody holds any more, an owner that cannot be looked at, a
 * kernel without socket diagnostics) is refused when the connection
 * comes from this machine; a connection from elsewhere is served as
 * before. */
#ifndef VTHOST_HTTP_PEER_H
#define VTHOST_HTTP_PEER_H

#include <stddef.h>

/* A connection's verdict, kept with the connection (its socket context)
 * for its later requests: the socket at the other end of a TCP
 * connection is fixed when it connects, so who made it is judged once.
 * (Its holder could hand it on later, but only a holder that was
 * served, which could as well pass requests on itself.)  Each request's
 * credentials are still checked on their own. */
#define HTTP_PEER_WHY_MAX 320
typedef struct http_peer_verdict {
    int known; /* judged: rc and why hold */
    int rc;
    char why[HTTP_PEER_WHY_MAX];
} http_peer_verdict;

/* 0 when the client on the accepted TCP connection `fd` may be served;
 * VT_ERR_DENIED when it may not, with *why (at most `size` bytes) the
 * sentence that says so (the 403 answer's message), and the refusal in
 * the server log.  With `kept` (the connection's own, zeroed when it
 * was accepted), a verdict already there is the answer, and a new one
 * is kept there; NULL judges afresh. */
int http_peer_check(int fd, http_peer_verdict *kept, char *why, size_t size);

#endif
