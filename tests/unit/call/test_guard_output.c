/* Which changes of a verification run are sources and which its build
 * output: names, first bytes, .gitignore files (nested, negated,
 * directory-only, anchored), a changed .gitignore, what is gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guard_output.h"

static char ws[] = "/tmp/vthost-unit-gout-XXXXXX";

static void put(const char *rel, const char *text, size_t len)
{
    char p[512], d[512];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    snprintf(d, sizeof d, "%s", p);
    for (char *s = d + strlen(ws) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(d, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
}

/* 1 when `rel` counts as a source the run changed. */
static int source(const char *rel)
{
    char *paths[] = {(char *)rel};
    const char *got[1] = {0};
    size_t n = guard_output_sources(ws, paths, 1, got, 1);
    if (n)
        assert_string_equal(got[0], rel);
    return (int)n;
}

static void test_sources_and_output(void **state)
{
    (void)state;
    const char *rules = "# build\n*.gen\n/out/\nlogs\n!keep.gen\nsub/anch.txt\n";
    put(".gitignore", rules, strlen(rules));
    put("sub/.gitignore", "local.c\n", 8);
    put("src/a.c", "int a;\n", 7);
    put("x.o", "obj", 3);
    put("libz.so.1.2", "lib", 3);
    put("prog", "\177ELF\2\1\1\0", 8);
    put("lib.a", "!<arch>\nxx", 10);
    put("t.gen", "g", 1);
    put("keep.gen", "k", 1);
    put("out/gen.c", "int g;\n", 7);
    put("deep/out/gen.c", "int g;\n", 7); /* /out/ is anchored: not this one */
    put("logs/run.txt", "l", 1);
    put("sub/local.c", "int l;\n", 7);
    put("local.c", "int l;\n", 7); /* sub/.gitignore does not reach up */
    put("sub/anch.txt", "a", 1);
    put("z/sub/anch.txt", "a", 1);

    assert_int_equal(source("src/a.c"), 1);
    assert_int_equal(source("x.o"), 0);
    assert_int_equal(source("libz.so.1.2"), 0);
    assert_int_equal(source("prog"), 0);           /* ELF */
    assert_int_equal(source("lib.a"), 0);          /* ar */
    assert_int_equal(source("t.gen"), 0);          /* ignored */
    assert_int_equal(source("keep.gen"), 1);       /* re-included */
    assert_int_equal(source("out/gen.c"), 0);      /* an ignored directory */
    assert_int_equal(source("deep/out/gen.c"), 1); /* anchored rule */
    assert_int_equal(source("logs/run.txt"), 0);   /* a name at any depth */
    assert_int_equal(source("sub/local.c"), 0);    /* the directory's own rules */
    assert_int_equal(source("local.c"), 1);
    assert_int_equal(source("sub/anch.txt"), 0);
    assert_int_equal(source("z/sub/anch.txt"), 1);
    assert_int_equal(source(".gitignore"), 1); /* a changed ignore file counts */
    assert_int_equal(source("sub/.gitignore"), 1);
    assert_int_equal(source("src"), 0);    /* a directory */
    assert_int_equal(source("gone.c"), 1); /* deleted: by name only */
    assert_int_equal(source("gone.o"), 0);
    assert_int_equal(source("(too many changes to name: events were lost)"), 1);

    /* several at once: the count and the first names */
    char *paths[] = {"x.o", "src/a.c", "t.gen", "local.c"};
    const char *got[4] = {0};
    assert_int_equal(guard_output_sources(ws, paths, 4, got, 1), 2);
    assert_string_equal(got[0], "src/a.c");
    assert_null(got[1]);
    assert_int_equal(guard_output_sources(NULL, paths, 4, NULL, 0), 4);
}

/* A .gitignore the run could have aimed elsewhere is read only as a
 * regular file beneath the workspace. */
static void test_ignore_file_not_followed(void **state)
{
    (void)state;
    char link[512];
    put("l/c.txt", "c", 1);
    put("elsewhere/.gitignore", "*.txt\n", 6);
    snprintf(link, sizeof link, "%s/l/.gitignore", ws);
    assert_int_equal(symlink("../elsewhere/.gitignore", link), 0);
    assert_int_equal(source("l/c.txt"), 1);
}

int main(void)
{
    if (!mkdtemp(ws))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources_and_output),
        cmocka_unit_test(test_ignore_file_not_followed),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
