/* The workspace index on a real tree: repositories (nested, gitfiles,
 * links) and policy files found, followed by inotify (a .git made in a
 * directory created after the build), the change log, the cache (saved,
 * reused, a corrupt one rebuilt, a flipped bit caught by its checksum)
 * and the forced fallbacks (watch limit,
 * queue overflow) that walk instead of missing anything. */
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
#include "ws_index.h"
#include "ws_index_int.h"
#include "ws_test_sh.h"

static char root[PATH_MAX], cache[PATH_MAX];

static void mk(const char *rel)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void put(const char *rel, const char *text)
{
    char p[PATH_MAX * 2];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **st)
{
    (void)st;
    char t[] = "/tmp/vthost-wsindex-XXXXXX", c[] = "/tmp/vthost-wscache-XXXXXX";
    if (!mkdtemp(t) || !mkdtemp(c) || !realpath(t, root) || !realpath(c, cache))
        return -1;
    setenv("XDG_CACHE_HOME", cache, 1);
    mk(".git");
    mk("src");
    mk("src/deep");
    mk("src/deep/sub");
    mk("src/deep/sub/.git");
    mk("wt");
    put("wt/.git", "gitdir: ../.git\n");
    put("vtcode.toml", "");
    mk(".vtcode");
    put("src/a.c", "int a;\n");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, cache);
    return system(cmd) == 0 ? 0 : -1;
}

/* Whether the repositories list has `rel`/.git of `kind`. */
static int has_repo(ws_index *ix, const char *rel, const char *kind)
{
    int complete = 0;
    cJSON *arr = ws_index_repositories(ix, &complete);
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "%s%s%s/.git", root, *rel ? "/" : "", rel);
    const cJSON *it;
    int found = 0;
    cJSON_ArrayForEach(it, arr)
    {
        const char *p = cJSON_GetObjectItem(it, "path")->valuestring;
        const char *k = cJSON_GetObjectItem(it, "kind")->valuestring;
        found |= !strcmp(p, want) && !strcmp(k, kind);
    }
    cJSON_Delete(arr);
    return found;
}

static void test_one_shot_finds_everything(void **st)
{
    (void)st;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    const char *why = "x";
    assert_int_equal(ws_index_refresh(ix, 0, &why), 0);
    assert_null(why);
    assert_true(has_repo(ix, "", "dir"));
    assert_true(has_repo(ix, "src/deep/sub", "dir"));
    assert_true(has_repo(ix, "wt", "gitfile"));
    cJSON *pol = ws_index_policy_files(ix);
    assert_int_equal(cJSON_GetArraySize(pol), 2);
    cJSON_Delete(pol);
    ws_index_close(ix); /* saves */
    char key[17], f[PATH_MAX * 2];
    ws_index_key(root, key);
    snprintf(f, sizeof f, "%s/vthost/wsindex/%s.idx", cache, key);
    struct stat s;
    assert_int_equal(stat(f, &s), 0);
    assert_int_equal(s.st_mode & 077, 0);

    /* the cache is reused, and a directory whose mtime moved is re-read */
    sh("mkdir -p '%s/late/x/.git'", root);
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    assert_int_equal(ws_index_refresh(ix, 0, NULL), 0);
    assert_true(has_repo(ix, "late/x", "dir"));
    assert_true(has_repo(ix, "src/deep/sub", "dir"));
    ws_index_close(ix);

    /* a corrupt cache is rebuilt, never trusted */
    FILE *fp = fopen(f, "r+");
    assert_non_null(fp);
    fseek(fp, 40, SEEK_SET);
    fputs("garbage", fp);
    fclose(fp);
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    assert_int_equal(ws_index_refresh(ix, 0, NULL), 0);
    assert_true(has_repo(ix, "late/x", "dir"));
    assert_true(has_repo(ix, "wt", "gitfile"));
    ws_index_close(ix);
    sh("rm -rf '%s/late'", root);
}

/* Whether the cache file `f` of `root` reads back (wsx_cache_read). */
static int cache_reads(void)
{
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    int rc = wsx_cache_read(ix);
    ws_index_close(ix);
    return rc;
}

/* The checksum catches one flipped bit anywhere: in each part of the
 * file (header, root, records, names), in a whole word of a lane and in
 * the tail summed by bytes; the file as written reads back. */
static void test_cache_checksum(void **st)
{
    (void)st;
    sh("mkdir -p '%s/ck/a1/b1' '%s/ck/a2/b2' '%s/ck/a3'", root, root, root);
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    assert_int_equal(ws_index_refresh(ix, 0, NULL), 0);
    ix->dirty = 1;
    wsx_cache_save(ix);
    ws_index_close(ix);
    char key[17], f[PATH_MAX * 2];
    ws_index_key(root, key);
    snprintf(f, sizeof f, "%s/vthost/wsindex/%s.idx", cache, key);
    FILE *fp = fopen(f, "rb");
    assert_non_null(fp);
    static unsigned char orig[1 << 16];
    size_t n = fread(orig, 1, sizeof orig, fp);
    fclose(fp);
    assert_true(n > 200 && n < sizeof orig);
    assert_int_equal(cache_reads(), 0);
    /* bytes nothing but the checksum guards: the header's last (the
     * keeper's stamp; the header ends where the root starts), an inode
     * and an mtime of the second record (parent, name, flags, pad, ino,
     * mtime: 32 bytes each), a letter of the last name, the sum itself */
    const unsigned char *r = memmem(orig, n, root, strlen(root));
    assert_non_null(r);
    size_t hl = (size_t)(r - orig), recs = hl + strlen(root);
    size_t at[] = {hl - 1, recs + 32 + 16, recs + 32 + 24, n - 10, n - 1};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        orig[at[i]] ^= 0x10;
        fp = fopen(f, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(orig, 1, n, fp), n);
        fclose(fp);
        orig[at[i]] ^= 0x10;
        if (cache_reads() == 0)
            fail_msg("a bit flipped at byte %zu of %zu was not caught", at[i], n);
    }
    sh("rm -rf '%s/ck'", root);
}

