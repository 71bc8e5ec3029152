/* The scope walk: every file (and directory) to consider, ignore rules
 * applied. */
#ifndef CS_WALK_H
#define CS_WALK_H

#include <stddef.h>
#include <stdint.h>

typedef struct cs_entry {
    char *rel; /* workspace-relative path */
    unsigned char is_dir;
    signed char lang;    /* cs_types language id, -1 unknown */
    unsigned char lexer; /* enum cs_lexer */
} cs_entry;

typedef struct cs_walk {
    cs_entry *v; /* sorted by rel (strcmp) after cs_walk_run */
    size_t n, cap;
} cs_walk;

/* Walk `scope` (absolute, canonical, inside `root`).  Files are kept when
 * lang_mask is 0 or has their language's bit; directories are kept only
 * when want_dirs.  Symlinks are never followed.  Returns 0 or negative. */
int cs_walk_run(const char *root, const char *scope, uint64_t lang_mask, int want_dirs,
                cs_walk *out);
/* The same with `root` already open at `rootfd` (O_PATH will do: every
 * directory and ignore file is opened relative to it), on `threads`
 * threads, leaving out every path for which skip(ud, rel, is_dir) is
 * non-zero (a skipped directory is not entered); skip is called from any
 * of them at once. */
int cs_walk_run_filtered(const char *root, int rootfd, const char *scope, uint64_t lang_mask,
                         int want_dirs, int (*skip)(void *, const char *, int), void *ud,
                         int threads, cs_walk *out);
void cs_walk_free(cs_walk *w);

#endif
