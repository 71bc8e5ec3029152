/* New file contents and their diffs, computed in memory before anything
 * is written. */
#ifndef VTPATCH_APPLY_H
#define VTPATCH_APPLY_H

#include <stddef.h>
#include <sys/uio.h>
#include "patch_diff.h"
#include "patch_parse.h"

/* The new content is a list of pieces: an update's are runs of the old
 * text and lines of the patch (borrowed: valid while both are), so that
 * it is written without being copied first.  `data` holds it in one
 * block for an added file, and for an update once file_result_flatten
 * has run. */
typedef struct file_result {
    struct iovec *seg; /* malloc'd array of pieces; NULL for a deletion */
    size_t nseg;
    size_t size; /* bytes in all pieces */
    char *data;  /* malloc'd, or NULL (see above) */
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
/* Fill r->data with the whole new content (no-op when it is there). */
int file_result_flatten(file_result *r);
/* 1 when the new content is byte for byte `old`. */
int file_result_same(const file_result *r, const char *old, size_t len);
void file_result_free(file_result *r);

#endif
