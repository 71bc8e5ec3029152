/* Finding the repositories below a directory: every .git entry (a git
 * directory, a gitfile or a link named .git), nested ones included, from
 * the host's workspace index or by a bounded walk.  The sandbox plan
 * protects what it finds (sandbox_paths.c). */
#ifndef VTHOST_EXEC_SANDBOX_REPOS_H
#define VTHOST_EXEC_SANDBOX_REPOS_H

#include <stddef.h>

struct vt_wsindex_v1;

/* What a search reports, through the caller's callbacks. */
typedef struct repo_walk {
    /* A .git entry: `path` absolute (borrowed for the call), `kind` 'd'
     * (directory), 'f' (gitfile) or 'l' (link).  Non-zero stops the
     * search and is returned. */
    int (*found)(struct repo_walk *w, const char *path, char kind);
    /* The search is incomplete: `in_index` 1 when the index was too deep
     * to hold every level, 0 when the walk left out a directory past its
     * depth or count bound.  May be called more than once. */
    void (*cut)(struct repo_walk *w, int in_index);
    size_t dirs; /* directories walked so far, across calls (the bound) */
} repo_walk;

/* The repositories of the index (current by events while serving,
 * validated from its cache for one-shot calls): no walk.  1 when there is
 * no index or it cannot answer (then walk), else 0 or what found()
 * returned. */
int repos_from_index(const struct vt_wsindex_v1 *index, repo_walk *w);

/* Walk `root` (a directory; trailing slashes ignored), never following a
 * link and never entering a .git, to a depth of 16 and 50,000 directories
 * counted in w->dirs.  0, or what found() returned. */
int repos_walk(const char *root, repo_walk *w);

#endif
