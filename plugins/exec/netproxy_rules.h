/* [sandbox.network]: the hosts a sandboxed command may reach through the
 * filtering proxy (netproxy.c).  Pure data and matching: no I/O. */
#ifndef VTHOST_EXEC_NETPROXY_RULES_H
#define VTHOST_EXEC_NETPROXY_RULES_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* One entry: an exact host name, "*.name" (its subdomains, not the name
 * itself) or an address literal (normalized text), with a port or 0 for
 * any. */
typedef struct netproxy_rule {
    char *host; /* lower case, no trailing dot; for a wildcard the part after "*." */
    unsigned port;
    int wildcard;
    int literal; /* an IPv4 or IPv6 address */
} netproxy_rule;

typedef struct netproxy_rules {
    netproxy_rule *allow, *deny;
    size_t nallow, ndeny;
    size_t allow_cap, deny_cap;
    unsigned max_connections; /* concurrent connections per session */
} netproxy_rules;

#define NETPROXY_DEFAULT_CONNECTIONS 64

typedef enum netproxy_verdict {
    NETPROXY_ALLOWED = 0,
    NETPROXY_DENIED = 1,  /* a denied_domains entry matches */
    NETPROXY_UNLISTED = 2 /* no allowed_domains entry matches */
} netproxy_verdict;

/* Read config.sandbox.network.  *out is zeroed first; an absent table is
 * no rule.  A wrong type or entry is an error naming the key and the
 * entry (*err, malloc'd). */
int netproxy_rules_parse(const cJSON *config, netproxy_rules *out, char **err);
void netproxy_rules_free(netproxy_rules *r);

/* Whether `host` (a name or an address literal, any case) on `port`
 * may be reached.  Denied wins; a wildcard never matches a literal. */
netproxy_verdict netproxy_rules_judge(const netproxy_rules *r, const char *host, unsigned port);

/* 1 when allowed_domains names `host` exactly (no wildcard), any port
 * or `port`: "localhost" opens the host's loopback, an address literal
 * its own address. */
int netproxy_rules_lists(const netproxy_rules *r, const char *host, unsigned port);

/* `host` lower-cased, without a trailing dot and, for an address
 * literal, in its normal text form (brackets removed), into out.  0, or
 * -1 when it is not a valid host name or address.  *literal set. */
int netproxy_host_normalize(const char *host, char *out, size_t size, int *literal);

#endif
