/* JWT access tokens: see http_jwt.h.
 *
 * The algorithm is the key's, never the token's choice: the header's
 * "alg" is read first and must be an asymmetric one matching the key
 * (RS* for RSA keys, ES* for EC keys of the right curve), so a token
 * cannot have a public key used as an HMAC secret ("alg confusion") or
 * declare "none".  JWKS keys are turned into PEM (SubjectPublicKeyInfo,
 * DER written here) because libjwt 1.10 verifies with PEM keys only. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <jwt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "http_fetch.h"
#include "http_jwt.h"
#include "opened_lib.h"
#include "strutil.h"

#define MAX_KEYS 16
#define LEEWAY_S 30 /* clock skew allowed on exp and nbf */

static struct {
    int (*decode)(jwt_t **jwt, const char *token, const unsigned char *key, int key_len);
    void (*free)(jwt_t *jwt);
    const char *(*get_grant)(jwt_t *jwt, const char *grant);
    long (*get_grant_int)(jwt_t *jwt, const char *grant);
    char *(*get_grants_json)(jwt_t *jwt, const char *grant);
    jwt_alg_t (*get_alg)(jwt_t *jwt);
} jl;
static char *jl_error;
static pthread_once_t jl_once = PTHREAD_ONCE_INIT;

static void bind_jwt(void)
{
    const opened_sym syms[] = {
        {"jwt_decode", (void **)&jl.decode},
        {"jwt_free", (void **)&jl.free},
        {"jwt_get_grant", (void **)&jl.get_grant},
        {"jwt_get_grant_int", (void **)&jl.get_grant_int},
        {"jwt_get_grants_json", (void **)&jl.get_grants_json},
        {"jwt_get_alg", (void **)&jl.get_alg},
        {NULL, NULL},
    };
    opened_lib_bind(VTHOST_JWT_SONAME, syms, &jl_error);
}

typedef struct key {
    char *kid;   /* may be NULL */
    char family; /* 'R' RSA, 'E' EC */
    int bits;    /* EC: 256, 384, 521 */
    char *pem;
} key;

/* The key set: replaced whole when a jwks_url is fetched again, read by
 * every request thread (under keys_lock, held across the verification). */
static key keys[MAX_KEYS];
static int nkeys;
static pthread_rwlock_t keys_lock = PTHREAD_RWLOCK_INITIALIZER;
static const http_config *conf;
/* jwks_url: when the keys were fetched, when next, and a token naming a
 * key the set lacks (the authorization server may have rotated). */
static time_t fetched_at, refresh_at;
static atomic_int want_refresh;

/* ---- base64 ------------------------------------------------------------- */

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-' || c == '+')
        return 62;
    if (c == '_' || c == '/')
        return 63;
    return -1;
}

/* base64url (or plain) without padding; malloc'd, NULL on bad input. */
static unsigned char *b64_decode(const char *s, size_t n, size_t *out_len)
{
    unsigned char *out = malloc(n * 3 / 4 + 3);
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; out && i < n; i++) {
        if (s[i] == '=')
            break;
        int v = b64val((unsigned char)s[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    if (out)
        *out_len = o;
    return out;
}

static char *pem_of(const unsigned char *der, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t cap = 64 + (n + 2) / 3 * 4 + n / 48 + 64;
    char *p = malloc(cap), *w = p;
    if (!p)
        return NULL;
    w += sprintf(w, "-----BEGIN PUBLIC KEY-----\n");
    int col = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)der[i] << 16 | (i + 1 < n ? (unsigned)der[i + 1] << 8 : 0) |
                     (i + 2 < n ? der[i + 2] : 0);
        *w++ = tab[v >> 18 & 63];
        *w++ = tab[v >> 12 & 63];
        *w++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *w++ = i + 2 < n ? tab[v & 63] : '=';
        if ((col += 4) == 64) {
            *w++ = '\n';
            col = 0;
        }
    }
    if (col)
        *w++ = '\n';
    sprintf(w, "-----END PUBLIC KEY-----\n");
    return p;
}

/* ---- DER ---------------------------------------------------------------- */

typedef struct der {
    unsigned char *p;
    size_t n, cap;
} der;

static void put(der *d, const void *b, size_t n)
{
    if (d->n + n > d->cap) {
        size_t cap = (d->n + n) * 2 + 64;
        unsigned char *q = realloc(d->p, cap);
        if (!q)
            return;
        d->p = q;
        d->cap = cap;
    }
    memcpy(d->p + d->n, b, n);
    d->n += n;
}

