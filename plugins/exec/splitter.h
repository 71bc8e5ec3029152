/* Shell command splitter: the simple commands a piece of shell text would
 * run, as the permission engine and the anti-blind-editing guard need
 * them.  Pure: no I/O, no host calls, so it is unit-testable on its own. */
#ifndef VTHOST_EXEC_SPLITTER_H
#define VTHOST_EXEC_SPLITTER_H

#include <stddef.h>

typedef enum split_kind {
    SPLIT_COMMAND = 1, /* one simple command, normalised text */
    SPLIT_OPAQUE = 2,  /* something the splitter cannot see into */
    SPLIT_WRITE = 3,   /* an output redirect target (path edited) */
    SPLIT_READ = 4     /* an input redirect source (path read) */
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
void split_list_free(split_list *l);

#endif
