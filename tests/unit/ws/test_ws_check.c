/* The after-call check of the configuration table fails closed: when
 * memory runs out while the table's baseline is taken (calloc failing,
 * injected by the linker's --wrap), agent configuration a sandboxed
 * session makes is still set aside at its end (and the user's own rows,
 * which can no longer be told from new ones, go aside too, named in the
 * report), instead of no row being judged that round.  With memory, only
 * the new row goes. */
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

int main(void)
{
    snprintf(top, sizeof top, "/tmp/vthost-ws-check-XXXXXX");
    if (!mkdtemp(top))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_baseline_without_memory_fails_closed),
        cmocka_unit_test(test_baseline_with_memory),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
