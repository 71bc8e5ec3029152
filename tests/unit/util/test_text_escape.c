/* text_escape: what a person is shown is what the bytes are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "text_escape.h"

static void expect(const char *in, unsigned flags, const char *want)
{
    char *got = text_escape(in, flags);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(text_needs_escape(in, flags), strcmp(in, want) != 0);
    free(got);
}

static void test_controls(void **st)
{
    (void)st;
    expect("rm -rf victim \x1b[2K\r  run: ls -la", 0, "rm -rf victim \\x1b[2K\\r  run: ls -la");
    expect("a\nb", 0, "a\\nb");
    expect("a\nb", TEXT_KEEP_NEWLINES, "a\nb");
    /* kept lines indented: no line after the first passes for its own */
    expect("x\nvthost: approved", TEXT_KEEP_NEWLINES | TEXT_INDENT_LINES, "x\n  vthost: approved");
    expect("x\nvthost: approved", TEXT_INDENT_LINES, "x\\nvthost: approved");
    expect("a\tb\x7f\x01", TEXT_KEEP_NEWLINES, "a\\tb\\x7f\\x01");
    expect("c1 \xc2\x9b" "31m", 0, "c1 \\u009B31m"); /* U+009B, the 8-bit CSI */
}

static void test_format_characters(void **st)
{
    (void)st;
    expect("ls \xe2\x80\xae" "txt.exe", 0, "ls \\u202Etxt.exe"); /* U+202E */
    expect("a\xe2\x80\x8b" "b", 0, "a\\u200Bb");                 /* zero width space */
    expect("\xe2\x81\xa6x\xe2\x81\xa9", 0, "\\u2066x\\u2069");    /* isolates */
    expect("\xe2\x80\x8e\xe2\x80\x8f", 0, "\\u200E\\u200F");      /* LRM, RLM */
    expect("a\xe2\x80\xa8" "b", TEXT_KEEP_NEWLINES, "a\\u2028b"); /* line separator */
    expect("\xef\xbb\xbfx", 0, "\\uFEFFx");
}

static void test_kept(void **st)
{
    (void)st;
    expect("grep 'a\\|b' caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x99\x82", 0,
           "grep 'a\\|b' caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x99\x82");
    expect("", 0, "");
    assert_null(text_escape(NULL, 0));
}

static void test_invalid_utf8(void **st)
{
    (void)st;
    expect("a\xff" "b\xc3", 0, "a\\xffb\\xc3");
    expect("\xed\xa0\x80", 0, "\\xed\\xa0\\x80"); /* a surrogate is not UTF-8 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_format_characters),
        cmocka_unit_test(test_kept),
        cmocka_unit_test(test_invalid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
