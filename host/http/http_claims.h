/* The claims of an access token, however it was read: a JWT's verified
 * payload (http_jwt.c) or an authorization server's introspection answer
 * (http_introspect.c).  Both kinds are judged by the same rules, so a
 * token's audience, scopes and principal mean the same either way. */
#ifndef VTHOST_HTTP_CLAIMS_H
#define VTHOST_HTTP_CLAIMS_H

#include <cjson/cJSON.h>
#include "http_auth.h"
#include "http_config.h"

/* Whether "aud" (a string or an array of strings) names one of the
 * audiences [oauth] audience accepts (default: public_url). */
int http_claims_audience_ok(const http_config *c, const cJSON *aud);

/* Whether every scope of [oauth] scopes is granted by the claims' "scope"
 * (space-separated) or "scp" (a string or an array of strings). */
int http_claims_scopes_ok(const http_config *c, const cJSON *claims);

/* The owner of a client's sessions: "oauth:" and the SHA-256 (hex) of the
 * whole iss, a NUL and the whole sub, so two subjects that share a prefix
 * never share sessions or limits.  Neither may hold a NUL.  0, or -1. */
int http_claims_principal(const char *iss, const char *sub, char owner[HTTP_OWNER_MAX]);

#endif
