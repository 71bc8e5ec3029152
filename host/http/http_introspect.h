/* Opaque access tokens of `vthost serve --http` in OAuth mode, judged by
 * the authorization server itself: RFC 7662 token introspection, a POST
 * of the token to [oauth] introspection_url with this server's own client
 * credentials (HTTP Basic), through libcurl (http_fetch.h).
 *
 * The answer is judged like a JWT's claims (http_claims.h): "active" must
 * be true, "iss" (when given) the configured issuer, "aud" an accepted
 * audience, "exp" (when given) not past, the scopes granted.  The
 * principal is the iss and the "sub", or the "client_id" for a token of a
 * client acting for itself (client credentials), as in a JWT whose sub is
 * its client id.
 *
 * An accepted answer is kept, keyed by the SHA-256 of the token (the
 * token itself is never stored), until the token's exp or at most
 * [oauth] introspection_cache_seconds, in a table of bounded size; so a
 * token revoked at the authorization server is refused within that bound.
 * When the endpoint cannot be reached or answers anything but a JSON 200,
 * the request is refused with 503 and the log says why: a failure never
 * lets a token in. */
#ifndef VTHOST_HTTP_INTROSPECT_H
#define VTHOST_HTTP_INTROSPECT_H

#include "http_auth.h"
#include "http_config.h"

/* Returns 0, or -1 with *err (malloc'd). */
int http_introspect_open(const http_config *c, char **err);
void http_introspect_close(void);

/* As http_auth_check for a bearer credential: 0 and owner, 401 with
 * *error "invalid_token", 403 with "insufficient_scope", or 503 (*error
 * NULL) when the introspection endpoint failed; *desc says why. */
int http_introspect_check(const char *token, char owner[HTTP_OWNER_MAX], const char **error,
                          const char **desc);

#endif
