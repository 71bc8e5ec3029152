/* Policy-integrity primitives: shell words (literal or opaque), policy
 * paths and known writers, closest spellings and near misses, rules that
 * hold several rules, broad rules by meaning, tool-name checks, agent
 * names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perm_agent.h"
#include "perm_config.h"
#include "perm_protect.h"
#include "perm_rules.h"
#include "perm_strict.h"
#include "services.h"
#include "splitter_service.h"
#include "../../support/perm_tools.h"

static char ws[] = "/tmp/vthost-unit-integrity-XXXXXX";

static int literal(const char *raw, const char *want)
{
    char *lit = NULL;
    int r = perm_shell_word(raw, &lit);
    if (r == 1 && want)
        assert_string_equal(lit, want);
    free(lit);
    return r;
}

/* Without the exec plugin's splitter (no service): only a word of plain
 * characters is literal; a quoted or expanding one is opaque. */
static void test_shell_words_without_splitter(void **state)
{
    (void)state;
    services_clear();
    assert_int_equal(literal("out.txt", "out.txt"), 1);
    assert_int_equal(literal("dir/x-1.toml", "dir/x-1.toml"), 1);
    static const char *const opaque[] = {"'a b'", "\"vt\"code.toml", "a\\ b", "$X", "~/x",
                                         "*.toml", "{a,b}", "a b", "`x`"};
    for (size_t i = 0; i < sizeof opaque / sizeof *opaque; i++) {
        char *lit = NULL;
        assert_int_equal(perm_shell_word(opaque[i], &lit), 0);
        free(lit);
    }
}

static void with_splitter(void)
{
    services_clear();
    assert_int_equal(services_publish(VT_SPLITTER_SERVICE, (void *)splitter_service()), 0);
}

/* Read by the splitter itself (the service the exec plugin publishes). */
static void test_shell_words(void **state)
{
    (void)state;
    with_splitter();
    assert_int_equal(literal("out.txt", "out.txt"), 1);
    assert_int_equal(literal("'a b'", "a b"), 1);
    assert_int_equal(literal("'it'\\''s'", "it's"), 1);
    assert_int_equal(literal("\"vt\"code.toml", "vtcode.toml"), 1);
    assert_int_equal(literal("a\\ b", "a b"), 1);
    static const char *const opaque[] = {
        "$X", "${X}", "$HOME/x", "~/x", "~root/x", ".gi?/config", ".g*/config", "[ab]",
        "$'.git/config'", "`echo x`", "$(echo x)", "\"$X\"", "{a,b}", "'{a,}'", "a b",
    };
    for (size_t i = 0; i < sizeof opaque / sizeof *opaque; i++) {
        char *lit = NULL;
        assert_int_equal(perm_shell_word(opaque[i], &lit), 0);
        free(lit);
    }
    assert_int_equal(literal("x~y", "x~y"), 1); /* not a leading tilde */
}

static perm_settings st;

static void setup_policy(void)
{
    memset(&st, 0, sizeof st);
    char p[256];
    snprintf(p, sizeof p, "%s/vtcode.toml", ws);
    assert_int_equal(perm_policy_add(&st, p), 0);
    snprintf(p, sizeof p, "%s/.vtcode", ws);
    assert_int_equal(perm_policy_add(&st, p), 0);
}

static const char *writes(const char *cmd, int *opaque)
{
    const char *hit = NULL;
    int o = 0;
    assert_int_equal(perm_command_writes(&st, ws, cmd, &hit, &o), 0);
    if (opaque)
        *opaque = o;
    return hit;
}

