/* The stat stamps of the workspace layer (ws_stamp.h): a file rewritten
 * in place or replaced by a rename differs, an untouched one does not,
 * absent paths are the same; through a link, the plain stamp sees the
 * link and the following one sees the file it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ws_stamp.h"

static char root[PATH_MAX];

static void path_of(char *out, size_t n, const char *rel)
{
    snprintf(out, n, "%s/%s", root, rel);
}

static void put(const char *rel, const char *text)
{
    char p[PATH_MAX + 64];
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **st)
{
    (void)st;
    snprintf(root, sizeof root, "/tmp/vthost-stamp-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    static const char *const names[] = {"a", "b", "b.new", "link", NULL};
    for (size_t i = 0; names[i]; i++) {
        char p[PATH_MAX + 64];
        path_of(p, sizeof p, names[i]);
        unlink(p);
    }
    return rmdir(root);
}

/* A change time that must move: the test's writes come quicker than
 * some file systems' timestamp grain. */
static void later(void)
{
    usleep(20000);
}

static void test_untouched_and_absent(void **st)
{
    (void)st;
    char a[PATH_MAX + 64], gone[PATH_MAX + 64];
    put("a", "one\n");
    path_of(a, sizeof a, "a");
    path_of(gone, sizeof gone, "nothing-here");
    ws_stamp s1, s2;
    ws_stamp_take(a, &s1);
    ws_stamp_take(a, &s2);
    assert_true(s1.exists);
    assert_true(ws_stamp_same(&s1, &s2));
    ws_stamp_take(gone, &s1);
    ws_stamp_take_follow(gone, &s2);
    assert_false(s1.exists);
    assert_true(ws_stamp_same(&s1, &s2));
    ws_stamp_take(NULL, &s1);
    assert_false(s1.exists);
    ws_stamp_take(a, &s2);
    assert_false(ws_stamp_same(&s1, &s2));
}

static void test_rewritten_and_replaced(void **st)
{
    (void)st;
    char b[PATH_MAX + 64], bnew[PATH_MAX + 64];
    path_of(b, sizeof b, "b");
    path_of(bnew, sizeof bnew, "b.new");
    put("b", "same\n");
    ws_stamp was, now;
    ws_stamp_take(b, &was);
    later();
    put("b", "same\n"); /* same size, in place: the change time moves */
    ws_stamp_take(b, &now);
    assert_false(ws_stamp_same(&was, &now));
    ws_stamp_take(b, &was);
    put("b.new", "same\n");
    assert_int_equal(rename(bnew, b), 0);
    ws_stamp_take(b, &now);
    assert_false(ws_stamp_same(&was, &now));
}

static void test_link_plain_and_followed(void **st)
{
    (void)st;
    char a[PATH_MAX + 64], link[PATH_MAX + 64];
    put("a", "one\n");
    path_of(a, sizeof a, "a");
    path_of(link, sizeof link, "link");
    assert_int_equal(symlink(a, link), 0);
    ws_stamp plain, followed, target;
    ws_stamp_take(link, &plain);
    ws_stamp_take_follow(link, &followed);
    ws_stamp_take(a, &target);
    assert_true(plain.exists && followed.exists);
    assert_true(ws_stamp_same(&followed, &target));
    assert_false(ws_stamp_same(&plain, &target));

    later();
    put("a", "two, longer\n"); /* the named file changes, the link not */
    ws_stamp plain2, followed2;
    ws_stamp_take(link, &plain2);
    ws_stamp_take_follow(link, &followed2);
    assert_true(ws_stamp_same(&plain, &plain2));
    assert_false(ws_stamp_same(&followed, &followed2));

    int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dirfd >= 0);
    ws_stamp at;
    ws_stamp_take_at(dirfd, "link", &at); /* below a root: the link itself */
    close(dirfd);
    assert_true(ws_stamp_same(&at, &plain2));

    assert_int_equal(unlink(a), 0); /* a dangling link: absent when followed */
    ws_stamp_take_follow(link, &followed2);
    ws_stamp_take(link, &plain2);
    assert_false(followed2.exists);
    assert_true(plain2.exists);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_untouched_and_absent),
        cmocka_unit_test(test_rewritten_and_replaced),
        cmocka_unit_test(test_link_plain_and_followed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
