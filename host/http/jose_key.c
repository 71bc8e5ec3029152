/* Verification keys: see jose_key.h.  JWKs become DER SubjectPublicKeyInfo
 * (written in jose_der.c) that OpenSSL decodes and checks (an EC point
 * off its curve is refused there). */
#include <stdlib.h>
#include <string.h>
#include "digest.h"
#include "jose_der.h"
#include "jose_key.h"
#include "jose_reader.h"
#include "strutil.h"

#define RSA_MIN_BITS 2048 /* RFC 7518 section 3.3 */

static const struct alg_info {
    const char *name;
    enum crypto_family family;
    int sha;
    size_t half; /* ES*: the size of r and of s */
} algs[] = {
    {"RS256", CRYPTO_RSA, 256, 0},   {"RS384", CRYPTO_RSA, 384, 0},
    {"RS512", CRYPTO_RSA, 512, 0},   {"ES256", CRYPTO_P256, 256, 32},
    {"ES384", CRYPTO_P384, 384, 48}, {"ES512", CRYPTO_P521, 512, 66},
};

static const struct alg_info *alg_named(const char *name)
{
    for (size_t i = 0; name && i < sizeof algs / sizeof algs[0]; i++)
        if (!strcmp(algs[i].name, name))
            return &algs[i];
    return NULL;
}

/* The bytes of a JWK's base64url member, or NULL. */
static unsigned char *member(const cJSON *jwk, const char *name, size_t *n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(jwk, name);
    if (!cJSON_IsString(v))
        return NULL;
    return digest_b64url_decode(v->valuestring, strlen(v->valuestring), 1, n);
}

