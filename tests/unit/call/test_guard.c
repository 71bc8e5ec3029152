/* Anti-blind-editing: counting, blocking, verification judged from the
 * programs a command ran, refusals of writing commands, snapshots of
 * real files, the workspace counter shared under its lock, config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "call.h"
#include "call_ops.h"
#include "guard.h"
#include "guard_match.h"
#include "guard_snapshot.h"
#include "subjects.h"
#include "ws_index.h"

static tool_entry patch_tool = {.t = {.name = "apply_patch",
                                      .effects = VT_EFFECT_MUTATES_WORKSPACE}};
static tool_entry exec_tool = {.t = {.name = "exec_command", .effects = VT_EFFECT_EXECUTES}};
static tool_entry read_tool = {.t = {.name = "code_search", .effects = VT_EFFECT_READ_ONLY}};

static char ws[64], state_home[64];

static void init(const char *toml_as_json)
{
    cJSON *cfg = cJSON_Parse(toml_as_json ? toml_as_json : "{}");
    char *err = NULL;
    int rc = guard_init(cfg, ws, &err);
    if (rc)
        fail_msg("guard_init: %s", err ? err : "?");
    cJSON_Delete(cfg);
}

/* The count lives under $XDG_STATE_HOME/vthost/guard/, keyed by the
 * workspace path. */
static void reset_count(void)
{
    char p[256], key[17];
    ws_index_key(ws, key);
    snprintf(p, sizeof p, "%s/vthost/guard/%s.json", state_home, key);
    unlink(p);
}

/* Begin a call of `t`; 1 when the guard refused it (the call is over). */
static int begin(vt_call *c, tool_entry *t, vt_subjects *subj)
{
    call_init(c, t, NULL, NULL, NULL);
    cJSON *r = NULL;
    int b = guard_begin(c, subj, &r);
    assert_int_equal(b, r != NULL);
    if (b) {
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "blocked")));
        cJSON_Delete(r);
        call_release(c);
    }
    return b;
}

static void end(vt_call *c)
{
    guard_end(c);
    call_release(c);
}

static int blocked(tool_entry *t)
{
    vt_call c;
    if (begin(&c, t, NULL))
        return 1;
    end(&c);
    return 0;
}

static void patch(long nchanged)
{
    vt_call c;
    assert_false(begin(&c, &patch_tool, NULL));
    guard_note(&c, VT_NOTE_MUTATION, NULL, nchanged);
    end(&c);
}

/* A command run reporting `programs` (JSON array of argv arrays). */
static void ran(const char *programs, long exit_code)
{
    char detail[1024];
    snprintf(detail, sizeof detail, "{\"command\":\"x\",\"programs\":%s,\"complete\":true,"
             "\"refused\":0}", programs);
    vt_call c;
    assert_false(begin(&c, &exec_tool, NULL));
    guard_note(&c, VT_NOTE_COMMAND_RAN, detail, exit_code);
    end(&c);
}

/* The same run reported as the struct of ABI 1.11 (api->command_ran):
 * `programs` parsed here into the NULL-ended argv lists it carries. */
static void ran_typed(const char *programs, long exit_code, int complete, size_t refused)
{
    cJSON *list = cJSON_Parse(programs);
    assert_non_null(list);
    const char **argvs[16] = {0};
    const char *words[64] = {0};
    size_t i = 0, w = 0;
    const cJSON *p, *a;
    cJSON_ArrayForEach(p, list)
    {
        argvs[i++] = &words[w];
        cJSON_ArrayForEach(a, p) words[w++] = a->valuestring;
        words[w++] = NULL;
    }
    vt_command_ran r = {.struct_size = sizeof r,
                        .command = "x",
                        .exit_code = exit_code,
                        .programs = (const char *const *const *)argvs,
                        .complete = complete,
                        .refused = refused};
    vt_call c;
    assert_false(begin(&c, &exec_tool, NULL));
    guard_command_ran(&c, &r);
    end(&c);
    cJSON_Delete(list);
}

