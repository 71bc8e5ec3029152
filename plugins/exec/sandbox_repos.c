/* Finding the repositories below a directory, from the index or walked
 * (sandbox_repos.h). */
#include "sandbox_repos.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

#define WALK_MAX_DIRS 50000
#define WALK_MAX_DEPTH 16

int repos_from_index(const struct vt_wsindex_v1 *index, repo_walk *w)
{
    cJSON *o = NULL;
    if (!index || index->repositories(NULL, &o) != VT_OK || !o)
        return 1;
    int rc = VT_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "repositories"))
    {
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (path && kind)
            rc = w->found(w, path, !strcmp(kind, "dir") ? 'd' : !strcmp(kind, "link") ? 'l' : 'f');
        if (rc != VT_OK)
            break;
    }
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "complete")))
        w->cut(w, 1);
    cJSON_Delete(o);
    return rc;
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
 * which this takes. */
static int walk_dir(repo_walk *w, int fd, char *path, size_t len, int depth)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return VT_OK;
    }
    int rc = VT_OK;
    struct dirent *e;
    while (rc == VT_OK && (e = readdir(d))) {
        const char *n = e->d_name;
        if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
            continue;
        size_t nl = strlen(n);
        unsigned char type = type_of(d, e);
        if (len + 1 + nl >= PATH_MAX || type == DT_UNKNOWN)
            continue;
        path[len] = '/';
        memcpy(path + len + 1, n, nl + 1);
        if (!strcmp(n, ".git")) {
            if (type == DT_DIR || type == DT_LNK || type == DT_REG)
                rc = w->found(w, path, type == DT_DIR ? 'd' : type == DT_LNK ? 'l' : 'f');
        } else if (type == DT_DIR) {
            if (depth >= WALK_MAX_DEPTH || ++w->dirs > WALK_MAX_DIRS) {
                w->cut(w, 0);
            } else {
                int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                    rc = walk_dir(w, sub, path, len + 1 + nl, depth + 1);
            }
        }
        path[len] = '\0';
    }
    closedir(d);
    return rc;
}

int repos_walk(const char *root, repo_walk *w)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", root);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return VT_OK;
    return walk_dir(w, fd, path, len == 1 ? 0 : len, 0);
}
