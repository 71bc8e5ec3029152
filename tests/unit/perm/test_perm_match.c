/* Matching primitives: command patterns, wrapper look-through, path
 * globs and normalisation, domains, rule grammar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perm_match.h"
#include "perm_rules.h"
#include "../../support/perm_tools.h"

static int cmd(const char *pat, const char *text)
{
    pcre2_code *re;
    char *key = NULL, *err = NULL;
    assert_int_equal(perm_compile_command(pat, &re, &key, &err), 0);
    pcre2_match_data *md = rx_match_data_create(1);
    char *norm = perm_command_normalise(text);
    int m = perm_regex_match(re, norm, md);
    free(norm);
    rx_match_data_free(md);
    rx_code_free(re);
    free(key);
    return m;
}

static void test_command_patterns(void **state)
{
    (void)state;
    assert_true(cmd("cargo check *", "cargo check"));
    assert_true(cmd("cargo check *", "cargo check --all"));
    assert_false(cmd("cargo check *", "cargo checkout"));
    assert_false(cmd("cargo check *", "cargo"));
    assert_true(cmd("git status", "git status"));
    assert_true(cmd("git status", "git   status"));
    assert_false(cmd("git status", "git status --short"));
    assert_false(cmd("git status", "git statusx"));
    assert_true(cmd("git * --force", "git push origin main --force"));
    assert_true(cmd("*", "anything at all / with slashes"));
    assert_true(cmd("ls *", "ls /etc/passwd"));
    assert_false(cmd("ls *", "lsof"));
    assert_true(cmd("echo a.b", "echo a.b"));
    assert_false(cmd("echo a.b", "echo aXb")); /* '.' is literal */
    assert_true(cmd("rm -rf *", "rm -rf /"));
    assert_false(cmd("rm -rf *", "rm -r -f /"));
}

static void test_command_keys(void **state)
{
    (void)state;
    pcre2_code *re;
    char *key = NULL, *err = NULL;
    assert_int_equal(perm_compile_command("git commit *", &re, &key, &err), 0);
    assert_string_equal(key, "git");
    free(key);
    rx_code_free(re);
    assert_int_equal(perm_compile_command("* --force", &re, &key, &err), 0);
    assert_null(key);
    rx_code_free(re);
    assert_int_not_equal(perm_compile_command("   ", &re, &key, &err), 0);
    assert_non_null(err);
    free(err);
}

static int has_variant(const char *text, const char *want)
{
    char **v;
    size_t n;
    char *norm = perm_command_normalise(text);
    assert_int_equal(perm_command_variants(norm, &v, &n), 0);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], want) == 0)
            found = 1;
    perm_strings_free(v, n);
    free(norm);
    return found;
}

