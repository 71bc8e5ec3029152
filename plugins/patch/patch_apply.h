/* New file contents and their diffs, computed in memory before anything
 * is written. */
#ifndef VTPATCH_APPLY_H
#define VTPATCH_APPLY_H

#include <stddef.h>
#include "patch_diff.h"
#include "patch_parse.h"

typedef struct file_result {
    char *data; /* new content (malloc'd); NULL for a deletion */
    size_t size;
    diff_out diff;
} file_result;

/* Apply op's chunks to `old`.  Line endings are kept per line; added
 * lines take the file's first ending; the result ends with an ending.
 * On a mismatch returns VT_ERR_INVALID and a malloc'd *err naming
 * `path`, the chunk and its patch line. */
int apply_update(const patch *p, const patch_op *op, const char *path, const char *old,
                 size_t old_len, file_result *out, char **err);
/* The content of an Add File op (lines joined with "\n"). */
int apply_add(const patch *p, const patch_op *op, file_result *out);
/* The diff of deleting a file whose content is `old`. */
int apply_delete(const char *old, size_t old_len, file_result *out);
/* The diff of creating a file whose content is `data` (out->data stays
 * NULL): a move's destination is reported like an added file. */
int apply_created_diff(const char *data, size_t len, file_result *out);
void file_result_free(file_result *r);

#endif
