/* The filtering proxy's life and bookkeeping (netproxy.h): the hand-over
 * of the listening socket, the accept loop, the connection cap, what was
 * refused and the byte counters.  A thread per proxy and per connection:
 * the proxy belongs to one command session and serves a few connections
 * at a time, and a thread of the host (unlike a child process) needs no
 * fork of the multi-threaded host and shares the host's decisions. */
#include "netproxy_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vthost/clock.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t live_cv = PTHREAD_COND_INITIALIZER;
static netproxy *live;    /* proxies whose thread runs */
static unsigned nthreads; /* proxy threads not yet past their end */

static void proxy_free(netproxy *np)
{
    for (size_t i = 0; i < np->nrefused; i++)
        free(np->refused[i]);
    free(np->refused);
    free(np->fds);
    if (np->ctl >= 0)
        close(np->ctl);
    if (np->listener >= 0)
        close(np->listener);
    if (np->ud_free)
        np->ud_free(np->ud);
    pthread_mutex_destroy(&np->mu);
    pthread_cond_destroy(&np->cv);
    free(np);
}

void netproxy_release(netproxy *np)
{
    if (!np)
        return;
    pthread_mutex_lock(&np->mu);
    int last = --np->refs == 0;
    pthread_mutex_unlock(&np->mu);
    if (last)
        proxy_free(np);
}

netproxy *netproxy_retain(netproxy *np)
{
    pthread_mutex_lock(&np->mu);
    np->refs++;
    pthread_mutex_unlock(&np->mu);
    return np;
}

int netproxy_track(netproxy *np, int fd)
{
    pthread_mutex_lock(&np->mu);
    int rc = np->stopping || VT_GROW(&np->fds, &np->fds_cap, np->nfds + 1) != 0 ? -1 : 0;
    if (rc == 0)
        np->fds[np->nfds++] = fd;
    pthread_mutex_unlock(&np->mu);
    return rc;
}

void netproxy_untrack(netproxy *np, int fd)
{
    pthread_mutex_lock(&np->mu);
    for (size_t i = 0; i < np->nfds; i++)
        if (np->fds[i] == fd) {
            np->fds[i] = np->fds[--np->nfds];
            break;
        }
    pthread_mutex_unlock(&np->mu);
}

void netproxy_refused(netproxy *np, const char *host, const char *why)
{
    char *line = NULL;
    if (asprintf(&line, "network: refused %s (%s)", host, why) < 0)
        return;
    size_t hl = strlen("network: refused ") + strlen(host) + 1;
    pthread_mutex_lock(&np->mu);
    int seen = 0;
    for (size_t i = 0; i < np->nrefused && !seen; i++)
        seen = !strncmp(np->refused[i], line, hl);
    if (!seen && VT_GROW(&np->refused, &np->refused_cap, np->nrefused + 1) == 0) {
        np->refused[np->nrefused++] = line;
        line = NULL;
    }
    pthread_mutex_unlock(&np->mu);
    free(line);
}

void netproxy_count(netproxy *np, uint64_t sent, uint64_t received)
{
    pthread_mutex_lock(&np->mu);
    np->stats.sent += sent;
    np->stats.received += received;
    pthread_mutex_unlock(&np->mu);
}

int netproxy_judge(netproxy *np, const char *host, unsigned port, char *why, size_t whysz)
{
    netproxy_verdict v = netproxy_rules_judge(np->rules, host, port);
    snprintf(why, whysz, "%s",
             v == NETPROXY_DENIED     ? "in denied_domains"
             : v == NETPROXY_UNLISTED ? "not in allowed_domains"
                                      : "in allowed_domains");
    if (np->decide)
        return np->decide(np->ud, host, port, v, why, whysz);
    return v == NETPROXY_ALLOWED ? 0 : -1;
}

char **netproxy_take_refusals(netproxy *np)
{
    if (!np)
        return NULL;
    pthread_mutex_lock(&np->mu);
    size_t n = np->nrefused - np->reported;
    char **out = n ? calloc(n + 1, sizeof *out) : NULL;
    for (size_t i = 0; out && i < n; i++)
        out[i] = strdup(np->refused[np->reported + i]);
    if (out)
        np->reported = np->nrefused;
    pthread_mutex_unlock(&np->mu);
    return out;
}

void *netproxy_ud(netproxy *np) { return np->ud; }

void netproxy_get_stats(netproxy *np, netproxy_stats *out)
{
    pthread_mutex_lock(&np->mu);
    *out = np->stats;
    pthread_mutex_unlock(&np->mu);
}

void netproxy_settle(netproxy *np, int ms)
{
    struct timespec end;
    vt_clock_deadline_ms(&end, ms);
    pthread_mutex_lock(&np->mu);
    while (np->active && !vt_clock_past(&end)) {
        pthread_mutex_unlock(&np->mu);
        usleep(5000);
        pthread_mutex_lock(&np->mu);
    }
    pthread_mutex_unlock(&np->mu);
}

/* The listening socket the session leader sends over the hand-over
 * socket; -1 when it ends without one. */
