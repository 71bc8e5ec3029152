/* The workspace index cache is swept when a call saves its file: files of
 * other workspaces neither written nor read for 30 days go, and a save's
 * temporary file left for more than an hour; fresh files, a file read
 * lately, the saving workspace's file, links, directories and files not
 * named like ours stay; the directory is read at most once a day (its
 * stamp file), and not at all when it is a link. */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "ws_index.h"
#include "ws_index_int.h"
#include "ws_test_sh.h"

#define DAY (24 * 3600)

static char root[PATH_MAX], cache[PATH_MAX], dir[PATH_MAX + 32], outside[PATH_MAX + 32];

static int setup(void **st)
{
    (void)st;
    char t[] = "/tmp/vthost-sweepws-XXXXXX", c[] = "/tmp/vthost-sweepc-XXXXXX";
    if (!mkdtemp(t) || !mkdtemp(c) || !realpath(t, root) || !realpath(c, cache))
        return -1;
    setenv("XDG_CACHE_HOME", cache, 1);
    snprintf(dir, sizeof dir, "%s/vthost/wsindex", cache);
    snprintf(outside, sizeof outside, "%s/outside", cache);
    sh("mkdir -p '%s/src/.git' '%s' && echo keep > '%s'", root, dir, outside);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    sh("rm -rf '%s' '%s'", root, cache);
    return 0;
}

/* `name` in the cache directory: a file (made when `make`) whose access
 * and modification times are set `atime_ago` and `mtime_ago` seconds
 * back (of the link itself when it is one). */
static void age(const char *name, int make, long atime_ago, long mtime_ago)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (make) {
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs("old index\n", f);
        fclose(f);
    }
    time_t now = time(NULL);
    struct timespec ts[2] = {{now - atime_ago, 0}, {now - mtime_ago, 0}};
    assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static int there(const char *name)
{
    char p[PATH_MAX * 2];
    struct stat s;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &s) == 0;
}

/* A one-shot index of `root` built and saved, as at a call's end. */
static void one_call(void)
{
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    assert_int_equal(ws_index_refresh(ix, 0, NULL), 0);
    ix->dirty = 1;
    ws_index_close(ix); /* saves */
}

#define OLD "00000000000000aa.idx"
#define FRESH "00000000000000bb.idx"
#define READ "00000000000000cc.idx"
#define TMP_OLD "00000000000000dd.idx.4142"
#define TMP_NEW "00000000000000ee.idx.4143"
#define LINK "00000000000000ff.idx"
#define SUBDIR "0000000000000011.idx"
#define FOREIGN "notes.txt"
#define ALMOST "0000000000000022.idx.x"

static void test_sweep_takes_only_old_files_of_ours(void **st)
{
    (void)st;
    const long old = 40L * DAY;
    char key[17], mine[32];
    ws_index_key(root, key);
    snprintf(mine, sizeof mine, "%s.idx", key);
    one_call(); /* the workspace's own file, and the first sweep */
    age(mine, 0, old, old);
    age(".swept", 1, DAY + 60, DAY + 60);
    age(OLD, 1, old, old);
    age(FRESH, 1, 0, 0);
    age(READ, 1, 3600, old); /* read an hour ago: in use */
    age(TMP_OLD, 1, 2 * 3600, 2 * 3600);
    age(TMP_NEW, 1, 60, 60);
    age(FOREIGN, 1, old, old);
    age(ALMOST, 1, old, old);
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s/%s", dir, LINK);
    assert_int_equal(symlink(outside, p), 0);
    age(LINK, 0, old, old);
    sh("mkdir '%s/%s' && touch -d '40 days ago' '%s/%s'", dir, SUBDIR, dir, SUBDIR);
    struct timespec ts[2] = {{time(NULL) - old, 0}, {time(NULL) - old, 0}};
    assert_int_equal(utimensat(AT_FDCWD, outside, ts, 0), 0);

    one_call();
    assert_false(there(OLD));
    assert_false(there(TMP_OLD));
    assert_true(there(FRESH));
    assert_true(there(READ));
    assert_true(there(TMP_NEW));
    assert_true(there(mine));
    /* not ours: a link (and where it leads), a directory, other names */
    assert_true(there(LINK));
    assert_int_equal(access(outside, F_OK), 0);
    assert_true(there(SUBDIR));
    assert_true(there(FOREIGN));
    assert_true(there(ALMOST));
}

/* Within a day of a sweep the directory is not read again; a day later
 * it is. */
static void test_sweep_at_most_once_a_day(void **st)
{
    (void)st;
    const long old = 40L * DAY;
    one_call(); /* a sweep made, or made lately by the test before */
    age(OLD, 1, old, old);
    one_call();
    assert_true(there(OLD));
    age(".swept", 1, DAY + 60, DAY + 60);
    one_call();
    assert_false(there(OLD));
}

/* A sweep removes at most 1,000 files; the rest go at the next one, an
 * hour later rather than a day. */
static void test_sweep_bounded(void **st)
{
    (void)st;
    char p[PATH_MAX * 2];
    time_t t = time(NULL) - 40L * DAY;
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    for (int i = 0; i < 1100; i++) {
        snprintf(p, sizeof p, "%s/%016x.idx", dir, 0x100000 + i);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fclose(f);
        assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
    }
    age(".swept", 1, DAY + 60, DAY + 60);
    one_call();
    int left = 0;
    for (int i = 0; i < 1100; i++) {
        snprintf(p, sizeof p, "%s/%016x.idx", dir, 0x100000 + i);
        left += access(p, F_OK) == 0;
    }
    assert_int_equal(left, 100);
    struct stat s;
    snprintf(p, sizeof p, "%s/.swept", dir);
    assert_int_equal(stat(p, &s), 0);
    long due_in = s.st_mtime + DAY - time(NULL);
    assert_true(due_in > 3500 && due_in <= 3600);
    age(".swept", 0, DAY + 60, DAY + 60); /* an hour later */
    one_call();
    for (int i = 0; i < 1100; i++) {
        snprintf(p, sizeof p, "%s/%016x.idx", dir, 0x100000 + i);
        assert_int_not_equal(access(p, F_OK), 0);
    }
}

/* A cache directory that is a link (planted, or made by hand) is not
 * swept: what it leads to is not known to be ours. */
static void test_linked_directory_not_swept(void **st)
{
    (void)st;
    char real[PATH_MAX + 64], victim[PATH_MAX + 96];
    snprintf(real, sizeof real, "%s/elsewhere", cache);
    snprintf(victim, sizeof victim, "%s/" OLD, real);
    sh("rm -rf '%s' && mkdir -p '%s' && echo theirs > '%s' && touch -d '40 days ago' '%s' && "
       "ln -s '%s' '%s'",
       dir, real, victim, victim, real, dir);
    age(".swept", 1, DAY + 60, DAY + 60); /* through the link: due */
    one_call();
    assert_int_equal(access(victim, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_takes_only_old_files_of_ours),
        cmocka_unit_test(test_sweep_at_most_once_a_day),
        cmocka_unit_test(test_sweep_bounded),
        cmocka_unit_test(test_linked_directory_not_swept),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
