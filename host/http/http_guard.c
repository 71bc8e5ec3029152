/* Connection guard of `vthost serve --http`: see http_guard.h.
 *
 * Why a table and a sweep: libmicrohttpd's connection timeout
 * (MHD_OPTION_CONNECTION_TIMEOUT, and the per-connection
 * MHD_CONNECTION_OPTION_TIMEOUT) counts from the last byte received, so
 * a client sending one header byte every few seconds keeps its
 * connection forever, and 0.9.75 has no option bounding the header phase
 * as a whole.  So every connection is recorded when it is accepted, with
 * the time its current request's header phase began; the server's
 * once-a-second loop closes those whose headers are still incomplete
 * after header_timeout_seconds.  Closing is shutdown(2) on the socket,
 * done under the table's lock: libmicrohttpd reports the connection
 * closed (and only then closes the descriptor) under the same lock, so a
 * recycled descriptor is never hit.  The connection's own thread then
 * reads end-of-file and cleans up as for a client that left.
 *
 * The cap on unauthenticated connections makes room rather than refuses:
 * a new connection over the cap closes the oldest connection still
 * waiting for headers at the address holding the most of them, so a
 * stranger's flood evicts its own connections first and a client that
 * sends its headers at once is always served. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "http_guard.h"
#include "monotime.h"

typedef struct conn {
    struct conn *prev, *next;
    int fd;
    struct sockaddr_storage peer;
    int64_t since_us; /* the current header phase began */
    int in_request;   /* headers complete, request not yet answered */
    int authed;
    int closing; /* shut down by the guard, not yet reported closed */
    /* Who is at the other end, judged at the first request; only the
     * connection's own thread touches it (no lock). */
    http_peer_verdict verdict;
    /* The peer's address as the access log writes it, formatted once
     * when the connection is accepted, before its thread starts (an
     * inet_ntop, which formats with sprintf, was one per request). */
    char peer_text[INET6_ADDRSTRLEN];
} conn;

static const mhd_lib *M;
static http_guard_limits limits;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static conn *head;
static int n_unauth;             /* entries neither authenticated nor closing */
static int n_expired, n_evicted; /* since the last sweep's report */

void http_guard_init(const mhd_lib *lib, const http_guard_limits *lim)
{
    M = lib;
    limits = *lim;
}

/* The address part of a peer (no port), for comparing. */
static int same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return 1;
}

static int waiting(const conn *e) { return !e->authed && !e->in_request && !e->closing; }

/* Close e's connection (under the lock). */
static void shut(conn *e)
{
    e->closing = 1;
    n_unauth--;
    shutdown(e->fd, SHUT_RDWR);
}

/* Over the cap: the oldest waiting connection of the address holding
 * the most waiting connections (under the lock).  Only the waiting ones
 * are compared with each other (a few dozen), not every connection. */
static conn *eviction_victim(void)
{
    conn **w = malloc(((size_t)n_unauth + 1) * sizeof *w);
    int k = 0;
    conn *oldest = NULL;
    for (conn *e = head; e; e = e->next) /* newest first */
        if (waiting(e)) {
            if (w && k <= n_unauth)
                w[k++] = e;
            oldest = e;
        }
    if (!w)
        return oldest; /* out of memory: the oldest of all */
    conn *victim = NULL;
    int most = 0;
    for (int i = 0; i < k; i++) {
        int n = 0;
        conn *first = NULL;
        for (int j = 0; j < k; j++)
            if (same_address(&w[i]->peer, &w[j]->peer)) {
                n++;
                first = w[j]; /* the last seen is the oldest */
            }
        if (n > most) {
            most = n;
            victim = first;
        }
    }
    free(w);
    return victim;
}

