/* The after-call check of hook files (ws_changes.h, WS_CH_HOOKS) on a
 * real workspace followed by a real index: a repository whose
 * core.hooksPath is .githooks, and a call that writes the workspace.
 * - The call's path subject is sub/pre-commit.  During the call, sub is
 *   replaced by a link to .githooks and the hook written through it: the
 *   subject named sub/pre-commit when the call was asked for, so the
 *   hook is not what was approved.  It is set aside and the report
 *   names it; resolved after the call, the subject would lead onto the
 *   hook and let it stay.
 * - A hook the call named as its subject (the permission engine asked
 *   for it) stays as written. */
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
#include "subjects.h"
#include "ws_after.h"
#include "ws_gitconf.h"
#include "ws_index.h"
#include "ws_test_sh.h"

static char root[PATH_MAX], home[PATH_MAX];
static ws_index *ix;

static int exists(const char *rel)
{
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    struct stat st;
    return lstat(p, &st) == 0;
}

static int setup(void **st)
{
    (void)st;
    char a[] = "/tmp/vthost-hooksjudge-XXXXXX", b[] = "/tmp/vthost-hooksjudge-home-XXXXXX";
    if (!mkdtemp(a) || !mkdtemp(b) || !realpath(a, root) || !realpath(b, home))
        return -1;
    /* no global git configuration of the machine's user, no shared cache */
    setenv("HOME", home, 1);
    setenv("XDG_CONFIG_HOME", home, 1);
    setenv("XDG_CACHE_HOME", home, 1);
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p .git/objects .git/refs .githooks sub && "
             "printf 'ref: refs/heads/main\\n' > .git/HEAD && "
             "printf '[core]\\n\\thooksPath = .githooks\\n' > .git/config && "
             "printf 'x\\n' > sub/a.txt && printf '#!/bin/sh\\n' > .githooks/pre-push",
             root);
    if (system(cmd) != 0 || ws_index_open(root, WS_INDEX_ONE_SHOT, &ix) != 0 ||
        ws_index_refresh(ix, 1, NULL) != 0)
        return -1;
    ws_index_set_current(ix);
    ws_after_set_root(root);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    ws_after_set_root(NULL);
    ws_index_set_current(NULL);
    ws_gitconf_reset();
    ws_index_close(ix);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, home);
    return system(cmd) == 0 ? 0 : -1;
}

/* One writing call whose path subject is `subject`; `act` (a shell
 * command run in the workspace) is what it does.  *report as
 * ws_after_end gives it. */
static int call(const char *subject, const char *act, char **report)
{
    vt_subjects s;
    subjects_init(&s);
    assert_int_equal(subjects_add(&s, VT_SUBJECT_PATH_CREATE, subject), 0);
    ws_after *a = NULL;
    assert_int_equal(ws_after_begin(&s, VT_EFFECT_MUTATES_WORKSPACE, &a), 0);
    sh("cd '%s' && %s", root, act);
    int rc = ws_after_end(a, report);
    subjects_free(&s);
    return rc;
}

static void test_subject_moved_onto_hook_is_caught(void **st)
{
    (void)st;
    /* the repository's configuration names the hook directory */
    char hooks[2 * PATH_MAX];
    snprintf(hooks, sizeof hooks, "%s/.githooks", root);
    assert_int_equal(ws_gitconf_protected(hooks), 1);
    char *report = NULL;
    assert_int_equal(call("sub/pre-commit",
                          "mv sub sub.old && ln -s .githooks sub && "
                          "printf '#!/bin/sh\\ntouch MARKER\\n' > sub/pre-commit",
                          &report),
                     0);
    /* the hook git would run is gone from the hook directory, kept in
     * .vtcode/set-aside/, and the call says so */
    assert_false(exists(".githooks/pre-commit"));
    assert_true(exists(".vtcode/set-aside"));
    assert_non_null(report);
    assert_non_null(strstr(report, "pre-commit"));
    assert_non_null(strstr(report, "hook directory"));
    free(report);
    assert_true(exists(".githooks/pre-push"));
}

static void test_named_hook_stays(void **st)
{
    (void)st;
    char *report = NULL;
    assert_int_equal(
        call(".githooks/post-merge", "printf '#!/bin/sh\\ntouch MARKER\\n' > .githooks/post-merge",
             &report),
        0);
    assert_null(report);
    assert_true(exists(".githooks/post-merge"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subject_moved_onto_hook_is_caught),
        cmocka_unit_test(test_named_hook_stays),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