static void test_wrappers(void **state)
{
    (void)state;
    assert_true(has_variant("FOO=1 BAR=2 rm -rf /", "rm -rf /"));
    assert_true(has_variant("env -i PATH=/x rm -rf /", "rm -rf /"));
    assert_true(has_variant("timeout -s KILL 5 rm -rf /", "rm -rf /"));
    assert_true(has_variant("nice -n 10 rm -rf /", "rm -rf /"));
    assert_true(has_variant("nohup rm -rf /", "rm -rf /"));
    assert_true(has_variant("time -p rm -rf /", "rm -rf /"));
    assert_true(has_variant("command rm -rf /", "rm -rf /"));
    assert_true(has_variant("stdbuf -o0 rm -rf /", "rm -rf /"));
    assert_true(has_variant("xargs rm -rf", "rm -rf"));
    assert_false(has_variant("xargs -0 rm -rf", "rm -rf"));
    assert_true(has_variant("/bin/rm -rf /", "rm -rf /"));
    assert_true(has_variant("env timeout 5 nice rm -rf /", "rm -rf /"));
    assert_true(has_variant("A=1 env B=2 /usr/bin/git push", "git push"));
    /* wrappers that run a command string or another program */
    assert_true(has_variant("su -c 'rm -f victim'", "rm -f victim"));
    assert_true(has_variant("su root -c 'rm -f victim'", "rm -f victim"));
    assert_true(has_variant("su -c 'ls; rm -f victim'", "rm -f victim"));
    assert_true(has_variant("runuser -u root -- rm victim", "rm victim"));
    assert_true(has_variant("chroot / rm victim", "rm victim"));
    assert_true(has_variant("sudo -u root rm victim", "rm victim"));
    assert_true(has_variant("doas -u root rm victim", "rm victim"));
    assert_true(has_variant("setpriv --reuid 0 --nnp rm victim", "rm victim"));
    assert_true(has_variant("unshare -r -R / rm victim", "rm victim"));
    assert_true(has_variant("nsenter -t 1 -m rm victim", "rm victim"));
    assert_true(has_variant("flock /tmp/l rm victim", "rm victim"));
    assert_true(has_variant("flock -w 3 /tmp/l -c 'rm victim'", "rm victim"));
    assert_true(has_variant("chrt -f 1 rm victim", "rm victim"));
    assert_true(has_variant("taskset 0x1 rm victim", "rm victim"));
    assert_true(has_variant("ionice -c 3 rm victim", "rm victim"));
    assert_true(has_variant("setsid -f rm victim", "rm victim"));
    assert_true(has_variant("watch -n 1 rm victim", "rm victim"));
    assert_true(has_variant("env -S 'rm victim'", "rm victim"));
    /* global options before a subcommand */
    assert_true(has_variant("git -C . push origin", "git push origin"));
    assert_true(has_variant("git -c k=v --no-pager push", "git push"));
    assert_true(has_variant("/usr/bin/git --git-dir=.git --work-tree . push", "git push"));
    assert_true(has_variant("sudo git -C x push", "git push"));
    assert_true(has_variant("cargo +nightly publish", "cargo publish"));
    assert_true(has_variant("npm --prefix x publish", "npm publish"));
    assert_true(has_variant("docker --context prod -H tcp://h rm c", "docker rm c"));
    assert_true(has_variant("kubectl --context prod -n x delete pod", "kubectl delete pod"));
}

/* git's options that take a value are in the table, and an option it
 * does not know cannot hide the subcommand from deny and ask rules. */
static void test_global_options_fail_closed(void **state)
{
    (void)state;
    assert_true(has_variant("git --shallow-file /dev/null push", "git push"));
    assert_true(has_variant("git --attr-source HEAD push origin", "git push origin"));
    assert_true(has_variant("git --attr-source=HEAD push", "git push"));
    assert_true(has_variant("git --config-env a.b=ENV push", "git push"));
    assert_true(has_variant("git --exec-path=/usr/lib/git-core push", "git push"));
    assert_true(has_variant("git -c a=b --no-pager push origin", "git push origin"));
    assert_true(has_variant("git -- push", "git push"));
    /* unknown: every later word is tried as the subcommand */
    assert_true(has_variant("git --bogus-opt value push", "git push"));
    assert_true(has_variant("git --bogus-opt value push origin main", "git push origin main"));
    assert_true(has_variant("git --bogus -C dir push", "git dir push"));
    assert_true(has_variant("git --bogus -C dir push", "git push"));
    assert_true(has_variant("git --a x --b y push -f", "git push -f"));
    assert_true(has_variant("docker --bogus v rm c", "docker rm c"));
    assert_true(has_variant("kubectl --bogus v delete pod x", "kubectl delete pod x"));
    assert_true(has_variant("cargo --bogus v publish", "cargo publish"));
    assert_true(has_variant("npm --bogus v publish", "npm publish"));
    /* a quoted option is still one (the exec plugin quotes a word with a
     * blank), and an expansion may be any option */
    assert_true(has_variant("git '--work-tree=/a b' push", "git push"));
    assert_true(has_variant("git '--bogus=a b' x push", "git push"));
    assert_true(has_variant("git \"--shallow-file\" /dev/null push", "git push"));
    assert_true(has_variant("git $OPT /dev/null push", "git push"));
    assert_true(has_variant("env '--unset=A B' rm victim", "rm victim"));
    /* known options alone: no guessing */
    assert_false(has_variant("git -C dir push origin", "git origin"));
    assert_false(has_variant("git --no-pager log push", "git push"));
}

