/* Finding the repositories below the writable roots (ws_repos.h). */
#include "ws_repos.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "ws_gitdir.h"
#include "ws_index.h"

#define WALK_MAX_DIRS 50000
#define WALK_MAX_DEPTH 16

static void add(ws_repos *r, const char *path, char kind)
{
    if (r->oom)
        return;
    if (VT_GROW(&r->v, &r->cap, r->n + 1) != 0 || !(r->v[r->n].path = strdup(path))) {
        r->oom = 1;
        return;
    }
    r->v[r->n++].kind = kind;
}

static int is_dot_git(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && !strcmp(slash + 1, ".git");
}

/* From the index: 1 when there is none (walk instead), else 0. */
static int from_index(ws_repos *r)
{
    ws_index *ix = ws_index_current();
    if (!ix || ws_index_refresh(ix, 1, NULL) != VT_OK)
        return 1;
    int complete = 1;
    cJSON *arr = ws_index_repositories(ix, &complete);
    if (!arr)
        return 1;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (path && kind && (r->bare || is_dot_git(path)))
            add(r, path, !strcmp(kind, "dir") ? 'd' : !strcmp(kind, "link") ? 'l' : 'f');
    }
    if (!complete)
        r->truncated = 1;
    cJSON_Delete(arr);
    return 0;
}

/* The entry's type without following it; DT_UNKNOWN when it is gone. */
static unsigned char type_of(DIR *d, const struct dirent *e)
{
    if (e->d_type != DT_UNKNOWN)
        return e->d_type;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return DT_UNKNOWN;
    return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
}

/* `path` (PATH_MAX bytes, `len` used) names the directory open at `fd`,
 * which this takes.  `skip` (may be NULL): a directory not entered (the
 * workspace, which the index covers, inside /tmp say). */
static void walk_dir(ws_repos *r, int fd, char *path, size_t len, int depth, const char *skip)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while (!r->oom && (e = readdir(d))) {
        const char *n = e->d_name;
        if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
            continue;
        size_t nl = strlen(n);
        unsigned char type = type_of(d, e);
        if (len + 1 + nl >= PATH_MAX || type == DT_UNKNOWN)
            continue;
        /* a HEAD: this directory (below the root) may be a bare
         * repository; if git takes it for one it is listed and the rest
         * of it is left, as a .git is (known by name, so no directory
         * costs a lookup) */
        if (r->bare && depth > 0 && type != DT_DIR && !strcmp(n, "HEAD")) {
            if (ws_gitdir_judge(path, NULL) == 1) {
                add(r, path, 'd');
                break;
            }
            continue;
        }
        path[len] = '/';
        memcpy(path + len + 1, n, nl + 1);
        if (!strcmp(n, ".git")) {
            if (type == DT_DIR || type == DT_LNK || type == DT_REG)
                add(r, path, type == DT_DIR ? 'd' : type == DT_LNK ? 'l' : 'f');
        } else if (type == DT_DIR) {
            if (skip && !strcmp(path, skip)) {
                /* covered already */
            } else if (depth >= WALK_MAX_DEPTH || ++r->dirs > WALK_MAX_DIRS) {
                r->truncated = 1;
            } else {
                int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                    walk_dir(r, sub, path, len + 1 + nl, depth + 1, skip);
            }
        }
        path[len] = '\0';
    }
    closedir(d);
}

static void walk(ws_repos *r, const char *root, const char *skip)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", root);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0)
        walk_dir(r, fd, path, len == 1 ? 0 : len, 0, skip);
}

int ws_repos_find(const char *const *roots, size_t nroots, ws_repos *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < nroots && !out->oom; i++) {
        /* the workspace: .git entries only (bare repositories a call
         * makes there are found by the index's change log, and one the
         * user has must not count as there before once a call wrote it);
         * the other roots: bare repositories too, walked around the
         * workspace, which roots[0] covered */
        out->bare = i > 0;
        if (i == 0 && from_index(out) == 0)
            continue;
        walk(out, roots[i], i > 0 ? roots[0] : NULL);
    }
    out->bare = 0;
    return out->oom ? VT_ERR_NOMEM : VT_OK;
}

int ws_repos_below(const char *dir, ws_repos *out)
{
    memset(out, 0, sizeof *out);
    if (!dir || dir[0] != '/')
        return VT_ERR_INVALID;
    out->bare = 1;
    walk(out, dir, NULL);
    return out->oom ? VT_ERR_NOMEM : VT_OK;
}

int ws_repos_json(const ws_repos *r, cJSON **out)
{
    *out = NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "repositories");
    if (!arr || !cJSON_AddBoolToObject(o, "complete", !r->truncated)) {
        cJSON_Delete(o);
        return VT_ERR_NOMEM;
    }
    for (size_t i = 0; i < r->n; i++) {
        const char *kind = r->v[i].kind == 'd' ? "dir" : r->v[i].kind == 'l' ? "link" : "gitfile";
        cJSON *e = cJSON_CreateObject();
        if (!cJSON_AddItemToArray(arr, e) || !cJSON_AddStringToObject(e, "path", r->v[i].path) ||
            !cJSON_AddStringToObject(e, "kind", kind)) {
            cJSON_Delete(o);
            return VT_ERR_NOMEM;
        }
    }
    *out = o;
    return VT_OK;
}

void ws_repos_free(ws_repos *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i].path);
    free(r->v);
    memset(r, 0, sizeof *r);
}
