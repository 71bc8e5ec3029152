/* Shell command splitter: the simple commands a piece of shell text would
 * run, as the permission engine and the anti-blind-editing guard need
 * them.  Pure: no I/O, no host calls, so it is unit-testable on its own. */
#ifndef VTHOST_EXEC_SPLITTER_H
#define VTHOST_EXEC_SPLITTER_H

#include <stddef.h>

typedef enum split_kind {
    SPLIT_COMMAND = 1,     /* one simple command, normalised text */
    SPLIT_OPAQUE = 2,      /* something the splitter cannot see into */
    SPLIT_WRITE = 3,       /* an output redirect target (path edited) */
    SPLIT_READ = 4,        /* an input redirect source (path read) */
    SPLIT_WORD = 5,        /* split_words: a word the shell takes as written */
    SPLIT_WORD_EXPANDS = 6 /* split_words: a word the shell would expand */
} split_kind;

typedef struct split_item {
    split_kind kind;
    char *text; /* malloc'd, owned by the list */
} split_item;

typedef struct split_list {
    split_item *items;
    size_t count, cap;
} split_list;

/* Split `cmd` and append what it finds to *out (initialise it zeroed).
 * Never fails on hostile input: what cannot be parsed is reported as
 * SPLIT_OPAQUE.  Returns 0, or VT_ERR_NOMEM. */
int split_shell(const char *cmd, split_list *out);

/* 1 when an opaque item changes the environment or start-up files of what
 * runs later (sensitive assignments, export/alias/source..., rc-reading
 * shells): run-time checks see the program but not its configuration, so
 * such a text is never pre-approved by allow rules. */
int split_opaque_environment(const char *text);
/* The words of `text`, shell words separated by blanks (a simple command
 * as split_shell renders it, or a redirection target), appended to *out
 * in order: their text after quote removal, as SPLIT_WORD when the shell
 * takes the word as written, SPLIT_WORD_EXPANDS when it would expand it
 * (parameters, command or arithmetic substitution, $'...', globs, braces,
 * a leading tilde).  VT_ERR_INVALID when `text` is not plain words (an
 * operator, an unclosed quote, a control character), VT_ERR_NOMEM. */
int split_words(const char *text, split_list *out);

void split_list_free(split_list *l);

#endif
