/* The permission engine in process: layers and precedence, prompts
 * through a fake front end, the reviewer pipeline (command and sampling),
 * denial counters under concurrency, configuration and agent errors,
 * audit lines. */
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

#include "permission.h"
#include "subjects.h"
#include "toml_reader.h"
#include "services.h"
#include "../../support/perm_tools.h"

static char ws[256];

static void write_file(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", ws, rel);
    char *slash = strrchr(p, '/');
    *slash = 0;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    assert_int_equal(system(cmd), 0);
    *slash = '/';
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    if (strstr(rel, ".sh"))
        chmod(p, 0755);
}

/* Initialise from TOML text (written to vtcode.toml so lines resolve). */
static int init_toml(const char *toml, const char *agent, char **err)
{
    write_file("vtcode.toml", toml);
    char path[512];
    snprintf(path, sizeof path, "%s/vtcode.toml", ws);
    cJSON *cfg = NULL;
    *err = NULL;
    int rc = toml_read_file(path, &cfg, err);
    assert_int_equal(rc, 0);
    permission_declare_tools(test_tool_decl, sizeof test_tool_decl / sizeof *test_tool_decl);
    permission_set_embedded_policy(test_embedded_policy);
    rc = permission_init_with(cfg, path, agent, ws, err);
    cJSON_Delete(cfg);
    return rc;
}

static void init_ok(const char *toml, const char *agent)
{
    char *err = NULL;
    if (init_toml(toml, agent, &err) != 0)
        fail_msg("init: %s", err ? err : "?");
}

typedef struct call {
    const char *tool;
    uint32_t effects;
    const char *agent;
    const char *args;
    vt_subject_kind kinds[8];
    const char *values[8];
} call;

static tool_entry make_tool(const call *c)
{
    tool_entry t;
    memset(&t, 0, sizeof t);
    t.t.name = c->tool;
    t.t.effects = c->effects;
    return t;
}

static char decision[32];

static const char *explain(const call *c)
{
    tool_entry t = make_tool(c);
    vt_subjects s;
    subjects_init(&s);
    for (int i = 0; i < 8 && c->kinds[i]; i++)
        subjects_add(&s, c->kinds[i], c->values[i]);
    cJSON *args = cJSON_Parse(c->args ? c->args : "{}");
    perm_request req = {&t, args, c->agent, &s, NULL};
    cJSON *out = NULL;
    assert_int_equal(permission_explain(&req, &out), 0);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(out, "decision");
    snprintf(decision, sizeof decision, "%s", d->valuestring);
    cJSON_Delete(out);
    cJSON_Delete(args);
    subjects_free(&s);
    return decision;
}

static int check(const call *c, const frontend *fe, char **msg)
{
    tool_entry t = make_tool(c);
    vt_subjects s;
    subjects_init(&s);
    for (int i = 0; i < 8 && c->kinds[i]; i++)
        subjects_add(&s, c->kinds[i], c->values[i]);
    cJSON *args = cJSON_Parse(c->args ? c->args : "{}");
    perm_request req = {&t, args, c->agent, &s, fe};
    *msg = NULL;
    int rc = permission_check(&req, msg);
    cJSON_Delete(args);
    subjects_free(&s);
    return rc;
}

#define EXEC(cmdtext) \
    {"exec_command", VT_EFFECT_EXECUTES, NULL, NULL, {VT_SUBJECT_COMMAND}, {cmdtext}}
#define PATCH(p) \
    {"apply_patch", VT_EFFECT_MUTATES_WORKSPACE, NULL, NULL, {VT_SUBJECT_PATH_EDIT}, {p}}