static void test_claude_prefix(void **state)
{
    (void)state;
    pcre2_code *re;
    char *key = NULL, *err = NULL;
    assert_int_equal(perm_compile_command("rm:*", &re, &key, &err), 0);
    assert_string_equal(key, "rm");
    pcre2_match_data *md = rx_match_data_create(1);
    assert_true(perm_regex_match(re, "rm -f x", md) > 0);
    assert_true(perm_regex_match(re, "rm", md) > 0);
    assert_false(perm_regex_match(re, "rmdir x", md) > 0);
    rx_match_data_free(md);
    rx_code_free(re);
    free(key);
}

static int path(const char *spec, const char *abs_or_rel)
{
    perm_path_base base;
    pcre2_code *re;
    char *key = NULL, *err = NULL;
    int rc = perm_compile_path(spec, "/ws", "/home/u", &base, &re, &key, &err);
    if (rc) {
        fail_msg("compile %s: %s", spec, err);
    }
    pcre2_match_data *md = rx_match_data_create(1);
    int m = perm_regex_match(re, abs_or_rel, md);
    rx_match_data_free(md);
    rx_code_free(re);
    free(key);
    return m;
}

static void test_path_patterns(void **state)
{
    (void)state;
    assert_true(path("/docs/**", "/ws/docs/a.md"));
    assert_true(path("/docs/**", "/ws/docs/x/y/z.md"));
    assert_false(path("/docs/**", "/ws/docsx/a.md"));
    assert_false(path("/docs/**", "/other/docs/a.md"));
    assert_true(path("/docs", "/ws/docs/a.md")); /* parents match */
    assert_true(path("/src/*.c", "/ws/src/a.c"));
    assert_false(path("/src/*.c", "/ws/src/sub/a.c")); /* * stays in a segment */
    assert_true(path("/src/**/*.c", "/ws/src/sub/deep/a.c"));
    assert_true(path("/src/**/*.c", "/ws/src/a.c"));
    assert_true(path("/a?c", "/ws/abc"));
    assert_false(path("/a?c", "/ws/a/c"));
    assert_true(path("/[ab]x", "/ws/bx"));
    assert_false(path("/[!ab]x", "/ws/bx"));
    assert_true(path("//etc/**", "/etc/passwd"));
    assert_false(path("//etc/**", "/ws/etc/passwd"));
    assert_true(path("~/.ssh/**", "/home/u/.ssh/id_rsa"));
    assert_true(path("~", "/home/u/x"));
    /* relative patterns match paths relative to the call's directory */
    assert_true(path("*.pem", "keys/deep/server.pem"));
    assert_true(path("*.pem", "server.pem"));
    assert_true(path("./build/", "build/out.o"));
    assert_false(path("build/x", "sub/build/x")); /* slash: anchored */
    assert_true(path("node_modules", "a/node_modules/b/c.js"));
    assert_true(path("a.b", "a.b"));
    assert_false(path("a.b", "axb"));
}

static void test_path_normalise(void **state)
{
    (void)state;
    char *s = perm_path_lexical("/ws", "a/../../etc/passwd");
    assert_string_equal(s, "/etc/passwd");
    free(s);
    s = perm_path_lexical("/ws/sub", "./x//y/.");
    assert_string_equal(s, "/ws/sub/x/y");
    free(s);
    s = perm_path_lexical("/ws", "/../..");
    assert_string_equal(s, "/");
    free(s);
    assert_string_equal(perm_path_below("/ws", "/ws/a/b"), "a/b");
    assert_string_equal(perm_path_below("/ws", "/ws"), "");
    assert_null(perm_path_below("/ws", "/wsx/a"));
    assert_string_equal(perm_path_below("/", "/a"), "a");

    char dir[] = "/tmp/perm_match_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char link[512], target[512];
    snprintf(link, sizeof link, "%s/out", dir);
    assert_int_equal(symlink("/etc", link), 0);
    s = perm_path_resolved(dir, "out/newfile");
    assert_string_equal(s, "/etc/newfile");
    free(s);
    s = perm_path_resolved(dir, "missing/dir/file");
    snprintf(target, sizeof target, "%s/missing/dir/file", dir);
    char *real = realpath(dir, NULL);
    char expect[600];
    snprintf(expect, sizeof expect, "%s/missing/dir/file", real);
    assert_string_equal(s, expect);
    free(s);
    free(real);
    unlink(link);
    rmdir(dir);
}

