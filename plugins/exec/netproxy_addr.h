/* The proxy's way out: names resolved here, outside the sandbox, and
 * every resolved address checked before it is connected to (netproxy.c). */
#ifndef VTHOST_EXEC_NETPROXY_ADDR_H
#define VTHOST_EXEC_NETPROXY_ADDR_H

#include <stddef.h>
#include "netproxy_rules.h"

/* Test hook: when vthost's environment names a file here, its lines
 * ("ADDRESS NAME...", like /etc/hosts) answer for those names before the
 * system's resolver.  Only whoever starts vthost sets it; the commands'
 * own environment does not reach the proxy. */
#define NETPROXY_HOSTS_ENV "VTHOST_TEST_NETPROXY_HOSTS"

/* Connect to `host` (already allowed by name) on `port`: each address it
 * resolves to is checked (the host's own addresses and loopback only when
 * "localhost" or that address is listed; link-local and cloud metadata
 * addresses only when listed by address) and tried in turn, each within
 * `timeout_ms`.  A connected, blocking descriptor; or -1 with `why`
 * saying what was refused or failed. */
int netproxy_connect(const netproxy_rules *r, const char *host, unsigned port, int timeout_ms,
                     char *why, size_t whysz);

#endif