static void test_layers(void **state)
{
    (void)state;
    write_file(".vtcode/agents/dev.md",
               "---\nname: dev\npermissions:\n  default: ask\n  allow:\n"
               "    - exec_command(git *)\n    - apply_patch\n  deny: [exec_command(git push *)]\n"
               "  auto: [exec_command(cargo *)]\n---\nbody\n");
    init_ok("[permissions]\ndeny = [\"exec_command(rm -rf *)\"]\n"
            "ask = [\"exec_command(git commit *)\", \"apply_patch(/docs/**)\"]\n"
            "allow = [\"exec_command(ls *)\"]\n",
            NULL);
    call c1 = EXEC("rm -rf /");
    assert_string_equal(explain(&c1), "deny");
    call c2 = EXEC("git commit -m x");
    assert_string_equal(explain(&c2), "ask");
    call c3 = EXEC("ls -la");
    assert_string_equal(explain(&c3), "allow"); /* embedded agent: global allow */
    call c4 = EXEC("cat x");
    assert_string_equal(explain(&c4), "ask");
    call c5 = {"code_search", VT_EFFECT_READ_ONLY, NULL, NULL, {0}, {0}};
    assert_string_equal(explain(&c5), "allow");

    /* a named agent: global allow no longer applies, its rules do */
    call d1 = EXEC("ls -la");
    d1.agent = "dev";
    assert_string_equal(explain(&d1), "ask");
    call d2 = EXEC("git status");
    d2.agent = "dev";
    assert_string_equal(explain(&d2), "allow");
    call d3 = EXEC("git push origin main");
    d3.agent = "dev";
    assert_string_equal(explain(&d3), "deny");
    call d4 = EXEC("cargo build");
    d4.agent = "dev";
    assert_string_equal(explain(&d4), "auto");
    call d5 = EXEC("git commit -m x"); /* global ask beats agent allow */
    d5.agent = "dev";
    assert_string_equal(explain(&d5), "ask");
    call d6 = EXEC("rm -rf x"); /* global deny is a ceiling */
    d6.agent = "dev";
    assert_string_equal(explain(&d6), "deny");
    call d7 = PATCH("docs/a.md");
    d7.agent = "dev";
    assert_string_equal(explain(&d7), "ask");
    call d8 = PATCH("src/a.c");
    d8.agent = "dev";
    assert_string_equal(explain(&d8), "allow");
    call d9 = PATCH(".git/config"); /* protected even with bare allow */
    d9.agent = "dev";
    assert_string_equal(explain(&d9), "ask");
    /* IDE and agent configuration starts programs outside the sandbox:
     * protected like .git, at any depth */
    static const char *const ide[] = {".vscode/settings.json", ".idea/workspace.xml",
                                      ".claude/settings.json", ".cursor/mcp.json",
                                      ".codex/config.toml",    ".devcontainer/devcontainer.json",
                                      ".mcp.json",             "sub/.claude/settings.local.json"};
    for (size_t i = 0; i < sizeof ide / sizeof *ide; i++) {
        call di = PATCH(ide[i]);
        di.agent = "dev";
        if (strcmp(explain(&di), "ask"))
            fail_msg("%s: %s, want ask", ide[i], decision);
    }
    permission_fini();
}

/* An untrusted layer only tightens: its approval is ignored, and its ask
 * rules turn allow or auto into ask but never a deny (the agent's
 * default included); over auto only a person answers. */
static void init_untrusted(const char *agent)
{
    cJSON *user = cJSON_Parse("{\"permissions\":{\"non_interactive\":\"allow\","
                              "\"allow\":[\"exec_command(make *)\"]}}");
    cJSON *wsl = cJSON_Parse("{\"permissions\":{\"approval\":\"read-only\","
                             "\"ask\":[\"exec_command\"]}}");
    perm_layer layers[] = {{"user", NULL, user, 1}, {"workspace", NULL, wsl, 0}};
    char *err = NULL;
    permission_declare_tools(test_tool_decl, sizeof test_tool_decl / sizeof *test_tool_decl);
    permission_set_embedded_policy(test_embedded_policy);
    if (permission_init_layers(layers, 2, agent, ws, 0, "test", &err) != 0)
        fail_msg("init: %s", err ? err : "?");
    cJSON_Delete(user);
    cJSON_Delete(wsl);
}

static void test_untrusted_layer(void **state)
{
    (void)state;
    char locked[512], rev[512], *msg = NULL;
    snprintf(locked, sizeof locked, "%s/agents/locked.md", ws);
    snprintf(rev, sizeof rev, "%s/agents/rev.md", ws);
    write_file("agents/locked.md", "---\nname: locked\npermissions:\n  default: deny\n---\nx\n");
    write_file("agents/rev.md", "---\nname: rev\npermissions:\n  default: auto\n"
                                "  allow: [exec_command(ls *)]\n---\nx\n");

    init_untrusted(NULL);
    assert_string_equal(permission_approval(), "ask");
    call e1 = EXEC("make all"); /* the user's allow, then the workspace's ask */
    assert_string_equal(explain(&e1), "ask");
    assert_int_equal(check(&e1, NULL, &msg), 0); /* the user's non_interactive */
    free(msg);
    permission_fini();

    init_untrusted(locked);
    call l1 = EXEC("touch marker");
    assert_string_equal(explain(&l1), "deny");
    assert_true(check(&l1, NULL, &msg) < 0);
    free(msg);
    permission_fini();

    init_untrusted(rev);
    call r1 = EXEC("ls -la");
    assert_string_equal(explain(&r1), "ask");
    assert_int_equal(check(&r1, NULL, &msg), 0);
    free(msg);
    call r2 = EXEC("cat x"); /* auto: a person only, not non_interactive */
    assert_string_equal(explain(&r2), "ask");
    assert_true(check(&r2, NULL, &msg) < 0);
    free(msg);
    permission_fini();
}

