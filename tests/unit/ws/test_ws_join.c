/* The joins of the workspace layer: the command sandbox's read-only
 * names come from the one configuration table (ws_layout.h over
 * ws_conftab.h), and the record of a check owed after a crash stands
 * while a sandboxed session runs, by its host events (ws_owed.h). */
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
#include <vthost/plugin.h>
#include "ws_conftab.h"
#include "ws_layout.h"
#include "ws_owed.h"

static int listed(const char *const *names, const char *name)
{
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/* Every root row of the table is protected, and nothing else but the
 * host's own two names. */
static void test_names_are_the_table(void **state)
{
    (void)state;
    const char *const *names = ws_layout_names();
    assert_true(listed(names, ".vtcode"));
    assert_true(listed(names, "vtcode.toml"));
    size_t rows = 0;
    for (size_t i = 0; ws_conftab[i].path; i++) {
        if (strchr(ws_conftab[i].path, '/'))
            continue;
        rows++;
        assert_true(listed(names, ws_conftab[i].path));
    }
    size_t n = 0;
    while (names[n])
        n++;
    assert_int_equal(n, rows + 2);
    /* the names wsholes added to the table reach the sandbox too */
    assert_true(listed(names, ".gemini"));
    assert_true(listed(names, "opencode.json"));
    assert_true(listed(names, ".amazonq"));
}

/* A table with more root names than the 63 the list once held: every
 * one is listed (a name past a fixed cap would have stayed writable in
 * the sandbox), nested rows are not, and the list ends in NULL. */
static void test_names_past_old_cap(void **state)
{
    (void)state;
    enum { ROWS = 200 };
    static char text[ROWS][24];
    static ws_conf_row tab[ROWS + 2];
    for (int i = 0; i < ROWS; i++) {
        snprintf(text[i], sizeof text[i], ".agent%03d", i);
        tab[i] = (ws_conf_row){text[i], WS_CONF_DIR, "an agent"};
    }
    tab[ROWS] = (ws_conf_row){".agent000/mcp.json", WS_CONF_ENTRY, "an agent"};
    tab[ROWS + 1] = (ws_conf_row){NULL, 0, NULL};
    const char **names = NULL;
    assert_int_equal(ws_layout_names_of(tab, &names), VT_OK);
    size_t n = 0;
    while (names[n])
        n++;
    assert_int_equal(n, ROWS + 2);
    for (int i = 0; i < ROWS; i++)
        assert_true(listed(names, text[i]));
    assert_false(listed(names, ".agent000/mcp.json"));
    assert_true(listed(names, ".vtcode"));
    free(names);
}

static char state_home[PATH_MAX], ws[PATH_MAX];

/* How many owed records the state directory holds that owe a check (an
 * emptied one owes nothing: ws_owed.h). */
static int records(void)
{
    char d[PATH_MAX + 32];
    snprintf(d, sizeof d, "%s/vthost/owed", state_home);
    DIR *dir = opendir(d);
    int n = 0;
    struct stat st;
    for (struct dirent *e; dir && (e = readdir(dir));)
        n += e->d_name[0] != '.' && fstatat(dirfd(dir), e->d_name, &st, 0) == 0 && st.st_size > 0;
    if (dir)
        closedir(dir);
    return n;
}

/* A session that outlives its call keeps the record until its
 * SESSION_ENDED; a call's response that says nothing of sessions does
 * not release it. */
static void test_owed_follows_session_events(void **state)
{
    (void)state;
    ws_owed_open(ws);
    assert_int_equal(ws_owed_call_begin(VT_EFFECT_EXECUTES), VT_OK);
    assert_int_equal(records(), 1);
    ws_owed_session_started();
    ws_owed_call_end(VT_EFFECT_EXECUTES, NULL);
    assert_int_equal(records(), 1); /* the session still runs */
    ws_owed_session_ended();
    assert_int_equal(records(), 0);
    /* a session started outside a call arms the record by itself */
    ws_owed_session_started();
    assert_int_equal(records(), 1);
    ws_owed_session_ended();
    assert_int_equal(records(), 0);
    ws_owed_close();
}

int main(void)
{
    char tmpl[] = "/tmp/vthost-ws-join-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    snprintf(state_home, sizeof state_home, "%s/state", tmpl);
    snprintf(ws, sizeof ws, "%s/ws", tmpl);
    if (mkdir(ws, 0755) != 0)
        return 1;
    setenv("XDG_STATE_HOME", state_home, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_the_table),
        cmocka_unit_test(test_names_past_old_cap),
        cmocka_unit_test(test_owed_follows_session_events),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