static void test_live_follows_changes(void **st)
{
    (void)st;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_LIVE, &ix), 0);
    const char *why = NULL;
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(ws_index_event_driven(ix));
    ws_mark m = ws_index_mark(ix);
    /* a new tree with a repository deep inside, made in one go */
    sh("mkdir -p '%s/n1/n2/n3' && mkdir '%s/n1/n2/n3/.git' && echo x > '%s/src/a.c'", root, root, root);
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(has_repo(ix, "n1/n2/n3", "dir"));
    char *names[8] = {0};
    int complete = 0;
    size_t n = ws_index_changes(ix, m, 1, names, 8, &complete);
    assert_true(complete);
    int saw_a = 0;
    for (size_t i = 0; i < n && i < 8; i++) {
        saw_a |= !strcmp(names[i], "src/a.c");
        free(names[i]);
    }
    assert_true(saw_a);
    assert_true(n >= 4); /* n1, n1/n2, n1/n2/n3, src/a.c (.git is not the project's) */
    /* removed: no longer listed */
    sh("rm -rf '%s/n1'", root);
    ws_index_refresh(ix, 1, NULL);
    assert_false(has_repo(ix, "n1/n2/n3", "dir"));
    /* noise only: the project count does not move */
    m = ws_index_mark(ix);
    sh("mkdir -p '%s/node_modules/p' && echo y > '%s/node_modules/p/i.js'", root, root);
    ws_index_refresh(ix, 1, NULL);
    assert_int_equal(ws_index_changes(ix, m, 1, NULL, 0, &complete), 0);
    assert_true(ws_index_changes(ix, m, 0, NULL, 0, &complete) >= 2);
    sh("rm -rf '%s/node_modules'", root);
    ws_index_close(ix);
}

static void test_watch_limit_walks(void **st)
{
    (void)st;
    setenv("VTHOST_TEST_WSINDEX_MAX_WATCHES", "3", 1);
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_LIVE, &ix), 0);
    unsetenv("VTHOST_TEST_WSINDEX_MAX_WATCHES");
    const char *why = NULL;
    ws_index_refresh(ix, 1, &why);
    assert_non_null(why);
    assert_non_null(strstr(why, "watch limit"));
    assert_false(ws_index_event_driven(ix));
    sh("mkdir -p '%s/w1/w2/.git'", root);
    why = NULL;
    ws_index_refresh(ix, 1, &why);
    assert_non_null(why); /* every call that walked is told */
    assert_true(has_repo(ix, "w1/w2", "dir"));
    ws_index_close(ix);
    sh("rm -rf '%s/w1'", root);
}

static void test_overflow_walks(void **st)
{
    (void)st;
    setenv("VTHOST_TEST_WSINDEX_MAX_QUEUED", "4", 1);
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    unsetenv("VTHOST_TEST_WSINDEX_MAX_QUEUED");
    const char *why = NULL;
    ws_index_refresh(ix, 1, &why);
    assert_null(why);
    ws_mark m = ws_index_mark(ix);
    sh("cd '%s/src' && touch f1 f2 f3 f4 f5 && rm f1 f2 f3 f4 f5 && mkdir -p '%s/o1/o2/o3/o4/.git'",
       root, root);
    ws_index_refresh(ix, 1, &why);
    assert_non_null(why);
    assert_non_null(strstr(why, "overflowed"));
    assert_true(has_repo(ix, "o1/o2/o3/o4", "dir"));
    int complete = 1;
    /* the guard's view: changes happened, the list is not complete */
    assert_true(ws_index_changes(ix, m, 1, NULL, 0, &complete) >= 1);
    assert_false(complete);
    ws_index_close(ix);
    sh("rm -rf '%s/o1'", root);
}

/* The change log starts small and grows as changes come: a list read
 * across the growth holds every change after the mark, in full, and
 * only a ring that reached its cap and wrapped says it is incomplete. */
static void test_change_log_grows(void **st)
{
    (void)st;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    ws_mark m0 = ws_index_mark(ix), m1 = m0;
    char p[32];
    for (unsigned i = 0; i < 1000; i++) {
        if (i == 10)
            m1 = ws_index_mark(ix);
        snprintf(p, sizeof p, "g/%u", i);
        wsx_log_change(ix, p, WSX_K_CREATE, 0, 0);
    }
    char *names[1000] = {0};
    int complete = 0;
    assert_int_equal(ws_index_changes(ix, m1, 1, names, 1000, &complete), 990);
    assert_true(complete);
    for (unsigned i = 0; i < 990; i++) {
        snprintf(p, sizeof p, "g/%u", i + 10);
        assert_string_equal(names[i], p);
        free(names[i]);
    }
    assert_int_equal(ws_index_changes(ix, m0, 1, NULL, 0, &complete), 1000);
    assert_true(complete);
    /* past the cap the oldest are overwritten, and a mark before them
     * is told so */
    for (unsigned i = 0; i < WSX_LOG_CAP; i++)
        wsx_log_change(ix, "g/again", WSX_K_WRITE, 0, 0);
    ws_index_changes(ix, m0, 1, NULL, 0, &complete);
    assert_false(complete);
    ws_index_close(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_shot_finds_everything),
        cmocka_unit_test(test_cache_checksum),
        cmocka_unit_test(test_live_follows_changes),
        cmocka_unit_test(test_watch_limit_walks),
        cmocka_unit_test(test_overflow_walks),
        cmocka_unit_test(test_change_log_grows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