/* tag, length, then the content of `in` */
static void wrap(der *out, unsigned char tag, const der *in)
{
    unsigned char h[6] = {tag};
    size_t hl = 1, n = in->n;
    if (n < 128) {
        h[hl++] = (unsigned char)n;
    } else if (n < 256) {
        h[hl++] = 0x81;
        h[hl++] = (unsigned char)n;
    } else if (n < 65536) {
        h[hl++] = 0x82;
        h[hl++] = (unsigned char)(n >> 8);
        h[hl++] = (unsigned char)n;
    } else {
        h[hl++] = 0x83;
        h[hl++] = (unsigned char)(n >> 16);
        h[hl++] = (unsigned char)(n >> 8);
        h[hl++] = (unsigned char)n;
    }
    put(out, h, hl);
    put(out, in->p, in->n);
}

static void integer(der *out, const unsigned char *v, size_t n)
{
    while (n > 1 && v[0] == 0) {
        v++;
        n--;
    }
    der c = {0};
    if (n && (v[0] & 0x80))
        put(&c, "\0", 1);
    put(&c, v, n);
    wrap(out, 0x02, &c);
    free(c.p);
}

/* SubjectPublicKeyInfo: SEQUENCE { algorithm, BIT STRING { key } } */
static char *spki_pem(const unsigned char *alg, size_t alg_len, const der *keybits)
{
    der a = {0}, bits = {0}, seq = {0}, out = {0};
    put(&a, alg, alg_len);
    put(&bits, "\0", 1);
    put(&bits, keybits->p, keybits->n);
    der algseq = {0};
    wrap(&algseq, 0x30, &a);
    put(&seq, algseq.p, algseq.n);
    wrap(&seq, 0x03, &bits);
    wrap(&out, 0x30, &seq);
    char *pem = out.p ? pem_of(out.p, out.n) : NULL;
    free(a.p);
    free(bits.p);
    free(seq.p);
    free(algseq.p);
    free(out.p);
    return pem;
}

static unsigned char *field(const cJSON *jwk, const char *name, size_t *n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(jwk, name);
    return cJSON_IsString(v) ? b64_decode(v->valuestring, strlen(v->valuestring), n) : NULL;
}

static char *rsa_pem(const cJSON *jwk)
{
    static const unsigned char oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7,
                                        0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
    size_t nl = 0, el = 0;
    unsigned char *n = field(jwk, "n", &nl), *e = field(jwk, "e", &el);
    char *pem = NULL;
    if (n && e && nl >= 128) {
        der ints = {0}, seq = {0};
        integer(&ints, n, nl);
        integer(&ints, e, el);
        wrap(&seq, 0x30, &ints);
        pem = spki_pem(oid, sizeof oid, &seq);
        free(ints.p);
        free(seq.p);
    }
    free(n);
    free(e);
    return pem;
}

static char *ec_pem(const cJSON *jwk, int *bits)
{
    static const unsigned char ec[] = {0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
    static const unsigned char p256[] = {0x06, 0x08, 0x2a, 0x86, 0x48,
                                         0xce, 0x3d, 0x03, 0x01, 0x07};
    static const unsigned char p384[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22};
    static const unsigned char p521[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23};
    const cJSON *crv = cJSON_GetObjectItemCaseSensitive(jwk, "crv");
    const unsigned char *curve = NULL;
    size_t curve_len = 0, size = 0;
    if (cJSON_IsString(crv) && !strcmp(crv->valuestring, "P-256"))
        curve = p256, curve_len = sizeof p256, size = 32, *bits = 256;
    else if (cJSON_IsString(crv) && !strcmp(crv->valuestring, "P-384"))
        curve = p384, curve_len = sizeof p384, size = 48, *bits = 384;
    else if (cJSON_IsString(crv) && !strcmp(crv->valuestring, "P-521"))
        curve = p521, curve_len = sizeof p521, size = 66, *bits = 521;
    if (!curve)
        return NULL;
    size_t xl = 0, yl = 0;
    unsigned char *x = field(jwk, "x", &xl), *y = field(jwk, "y", &yl);
    char *pem = NULL;
    if (x && y && xl == size && yl == size) {
        unsigned char alg[32];
        memcpy(alg, ec, sizeof ec);
        memcpy(alg + sizeof ec, curve, curve_len);
        der point = {0};
        put(&point, "\x04", 1);
        put(&point, x, xl);
        put(&point, y, yl);
        pem = spki_pem(alg, sizeof ec + curve_len, &point);
        free(point.p);
    }
    free(x);
    free(y);
    return pem;
}

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

static void free_keys(key *set, int n)
{
    for (int i = 0; i < n; i++) {
        free(set[i].kid);
        free(set[i].pem);
    }
}

/* The signing keys of a JWKS document (`source` names it in messages). */
static int parse_jwks(const char *text, const char *source, key *set, int *n, char **err)
{
    cJSON *j = cJSON_Parse(text);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "keys");
    const cJSON *k;
    *n = 0;
    cJSON_ArrayForEach(k, list)
    {
        const cJSON *kty = cJSON_GetObjectItemCaseSensitive(k, "kty");
        const cJSON *use = cJSON_GetObjectItemCaseSensitive(k, "use");
        const cJSON *kid = cJSON_GetObjectItemCaseSensitive(k, "kid");
        if (*n >= MAX_KEYS || (cJSON_IsString(use) && strcmp(use->valuestring, "sig")))
            continue;
        key *out = &set[*n];
        *out = (key){0};
        int bits = 0;
        if (cJSON_IsString(kty) && !strcmp(kty->valuestring, "RSA"))
            out->pem = rsa_pem(k), out->family = 'R';
        else if (cJSON_IsString(kty) && !strcmp(kty->valuestring, "EC"))
            out->pem = ec_pem(k, &bits), out->family = 'E', out->bits = bits;
        if (!out->pem)
            continue; /* a key type we cannot verify with: skipped */
        out->kid = cJSON_IsString(kid) ? strdup(kid->valuestring) : NULL;
        (*n)++;
    }
    cJSON_Delete(j);
    if (*n == 0) {
        *err = str_printf("%s holds no RSA or EC (P-256, P-384, P-521) signing key in "
                          "\"keys\" (a JWKS document)",
                          source);
        return -1;
    }
    return 0;
}