static void test_writers(void **state)
{
    (void)state;
    with_splitter();
    setup_policy();
    static const char *const hits[] = {
        "tee vtcode.toml", "tee -a ./vtcode.toml", "cp x vtcode.toml", "mv vtcode.toml x",
        "mv x .vtcode/agents/a.md", "sed -i s/a/b/ vtcode.toml", "sed -Ei s/a/b/ vtcode.toml",
        "sed --in-place=.bak s/a/b/ vtcode.toml", "perl -pi -e s/a/b/ vtcode.toml",
        "dd if=x of=vtcode.toml", "truncate -s0 vtcode.toml", "ln -sf x vtcode.toml",
        "install -m 644 x vtcode.toml", "rm -f vtcode.toml", "touch .vtcode/agents/x.md",
        "cp -t .vtcode/agents x.md", "cp --target-directory=.vtcode x", "chmod 666 vtcode.toml",
        "env A=1 tee vtcode.toml", "timeout 5 /usr/bin/tee vtcode.toml", "sudo tee vtcode.toml",
        "cp d/vtcode.toml .", "cp -r d/. .", "tee sub/../vtcode.toml", "rsync -a d/ .vtcode/",
    };
    for (size_t i = 0; i < sizeof hits / sizeof *hits; i++) {
        const char *h = writes(hits[i], NULL);
        if (!h)
            fail_msg("no policy hit for: %s", hits[i]);
    }
    static const char *const clean[] = {
        "tee out.txt", "cat vtcode.toml", "sed -n p vtcode.toml", "cp vtcode.toml backup.toml",
        "grep x vtcode.toml", "cp d/x.md .", "dd if=vtcode.toml of=copy", "ls .vtcode",
    };
    for (size_t i = 0; i < sizeof clean / sizeof *clean; i++)
        if (writes(clean[i], NULL))
            fail_msg("policy hit for a reader: %s", clean[i]);
    int o = 0;
    assert_null(writes("tee $OUT", &o));
    assert_int_equal(o, 1);
    assert_null(writes("cp x ~/y", &o));
    assert_int_equal(o, 1);
    perm_settings_free(&st);
}

static void test_closest(void **state)
{
    (void)state;
    static const char *const keys[] = {"allow", "ask", "deny", "non_interactive"};
    assert_string_equal(perm_closest("denny", keys, 4), "deny");
    assert_string_equal(perm_closest("Deny", keys, 4), "deny");
    assert_string_equal(perm_closest("alow", keys, 4), "allow");
    assert_string_equal(perm_closest("noninteractive", keys, 4), "non_interactive");
    assert_null(perm_closest("completely_different", keys, 4));
    static const char *const tools[] = {"exec_command", "apply_patch", "bash", "Bash"};
    assert_string_equal(perm_closest("BASH", tools, 4), "Bash");
    assert_string_equal(perm_closest("exec_comand", tools, 4), "exec_command");
    assert_true(perm_near_miss("permission", "permissions"));
    assert_true(perm_near_miss("Permissions", "permissions"));
    assert_true(perm_near_miss("permisions", "permissions"));
    assert_false(perm_near_miss("permissions", "permissions"));
    assert_false(perm_near_miss("tools", "permissions"));
    assert_true(perm_near_miss("Trust", "trust"));
    assert_false(perm_near_miss("rust", "trust"));
}

static perm_rule *rule(const char *text, char **err)
{
    perm_rule_env env = {ws, "/home/u", &test_tools};
    perm_rule *r = NULL;
    *err = NULL;
    perm_rule_parse(text, "t:1", &env, &r, err);
    return r;
}

static void test_several_and_broad(void **state)
{
    (void)state;
    static const char *const several[] = {
        "exec_command(rm *), exec_command(curl *)", "exec_command(rm *) exec_command(x)",
        "exec_command(rm *);apply_patch", "exec_command(rm *)\nexec_command(x)",
        "exec_command, apply_patch", "apply_patch code_search",
    };
    for (size_t i = 0; i < sizeof several / sizeof *several; i++) {
        char *err;
        perm_rule *r = rule(several[i], &err);
        assert_null(r);
        assert_non_null(strstr(err, "more than one rule"));
        free(err);
    }
    static const char *const one[] = {"exec_command(echo \")\")", "exec_command(echo (a) b)",
                                      "apply_patch(/src/**)", "exec_command(git log --format=%H)"};
    for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
        char *err;
        perm_rule *r = rule(one[i], &err);
        if (!r)
            fail_msg("%s: %s", one[i], err ? err : "?");
        perm_rule_free(r);
    }
    static const struct { const char *text; int broad; } b[] = {
        {"exec_command", 1},        {"exec_command(*)", 1},  {"exec_command(**)", 1},
        {"exec_command(* *)", 1},   {"exec_command(* * *)", 1}, {"exec_*", 1},
        {"*", 1},                   {"e*", 1},               {"bash", 1},
        {"Bash(*)", 1},             {"exec_command(git *)", 0}, {"exec_command(*.sh)", 0},
        {"exec_command(* --help)", 0}, {"apply_patch", 0},   {"mcp__x__*", 0},
        {"exec_command(*;*)", 0},
    };
    for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
        char *err;
        perm_rule *r = rule(b[i].text, &err);
        assert_non_null(r);
        if (r->broad != b[i].broad)
            fail_msg("%s: broad %d, want %d", b[i].text, r->broad, b[i].broad);
        perm_rule_free(r);
    }
}

