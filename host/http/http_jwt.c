/* JWT access tokens: see http_jwt.h.
 *
 * One reader, one parser: jose_reader.c decodes the header and the
 * payload once and parses them with cJSON, refusing a member named twice
 * anywhere, and every judgement here reads that one tree: the key the
 * token names, the algorithm, the claims.  The algorithm is the key's,
 * fixed when the key is loaded (jose_key.h), never the token's choice: a
 * header whose "alg" is not exactly the key's is refused before any
 * signature work, so a token cannot have a public key used as an HMAC
 * secret, declare "none", or ask an EC key to check an RSA signature.
 *
 * The signature is checked here with OpenSSL (crypto_lib.c), not with a
 * JWT library: libjwt's only way in, jwt_decode, parses the header and
 * the payload again with its own JSON parser (jansson, which keeps the
 * last of two "alg" members where cJSON keeps the first), and handing it
 * a header re-serialised from our tree is no way out, because the
 * signature covers the header's original bytes.  A second reader of the
 * token is what let a header naming "alg" twice through. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "http_claims.h"
#include "http_fetch.h"
#include "http_jwt.h"
#include "jose_key.h"
#include "jose_reader.h"
#include "strutil.h"
#include "text_escape.h"

#define MAX_KEYS 16
#define LEEWAY_S 30 /* clock skew allowed on exp and nbf */

/* The key set: replaced whole when a jwks_url is fetched again, read by
 * every request thread (under keys_lock, held across the verification). */
static jose_key keys[MAX_KEYS];
static int nkeys;
static pthread_rwlock_t keys_lock = PTHREAD_RWLOCK_INITIALIZER;
static const http_config *conf;
/* jwks_url: when the keys were fetched, when next, and a token naming a
 * key the set lacks (the authorization server may have rotated). */
static time_t fetched_at, refresh_at;
static atomic_int want_refresh;

/* ---- keys --------------------------------------------------------------- */

static char *read_text(const char *path, char **err)
{
    FILE *f = fopen(path, "re");
    char *t = f ? file_read_all(f) : NULL;
    if (f)
        fclose(f);
    if (!t)
        *err = str_printf("cannot read %s: %s", path, strerror(errno ? errno : EIO));
    return t;
}

static void free_keys(jose_key *set, int n)
{
    for (int i = 0; i < n; i++)
        jose_key_free(&set[i]);
}

/* A key of a JWKS that cannot be used: said, once per load. */
static void skipped(const char *source, const cJSON *jwk, const char *why)
{
    const cJSON *kid = cJSON_GetObjectItemCaseSensitive(jwk, "kid");
    char *shown = text_escape(cJSON_IsString(kid) ? kid->valuestring : "(none)", 0);
    fprintf(stderr, "vthost serve --http: %s: skipping the key with kid %s: %s\n", source,
            shown ? shown : "?", why);
    free(shown);
}

/* The signing keys of a JWKS document (`source` names it in messages). */
static int parse_jwks(const char *text, const char *source, jose_key *set, int *n, char **err)
{
    const char *why = NULL;
    cJSON *j = jose_json_parse(text, strlen(text), &why);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "keys");
    *n = 0;
    if (!cJSON_IsArray(list)) {
        *err = j ? str_printf("%s has no \"keys\" array (a JWKS document)", source)
                 : str_printf("%s is not a JWKS document: it %s", source, why);
        cJSON_Delete(j);
        return -1;
    }
    const cJSON *k;
    cJSON_ArrayForEach(k, list)
    {
        if (*n == MAX_KEYS) {
            fprintf(stderr, "vthost serve --http: %s: only the first %d signing keys are used\n",
                    source, MAX_KEYS);
            break;
        }
        int rc = jose_key_from_jwk(k, &set[*n], &why);
        if (rc == 0)
            (*n)++;
        else if (rc < 0)
            skipped(source, k, why);
    }
    cJSON_Delete(j);
    if (*n == 0) {
        *err = str_printf("%s holds no RSA (2048 bits or more) or EC (P-256, P-384, P-521) "
                          "signing key in \"keys\" (a JWKS document)",
                          source);
        return -1;
    }
    return 0;
}

/* Replace the key set with `text`'s keys; the old set stays on failure. */
static int install_jwks(const char *text, const char *source, char **err)
{
    jose_key set[MAX_KEYS];
    int n = 0;
    if (parse_jwks(text, source, set, &n, err) < 0)
        return -1;
    pthread_rwlock_wrlock(&keys_lock);
    free_keys(keys, nkeys);
    memcpy(keys, set, sizeof(jose_key) * (size_t)n);
    nkeys = n;
    pthread_rwlock_unlock(&keys_lock);
    return 0;
}

static int load_jwks(const char *path, char **err)
{
    char *text = read_text(path, err);
    if (!text)
        return -1;
    int rc = install_jwks(text, path, err);
    free(text);
    return rc;
}

static int load_pem(const http_config *c, char **err)
{
    char *pem = read_text(c->oauth_key_file, err);
    if (!pem)
        return -1;
    jose_key k;
    int rc = jose_key_from_pem(pem, c->oauth_alg, c->oauth_key_file, &k, err);
    free(pem);
    if (rc < 0)
        return -1;
    pthread_rwlock_wrlock(&keys_lock);
    free_keys(keys, nkeys);
    keys[0] = k;
    nkeys = 1;
    pthread_rwlock_unlock(&keys_lock);
    return 0;
}

#define JWKS_MAX_BYTES (1024 * 1024)
#define JWKS_TIMEOUT_S 10
#define JWKS_MIN_GAP_S 10 /* fetches for unknown keys at most this often */