static int setup(void **state)
{
    (void)state;
    strcpy(ws, "/tmp/vthost-guard-unit.XXXXXX");
    assert_non_null(mkdtemp(ws));
    strcpy(state_home, "/tmp/vthost-guard-state.XXXXXX");
    assert_non_null(mkdtemp(state_home));
    setenv("XDG_STATE_HOME", state_home, 1);
    /* make verifies only where there is a build file to run */
    char mk[256];
    snprintf(mk, sizeof mk, "%s/Makefile", ws);
    FILE *f = fopen(mk, "w");
    assert_non_null(f);
    fputs("all:\n\ttrue\n", f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    guard_fini();
    char cmd[192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", ws, state_home);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static void test_blocks_after_threshold(void **state)
{
    (void)state;
    init(NULL);
    patch(1);
    patch(1);
    patch(1);
    patch(0); /* a no-op patch */
    assert_false(blocked(&patch_tool));
    patch(1);
    vt_call c;
    call_init(&c, &patch_tool, NULL, NULL, NULL);
    cJSON *r = NULL;
    assert_int_equal(guard_begin(&c, NULL, &r), 1);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(r, "success")));
    assert_string_equal(cJSON_GetObjectItem(r, "failure_kind")->valuestring,
                        "anti_blind_editing_verification_required");
    assert_int_equal(cJSON_GetObjectItem(r, "pending_mutations")->valueint, 4);
    assert_non_null(strstr(cJSON_GetObjectItem(r, "hint")->valuestring, "verification command"));
    cJSON_Delete(r);
    call_release(&c);
    /* Reads, searches and commands that name no writes stay allowed. */
    assert_false(blocked(&exec_tool));
    assert_false(blocked(&read_tool));
    /* The count is the workspace's: a second "process" (re-init) sees it. */
    init(NULL);
    assert_true(blocked(&patch_tool));
}

static void test_verification_rules(void **state)
{
    (void)state;
    struct { const char *programs; long code; int lifts; } cases[] = {
        {"[[\"make\",\"-j2\"]]", 0, 1},
        {"[[\"make\"]]", 2, 1},                          /* completed, failed: counts */
        {"[[\"make\"]]", 137, 0},                        /* killed */
        {"[[\"make\"]]", 127, 0},                        /* not found */
        {"[[\"make\",\"--version\"]]", 0, 0},
        {"[[\"make\",\"-n\"]]", 0, 0},
        {"[[\"make\",\"--just-print\"]]", 0, 0},
        {"[[\"cargo\",\"test\",\"--help\"]]", 0, 0},
        {"[[\"pytest\",\"--dry-run=yes\"]]", 0, 0},
        {"[[\"pytest\",\"-n\",\"4\"]]", 0, 1},          /* xdist's -n takes a count */
        {"[[\"make\"],[\"rm\",\"-rf\",\"build\"]]", 0, 0},
        {"[[\"ctest\",\"--output-on-failure\"]]", 0, 1},
        {"[]", 0, 0},                                     /* only builtins ran */
        {"[[\"cargo\",\"test\",\"--all\"]]", 0, 1},
        {"[[\"cargo\",\"fmt\"]]", 0, 0},
        {"[[\"./gradlew\",\"build\"]]", 0, 1},
        {"[[\"python3\",\"-m\",\"pytest\",\"-q\"]]", 0, 1},
        {"[[\"python3\",\"-m\",\"pip\",\"install\",\"x\"]]", 0, 0},
        {"[[\"npm\",\"run\",\"build\"]]", 0, 1},
        {"[[\"npm\",\"install\"]]", 0, 0},
        {"[[\"maker\"]]", 0, 0},                          /* word boundary */
        {"[[\"cmake\",\"--build\",\"build\",\"-j2\"]]", 0, 1},
        {"[[\"cmake\",\"-S\",\".\",\"-B\",\"build\"]]", 0, 0},
        {"[[\"go\",\"vet\",\"./...\"]]", 0, 1},
        {"[[\"make\"],[\"tail\",\"-5\"]]", 0, 1},         /* a filter does not spoil */
        {"[[\"timeout\",\"600\",\"cargo\",\"test\"]]", 0, 1},
        {"[[\"env\",\"-u\",\"X\",\"CI=1\",\"npm\",\"test\"]]", 0, 1},
        {"[[\"nice\",\"-n\",\"10\",\"make\",\"--version\"]]", 0, 0},
        {"[[\"make\"],[\"sed\",\"-i\",\"s/a/b/\",\"f\"]]", 0, 0},
        {"[[\"tsc\",\"--noEmit\"]]", 0, 1},
        {"[[\"ruff\",\"check\",\".\"]]", 0, 1},
        {"[[\"mypy\",\"src\"]]", 0, 1},
        /* runs that verify nothing, however the rules read them */
        {"[[\"make\",\"--eval=x: ; @echo blind > src.c\",\"x\"]]", 0, 0},
        {"[[\"make\",\"--eval\",\"x: ;\",\"x\"]]", 0, 0},
        {"[[\"make\",\"-E\",\"x: ;\",\"x\"]]", 0, 0},
        {"[[\"make\",\"-f\",\"-\"]]", 0, 0},
        {"[[\"make\",\"-f\",\"/dev/stdin\"]]", 0, 0},
        {"[[\"make\",\"-f\",\"/dev/null\"]]", 0, 0},
        {"[[\"make\",\"--file=/dev/null\"]]", 0, 0},
        {"[[\"make\",\"-f\",\"no-such.mk\"]]", 0, 0},
        {"[[\"make\",\"-C\",\"no-such-dir\"]]", 0, 0},
        {"[[\"make\",\"-f\",\"Makefile\"]]", 0, 1},
        {"[[\"ninja\",\"-t\",\"list\"]]", 0, 0},
        {"[[\"ninja\"]]", 0, 0},                        /* no build.ninja */
        {"[[\"su\",\"-c\",\"make\"]]", 0, 1},       /* a wrapper's string */
        {"[[\"chrt\",\"1\",\"make\",\"-n\"]]", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset_count();
        init(NULL);
        for (int k = 0; k < 4; k++)
            patch(1);
        assert_true(blocked(&patch_tool));
        ran(cases[i].programs, cases[i].code);
        if (blocked(&patch_tool) == cases[i].lifts)
            fail_msg("%s (exit %ld) should %slift the block", cases[i].programs, cases[i].code,
                     cases[i].lifts ? "" : "not ");
        /* the struct form is judged the same */
        reset_count();
        init(NULL);
        for (int k = 0; k < 4; k++)
            patch(1);
        ran_typed(cases[i].programs, cases[i].code, 1, 0);
        if (blocked(&patch_tool) == cases[i].lifts)
            fail_msg("typed %s (exit %ld) should %slift the block", cases[i].programs,
                     cases[i].code, cases[i].lifts ? "" : "not ");
    }
}

/* The struct form's own details: a refused exec or an incomplete list
 * never verifies; no list means the command text alone; a sender's
 * smaller struct is read only as far as it goes. */
static void test_typed_report(void **state)
{
    (void)state;
    struct { int complete; size_t refused; int lifts; } cases[] = {
        {1, 0, 1}, {1, 1, 0}, {0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        reset_count();
        init(NULL);
        for (int k = 0; k < 4; k++)
            patch(1);
        ran_typed("[[\"make\"]]", 0, cases[i].complete, cases[i].refused);
        assert_int_equal(blocked(&patch_tool), !cases[i].lifts);
    }
    const char *texts[] = {"make -j2 all", "make; rm -rf x", "make --version"};
    for (size_t i = 0; i < 3; i++) {
        reset_count();
        init(NULL);
        for (int k = 0; k < 4; k++)
            patch(1);
        vt_command_ran r = {.struct_size = sizeof r, .command = texts[i], .complete = 1};
        guard_command_ran(NULL, &r); /* no call: applied at once */
        assert_int_equal(blocked(&patch_tool), i != 0);
    }
    /* a struct cut before `complete`: its list reads as incomplete */
    reset_count();
    init(NULL);
    for (int k = 0; k < 4; k++)
        patch(1);
    static const char *make[] = {"make", NULL};
    static const char *const *const list[] = {make, NULL};
    vt_command_ran cut = {.struct_size = offsetof(vt_command_ran, complete),
                          .command = "make",
                          .programs = list,
                          .complete = 1};
    guard_command_ran(NULL, &cut);
    assert_true(blocked(&patch_tool));
    cut.struct_size = sizeof cut;
    guard_command_ran(NULL, &cut);
    assert_false(blocked(&patch_tool));
}

static void test_report_details(void **state)
{
    (void)state;
    const char *reports[] = {
        /* a refused exec, an incomplete list: never a verification */
        "{\"command\":\"make\",\"programs\":[[\"make\"]],\"complete\":true,\"refused\":1}",
        "{\"command\":\"make\",\"programs\":[[\"make\"]],\"complete\":false,\"refused\":0}",
        /* no watcher: only a text with no shell syntax is read */
        "{\"command\":\"make --version\"}",
        "{\"command\":\"make; rm -rf x\"}",
        "not json",
    };
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++) {
        reset_count();
        init(NULL);
        for (int k = 0; k < 4; k++)
            patch(1);
        vt_call c;
        assert_false(begin(&c, &exec_tool, NULL));
        guard_note(&c, VT_NOTE_COMMAND_RAN, reports[i], 0);
        end(&c);
        if (!blocked(&patch_tool))
            fail_msg("%s lifted the block", reports[i]);
    }
    reset_count();
    init(NULL);
    for (int k = 0; k < 4; k++)
        patch(1);
    guard_note(NULL, VT_NOTE_COMMAND_RAN, "{\"command\":\"make -j2 all\"}", 0);
    assert_false(blocked(&patch_tool));
    /* require_success: only exit 0 verifies */
    init("{\"tools\":{\"anti_blind_editing\":{\"require_success\":true}}}");
    for (int k = 0; k < 4; k++)
        patch(1);
    ran("[[\"make\"]]", 2);
    assert_true(blocked(&patch_tool));
    ran("[[\"make\"]]", 0);
    assert_false(blocked(&patch_tool));
}

static int exec_refused(const char *cwd, int nsubj, ...)
{
    vt_subjects s;
    subjects_init(&s);
    if (cwd)
        subjects_add(&s, VT_SUBJECT_CWD, cwd);
    va_list ap;
    va_start(ap, nsubj);
    for (int i = 0; i < nsubj; i++) {
        int kind = va_arg(ap, int);
        subjects_add(&s, (vt_subject_kind)kind, va_arg(ap, const char *));
    }
    va_end(ap);
    vt_call c;
    int b = begin(&c, &exec_tool, &s);
    if (!b)
        end(&c);
    subjects_free(&s);
    return b;
}

static void test_writers_refused_while_blocked(void **state)
{
    (void)state;
    reset_count();
    init(NULL);
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_PATH_EDIT, "f.txt"));
    for (int k = 0; k < 4; k++)
        patch(1);
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_PATH_EDIT, "f.txt"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "sed -i s/a/b/ g"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "sed -Ei.bak s/a/b/ g"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "tee -a log"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "cp a b"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "FOO=1 timeout 5 rm x"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "git checkout -- f"));
    assert_true(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "perl -pi -e s/a/b/ f"));
    /* Reading, testing, writing outside the workspace: allowed. */
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "sed -n 1p f"));
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "tee"));
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "perl -Mstrict -e 1"));
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "git status"));
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_COMMAND, "make test"));
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_PATH_EDIT, "/dev/null"));
    assert_false(exec_refused(NULL, 1, VT_SUBJECT_PATH_EDIT, "/tmp/elsewhere"));
    assert_false(exec_refused(ws, 1, VT_SUBJECT_PATH_EDIT, "../../tmp/elsewhere"));
}