static int prompt_answer;
static int prompts;
static int fake_prompt(void *ctx, const cJSON *request)
{
    (void)ctx;
    prompts++;
    assert_non_null(cJSON_GetObjectItemCaseSensitive(request, "tool"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(request, "subjects"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(request, "message"));
    return prompt_answer;
}

static void test_prompts(void **state)
{
    (void)state;
    init_ok("[permissions]\nask = [\"exec_command(git push *)\"]\n", NULL);
    frontend fe = {0};
    fe.prompt = fake_prompt;
    char *msg;
    call c = EXEC("git push");
    prompt_answer = 1;
    assert_int_equal(check(&c, &fe, &msg), 0);
    prompt_answer = PROMPT_DENIED;
    assert_int_equal(check(&c, &fe, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "the user refused exec_command git push"));
    free(msg);
    /* a declined prompt is the user's answer, a cancelled one dismissed
     * without a decision; neither says "refused"; the rule is named */
    prompt_answer = PROMPT_DECLINED;
    assert_int_equal(check(&c, &fe, &msg), VT_ERR_DENIED);
    if (!strstr(msg, "the user declined the approval prompt") || strstr(msg, "no decision") ||
        strstr(msg, "user refused") || !strstr(msg, "vtcode.toml:2"))
        fail_msg("declined: %s", msg);
    free(msg);
    prompt_answer = PROMPT_CANCELLED;
    assert_int_equal(check(&c, &fe, &msg), VT_ERR_DENIED);
    if (!strstr(msg, "the approval prompt was dismissed without a decision") ||
        strstr(msg, "user refused") || !strstr(msg, "vtcode.toml:2"))
        fail_msg("cancelled: %s", msg);
    free(msg);
    prompt_answer = -1; /* no prompt possible -> non_interactive deny */
    assert_int_equal(check(&c, &fe, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "git push"));
    assert_non_null(strstr(msg, "vtcode.toml:2")); /* the rule's line */
    free(msg);
    assert_int_equal(check(&c, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    /* the default-ask message names a rule to add */
    call d = EXEC("make test");
    assert_int_equal(check(&d, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "exec_command(make test *)"));
    free(msg);
    permission_fini();

    init_ok("[permissions]\nnon_interactive = \"allow\"\n", NULL);
    if (check(&d, NULL, &msg) != 0)
        fail_msg("%s", msg);
    call p = PATCH(".vtcode/settings.json"); /* protected: never silently */
    p.agent = NULL;
    assert_int_equal(check(&p, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "protected"));
    free(msg);
    call e = {"exec_command", VT_EFFECT_EXECUTES, NULL,
              "{\"sandbox_permissions\":\"require_escalated\",\"justification\":\"needs net\"}",
              {VT_SUBJECT_COMMAND}, {"ls"}};
    assert_int_equal(check(&e, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "needs net"));
    free(msg);
    prompts = 0;
    prompt_answer = 1;
    assert_int_equal(check(&e, &fe, &msg), 0); /* an explicit approval is fine */
    assert_int_equal(prompts, 1);
    /* the reason the prompt gave stays in every refusal */
    prompt_answer = PROMPT_CANCELLED;
    assert_int_equal(check(&p, &fe, &msg), VT_ERR_DENIED);
    if (!strstr(msg, "policy file") || !strstr(msg, ".vtcode/settings.json") || !strstr(msg, "dismissed"))
        fail_msg("protected, cancelled: %s", msg);
    free(msg);
    prompt_answer = PROMPT_DECLINED;
    assert_int_equal(check(&e, &fe, &msg), VT_ERR_DENIED);
    if (!strstr(msg, "outside the sandbox") || !strstr(msg, "needs net") ||
        !strstr(msg, "declined"))
        fail_msg("escalated, declined: %s", msg);
    free(msg);
    prompt_answer = PROMPT_DENIED;
    assert_int_equal(check(&p, &fe, &msg), VT_ERR_DENIED);
    if (!strstr(msg, "the user refused") || !strstr(msg, "policy file") || !strstr(msg, ".vtcode/settings.json"))
        fail_msg("protected, refused: %s", msg);
    free(msg);
    permission_fini();
}

static void test_review_command(void **state)
{
    (void)state;
    write_file("reviewer.sh",
               "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in\n"
               "  *danger*) echo 'BLOCK looks destructive';;\n"
               "  *slow*) sleep 5; echo ALLOW;;\n"
               "  *mumble*) echo 'maybe';;\n"
               "  *) echo 'ALLOW fine';;\nesac\n");
    write_file(".vtcode/agents/auto.md",
               "---\npermissions:\n  default: auto\n  allow: [exec_command]\n---\n");
    char toml[1024];
    snprintf(toml, sizeof toml,
             "[permissions.auto]\ncommand = \"%s/reviewer.sh\"\nmax_consecutive_denials = 2\n"
             "max_total_denials = 3\ncommand_timeout_ms = 500\n", ws);
    init_ok(toml, "auto");
    char *msg;
    call ok = EXEC("echo hello");
    assert_string_equal(explain(&ok), "auto"); /* broad allow dropped */
    assert_int_equal(check(&ok, NULL, &msg), 0);
    call bad = EXEC("echo danger");
    assert_int_equal(check(&bad, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "looks destructive"));
    free(msg);
    call slow = EXEC("echo slow");
    assert_int_equal(check(&slow, NULL, &msg), VT_ERR_DENIED); /* timeout -> ask -> no prompt */
    if (!strstr(msg, "timed out"))
        fail_msg("%s", msg);
    free(msg);
    call mumble = EXEC("echo mumble");
    assert_int_equal(check(&mumble, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    /* one more BLOCK reaches max_consecutive_denials (2) */
    assert_int_equal(check(&bad, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    /* now even a harmless call falls back to a prompt; none possible */
    assert_int_equal(check(&ok, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    frontend fe = {0};
    fe.prompt = fake_prompt;
    prompt_answer = 1;
    prompts = 0;
    assert_int_equal(check(&ok, &fe, &msg), 0);
    assert_int_equal(prompts, 1);
    /* resetting the counters brings the reviewer back */
    permission_reset_counters();
    assert_int_equal(check(&ok, NULL, &msg), 0);
    permission_fini();
}

static int sample_calls;
static int fake_sample(void *ctx, const char *sys, const char *user, const char *hint,
                       char **answer)
{
    (void)ctx;
    (void)sys;
    sample_calls++;
    assert_string_equal(hint, "small-model");
    *answer = strdup(strstr(user, "evil") ? "BLOCK no" : "ALLOW ok");
    return 0;
}

static void test_review_sampling_and_exceptions(void **state)
{
    (void)state;
    write_file(".vtcode/agents/a2.md",
               "---\npermissions:\n  default: auto\n---\n");
    init_ok("[permissions.auto]\nmodel = \"small-model\"\n", "a2");
    frontend fe = {0};
    fe.sample = fake_sample;
    char *msg;
    call ok = EXEC("echo fine");
    call bad = EXEC("echo evil");
    sample_calls = 0;
    assert_int_equal(check(&ok, &fe, &msg), 0);
    assert_int_equal(check(&bad, &fe, &msg), VT_ERR_DENIED);
    free(msg);
    assert_int_equal(sample_calls, 2);
    /* fixed exceptions need no reviewer at all */
    call ro = {"code_search", VT_EFFECT_READ_ONLY, NULL, NULL, {VT_SUBJECT_PATH_READ}, {"src"}};
    assert_int_equal(check(&ro, NULL, &msg), 0);
    call inws = PATCH("src/new.c");
    assert_int_equal(check(&inws, NULL, &msg), 0);
    call outws = PATCH("../elsewhere.c"); /* outside: needs review; none -> ask -> deny */
    assert_int_equal(check(&outws, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    assert_int_equal(sample_calls, 2);
    permission_fini();
}

/* explain with a front end that could prompt and sample: the decision
 * and the review's denial total. */
static const char *explain_fe(const call *c, const frontend *fe, double *total)
{
    tool_entry t = make_tool(c);
    vt_subjects s;
    subjects_init(&s);
    subjects_add(&s, c->kinds[0], c->values[0]);
    perm_request req = {&t, NULL, c->agent, &s, fe};
    cJSON *out = NULL;
    assert_int_equal(permission_explain(&req, &out), 0);
    snprintf(decision, sizeof decision, "%s",
             cJSON_GetObjectItemCaseSensitive(out, "decision")->valuestring);
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(out, "review");
    *total = rv ? cJSON_GetObjectItemCaseSensitive(rv, "total_denials")->valuedouble : -1;
    cJSON_Delete(out);
    subjects_free(&s);
    return decision;
}

static int audit_lines(void)
{
    char p[512], line[8192];
    snprintf(p, sizeof p, "%s/.vtcode/audit/permissions.jsonl", ws);
    FILE *f = fopen(p, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n++;
    if (f)
        fclose(f);
    return n;
}

/* explain runs the stages of check dry: the same decision, and no
 * prompt, no sampling, no denial count, no audit record. */
static void test_explain_is_dry(void **state)
{
    (void)state;
    write_file(".vtcode/agents/a3.md", "---\npermissions:\n  default: auto\n"
                                       "  ask: [exec_command(git push *)]\n---\n");
    init_ok("[permissions]\naudit_enabled = true\n[permissions.auto]\nmodel = \"small-model\"\n",
            "a3");
    char p[512];
    snprintf(p, sizeof p, "%s/.vtcode/audit/permissions.jsonl", ws);
    unlink(p);
    frontend fe = {0};
    fe.prompt = fake_prompt;
    fe.sample = fake_sample;
    prompts = sample_calls = 0;
    prompt_answer = PROMPT_APPROVED;
    call ask = EXEC("git push"), bad = EXEC("echo evil");
    double total;
    for (int i = 0; i < 3; i++) {
        assert_string_equal(explain_fe(&ask, &fe, &total), "ask");
        assert_string_equal(explain_fe(&bad, &fe, &total), "auto");
        assert_true(total == 0);
    }
    assert_int_equal(prompts, 0);
    assert_int_equal(sample_calls, 0);
    assert_int_equal(audit_lines(), 0);
    /* the same calls checked: a prompt, a review, a count, two records */
    char *msg = NULL;
    assert_int_equal(check(&ask, &fe, &msg), 0);
    assert_int_equal(check(&bad, &fe, &msg), VT_ERR_DENIED);
    free(msg);
    assert_int_equal(prompts, 1);
    assert_int_equal(sample_calls, 1);
    assert_int_equal(audit_lines(), 2);
    assert_string_equal(explain_fe(&bad, &fe, &total), "auto");
    assert_true(total == 1);
    permission_fini();
    unlink(p); /* test_audit counts its own records */
}

/* Denial counters are exact when BLOCKs arrive concurrently. */
static void *blocker(void *arg)
{
    (void)arg;
    call bad = EXEC("echo evil");
    frontend fe = {0};
    fe.sample = fake_sample;
    for (int i = 0; i < 20; i++) {
        char *msg = NULL;
        check(&bad, &fe, &msg);
        free(msg);
    }
    return NULL;
}

static void test_concurrent_counters(void **state)
{
    (void)state;
    write_file(".vtcode/agents/a2.md", "---\npermissions:\n  default: auto\n---\n");
    init_ok("[permissions.auto]\nmodel = \"small-model\"\nmax_consecutive_denials = 1000\n"
            "max_total_denials = 50\n", "a2");
    sample_calls = 0;
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, blocker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    /* 80 calls: reviews stop once 50 denials are counted (a few calls
     * already past the limit check may still review). */
    assert_true(sample_calls >= 50 && sample_calls <= 54);
    call bad = EXEC("echo evil");
    tool_entry t = make_tool(&bad);
    vt_subjects s;
    subjects_init(&s);
    subjects_add(&s, VT_SUBJECT_COMMAND, "echo evil");
    perm_request req = {&t, NULL, NULL, &s, NULL};
    cJSON *out = NULL;
    permission_explain(&req, &out);
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(out, "review");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(rv, "stage")->valuestring, "limit");
    assert_true(cJSON_GetObjectItemCaseSensitive(rv, "total_denials")->valuedouble >= 50);
    cJSON_Delete(out);
    subjects_free(&s);
    permission_fini();
}

static void expect_init_error(const char *toml, const char *agent, const char *want1,
                              const char *want2)
{
    char *err = NULL;
    int rc = init_toml(toml, agent, &err);
    assert_int_not_equal(rc, 0);
    assert_non_null(err);
    if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
        fail_msg("error '%s' lacks '%s' / '%s'", err, want1, want2 ? want2 : "");
    free(err);
    permission_fini();
}

static void test_config_errors(void **state)
{
    (void)state;
    expect_init_error("[permissions]\nallow = \"x\"\n", NULL, "vtcode.toml:2",
                      "permissions.allow");
    expect_init_error("[permissions.auto]\nmax_total_denials = \"3\"\n", NULL, "vtcode.toml:2",
                      "max_total_denials");
    expect_init_error("[permissions]\nauto = [\"apply_patch\"]\n", NULL, "vtcode.toml:2",
                      "permissions.auto");
    expect_init_error("[permissions]\ndeny = [\n  \"ok\",\n  \"exec_command(\",\n]\n", NULL,
                      "vtcode.toml:4", "exec_command(");
    expect_init_error("[permissions]\nnon_interactive = \"maybe\"\n", NULL,
                      "non_interactive", NULL);
    expect_init_error("[permissions]\naudit_enabled = 1\n", NULL, "audit_enabled", NULL);
    expect_init_error("[permissions.auto.environment]\ntrusted_paths = [1]\n", NULL,
                      "trusted_paths", NULL);
    /* unknown keys inside the permission tables are errors */
    expect_init_error("[permissions]\nsomething_else = 3\n", NULL, "vtcode.toml:2",
                      "something_else");
    expect_init_error("[permissions.auto]\nfuture = true\n", NULL, "vtcode.toml:2", "future");

    write_file(".vtcode/agents/nodefault.md", "---\nname: x\npermissions:\n  allow: [a]\n---\n");
    expect_init_error("", "nodefault", "nodefault.md:3", "permissions.default");
    write_file(".vtcode/agents/baddefault.md",
               "---\nname: x\npermissions:\n  default: sometimes\n---\n");
    expect_init_error("", "baddefault", "baddefault.md:4", "sometimes");
    write_file(".vtcode/agents/badrule.md",
               "---\npermissions:\n  default: ask\n  deny:\n    - fine\n    - \"bash(\"\n---\n");
    expect_init_error("", "badrule", "badrule.md:6", "bash(");
    write_file(".vtcode/agents/nofm.md", "# just markdown\n");
    expect_init_error("", "nofm", "nofm.md:1", "front matter");
    expect_init_error("", "missing-agent", "missing-agent", "no ");
}

static void test_audit(void **state)
{
    (void)state;
    init_ok("[permissions]\naudit_enabled = true\nallow = [\"exec_command(ls *)\"]\n"
            "deny = [\"exec_command(rm *)\"]\n", NULL);
    char *msg;
    call a = EXEC("ls");
    call d = EXEC("rm x");
    assert_int_equal(check(&a, NULL, &msg), 0);
    assert_int_equal(check(&d, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    permission_fini();
    char p[512], line[4096];
    snprintf(p, sizeof p, "%s/.vtcode/audit/permissions.jsonl", ws);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o);
        const char *want = n == 0 ? "allow" : "deny";
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "outcome")->valuestring, want);
        assert_non_null(cJSON_GetObjectItemCaseSensitive(o, "time"));
        cJSON_Delete(o);
        n++;
    }
    fclose(f);
    assert_int_equal(n, 2);
}

static void test_domains_and_tool_patterns(void **state)
{
    (void)state;
    init_ok("[permissions]\ndeny = [\"WebFetch(domain:evil.com)\"]\n"
            "ask = [\"fetch(domain:internal.corp)\"]\n"
            "allow = [\"fetch(domain:example.com)\", \"mcp__context7\", \"mcp__gh__*\"]\n",
            NULL);
    call a = {"fetch", VT_EFFECT_NETWORK, NULL, NULL, {VT_SUBJECT_DOMAIN}, {"docs.Example.com"}};
    assert_string_equal(explain(&a), "allow");
    call b = {"fetch", VT_EFFECT_NETWORK, NULL, NULL, {VT_SUBJECT_DOMAIN, VT_SUBJECT_DOMAIN},
              {"example.com", "other.org"}};
    assert_string_equal(explain(&b), "ask"); /* every domain must be covered */
    call c = {"anytool", VT_EFFECT_NETWORK, NULL, NULL, {VT_SUBJECT_DOMAIN}, {"x.evil.com"}};
    assert_string_equal(explain(&c), "deny"); /* WebFetch: any tool */
    call d = {"fetch", VT_EFFECT_NETWORK, NULL, NULL, {VT_SUBJECT_DOMAIN}, {"notexample.com"}};
    assert_string_equal(explain(&d), "ask");
    call e = {"fetch", VT_EFFECT_NETWORK, NULL, NULL, {VT_SUBJECT_DOMAIN}, {"a.internal.corp"}};
    assert_string_equal(explain(&e), "ask");
    call m1 = {"mcp__context7__search-docs", 0, NULL, NULL, {0}, {0}};
    assert_string_equal(explain(&m1), "allow");
    call m2 = {"mcp__context7x__a", 0, NULL, NULL, {0}, {0}};
    assert_string_equal(explain(&m2), "ask");
    call m3 = {"mcp__gh__issues", 0, NULL, NULL, {0}, {0}};
    assert_string_equal(explain(&m3), "allow");
    call m4 = {"mcp__gh", 0, NULL, NULL, {0}, {0}};
    assert_string_equal(explain(&m4), "ask");
    permission_fini();
}

static int reviews;
static int fake_review(void *ud, const cJSON *request, char **reason)
{
    (void)ud;
    reviews++;
    const cJSON *subj = cJSON_GetObjectItemCaseSensitive(request, "subjects");
    char *text = cJSON_PrintUnformatted(subj);
    int verdict = strstr(text, "evil") ? 0 : strstr(text, "unsure") ? -1 : 1;
    free(text);
    *reason = strdup(verdict ? "plugin says fine" : "plugin says no");
    return verdict;
}

static void test_reviewer_service(void **state)
{
    (void)state;
    static vt_reviewer_v1 rv = {sizeof(vt_reviewer_v1), fake_review, NULL};
    assert_int_equal(services_publish("permissions.reviewer", &rv), 0);
    write_file(".vtcode/agents/a3.md", "---\npermissions:\n  default: auto\n---\n");
    init_ok("", "a3");
    char *msg;
    call ok = EXEC("echo fine");
    call bad = EXEC("echo evil");
    call unsure = EXEC("echo unsure");
    reviews = 0;
    assert_int_equal(check(&ok, NULL, &msg), 0);
    assert_int_equal(check(&bad, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "plugin says no"));
    free(msg);
    /* the plugin passes: no command, no sampling -> ask -> no prompt */
    assert_int_equal(check(&unsure, NULL, &msg), VT_ERR_DENIED);
    free(msg);
    assert_int_equal(reviews, 3);
    services_clear();
    permission_fini();
}

/* A provider tool's call reaches the reviewer as an MCP request. */
static cJSON *seen_request;
static int capture_review(void *ud, const cJSON *request, char **reason)
{
    (void)ud;
    cJSON_Delete(seen_request);
    seen_request = cJSON_Duplicate(request, 1);
    *reason = strdup("captured");
    return 1;
}

static char *seen_sample;
static int capture_sample(void *ctx, const char *sys, const char *user, const char *hint,
                          char **answer)
{
    (void)ctx;
    (void)hint;
    assert_non_null(strstr(sys, "mcp_tool_call"));
    free(seen_sample);
    seen_sample = strdup(user);
    *answer = strdup("ALLOW fine");
    return 0;
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_GetStringValue(v);
}

static void test_review_mcp_request(void **state)
{
    (void)state;
    static vt_reviewer_v1 rv = {sizeof(vt_reviewer_v1), capture_review, NULL};
    assert_int_equal(services_publish("permissions.reviewer", &rv), 0);
    write_file(".vtcode/agents/a4.md", "---\npermissions:\n  default: auto\n---\n");
    init_ok("", "a4");
    char *msg = NULL;
    call mcp = {"mcp__github__create_issue", VT_EFFECT_NETWORK, NULL,
                "{\"title\":\"t\",\"max_output_tokens\":100}",
                {VT_SUBJECT_MCP_SERVER, VT_SUBJECT_MCP_TOOL}, {"github", "create.issue"}};
    assert_int_equal(check(&mcp, NULL, &msg), 0);
    free(msg);
    assert_non_null(seen_request);
    assert_string_equal(str_at(seen_request, "kind", NULL), "mcp_tool_call");
    assert_string_equal(str_at(seen_request, "mcp", "server"), "github");
    assert_string_equal(str_at(seen_request, "mcp", "tool"), "create.issue");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(seen_request, "mcp"), "arguments");
    char *text = cJSON_PrintUnformatted(a);
    assert_string_equal(text, "{\"title\":\"t\"}"); /* vthost's own budget is not the server's */
    free(text);
    assert_string_equal(str_at(seen_request, "tool", NULL), "mcp__github__create_issue");

    /* any other call is a plain tool call, with no mcp object */
    call exec = EXEC("echo fine");
    assert_int_equal(check(&exec, NULL, &msg), 0);
    free(msg);
    assert_string_equal(str_at(seen_request, "kind", NULL), "tool_call");
    assert_null(cJSON_GetObjectItemCaseSensitive(seen_request, "mcp"));
    /* a server without a tool name is not an MCP request */
    call half = {"mcp__x__y", VT_EFFECT_NETWORK, NULL, NULL, {VT_SUBJECT_MCP_SERVER}, {"x"}};
    assert_int_equal(check(&half, NULL, &msg), 0);
    free(msg);
    assert_string_equal(str_at(seen_request, "kind", NULL), "tool_call");
    services_clear();
    permission_fini();

    /* the client's model (sampling) sees the same request, probe included */
    init_ok("[permissions.auto]\nprobe_model = \"p\"\n", "a4");
    frontend fe = {0};
    fe.sample = capture_sample;
    assert_int_equal(check(&mcp, &fe, &msg), 0);
    free(msg);
    assert_non_null(seen_sample);
    cJSON *sent = cJSON_Parse(seen_sample);
    assert_non_null(sent);
    assert_string_equal(str_at(sent, "kind", NULL), "mcp_tool_call");
    assert_string_equal(str_at(sent, "mcp", "tool"), "create.issue");
    cJSON_Delete(sent);
    free(seen_sample);
    seen_sample = NULL;
    cJSON_Delete(seen_request);
    seen_request = NULL;
    permission_fini();
}

static void test_workdir_relative_rules(void **state)
{
    (void)state;
    init_ok("[permissions]\ndeny = [\"apply_patch(build/**)\", \"apply_patch(*.lock)\"]\n"
            "allow = [\"apply_patch(./gen/*.c)\"]\n", NULL);
    call a = {"apply_patch", VT_EFFECT_MUTATES_WORKSPACE, NULL, NULL,
              {VT_SUBJECT_CWD, VT_SUBJECT_PATH_EDIT}, {"pkg", "build/x.o"}};
    assert_string_equal(explain(&a), "deny");
    call b = {"apply_patch", VT_EFFECT_MUTATES_WORKSPACE, NULL, NULL,
              {VT_SUBJECT_CWD, VT_SUBJECT_PATH_EDIT}, {"pkg", "gen/a.c"}};
    assert_string_equal(explain(&b), "allow");
    call c = PATCH("gen/a.c"); /* cwd = workspace root: also matches */
    assert_string_equal(explain(&c), "allow");
    call d = {"apply_patch", VT_EFFECT_MUTATES_WORKSPACE, NULL, NULL,
              {VT_SUBJECT_CWD, VT_SUBJECT_PATH_EDIT}, {"pkg", "../gen/a.c"}};
    assert_string_equal(explain(&d), "ask"); /* above the working directory */
    call e = {"apply_patch", VT_EFFECT_MUTATES_WORKSPACE, NULL, NULL,
              {VT_SUBJECT_CWD, VT_SUBJECT_PATH_EDIT}, {"pkg", "deep/x/Cargo.lock"}};
    assert_string_equal(explain(&e), "deny");
    permission_fini();
}

/* A pattern that backtracks without end hits the match limit: deny and
 * ask count it as a match, allow does not. */
static void test_pathological_patterns(void **state)
{
    (void)state;
    write_file(".vtcode/agents/open2.md", "---\npermissions:\n  default: allow\n---\n");
    write_file(".vtcode/agents/closed2.md",
               "---\npermissions:\n  default: deny\n"
               "  allow: [\"exec_command(* * * * * * * * * * * * * * y)\"]\n---\n");
    init_ok("[permissions]\nask = [\"exec_command(* * * * * * * * * * * * * * x)\"]\n",
            "open2");
    char *long_cmd = malloc(8001);
    for (int i = 0; i < 4000; i++)
        memcpy(long_cmd + 2 * i, "a ", 2);
    long_cmd[7999] = 'z';
    long_cmd[2] = 'x'; /* present, so the searches cannot skip */
    long_cmd[4] = 'y';
    long_cmd[8000] = 0;
    call c = {"exec_command", VT_EFFECT_EXECUTES, NULL, NULL, {VT_SUBJECT_COMMAND}, {long_cmd}};
    assert_string_equal(explain(&c), "ask"); /* not the agent's default allow */
    permission_fini();
    init_ok("", "closed2");
    assert_string_equal(explain(&c), "deny"); /* the allow did not apply */
    permission_fini();
    free(long_cmd);
}

/* A per-call agent that cannot load denies that call (with the reason)
 * and leaves the process's agent alone. */
static void test_per_call_agent_errors(void **state)
{
    (void)state;
    write_file(".vtcode/agents/broken.md", "---\npermissions:\n  default: never\n---\n");
    init_ok("", NULL);
    char *msg;
    call c = EXEC("ls");
    c.agent = "broken";
    assert_int_equal(check(&c, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "broken.md:3"));
    free(msg);
    c.agent = "no-such-agent";
    assert_int_equal(check(&c, NULL, &msg), VT_ERR_DENIED);
    assert_non_null(strstr(msg, "no-such-agent"));
    free(msg);
    assert_string_equal(explain(&c), "deny");
    c.agent = "default"; /* no file: the embedded agent */
    assert_string_equal(explain(&c), "ask");
    c.agent = NULL;
    assert_string_equal(explain(&c), "ask");
    permission_fini();
}

/* Global options before git's subcommand: the deny rule sees through
 * every one git knows, an unknown one makes deny and ask rules try each
 * later word, and an allow rule is never widened by one. */
static void test_global_options(void **state)
{
    (void)state;
    init_ok("[permissions]\nallow = [\"exec_command(git status *)\", "
            "\"exec_command(docker ps *)\"]\n"
            "deny = [\"exec_command(git push *)\"]\nask = [\"exec_command(docker rm *)\"]\n",
            NULL);
    static const char *const denied[] = {
        "git --shallow-file /dev/null push",  "git --attr-source=HEAD push",
        "git --attr-source HEAD push origin", "git --bogus-opt value push",
        "git -c a=b --no-pager push origin",  "git --super-prefix x/ push",
        "git --bogus -C . push --force",      "git '--work-tree=/a b' push",
        "git '--bogus=a b' push",             "git $OPT /dev/null push",
    };
    for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
        call c = EXEC(denied[i]);
        if (strcmp(explain(&c), "deny") != 0)
            fail_msg("%s: %s, not deny", denied[i], decision);
    }
    call a = EXEC("docker --bogus v rm c");
    assert_string_equal(explain(&a), "ask");
    call s = EXEC("git --no-pager status");
    assert_string_equal(explain(&s), "ask"); /* allow rules see the text as written */
    call b = EXEC("git --bogus push");
    assert_string_equal(explain(&b), "deny");
    call b2 = EXEC("git --bogus status");
    assert_string_not_equal(explain(&b2), "allow");
    call d = EXEC("docker --bogus ps");
    assert_string_not_equal(explain(&d), "allow");
    call ok = EXEC("git status --short");
    assert_string_equal(explain(&ok), "allow");
    permission_fini();
}

int main(void)
{
    snprintf(ws, sizeof ws, "/tmp/perm_engine_XXXXXX");
    if (!mkdtemp(ws))
        return 1;
    char *real = realpath(ws, NULL);
    snprintf(ws, sizeof ws, "%s", real);
    free(real);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_untrusted_layer),
        cmocka_unit_test(test_prompts),
        cmocka_unit_test(test_review_command),
        cmocka_unit_test(test_review_sampling_and_exceptions),
        cmocka_unit_test(test_explain_is_dry),
        cmocka_unit_test(test_concurrent_counters),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_audit),
        cmocka_unit_test(test_domains_and_tool_patterns),
        cmocka_unit_test(test_reviewer_service),
        cmocka_unit_test(test_review_mcp_request),
        cmocka_unit_test(test_workdir_relative_rules),
        cmocka_unit_test(test_pathological_patterns),
        cmocka_unit_test(test_per_call_agent_errors),
        cmocka_unit_test(test_global_options),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
