/* The check after a workspace-writing call, on real directories: a bare
 * repository the call made is neutralised (its fsmonitor gone, the
 * original kept in .vtcode/set-aside/), a repository that was there and
 * that the call did not arm is left byte for byte, one whose config the
 * call wrote is neutralised, a gitfile naming a git directory outside the
 * workspace is set aside, and with .vtcode/set-aside a plain file the
 * originals stay beside what they were (fail closed). */
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
#include "subjects.h"
#include "ws_after.h"

static char root[PATH_MAX], outside[PATH_MAX];

static void put(const char *rel, const char *text)
{
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *rel)
{
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "r");
    if (!f)
        return NULL;
    static char b[4096];
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    b[n] = '\0';
    return b;
}

static int has_entry(const char *rel, const char *prefix, const char *suffix)
{
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    DIR *d = opendir(p);
    int hit = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name), k = strlen(suffix);
        hit |= !strncmp(e->d_name, prefix, strlen(prefix)) && n >= k &&
               !strcmp(e->d_name + n - k, suffix);
    }
    if (d)
        closedir(d);
    return hit;
}

static const char BARE_CFG[] = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch x\"\n";

/* Run one "call" that writes `n` files (path, text pairs) between begin
 * and end; *report as ws_after_end gives it. */
static int call(const char *const *files, size_t n, char **report)
{
    vt_subjects s;
    subjects_init(&s);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(subjects_add(&s, VT_SUBJECT_PATH_CREATE, files[2 * i]), 0);
    ws_after *a = NULL;
    assert_int_equal(ws_after_begin(&s, VT_EFFECT_MUTATES_WORKSPACE, &a), 0);
    for (size_t i = 0; i < n; i++)
        put(files[2 * i], files[2 * i + 1]);
    int rc = ws_after_end(a, report);
    subjects_free(&s);
    return rc;
}

static int setup(void **st)
{
    (void)st;
    char a[] = "/tmp/vthost-after-XXXXXX", b[] = "/tmp/vthost-after-out-XXXXXX";
    if (!mkdtemp(a) || !mkdtemp(b) || !realpath(a, root) || !realpath(b, outside))
        return -1;
    ws_after_set_root(root);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    ws_after_set_root(NULL);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, outside);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_new_bare_neutralised(void **st)
{
    (void)st;
    const char *const files[] = {"src/HEAD",      "ref:refs/heads/main\n", "src/config", BARE_CFG,
                                 "src/objects/k", "",                      "src/refs/k", ""};
    char *report = NULL;
    assert_int_equal(call(files, 4, &report), 0);
    assert_non_null(report);
    assert_non_null(strstr(report, "core.fsmonitor"));
    free(report);
    assert_null(strstr(slurp("src/config"), "fsmonitor"));
    assert_true(has_entry(".vtcode/set-aside", "", "src%config"));
    assert_non_null(strstr(slurp(".vtcode/.gitignore"), "*"));
}

static void test_existing_left_alone_armed_not(void **st)
{
    (void)st;
    put("own/.git/HEAD", "ref: refs/heads/main\n");
    put("own/.git/config", "[core]\n\tpager = less\n");
    put("own/.git/objects/k", "");
    put("own/.git/refs/k", "");
    const char *const plain[] = {"own/src/a.c", "int a;\n"};
    char *report = NULL;
    assert_int_equal(call(plain, 1, &report), 0);
    assert_null(report);
    assert_string_equal(slurp("own/.git/config"), "[core]\n\tpager = less\n");
    const char *const armed[] = {"own/.git/config", BARE_CFG};
    assert_int_equal(call(armed, 1, &report), 0);
    assert_non_null(report);
    free(report);
    assert_null(strstr(slurp("own/.git/config"), "fsmonitor"));
}

static void test_gitfile_outside_set_aside(void **st)
{
    (void)st;
    char p[2 * PATH_MAX], text[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/objects", outside);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/refs", outside);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/HEAD", outside);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("ref: refs/heads/main\n", f);
    fclose(f);
    snprintf(text, sizeof text, "gitdir: %s\n", outside);
    const char *const files[] = {"w/.git", text};
    char *report = NULL;
    assert_int_equal(call(files, 1, &report), 0);
    assert_non_null(report);
    free(report);
    assert_null(slurp("w/.git"));
}

static void test_aside_a_file_fails_closed(void **st)
{
    (void)st;
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/.vtcode/set-aside", root);
    char cmd[6 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && echo shipped > '%s'", p, p);
    assert_int_equal(system(cmd), 0);
    const char *const files[] = {"lib/HEAD",      "ref: refs/heads/main\n", "lib/config", BARE_CFG,
                                 "lib/objects/k", "",                       "lib/refs/k", ""};
    char *report = NULL;
    assert_int_equal(call(files, 4, &report), 0);
    assert_non_null(report);
    assert_non_null(strstr(report, "cannot be used"));
    free(report);
    assert_null(strstr(slurp("lib/config"), "fsmonitor"));
    assert_true(has_entry("lib", "vthost-set-aside-", "config"));
    assert_string_equal(slurp(".vtcode/set-aside"), "shipped\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_bare_neutralised),
        cmocka_unit_test(test_existing_left_alone_armed_not),
        cmocka_unit_test(test_gitfile_outside_set_aside),
        cmocka_unit_test(test_aside_a_file_fails_closed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
