/* The two-byte literal search against a plain byte-by-byte reference:
 * every needle length, every alignment, both cases, matches at the very
 * start and end of the buffer and across the 16- and 32-byte block boundaries,
 * near misses that share the rare bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cs_literal.h"

static int lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static const char *reference(const char *needle, size_t n, int caseless, const char *buf,
                             size_t len, size_t from)
{
    for (size_t s = from; s + n <= len; s++) {
        size_t i = 0;
        while (i < n && (caseless ? lower((unsigned char)buf[s + i]) == (unsigned char)needle[i]
                                  : buf[s + i] == needle[i]))
            i++;
        if (i == n)
            return buf + s;
    }
    return NULL;
}

/* Every match of the needle, from every starting offset, both ways. */
static void check_all(const char *needle, int caseless, const char *buf, size_t len)
{
    cs_lit l;
    size_t n = strlen(needle);
    cs_lit_init(&l, needle, n, caseless);
    for (size_t from = 0; from <= len + 1; from++)
        assert_ptr_equal(cs_lit_find(&l, buf, len, from),
                         reference(needle, n, caseless, buf, len, from));
    /* The 16-byte path as well where the CPU would take the 32-byte one. */
    l.avx2 = 0;
    for (size_t from = 0; from <= len + 1; from++)
        assert_ptr_equal(cs_lit_find(&l, buf, len, from),
                         reference(needle, n, caseless, buf, len, from));
}

static void test_literal_matches_reference(void **state)
{
    (void)state;
    /* A pseudo-random haystack over a small alphabet, so that the rare
     * bytes occur often without the rest of the needle. */
    static const char alpha[] = "abxkXK_ 0q";
    char buf[700];
    uint32_t seed = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = alpha[(seed >> 16) % (sizeof alpha - 1)];
    }
    const char *needles[] = {"xk", "kx", "ab", "a_x", "xkx", "q0", "bxk_", "k k", "xxxxxxxx",
                             "abxkabxkabxkabxkab", "zz"};
    for (size_t k = 0; k < sizeof needles / sizeof *needles; k++)
        for (size_t len = 0; len < 80; len++) {
            check_all(needles[k], 1, buf, len);
            check_all(needles[k], 0, buf, len);
        }
    check_all("xk", 1, buf, sizeof buf);
    check_all("xk", 0, buf, sizeof buf);
}

static void test_literal_edges(void **state)
{
    (void)state;
    cs_lit l;
    cs_lit_init(&l, "mutex", 5, 1);
    const char *b = "MUTEX at the start, Mutex in the middle, and mutEx";
    size_t len = strlen(b);
    assert_ptr_equal(cs_lit_find(&l, b, len, 0), b);
    assert_ptr_equal(cs_lit_find(&l, b, len, 1), b + 20);
    assert_ptr_equal(cs_lit_find(&l, b, len, 21), b + len - 5);
    assert_null(cs_lit_find(&l, b, len, len - 4));
    assert_null(cs_lit_find(&l, b, 4, 0));
    /* Case-sensitive: only the exact bytes. */
    cs_lit_init(&l, "Mutex", 5, 0);
    assert_ptr_equal(cs_lit_find(&l, b, len, 0), b + 20);
    /* Bytes that only differ by 0x20 outside the letters do not fold. */
    cs_lit_init(&l, "a@", 2, 1);
    assert_null(cs_lit_find(&l, "A`a`", 4, 0));
    cs_lit_init(&l, "[x", 2, 1);
    assert_null(cs_lit_find(&l, "{x{X", 4, 0));
    const char *h = "{x[X";
    assert_ptr_equal(cs_lit_find(&l, h, 4, 0), h + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literal_matches_reference),
        cmocka_unit_test(test_literal_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
