/* Which browser Origins may reach /mcp (DNS rebinding protection). */
#ifndef VTHOST_HTTP_ORIGIN_H
#define VTHOST_HTTP_ORIGIN_H

#include "http_config.h"

/* 1 when `origin` (the Origin header, NULL when absent) may use the
 * server: no Origin (not a browser), one in allowed_origins, or on a
 * loopback listener a page served from this machine itself
 * (http://localhost, http://127.0.0.1 or http://[::1], any port). */
int http_origin_allowed(const http_config *cfg, const char *origin);

#endif
