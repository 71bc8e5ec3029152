/* Private to netproxy*.c: the proxy and its connections. */
#ifndef VTHOST_EXEC_NETPROXY_INT_H
#define VTHOST_EXEC_NETPROXY_INT_H

#include <pthread.h>
#include "netproxy.h"

struct netproxy {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs;
    int ctl;      /* the host's end of the hand-over socket */
    int listener; /* in the session's namespace, or -1 */
    int stopping;
    const netproxy_rules *rules;
    netproxy_decide_fn decide;
    void *ud;
    void (*ud_free)(void *);
    unsigned active;
    int *fds; /* every descriptor of the open connections (shut at the end) */
    size_t nfds, fds_cap;
    netproxy_stats stats;
    char **refused; /* "network: refused HOST (WHY)", each host once */
    size_t nrefused, refused_cap, reported;
    struct netproxy *next; /* the live proxies (netproxy_fini) */
};

/* netproxy_conn.c: serve one accepted connection (takes `fd`). */
void netproxy_serve(netproxy *np, int fd);

/* netproxy.c: a descriptor of an open connection, shut down when the
 * proxy stops (0, or -1 once it is stopping: close it and give up). */
int netproxy_track(netproxy *np, int fd);
void netproxy_untrack(netproxy *np, int fd);
/* Note a refusal of `host` (kept once per host) and audit it. */
void netproxy_refused(netproxy *np, const char *host, const char *why);
void netproxy_count(netproxy *np, uint64_t sent, uint64_t received);
/* The decision on `host`: the rules, then the decide hook. */
int netproxy_judge(netproxy *np, const char *host, unsigned port, char *why, size_t whysz);

#endif