static void write_file(const char *rel, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    FILE *f = fopen(p, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void shell_edits_counted(void)
{
    reset_count();
    init(NULL);
    char p[256];
    snprintf(p, sizeof p, "%s/node_modules", ws);
    mkdir(p, 0755);
    /* What changes during an exec call counts; ignored folders do not. */
    for (int i = 0; i < 4; i++) {
        vt_call c;
        assert_false(begin(&c, &exec_tool, NULL));
        write_file("node_modules/dep.js", "x\n");
        end(&c);
    }
    assert_false(blocked(&patch_tool));
    for (int i = 0; i < 4; i++) {
        vt_call c;
        assert_false(begin(&c, &exec_tool, NULL));
        write_file("f.txt", "x\n");
        end(&c);
        assert_null(c.warnings); /* released with the call */
    }
    assert_true(blocked(&patch_tool));
    /* A fifth change while blocked is reported in the call's warnings. */
    vt_call c;
    assert_false(begin(&c, &exec_tool, NULL));
    write_file("g.txt", "y\n");
    guard_end(&c);
    assert_non_null(c.warnings);
    assert_non_null(strstr(cJSON_GetArrayItem(c.warnings, 0)->valuestring, "g.txt"));
    call_release(&c);
    /* A verification's own output is not a change. */
    assert_false(begin(&c, &exec_tool, NULL));
    write_file("f.o", "obj");
    guard_note(&c, VT_NOTE_COMMAND_RAN, "{\"command\":\"make\",\"programs\":[[\"make\"]]}", 0);
    end(&c);
    assert_false(blocked(&patch_tool));
    /* detect_shell_edits = false: commands are not watched */
    init("{\"tools\":{\"anti_blind_editing\":{\"detect_shell_edits\":false}}}");
    for (int i = 0; i < 5; i++) {
        assert_false(begin(&c, &exec_tool, NULL));
        write_file("f.txt", "x\n");
        end(&c);
    }
    assert_false(blocked(&patch_tool));
}

static void test_shell_edits_counted(void **state)
{
    (void)state;
    shell_edits_counted();
}

/* The same, counted from the workspace index's events (serve), in a
 * directory made during a command too. */
static void test_shell_edits_counted_by_events(void **state)
{
    (void)state;
    ws_index *ix = NULL;
    assert_int_equal(ws_index_open(ws, WS_INDEX_LIVE, &ix), 0);
    ws_index_set_current(ix);
    assert_int_equal(ws_index_refresh(ix, 1, NULL), 0);
    assert_true(ws_index_event_driven(ix));
    shell_edits_counted();
    /* a file in a directory the command made counts and is named */
    reset_count();
    init("{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":1}}}");
    vt_call c;
    assert_false(begin(&c, &exec_tool, NULL));
    char p[256];
    snprintf(p, sizeof p, "%s/newdir", ws);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/newdir/deeper", ws);
    mkdir(p, 0755);
    write_file("newdir/deeper/made.c", "x\n");
    end(&c);
    assert_true(blocked(&patch_tool));
    ws_index_set_current(NULL);
    ws_index_close(ix);
}

