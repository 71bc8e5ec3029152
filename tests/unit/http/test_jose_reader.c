/* The JOSE reader: strict base64url, one reading of each JSON part (no
 * repeated member anywhere, no NUL, UTF-8 only), and the header rules of
 * a JWS (alg present, no crit, no registered name in another case). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "digest.h"
#include "jose_reader.h"

static char *b64u(const char *s)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t n = strlen(s);
    char *out = malloc(n / 3 * 4 + 5), *w = out;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *w++ = tab[v >> 18 & 63];
        *w++ = tab[v >> 12 & 63];
        if (i + 1 < n)
            *w++ = tab[v >> 6 & 63];
        if (i + 2 < n)
            *w++ = tab[v & 63];
    }
    *w = 0;
    return out;
}

/* header.payload.c2ln (the signature is not judged by the reader) */
static char *token(const char *header, const char *payload)
{
    char *h = b64u(header), *p = b64u(payload);
    size_t n = strlen(h) + strlen(p) + 8;
    char *t = malloc(n);
    snprintf(t, n, "%s.%s.c2ln", h, p);
    free(h);
    free(p);
    return t;
}

/* The reason a token is refused, or NULL when it is read. */
static const char *refusal(const char *header, const char *payload)
{
    char *t = token(header, payload);
    jose_jws j;
    const char *why = NULL;
    int rc = jose_jws_read(t, &j, &why);
    free(t);
    if (rc == 0) {
        jose_jws_free(&j);
        return NULL;
    }
    assert_non_null(why);
    return why;
}

static void test_b64url_canonical_only(void **state)
{
    (void)state;
    size_t n = 0;
    unsigned char *d = digest_b64url_decode("YWI", 3, 0, &n);
    assert_non_null(d);
    assert_int_equal(n, 2);
    assert_memory_equal(d, "ab", 2);
    free(d);
    d = digest_b64url_decode("-_8", 3, 0, &n);
    assert_non_null(d);
    assert_int_equal(d[0], 0xfb);
    assert_int_equal(d[1], 0xff);
    free(d);
    /* padding, the plain alphabet, a lone character, stray bits, spaces */
    static const char *const bad[] = {"YWI=", "YQ==", "+/8", "YWJjZ", "YWJ", "YR", "YW I"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_null(digest_b64url_decode(bad[i], strlen(bad[i]), 0, &n));
    /* JWK members may carry padding, and only padding */
    d = digest_b64url_decode("YWI=", 4, 1, &n);
    assert_non_null(d);
    assert_int_equal(n, 2);
    free(d);
    assert_null(digest_b64url_decode("YW==", 4, 1, &n));
    assert_null(digest_b64url_decode("Y===", 4, 1, &n));
}

static void test_repeated_names_refused_at_any_depth(void **state)
{
    (void)state;
    const char *why = NULL;
    static const char *const bad[] = {
        "{\"a\":1,\"a\":2}",
        "{\"a\":{\"b\":1,\"c\":{\"d\":[{\"e\":1,\"f\":2,\"e\":3}]}}}",
        "[{\"x\":1},{\"y\":2,\"y\":2}]",
        "{\"z\":1,\"y\":1,\"x\":1,\"w\":1,\"z\":1}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why = NULL;
        assert_null(jose_json_parse(bad[i], strlen(bad[i]), &why));
        assert_string_equal(why, "names a member twice in one object");
    }
    /* names differing in case or in one byte are different names */
    const char *ok = "{\"a\":1,\"A\":2,\"b\":{\"a\":1},\"c\":[{\"a\":1},{\"a\":2}]}";
    cJSON *j = jose_json_parse(ok, strlen(ok), &why);
    assert_non_null(j);
    cJSON_Delete(j);
}

static void test_nul_and_not_utf8_refused(void **state)
{
    (void)state;
    const char *why = NULL;
    const char *esc = "{\"sub\":\"alice\\u0000x\"}";
    assert_null(jose_json_parse(esc, strlen(esc), &why));
    assert_string_equal(why, "holds a NUL character");
    const char raw[] = "{\"sub\":\"a\0b\"}";
    assert_null(jose_json_parse(raw, sizeof raw - 1, &why));
    const char *overlong = "{\"sub\":\"\xc0\xaf\"}";
    assert_null(jose_json_parse(overlong, strlen(overlong), &why));
    assert_string_equal(why, "is not UTF-8");
    /* an escaped backslash before u0000 is text, not a NUL */
    const char *text = "{\"s\":\"\\\\u0000\"}";
    cJSON *j = jose_json_parse(text, strlen(text), &why);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "s")->valuestring, "\\u0000");
    cJSON_Delete(j);
    /* trailing text after the value, and numbers outside JSON's grammar */
    assert_null(jose_json_parse("{} x", 4, &why));
    assert_null(jose_json_parse("{\"exp\":01}", 10, &why));
}

