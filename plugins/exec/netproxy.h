/* The filtering proxy of a command session whose sandbox has no network
 * but lists domains ([sandbox.network]).  It runs in the host, outside
 * the session's network namespace: the session leader makes a listening
 * socket on 127.0.0.1:NETPROXY_PORT inside the namespace and hands it
 * over (sandbox_netproxy.c); the proxy accepts the command's connections
 * on it, judges each host, resolves names and connects out itself.  HTTP
 * (absolute-URI requests and CONNECT tunnels) and SOCKS5 share the port.
 * The proxy lives until the session leader exits (it holds the other end
 * of the hand-over socket). */
#ifndef VTHOST_EXEC_NETPROXY_H
#define VTHOST_EXEC_NETPROXY_H

#include <stddef.h>
#include <stdint.h>
#include "netproxy_rules.h"

#define NETPROXY_PORT 3128

/* The decision on one host, given what the rules say (`v`): 0 to allow,
 * else non-zero with `why` (a short reason: "not in allowed_domains").
 * Sees every decision (to audit it); may block (asking a person); called
 * on a connection's thread. */
typedef int (*netproxy_decide_fn)(void *ud, const char *host, unsigned port, netproxy_verdict v,
                                  char *why, size_t whysz);

typedef struct netproxy netproxy;

typedef struct netproxy_stats {
    uint64_t sent, received; /* bytes from and to the command */
    unsigned connections;    /* accepted */
    unsigned capped;         /* closed at once: max_connections were open */
} netproxy_stats;

/* Start a proxy with `rules` (borrowed until netproxy_fini) and the
 * decision `decide` (NULL: the rules alone) with `ud`, which the proxy
 * owns: `ud_free` (may be NULL) releases it when the proxy ends, or at
 * once when it cannot start.
 * *child_fd is the end the session leader takes (spawn_req.netproxy_fd;
 * close it once the command started).  *out is the caller's reference. */
int netproxy_start(const netproxy_rules *rules, netproxy_decide_fn decide, void *ud,
                   void (*ud_free)(void *), netproxy **out, int *child_fd);
/* Drop the caller's reference; the proxy runs on until its session ends. */
void netproxy_release(netproxy *np);
/* One more reference to np (released with netproxy_release); np. */
netproxy *netproxy_retain(netproxy *np);
/* What was refused since the last take, each host once
 * ("network: refused HOST (WHY)"), as a NULL-terminated malloc'd array of
 * malloc'd strings, or NULL when nothing new. */
char **netproxy_take_refusals(netproxy *np);
void netproxy_get_stats(netproxy *np, netproxy_stats *out);
/* The `ud` given to netproxy_start. */
void *netproxy_ud(netproxy *np);
/* Wait (up to `ms`) until the proxy has served what its session sent so
 * far: a connection still being relayed when the command ended is
 * counted. */
void netproxy_settle(netproxy *np, int ms);
/* End every proxy still running and wait for their threads. */
void netproxy_fini(void);

/* The variables that point a command's tools at the proxy: appended to
 * the NULL-terminated malloc'd `env` (replacing what it had of them);
 * the new array, or NULL (then `env` is untouched). */
char **netproxy_env(char **env);

#endif
