/* HTTPS requests for the HTTP server's own needs (the authorization
 * server's JWKS document, token introspection), through libcurl opened by soname on first use:
 * a server that never fetches maps no libcurl. */
#ifndef VTHOST_HTTP_FETCH_H
#define VTHOST_HTTP_FETCH_H

#include <stddef.h>

/* GET `url` within timeout_s seconds, following no redirect.  Returns the
 * body (malloc'd, NUL-terminated, at most `max` bytes) of a 200 answer,
 * or NULL with *err (malloc'd) saying what failed.  The caller checks the
 * URL's scheme. */
char *http_fetch(const char *url, int timeout_s, size_t max, char **err);

/* POST the form `form` (name, value, name, value, ..., NULL; the values
 * percent-encoded here) to `url` with HTTP Basic credentials user and
 * password (an OAuth client's id and secret, form-encoded first as RFC
 * 6749 2.3.1 says), within timeout_s seconds, following no redirect.
 * Returns the body of whatever answer came (malloc'd, NUL-terminated, at
 * most `max` bytes) and its *status, or NULL with *err (malloc'd) when
 * no answer came.  The caller checks the URL's scheme. */
char *http_post_form(const char *url, const char *const *form, const char *user,
                     const char *password, int timeout_s, size_t max, long *status, char **err);

/* `url` read by the parser http_fetch fetches it with (libcurl's): its
 * scheme and host (both malloc'd; an IPv6 host in brackets, "[::1]"), so
 * a check on the host is a check on where the request goes.  Returns 0,
 * or -1 with *err (malloc'd). */
int http_url_parts(const char *url, char **scheme, char **host, char **err);

#endif
