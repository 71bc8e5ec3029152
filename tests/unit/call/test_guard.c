/* Anti-blind-editing: counting, blocking, verification rules, config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "../../../plugins/exec/exec_service.h"
#include "guard.h"
#include "services.h"

static tool_entry patch_tool = {.t = {.name = "apply_patch",
                                      .effects = VT_EFFECT_MUTATES_WORKSPACE}};
static tool_entry exec_tool = {.t = {.name = "exec_command", .effects = VT_EFFECT_EXECUTES}};
static tool_entry read_tool = {.t = {.name = "code_search", .effects = VT_EFFECT_READ_ONLY}};

/* A small stand-in for the exec plugin's splitter: splits on && || ; |
 * and marks command substitutions opaque. */
static int fake_split(const char *cmd, cJSON **out)
{
    cJSON *arr = cJSON_CreateArray();
    char *copy = strdup(cmd);
    char *p = copy;
    while (p && *p) {
        char *e = p + strcspn(p, "&|;");
        char saved = *e;
        *e = '\0';
        while (*p == ' ')
            p++;
        size_t n = strlen(p);
        while (n && p[n - 1] == ' ')
            p[--n] = '\0';
        if (n) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "command", p);
            cJSON_AddBoolToObject(o, "opaque", strstr(p, "$(") != NULL);
            cJSON_AddItemToArray(arr, o);
        }
        if (!saved)
            break;
        p = e + 1;
        while (*p == '&' || *p == '|' || *p == ';')
            p++;
    }
    free(copy);
    *out = arr;
    return 0;
}

static exec_splitter_v1 splitter = {sizeof(exec_splitter_v1), fake_split};

static void init(const char *toml_as_json)
{
    cJSON *cfg = cJSON_Parse(toml_as_json ? toml_as_json : "{}");
    char *err = NULL;
    int rc = guard_init(cfg, &err);
    if (rc)
        fail_msg("guard_init: %s", err ? err : "?");
    cJSON_Delete(cfg);
}

static int blocked(const tool_entry *t)
{
    cJSON *r = NULL;
    int b = guard_check(t, NULL, &r);
    assert_int_equal(b, r != NULL);
    cJSON_Delete(r);
    return b;
}

static void mutate(int n)
{
    for (int i = 0; i < n; i++)
        guard_note(&patch_tool, VT_NOTE_MUTATION, NULL, 1);
}

static int setup(void **state)
{
    (void)state;
    services_clear();
    services_publish(EXEC_SPLITTER_SERVICE, &splitter);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    guard_fini();
    services_clear();
    return 0;
}

static void test_blocks_after_threshold(void **state)
{
    (void)state;
    init(NULL);
    mutate(3);
    guard_note(&patch_tool, VT_NOTE_MUTATION, NULL, 0); /* a no-op patch */
    assert_false(blocked(&patch_tool));
    mutate(1);
    cJSON *r = NULL;
    assert_int_equal(guard_check(&patch_tool, NULL, &r), 1);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(r, "success")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "blocked")));
    assert_string_equal(cJSON_GetObjectItem(r, "failure_kind")->valuestring,
                        "anti_blind_editing_verification_required");
    assert_int_equal(cJSON_GetObjectItem(r, "pending_mutations")->valueint, 4);
    assert_non_null(strstr(cJSON_GetObjectItem(r, "hint")->valuestring, "verification command"));
    cJSON_Delete(r);
    /* Reads, searches and commands stay allowed. */
    assert_false(blocked(&exec_tool));
    assert_false(blocked(&read_tool));
}

static void verify(const char *cmd, long exit_code) {
    guard_note(&exec_tool, VT_NOTE_COMMAND_EXIT, cmd, exit_code);
}

static void test_verification_rules(void **state)
{
    (void)state;
    init(NULL);
    struct { const char *cmd; long code; int lifts; } cases[] = {
        {"make -j2", 0, 1},
        {"make", 2, 0},                      /* failed */
        {"make && rm -rf build", 0, 0},      /* one part is not verification */
        {"cd build && ctest --output-on-failure", 0, 1},
        {"cd build", 0, 0},                  /* neutral alone */
        {"FOO=1 cargo test --all", 0, 1},
        {"cargo fmt", 0, 0},
        {"./gradlew build", 0, 1},
        {"/usr/bin/python3 -m pytest -q", 0, 1},
        {"python3 -m pip install x", 0, 0},
        {"npm run build", 0, 1},
        {"npm install", 0, 0},
        {"maker", 0, 0},                     /* word boundary */
        {"make $(echo x)", 0, 0},            /* opaque */
        {"cmake --build build -j2", 0, 1},
        {"cmake -S . -B build", 0, 0},
        {"go vet ./...", 0, 1},
        {"make | tail", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        init(NULL);
        mutate(4);
        assert_true(blocked(&patch_tool));
        verify(cases[i].cmd, cases[i].code);
        if (blocked(&patch_tool) == cases[i].lifts)
            fail_msg("'%s' (exit %ld) should %slift the block", cases[i].cmd, cases[i].code,
                     cases[i].lifts ? "" : "not ");
    }
}

static void test_config(void **state)
{
    (void)state;
    init("{\"tools\":{\"anti_blind_editing\":{\"enabled\":false}}}");
    mutate(10);
    assert_false(blocked(&patch_tool));

    init("{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":2,"
         "\"verification_commands\":[\"re:^just (test|check)( |$)\"]}}}");
    mutate(2);
    assert_true(blocked(&patch_tool));
    verify("make", 0); /* defaults replaced */
    assert_true(blocked(&patch_tool));
    verify("just test --fast", 0);
    assert_false(blocked(&patch_tool));

    init("{\"tools\":{\"anti_blind_editing\":{\"additional_verification_commands\":"
         "[\"bazel test\"]}}}");
    mutate(4);
    verify("bazel test //...", 0);
    assert_false(blocked(&patch_tool));
    mutate(4);
    verify("make", 0);
    assert_false(blocked(&patch_tool));

    const char *bad[] = {
        "{\"tools\":{\"anti_blind_editing\":{\"enabled\":1}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":0}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":2.5}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"verification_commands\":\"make\"}}}",
        "{\"tools\":{\"anti_blind_editing\":{\"verification_commands\":[\"re:(\"]}}}",
        "{\"tools\":{\"anti_blind_editing\":true}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cJSON *cfg = cJSON_Parse(bad[i]);
        char *err = NULL;
        assert_int_equal(guard_init(cfg, &err), VT_ERR_INVALID);
        assert_non_null(err);
        assert_non_null(strstr(err, "[tools.anti_blind_editing]"));
        free(err);
        cJSON_Delete(cfg);
    }
}

static void test_no_splitter_means_no_verification(void **state)
{
    (void)state;
    services_clear();
    init(NULL);
    mutate(4);
    verify("make", 0);
    assert_true(blocked(&patch_tool));
}

static void *noter(void *arg)
{
    (void)arg;
    mutate(1000);
    return NULL;
}

static void test_concurrent_notes(void **state)
{
    (void)state;
    init("{\"tools\":{\"anti_blind_editing\":{\"max_unverified_mutations\":4001}}}");
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, noter, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_false(blocked(&patch_tool));
    mutate(1);
    assert_true(blocked(&patch_tool));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_blocks_after_threshold, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verification_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_splitter_means_no_verification, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_notes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
