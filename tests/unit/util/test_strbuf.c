/* The string builder and printf-to-string that plugins reach through
 * api->strbuf_* and api->format (host/strbuf.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "strbuf.h"
#include "strutil.h"

static void test_format(void **st)
{
    (void)st;
    char *s = str_printf("%s-%d-%zu", "x", -3, (size_t)7);
    assert_string_equal(s, "x--3-7");
    free(s);
    s = str_printf("%s", "");
    assert_string_equal(s, "");
    free(s);
}

static void test_build(void **st)
{
    (void)st;
    vt_strbuf b = VT_STRBUF_INIT;
    assert_int_equal(strbuf_append(&b, "ab", 2), 0);
    assert_int_equal(strbuf_append(&b, "cdef", 2), 0); /* only len bytes */
    assert_int_equal(strbuf_printf(&b, "[%d]", 42), 0);
    assert_int_equal(b.len, 8);
    assert_string_equal(b.data, "abcd[42]");
    char *s = strbuf_take(&b);
    assert_string_equal(s, "abcd[42]");
    free(s);
    assert_null(b.data); /* left empty and reusable */
    assert_int_equal(b.len, 0);
    s = strbuf_take(&b); /* empty builder: "" */
    assert_string_equal(s, "");
    free(s);
}

/* Growth across many doublings, byte-exact, with embedded NULs kept. */
static void test_growth(void **st)
{
    (void)st;
    vt_strbuf b = VT_STRBUF_INIT;
    for (int i = 0; i < 100000; i++)
        assert_int_equal(strbuf_printf(&b, "%05d", i % 100000), 0);
    assert_int_equal(b.len, 500000);
    assert_memory_equal(b.data + 5 * 12345, "12345", 5);
    assert_true(b.cap > b.len);
    assert_int_equal(b.data[b.len], '\0');
    strbuf_append(&b, "\0z", 2);
    assert_int_equal(b.len, 500002);
    assert_int_equal(b.data[500001], 'z');
    strbuf_reset(&b);
    assert_null(b.data);
    assert_int_equal(b.cap, 0);
}

/* A failed builder stays failed: appends are no-ops, take gives NULL
 * and frees what was built. */
static void test_failure_sticks(void **st)
{
    (void)st;
    vt_strbuf b = VT_STRBUF_INIT;
    strbuf_append(&b, "abc", 3);
    assert_int_equal(strbuf_append(&b, "x", SIZE_MAX - 2), VT_ERR_NOMEM);
    assert_true(b.failed);
    assert_int_equal(strbuf_printf(&b, "%d", 1), VT_ERR_NOMEM);
    assert_int_equal(b.len, 3);
    assert_null(strbuf_take(&b));
    assert_false(b.failed);
    assert_int_equal(strbuf_append(&b, "ok", 2), 0); /* reusable */
    char *s = strbuf_take(&b);
    assert_string_equal(s, "ok");
    free(s);
}

/* Plugins reach the same functions through the 1.2 table members. */
static void test_api_members(void **st)
{
    (void)st;
    const vt_host_api *api = api_table();
    assert_true(VT_HAS(api, format));
    assert_true(VT_HAS(api, strbuf_reset));
    vt_strbuf b = VT_STRBUF_INIT;
    api->strbuf_printf(&b, "%s=%d", "n", 5);
    char *s = api->strbuf_take(&b);
    char *t = api->format("<%s>", s);
    assert_string_equal(t, "<n=5>");
    api->free(s);
    api->free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_failure_sticks),
        cmocka_unit_test(test_api_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