static int receive_listener(int ctl)
{
    char byte;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t n;
    while ((n = recvmsg(ctl, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

typedef struct conn_start {
    netproxy *np;
    int fd;
} conn_start;

static void *conn_main(void *arg)
{
    conn_start cs = *(conn_start *)arg;
    free(arg);
    netproxy_serve(cs.np, cs.fd);
    /* Not the last reference: the proxy's thread keeps its own until
     * `active` is 0, which is the last thing done here (the plugin may be
     * unloaded once every thread is past it). */
    netproxy_release(cs.np);
    pthread_mutex_lock(&cs.np->mu);
    cs.np->active--;
    pthread_cond_broadcast(&cs.np->cv);
    pthread_mutex_unlock(&cs.np->mu);
    return NULL;
}

/* One accepted connection: a thread of its own, or closed at once when
 * max_connections are open. */
static void admit(netproxy *np, int fd)
{
    pthread_mutex_lock(&np->mu);
    np->stats.connections++;
    int over = np->active >= np->rules->max_connections;
    if (over)
        np->stats.capped++;
    else {
        np->active++;
        np->refs++;
    }
    pthread_mutex_unlock(&np->mu);
    if (over) {
        char why[64];
        snprintf(why, sizeof why, "max_connections (%u) were open", np->rules->max_connections);
        netproxy_refused(np, "a connection", why);
        close(fd);
        return;
    }
    conn_start *cs = malloc(sizeof *cs);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 256 * 1024);
    if (cs) {
        *cs = (conn_start){np, fd};
        if (pthread_create(&t, &a, conn_main, cs) == 0)
            cs = NULL;
    }
    pthread_attr_destroy(&a);
    if (cs) { /* the thread did not start */
        free(cs);
        close(fd);
        pthread_mutex_lock(&np->mu);
        np->active--;
        np->refs--;
        pthread_mutex_unlock(&np->mu);
    }
}

/* Stop: every connection's descriptors shut (their threads end), then
 * wait for them. */
static void stop_all(netproxy *np)
{
    pthread_mutex_lock(&np->mu);
    np->stopping = 1;
    for (size_t i = 0; i < np->nfds; i++)
        shutdown(np->fds[i], SHUT_RDWR);
    while (np->active)
        pthread_cond_wait(&np->cv, &np->mu);
    pthread_mutex_unlock(&np->mu);
}

/* Test hook: the proxy stops (as if it had died) after this many
 * connections, to show that its end fails the command's network and
 * nothing else.  Set only in vthost's own environment. */
#define DIE_AFTER_ENV "VTHOST_TEST_NETPROXY_DIE_AFTER"

static void *proxy_main(void *arg)
{
    netproxy *np = arg;
    const char *die = getenv(DIE_AFTER_ENV);
    unsigned die_after = die ? (unsigned)strtoul(die, NULL, 10) : 0;
    np->listener = receive_listener(np->ctl);
    while (np->listener >= 0) {
        if (die_after && np->stats.connections >= die_after) {
            pthread_mutex_lock(&np->mu);
            while (np->active) /* the connections served so far finish */
                pthread_cond_wait(&np->cv, &np->mu);
            pthread_mutex_unlock(&np->mu);
            break;
        }
        struct pollfd p[2] = {{.fd = np->listener, .events = POLLIN},
                              {.fd = np->ctl, .events = POLLIN}};
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[1].revents) /* the leader exited (or netproxy_fini) */
            break;
        if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL))
            break;
        if (p[0].revents & POLLIN) {
            int fd = accept4(np->listener, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0)
                admit(np, fd);
        }
    }
    stop_all(np);
    /* From now on the command's connections are refused: the listening
     * socket is gone with the proxy. */
    if (np->listener >= 0) {
        close(np->listener);
        np->listener = -1;
    }
    pthread_mutex_lock(&live_mu);
    for (netproxy **l = &live; *l; l = &(*l)->next)
        if (*l == np) {
            *l = np->next;
            break;
        }
    pthread_mutex_unlock(&live_mu);
    netproxy_release(np);
    pthread_mutex_lock(&live_mu);
    nthreads--;
    pthread_cond_broadcast(&live_cv);
    pthread_mutex_unlock(&live_mu);
    return NULL;
}

int netproxy_start(const netproxy_rules *rules, netproxy_decide_fn decide, void *ud,
                   void (*ud_free)(void *), netproxy **out, int *child_fd)
{
    *out = NULL;
    *child_fd = -1;
    netproxy *np = calloc(1, sizeof *np);
    int sv[2] = {-1, -1};
    if (!np || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        if (ud_free)
            ud_free(ud);
        int rc = np ? VT_ERR_IO : VT_ERR_NOMEM;
        free(np);
        return rc;
    }
    pthread_mutex_init(&np->mu, NULL);
    pthread_cond_init(&np->cv, NULL);
    np->ctl = sv[0];
    np->listener = -1;
    np->rules = rules;
    np->decide = decide;
    np->ud = ud;
    np->ud_free = ud_free;
    np->refs = 2; /* the caller's and the thread's */
    pthread_mutex_lock(&live_mu);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, proxy_main, np);
    pthread_attr_destroy(&a);
    if (rc == 0) {
        np->next = live;
        live = np;
        nthreads++;
    }
    pthread_mutex_unlock(&live_mu);
    if (rc != 0) {
        close(sv[1]);
        proxy_free(np);
        return VT_ERR_IO;
    }
    /* Above the descriptors the child rearranges before exec. */
    *child_fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 16);
    close(sv[1]);
    *out = np;
    return *child_fd >= 0 ? VT_OK : VT_ERR_IO;
}

void netproxy_fini(void)
{
    pthread_mutex_lock(&live_mu);
    for (netproxy *np = live; np; np = np->next)
        shutdown(np->ctl, SHUT_RDWR);
    while (nthreads)
        pthread_cond_wait(&live_cv, &live_mu);
    pthread_mutex_unlock(&live_mu);
}
