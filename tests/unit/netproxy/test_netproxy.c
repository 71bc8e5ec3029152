/* [sandbox.network] entries (netproxy_rules.c): what parses, what is
 * refused with the key named, how names, wildcards, ports and literals
 * match, denied winning; and request heads (netproxy_http.c): CONNECT,
 * absolute URIs rewritten for the origin server, what is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
#include "netproxy_http.h"
#include "netproxy_rules.h"

static const vt_host_api test_api = {.struct_size = sizeof(vt_host_api), .free = free};
const vt_host_api *api = &test_api;

static int parse(const char *json, netproxy_rules *r, char **err)
{
    cJSON *c = cJSON_Parse(json);
    assert_non_null(c);
    int rc = netproxy_rules_parse(c, r, err);
    cJSON_Delete(c);
    return rc;
}

static void test_matching(void **st)
{
    (void)st;
    netproxy_rules r;
    char *err = NULL;
    assert_int_equal(parse("{\"sandbox\":{\"network\":{\"allowed_domains\":[\"Registry.NPMjs.org.\","
                           "\"*.example.com\",\"git.test:443\",\"10.0.0.5\",\"[fd00::1]:8080\","
                           "\"localhost\"],\"denied_domains\":[\"bad.example.com\"]}}}",
                           &r, &err),
                     VT_OK);
    assert_int_equal(netproxy_rules_judge(&r, "registry.npmjs.org", 443), NETPROXY_ALLOWED);
    assert_int_equal(netproxy_rules_judge(&r, "REGISTRY.npmjs.org.", 80), NETPROXY_ALLOWED);
    assert_int_equal(netproxy_rules_judge(&r, "evil-registry.npmjs.org", 443), NETPROXY_UNLISTED);
    assert_int_equal(netproxy_rules_judge(&r, "a.b.example.com", 443), NETPROXY_ALLOWED);
    assert_int_equal(netproxy_rules_judge(&r, "example.com", 443), NETPROXY_UNLISTED);
    assert_int_equal(netproxy_rules_judge(&r, "badexample.com", 443), NETPROXY_UNLISTED);
    assert_int_equal(netproxy_rules_judge(&r, "bad.example.com", 443), NETPROXY_DENIED);
    assert_int_equal(netproxy_rules_judge(&r, "git.test", 443), NETPROXY_ALLOWED);
    assert_int_equal(netproxy_rules_judge(&r, "git.test", 22), NETPROXY_UNLISTED);
    assert_int_equal(netproxy_rules_judge(&r, "10.0.0.5", 1), NETPROXY_ALLOWED);
    assert_int_equal(netproxy_rules_judge(&r, "10.0.0.6", 1), NETPROXY_UNLISTED);
    assert_int_equal(netproxy_rules_judge(&r, "fd00:0::1", 8080), NETPROXY_ALLOWED);
    assert_int_equal(netproxy_rules_judge(&r, "[fd00::1]", 8081), NETPROXY_UNLISTED);
    assert_int_equal(netproxy_rules_judge(&r, "a b", 80), NETPROXY_UNLISTED);
    assert_true(netproxy_rules_lists(&r, "localhost", 5));
    assert_true(netproxy_rules_lists(&r, "10.0.0.5", 5));
    assert_false(netproxy_rules_lists(&r, "x.example.com", 5));
    netproxy_rules_free(&r);
}

static void test_refused_entries(void **st)
{
    (void)st;
    static const char *const bad[] = {
        "{\"sandbox\":{\"network\":{\"allowed_domains\":\"x.test\"}}}",
        "{\"sandbox\":{\"network\":{\"allowed_domains\":[\"*.com\"]}}}",
        "{\"sandbox\":{\"network\":{\"allowed_domains\":[\"a..b\"]}}}",
        "{\"sandbox\":{\"network\":{\"allowed_domains\":[\"x.test:0\"]}}}",
        "{\"sandbox\":{\"network\":{\"allowed_domains\":[\"x.test:99999\"]}}}",
        "{\"sandbox\":{\"network\":{\"denied_domains\":[\"http://x.test/\"]}}}",
        "{\"sandbox\":{\"network\":{\"denied_domains\":[3]}}}",
        "{\"sandbox\":{\"network\":{\"max_connections\":0}}}",
        "{\"sandbox\":{\"network\":[]}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        netproxy_rules r;
        char *err = NULL;
        assert_int_equal(parse(bad[i], &r, &err), VT_ERR_INVALID);
        assert_non_null(err);
        assert_non_null(strstr(err, "sandbox.network"));
        free(err);
        assert_int_equal(r.nallow + r.ndeny, 0);
    }
}

static void test_connect_head(void **st)
{
    (void)st;
    const char *in = "CONNECT reg.test:443 HTTP/1.1\r\nHost: reg.test:443\r\n\r\n\x16\x03\x01";
    netproxy_request q;
    const char *why = NULL;
    assert_int_equal(netproxy_http_parse(in, strlen(in), &q, &why), 1);
    assert_true(q.connect);
    assert_string_equal(q.host, "reg.test");
    assert_int_equal(q.port, 443);
    assert_int_equal(q.consumed, strlen(in) - 3); /* the tunnel's first bytes are left */
    assert_null(q.head);
    /* an incomplete head asks for more */
    assert_int_equal(netproxy_http_parse(in, 20, &q, &why), 0);
}

static void test_plain_head(void **st)
{
    (void)st;
    const char *in = "POST http://Reg.Test:8080/p/a?x=1 HTTP/1.1\r\nHost: elsewhere.test\r\n"
                     "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\n"
                     "Content-Length: 4\r\n\r\nbody";
    netproxy_request q;
    const char *why = NULL;
    assert_int_equal(netproxy_http_parse(in, strlen(in), &q, &why), 1);
    assert_false(q.connect);
    assert_string_equal(q.host, "Reg.Test");
    assert_int_equal(q.port, 8080);
    assert_int_equal(q.consumed, strlen(in) - 4);
    char *h = strndup(q.head, q.head_len);
    assert_string_equal(h, "POST /p/a?x=1 HTTP/1.1\r\nContent-Length: 4\r\n"
                           "Host: Reg.Test:8080\r\nConnection: close\r\n\r\n");
    free(h);
    free(q.head);
}

static void test_refused_heads(void **st)
{
    (void)st;
    static const char *const bad[] = {
        "GET /origin-form HTTP/1.1\r\nHost: x.test\r\n\r\n", /* not a proxy request */
        "GET ftp://x.test/ HTTP/1.1\r\n\r\n",
        "CONNECT x.test HTTP/1.1\r\n\r\n", /* no port */
        "GARBAGE\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        netproxy_request q;
        const char *why = NULL;
        assert_int_equal(netproxy_http_parse(bad[i], strlen(bad[i]), &q, &why), -1);
        assert_non_null(why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matching),        cmocka_unit_test(test_refused_entries),
        cmocka_unit_test(test_connect_head),    cmocka_unit_test(test_plain_head),
        cmocka_unit_test(test_refused_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
