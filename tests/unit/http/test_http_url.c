/* [oauth] jwks_url: plain http only when the host libcurl parses out of
 * the URL is this machine; a host that merely starts like one, or a
 * userinfo that looks like one, is another machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "http_config.h"

static int secure(const char *url)
{
    char *err = NULL;
    int rc = http_config_url_secure(url, &err);
    if (rc < 0)
        assert_non_null(err);
    free(err);
    return rc;
}

static void test_loopback_judged_on_the_parsed_host(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "https://auth.example.com/jwks.json", "http://127.0.0.1:8080/", "http://127.0.0.1/j",
        "http://127.8.9.10:1/",              "http://[::1]/",          "http://[::1]:9000/jwks",
        "http://localhost/",                 "http://localhost:8080/jwks.json",
        "HTTP://LOCALHOST/",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_int_equal(secure(yes[i]), 1);
    static const char *const no[] = {
        "http://127.evil.example/",          "http://127.0.0.1.evil.example/",
        "http://localhost.evil/",            "http://127.0.0.1@evil.example/",
        "http://127.0.0.1:80@evil.example/", "http://localhost:x@evil.example/jwks",
        "http://[::1]@evil.example/",        "http://evil.example/#@127.0.0.1/",
        "http://auth.example.com/jwks.json", "http://[::ffff:8.8.8.8]/",
        "http://10.0.0.1/",                  "ftp://127.0.0.1/",
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_true(secure(no[i]) <= 0);
    /* not a URL at all */
    assert_int_equal(secure("127.0.0.1/jwks.json"), -1);
    assert_int_equal(secure("http://"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback_judged_on_the_parsed_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
