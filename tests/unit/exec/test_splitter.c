/* Table tests of the exec plugin's command splitter, hostile inputs
 * included: every case lists exactly what the permission engine sees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitter.h"
#include <vthost/plugin.h>

typedef struct split_case {
    const char *cmd;
    /* one line per item: C command, O opaque, W write target, R read */
    const char *want;
} split_case;

static const split_case CASES[] = {
    /* operators */
    {"git status", "C:git status"},
    {"git commit -m x && rm -rf ~", "C:git commit -m x\nC:rm -rf ~"},
    {"a || b; c | d & e", "C:a\nC:b\nC:c\nC:d\nC:e"},
    {"a\nb\n\nc", "C:a\nC:b\nC:c"},
    {"a |& b", "C:a\nC:b"},
    {"  ls   -la  ", "C:ls -la"},
    {"", ""},
    {";;", ""},
    /* quoting normalised */
    {"echo \"hello world\" 'it''s' x\\ y", "C:echo 'hello world' its 'x y'"},
    {"echo \"a;b\" 'c|d' \"\"", "C:echo 'a;b' 'c|d' ''"},
    {"echo \"don't\"", "C:echo 'don'\\''t'"},
    {"g\"it\" st'atus'", "C:git status"},
    {"a\\\nb", "C:ab"},
    /* assignments */
    {"FOO=1 BAR=\"a b\" make -j2", "C:FOO=1 'BAR=a b' make -j2"},
    {"X=1", ""},
    {"X=$(rm -rf /)", "C:rm -rf /"},
    /* substitutions */
    {"echo $(whoami) `date`", "C:whoami\nC:date\nC:echo $(whoami) `date`"},
    {"echo \"$(id -u)\"", "C:id -u\nC:echo \"$(id -u)\""},
    {"echo $(echo $(rm x))", "C:rm x\nC:echo $(rm x)\nC:echo $(echo $(rm x))"},
    {"echo `echo \\`rm y\\``", "C:rm y\nC:echo `rm y`\nC:echo `echo \\`rm y\\``"},
    {"diff <(sort a) <(sort b)", "C:sort a\nC:sort b\nC:diff <(sort a) <(sort b)"},
    {"tee >(gzip > x.gz)", "W:x.gz\nC:gzip\nC:tee >(gzip > x.gz)"},
    {"echo ${x:-$(id)}", "C:id\nC:echo ${x:-$(id)}"},
    {"echo $((1+2))", "O:arithmetic evaluation\nC:echo $((1+2))"},
    {"echo $(( $(rm z) ))", "O:arithmetic evaluation\nO:command substitution inside arithmetic\nC:echo $(( $(rm z) ))"},
    /* groups and subshells */
    {"(cd sub && make) || { echo fail; exit 1; }",
     "C:cd sub\nC:make\nC:echo fail\nC:exit 1"},
    {"( (a) )", "C:a"},
    /* compound commands */
    {"if [ -f x ]; then echo yes; else rm x; fi", "C:[ -f x ]\nC:echo yes\nC:rm x"},
    {"for f in $(ls); do rm \"$f\"; done", "O:loop\nC:ls\nC:rm \"$f\""},
    {"while read l; do echo $l; done < input", "O:loop\nC:read l\nC:echo $l\nR:input"},
    {"[[ -f a && -f b ]] && echo ok", "C:[[ -f a && -f b ]]\nC:echo ok"},
    {"f() { rm -rf /; }; f", "O:function definition\nC:rm -rf /\nC:f"},
    {"function g { ls; }", "O:function definition\nC:ls"},
    {"! grep -q x f", "C:grep -q x f"},
    {"time -p make", "C:make"},
    {"(( i++ )); echo", "O:arithmetic evaluation\nC:echo"},
    {"((echo a) ); ((b))", "C:echo a\nO:arithmetic evaluation"},
    {"((a)|(b))", "C:a\nC:b"},
    {"case $x in a) rm x;; esac", "O:case $x in a) rm x;; esac"},
    /* sh -c scripts */
    {"bash -c 'rm -rf / ; echo hi'", "C:rm -rf /\nC:echo hi"},
    {"sh -lc \"git status && git push\"",
     "O:interactive or login shell (reads start-up files)\nC:git status\nC:git push"},
    {"/bin/bash -e -c 'sh -c \"id\"'", "C:id"},
    {"bash script.sh arg", "C:bash script.sh arg"},
    {"sudo bash -c 'rm -rf /'", "C:sudo bash -c 'rm -rf /'\nC:rm -rf /"},
    {"timeout 5 sh -ec 'make; make test'", "C:timeout 5 sh -ec 'make; make test'\nC:make\nC:make test"},
    {"find . -name x -exec sh -c 'rm \"$1\"' _ {} \\;",
     "C:find . -name x -exec sh -c 'rm \"$1\"' _ '{}' ';'\nC:rm \"$1\""},
    {"xargs -n1 bash -c \"$CMD\"", "C:xargs -n1 bash -c \"$CMD\"\nO:xargs -n1 bash -c \"$CMD\""},
    {"which bash sh", "C:which bash sh"},
    /* a shell reading text out of sight: opaque, and a command of its own */
    {"curl -s x | sh", "C:curl -s x\nO:sh\nC:sh"},
    {"bash -c \"$X\"", "O:bash -c \"$X\"\nC:bash -c \"$X\""},
    {"bash -c", "O:bash -c\nC:bash -c"},
    {"bash -c 'echo \"open'", "O:echo \"open"},
    /* redirections */
    {"echo hi > out.txt 2>&1", "W:out.txt\nC:echo hi"},
    {"sort < in.txt >> out.txt", "R:in.txt\nW:out.txt\nC:sort"},
    {"cmd &> log; cmd2 >& err; cmd3 2>/dev/null", "W:log\nC:cmd\nW:err\nC:cmd2\nC:cmd3"},
    {"exec 3>fd3.txt", "W:fd3.txt\nC:exec"},
    {"cmd >| 'my file'", "W:'my file'\nC:cmd"},
    {"cmd > \"$HOME/x\"", "W:\"$HOME/x\"\nC:cmd"},
    {"cmd {fd}>locked", "W:locked\nC:cmd"},
    {"cmd <<< \"$(id)\"", "C:id\nC:cmd"},
    {"cat <<EOF > f.txt\nhello $(rm -rf /)\nEOF\nls",
     "W:f.txt\nC:cat\nO:expansion inside a here-document\nC:ls"},
    {"cat <<'EOF'\n$(nope)\nEOF\npwd", "C:cat\nC:pwd"},
    {"cat <<-X\n\t; rm a\n\tX\necho", "C:cat\nC:echo"},
    /* comments */
    {"echo hi # rm -rf /", "C:echo hi"},
    {"echo a#b", "C:echo 'a#b'"},
    /* opaque */
    {"eval \"$x\"", "O:eval \"$x\"\nC:eval \"$x\""},
    {"$CMD arg", "O:$CMD arg"},
    {"\"$(which rm)\" -rf /", "C:which rm\nO:\"$(which rm)\" -rf /"},
    {"$'\\x72m' -rf /", "O:$'\\x72m' -rf /"},
    {"r* -rf .", "O:r* -rf ."},
    /* hostile: unparsable input is opaque as a whole */
    {"echo \"unterminated", "O:echo \"unterminated"},
    {"echo 'open", "O:echo 'open"},
    {"echo $(ls", "C:ls\nO:echo $(ls"},
    {"a ) b", "C:a\nO:a ) b"},
    {"echo `unclosed", "O:echo `unclosed"},
    {"ls > ", "O:ls > "},
    /* constructs that are opaque on purpose (run-time enforcement judges them) */
    {"ls <<$X\nrm x\n$X", "O:here-document whose delimiter holds an expansion\nC:ls"},
    {"echo $[x]", "O:arithmetic evaluation\nC:echo $[x]"},
    {"echo ${a[x]}", "O:parameter expansion the splitter does not model\nC:echo ${a[x]}"},
    {"echo ${PWD:x:1}", "O:parameter expansion the splitter does not model\nC:echo ${PWD:x:1}"},
    {"echo ${!x}", "O:parameter expansion the splitter does not model\nC:echo ${!x}"},
    {"echo ${x@P}", "O:parameter expansion the splitter does not model\nC:echo ${x@P}"},
    {"echo ${x:-a} ${#x} ${x%%.c}", "C:echo ${x:-a} ${#x} ${x%%.c}"},
    {"ls \r# ; rm x", "O:control character in the command text\nC:ls"},
    {"for x do rm x; done", "O:loop"},
    {"HOME=/tmp/h git status", "O:assignment to a variable that changes what programs do\nC:HOME=/tmp/h git status"},
    {"export PATH=./bin:$PATH; ls", "O:builtin that changes what later commands run\nC:export PATH=./bin:$PATH\nC:ls"},
    {"BASH_ENV=x bash -c ls", "O:assignment to a variable that changes what programs do\nC:ls"},
    {"bash -ic ls", "O:interactive or login shell (reads start-up files)\nC:ls"},
    {"{rm,-f,x}", "O:{rm,-f,x}"},
    {"alias ls=rm; ls x", "O:builtin that changes what later commands run\nC:alias ls=rm\nC:ls x"},
    {"x=1 && ${", "O:parameter expansion the splitter does not model\nO:x=1 && ${"},
    {"a && && b", "C:a\nC:b"},
    {"cat <<EOF\nnever closed", "C:cat"},
};

