/* The SDK's header-only helpers the host and plugins share:
 * <vthost/grow.h> (VT_GROW), <vthost/clock.h>, <vthost/format.h> and
 * <vthost/own_file.h>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/clock.h>
#include <vthost/format.h>
#include <vthost/grow.h>
#include <vthost/own_file.h>

static void test_grow_doubles(void **st)
{
    (void)st;
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(VT_GROW(&v, &cap, n + 1), 0);
        v[n++] = i;
    }
    assert_true(cap >= 1000 && cap < 2048); /* doubled from 8 */
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i], i);
    size_t before = cap;
    assert_int_equal(VT_GROW(&v, &cap, 10), 0); /* room already: no change */
    assert_int_equal(cap, before);
    free(v);
}

static void test_grow_refuses_overflow(void **st)
{
    (void)st;
    double *v = NULL;
    size_t cap = 0;
    assert_int_equal(VT_GROW(&v, &cap, 4), 0);
    double *kept = v;
    /* a count whose byte size does not fit size_t: refused, nothing lost */
    assert_int_equal(VT_GROW(&v, &cap, SIZE_MAX / 4), -1);
    assert_ptr_equal(v, kept);
    assert_int_equal(cap, 8);
    assert_int_equal(VT_GROW(&v, &cap, SIZE_MAX), -1);
    assert_int_equal(cap, 8);
    free(v);
}

static void test_clock_deadline(void **st)
{
    (void)st;
    struct timespec t;
    vt_clock_deadline_ms(&t, 1999);
    assert_true(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L); /* normalised */
    int64_t left = vt_clock_ms_until(&t);
    assert_true(left > 1900 && left <= 1999);
    assert_false(vt_clock_past(&t));
    vt_clock_deadline_ms(&t, 0);
    assert_true(vt_clock_past(&t));
    int64_t a = vt_clock_ms(), b = vt_clock_ms();
    assert_true(b >= a); /* monotonic */
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vt_vformat(f, ap);
    va_end(ap);
    return s;
}

/* vt_vformat: the whole text, however long, in a string of its own. */
static void test_vformat(void **st)
{
    (void)st;
    char *s = fmt("%s has %d lines", "notes.txt", 3);
    assert_string_equal(s, "notes.txt has 3 lines");
    free(s);
    s = fmt("%s", "");
    assert_string_equal(s, "");
    free(s);
    s = fmt("%5000d|", 7); /* longer than any first guess */
    assert_non_null(s);
    assert_int_equal(strlen(s), 5001);
    assert_string_equal(s + 4999, "7|");
    free(s);
}

static void put(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* vt_own_file_read: the user's own file whole; anything else refused
 * with what it is, never followed, never waited on. */
static void test_own_file(void **st)
{
    (void)st;
    char dir[] = "/tmp/vt_own_file_XXXXXX", f[64], l[64], p[64], gone[64];
    assert_non_null(mkdtemp(dir));
    snprintf(f, sizeof f, "%s/f", dir);
    snprintf(l, sizeof l, "%s/l", dir);
    snprintf(p, sizeof p, "%s/p", dir);
    snprintf(gone, sizeof gone, "%s/gone", dir);
    put(f, "twelve bytes", 0600);
    char *text = (char *)1;
    size_t len = 0;
    assert_int_equal(vt_own_file_read(f, 077, 1, 12, &text, &len), VT_OK);
    assert_string_equal(text, "twelve bytes");
    assert_int_equal(len, 12);
    free(text);
    assert_int_equal(vt_own_file_read(f, 077, 13, 100, &text, &len), VT_ERR_DENIED); /* short */
    assert_null(text);
    assert_int_equal(vt_own_file_read(f, 077, 0, 11, &text, NULL), VT_ERR_DENIED); /* long */
    assert_int_equal(chmod(f, 0640), 0);
    assert_int_equal(vt_own_file_read(f, 022, 0, 100, &text, NULL), VT_OK); /* readable only */
    free(text);
    assert_int_equal(vt_own_file_read(f, 077, 0, 100, &text, NULL), VT_ERR_DENIED);
    assert_int_equal(chmod(f, 0620), 0);
    assert_int_equal(vt_own_file_read(f, 022, 0, 100, &text, NULL), VT_ERR_DENIED);
    assert_int_equal(chmod(f, 0600), 0);
    assert_int_equal(symlink("f", l), 0);
    assert_int_equal(vt_own_file_read(l, 022, 0, 100, &text, NULL), VT_ERR_DENIED);
    assert_null(text);
    assert_int_equal(mkfifo(p, 0600), 0); /* no writer: an open would wait forever */
    assert_int_equal(vt_own_file_read(p, 022, 0, 100, &text, NULL), VT_ERR_DENIED);
    assert_int_equal(vt_own_file_read(gone, 022, 0, 100, &text, NULL), VT_ERR_NOT_FOUND);
    assert_null(text);
    unlink(f);
    unlink(l);
    unlink(p);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_doubles),
        cmocka_unit_test(test_grow_refuses_overflow),
        cmocka_unit_test(test_vformat),
        cmocka_unit_test(test_clock_deadline),
        cmocka_unit_test(test_own_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
