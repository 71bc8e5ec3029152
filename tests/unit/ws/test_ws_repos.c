/* The repositories below any directory, as the workspace service answers
 * them (vt_wsindex_v1.repositories_below over ws_repos.h): every kind of
 * .git entry below a directory outside the workspace, nested ones, links
 * never followed, nothing inside a .git, and "complete": false once the
 * walk's depth bound cut it. */
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
#include <vthost/services.h>
#include "services.h"
#include "ws_service.h"

static char top[PATH_MAX], ws[PATH_MAX + 16], out_dir[PATH_MAX + 16];

static void put(const char *rel, const char *text)
{
    char p[PATH_MAX + 96];
    assert_true(snprintf(p, sizeof p, "%s/%s", out_dir, rel) < (int)sizeof p);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void dir(const char *rel)
{
    char p[PATH_MAX + 96];
    assert_true(snprintf(p, sizeof p, "%s/%s", out_dir, rel) < (int)sizeof p);
    assert_int_equal(mkdir(p, 0755), 0);
}

static const vt_wsindex_v1 *service(void)
{
    const vt_wsindex_v1 *x = services_lookup(VT_WSINDEX_SERVICE);
    assert_non_null(x);
    assert_true(x->struct_size >= offsetof(vt_wsindex_v1, repositories_below) +
                                      sizeof x->repositories_below);
    assert_non_null(x->repositories_below);
    return x;
}

/* The kind listed for the entry `rel` below out_dir, or NULL. */
static const char *kind_of(const cJSON *o, const char *rel)
{
    char want[PATH_MAX + 96];
    snprintf(want, sizeof want, "%s/%s", out_dir, rel);
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "repositories"))
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        if (p && !strcmp(p, want))
            return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
    }
    return NULL;
}

static void test_every_kind_below_outside_dir(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 96];
    snprintf(cmd, sizeof cmd, "git init -q '%s/real' 2>/dev/null", out_dir);
    assert_int_equal(system(cmd), 0);
    /* a git directory planted by hand: HEAD without a space */
    dir("hand");
    dir("hand/.git");
    dir("hand/.git/objects");
    dir("hand/.git/refs");
    put("hand/.git/HEAD", "ref:refs/heads/main\n");
    dir("wt");
    put("wt/.git", "gitdir: ../real/.git\n");
    dir("linked");
    char from[PATH_MAX + 96], to[PATH_MAX + 96];
    snprintf(from, sizeof from, "%s/linked/.git", out_dir);
    snprintf(to, sizeof to, "%s/real/.git", out_dir);
    assert_int_equal(symlink(to, from), 0);
    dir("a");
    dir("a/b");
    dir("a/b/c");
    dir("a/b/c/.git");
    /* a link to a directory is not followed, nor is a .git entered */
    snprintf(from, sizeof from, "%s/via", out_dir);
    snprintf(to, sizeof to, "%s/a", out_dir);
    assert_int_equal(symlink(to, from), 0);
    dir("real/.git/inner");
    dir("real/.git/inner/.git");

    cJSON *o = NULL;
    assert_int_equal(service()->repositories_below(out_dir, &o), VT_OK);
    assert_non_null(o);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "complete")));
    assert_string_equal(kind_of(o, "real/.git"), "dir");
    assert_string_equal(kind_of(o, "hand/.git"), "dir");
    assert_string_equal(kind_of(o, "wt/.git"), "gitfile");
    assert_string_equal(kind_of(o, "linked/.git"), "link");
    assert_string_equal(kind_of(o, "a/b/c/.git"), "dir");
    assert_null(kind_of(o, "via/b/c/.git"));
    assert_null(kind_of(o, "real/.git/inner/.git"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "repositories")), 5);
    cJSON_Delete(o);

    /* a trailing slash names the same directory */
    char slash[PATH_MAX + 32];
    snprintf(slash, sizeof slash, "%s/", out_dir);
    assert_int_equal(service()->repositories_below(slash, &o), VT_OK);
    assert_string_equal(kind_of(o, "hand/.git"), "dir");
    cJSON_Delete(o);
}

/* A bare repository made by hand (HEAD "ref:" without a space, objects/,
 * refs/) is a repository by git's rules: listed as the directory itself;
 * a directory with a HEAD alone is not one; the directory asked about is
 * never listed as one. */