static int fetch_jwks(char **err)
{
    fetched_at = time(NULL);
    refresh_at = fetched_at + conf->oauth_jwks_refresh_s;
    char *text = http_fetch(conf->oauth_jwks_url, JWKS_TIMEOUT_S, JWKS_MAX_BYTES, err);
    if (!text)
        return -1;
    int rc = install_jwks(text, conf->oauth_jwks_url, err);
    free(text);
    return rc;
}

void http_jwt_tick(void)
{
    if (!conf || !conf->oauth_jwks_url)
        return;
    time_t now = time(NULL);
    int asked = atomic_load(&want_refresh) && now - fetched_at >= JWKS_MIN_GAP_S;
    if (now < refresh_at && !asked)
        return;
    atomic_store(&want_refresh, 0);
    char *err = NULL;
    if (fetch_jwks(&err) < 0) {
        /* the keys we have stay; try again a little later */
        refresh_at = now + JWKS_MIN_GAP_S;
        fprintf(stderr, "vthost serve --http: %s; keeping the keys fetched before\n", err);
        free(err);
    }
}

int http_jwt_open(const http_config *c, char **err)
{
    if (crypto_lib_open(err) < 0)
        return -1;
    conf = c;
    int rc = c->oauth_jwks_url    ? fetch_jwks(err)
             : c->oauth_jwks_file ? load_jwks(c->oauth_jwks_file, err)
                                  : load_pem(c, err);
    if (rc < 0)
        conf = NULL;
    return rc;
}

void http_jwt_close(void)
{
    pthread_rwlock_wrlock(&keys_lock);
    free_keys(keys, nkeys);
    nkeys = 0;
    pthread_rwlock_unlock(&keys_lock);
    conf = NULL;
}

/* ---- checking a token --------------------------------------------------- */

/* The signature, by a key the token names whose algorithm is the header's
 * "alg": 0, or 401 with *desc. */
static int signature_check(const jose_jws *t, const char *token, const char **desc)
{
    int named = 0, fitting = 0, ok = 0;
    pthread_rwlock_rdlock(&keys_lock);
    for (int i = 0; i < nkeys && !ok; i++) {
        const jose_key *k = &keys[i];
        if (t->kid && k->kid && strcmp(t->kid, k->kid) != 0)
            continue;
        named++;
        if (strcmp(t->alg, k->alg) != 0)
            continue; /* the key's algorithm, exactly, or nothing */
        fitting++;
        ok = jose_key_verify(k, (const unsigned char *)token, t->signed_len, t->sig, t->sig_len) ==
             0;
    }
    pthread_rwlock_unlock(&keys_lock);
    if (ok)
        return 0;
    if (!named) {
        /* a key the set lacks: the next tick fetches the set again */
        atomic_store(&want_refresh, 1);
        *desc = "the access token is not signed with a key of this server's authorization "
                "server (kid)";
    } else if (!fitting) {
        *desc = "the access token's alg is not the algorithm of the key it names (the key "
                "fixes the algorithm)";
    } else {
        *desc = "the access token's signature does not verify";
    }
    return 401;
}

/* The claims of a token whose signature verified, read from the payload
 * the signature was checked over: 0, 401 or 403 (a scope missing), with
 * *desc why not. */
static int claims_check(const cJSON *claims, const char **error, const char **desc)
{
    double now = (double)time(NULL);
    const cJSON *iss = cJSON_GetObjectItemCaseSensitive(claims, "iss");
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(claims, "sub");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(claims, "exp");
    const cJSON *nbf = cJSON_GetObjectItemCaseSensitive(claims, "nbf");
    if (!cJSON_IsString(iss) || strcmp(iss->valuestring, conf->oauth_issuer) != 0)
        *desc = "the access token was issued by another authorization server (iss)";
    else if (!http_claims_audience_ok(conf, cJSON_GetObjectItemCaseSensitive(claims, "aud")))
        *desc = "the access token was not issued for this server (aud)";
    else if (!cJSON_IsNumber(exp))
        *desc = "the access token has no expiry (exp)";
    else if (now > exp->valuedouble + LEEWAY_S)
        *desc = "the access token has expired";
    else if (nbf && (!cJSON_IsNumber(nbf) || nbf->valuedouble > now + LEEWAY_S))
        *desc = "the access token is not valid yet (nbf)";
    else if (!cJSON_IsString(sub) || !sub->valuestring[0])
        *desc = "the access token names no subject (sub)";
    else if (!http_claims_scopes_ok(conf, claims)) {
        *error = "insufficient_scope";
        *desc = "the access token lacks a scope this server requires (scope)";
        return 403;
    } else
        return 0;
    return 401;
}

int http_jwt_check(const char *token, char owner[HTTP_OWNER_MAX], const char **error,
                   const char **desc)
{
    *error = "invalid_token";
    jose_jws t;
    int status = jose_jws_read(token, &t, desc) < 0 ? 401 : signature_check(&t, token, desc);
    if (status == 0)
        status = claims_check(t.claims, error, desc);
    if (status == 0 &&
        http_claims_principal(cJSON_GetObjectItemCaseSensitive(t.claims, "iss")->valuestring,
                              cJSON_GetObjectItemCaseSensitive(t.claims, "sub")->valuestring,
                              owner) < 0) {
        *desc = "the server cannot hash the access token's subject (out of memory)";
        status = 401;
    }
    jose_jws_free(&t);
    if (status == 0) {
        *error = NULL;
        return 0;
    }
    owner[0] = 0;
    /* the reason, for the operator; never the token */
    if (conf)
        fprintf(stderr, "vthost serve --http: refused an access token (%d): %s\n", status, *desc);
    return status;
}
