/* Denied programs masked in the session: every path that names the file
 * of a program the deny rules refuse whatever its arguments is covered by
 * a bind mount of /dev/null in the session's mount namespace.  The kernel
 * then refuses to execute it (a character device is not a program) and a
 * copy of it is empty: no window between the execve check and the exec,
 * and no copy that runs.  Parent side: only the paths are computed here;
 * the session leader mounts them (sandbox.c, enter_mounts). */
#include "sandbox_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* A multi-call binary (busybox) has many names for one file: masking the
 * file would mask every program it is.  Above this many links only the
 * denied name itself is covered. */
#define MULTI_CALL_LINKS 4
#define MAX_MASKED 512

typedef struct ident {
    dev_t dev;
    ino_t ino;
    int all_links; /* other names exist (2 to 4 links): cover them all */
} ident;

static int add_mask(sandbox_plan *p, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return VT_OK; /* gone meanwhile */
    for (size_t i = 0; i < p->nmask; i++)
        if (!strcmp(p->mask[i], real))
            return VT_OK;
    if (p->nmask >= MAX_MASKED) {
        if (!p->truncated)
            p->truncated = strdup("more denied program files than the sandbox masks; the "
                                  "rest are refused by the execve check only");
        return VT_OK;
    }
    if (p->nmask % 16 == 0) {
        char **m = realloc(p->mask, (p->nmask + 16) * sizeof *m);
        if (!m)
            return VT_ERR_NOMEM;
        p->mask = m;
    }
    if (!(p->mask[p->nmask] = strdup(real)))
        return VT_ERR_NOMEM;
    p->nmask++;
    return VT_OK;
}

/* The directories a command finds programs in: its PATH and the usual
 * system directories, canonical and without repeats. */
size_t sandbox_program_dirs(const char *path_env, char dirs[][PATH_MAX], size_t max)
{
    static const char std[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *s = pass ? std : path_env ? path_env : "";
        while (*s && n < max) {
            size_t len = strcspn(s, ":");
            char d[PATH_MAX];
            if (len && len < sizeof d && s[0] == '/') {
                memcpy(d, s, len);
                d[len] = 0;
                if (realpath(d, dirs[n])) {
                    int dup = 0;
                    for (size_t k = 0; k < n && !dup; k++)
                        dup = !strcmp(dirs[k], dirs[n]);
                    n += !dup;
                }
            }
            s += len;
            s += *s == ':';
        }
    }
    return n;
}

int sandbox_mask_plan(sandbox_plan *p, const char *const *names, const char *path_env)
{
    if (!names || !names[0] || !p->sb->namespaces)
        return VT_OK;
    static char dirs[64][PATH_MAX]; /* parent side, one plan at a time */
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    size_t nd = sandbox_program_dirs(path_env, dirs, 64);
    ident ids[64];
    size_t nid = 0;
    int rc = VT_OK;
    /* the files the names resolve to, and those names themselves */
    for (const char *const *nm = names; rc == VT_OK && *nm; nm++)
        for (size_t d = 0; rc == VT_OK && d < nd; d++) {
            char f[PATH_MAX];
            struct stat sb;
            char real[PATH_MAX];
            if ((size_t)snprintf(f, sizeof f, "%s/%s", dirs[d], *nm) >= sizeof f ||
                stat(f, &sb) != 0 || !S_ISREG(sb.st_mode) || !realpath(f, real))
                continue;
            /* A name linked to a file of another name (sh -> dash, a
             * busybox applet) would mask that other program too: left to
             * the execve check, which judges the link by both names. */
            const char *base = strrchr(real, '/');
            if (strcmp(base ? base + 1 : real, *nm) != 0)
                continue;
            rc = add_mask(p, f);
            int known = 0;
            for (size_t k = 0; k < nid && !known; k++)
                known = ids[k].dev == sb.st_dev && ids[k].ino == sb.st_ino;
            if (!known && nid < 64)
                ids[nid++] = (ident){sb.st_dev, sb.st_ino,
                                     sb.st_nlink > 1 && sb.st_nlink <= MULTI_CALL_LINKS};
        }
    /* other names of the same files in those directories: hard links */
    for (size_t d = 0; rc == VT_OK && d < nd; d++) {
        int any = 0;
        for (size_t k = 0; k < nid; k++)
            any |= ids[k].all_links;
        if (!any)
            break;
        DIR *dir = opendir(dirs[d]);
        struct dirent *e;
        while (dir && rc == VT_OK && (e = readdir(dir))) {
            struct stat sb;
            if (e->d_name[0] == '.' || fstatat(dirfd(dir), e->d_name, &sb, 0) != 0 ||
                !S_ISREG(sb.st_mode))
                continue;
            for (size_t k = 0; k < nid; k++)
                if (ids[k].all_links && ids[k].dev == sb.st_dev && ids[k].ino == sb.st_ino) {
                    char f[PATH_MAX];
                    if ((size_t)snprintf(f, sizeof f, "%s/%s", dirs[d], e->d_name) < sizeof f)
                        rc = add_mask(p, f);
                    break;
                }
        }
        if (dir)
            closedir(dir);
    }
    pthread_mutex_unlock(&mu);
    return rc;
}
