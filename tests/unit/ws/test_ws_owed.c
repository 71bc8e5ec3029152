/* The record of a check owed after a crash (ws_owed.h) is kept open
 * between calls and emptied rather than removed: each test changes what
 * the kept file stands for between two armings (the file removed, the
 * workspace changed) and checks the second arming writes where the
 * recovery looks; and an empty record left by a gone process owes
 * nothing and is removed without a word. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "ws_index.h"
#include "ws_owed.h"

static char state_home[PATH_MAX], ws_a[PATH_MAX], ws_b[PATH_MAX], owed[PATH_MAX + 32];

/* How many records in the owed directory are named for `ws`, and how
 * many of those owe a check (hold text). */
static int records(const char *ws, int *owing)
{
    char key[17];
    ws_index_key(ws, key);
    DIR *dir = opendir(owed);
    int n = 0;
    *owing = 0;
    struct stat st;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (strncmp(e->d_name, key, 16) || fstatat(dirfd(dir), e->d_name, &st, 0) != 0)
            continue;
        n++;
        *owing += st.st_size > 0;
    }
    if (dir)
        closedir(dir);
    return n;
}

static void rm_rf(const char *path)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    assert_int_equal(system(cmd), 0);
}

/* Armed, emptied, armed again: one file, text only while a check is
 * owed; removed with its directory between calls, it is made again. */
static void test_removed_between_calls(void **state)
{
    (void)state;
    int owing = 0;
    ws_owed_open(ws_a);
    assert_int_equal(ws_owed_call_begin(VT_EFFECT_EXECUTES), VT_OK);
    assert_int_equal(records(ws_a, &owing), 1);
    assert_int_equal(owing, 1);
    ws_owed_call_end(VT_EFFECT_EXECUTES, NULL);
    assert_int_equal(records(ws_a, &owing), 1);
    assert_int_equal(owing, 0);
    rm_rf(owed);
    assert_int_equal(ws_owed_call_begin(VT_EFFECT_EXECUTES), VT_OK);
    assert_int_equal(records(ws_a, &owing), 1);
    assert_int_equal(owing, 1);
    ws_owed_call_end(VT_EFFECT_EXECUTES, NULL);
    ws_owed_close();
    assert_int_equal(records(ws_a, &owing), 0);
}

/* A new workspace between two calls: the next arming is named for it,
 * and the old workspace's file goes. */
static void test_workspace_changed_between_calls(void **state)
{
    (void)state;
    int owing = 0;
    ws_owed_open(ws_a);
    assert_int_equal(ws_owed_call_begin(VT_EFFECT_EXECUTES), VT_OK);
    ws_owed_call_end(VT_EFFECT_EXECUTES, NULL);
    ws_owed_open(ws_b);
    assert_int_equal(ws_owed_call_begin(VT_EFFECT_EXECUTES), VT_OK);
    assert_int_equal(records(ws_b, &owing), 1);
    assert_int_equal(owing, 1);
    assert_int_equal(records(ws_a, &owing), 0);
    ws_owed_call_end(VT_EFFECT_EXECUTES, NULL);
    ws_owed_close();
}

/* An empty record of a gone process (it ended owing nothing) is
 * removed and nothing is reported (sandbox_owed_crash.py runs the check
 * a record with text owes). */
static void test_recovery_of_empty(void **state)
{
    (void)state;
    char key[17], path[PATH_MAX + 128];
    int owing = 0;
    ws_index_key(ws_a, key);
    char mk[PATH_MAX + 64];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", owed);
    assert_int_equal(system(mk), 0);
    /* a pid above any pid_max: its process is gone */
    snprintf(path, sizeof path, "%s/%s-999999999-1", owed, key);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    ws_owed_open(ws_a);
    char *report = NULL;
    assert_int_equal(ws_owed_recover(&report), 0);
    assert_null(report);
    assert_int_equal(records(ws_a, &owing), 0);
    ws_owed_close();
}

int main(void)
{
    char tmpl[] = "/tmp/vthost-ws-owed-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    snprintf(state_home, sizeof state_home, "%s/state", tmpl);
    snprintf(owed, sizeof owed, "%s/vthost/owed", state_home);
    snprintf(ws_a, sizeof ws_a, "%s/a", tmpl);
    snprintf(ws_b, sizeof ws_b, "%s/b", tmpl);
    if (mkdir(ws_a, 0755) != 0 || mkdir(ws_b, 0755) != 0 || mkdir(state_home, 0700) != 0)
        return 1;
    setenv("XDG_STATE_HOME", state_home, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_removed_between_calls),
        cmocka_unit_test(test_workspace_changed_between_calls),
        cmocka_unit_test(test_recovery_of_empty),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rm_rf(tmpl);
    return rc;
}
