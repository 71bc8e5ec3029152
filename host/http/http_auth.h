/* Who may talk to `vthost serve --http`: every request carries
 * Authorization: Bearer TOKEN, either the server's own token (a random
 * secret kept 0600 in the token file) or, in OAuth mode, an access token
 * issued for this server: a JWT checked with the authorization server's
 * keys (http_jwt.h), or an opaque token the authorization server vouches
 * for (introspection, http_introspect.h). */
#ifndef VTHOST_HTTP_AUTH_H
#define VTHOST_HTTP_AUTH_H

#include "http_config.h"

#define HTTP_OWNER_MAX 96

/* Load the token file, creating it (random, 0600, its directory 0700)
 * when it does not exist; *created tells.  In OAuth mode, load the keys
 * instead.  Returns 0, or -1 with *err (malloc'd). */
int http_auth_open(const http_config *c, int *created, char **err);
void http_auth_close(void);

/* The server's token (borrowed; NULL in OAuth mode), to print once. */
const char *http_auth_token(void);

/* Judge an Authorization header value (NULL: none).  Returns 0 and the
 * client's identity in owner (the sessions it may use and count against
 * its limit), or 401 with *error the RFC 6750 error code (NULL when no
 * credentials were given at all) and *desc a reason safe to show (never
 * the token); 403 ("insufficient_scope") for a valid OAuth access token
 * that lacks a scope of [oauth] scopes; 503 (*error NULL) when the
 * authorization server could not be asked (introspection): never a
 * pass. */
int http_auth_check(const char *authorization, char owner[HTTP_OWNER_MAX], const char **error,
                    const char **desc);

#endif
