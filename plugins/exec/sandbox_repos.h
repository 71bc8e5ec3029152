/* Finding the repositories below a directory: every .git entry (a git
 * directory, a gitfile or a link named .git), nested ones included,
 * asked of the host's workspace service (the index for the workspace,
 * the host's bounded walk for any other directory).  The sandbox plan
 * protects what it finds (sandbox_paths.c). */
#ifndef VTHOST_EXEC_SANDBOX_REPOS_H
#define VTHOST_EXEC_SANDBOX_REPOS_H

#include <stddef.h>

struct vt_wsindex_v1;

/* Why a search is incomplete (repo_walk.cut). */
enum {
    REPOS_CUT_WALK = 0,    /* the host's walk left out a directory past its depth or count bound */
    REPOS_CUT_INDEX = 1,   /* the index was too deep to hold every level */
    REPOS_CUT_UNKNOWN = 2, /* the host cannot list them (older than 1.13, or it failed) */
};

/* What a search reports, through the caller's callbacks. */
typedef struct repo_walk {
    /* A .git entry: `path` absolute (borrowed for the call), `kind` 'd'
     * (directory), 'f' (gitfile) or 'l' (link).  Non-zero stops the
     * search and is returned. */
    int (*found)(struct repo_walk *w, const char *path, char kind);
    /* The search is incomplete, for `why` (REPOS_CUT_*).  May be called
     * more than once. */
    void (*cut)(struct repo_walk *w, int why);
} repo_walk;

/* The repositories of the index (current by events while serving,
 * validated from its cache for one-shot calls).  1 when there is no
 * index or it cannot answer (then ask repos_below), else 0 or what
 * found() returned. */
int repos_from_index(const struct vt_wsindex_v1 *index, repo_walk *w);

/* The repositories below `root` (absolute), by the host's walk
 * (vt_wsindex_v1.repositories_below).  A host that cannot answer cuts
 * with REPOS_CUT_UNKNOWN.  0, VT_ERR_NOMEM, or what found() returned. */
int repos_below(const struct vt_wsindex_v1 *index, const char *root, repo_walk *w);

#endif