static void test_tool_names(void **state)
{
    (void)state;
    static const char *const names[] = {"exec_command", "apply_patch", "search_tools"};
    /* rc: 0 accepted, -1 refused (a typo), 1 absent (warned, inert) */
    static const struct {
        const char *text;
        int rc, deny;
        const char *want;
    } c[] = {
        {"exec_command(ls *)", 0, 0, NULL},
        {"bash(ls *)", 0, 0, NULL},
        {"Edit(/x)", 0, 0, NULL},
        {"mcp__srv__tool", 0, 0, NULL},
        {"mcp__srv", 0, 0, NULL},
        {"WebFetch(domain:x.org)", 0, 0, NULL},
        {"exec_*", 0, 0, NULL},
        {"exec_comand(ls)", -1, 0, "did you mean \"exec_command\""},
        {"BASH(ls)", -1, 0, "did you mean \"Bash\""},
        {"Exec_Command", -1, 0, "did you mean \"exec_command\""},
        {"apply_pach", -1, 1, "did you mean \"apply_patch\""},
        {"search_tool", -1, 0, "did you mean \"search_tools\""},
        {"WebFetch", -1, 0, "WebFetch(domain:HOST)"},
        {"nosuch*", 1, 0, "matches no installed tool"},
        {"hello", 1, 0, "rule \"hello\" names no installed tool; it does nothing"},
        {"code_search", 1, 0, "(vthost-plugin-code-search provides it)"},
        {"rm", 1, 1, "denies nothing until a tool \"rm\" is installed (to deny the command, "
                     "write exec_command(rm *))"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char *err = NULL, *why = NULL;
        perm_rule *r = rule(c[i].text, &err);
        if (!r)
            fail_msg("%s: %s", c[i].text, err ? err : "?");
        int rc = perm_rule_check_tool(r, names, 3, &test_tools, c[i].deny, &why);
        int kind = rc == PERM_TOOL_ABSENT ? 1 : rc < 0 ? -1 : 0;
        if (kind != c[i].rc)
            fail_msg("%s: rc %d, want %d (%s)", c[i].text, rc, c[i].rc, why ? why : "");
        if (c[i].want && (!why || !strstr(why, c[i].want)))
            fail_msg("%s: %s, want %s", c[i].text, why ? why : "(none)", c[i].want);
        free(why);
        perm_rule_free(r);
    }
}

static void test_agent_names(void **state)
{
    (void)state;
    const char *why;
    static const char *const ok[] = {"reviewer", "a.b", "x-1_y", "R2"};
    static const char *const bad[] = {"", ".hidden", "a/b", "a\\b", "a..b", "x.md", "X.MD",
                                      "..", "a b", "é"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        assert_true(perm_agent_name_valid(ok[i], &why));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (perm_agent_name_valid(bad[i], &why))
            fail_msg("accepted agent name '%s'", bad[i]);
}

int main(void)
{
    if (!mkdtemp(ws))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shell_words_without_splitter),
        cmocka_unit_test(test_shell_words),   cmocka_unit_test(test_writers),
        cmocka_unit_test(test_closest),       cmocka_unit_test(test_several_and_broad),
        cmocka_unit_test(test_tool_names),    cmocka_unit_test(test_agent_names),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(ws);
    return rc;
}
