/* The JOSE reader: see jose_reader.h.  cJSON keeps a repeated member as
 * a sibling and cJSON_GetObjectItem returns the first, while other
 * parsers (jansson, most JavaScript) keep the last: a token that names
 * "alg" twice means one thing to one reader and another to the next.
 * Refusing every repeated name, at any depth, makes the tree the only
 * reading there is. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>
#include "digest.h"
#include "jose_reader.h"
#include "json_exact.h"

enum part_error {
    PART_OK,
    PART_NOT_B64,
    PART_NOT_OBJECT,
    PART_NOT_JSON,
    PART_DUPLICATE,
    PART_NUL,
    PART_NOT_UTF8,
};

static int utf8_ok(const char *text, size_t n)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    while (n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate(p, (utf8proc_ssize_t)n, &cp);
        if (k <= 0)
            return 0;
        p += k;
        n -= (size_t)k;
    }
    return 1;
}

/* A \u0000 escape inside a string: cJSON would end the C string there,
 * so "alice\u0000x" would read as "alice". */
static int escaped_nul(const char *t, size_t n)
{
    int in_string = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '"') {
            in_string = !in_string;
        } else if (in_string && t[i] == '\\') {
            if (i + 5 < n && t[i + 1] == 'u' && !strncmp(t + i + 2, "0000", 4))
                return 1;
            i++; /* the escaped character */
        }
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 when an object anywhere in `j` names a member twice, -1 when out of
 * memory. */
static int repeated_name(const cJSON *j)
{
    size_t count = 0;
    for (const cJSON *c = j->child; c; c = c->next, count++) {
        int r = repeated_name(c);
        if (r)
            return r;
    }
    if (!cJSON_IsObject(j) || count < 2)
        return 0;
    const char **names = malloc(count * sizeof *names);
    if (!names)
        return -1;
    size_t i = 0;
    for (const cJSON *c = j->child; c; c = c->next)
        names[i++] = c->string ? c->string : "";
    qsort(names, count, sizeof *names, by_name);
    int dup = 0;
    for (i = 1; i < count && !dup; i++)
        dup = strcmp(names[i - 1], names[i]) == 0;
    free(names);
    return dup;
}

static cJSON *parse_json(const char *text, size_t n, enum part_error *e)
{
    if (memchr(text, 0, n))
        return *e = PART_NUL, NULL;
    if (!utf8_ok(text, n))
        return *e = PART_NOT_UTF8, NULL;
    if (escaped_nul(text, n))
        return *e = PART_NUL, NULL;
    /* the host's JSON boundary: cJSON, with JSON's own number grammar */
    const char *end = NULL;
    cJSON *j = json_parse_exact(text, n, &end);
    while (j && end < text + n && strchr(" \t\r\n", *end))
        end++;
    if (j && end != text + n) { /* something after the value */
        cJSON_Delete(j);
        j = NULL;
    }
    if (!j)
        return *e = PART_NOT_JSON, NULL;
    if (repeated_name(j) != 0) {
        cJSON_Delete(j);
        return *e = PART_DUPLICATE, NULL;
    }
    *e = PART_OK;
    return j;
}

cJSON *jose_json_parse(const char *text, size_t n, const char **why)
{
    static const char *const text_of[] = {
        [PART_NOT_JSON] = "is not JSON",
        [PART_DUPLICATE] = "names a member twice in one object",
        [PART_NUL] = "holds a NUL character",
        [PART_NOT_UTF8] = "is not UTF-8",
    };
    enum part_error e;
    cJSON *j = parse_json(text, n, &e);
    if (!j)
        *why = text_of[e];
    return j;
}

/* One base64url part of a token, decoded and parsed as a JSON object. */
static cJSON *read_part(const char *s, size_t len, enum part_error *e)
{
    size_t n = 0;
    unsigned char *raw = digest_b64url_decode(s, len, 0, &n);
    if (!raw)
        return *e = PART_NOT_B64, NULL;
    cJSON *j = parse_json((const char *)raw, n, e);
    free(raw);
    if (j && !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return *e = PART_NOT_OBJECT, NULL;
    }
    return j;
}