static char *render(const split_list *l)
{
    size_t n = 1;
    for (size_t k = 0; k < l->count; k++)
        n += strlen(l->items[k].text) + 3;
    char *s = calloc(1, n), *p = s;
    for (size_t k = 0; k < l->count; k++)
        p += sprintf(p, "%s%c:%s", k ? "\n" : "", "?COWR"[l->items[k].kind],
                     l->items[k].text);
    return s;
}

static void test_table(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t k = 0; k < sizeof CASES / sizeof CASES[0]; k++) {
        split_list l = {0};
        assert_int_equal(split_shell(CASES[k].cmd, &l), 0);
        char *got = render(&l);
        if (strcmp(got, CASES[k].want)) {
            fprintf(stderr, "case %zu [%s]\n  want: [%s]\n  got:  [%s]\n", k,
                    CASES[k].cmd, CASES[k].want, got);
            failures++;
        }
        free(got);
        split_list_free(&l);
    }
    assert_int_equal(failures, 0);
}

static int has_opaque(const split_list *l)
{
    for (size_t k = 0; k < l->count; k++)
        if (l->items[k].kind == SPLIT_OPAQUE)
            return 1;
    return 0;
}

/* Nesting beyond any sensible depth is opaque, not a stack overflow. */
static void test_deep_nesting(void **state)
{
    (void)state;
    const char *forms[][2] = {{"$(", ")"},      {"( ", ")"},   {"{ ", ";}"},
                              {"`", "`"},       {"${x:-", "}"}, {"\"$(", ")\""},
                              {"$((", "))"},    {"<(", ")"},    {"${x:-\"$(", ")\"}"},
                              {"bash -c '", "'"}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        size_t depth = 5000;
        size_t ol = strlen(forms[f][0]), cl = strlen(forms[f][1]);
        char *s = malloc(depth * (ol + cl) + 16), *p = s;
        for (size_t k = 0; k < depth; k++, p += ol)
            memcpy(p, forms[f][0], ol);
        p += sprintf(p, "rm x");
        for (size_t k = 0; k < depth; k++, p += cl)
            memcpy(p, forms[f][1], cl);
        *p = 0;
        split_list l = {0};
        int rc = split_shell(s, &l);
        free(s);
        assert_int_equal(rc, 0);
        if (f == 2) { /* groups do not nest the reader: seen through */
            assert_int_equal(l.count, 1);
            assert_string_equal(l.items[0].text, "rm x");
        } else {
            assert_true(has_opaque(&l));
        }
        split_list_free(&l);
    }
}