static void bare(const char *rel)
{
    char sub[PATH_MAX];
    dir(rel);
    snprintf(sub, sizeof sub, "%s/objects", rel);
    dir(sub);
    snprintf(sub, sizeof sub, "%s/refs", rel);
    dir(sub);
    snprintf(sub, sizeof sub, "%s/HEAD", rel);
    put(sub, "ref:refs/heads/main\n");
}

static void test_bare_below(void **state)
{
    (void)state;
    dir("bares");
    bare("bares/one.git");
    dir("bares/notes");
    put("bares/notes/HEAD", "not a ref\n");
    char sub[PATH_MAX + 32];
    snprintf(sub, sizeof sub, "%s/bares", out_dir);
    cJSON *o = NULL;
    assert_int_equal(service()->repositories_below(sub, &o), VT_OK);
    assert_string_equal(kind_of(o, "bares/one.git"), "dir");
    assert_null(kind_of(o, "bares/notes"));
    cJSON_Delete(o);
    /* asked about itself: its insides, not itself */
    snprintf(sub, sizeof sub, "%s/bares/one.git", out_dir);
    assert_int_equal(service()->repositories_below(sub, &o), VT_OK);
    assert_null(kind_of(o, "bares/one.git"));
    cJSON_Delete(o);
}

/* The workspace's own list (the index) names a bare repository in a
 * subdirectory too. */
static void test_bare_in_workspace(void **state)
{
    (void)state;
    char saved[sizeof out_dir];
    memcpy(saved, out_dir, sizeof saved);
    snprintf(out_dir, sizeof out_dir, "%s", ws);
    bare("vendor.git");
    cJSON *o = NULL;
    assert_int_equal(service()->repositories(NULL, &o), VT_OK);
    assert_string_equal(kind_of(o, "vendor.git"), "dir");
    cJSON_Delete(o);
    memcpy(out_dir, saved, sizeof saved);
}

/* Past the depth bound the walk stops and says so. */
static void test_depth_bound_says_incomplete(void **state)
{
    (void)state;
    char rel[PATH_MAX] = "deep";
    dir(rel);
    for (int i = 0; i < 20; i++) {
        strcat(rel, "/d");
        dir(rel);
    }
    strcat(rel, "/.git");
    dir(rel);
    char sub[PATH_MAX + 32];
    snprintf(sub, sizeof sub, "%s/deep", out_dir);
    cJSON *o = NULL;
    assert_int_equal(service()->repositories_below(sub, &o), VT_OK);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "complete")));
    assert_null(kind_of(o, rel));
    cJSON_Delete(o);
}

static void test_bad_and_missing_dirs(void **state)
{
    (void)state;
    cJSON *o = NULL;
    assert_int_equal(service()->repositories_below("relative/dir", &o), VT_ERR_INVALID);
    assert_null(o);
    char gone[PATH_MAX + 48];
    snprintf(gone, sizeof gone, "%s/no-such-dir", out_dir);
    assert_int_equal(service()->repositories_below(gone, &o), VT_OK);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "complete")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "repositories")), 0);
    cJSON_Delete(o);
}

int main(void)
{
    snprintf(top, sizeof top, "/tmp/vthost-ws-repos-XXXXXX");
    if (!mkdtemp(top))
        return 1;
    char *real = realpath(top, NULL);
    if (!real)
        return 1;
    snprintf(top, sizeof top, "%s", real);
    free(real);
    snprintf(ws, sizeof ws, "%s/ws", top);
    snprintf(out_dir, sizeof out_dir, "%s/outside", top);
    char home[PATH_MAX + 16];
    snprintf(home, sizeof home, "%s/home", top);
    if (mkdir(ws, 0755) || mkdir(out_dir, 0755) || mkdir(home, 0700))
        return 1;
    setenv("HOME", home, 1);
    unsetenv("XDG_STATE_HOME");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("XDG_CONFIG_HOME");
    char *err = NULL;
    if (ws_service_open(ws, 0, NULL, &err) != VT_OK) {
        fprintf(stderr, "ws_service_open: %s\n", err ? err : "failed");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_below_outside_dir),
        cmocka_unit_test(test_bare_below),
        cmocka_unit_test(test_bare_in_workspace),
        cmocka_unit_test(test_depth_bound_says_incomplete),
        cmocka_unit_test(test_bad_and_missing_dirs),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ws_service_close();
    services_clear();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
