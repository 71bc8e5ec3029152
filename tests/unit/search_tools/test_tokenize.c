/* Tokenizer: splitting, folding, dropping, blank detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "tokenize.h"

typedef struct collected {
    char buf[1024];
    size_t len;
} collected;

static int collect(void *ctx, const char *term, size_t len)
{
    collected *c = ctx;
    assert_int_equal(term[len], '\0');
    assert_true(c->len + len + 2 < sizeof c->buf);
    if (c->len)
        c->buf[c->len++] = ' ';
    memcpy(c->buf + c->len, term, len);
    c->len += len;
    c->buf[c->len] = '\0';
    return 0;
}

/* Terms of `text` joined by single spaces. */
static const char *terms(const char *text)
{
    static collected c;
    c.len = 0;
    c.buf[0] = '\0';
    assert_int_equal(tok_split(text, strlen(text), collect, &c), 0);
    return c.buf;
}

static void splits_identifiers_and_keeps_them_whole(void **state)
{
    (void)state;
    assert_string_equal(terms("create_pull_request"),
                        "create pull request create_pull_request");
    assert_string_equal(terms("db.query-run"), "db query run db.query-run");
    /* Joiners at the ends are not part of the identifier. */
    assert_string_equal(terms("__init__"), "init");
}

static void splits_camel_case(void **state)
{
    (void)state;
    assert_string_equal(terms("GitHub"), "git hub github");
    assert_string_equal(terms("pullNumber"), "pull number pullnumber");
    assert_string_equal(terms("HTTPServer"), "http server httpserver");
    assert_string_equal(terms("UPPER lower"), "upper lower");
    assert_string_equal(terms("utf8proc"), "utf8proc");
}

static void strips_punctuation_by_category(void **state)
{
    (void)state;
    assert_string_equal(terms("Hello, world! (foo) «bar» — baz?"),
                        "hello world foo bar baz");
    assert_string_equal(terms("path/to/file"), "path to file");
    assert_string_equal(terms("$$$ +++ ..."), "");
}

static void folds_case_and_marks(void **state)
{
    (void)state;
    assert_string_equal(terms("ÉCOLE Café"), "ecole cafe");
    /* Decomposed input composes to the same term. */
    assert_string_equal(terms("cafe\xcc\x81"), "cafe");
    assert_string_equal(terms("Straße"), "strasse");
    /* Full-width letters fold to ASCII. */
    assert_string_equal(terms("\xef\xbc\xa7\xef\xbc\xa9\xef\xbc\xb4"), "git");
    assert_string_equal(terms("ΣΊΣΥΦΟΣ"), "σισυφοσ");
}

static void drops_one_character_terms(void **state)
{
    (void)state;
    assert_string_equal(terms("a b cd e"), "cd");
    assert_string_equal(terms("x_y"), "x_y");
    assert_string_equal(terms("é ü"), "");
}

static void invalid_utf8_separates(void **state)
{
    (void)state;
    assert_string_equal(terms("ab\xff" "cd"), "ab cd");
    assert_string_equal(terms("\xc3"), "");
}

static int stop_after_first(void *ctx, const char *term, size_t len)
{
    (void)term; (void)len;
    ++*(int *)ctx;
    return 7;
}

static void callback_can_stop(void **state)
{
    (void)state;
    int calls = 0;
    assert_int_equal(tok_split("one two three", 13, stop_after_first, &calls), 7);
    assert_int_equal(calls, 1);
}

static void blank_detection(void **state)
{
    (void)state;
    assert_true(tok_is_blank("", 0));
    assert_true(tok_is_blank(" \t\r\n", 4));
    assert_true(tok_is_blank("\xc2\xa0\xe2\x80\x83", 5)); /* NBSP, EM SPACE */
    assert_false(tok_is_blank(" a ", 3));
    assert_false(tok_is_blank("?", 1));
    assert_false(tok_is_blank("\xff", 1));
}

static int check_term(void *ctx, const char *term, size_t len)
{
    ++*(size_t *)ctx;
    assert_int_equal(term[len], '\0');
    /* Well-formed UTF-8 of at least two characters, no punctuation
     * other than the joiners kept inside identifiers. */
    size_t chars = 0;
    const unsigned char *s = (const unsigned char *)term;
    for (size_t i = 0; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            chars++;
    assert_true(chars >= 2);
    assert_null(memchr(term, ' ', len));
    assert_null(memchr(term, ',', len));
    return 0;
}

static void arbitrary_bytes_give_well_formed_terms(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "a", "Z", "_", ".", "-", " ", ",", "\xc3\xa9", "e\xcc\x81", "\xe2\x80\x83",
        "\xff", "\xc3", "\xf0\x9f\x98\x80", "\xef\xbc\xa7", "\xc3\x9f", "7", "Ab", "HTTP"};
    unsigned seed = 42;
    char buf[512];
    size_t terms = 0;
    for (int round = 0; round < 2000; round++) {
        size_t len = 0;
        seed = seed * 1103515245u + 12345u;
        int n = (int)(seed >> 16) % 60;
        for (int k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            const char *p = pieces[(seed >> 16) % (sizeof pieces / sizeof pieces[0])];
            size_t pl = strlen(p);
            if (len + pl >= sizeof buf)
                break;
            memcpy(buf + len, p, pl);
            len += pl;
        }
        assert_true(tok_split(buf, len, check_term, &terms) == 0);
    }
    assert_true(terms > 1000);
    /* A very long run spills past the inline buffer. */
    char big[5000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (i % 7 == 6) ? '_' : (char)('a' + i % 26);
    size_t before = terms;
    assert_int_equal(tok_split(big, sizeof big, check_term, &terms), 0);
    assert_true(terms > before + 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splits_identifiers_and_keeps_them_whole),
        cmocka_unit_test(splits_camel_case),
        cmocka_unit_test(strips_punctuation_by_category),
        cmocka_unit_test(folds_case_and_marks),
        cmocka_unit_test(drops_one_character_terms),
        cmocka_unit_test(invalid_utf8_separates),
        cmocka_unit_test(callback_can_stop),
        cmocka_unit_test(blank_detection),
        cmocka_unit_test(arbitrary_bytes_give_well_formed_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
