/* The guard's counter file (guard_state.h) is opened before its
 * directories are made: removed between two calls, with its
 * directories, the next lock makes them again and the count goes on in
 * the file, not in the process-local fallback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guard_state.h"

static char state_home[PATH_MAX], ws[PATH_MAX];

static void rm_rf(const char *path)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

static void count_to(long n)
{
    guard_state st;
    guard_state_lock(ws, &st);
    assert_true(st.fd >= 0);
    st.pending = n;
    st.changed = 1;
    guard_state_unlock(&st);
}

static long count_now(void)
{
    guard_state st;
    guard_state_lock(ws, &st);
    assert_true(st.fd >= 0); /* the file, not the fallback */
    long n = st.pending;
    guard_state_unlock(&st);
    return n;
}

static void test_state_removed_between_calls(void **state)
{
    (void)state;
    count_to(3);
    assert_int_equal(count_now(), 3);
    rm_rf(state_home);
    assert_int_equal(count_now(), 0);
    count_to(2);
    assert_int_equal(count_now(), 2);
    struct stat st;
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/vthost/guard", state_home);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
}

int main(void)
{
    char tmpl[] = "/tmp/vthost-guard-state-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    snprintf(state_home, sizeof state_home, "%s/state", tmpl);
    snprintf(ws, sizeof ws, "%s/ws", tmpl);
    if (mkdir(ws, 0755) != 0)
        return 1;
    setenv("XDG_STATE_HOME", state_home, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_removed_between_calls),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(tmpl);
    return rc;
}
