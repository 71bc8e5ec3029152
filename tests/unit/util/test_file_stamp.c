/* file_stamp: a file left alone keeps its stamp, a write or a replacement
 * changes it, a missing file matches only a missing file, and a link is
 * stamped as itself or as what it names as asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file_stamp.h"

typedef struct dir {
    char root[64], file[96], link[96], other[96];
} dir;

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **st)
{
    dir *d = calloc(1, sizeof *d);
    strcpy(d->root, "/tmp/vt_file_stamp_XXXXXX");
    if (!mkdtemp(d->root))
        return -1;
    snprintf(d->file, sizeof d->file, "%s/f", d->root);
    snprintf(d->link, sizeof d->link, "%s/l", d->root);
    snprintf(d->other, sizeof d->other, "%s/o", d->root);
    put(d->file, "one");
    *st = d;
    return 0;
}

static int teardown(void **st)
{
    dir *d = *st;
    unlink(d->file);
    unlink(d->link);
    unlink(d->other);
    rmdir(d->root);
    free(d);
    return 0;
}

static void test_unchanged_and_written(void **st)
{
    dir *d = *st;
    file_stamp a, b;
    file_stamp_take(d->file, FILE_STAMP_FOLLOW, &a);
    file_stamp_take(d->file, FILE_STAMP_FOLLOW, &b);
    assert_true(a.exists);
    assert_true(file_stamp_same(&a, &b));
    put(d->file, "two, longer"); /* the size differs whatever the clock */
    file_stamp_take(d->file, FILE_STAMP_FOLLOW, &b);
    assert_false(file_stamp_same(&a, &b));
}

static void test_replaced(void **st)
{
    dir *d = *st;
    file_stamp a, b;
    file_stamp_take(d->file, FILE_STAMP_LINK, &a);
    put(d->other, "one");
    assert_int_equal(rename(d->other, d->file), 0); /* another inode */
    file_stamp_take(d->file, FILE_STAMP_LINK, &b);
    assert_false(file_stamp_same(&a, &b));
}

static void test_missing(void **st)
{
    dir *d = *st;
    file_stamp gone1, gone2, there;
    file_stamp_take(d->other, FILE_STAMP_FOLLOW, &gone1);
    file_stamp_take(d->other, FILE_STAMP_LINK, &gone2);
    file_stamp_take(NULL, FILE_STAMP_LINK, &gone2);
    assert_false(gone1.exists);
    assert_true(file_stamp_same(&gone1, &gone2));
    file_stamp_take(d->file, FILE_STAMP_FOLLOW, &there);
    assert_false(file_stamp_same(&gone1, &there));
    assert_false(file_stamp_same(&there, &gone1));
}

static void test_link_or_target(void **st)
{
    dir *d = *st;
    assert_int_equal(symlink("f", d->link), 0);
    file_stamp file, link, followed;
    file_stamp_take(d->file, FILE_STAMP_LINK, &file);
    file_stamp_take(d->link, FILE_STAMP_LINK, &link);
    file_stamp_take(d->link, FILE_STAMP_FOLLOW, &followed);
    assert_true(link.exists);
    assert_false(file_stamp_same(&file, &link));
    assert_true(file_stamp_same(&file, &followed));
    /* a dangling link is there for lstat, missing for stat */
    assert_int_equal(unlink(d->file), 0);
    file_stamp_take(d->link, FILE_STAMP_LINK, &link);
    file_stamp_take(d->link, FILE_STAMP_FOLLOW, &followed);
    assert_true(link.exists);
    assert_false(followed.exists);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unchanged_and_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_or_target, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
