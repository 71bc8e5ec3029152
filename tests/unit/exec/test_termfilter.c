/* The PTY output filter: escape sequences dropped, CRLF/CR turned into
 * LF, and the same result however the bytes are split across reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "termfilter.h"

static const struct {
    const char *in, *want;
} CASES[] = {
    {"plain text\n", "plain text\n"},
    {"a\r\nb\r\n", "a\nb\n"},
    {"progress 10%\rprogress 50%\rdone\n", "progress 10%\nprogress 50%\ndone\n"},
    {"x\r\r\ny", "x\ny"},
    {"\x1b[1;31mred\x1b[0m normal", "red normal"},
    {"\x1b[?25l\x1b[2J\x1b[Hscreen", "screen"},
    {"\x1b]0;window title\x07" "after", "after"},
    {"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
    {"\x1bP1$r0m\x1b\\dcs", "dcs"},
    {"\x1b(" "Bcharset\x1b=keypad\x1b>", "charsetkeypad"},
    {"bell\x07" "!", "bell!"},
    {"tab\tstays", "tab\tstays"},
    {"utf-8 \xc3\xa9\xe2\x82\xac \xf0\x9f\x98\x80", "utf-8 \xc3\xa9\xe2\x82\xac \xf0\x9f\x98\x80"},
    {"\x1b[", ""},
    {"end\r", "end\n"},
};

static void test_cases(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        size_t len = strlen(CASES[k].in);
        for (size_t chunk = 1; chunk <= len + 1; chunk++) {
            term_filter f = {0};
            char out[256], buf[256], fbuf[257];
            size_t o = 0;
            for (size_t i = 0; i < len; i += chunk) {
                size_t n = len - i < chunk ? len - i : chunk;
                memcpy(buf, CASES[k].in + i, n);
                size_t m = term_filter_run(&f, buf, n, fbuf);
                memcpy(out + o, fbuf, m);
                o += m;
            }
            o += term_filter_flush(&f, out + o);
            out[o] = 0;
            if (strcmp(out, CASES[k].want))
                fail_msg("case %zu chunk %zu: got [%s] want [%s]", k, chunk, out,
                         CASES[k].want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
