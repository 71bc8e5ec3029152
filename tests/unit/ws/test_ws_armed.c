/* The stamps of what git runs programs from in the git directories a
 * workspace already has (ws_armed.h): a key that names a program added
 * or changed, a hook added or rewritten, a commondir written are found;
 * git's own writes (an upstream, a remote URL) and an untouched
 * repository are not.  gitneutral_run_digest underneath. */
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
#include "gitneutral.h"
#include "ws_armed.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    /* a new inode, as git's lock-and-rename writes it */
    char tmp[PATH_MAX + 300];
    snprintf(tmp, sizeof tmp, "%s.lock", p);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, p), 0);
}

static const char BASE[] = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";

static int setup(void **st)
{
    (void)st;
    snprintf(root, sizeof root, "/tmp/vthost-armed-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    put(".git/HEAD", "ref: refs/heads/main\n");
    put(".git/config", BASE);
    put(".git/hooks/pre-commit.sample", "#!/bin/sh\n");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static ws_armed *begin(void)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof p, "%s/.git", root);
    cJSON *repos = cJSON_CreateArray(), *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", p);
    cJSON_AddStringToObject(o, "kind", "dir");
    cJSON_AddItemToArray(repos, o);
    ws_armed *a = NULL;
    assert_int_equal(ws_armed_begin(repos, &a), VT_OK);
    assert_non_null(a);
    cJSON_Delete(repos);
    return a;
}

static void count(void *ctx, const char *gitdir)
{
    (void)gitdir;
    (*(int *)ctx)++;
}

static int found(ws_armed *a)
{
    int n = 0;
    ws_armed_end(a, count, &n);
    return n;
}

static void test_untouched_and_gits_own_writes(void **st)
{
    (void)st;
    put(".git/config", BASE);
    ws_armed *a = begin();
    assert_int_equal(found(a), 0);
    a = begin();
    put(".git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
                       "[remote \"origin\"]\n\turl = https://example.invalid/x.git\n"
                       "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n");
    assert_int_equal(found(a), 0);
    /* a sample git does not run, rewritten in place */
    a = begin();
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/.git/hooks/pre-commit.sample", root);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\ntouch x\n", f);
    fclose(f);
    assert_int_equal(found(a), 0);
}

static void test_program_keys(void **st)
{
    (void)st;
    put(".git/config", BASE);
    ws_armed *a = begin();
    put(".git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
                       "\tfsmonitor = touch x\n");
    assert_int_equal(found(a), 1);
    /* the same key, another value */
    a = begin();
    put(".git/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
                       "\tfsmonitor = touch y\n");
    assert_int_equal(found(a), 1);
    /* an ext:: URL runs a command: not what git writes for a remote */
    put(".git/config", BASE);
    a = begin();
    put(".git/config", "[remote \"o\"]\n\turl = ext::sh -c touch% x\n");
    assert_int_equal(found(a), 1);
    /* what this reader does not understand counts as armed */
    a = begin();
    put(".git/config", "[core]\n\tbare = \\\nfalse\n");
    assert_int_equal(found(a), 1);
    put(".git/config", BASE);
    a = begin();
    put(".git/config.worktree", "[core]\n\tpager = touch x\n");
    assert_int_equal(found(a), 1);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/.git/config.worktree", root);
    unlink(p);
}

static void test_hooks_and_commondir(void **st)
{
    (void)st;
    ws_armed *a = begin();
    put(".git/hooks/pre-commit", "#!/bin/sh\ntouch x\n");
    assert_int_equal(found(a), 1);
    a = begin();
    put(".git/hooks/pre-commit", "#!/bin/sh\ntouch y\n");
    assert_int_equal(found(a), 1);
    a = begin();
    put(".git/commondir", "../elsewhere\n");
    assert_int_equal(found(a), 1);
    /* found once per git directory, and nothing without a callback */
    a = begin();
    put(".git/hooks/post-checkout", "#!/bin/sh\n");
    put(".git/config", "[alias]\n\tx = !touch x\n");
    assert_int_equal(found(a), 1);
    a = begin();
    put(".git/hooks/pre-push", "#!/bin/sh\n");
    ws_armed_end(a, NULL, NULL);
}

static void test_digest(void **st)
{
    (void)st;
    uint64_t d1 = 0, d2 = 0, d3 = 0;
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/d.cfg", root);
    assert_int_equal(gitneutral_run_digest(p, &d1), VT_OK);
    assert_true(d1 == 0); /* missing */
    put("d.cfg", "[user]\n\tname = u\n");
    assert_int_equal(gitneutral_run_digest(p, &d1), VT_OK);
    put("d.cfg", "[user]\n\tname = v\n[core]\n\tbare = false\n");
    assert_int_equal(gitneutral_run_digest(p, &d2), VT_OK);
    assert_true(d1 == d2); /* only kept keys changed */
    put("d.cfg", "[user]\n\tname = v\n[core]\n\tsshCommand = touch x\n");
    assert_int_equal(gitneutral_run_digest(p, &d3), VT_OK);
    assert_true(d3 != d2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_untouched_and_gits_own_writes),
        cmocka_unit_test(test_program_keys),
        cmocka_unit_test(test_hooks_and_commondir),
        cmocka_unit_test(test_digest),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
