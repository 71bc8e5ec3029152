/* Places granted by descriptor (sandbox_fd.c): paths normalized as
 * written, opened without following any link (a link on the way is
 * -ELOOP, never its target), and the refusal naming the place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "sandbox_int.h"

static const vt_host_api test_api = {.struct_size = sizeof(vt_host_api), .free = free};
const vt_host_api *api = &test_api;

static char base[PATH_MAX]; /* canonical scratch directory */

static char *at(const char *rel)
{
    static char bufs[8][PATH_MAX + 64];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", base, rel);
    return b;
}

static int setup(void **st)
{
    (void)st;
    char dir[] = "/var/tmp/vthost-sbfd-XXXXXX";
    if (!mkdtemp(dir) || !realpath(dir, base))
        return -1;
    mkdir(at("home"), 0700);
    mkdir(at("tmp"), 0700);
    mkdir(at("tmp/real"), 0700);
    if (symlink(at("home"), at("tmp/x")) != 0)
        return -1;
    return symlink("real", at("tmp/rel"));
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_normalize(void **st)
{
    (void)st;
    char out[PATH_MAX];
    assert_int_equal(sandbox_path_normalize("/tmp//x/./y/", out, sizeof out), 0);
    assert_string_equal(out, "/tmp/x/y");
    assert_int_equal(sandbox_path_normalize("/a/b/../c", out, sizeof out), 0);
    assert_string_equal(out, "/a/c");
    assert_int_equal(sandbox_path_normalize("/..", out, sizeof out), 0);
    assert_string_equal(out, "/");
    assert_int_equal(sandbox_path_normalize("relative", out, sizeof out), -EINVAL);
}

static void test_open_real_directory(void **st)
{
    (void)st;
    struct stat want, got;
    assert_int_equal(stat(at("tmp/real"), &want), 0);
    int fd = sandbox_fd_open(at("tmp/real"), &got);
    assert_true(fd >= 0);
    close(fd);
    assert_true(got.st_dev == want.st_dev && got.st_ino == want.st_ino);
}

static void test_links_are_refused(void **st)
{
    (void)st;
    struct stat got;
    assert_int_equal(sandbox_fd_open(at("tmp/x"), &got), -ELOOP);   /* the last one */
    assert_int_equal(sandbox_fd_open(at("tmp/x/y"), &got), -ELOOP); /* on the way */
    assert_int_equal(sandbox_fd_open(at("tmp/rel"), &got), -ELOOP); /* relative */
    assert_int_equal(sandbox_fd_open(at("tmp/missing"), &got), -ENOENT);
    char *why = sandbox_fd_refusal("$TMPDIR", at("tmp/x"), -ELOOP);
    assert_non_null(why);
    assert_non_null(strstr(why, "$TMPDIR"));
    assert_non_null(strstr(why, at("tmp/x")));
    assert_non_null(strstr(why, "symbolic link"));
    free(why);
}

/* The same answer as realpath(3) for every kind of path a plan
 * resolves: canonical, through a link (last, on the way, relative),
 * with "..", "." and "//", missing, and a missing name after a link. */
static void test_realpath_as_libc(void **st)
{
    (void)st;
    const char *rel[] = {"tmp/real", "tmp/x",       "tmp/x/", "tmp/rel",      "tmp/./real",
                         "tmp//real", "tmp/x/../tmp", "home",  "tmp/missing", "tmp/x/missing",
                         "tmp/rel/missing", "tmp/real/..", ""};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char want[PATH_MAX], got[PATH_MAX];
        const char *path = at(rel[i]);
        errno = 0;
        char *w = realpath(path, want);
        int we = errno;
        errno = 0;
        char *g = sandbox_realpath(path, got);
        if (!w) {
            assert_null(g);
            assert_int_equal(errno, we);
        } else {
            assert_non_null(g);
            assert_string_equal(got, want);
        }
    }
    char got[PATH_MAX];
    assert_non_null(sandbox_realpath("/", got));
    assert_string_equal(got, "/");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_open_real_directory),
        cmocka_unit_test(test_links_are_refused),
        cmocka_unit_test(test_realpath_as_libc),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
