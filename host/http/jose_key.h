/* Verification keys and the one algorithm each verifies.  A key fixes its
 * algorithm when it is loaded (a JWK's "alg", or its type's only fitting
 * one; the configured algorithm for a PEM key), and a token is checked
 * with that algorithm alone: the token's header may only agree with it. */
#ifndef VTHOST_JOSE_KEY_H
#define VTHOST_JOSE_KEY_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include "crypto_lib.h"

typedef struct jose_key {
    char *kid;   /* NULL when the key has none */
    char alg[8]; /* RS256, RS384, RS512, ES256, ES384 or ES512 */
    crypto_key *key;
} jose_key;

/* The key of one JWK (RFC 7517) for verifying signatures: "kty" RSA (a
 * modulus of 2048 bits or more) or EC (crv P-256, P-384, P-521).  Its
 * algorithm is the JWK's "alg" when present, which must fit the key;
 * without one, an EC key takes its curve's (P-256: ES256, P-384: ES384,
 * P-521: ES512) and an RSA key RS256, the algorithm OpenID Connect and
 * RFC 7518 make the default (an RSA key verifying RS384 or RS512 says so
 * with "alg").  Returns 0 and *out, or 1 for a key that is not for
 * signatures ("use" other than "sig", "key_ops" without "verify"), or -1
 * with *why (static text): both leave *out empty. */
int jose_key_from_jwk(const cJSON *jwk, jose_key *out, const char **why);

/* The configured PEM public key (`what` names it in messages) with the
 * configured algorithm, which must fit it.  Returns 0, or -1 with *err
 * (malloc'd). */
int jose_key_from_pem(const char *pem, const char *alg, const char *what, jose_key *out,
                      char **err);

void jose_key_free(jose_key *k);

/* 0 when `sig` (the JWS form: PKCS #1 v1.5 for RS*, r || s for ES*) signs
 * the `n` bytes of `data` under k's algorithm; -1 otherwise. */
int jose_key_verify(const jose_key *k, const unsigned char *data, size_t n,
                    const unsigned char *sig, size_t sig_len);

#endif
