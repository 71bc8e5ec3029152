/* host/util/strutil.c: str_copy cuts and terminates as snprintf "%s"
 * did; str_utc_now keeps the formatted second per thread, and every stamp
 * must still be the wall clock's, across the change of a second, on each
 * thread. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "strutil.h"

static void test_copy_cuts_and_terminates(void **st)
{
    (void)st;
    char d[8];
    memset(d, 'x', sizeof d);
    assert_int_equal(str_copy(d, sizeof d, "ping"), 4);
    assert_string_equal(d, "ping");
    assert_int_equal(str_copy(d, sizeof d, "tools/call"), 7);
    assert_string_equal(d, "tools/c");
    assert_int_equal(str_copy(d, sizeof d, "1234567"), 7);
    assert_string_equal(d, "1234567");
    assert_int_equal(str_copy(d, 1, "abc"), 0);
    assert_string_equal(d, "");
    assert_int_equal(str_copy(d, sizeof d, ""), 0);
    assert_string_equal(d, "");
}

static void utc_second(time_t t, char out[32])
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* Stamps until the second has turned twice; each lies between the clock
 * read before it and the clock read after it. */
static void *stamps(void *arg)
{
    int *bad = arg;
    struct timespec first;
    clock_gettime(CLOCK_REALTIME, &first);
    for (;;) {
        struct timespec a, b;
        char s[STR_UTC_NOW_SIZE], lo[32], hi[32];
        clock_gettime(CLOCK_REALTIME, &a);
        str_utc_now(s);
        clock_gettime(CLOCK_REALTIME, &b);
        utc_second(a.tv_sec, lo);
        utc_second(b.tv_sec, hi);
        int ms = -1;
        char z = 0;
        int ok = strlen(s) == 24 && s[19] == '.' && sscanf(s + 20, "%3d%c", &ms, &z) == 2 &&
                 z == 'Z' && (strncmp(s, lo, 19) == 0 || strncmp(s, hi, 19) == 0);
        if (ok && a.tv_sec == b.tv_sec)
            ok = ms >= a.tv_nsec / 1000000 && ms <= b.tv_nsec / 1000000;
        if (!ok) {
            fprintf(stderr, "stamp %s not between %s.%03ld and %s.%03ld\n", s, lo,
                    a.tv_nsec / 1000000, hi, b.tv_nsec / 1000000);
            (*bad)++;
            return NULL;
        }
        if (b.tv_sec >= first.tv_sec + 2)
            return NULL;
    }
}

static void test_stamps_follow_the_clock(void **st)
{
    (void)st;
    int bad[3] = {0};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, stamps, &bad[i]), 0);
    stamps(&bad[2]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(bad[0] + bad[1] + bad[2], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_copy_cuts_and_terminates),
                                       cmocka_unit_test(test_stamps_follow_the_clock)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
