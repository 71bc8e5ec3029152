/* Who a stateless (2026-07-28) request runs as.  Such a request has no
 * session: what it leaves behind (command sessions for write_stdin, the
 * spool view of its long outputs) belongs to its principal, so every
 * request of one principal runs as that principal's one client id, and
 * no two principals share one. */
#ifndef VTHOST_HTTP_STATELESS_H
#define VTHOST_HTTP_STATELESS_H

#include <stdint.h>

/* The client id (vt_host_api.call_client_id) of `principal`'s stateless
 * requests: random, made on its first request, the same until the
 * server stops.  0 when out of memory (such a call runs unowned: it is
 * refused). */
uint64_t http_stateless_client(const char *principal);
/* At shutdown: forget every principal, and remove its spool view
 * unless that holds output. */
void http_stateless_reset(void);

#endif
