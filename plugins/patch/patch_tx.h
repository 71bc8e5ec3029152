/* One patch as one transaction: plan (parse, check every path, compute
 * every new content) without writing, then commit all or nothing. */
#ifndef VTPATCH_TX_H
#define VTPATCH_TX_H

#include <stddef.h>
#include <sys/types.h>
#include "patch_apply.h"
#include "patch_parse.h"

typedef struct tx_entry {
    const patch_op *op;
    char *path; /* normalised workspace-relative path */
    char *dest; /* normalised move destination, or NULL */
    char *old;  /* content before (Update, Delete) */
    size_t old_len;
    mode_t mode;
    file_result res; /* new content and diff */
    int changed;     /* the tree changes (content, existence, place) */
} tx_entry;

typedef struct tx {
    int root; /* workspace directory descriptor (borrowed) */
    patch p;
    tx_entry *e;
    size_t n;
} tx;

/* Parse and check paths only (no filesystem access): for the subjects
 * hook.  On success t->e[i].path/dest are set. */
int tx_parse(tx *t, const char *text, size_t len, char **err);
/* tx_parse, then read the files and compute every result. */
int tx_plan(tx *t, int root, const char *text, size_t len, char **err);
/* Write everything; on any failure restore the tree and return the
 * error (naming whether the restore was complete). */
int tx_commit(tx *t, char **err);
void tx_free(tx *t);

#endif