/* Replace the key set with `text`'s keys; the old set stays on failure. */
static int install_jwks(const char *text, const char *source, char **err)
{
    key set[MAX_KEYS];
    int n = 0;
    if (parse_jwks(text, source, set, &n, err) < 0)
        return -1;
    pthread_rwlock_wrlock(&keys_lock);
    free_keys(keys, nkeys);
    memcpy(keys, set, sizeof(key) * (size_t)n);
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
    pthread_once(&jl_once, bind_jwt);
    if (jl_error || !jl.decode) {
        *err = str_printf("OAuth mode needs libjwt: %s (install libjwt0)",
                          jl_error ? jl_error : "cannot open it");
        return -1;
    }
    conf = c;
    if (c->oauth_jwks_url)
        return fetch_jwks(err);
    if (c->oauth_jwks_file)
        return load_jwks(c->oauth_jwks_file, err);
    const char *alg = c->oauth_alg ? c->oauth_alg : "";
    if (strlen(alg) != 5 || (alg[0] != 'R' && alg[0] != 'E') || alg[1] != 'S') {
        *err = strdup("[oauth] public_key_file needs algorithm = RS256, RS384, RS512, ES256, "
                      "ES384 or ES512");
        return -1;
    }
    char *pem = read_text(c->oauth_key_file, err);
    if (!pem)
        return -1;
    if (!strstr(pem, "-----BEGIN PUBLIC KEY-----")) {
        free(pem);
        *err = str_printf("%s is not a PEM public key (-----BEGIN PUBLIC KEY-----)",
                          c->oauth_key_file);
        return -1;
    }
    keys[0] = (key){NULL, alg[0], alg[0] == 'E' ? atoi(alg + 2) : 0, pem};
    if (keys[0].bits == 512)
        keys[0].bits = 521;
    nkeys = 1;
    return 0;
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

static int audience_ok(jwt_t *jwt, const char *want)
{
    char *aud = jl.get_grants_json(jwt, "aud");
    cJSON *a = aud ? cJSON_Parse(aud) : NULL;
    free(aud);
    int ok = 0;
    if (cJSON_IsString(a))
        ok = strcmp(a->valuestring, want) == 0;
    if (cJSON_IsArray(a)) {
        const cJSON *it;
        cJSON_ArrayForEach(it, a)
        {
            if (cJSON_IsString(it) && strcmp(it->valuestring, want) == 0)
                ok = 1;
        }
    }
    cJSON_Delete(a);
    return ok;
}

/* The key the token's header names, when its algorithm fits the key:
 * the algorithm is the key's, never the token's choice. */
static const key *key_for(const char *token, const char *dot)
{
    size_t hl = 0;
    unsigned char *hraw = b64_decode(token, (size_t)(dot - token), &hl);
    cJSON *h = hraw ? cJSON_ParseWithLength((const char *)hraw, hl) : NULL;
    free(hraw);
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(h, "alg");
    const cJSON *kid = cJSON_GetObjectItemCaseSensitive(h, "kid");
    const char *a = cJSON_IsString(alg) ? alg->valuestring : "";
    const key *use = NULL;
    if (strlen(a) == 5 && (a[0] == 'R' || a[0] == 'E') && a[1] == 'S') {
        int bits = atoi(a + 2) == 512 ? 521 : atoi(a + 2);
        for (int i = 0; i < nkeys && !use; i++) {
            const key *k = &keys[i];
            if (k->family != a[0] || (k->family == 'E' && k->bits != bits))
                continue;
            if (cJSON_IsString(kid) && k->kid && strcmp(kid->valuestring, k->kid))
                continue;
            use = k;
        }
    }
    cJSON_Delete(h);
    return use;
}

/* Whether `want` is one of the space-separated words of `list`. */
static int has_word(const char *list, const char *want, size_t n)
{
    for (const char *p = list; p && *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, want, n) == 0)
            return 1;
        p += len;
    }
    return 0;
}