/* Long inputs, many words, many commands, arbitrary bytes: no crash, and
 * every command found. */
static void test_large_and_binary(void **state)
{
    (void)state;
    size_t n = 20000;
    char *s = malloc(n * 6 + 1), *p = s;
    for (size_t k = 0; k < n; k++)
        p += sprintf(p, "a%zu;", k % 10);
    split_list l = {0};
    assert_int_equal(split_shell(s, &l), 0);
    assert_int_equal(l.count, n);
    split_list_free(&l);

    p = s;
    p += sprintf(p, "rm");
    for (size_t k = 0; k < 3000; k++)
        p += sprintf(p, " f");
    assert_int_equal(split_shell(s, &l), 0);
    assert_int_equal(l.count, 1);
    assert_int_equal(l.items[0].kind, SPLIT_COMMAND);
    split_list_free(&l);
    free(s);

    /* every byte value and shell metacharacter mix, pseudo-randomly */
    const char alphabet[] = "ab $`'\"\\(){}[]<>|&;#\n\t*?=~!-c\x80\xff";
    uint32_t seed = 12345;
    char buf[64];
    for (int round = 0; round < 20000; round++) {
        size_t len = (seed >> 8) % 60;
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            buf[k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        buf[len] = 0;
        seed = seed * 1103515245u + 12345u;
        assert_int_equal(split_shell(buf, &l), 0);
        split_list_free(&l);
    }
}

/* split_words: the words as the shell takes them ("L:" literal, "E:"
 * expands), or VT_ERR_INVALID ("!"). */
static void test_words(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"cp x vtcode.toml", "L:cp|L:x|L:vtcode.toml|"},
        {"tee 'a b' \"vt\"code.toml a\\ b", "L:tee|L:a b|L:vtcode.toml|L:a b|"},
        {"'it'\\''s'", "L:it's|"},
        {"x~y ~/x '~/x'", "L:x~y|E:|L:~/x|"},
        {"$X ${X} \"$X\" $'a' `x` $(x) *.c [ab] {a,b} '{a,}'",
         "E:|E:|E:|E:|E:|E:|E:*.c|E:[ab]|E:{a,b}|E:{a,}|"},
        {"  spaced   out  ", "L:spaced|L:out|"},
        {"", ""},
        {"a; b", "!"},
        {"a | b", "!"},
        {"'open", "!"},
        {"a\rb", "!"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        split_list l = {0};
        char got[512] = "";
        int rc = split_words(cases[i].text, &l);
        if (rc == VT_ERR_INVALID)
            snprintf(got, sizeof got, "!");
        for (size_t k = 0; rc == 0 && k < l.count; k++) {
            size_t n = strlen(got);
            snprintf(got + n, sizeof got - n, "%s:%s|", l.items[k].kind == SPLIT_WORD ? "L" : "E",
                     l.items[k].kind == SPLIT_WORD || strpbrk(l.items[k].text, "*[{") ?
                     l.items[k].text : "");
        }
        if (strcmp(got, cases[i].want))
            fail_msg("split_words(%s): got %s, want %s", cases[i].text, got, cases[i].want);
        split_list_free(&l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_large_and_binary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
