/* One HTTPS GET for the HTTP server's own needs (the authorization
 * server's JWKS document), through libcurl opened by soname on first use:
 * a server that never fetches maps no libcurl. */
#ifndef VTHOST_HTTP_FETCH_H
#define VTHOST_HTTP_FETCH_H

#include <stddef.h>

/* GET `url` within timeout_s seconds, following no redirect.  Returns the
 * body (malloc'd, NUL-terminated, at most `max` bytes) of a 200 answer,
 * or NULL with *err (malloc'd) saying what failed.  The caller checks the
 * URL's scheme. */
char *http_fetch(const char *url, int timeout_s, size_t max, char **err);

/* `url` read by the parser http_fetch fetches it with (libcurl's): its
 * scheme and host (both malloc'd; an IPv6 host in brackets, "[::1]"), so
 * a check on the host is a check on where the request goes.  Returns 0,
 * or -1 with *err (malloc'd). */
int http_url_parts(const char *url, char **scheme, char **host, char **err);

#endif
