/* A change the index cannot log is a change lost, never "nothing
 * changed": when the change log's allocation fails (calloc failing,
 * injected by the linker's --wrap), a file written in the workspace
 * still moves the index's epoch, its readers see an incomplete list
 * with a change in it, and the next refresh walks and says why.  Once
 * memory is back the log follows changes exactly again. */
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
#include <vthost/plugin.h>
#include "ws_index.h"
#include "ws_index_int.h"
#include "ws_test_sh.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);

/* While set, every allocation of the change log fails; fail_grow, every
 * growth of it. */
static int fail_log, fail_grow;

void *__wrap_calloc(size_t n, size_t size)
{
    if (size == sizeof(wsx_change) && ((fail_log && n == WSX_LOG_MIN) || (fail_grow && n > WSX_LOG_MIN)))
        return NULL;
    return __real_calloc(n, size);
}

/* While set, copying this one path fails. */
static const char *fail_dup;

char *__wrap_strdup(const char *s)
{
    if (fail_dup && !strcmp(s, fail_dup))
        return NULL;
    return __real_strdup(s);
}

static char root[PATH_MAX], cache[PATH_MAX];

static int setup(void **st)
{
    (void)st;
    char t[] = "/tmp/vthost-wsnomem-XXXXXX", c[] = "/tmp/vthost-wsnomemc-XXXXXX";
    if (!mkdtemp(t) || !mkdtemp(c) || !realpath(t, root) || !realpath(c, cache))
        return -1;
    setenv("XDG_CACHE_HOME", cache, 1);
    sh("mkdir -p '%s/src/deep' && echo 'int a;' > '%s/src/a.c'", root, root);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    sh("rm -rf '%s' '%s'", root, cache);
    return 0;
}

static void test_unlogged_change_is_lost_not_unchanged(void **st)
{
    (void)st;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_LIVE, &ix), 0);
    const char *why = NULL;
    fail_log = 1;
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(ws_index_event_driven(ix));
    ws_mark m = ws_index_mark(ix);
    ws_index_epoch e1 = ws_index_epoch_now(ix, root);

    sh("echo 'int b;' > '%s/src/deep/b.c'", root);
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    /* the call that could not trust the log is told it walked */
    assert_non_null(why);
    assert_non_null(strstr(why, "change log could not be allocated"));
    int complete = 1;
    assert_true(ws_index_changes(ix, m, 1, NULL, 0, &complete) >= 1);
    assert_false(complete);
    ws_index_epoch e2 = ws_index_epoch_now(ix, root);
    assert_false(ws_index_epoch_same(e1, e2));

    /* memory back: changes are logged and listed exactly again */
    fail_log = 0;
    m = ws_index_mark(ix);
    sh("echo 'int c;' > '%s/src/c.c'", root);
    why = NULL;
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    char *names[4] = {0};
    size_t n = ws_index_changes(ix, m, 1, names, 4, &complete);
    assert_true(complete);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "src/c.c");
    free(names[0]);
    ws_index_close(ix);
}

/* A log that cannot grow overwrites its oldest entry, as a full one
 * does: a mark from before it is told the list is incomplete, and a
 * mark after it still gets every change. */
static void test_log_that_cannot_grow_drops_visibly(void **st)
{
    (void)st;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    ws_mark m0 = ws_index_mark(ix), m1 = m0;
    fail_grow = 1;
    char p[32];
    for (unsigned i = 0; i < WSX_LOG_MIN + 20; i++) {
        if (i == 30)
            m1 = ws_index_mark(ix);
        snprintf(p, sizeof p, "f/%u", i);
        wsx_log_change(ix, p, WSX_K_WRITE, 0, 0);
    }
    fail_grow = 0;
    int complete = 1;
    ws_index_changes(ix, m0, 1, NULL, 0, &complete);
    assert_false(complete);
    assert_int_equal(ws_index_changes(ix, m1, 1, NULL, 0, &complete), WSX_LOG_MIN + 20 - 30);
    assert_true(complete);
    ws_index_close(ix);
}

/* A change whose path cannot be copied is lost too: the list from a
 * mark before it is incomplete and the epoch moved (an entry without a
 * path was skipped by every reader: "nothing changed"). */
static void test_change_without_its_path_is_lost(void **st)
{
    (void)st;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    wsx_log_change(ix, "f/before", WSX_K_WRITE, 0, 0);
    ws_mark m = ws_index_mark(ix);
    ws_index_epoch e1 = ws_index_epoch_now(ix, root);
    fail_dup = "f/victim";
    wsx_log_change(ix, "f/victim", WSX_K_WRITE, 0, 0);
    fail_dup = NULL;
    int complete = 1;
    ws_index_changes(ix, m, 1, NULL, 0, &complete);
    assert_false(complete);
    assert_false(ws_index_epoch_same(e1, ws_index_epoch_now(ix, root)));
    ws_index_close(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unlogged_change_is_lost_not_unchanged),
        cmocka_unit_test(test_log_that_cannot_grow_drops_visibly),
        cmocka_unit_test(test_change_without_its_path_is_lost),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
