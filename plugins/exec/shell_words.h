/* The names the shell treats itself, whatever PATH holds: its reserved
 * words and built-ins (POSIX's, bash's, dash's), one table with what
 * each name is.  The splitter (what a text runs, what changes later
 * commands) and the direct run of plain words (plainexec.h) both read
 * it, so they cannot disagree about what is the shell's. */
#ifndef VTHOST_EXEC_SHELL_WORDS_H
#define VTHOST_EXEC_SHELL_WORDS_H

#include <stddef.h>

enum shell_word_flag {
    SW_KEYWORD = 1 << 0,   /* a reserved word: syntax, never a program */
    SW_FRAME = 1 << 1,     /* a keyword around commands: the words after it are a command's */
    SW_SPECIAL = 1 << 2,   /* a POSIX special built-in */
    SW_BUILTIN = 1 << 3,   /* another built-in, run by the shell whatever PATH holds */
    SW_DIFFERS = 1 << 4,   /* a program of the same name behaves otherwise (echo, pwd) */
    SW_BARE_SAME = 1 << 5, /* its program behaves the same only without arguments */
    SW_REDEFINES = 1 << 6, /* changes what later commands run (alias, trap, source...) */
    SW_DECLARES = 1 << 7,  /* sets variables its arguments name (export, read -v...) */
    SW_BASH = 1 << 8,      /* bash's own: dash runs a program of that name */
    SW_DASH = 1 << 9       /* dash's own: bash runs a program of that name */
};

typedef struct shell_word_entry {
    const char *name;
    unsigned flags; /* shell_word_flag bits */
} shell_word_entry;

/* The table, sorted by strcmp (for its test to walk). */
extern const shell_word_entry shell_words[];
extern const size_t shell_words_n;

/* The flags of `w`, or 0 when no shell here treats it itself. */
unsigned shell_word(const char *w);

/* 1 when `w` as a command's first word means the shell's own thing (a
 * keyword or a built-in) rather than the program PATH finds, given
 * whether the command has arguments (`true` alone is the same either
 * way; `true --help` is not). */
int shell_word_own(const char *w, int with_args);

#endif