static crypto_key *rsa_key(const cJSON *jwk)
{
    static const unsigned char oid[] = {0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7,
                                        0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
    size_t nl = 0, el = 0;
    unsigned char *n = member(jwk, "n", &nl), *e = member(jwk, "e", &el);
    crypto_key *k = NULL;
    if (n && e && nl && el) {
        jose_der ints = {0}, seq = {0}, spki = {0};
        jose_der_integer(&ints, n, nl);
        jose_der_integer(&ints, e, el);
        jose_der_wrap(&seq, 0x30, &ints);
        if (jose_der_spki(oid, sizeof oid, &seq, &spki) == 0)
            k = crypto_key_from_der(spki.p, spki.n);
        jose_der_free(&ints);
        jose_der_free(&seq);
        jose_der_free(&spki);
    }
    free(n);
    free(e);
    return k;
}

static crypto_key *ec_key(const cJSON *jwk, const struct alg_info *a)
{
    static const unsigned char ec[] = {0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
    static const unsigned char p256[] = {0x06, 0x08, 0x2a, 0x86, 0x48,
                                         0xce, 0x3d, 0x03, 0x01, 0x07};
    static const unsigned char p384[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22};
    static const unsigned char p521[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23};
    const unsigned char *curve = a->family == CRYPTO_P256   ? p256
                                 : a->family == CRYPTO_P384 ? p384
                                                            : p521;
    size_t curve_len = a->family == CRYPTO_P256 ? sizeof p256 : sizeof p384;
    size_t xl = 0, yl = 0;
    unsigned char *x = member(jwk, "x", &xl), *y = member(jwk, "y", &yl);
    crypto_key *k = NULL;
    if (x && y && xl == a->half && yl == a->half) {
        unsigned char alg[32];
        memcpy(alg, ec, sizeof ec);
        memcpy(alg + sizeof ec, curve, curve_len);
        jose_der point = {0}, spki = {0};
        jose_der_put(&point, "\x04", 1); /* uncompressed */
        jose_der_put(&point, x, xl);
        jose_der_put(&point, y, yl);
        if (jose_der_spki(alg, sizeof ec + curve_len, &point, &spki) == 0)
            k = crypto_key_from_der(spki.p, spki.n);
        jose_der_free(&point);
        jose_der_free(&spki);
    }
    free(x);
    free(y);
    return k;
}

/* Whether `k` is a key `a` verifies with. */
static int fits(const crypto_key *k, const struct alg_info *a)
{
    int bits = 0;
    enum crypto_family f = crypto_key_family(k, &bits);
    return f == a->family && (f != CRYPTO_RSA || bits >= RSA_MIN_BITS);
}

static int for_signing(const cJSON *jwk)
{
    const cJSON *use = cJSON_GetObjectItemCaseSensitive(jwk, "use");
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(jwk, "key_ops");
    if (use && (!cJSON_IsString(use) || strcmp(use->valuestring, "sig")))
        return 0;
    if (!ops)
        return 1;
    const cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        if (cJSON_IsString(op) && !strcmp(op->valuestring, "verify"))
            return 1;
    }
    return 0;
}

/* The algorithm of a JWK: its "alg", or its type's default. */
static const struct alg_info *jwk_alg(const char *kty, const cJSON *jwk, const char **why)
{
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(jwk, "alg");
    const cJSON *crv = cJSON_GetObjectItemCaseSensitive(jwk, "crv");
    const struct alg_info *want = NULL;
    if (!strcmp(kty, "RSA")) {
        want = &algs[0];
    } else if (cJSON_IsString(crv)) {
        const char *c = crv->valuestring;
        want = !strcmp(c, "P-256")   ? &algs[3]
               : !strcmp(c, "P-384") ? &algs[4]
               : !strcmp(c, "P-521") ? &algs[5]
                                     : NULL;
        if (!want)
            return *why = "an EC key on a curve other than P-256, P-384 or P-521", NULL;
    } else {
        return *why = "an EC key without crv", NULL;
    }
    if (!alg)
        return want;
    const struct alg_info *a = cJSON_IsString(alg) ? alg_named(alg->valuestring) : NULL;
    if (!a || a->family != want->family)
        return *why = "a key whose alg is not RS256, RS384, RS512 or the ES algorithm of its "
                      "curve",
               NULL;
    return a;
}

int jose_key_from_jwk(const cJSON *jwk, jose_key *out, const char **why)
{
    *out = (jose_key){0};
    const cJSON *kty = cJSON_GetObjectItemCaseSensitive(jwk, "kty");
    const cJSON *kid = cJSON_GetObjectItemCaseSensitive(jwk, "kid");
    if (!cJSON_IsObject(jwk))
        return *why = "a key that is not a JSON object", -1;
    if (!for_signing(jwk))
        return 1;
    if (!cJSON_IsString(kty) || (strcmp(kty->valuestring, "RSA") && strcmp(kty->valuestring, "EC")))
        return *why = "a key whose kty is not RSA or EC", -1;
    if (kid && !cJSON_IsString(kid))
        return *why = "a key whose kid is not a string", -1;
    const struct alg_info *a = jwk_alg(kty->valuestring, jwk, why);
    if (!a)
        return -1;
    crypto_key *k = a->family == CRYPTO_RSA ? rsa_key(jwk) : ec_key(jwk, a);
    if (!k || !fits(k, a)) {
        crypto_key_free(k);
        return *why = a->family == CRYPTO_RSA
                          ? "an RSA key that is malformed or shorter than 2048 bits"
                          : "an EC key that is malformed (x and y of the curve's size, a point "
                            "on the curve)",
               -1;
    }
    out->key = k;
    strcpy(out->alg, a->name);
    out->kid = kid ? strdup(kid->valuestring) : NULL;
    if (kid && !out->kid) {
        jose_key_free(out);
        return *why = "out of memory", -1;
    }
    return 0;
}

int jose_key_from_pem(const char *pem, const char *alg, const char *what, jose_key *out, char **err)
{
    *out = (jose_key){0};
    const struct alg_info *a = alg_named(alg);
    if (!a) {
        *err = str_printf("[oauth] public_key_file needs algorithm = RS256, RS384, RS512, ES256, "
                          "ES384 or ES512, got %s",
                          alg ? alg : "none");
        return -1;
    }
    crypto_key *k = crypto_key_from_pem(pem);
    if (!k) {
        *err = str_printf("%s is not a PEM public key (-----BEGIN PUBLIC KEY-----)", what);
        return -1;
    }
    if (!fits(k, a)) {
        crypto_key_free(k);
        *err = str_printf("%s is no key for algorithm = %s: it needs %s", what, a->name,
                          a->family == CRYPTO_RSA    ? "an RSA key of 2048 bits or more"
                          : a->family == CRYPTO_P256 ? "an EC key on P-256"
                          : a->family == CRYPTO_P384 ? "an EC key on P-384"
                                                     : "an EC key on P-521");
        return -1;
    }
    out->key = k;
    strcpy(out->alg, a->name);
    return 0;
}

void jose_key_free(jose_key *k)
{
    free(k->kid);
    crypto_key_free(k->key);
    *k = (jose_key){0};
}

int jose_key_verify(const jose_key *k, const unsigned char *data, size_t n,
                    const unsigned char *sig, size_t sig_len)
{
    const struct alg_info *a = alg_named(k->alg);
    if (!a || !k->key)
        return -1;
    if (a->family == CRYPTO_RSA)
        return crypto_verify(k->key, a->sha, data, n, sig, sig_len);
    /* JWS carries r || s of fixed size; OpenSSL verifies the DER form */
    if (sig_len != 2 * a->half)
        return -1;
    jose_der der = {0};
    if (jose_der_ecdsa_sig(sig, a->half, &der) < 0)
        return -1;
    int rc = crypto_verify(k->key, a->sha, data, n, der.p, der.n);
    jose_der_free(&der);
    return rc;
}