static void on_started(struct MHD_Connection *c, void **socket_context)
{
    conn *e = calloc(1, sizeof *e);
    const union MHD_ConnectionInfo *fd =
        M->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr =
        M->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!e || !fd) {
        free(e);
        if (fd)
            shutdown(fd->connect_fd, SHUT_RDWR); /* out of memory: no untracked stranger */
        return;
    }
    e->fd = fd->connect_fd;
    if (addr && addr->client_addr) {
        socklen_t len = addr->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                                 : sizeof(struct sockaddr_in);
        memcpy(&e->peer, addr->client_addr, len);
        http_guard_address_text(addr->client_addr, e->peer_text, sizeof e->peer_text);
    }
    e->since_us = mono_now_us();
    pthread_mutex_lock(&lock);
    e->next = head;
    if (head)
        head->prev = e;
    head = e;
    n_unauth++;
    while (limits.max_unauthenticated > 0 && n_unauth > limits.max_unauthenticated) {
        conn *v = eviction_victim();
        if (!v)
            break; /* all of them mid-request: answered at once, gone soon */
        shut(v);
        n_evicted++;
    }
    pthread_mutex_unlock(&lock);
    *socket_context = e;
}

static void on_closed(void **socket_context)
{
    conn *e = *socket_context;
    if (!e)
        return;
    pthread_mutex_lock(&lock);
    if (e->prev)
        e->prev->next = e->next;
    else
        head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    if (!e->authed && !e->closing)
        n_unauth--;
    pthread_mutex_unlock(&lock);
    free(e);
    *socket_context = NULL;
}

void http_guard_connection(struct MHD_Connection *c, void **socket_context,
                           enum MHD_ConnectionNotificationCode code)
{
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        on_started(c, socket_context);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        on_closed(socket_context);
}

static conn *entry_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        M->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

void http_guard_address_text(const struct sockaddr *sa, char *out, size_t size)
{
    out[0] = 0;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
}

const char *http_guard_peer_text(struct MHD_Connection *c)
{
    conn *e = entry_of(c);
    return e ? e->peer_text : NULL;
}

http_peer_verdict *http_guard_peer(struct MHD_Connection *c)
{
    conn *e = entry_of(c);
    return e ? &e->verdict : NULL;
}

void http_guard_request(struct MHD_Connection *c)
{
    conn *e = entry_of(c);
    if (!e)
        return;
    pthread_mutex_lock(&lock);
    e->in_request = 1;
    pthread_mutex_unlock(&lock);
}

void http_guard_authenticated(struct MHD_Connection *c)
{
    conn *e = entry_of(c);
    if (!e)
        return;
    pthread_mutex_lock(&lock);
    if (!e->authed && !e->closing)
        n_unauth--;
    e->authed = 1;
    pthread_mutex_unlock(&lock);
}

void http_guard_request_done(struct MHD_Connection *c)
{
    conn *e = entry_of(c);
    if (!e)
        return;
    pthread_mutex_lock(&lock);
    e->in_request = 0;
    e->since_us = mono_now_us();
    pthread_mutex_unlock(&lock);
}

void http_guard_sweep(void)
{
    int64_t cutoff = mono_now_us() - (int64_t)limits.header_timeout_s * 1000000;
    pthread_mutex_lock(&lock);
    for (conn *e = head; e; e = e->next)
        if (waiting(e) && e->since_us < cutoff) {
            shut(e);
            n_expired++;
        }
    int expired = n_expired, evicted = n_evicted;
    n_expired = n_evicted = 0;
    pthread_mutex_unlock(&lock);
    if (expired)
        fprintf(stderr,
                "vthost: closed %d connection(s) that sent no complete request within %d s "
                "(header_timeout_seconds in http.toml)\n",
                expired, limits.header_timeout_s);
    if (evicted)
        fprintf(stderr,
                "vthost: closed %d connection(s) still waiting for request headers to make room "
                "for new ones: more than %d connections had not authenticated "
                "(max_unauthenticated_connections in http.toml)\n",
                evicted, limits.max_unauthenticated);
}
