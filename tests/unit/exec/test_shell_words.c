/* The table of the shell's own words (shell_words.h) gives, for every
 * use, the answer the hand-kept lists it replaced gave: the splitter's
 * words it reads past (SKIP_WORDS), its built-ins that change later
 * commands (REDEFINE) or set the variables they name (DECLARE), and the
 * first words a command of plain words may not start with (plainexec's
 * shell_own, `true` and `false` only without arguments).  The lists
 * below are those lists as they stood. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "shell_words.h"

static const char *const SKIP_WORDS[] = {"{",  "}",  "!",    "if",    "then",  "else", "elif",
                                         "fi", "do", "done", "while", "until", "time", NULL};
static const char *const REDEFINE[] = {"unset", "alias", "enable", "shopt",  "source", ".",
                                       "hash",  "trap",  "let",    "coproc", NULL};
static const char *const DECLARE[] = {"export",   "declare", "typeset", "local",
                                      "readonly", "printf",  "read",    NULL};
static const char *const shell_own[] = {
    "!",        "{",        "}",         "case",   "do",    "done",    "elif",    "else",
    "esac",     "fi",       "for",       "if",     "in",    "then",    "until",   "while",
    "break",    ":",        "continue",  ".",      "eval",  "exec",    "exit",    "export",
    "readonly", "return",   "set",       "shift",  "times", "trap",    "unset",   "alias",
    "bg",       "cd",       "command",   "fc",     "fg",    "getopts", "hash",    "jobs",
    "kill",     "read",     "type",      "ulimit", "umask", "unalias", "wait",    "source",
    "declare",  "typeset",  "local",     "let",    "shopt", "enable",  "builtin", "caller",
    "compgen",  "complete", "compopt",   "bind",   "dirs",  "disown",  "help",    "history",
    "logout",   "mapfile",  "readarray", "popd",   "pushd", "suspend", "coproc",  "select",
    "function", "time",     "[[",        "]]",     "chdir", "echo",    "printf",  "test",
    "[",        "pwd",      NULL};
static const char *const bare_only[] = {"true", "false", NULL};

/* Words no list held: programs, near misses, case and spelling. */
static const char *const others[] = {"",     "ls",    "make", "env",    "sudo",  "nohup", "If",
                                     "ECHO", "[[[",   "]",    "time2",  "{}",    "!!",    "sh",
                                     "bash", "xargs", "nice", "stdbuf", "local ", "..",   NULL};

static int in_list(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(w, *list))
            return 1;
    return 0;
}

/* plainexec's old test of a command's first word. */
static int old_own(const char *w, int with_args)
{
    return in_list(w, shell_own) || (in_list(w, bare_only) && with_args);
}

static void check_word(const char *w)
{
    unsigned f = shell_word(w);
    if (!!(f & SW_FRAME) != in_list(w, SKIP_WORDS))
        fail_msg("'%s': the splitter's reading past it changed", w);
    if (!!(f & SW_REDEFINES) != in_list(w, REDEFINE))
        fail_msg("'%s': redefines-later-commands changed", w);
    if (!!(f & SW_DECLARES) != in_list(w, DECLARE))
        fail_msg("'%s': declares-variables changed", w);
    for (int args = 0; args <= 1; args++)
        if (shell_word_own(w, args) != old_own(w, args))
            fail_msg("'%s' (%s arguments): the shell's own or not changed", w,
                     args ? "with" : "without");
}

static void test_same_answers(void **state)
{
    (void)state;
    const char *const *lists[] = {SKIP_WORDS, REDEFINE, DECLARE, shell_own, bare_only, others};
    for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
        for (const char *const *w = lists[l]; *w; w++)
            check_word(*w);
}

/* Nothing in the table the old lists did not hold, and the order the
 * lookup's binary search relies on. */
static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < shell_words_n; i++) {
        const char *w = shell_words[i].name;
        if (!in_list(w, shell_own) && !in_list(w, bare_only))
            fail_msg("'%s' is new to the table", w);
        if (i && strcmp(shell_words[i - 1].name, w) >= 0)
            fail_msg("'%s' is out of order", w);
        assert_int_equal(shell_word(w), shell_words[i].flags);
        /* every word is a keyword or a built-in of one kind */
        assert_true(shell_words[i].flags & (SW_KEYWORD | SW_SPECIAL | SW_BUILTIN));
    }
    size_t n = 0;
    for (const char *const *w = shell_own; *w; w++)
        n++;
    assert_int_equal(shell_words_n, n + 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_answers),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