static void test_domains(void **state)
{
    (void)state;
    assert_true(perm_domain_match("example.com", "example.com"));
    assert_true(perm_domain_match("example.com", "API.Example.COM"));
    assert_true(perm_domain_match("example.com", "example.com."));
    assert_false(perm_domain_match("example.com", "badexample.com"));
    assert_false(perm_domain_match("example.com", "example.com.evil.org"));
}

static void test_rule_grammar(void **state)
{
    (void)state;
    perm_rule_env env = {"/ws", "/home/u", &test_tools};
    perm_rule *r;
    char *err;
    assert_int_equal(perm_rule_parse("bash(git status)", "f:1", &env, &r, &err), 0);
    assert_string_equal(r->tool, "exec_command");
    assert_int_equal(r->spec, PSPEC_COMMAND);
    perm_rule_free(r);
    assert_int_equal(perm_rule_parse("edit(/docs/**)", "f:1", &env, &r, &err), 0);
    assert_string_equal(r->tool, "apply_patch");
    assert_int_equal(r->spec, PSPEC_PATH);
    perm_rule_free(r);
    assert_int_equal(perm_rule_parse("read", "f:1", &env, &r, &err), 0);
    assert_string_equal(r->tool, "code_search");
    perm_rule_free(r);
    assert_int_equal(perm_rule_parse("WebFetch(domain:Example.com)", "f:1", &env, &r, &err), 0);
    assert_int_equal(r->tool_match, PTOOL_ANY);
    assert_string_equal(r->domain, "example.com");
    perm_rule_free(r);
    assert_int_equal(perm_rule_parse("mcp__context7", "f:1", &env, &r, &err), 0);
    assert_true(perm_rule_tool_matches(r, "mcp__context7__search-docs"));
    assert_true(perm_rule_tool_matches(r, "mcp__context7"));
    assert_false(perm_rule_tool_matches(r, "mcp__context7x"));
    perm_rule_free(r);
    assert_int_equal(perm_rule_parse("mcp__context7__*", "f:1", &env, &r, &err), 0);
    assert_true(perm_rule_tool_matches(r, "mcp__context7__a"));
    assert_false(perm_rule_tool_matches(r, "mcp__context7"));
    perm_rule_free(r);
    assert_int_equal(perm_rule_parse("exec_command(*)", "f:1", &env, &r, &err), 0);
    assert_true(r->broad);
    perm_rule_free(r);
    static const char *const bad[] = {"exec_command(", "exec_command()", "a b", "",
                                      "ex*ec", "mcp__x(y)", "WebFetch(example.com)",
                                      "x(domain:)", "x(domain:a/b)", NULL};
    for (const char *const *b = bad; *b; b++) {
        err = NULL;
        if (perm_rule_parse(*b, "f:1", &env, &r, &err) == 0)
            fail_msg("rule '%s' should not parse", *b);
        assert_non_null(err);
        free(err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_command_patterns), cmocka_unit_test(test_command_keys),
        cmocka_unit_test(test_wrappers),
        cmocka_unit_test(test_global_options_fail_closed),
        cmocka_unit_test(test_claude_prefix),         cmocka_unit_test(test_path_patterns),
        cmocka_unit_test(test_path_normalise),   cmocka_unit_test(test_domains),
        cmocka_unit_test(test_rule_grammar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
