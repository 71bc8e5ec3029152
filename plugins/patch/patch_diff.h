/* Unified diff text (3 lines of context) from a line-level edit script,
 * bounded to a head and a tail. */
#ifndef VTPATCH_DIFF_H
#define VTPATCH_DIFF_H

#include <stddef.h>

#define DIFF_CONTEXT 3
#define DIFF_MAX_LINES 160

typedef struct diff_item {
    char op;             /* ' ' kept, '-' removed, '+' added, '=' skipped */
    unsigned char noeol; /* '-' of a last line that had no line ending */
    const char *s;       /* line content without its ending (borrowed) */
    size_t len;          /* for '=': how many kept lines it stands for */
} diff_item;

typedef struct diff_out {
    char *content; /* malloc'd, "" when nothing changed */
    size_t additions, deletions;
    size_t omitted; /* lines cut from the middle */
    int truncated;
} diff_out;

/* Render `items` (the whole file in order).  A '=' item stands for a run
 * of kept lines too far from any change to be shown: it must have at
 * least DIFF_CONTEXT ' ' items on each side that touches a change, so
 * that no hunk reaches into it.  Returns 0 or VT_ERR_NOMEM. */
int diff_render(const diff_item *items, size_t n, diff_out *out);
void diff_out_free(diff_out *d);

#endif
