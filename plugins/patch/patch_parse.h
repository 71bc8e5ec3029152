/* The apply_patch grammar: patch text -> a list of file operations.
 * Pure (no I/O), so the fuzzer and the subjects hook can use it. */
#ifndef VTPATCH_PARSE_H
#define VTPATCH_PARSE_H

#include <stddef.h>

typedef enum patch_op_kind { PATCH_ADD = 1, PATCH_DELETE = 2, PATCH_UPDATE = 3 } patch_op_kind;

/* One line of a chunk or of an added file.  `text` points into the
 * patch's own copy of the input and is not NUL-terminated. */
typedef struct patch_line {
    char kind; /* ' ' context, '-' removed, '+' added */
    const char *text;
    size_t len;
} patch_line;

typedef struct patch_chunk {
    const char *ctx; /* '@@ <ctx>' line to seek first, or NULL */
    size_t ctx_len;
    int eof;             /* '*** End of File': anchored to the end */
    size_t line_no;      /* patch line where the chunk starts (1-based) */
    size_t first, count; /* range in patch.lines */
} patch_chunk;

typedef struct patch_op {
    patch_op_kind kind;
    char *path;     /* as written (trimmed), NUL-terminated */
    char *move_to;  /* Update only; NULL when not moved */
    size_t line_no; /* header line (1-based) */
    size_t move_line_no;
    size_t first, count;             /* Add: range in patch.lines */
    size_t chunk_first, chunk_count; /* Update: range in patch.chunks */
} patch_op;

typedef struct patch {
    char *buf; /* owned copy of the text the lines point into */
    patch_op *ops;
    size_t nops;
    patch_chunk *chunks;
    size_t nchunks;
    patch_line *lines;
    size_t nlines;
} patch;

/* Parse `len` bytes of patch text.  On error returns a negative vt_status
 * and *err is a malloc'd message naming the patch line.  *out is filled
 * only on success; release it with patch_free(). */
int patch_parse(const char *text, size_t len, patch *out, char **err);
void patch_free(patch *p);

#endif
