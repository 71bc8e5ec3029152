/* SHA-256, HMAC-SHA256 (libcrypto, opened on first use) and base64url
 * against published test vectors (FIPS 180-2, RFC 4231, RFC 4648). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "crypto_lib.h"
#include "digest.h"

static void hex_of(const unsigned char *md, char *out) { digest_hex(md, DIGEST_SHA256_LEN, out); }

static void test_sha256(void **st)
{
    (void)st;
    unsigned char md[DIGEST_SHA256_LEN];
    char hex[2 * DIGEST_SHA256_LEN + 1];
    assert_int_equal(digest_sha256("abc", 3, md, NULL), 0);
    hex_of(md, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(digest_sha256("", 0, md, NULL), 0);
    hex_of(md, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_hmac(void **st)
{
    (void)st;
    unsigned char md[DIGEST_SHA256_LEN];
    char hex[2 * DIGEST_SHA256_LEN + 1];
    unsigned char key[20];
    memset(key, 0x0b, sizeof key); /* RFC 4231 test case 1 */
    assert_int_equal(digest_hmac_sha256(key, sizeof key, "Hi There", 8, md, NULL), 0);
    hex_of(md, hex);
    assert_string_equal(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    /* test case 2: a key shorter than the block */
    assert_int_equal(
        digest_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, md, NULL), 0);
    hex_of(md, hex);
    assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

static void test_equal(void **st)
{
    (void)st;
    assert_true(digest_equal("abcd", "abcd", 4));
    assert_false(digest_equal("abcd", "abce", 4));
    assert_true(digest_equal("x", "y", 0));
}

static void test_b64url(void **st)
{
    (void)st;
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xfb\xff"};
    const char *coded[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy", "-_8"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        char *e = digest_b64url_encode(plain[i], strlen(plain[i]));
        assert_string_equal(e, coded[i]);
        size_t n = 0;
        unsigned char *d = digest_b64url_decode(e, strlen(e), 0, &n);
        assert_non_null(d);
        assert_int_equal(n, strlen(plain[i]));
        assert_memory_equal(d, plain[i], n);
        free(d);
        free(e);
    }
    size_t n;
    assert_null(digest_b64url_decode("Zm9v+", 5, 0, &n));  /* not the url alphabet */
    assert_null(digest_b64url_decode("Zm9vY", 5, 0, &n));  /* no encoder writes 4k+1 */
    assert_null(digest_b64url_decode("Zm=v", 4, 0, &n));   /* no padding */
    /* one encoding per byte string: "Zh" carries "f" with a stray bit */
    assert_null(digest_b64url_decode("Zh", 2, 0, &n));
    assert_null(digest_b64url_decode("Zg==", 4, 0, &n)); /* padding only when allowed */
    unsigned char *d = digest_b64url_decode("Zg==", 4, 1, &n);
    assert_non_null(d);
    assert_int_equal(n, 1);
    assert_int_equal(d[0], 'f');
    free(d);
}

/* The one libcrypto wrapper serves both of its users: the hashes here
 * and the signature checks of OAuth mode open the same library once. */
static void test_one_libcrypto(void **st)
{
    (void)st;
    char *err = NULL;
    assert_int_equal(crypto_lib_open(&err), 0);
    assert_null(err);
    unsigned char a[DIGEST_SHA256_LEN], b[32];
    assert_int_equal(digest_sha256("abc", 3, a, NULL), 0);
    assert_int_equal(crypto_sha256("abc", 3, b), 0);
    assert_memory_equal(a, b, 32);
    assert_int_equal(digest_hmac_sha256("k", 1, "abc", 3, a, NULL), 0);
    assert_int_equal(crypto_hmac_sha256("k", 1, "abc", 3, b), 0);
    assert_memory_equal(a, b, 32);
    assert_null(crypto_key_from_pem("not a key"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_hmac),
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_b64url),
        cmocka_unit_test(test_one_libcrypto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