static void test_jws_header_rules(void **state)
{
    (void)state;
    const char *claims = "{\"sub\":\"alice\"}";
    assert_null(refusal("{\"alg\":\"RS256\",\"kid\":\"k1\"}", claims));
    assert_string_equal(refusal("{\"alg\":\"RS256\",\"kid\":\"k1\",\"alg\":\"HS256\"}", claims),
                        "the access token's header names a member twice");
    assert_string_equal(refusal("{\"alg\":\"RS256\",\"kid\":\"k1\",\"kid\":\"e1\"}", claims),
                        "the access token's header names a member twice");
    const char *cased = "the access token's header spells a registered parameter (alg, kid, "
                        "typ, crit, ...) in another case";
    assert_string_equal(refusal("{\"ALG\":\"HS256\",\"alg\":\"RS256\"}", claims), cased);
    assert_string_equal(refusal("{\"Alg\":\"RS256\",\"alg\":\"RS256\"}", claims), cased);
    assert_string_equal(refusal("{\"alg\":\"RS256\",\"KID\":\"k1\"}", claims), cased);
    assert_string_equal(refusal("{\"alg\":\"RS256\",\"crit\":[\"exp\"],\"exp\":1}", claims),
                        "the access token's header has crit: this server understands no JOSE "
                        "extension");
    assert_string_equal(refusal("{\"ALG\":\"RS256\"}", claims), cased);
    assert_string_equal(refusal("{\"typ\":\"JWT\"}", claims), "the access token's header has no alg");
    assert_string_equal(refusal("{\"alg\":\"RS256\",\"kid\":7}", claims),
                        "the access token's header has a kid that is not a string");
    assert_string_equal(refusal("[\"alg\"]", claims), "the access token's header is not a JSON object");
    assert_string_equal(refusal("{\"alg\":\"RS256\"}", "{\"sub\":\"alice\",\"sub\":\"root\"}"),
                        "the access token's claims name a member twice");
    assert_string_equal(refusal("{\"alg\":\"RS256\"}", "{\"sub\":\"root\\u0000x\"}"),
                        "the access token's claims hold a NUL character");
}

static void test_jws_structure(void **state)
{
    (void)state;
    char *t = token("{\"alg\":\"ES256\",\"kid\":\"e1\"}", "{\"sub\":\"alice\"}");
    jose_jws j;
    const char *why = NULL;
    assert_int_equal(jose_jws_read(t, &j, &why), 0);
    assert_string_equal(j.alg, "ES256");
    assert_string_equal(j.kid, "e1");
    assert_int_equal(j.signed_len, (size_t)(strrchr(t, '.') - t));
    assert_int_equal(j.sig_len, 3);
    assert_memory_equal(j.sig, "sig", 3);
    assert_string_equal(cJSON_GetObjectItem(j.claims, "sub")->valuestring, "alice");
    jose_jws_free(&j);
    /* a padded header, four or five parts, an over-long token */
    char *dot = strchr(t, '.');
    size_t hl = (size_t)(dot - t);
    char *padded = malloc(strlen(t) + 4);
    memcpy(padded, t, hl);
    strcpy(padded + hl, "=");
    strcat(padded, dot);
    assert_int_equal(jose_jws_read(padded, &j, &why), -1);
    assert_string_equal(why, "the access token's header is not base64url (without padding)");
    free(padded);
    assert_int_equal(jose_jws_read("a.b.c.d.e", &j, &why), -1);
    assert_int_equal(jose_jws_read("a.b", &j, &why), -1);
    char *big = malloc(JOSE_TOKEN_MAX + 2);
    memset(big, 'A', JOSE_TOKEN_MAX + 1);
    big[JOSE_TOKEN_MAX + 1] = 0;
    assert_int_equal(jose_jws_read(big, &j, &why), -1);
    assert_string_equal(why, "the access token is longer than 16384 bytes");
    free(big);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b64url_canonical_only),
        cmocka_unit_test(test_repeated_names_refused_at_any_depth),
        cmocka_unit_test(test_nul_and_not_utf8_refused),
        cmocka_unit_test(test_jws_header_rules),
        cmocka_unit_test(test_jws_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