/* The header parameters RFC 7515, 7516 and 7797 register: one spelt in
 * another case ("ALG", "Kid") is refused, since a reader that folds case
 * would take it for the real one. */
static int case_variant(const cJSON *header)
{
    static const char *const registered[] = {"alg",  "jku", "jwk",      "kid", "x5u",
                                             "x5c",  "x5t", "x5t#S256", "typ", "cty",
                                             "crit", "enc", "zip",      "b64", NULL};
    for (const cJSON *c = header->child; c; c = c->next)
        for (const char *const *r = registered; *r; r++)
            if (!strcasecmp(c->string, *r) && strcmp(c->string, *r))
                return 1;
    return 0;
}

static const char *header_check(const cJSON *h)
{
    const cJSON *alg = cJSON_GetObjectItemCaseSensitive(h, "alg");
    const cJSON *kid = cJSON_GetObjectItemCaseSensitive(h, "kid");
    if (case_variant(h))
        return "the access token's header spells a registered parameter (alg, kid, typ, crit, "
               "...) in another case";
    if (cJSON_GetObjectItemCaseSensitive(h, "crit"))
        return "the access token's header has crit: this server understands no JOSE extension";
    if (!cJSON_IsString(alg) || !alg->valuestring[0])
        return "the access token's header has no alg";
    if (kid && !cJSON_IsString(kid))
        return "the access token's header has a kid that is not a string";
    return NULL;
}

static const char *part_why(int payload, enum part_error e)
{
    static const char *const header[] = {
        [PART_NOT_B64] = "the access token's header is not base64url (without padding)",
        [PART_NOT_OBJECT] = "the access token's header is not a JSON object",
        [PART_NOT_JSON] = "the access token's header is not JSON",
        [PART_DUPLICATE] = "the access token's header names a member twice",
        [PART_NUL] = "the access token's header holds a NUL character",
        [PART_NOT_UTF8] = "the access token's header is not UTF-8",
    };
    static const char *const claims[] = {
        [PART_NOT_B64] = "the access token's payload is not base64url (without padding)",
        [PART_NOT_OBJECT] = "the access token's payload is not a JSON object",
        [PART_NOT_JSON] = "the access token's payload is not JSON",
        [PART_DUPLICATE] = "the access token's claims name a member twice",
        [PART_NUL] = "the access token's claims hold a NUL character",
        [PART_NOT_UTF8] = "the access token's claims are not UTF-8",
    };
    return payload ? claims[e] : header[e];
}

int jose_jws_read(const char *token, jose_jws *out, const char **why)
{
    *out = (jose_jws){0};
    if (strnlen(token, JOSE_TOKEN_MAX + 1) > JOSE_TOKEN_MAX)
        return *why = "the access token is longer than 16384 bytes", -1;
    const char *d1 = strchr(token, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d2)
        return *why = "the access token is not a JWT (three base64url parts)", -1;
    if (strchr(d2 + 1, '.'))
        return *why = "the access token is not a signed JWT (an encrypted JWE is not accepted)", -1;
    enum part_error e;
    out->header = read_part(token, (size_t)(d1 - token), &e);
    if (!out->header)
        return *why = part_why(0, e), -1;
    if ((*why = header_check(out->header)) != NULL) {
        jose_jws_free(out);
        return -1;
    }
    out->claims = read_part(d1 + 1, (size_t)(d2 - d1 - 1), &e);
    if (!out->claims) {
        jose_jws_free(out);
        return *why = part_why(1, e), -1;
    }
    out->sig = digest_b64url_decode(d2 + 1, strlen(d2 + 1), 0, &out->sig_len);
    if (!out->sig) {
        jose_jws_free(out);
        return *why = "the access token's signature is not base64url (without padding)", -1;
    }
    const cJSON *kid = cJSON_GetObjectItemCaseSensitive(out->header, "kid");
    out->alg = cJSON_GetObjectItemCaseSensitive(out->header, "alg")->valuestring;
    out->kid = kid ? kid->valuestring : NULL;
    out->signed_len = (size_t)(d2 - token);
    return 0;
}

void jose_jws_free(jose_jws *j)
{
    cJSON_Delete(j->header);
    cJSON_Delete(j->claims);
    free(j->sig);
    *j = (jose_jws){0};
}
