/* code_search core: the search engine behind the code_search tool, free of
 * host types so unit tests and benchmarks can drive it directly. */
#ifndef CS_H
#define CS_H

#include <stddef.h>
#include <stdint.h>

/* Result categories, in output order. */
enum cs_cat { CS_DEF = 0, CS_USE = 1, CS_TEXT = 2, CS_PATH = 3, CS_NCAT = 4 };
#define CS_CAT_ALL 0xFu

typedef struct cs_options {
    const char *root;    /* absolute canonical workspace root (borrowed) */
    const char *scope;   /* absolute canonical file/dir inside root */
    const char *query;   /* literal, UTF-8 */
    uint64_t lang_mask;  /* 0: every file; else bit (1 << lang) per type */
    unsigned categories; /* bit (1 << cs_cat) per requested category */
    int max_results;     /* 1..100 */
    int threads;         /* 0: one per online core */
    /* Polled between files; non-zero stops the search (cancellation). */
    int (*cancelled)(void *ud);
    void *cancel_ud;
    /* Optional: non-zero to leave out a workspace-relative path found by
     * the walk (permission deny rules); called on the walking threads,
     * several at once. */
    int (*skip_path)(void *ud, const char *rel, int is_dir);
    void *skip_ud;
    /* Optional: the directory of the content index (cs_index.h); NULL:
     * every file is read. */
    const char *index_dir;
} cs_options;

typedef struct cs_result {
    int cat;
    char *path;    /* workspace-relative; "." never appears */
    uint32_t line; /* 1-based; 0 for path results */
    uint32_t col;  /* 1-based byte column */
    char *snippet; /* NULL for path results */
    char *name;    /* definitions and usages, else NULL */
} cs_result;

typedef struct cs_output {
    cs_result *v; /* sorted: category, path, line, column */
    size_t n;
    int truncated;   /* more candidates may exist beyond v */
    int insensitive; /* the query was searched case-insensitively */
} cs_output;

/* Run one search.  Returns 0 with *out filled (free with cs_output_free),
 * or a negative vt_status with *err malloc'd. */
int cs_search(const cs_options *opt, cs_output *out, char **err);
void cs_output_free(cs_output *out);

#endif
