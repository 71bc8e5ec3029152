/* The repository neutraliser's config reader: what git init writes stays
 * untouched, every key off the allow-list goes (however its section and
 * key are spelt), and what the strict reader does not understand (a key
 * on a section's line, continuation lines, dotted sections, unknown
 * escapes, NUL bytes) replaces the whole file by a minimal one.  The
 * rewritten text is read again to check that it is stable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <string.h>

#include "gitneutral.h"

static const char INIT[] = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
                           "\tbare = false\n\tlogallrefupdates = true\n";

static int run(const char *text, size_t len, char **out, char **removed)
{
    return gitneutral_config(text, len, out, removed);
}

static void test_init_config_untouched(void **state)
{
    (void)state;
    char *out, *removed;
    assert_int_equal(run(INIT, strlen(INIT), &out, &removed), 0);
    assert_null(out);
    assert_null(removed);
    static const char clone[] =
        "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n"
        "\turl = https://example.org/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
        "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"
        "[user]\n\temail = a@b ; a comment\n# [core] fsmonitor = x\n";
    assert_int_equal(run(clone, strlen(clone), &out, &removed), 0);
}

static void test_program_keys_removed(void **state)
{
    (void)state;
    static const char t[] =
        "[core]\n\tbare = false\n\tfsmonitor = touch x\n\tHooksPath = /tmp/h\n"
        "[CoRe]\n\tPAGER = sh -c x\n\tsshCommand = x\n\teditor = x\n"
        "[alias]\n\tst = !touch x\n\tco = checkout\n"
        "[include]\n\tpath = ../evil\n[includeIf \"gitdir:/\"]\n\tpath = ../evil\n"
        "[filter \"lfs\"]\n\tclean = x\n[diff \"x\"]\n\ttextconv = x\n"
        "[credential]\n\thelper = x\n[remote \"o\"]\n\turl = ext::sh -c x\n"
        "\tuploadpack = x\n[remote \"ok\"]\n\turl = ssh://[::1]/r\n"
        "[submodule \"s\"]\n\tupdate = !x\n\turl = https://e/s\n";
    char *out, *removed;
    assert_int_equal(run(t, strlen(t), &out, &removed), 1);
    static const char *const gone[] = {
        "core.fsmonitor",   "core.hookspath",      "core.pager",
        "core.sshcommand",  "core.editor",         "alias.st",
        "alias.co",         "include.path",        "includeif.gitdir:/.path",
        "filter.lfs.clean", "diff.x.textconv",     "credential.helper",
        "remote.o.url",     "remote.o.uploadpack", "submodule.s.update"};
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        if (!strstr(removed, gone[i]))
            fail_msg("%s not removed: %s", gone[i], removed);
    for (const char *k = "fsmonitor\0hookspath\0pager\0ext::\0!\0"; *k; k += strlen(k) + 1)
        if (strstr(out, k))
            fail_msg("%s kept in:\n%s", k, out);
    assert_non_null(strstr(out, "url = \"ssh://[::1]/r\""));
    assert_non_null(strstr(out, "url = \"https://e/s\""));
    assert_non_null(strstr(out, "bare = \"false\""));
    /* the rewritten file is stable */
    char *out2, *removed2;
    assert_int_equal(run(out, strlen(out), &out2, &removed2), 0);
    free(out);
    free(removed);
}

static void test_not_understood_replaced(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "[core] fsmonitor = touch x\n",                  /* a key on the section's line */
        "[core]\n\tbare = false\\\n\n\tfsmonitor = x\n", /* continuation */
        "[core.x]\n\tfoo = 1\n",                         /* dotted section */
        "[core]\n\tpager = \"a\\qb\"\n",                 /* unknown escape */
        "[core]\n\tpager = \"unterminated\n",
        "\tfsmonitor = x\n", /* a key before any section */
        "[core \"x]\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out, *removed;
        if (run(bad[i], strlen(bad[i]), &out, &removed) != 1)
            fail_msg("not replaced: %s", bad[i]);
        assert_string_equal(out, INIT);
        assert_non_null(strstr(removed, "whole file"));
        free(out);
        free(removed);
    }
    static const char nul[] = "[core]\n\tbare = false\n\0[core]\n\tfsmonitor = x\n";
    char *out, *removed;
    assert_int_equal(run(nul, sizeof nul - 1, &out, &removed), 1);
    assert_string_equal(out, INIT);
    free(out);
    free(removed);
}

static void test_values_as_git_reads_them(void **state)
{
    (void)state;
    /* quotes, escapes and inner spaces kept as git reads them; the
     * rewrite quotes the value */
    static const char t[] = "[user]\n\tname = A \"B  \\\"C\\\"\" D ; c\n\tsigningkey = x\n";
    char *out, *removed;
    assert_int_equal(run(t, strlen(t), &out, &removed), 1);
    assert_string_equal(out, "[user]\n\tname = \"A B  \\\"C\\\" D\"\n");
    assert_string_equal(removed, "user.signingkey");
    free(out);
    free(removed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_config_untouched),
        cmocka_unit_test(test_program_keys_removed),
        cmocka_unit_test(test_not_understood_replaced),
        cmocka_unit_test(test_values_as_git_reads_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