static void test_snapshot_diff(void **state)
{
    (void)state;
    write_file("a", "1");
    write_file("b", "2");
    guard_snapshot *x, *y;
    assert_int_equal(guard_snapshot_take(ws, 1000, &x), VT_OK);
    char p[256];
    snprintf(p, sizeof p, "%s/a", ws);
    unlink(p);
    write_file("c", "3");
    snprintf(p, sizeof p, "%s/b", ws);
    chmod(p, 0600);
    assert_int_equal(guard_snapshot_take(ws, 1000, &y), VT_OK);
    char *names[3] = {0};
    assert_int_equal(guard_snapshot_diff(x, y, names, 3), 3);
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        seen |= (strcmp(names[i], "a") == 0) | (strcmp(names[i], "b") == 0) << 1 |
                (strcmp(names[i], "c") == 0) << 2;
        free(names[i]);
    }
    assert_int_equal(seen, 7);
    assert_int_equal(guard_snapshot_diff(y, y, NULL, 0), 0);
    guard_snapshot_free(x);
    guard_snapshot_free(y);
    /* A bounded walk stops and says so. */
    assert_int_equal(guard_snapshot_take(ws, 1, &x), VT_OK);
    assert_true(guard_snapshot_cut(x));
    assert_int_equal(guard_snapshot_count(x), 1);
    guard_snapshot_free(x);
}

