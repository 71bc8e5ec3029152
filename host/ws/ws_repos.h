/* The repository entries (.git directories, symbolic links and gitfiles,
 * nested ones included) below a sandbox's writable roots: the
 * workspace's from the host's index, the other roots (and the workspace
 * when there is no index) walked, within a budget.  What the after-call
 * check compares with its baseline (ws_check.h). */
#ifndef VTHOST_WS_REPOS_H
#define VTHOST_WS_REPOS_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct ws_repo {
    char *path; /* the .git entry, absolute */
    char kind;  /* 'd' directory, 'l' symlink, 'f' gitfile */
} ws_repo;

typedef struct ws_repos {
    ws_repo *v;
    size_t n, cap;
    size_t dirs;   /* walked so far (the budget) */
    int truncated; /* too deep or too many directories: some were not looked at */
    int oom;
    int bare; /* bare repositories below the roots listed too (kind 'd', the directory) */
} ws_repos;

/* Find them below roots[0..nroots) (roots[0] the workspace, from the
 * index or walked; another root that holds it is walked around it): in
 * the workspace .git entries only (the after-call check finds the bare
 * repositories a call made there by the index's change log), below the
 * other roots bare repositories too.  0 or VT_ERR_NOMEM; free with
 * ws_repos_free either way. */
int ws_repos_find(const char *const *roots, size_t nroots, ws_repos *out);
void ws_repos_free(ws_repos *r);

/* The entries below the one directory `dir` (absolute), walked with the
 * same bounds whether or not it is in the workspace (the index is not
 * asked: it holds the workspace only), and the bare repositories below
 * it (not `dir` itself): directories git takes for a git directory by
 * its own rules (ws_gitdir.h), listed as kind 'd' and left once their
 * HEAD is read (what the walk met in them before stays listed: more
 * protection, never less).  0, VT_ERR_INVALID (`dir` not
 * absolute) or VT_ERR_NOMEM; free with ws_repos_free either way. */
int ws_repos_below(const char *dir, ws_repos *out);

/* *out: a new {"repositories": [{"path", "kind": "dir" | "gitfile" |
 * "link"}], "complete": false when truncated} (vt_wsindex_v1's shape).
 * 0 or VT_ERR_NOMEM. */
int ws_repos_json(const ws_repos *r, cJSON **out);

#endif
