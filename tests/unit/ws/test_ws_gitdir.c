/* Git directories as git recognises them: every form of HEAD git's
 * validate_headref accepts (with and without a space after "ref:", a
 * symlink to refs/..., a detached object name of either hash), objects/
 * and refs/ of the directory or of the common directory a commondir file
 * names, gitfiles; and what git refuses stays refused.  Where git is
 * installed, each verdict is checked against git itself. */
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
#include "ws_gitdir.h"

static char base[PATH_MAX];
static int n;

static void put(const char *dir, const char *name, const char *text)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void sub(const char *dir, const char *name)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_int_equal(mkdir(p, 0755), 0);
}

/* A fresh directory with `head` as its HEAD (NULL: none), objects/ and
 * refs/ when `dirs`. */
static char *candidate(const char *head, int dirs)
{
    static char d[PATH_MAX + 32];
    snprintf(d, sizeof d, "%s/c%d", base, ++n);
    assert_int_equal(mkdir(d, 0755), 0);
    if (head)
        put(d, "HEAD", head);
    if (dirs) {
        sub(d, "objects");
        sub(d, "refs");
    }
    return d;
}

/* What git itself says of `dir`: 1 a git directory, 0 not, -1 no git. */
static int git_says(const char *dir)
{
    if (system("git --version >/dev/null 2>&1") != 0)
        return -1;
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u GIT_DIR -u GIT_COMMON_DIR -u GIT_OBJECT_DIRECTORY "
             "GIT_CEILING_DIRECTORIES='%s' git -c safe.directory='*' rev-parse --git-dir "
             ">/dev/null 2>&1",
             dir, base);
    return system(cmd) == 0;
}

static void expect(const char *dir, int want)
{
    assert_int_equal(ws_gitdir_judge(dir, NULL), want);
    int g = git_says(dir);
    if (g >= 0)
        assert_int_equal(g, want);
}

static int setup(void **st)
{
    (void)st;
    char t[] = "/tmp/vthost-gitdir-XXXXXX";
    if (!mkdtemp(t) || !realpath(t, base))
        return -1;
    unsetenv("GIT_COMMON_DIR");
    unsetenv("GIT_OBJECT_DIRECTORY");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_heads(void **st)
{
    (void)st;
    expect(candidate("ref: refs/heads/main\n", 1), 1);
    expect(candidate("ref:refs/heads/main", 1), 1);
    expect(candidate("ref:\t \nrefs/heads/main\n", 1), 1);
    expect(candidate("0123456789abcdef0123456789ABCDEF01234567\n", 1), 1);
    expect(candidate("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", 1), 1);
    expect(candidate("ref: heads/main\n", 1), 0);
    expect(candidate("0123456789abcdef\n", 1), 0);
    expect(candidate("refs/heads/main\n", 1), 0);
    expect(candidate(NULL, 1), 0);
    expect(candidate("ref: refs/heads/main\n", 0), 0);
}

static void test_symlinked_head(void **st)
{
    (void)st;
    char *d = candidate(NULL, 1);
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/HEAD", d);
    /* the target need not exist: git reads the link, not the ref */
    assert_int_equal(symlink("refs/heads/main", p), 0);
    expect(d, 1);
    d = candidate(NULL, 1);
    snprintf(p, sizeof p, "%s/HEAD", d);
    assert_int_equal(symlink("../elsewhere", p), 0);
    assert_int_equal(ws_gitdir_judge(d, NULL), 0);
}

static void test_commondir(void **st)
{
    (void)st;
    char common[PATH_MAX + 32];
    snprintf(common, sizeof common, "%s", candidate(NULL, 1));
    char *d = candidate("ref:refs/heads/wt\n", 0);
    char rel[PATH_MAX + 64];
    snprintf(rel, sizeof rel, "../%s\n", strrchr(common, '/') + 1);
    put(d, "commondir", rel);
    put(d, "config.worktree", "[core]\n");
    char *c = NULL;
    assert_int_equal(ws_gitdir_judge(d, &c), 1);
    assert_non_null(c);
    assert_string_equal(c, common);
    free(c);
    expect(d, 1);
    /* a commondir naming nothing: git dies there, no git directory */
    d = candidate("ref: refs/heads/x\n", 1);
    put(d, "commondir", "../nowhere\n");
    assert_int_equal(ws_gitdir_judge(d, NULL), 0);
}

static void test_gitfile(void **st)
{
    (void)st;
    char target[PATH_MAX + 32];
    snprintf(target, sizeof target, "%s", candidate("ref: refs/heads/main\n", 1));
    char *w = candidate(NULL, 0);
    char text[PATH_MAX + 64];
    snprintf(text, sizeof text, "gitdir: ../%s\r\n", strrchr(target, '/') + 1);
    put(w, ".git", text);
    char p[PATH_MAX + 64], *g = NULL;
    snprintf(p, sizeof p, "%s/.git", w);
    assert_int_equal(ws_gitdir_gitfile(p, &g), 1);
    assert_string_equal(g, target);
    free(g);
    put(w, ".git", "gitdir:../x\n");
    assert_int_equal(ws_gitdir_gitfile(p, NULL), 0);
    snprintf(text, sizeof text, "gitdir: %s/c%d\n", base, n);
    put(w, ".git", text); /* names a directory that is no git directory */
    assert_int_equal(ws_gitdir_gitfile(p, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads),
        cmocka_unit_test(test_symlinked_head),
        cmocka_unit_test(test_commondir),
        cmocka_unit_test(test_gitfile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