static void test_config(void **state)
{
    (void)state;
    reset_count();
    init("{\"tools\":{\"anti_blind_editing\":{\"enabled\":false}}}");
    for (int i = 0; i < 10; i++)
        patch(1);
    assert_false(blocked(&patch_tool));

    reset_count();
    init("{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":2,"
         "\"verification_commands\":[\"re:^just (test|check)( |$)\"]}}}");
    patch(1);
    patch(1);
    assert_true(blocked(&patch_tool));
    ran("[[\"make\"]]", 0); /* defaults replaced */
    assert_true(blocked(&patch_tool));
    ran("[[\"/usr/bin/just\",\"test\",\"--fast\"]]", 0);
    assert_false(blocked(&patch_tool));

    init("{\"tools\":{\"anti_blind_editing\":{\"additional_verification_commands\":"
         "[\"bazel test\"]}}}");
    for (int i = 0; i < 4; i++)
        patch(1);
    ran("[[\"bazel\",\"test\",\"//...\"]]", 0);
    assert_false(blocked(&patch_tool));
    for (int i = 0; i < 4; i++)
        patch(1);
    ran("[[\"make\"]]", 0);
    assert_false(blocked(&patch_tool));

    const char *bad[] = {
        "{\"tools\":{\"anti_blind_editing\":{\"enabled\":1}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"require_success\":\"yes\"}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":0}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":2.5}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"max_snapshot_entries\":-1}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"verification_commands\":\"make\"}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"verification_commands\":[\"re:(\"]}}}",
        "{\"tools\":{\"anti_blind_editing\":true}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *cfg = cJSON_Parse(bad[i]);
        char *err = NULL;
        assert_int_equal(guard_init(cfg, ws, &err), VT_ERR_INVALID);
        assert_non_null(err);
        assert_non_null(strstr(err, "[tools.anti_blind_editing]"));
        free(err);
        cJSON_Delete(cfg);
    }
}

static int passed;
static pthread_mutex_t passed_mu = PTHREAD_MUTEX_INITIALIZER;

static void *patcher(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++) {
        vt_call c;
        if (begin(&c, &patch_tool, NULL))
            continue;
        usleep(100); /* the patch runs: others must wait, not pass */
        guard_note(&c, VT_NOTE_MUTATION, NULL, 1);
        end(&c);
        pthread_mutex_lock(&passed_mu);
        passed++;
        pthread_mutex_unlock(&passed_mu);
    }
    return NULL;
}

static void test_concurrent_patches(void **state)
{
    (void)state;
    reset_count();
    init("{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":37}}}");
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, patcher, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(passed, 37);
    assert_true(blocked(&patch_tool));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_blocks_after_threshold, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verification_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_report_details, setup, teardown),
        cmocka_unit_test_setup_teardown(test_typed_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writers_refused_while_blocked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shell_edits_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shell_edits_counted_by_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_snapshot_diff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_patches, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
