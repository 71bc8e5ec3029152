/* English stemming of search terms (Snowball, libstemmer): inflections
 * meet at one stem, and a query matches a description in another form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "bm25.h"
#include "opened_lib.h"
#include "lazy_lib.h"
#include "stem.h"

static const char *stem(const char *w)
{
    static char out[64];
    size_t n;
    stem_word(w, strlen(w), out, sizeof out, &n);
    assert_int_equal(n, strlen(out));
    return out;
}

static void test_inflections_meet(void **state)
{
    (void)state;
    const char *const groups[][4] = {
        {"greet", "greets", "greeting", "greeted"},
        {"search", "searches", "searching", "searched"},
        {"run", "running", "runs", NULL},
        {"file", "files", NULL, NULL},
        {"connect", "connection", "connected", "connecting"},
    };
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        char first[64];
        snprintf(first, sizeof first, "%s", stem(groups[g][0]));
        for (size_t k = 1; k < 4 && groups[g][k]; k++)
            assert_string_equal(stem(groups[g][k]), first);
    }
    /* different words stay apart */
    char greet[64];
    snprintf(greet, sizeof greet, "%s", stem("greet"));
    assert_string_not_equal(greet, stem("green"));
    /* short and non-English terms pass through */
    assert_string_equal(stem("ls"), "ls");
    assert_string_equal(stem("utf8proc"), "utf8proc");
}

static void test_too_long_is_unchanged(void **state)
{
    (void)state;
    char out[8];
    size_t n;
    stem_word("connections", 11, out, sizeof out, &n);
    assert_int_equal(n, 7); /* cut to what fits, never overrun */
    assert_string_equal(out, "connect");
}

static int collect(void *ctx, const char *term, size_t len)
{
    char *buf = ctx;
    if (*buf)
        strcat(buf, " ");
    strncat(buf, term, len);
    return 0;
}

static void test_split_stems_every_term(void **state)
{
    (void)state;
    char buf[256] = "";
    assert_int_equal(stem_split("Greets the users by Names", 25, collect, buf), 0);
    assert_string_equal(buf, "greet the user by name");
}

static void test_query_matches_other_form(void **state)
{
    (void)state;
    bm25_index *ix = NULL;
    assert_int_equal(bm25_new(&ix), 0);
    const char *docs[][2] = {
        {"hello", "Greets a person by name."},
        {"weather", "Reports the weather for a city."},
        {"list_files", "Lists the files of a directory."},
    };
    for (size_t i = 0; i < 3; i++) {
        bm25_field f[2] = {{docs[i][0], strlen(docs[i][0]), 1},
                           {docs[i][1], strlen(docs[i][1]), 0}};
        uint32_t d;
        assert_int_equal(bm25_add(ix, f, 2, &d), 0);
        assert_int_equal(d, i);
    }
    bm25_hit hits[3];
    size_t n = 0;
    assert_int_equal(bm25_search(ix, "greet", 5, 3, hits, &n, NULL), 0);
    assert_int_equal(n, 1);
    assert_int_equal(hits[0].doc, 0);
    assert_int_equal(bm25_search(ix, "listing file", 12, 3, hits, &n, NULL), 0);
    assert_true(n >= 1);
    assert_int_equal(hits[0].doc, 2);
    assert_int_equal(bm25_search(ix, "reported", 8, 3, hits, &n, NULL), 0);
    assert_int_equal(n, 1);
    assert_int_equal(hits[0].doc, 1);
    bm25_free(ix);
    stem_release();
}

int main(void)
{
    lazy_lib_set_opener(opened_lib_bind); /* what the host gives the plugin */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inflections_meet),
        cmocka_unit_test(test_too_long_is_unchanged),
        cmocka_unit_test(test_split_stems_every_term),
        cmocka_unit_test(test_query_matches_other_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
