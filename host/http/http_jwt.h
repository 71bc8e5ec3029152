/* OAuth 2.1 resource-server mode of `vthost serve --http`: access tokens
 * are JWTs signed by the authorization server, checked against its
 * public keys (a JWKS file or URL, or one PEM key) for signature, iss,
 * aud and exp.  A token is read once (jose_reader.h) and verified with the
 * algorithm its key fixes (jose_key.h), through libcrypto opened by
 * soname on first use (crypto_lib.h). */
#ifndef VTHOST_HTTP_JWT_H
#define VTHOST_HTTP_JWT_H

#include "http_auth.h"
#include "http_config.h"

/* Load the keys named in c ([oauth]).  Returns 0, or -1 with *err
 * (malloc'd). */
int http_jwt_open(const http_config *c, char **err);
void http_jwt_close(void);
/* Once a second from the serve loop: with [oauth] jwks_url, fetch the key
 * set again when jwks_refresh_seconds passed, or (at most every 10 s)
 * after a token named a key the set lacks.  A failed fetch keeps the
 * keys and is logged (and is tried again a little later). */
void http_jwt_tick(void);

/* As http_auth_check for a bearer credential: 0 and owner ("oauth:" and
 * the SHA-256 of the whole iss and sub, in hex: the principal),
 * or 401 with *error "invalid_token" and *desc why, or 403 with *error
 * "insufficient_scope" when a scope of [oauth] scopes is not granted
 * (the token's "scope" or "scp" claim). */
int http_jwt_check(const char *token, char owner[HTTP_OWNER_MAX], const char **error,
                   const char **desc);

#endif
