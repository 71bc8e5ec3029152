/* Workspace containment: "..", absolute paths and symlinks. */
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
#include "paths.h"

static char root[PATH_MAX];
static char outside[PATH_MAX];

static int setup(void **st)
{
    (void)st;
    char tmpl[] = "/tmp/vthost-paths-XXXXXX";
    char tmpl2[] = "/tmp/vthost-outside-XXXXXX";
    if (!mkdtemp(tmpl) || !mkdtemp(tmpl2))
        return -1;
    if (!realpath(tmpl, root) || !realpath(tmpl2, outside))
        return -1;
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/src", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/src/a.c", root);
    fclose(fopen(p, "w"));
    snprintf(p, sizeof p, "%s/escape", root);
    if (symlink(outside, p) != 0)
        return -1;
    snprintf(p, sizeof p, "%s/inner", root);
    if (symlink("src", p) != 0)
        return -1;
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[2 * PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
    return system(cmd) == 0 ? 0 : -1;
}

static void expect(const char *path, unsigned flags, int rc, const char *suffix)
{
    char *out = NULL;
    int got = paths_resolve(root, path, flags, &out);
    assert_int_equal(got, rc);
    if (rc == VT_OK) {
        char want[PATH_MAX + 64];
        snprintf(want, sizeof want, "%s%s", root, suffix);
        assert_string_equal(out, want);
    } else {
        assert_null(out);
    }
    free(out);
}

static void test_relative(void **st)
{
    (void)st;
    expect("src/a.c", VT_RESOLVE_MUST_EXIST, VT_OK, "/src/a.c");
    expect("./src/../src/a.c", 0, VT_OK, "/src/a.c");
    expect(".", VT_RESOLVE_DIRECTORY, VT_OK, "");
    expect("new/dir/file.txt", 0, VT_OK, "/new/dir/file.txt");
    expect("src/missing.c", VT_RESOLVE_MUST_EXIST, VT_ERR_NOT_FOUND, NULL);
    expect("src/a.c", VT_RESOLVE_DIRECTORY, VT_ERR_INVALID, NULL);
}

static void test_escapes(void **st)
{
    (void)st;
    expect("..", 0, VT_ERR_OUTSIDE, NULL);
    expect("src/../../x", 0, VT_ERR_OUTSIDE, NULL);
    expect("/etc/passwd", 0, VT_ERR_OUTSIDE, NULL);
    expect("escape", 0, VT_ERR_OUTSIDE, NULL);
    expect("escape/new.txt", 0, VT_ERR_OUTSIDE, NULL);
    expect("bad\nname", 0, VT_ERR_INVALID, NULL);
    expect("", 0, VT_ERR_INVALID, NULL);
}

static void test_absolute_inside(void **st)
{
    (void)st;
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/src", root);
    expect(p, VT_RESOLVE_DIRECTORY, VT_OK, "/src");
}

static void test_symlinks(void **st)
{
    (void)st;
    /* a symlink that stays inside resolves, unless symlinks are refused */
    expect("inner/a.c", VT_RESOLVE_MUST_EXIST, VT_OK, "/src/a.c");
    expect("inner/a.c", VT_RESOLVE_NO_SYMLINKS, VT_ERR_OUTSIDE, NULL);
    expect("inner", VT_RESOLVE_NO_SYMLINKS, VT_ERR_OUTSIDE, NULL);
    expect("src/a.c", VT_RESOLVE_NO_SYMLINKS, VT_OK, "/src/a.c");
}

static void test_within(void **st)
{
    (void)st;
    assert_true(paths_is_within("/a/b", "/a/b"));
    assert_true(paths_is_within("/a/b", "/a/b/c"));
    assert_false(paths_is_within("/a/b", "/a/bc"));
    assert_false(paths_is_within("/a/b", "/a"));
    assert_true(paths_is_within("/", "/x"));
}

static void test_unsafe_workspace(void **st)
{
    (void)st;
    const char *home = "/home/me";
    const char *const refused[] = {"/", "/usr", "/usr/lib", "/etc/cron.d", "/var/lib/x", "/boot",
                                   "/lib", "/lib64/x", "/libx32", "/bin", "/sbin/a", "/opt/p",
                                   "/run/user/1", "/proc/1", "/sys/fs", "/dev/shm", "/snap/x",
                                   "/home", "/Users", "/home/me", "/home/me/.config",
                                   "/home/me/.config/vtcode", "/home/me/.ssh"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (!paths_unsafe_workspace(refused[i], home))
            fail_msg("%s should be refused", refused[i]);
    const char *const fine[] = {"/home/me/src/p", "/home/me/p.git", "/tmp/x", "/srv/project",
                                "/home/other", "/home/me/a/.hidden", "/usrx", "/variant"};
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++)
        if (paths_unsafe_workspace(fine[i], home))
            fail_msg("%s should be accepted: %s", fine[i], paths_unsafe_workspace(fine[i], home));
    assert_non_null(paths_unsafe_workspace("/home/other", "/home/other"));
    assert_null(paths_unsafe_workspace("/srv/p", NULL));
}

static void test_holds_homes(void **st)
{
    (void)st;
    char dir[] = "/tmp/vthost-homes-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char passwd[PATH_MAX], real_parent[PATH_MAX], link[PATH_MAX];
    snprintf(passwd, sizeof passwd, "%s/passwd", dir);
    snprintf(real_parent, sizeof real_parent, "%s/data/people", dir);
    snprintf(link, sizeof link, "%s/people", dir);
    char data[PATH_MAX];
    snprintf(data, sizeof data, "%s/data", dir);
    assert_int_equal(mkdir(data, 0700), 0);
    assert_int_equal(mkdir(real_parent, 0700), 0);
    assert_int_equal(symlink(real_parent, link), 0);
    FILE *f = fopen(passwd, "w");
    assert_non_null(f);
    fprintf(f, "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/false\n"
               "odd:x:5:5:no home field\nann:x:1000:1000:Ann:/srv/homes/ann:/bin/sh\n"
               "bob:x:1001:1001:Bob:%s/bob:/bin/sh\n",
            link);
    fclose(f);
    /* the parent and its ancestors (not /) hold homes; the homes and
     * their siblings do not */
    assert_non_null(paths_holds_homes("/srv/homes", passwd));
    assert_non_null(paths_holds_homes("/srv", passwd));
    assert_null(paths_holds_homes("/srv/homes/ann", passwd));
    assert_null(paths_holds_homes("/srv/homesick", passwd));
    assert_null(paths_holds_homes("/srv/other", passwd));
    /* through a link: the canonical parent is refused too */
    assert_non_null(paths_holds_homes(link, passwd));
    assert_non_null(paths_holds_homes(real_parent, passwd));
    assert_non_null(paths_holds_homes(data, passwd));
    /* /home and /Users whatever the file says */
    assert_non_null(paths_holds_homes("/home", NULL));
    assert_non_null(paths_holds_homes("/Users", "/nonexistent/passwd"));
    assert_null(paths_holds_homes("/homes", NULL));
    unlink(link);
    unlink(passwd);
    rmdir(real_parent);
    rmdir(data);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_absolute_inside),
        cmocka_unit_test(test_symlinks),
        cmocka_unit_test(test_within),
        cmocka_unit_test(test_unsafe_workspace),
        cmocka_unit_test(test_holds_homes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
