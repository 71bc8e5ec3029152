#include "shell_words.h"

#include <stdlib.h>
#include <string.h>

/* Checked against bash 5 and dash 0.5 (`type`); sorted by strcmp. */
const shell_word_entry shell_words[] = {
    {"!", SW_KEYWORD | SW_FRAME},
    {".", SW_SPECIAL | SW_REDEFINES},
    {":", SW_SPECIAL},
    {"[", SW_BUILTIN | SW_DIFFERS},
    {"[[", SW_KEYWORD | SW_BASH},
    {"]]", SW_KEYWORD | SW_BASH},
    {"alias", SW_BUILTIN | SW_REDEFINES},
    {"bg", SW_BUILTIN},
    {"bind", SW_BUILTIN | SW_BASH},
    {"break", SW_SPECIAL},
    {"builtin", SW_BUILTIN | SW_BASH},
    {"caller", SW_BUILTIN | SW_BASH},
    {"case", SW_KEYWORD},
    {"cd", SW_BUILTIN},
    {"chdir", SW_BUILTIN | SW_DASH},
    {"command", SW_BUILTIN},
    {"compgen", SW_BUILTIN | SW_BASH},
    {"complete", SW_BUILTIN | SW_BASH},
    {"compopt", SW_BUILTIN | SW_BASH},
    {"continue", SW_SPECIAL},
    {"coproc", SW_KEYWORD | SW_BASH | SW_REDEFINES},
    {"declare", SW_BUILTIN | SW_BASH | SW_DECLARES},
    {"dirs", SW_BUILTIN | SW_BASH},
    {"disown", SW_BUILTIN | SW_BASH},
    {"do", SW_KEYWORD | SW_FRAME},
    {"done", SW_KEYWORD | SW_FRAME},
    {"echo", SW_BUILTIN | SW_DIFFERS},
    {"elif", SW_KEYWORD | SW_FRAME},
    {"else", SW_KEYWORD | SW_FRAME},
    {"enable", SW_BUILTIN | SW_BASH | SW_REDEFINES},
    {"esac", SW_KEYWORD},
    {"eval", SW_SPECIAL},
    {"exec", SW_SPECIAL},
    {"exit", SW_SPECIAL},
    {"export", SW_SPECIAL | SW_DECLARES},
    {"false", SW_BUILTIN | SW_BARE_SAME},
    {"fc", SW_BUILTIN | SW_BASH},
    {"fg", SW_BUILTIN},
    {"fi", SW_KEYWORD | SW_FRAME},
    {"for", SW_KEYWORD},
    {"function", SW_KEYWORD | SW_BASH},
    {"getopts", SW_BUILTIN},
    {"hash", SW_BUILTIN | SW_REDEFINES},
    {"help", SW_BUILTIN | SW_BASH},
    {"history", SW_BUILTIN | SW_BASH},
    {"if", SW_KEYWORD | SW_FRAME},
    {"in", SW_KEYWORD},
    {"jobs", SW_BUILTIN},
    {"kill", SW_BUILTIN},
    {"let", SW_BUILTIN | SW_BASH | SW_REDEFINES},
    {"local", SW_BUILTIN | SW_DECLARES},
    {"logout", SW_BUILTIN | SW_BASH},
    {"mapfile", SW_BUILTIN | SW_BASH},
    {"popd", SW_BUILTIN | SW_BASH},
    {"printf", SW_BUILTIN | SW_DIFFERS | SW_DECLARES},
    {"pushd", SW_BUILTIN | SW_BASH},
    {"pwd", SW_BUILTIN | SW_DIFFERS},
    {"read", SW_BUILTIN | SW_DECLARES},
    {"readarray", SW_BUILTIN | SW_BASH},
    {"readonly", SW_SPECIAL | SW_DECLARES},
    {"return", SW_SPECIAL},
    {"select", SW_KEYWORD | SW_BASH},
    {"set", SW_SPECIAL},
    {"shift", SW_SPECIAL},
    {"shopt", SW_BUILTIN | SW_BASH | SW_REDEFINES},
    {"source", SW_BUILTIN | SW_BASH | SW_REDEFINES},
    {"suspend", SW_BUILTIN | SW_BASH},
    {"test", SW_BUILTIN | SW_DIFFERS},
    {"then", SW_KEYWORD | SW_FRAME},
    /* dash has no `time`: it runs /usr/bin/time, still not a plain word */
    {"time", SW_KEYWORD | SW_FRAME | SW_BASH},
    {"times", SW_SPECIAL},
    {"trap", SW_SPECIAL | SW_REDEFINES},
    {"true", SW_BUILTIN | SW_BARE_SAME},
    {"type", SW_BUILTIN},
    {"typeset", SW_BUILTIN | SW_BASH | SW_DECLARES},
    {"ulimit", SW_BUILTIN},
    {"umask", SW_BUILTIN},
    {"unalias", SW_BUILTIN},
    {"unset", SW_SPECIAL | SW_REDEFINES},
    {"until", SW_KEYWORD | SW_FRAME},
    {"wait", SW_BUILTIN},
    {"while", SW_KEYWORD | SW_FRAME},
    {"{", SW_KEYWORD | SW_FRAME},
    {"}", SW_KEYWORD | SW_FRAME},
};
const size_t shell_words_n = sizeof shell_words / sizeof *shell_words;

static int by_name(const void *key, const void *entry)
{
    return strcmp(key, ((const shell_word_entry *)entry)->name);
}

unsigned shell_word(const char *w)
{
    const shell_word_entry *e =
        bsearch(w, shell_words, shell_words_n, sizeof *shell_words, by_name);
    return e ? e->flags : 0;
}

int shell_word_own(const char *w, int with_args)
{
    unsigned f = shell_word(w);
    return f && (!(f & SW_BARE_SAME) || with_args);
}
