/* Seeking a chunk's old lines in a file: exact, then ignoring trailing
 * whitespace, then surrounding whitespace, then surrounding whitespace
 * with Unicode punctuation folded to ASCII.  The first pass that finds
 * the lines anywhere from the cursor wins. */
#ifndef VTPATCH_MATCH_H
#define VTPATCH_MATCH_H

#include <stddef.h>
#include "patch_text.h"

typedef struct match_span {
    const char *s;
    size_t len;
} match_span;

typedef struct matcher {
    const text_lines *file;
    char **fold; /* lazily folded file lines (pass 4) */
    size_t *fold_len;
    /* Positions tried by linear scans so far; past a few passes over the
     * file, the context index is built and the first three passes look
     * up candidates instead of scanning. */
    size_t scanned;
    /* The context index: the file's line numbers grouped by a hash of
     * the line with its surrounding whitespace trimmed (equal under any
     * of the first three passes means equal trimmed), ascending within a
     * bucket: bucket b is pos[start[b] .. start[b + 1]). */
    size_t *ix_start, *ix_pos;
    size_t ix_mask;
} matcher;

void matcher_init(matcher *m, const text_lines *file);
void matcher_free(matcher *m);

/* Find `n` pattern lines at or after line `from`; with `eof` only where
 * they end the file.  Returns 1 and *at when found, 0 when not, negative
 * on allocation failure. */
int matcher_seek(matcher *m, size_t from, const match_span *pat, size_t n, int eof, size_t *at);

#endif
