/* The after-call check of the configuration table fails closed: when
 * memory runs out while the table's baseline is taken (calloc failing,
 * injected by the linker's --wrap), agent configuration a sandboxed
 * session makes is still set aside at its end (and the user's own rows,
 * which can no longer be told from new ones, go aside too, named in the
 * report), instead of no row being judged that round.  With memory, only
 * the new row goes.  A gitfile a session's command writes, naming a git
 * directory outside the workspace, is set aside at the session's end
 * by where the name leads, not by how it reads: named directly, through
 * a symbolic link, or from inside the workspace with "..". */
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
#include "ws_check.h"
#include "ws_conftab.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

/* The next calloc of this many single bytes (the table's baseline)
 * fails; 0: none does. */
static size_t fail_bytes;

void *__wrap_calloc(size_t n, size_t size)
{
    if (fail_bytes && size == 1 && n == fail_bytes) {
        fail_bytes = 0;
        return NULL;
    }
    return __real_calloc(n, size);
}

static char top[PATH_MAX];

static void mk(const char *ws, const char *rel, const char *text)
{
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    for (char *s = strchr(p + strlen(ws) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int there(const char *ws, const char *rel)
{
    char p[2 * PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    struct stat st;
    return lstat(p, &st) == 0;
}

/* A workspace with the user's .vscode/, a session armed on it (the
 * baseline taken then, its calloc failing when `starve`), a command
 * that makes .gemini/settings.json, the session's end judged: the
 * report. */
static char *session_round(const char *name, int starve)
{
    static char ws[PATH_MAX + 64];
    snprintf(ws, sizeof ws, "%s/%s", top, name);
    assert_int_equal(mkdir(ws, 0755), 0);
    mk(ws, ".vscode/tasks.json", "{\"tasks\": []}\n");
    size_t rows = 0;
    while (ws_conftab[rows].path)
        rows++;
    ws_check_open(ws);
    const char *roots[] = {ws, NULL};
    fail_bytes = starve ? rows : 0;
    assert_int_equal(ws_check_arm(roots), 0); /* the baseline */
    assert_int_equal(fail_bytes, 0);          /* the failure did happen */
    ws_check_session_started();
    mk(ws, ".gemini/settings.json", "{\"mcpServers\": {\"x\": {\"command\": \"sh\"}}}\n");
    char *report = NULL;
    ws_check_session_ended(&report);
    char *closing = NULL;
    ws_check_close(&closing);
    free(closing);
    return report;
}

static void test_baseline_without_memory_fails_closed(void **state)
{
    (void)state;
    char *report = session_round("starved", 1);
    char ws[PATH_MAX + 64];
    snprintf(ws, sizeof ws, "%s/starved", top);
    assert_false(there(ws, ".gemini"));
    assert_non_null(report);
    assert_non_null(strstr(report, ".gemini"));
    assert_non_null(strstr(report, "out of memory"));
    /* the user's own row could not be told from a new one */
    assert_false(there(ws, ".vscode"));
    assert_true(there(ws, ".vtcode/set-aside"));
    free(report);
}

static void test_baseline_with_memory(void **state)
{
    (void)state;
    char *report = session_round("fed", 0);
    char ws[PATH_MAX + 64];
    snprintf(ws, sizeof ws, "%s/fed", top);
    assert_false(there(ws, ".gemini"));
    assert_non_null(report);
    assert_non_null(strstr(report, ".gemini"));
    assert_null(strstr(report, "out of memory"));
    assert_true(there(ws, ".vscode/tasks.json"));
    free(report);
}

/* A session's command writes a gitfile naming a git directory outside
 * the workspace by `name` (made by make_name in `out`, a directory the
 * command also made): at the session's end the gitfile is set aside,
 * whatever name leads there. */
static void gitfile_round(const char *wsname, const char *outname,
                          void (*make_name)(const char *ws, const char *out, char *name,
                                            size_t size))
{
    char ws[PATH_MAX + 64], out[PATH_MAX + 64], name[3 * PATH_MAX], text[4 * PATH_MAX];
    snprintf(ws, sizeof ws, "%s/%s", top, wsname);
    snprintf(out, sizeof out, "%s/%s", top, outname);
    assert_int_equal(mkdir(ws, 0755), 0);
    mk(ws, "README", "hello\n");
    ws_check_open(ws);
    const char *roots[] = {ws, NULL};
    assert_int_equal(ws_check_arm(roots), 0);
    ws_check_session_started();
    assert_int_equal(mkdir(out, 0755), 0);
    mk(out, "HEAD", "ref: refs/heads/main\n");
    mk(out, "objects/k", "");
    mk(out, "refs/k", "");
    make_name(ws, out, name, sizeof name);
    snprintf(text, sizeof text, "gitdir: %s\n", name);
    mk(ws, "w/.git", text);
    char *report = NULL;
    ws_check_session_ended(&report);
    char *closing = NULL;
    ws_check_close(&closing);
    free(closing);
    assert_non_null(report);
    assert_non_null(strstr(report, "outside the workspace"));
    assert_false(there(ws, "w/.git"));
    free(report);
}

static void through_link(const char *ws, const char *out, char *name, size_t size)
{
    (void)ws;
    snprintf(name, size, "%s-link", out);
    assert_int_equal(symlink(out, name), 0);
}

/* named from inside the workspace: only the resolved name is outside */
static void with_dotdot(const char *ws, const char *out, char *name, size_t size)
{
    snprintf(name, size, "%s/../%s", ws, strrchr(out, '/') + 1);
}

static void canonical(const char *ws, const char *out, char *name, size_t size)
{
    (void)ws;
    snprintf(name, size, "%s", out);
}

static void test_gitfile_outside_set_aside(void **state)
{
    (void)state;
    gitfile_round("gf-plain", "out-plain", canonical);
}

static void test_gitfile_through_link_set_aside(void **state)
{
    (void)state;
    gitfile_round("gf-link", "out-link", through_link);
}

static void test_gitfile_dotdot_set_aside(void **state)
{
    (void)state;
    gitfile_round("gf-dotdot", "out-dotdot", with_dotdot);
}

int main(void)
{
    snprintf(top, sizeof top, "/tmp/vthost-ws-check-XXXXXX");
    if (!mkdtemp(top))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_baseline_without_memory_fails_closed),
        cmocka_unit_test(test_baseline_with_memory),
        cmocka_unit_test(test_gitfile_outside_set_aside),
        cmocka_unit_test(test_gitfile_through_link_set_aside),
        cmocka_unit_test(test_gitfile_dotdot_set_aside),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
