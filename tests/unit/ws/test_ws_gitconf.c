/* The paths a repository's configuration makes git run or read
 * (ws_gitconf.h): core.hooksPath relative to the work tree (husky's
 * .husky/_ with .husky), include.path relative to the including file and
 * followed into what it includes, includeIf targets, "~/" from $HOME,
 * a gitfile's git directory and a linked worktree's common config. */
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
#include "ws_gitconf.h"

static char root[PATH_MAX], home[PATH_MAX];

static void put(const char *rel, const char *text)
{
    char p[PATH_MAX + 256];
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

/* A git directory at `rel` whose config is `config`. */
static void gitdir(const char *rel, const char *config)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/HEAD", rel);
    put(p, "ref: refs/heads/main\n");
    snprintf(p, sizeof p, "%s/objects/.k", rel);
    put(p, "");
    snprintf(p, sizeof p, "%s/refs/.k", rel);
    put(p, "");
    snprintf(p, sizeof p, "%s/config", rel);
    put(p, config);
}

/* ws_gitconf_paths for one repository entry; 1 when `want` (relative to
 * the root unless absolute) of `kind` is in the answer. */
static int has(const char *entry, const char *kind, const char *want, const char *wkind)
{
    char e[PATH_MAX + 64], w[PATH_MAX + 64];
    snprintf(e, sizeof e, "%s/%s", root, entry);
    snprintf(w, sizeof w, "%s%s%s", want[0] == '/' ? "" : root, want[0] == '/' ? "" : "/", want);
    cJSON *repos = cJSON_CreateArray(), *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", e);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddItemToArray(repos, o);
    cJSON *out = ws_gitconf_paths(root, repos);
    int hit = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, out)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        hit |= p && k && !strcmp(p, w) && !strcmp(k, wkind);
    }
    cJSON_Delete(out);
    cJSON_Delete(repos);
    return hit;
}

static int setup(void **st)
{
    (void)st;
    char a[] = "/tmp/vthost-gitconf-XXXXXX", b[] = "/tmp/vthost-gitconf-home-XXXXXX";
    if (!mkdtemp(a) || !mkdtemp(b) || !realpath(a, root) || !realpath(b, home))
        return -1;
    setenv("HOME", home, 1);
    setenv("XDG_CONFIG_HOME", home, 1);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, home);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_hookspath_relative_to_worktree(void **st)
{
    (void)st;
    gitdir("a/.git", "[core]\n\thooksPath = .githooks\n");
    assert_true(has("a/.git", "dir", "a/.githooks", "hooks"));
    gitdir("h/.git", "[core]\n\thookspath = \".husky/_\"\n");
    assert_true(has("h/.git", "dir", "h/.husky/_", "hooks"));
    assert_true(has("h/.git", "dir", "h/.husky", "hooks"));
}

static void test_includes_followed(void **st)
{
    (void)st;
    gitdir("b/.git", "[include]\n\tpath = ../shared.cfg\n"
                     "[includeIf \"gitdir:~/x/\"]\n\tpath = ~/extra.cfg\n");
    put("b/shared.cfg", "[include]\n\tpath = deeper.cfg\n");
    put("b/deeper.cfg", "[core]\n\thooksPath = hooks-from-include\n");
    assert_true(has("b/.git", "dir", "b/shared.cfg", "include"));
    assert_true(has("b/.git", "dir", "b/deeper.cfg", "include"));
    assert_true(has("b/.git", "dir", "b/hooks-from-include", "hooks"));
    char extra[PATH_MAX + 16];
    snprintf(extra, sizeof extra, "%s/extra.cfg", home);
    assert_true(has("b/.git", "dir", extra, "include"));
}

static void test_gitfile_and_commondir(void **st)
{
    (void)st;
    gitdir("store/main", "[core]\n\thooksPath = wt-hooks\n");
    put("store/linked/HEAD", "ref: refs/heads/x\n");
    put("store/linked/commondir", "../main\n");
    put("store/linked/config.worktree", "[include]\n\tpath = ../../wt.cfg\n");
    put("wt/.git", "gitdir: ../store/linked\n");
    /* relative hooks paths are the work tree's, whatever config names them */
    assert_true(has("wt/.git", "gitfile", "wt/wt-hooks", "hooks"));
    assert_true(has("wt/.git", "gitfile", "wt.cfg", "include"));
}

static void test_global_hookspath(void **st)
{
    (void)st;
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/.gitconfig", home);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("[core]\n\thooksPath = .global-hooks\n", f);
    fclose(f);
    gitdir("g/.git", "[core]\n\tbare = false\n");
    assert_true(has("g/.git", "dir", "g/.global-hooks", "hooks"));
    unlink(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hookspath_relative_to_worktree),
        cmocka_unit_test(test_includes_followed),
        cmocka_unit_test(test_gitfile_and_commondir),
        cmocka_unit_test(test_global_hookspath),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
