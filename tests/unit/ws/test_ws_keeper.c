/* The workspace keeper in-process: a keeper (ws_keeper_main, forked) on a
 * real tree vouches for a one-shot index, reports a repository made
 * between and after asks with a complete change log (the asks of one
 * process sharing one connection, a forked child dialling its own, one
 * dialled again once the keeper closed it), and once killed makes the
 * next refresh walk, say so and mark the log incomplete. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "ws_index.h"
#include "ws_keeper.h"
#include "ws_test_sh.h"

static char root[PATH_MAX], cache[PATH_MAX];

static int setup(void **st)
{
    (void)st;
    char t[] = "/tmp/vthost-wskeep-XXXXXX", c[] = "/tmp/vthost-wskcache-XXXXXX";
    if (!mkdtemp(t) || !mkdtemp(c) || !realpath(t, root) || !realpath(c, cache))
        return -1;
    setenv("XDG_CACHE_HOME", cache, 1);
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/.git' '%s/a/b' '%s/c'", root, root, root);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, cache);
    return system(cmd) == 0 ? 0 : -1;
}

static int has_repo(ws_index *ix, const char *rel)
{
    cJSON *arr = ws_index_repositories(ix, &(int){0});
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "%s/%s/.git", root, rel);
    const cJSON *it;
    int found = 0;
    cJSON_ArrayForEach(it, arr)
    found |= !strcmp(cJSON_GetObjectItem(it, "path")->valuestring, want);
    cJSON_Delete(arr);
    return found;
}

/* The keeper's pid from its lock, waiting for its socket (its build). */
static pid_t keeper_pid(void)
{
    char cmd[PATH_MAX * 3], buf[32] = {0};
    for (int i = 0; i < 200; i++) {
        snprintf(cmd, sizeof cmd, "test -S %s/vthost/keeper/*-2.sock && cat %s/vthost/keeper/*-2.lock",
                 cache, cache);
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
        if (p)
            pclose(p);
        if (n && atoi(buf) > 0)
            return atoi(buf);
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    return -1;
}

/* The inode of this process's one socket (its connection to the keeper),
 * 0 when it has none; fails the test when it has several. */
static unsigned long my_socket(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    unsigned long ino = 0;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        char p[300], l[64] = {0};
        snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
        if (readlink(p, l, sizeof l - 1) > 0 && sscanf(l, "socket:[%lu]", &ino) == 1)
            n++;
    }
    closedir(d);
    assert_true(n <= 1);
    return n ? ino : 0;
}

static void start_keeper(void)
{
    pid_t me = getpid();
    char *argv[] = {root, "30", NULL};
    int rc = ws_keeper_main(2, argv);
    if (getpid() != me) /* the keeper itself, at its end */
        _exit(rc);
    assert_int_equal(rc, 0);
}

static void test_vouched_then_killed(void **st)
{
    (void)st;
    ws_keeper_configure(1, 0, 30);
    start_keeper();
    pid_t kp = keeper_pid();
    assert_true(kp > 0);

    /* made before the first ask: in the tree it vouches for */
    sh("mkdir -p '%s/a/b/r1/.git'", root);
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    const char *why = NULL;
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(ws_index_event_driven(ix));
    assert_true(has_repo(ix, "a/b/r1"));
    unsigned long conn = my_socket();
    assert_true(conn != 0);

    /* made between two asks (a command's doing): in the change log, told
     * on the connection of the first ask */
    ws_mark m = ws_index_mark(ix);
    sh("mkdir -p '%s/c/r2/.git' && echo x > '%s/c/f.c'", root, root);
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(has_repo(ix, "c/r2"));
    assert_true(my_socket() == conn);
    char *names[16] = {0};
    int complete = 0;
    size_t n = ws_index_changes(ix, m, 1, names, 16, &complete);
    assert_true(complete);
    int saw = 0;
    for (size_t i = 0; i < n && i < 16; i++) {
        saw |= !strcmp(names[i], "c/f.c");
        free(names[i]);
    }
    assert_true(saw);

    /* a child forked with the index asks on a connection of its own, and
     * the parent's stays in step: each hears of the other's repository */
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        sh("mkdir -p '%s/c/r5/.git'", root);
        int good = ws_index_refresh(ix, 1, &why) == 0 && !why && has_repo(ix, "c/r5") &&
                   my_socket() != conn && my_socket() != 0;
        _exit(good ? 0 : 1);
    }
    int status = -1;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sh("mkdir -p '%s/c/r6/.git'", root);
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(has_repo(ix, "c/r5") && has_repo(ix, "c/r6"));
    assert_true(my_socket() == conn);

    /* the connection left idle past the keeper's time is closed by it:
     * the next ask dials again, and still hears of what changed */
    nanosleep(&(struct timespec){3, 400000000}, NULL);
    m = ws_index_mark(ix);
    sh("mkdir -p '%s/c/r4/.git'", root);
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_null(why);
    assert_true(has_repo(ix, "c/r4"));
    ws_index_changes(ix, m, 1, NULL, 0, &complete);
    assert_true(complete);
    assert_true(my_socket() != conn && my_socket() != 0);

    /* killed: the next refresh walks, says so, the log has a gap */
    m = ws_index_mark(ix);
    assert_int_equal(kill(kp, SIGKILL), 0);
    for (int i = 0; i < 100 && kill(kp, 0) == 0; i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    sh("mkdir -p '%s/c/r3/.git'", root);
    assert_int_equal(ws_index_refresh(ix, 1, &why), 0);
    assert_non_null(why);
    assert_non_null(strstr(why, "keeper could not vouch"));
    assert_true(has_repo(ix, "c/r3"));
    ws_index_changes(ix, m, 1, NULL, 0, &complete);
    assert_false(complete);
    ws_index_close(ix);

    /* no keeper: a one-shot index checks by itself and is not vouched */
    assert_int_equal(ws_index_open(root, WS_INDEX_ONE_SHOT, &ix), 0);
    assert_int_equal(ws_index_refresh(ix, 0, &why), 0);
    assert_true(has_repo(ix, "c/r3"));
    ws_index_close(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vouched_then_killed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