/* Every scope of [oauth] scopes is granted: in the token's "scope" (RFC
 * 9068: space-separated) or "scp" (a string or an array of strings). */
static int scopes_ok(jwt_t *jwt)
{
    if (!conf->oauth_scope)
        return 1;
    char *granted = NULL;
    char *scp = jl.get_grants_json(jwt, "scope");
    if (!scp)
        scp = jl.get_grants_json(jwt, "scp");
    cJSON *v = scp ? cJSON_Parse(scp) : NULL;
    free(scp);
    if (cJSON_IsString(v)) {
        granted = strdup(v->valuestring);
    } else if (cJSON_IsArray(v)) {
        const cJSON *it;
        cJSON_ArrayForEach(it, v)
        {
            if (!cJSON_IsString(it) || strchr(it->valuestring, ' '))
                continue;
            char *more = str_printf("%s %s", granted ? granted : "", it->valuestring);
            free(granted);
            granted = more;
        }
    }
    cJSON_Delete(v);
    int ok = 1;
    for (const char *p = conf->oauth_scope; *p && ok;) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        if (n && !has_word(granted, p, n))
            ok = 0;
        p += n;
    }
    free(granted);
    return ok;
}

/* The claims of a token whose signature verified: 0, 401 or 403 (a
 * scope missing), with *desc why not. */
static int claims_check(jwt_t *jwt, const char **error, const char **desc)
{
    time_t now = time(NULL);
    const char *iss = jl.get_grant(jwt, "iss");
    errno = 0;
    long exp = jl.get_grant_int(jwt, "exp");
    int has_exp = errno == 0 && exp > 0;
    errno = 0;
    long nbf = jl.get_grant_int(jwt, "nbf");
    int has_nbf = errno == 0;
    const char *aud = conf->oauth_audience ? conf->oauth_audience : conf->public_url;
    if (!iss || strcmp(iss, conf->oauth_issuer) != 0)
        *desc = "the access token was issued by another authorization server (iss)";
    else if (!audience_ok(jwt, aud))
        *desc = "the access token was not issued for this server (aud)";
    else if (!has_exp)
        *desc = "the access token has no expiry (exp)";
    else if ((long)now > exp + LEEWAY_S)
        *desc = "the access token has expired";
    else if (has_nbf && nbf > (long)now + LEEWAY_S)
        *desc = "the access token is not valid yet (nbf)";
    else if (!scopes_ok(jwt)) {
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
    const char *dot = strchr(token, '.');
    if (!dot || !strchr(dot + 1, '.')) {
        *desc = "the access token is not a JWT";
        return 401;
    }
    pthread_rwlock_rdlock(&keys_lock);
    const key *use = key_for(token, dot);
    if (!use) {
        pthread_rwlock_unlock(&keys_lock);
        /* a key the set lacks: the next tick fetches the set again */
        atomic_store(&want_refresh, 1);
        *desc = "the access token is not signed with a key of this server's authorization "
                "server (alg/kid)";
        return 401;
    }
    jwt_t *jwt = NULL;
    int bad = jl.decode(&jwt, token, (const unsigned char *)use->pem, (int)strlen(use->pem)) != 0;
    pthread_rwlock_unlock(&keys_lock);
    if (bad || !jwt || jl.get_alg(jwt) == JWT_ALG_NONE) {
        if (jwt)
            jl.free(jwt);
        *desc = "the access token's signature does not verify";
        return 401;
    }
    int status = claims_check(jwt, error, desc);
    if (status == 0) {
        const char *sub = jl.get_grant(jwt, "sub");
        snprintf(owner, HTTP_OWNER_MAX, "sub:%.80s", sub ? sub : "");
        *error = NULL;
    }
    jl.free(jwt);
    return status;
}
