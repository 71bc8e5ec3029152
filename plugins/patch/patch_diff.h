/* Unified diff text (3 lines of context) from a line-level edit script,
 * bounded to a head and a tail. */
#ifndef VTPATCH_DIFF_H
#define VTPATCH_DIFF_H

#include <stddef.h>

#define DIFF_CONTEXT 3
#define DIFF_MAX_LINES 160

typedef struct diff_item {
    char op;             /* ' ' kept, '-' removed, '+' added */
    unsigned char noeol; /* '-' of a last line that had no line ending */
    const char *s;       /* line content without its ending (borrowed) */
    size_t len;
} diff_item;

typedef struct diff_out {
    char *content; /* malloc'd, "" when nothing changed */
    size_t additions, deletions;
    size_t omitted; /* lines cut from the middle */
    int truncated;
} diff_out;

/* Render `items` (the whole file in order).  Returns 0 or VT_ERR_NOMEM. */
int diff_render(const diff_item *items, size_t n, diff_out *out);
void diff_out_free(diff_out *d);

#endif
