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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

/* A multi-call binary (busybox, toybox) is many programs in one file:
 * masking the file would mask every program it is.  A file with more
 * than this many names that are not denied (aliases aside: python3 and
 * python3.11, sh and dash, a hard link or two) is taken for one. */
#define MULTI_CALL_NAMES 2
#define MAX_MASKED 512

typedef struct ident {
    dev_t dev;
    ino_t ino;
    int all_links; /* one program with other names: cover them all */
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
    if (VT_GROW(&p->mask, &p->cap_mask, p->nmask + 1) != 0 || !(p->mask[p->nmask] = strdup(real)))
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

static int listed(const char *name, const char *const *names)
{
    for (; names && *names; names++)
        if (!strcmp(name, *names))
            return 1;
    return 0;
}

/* What the directories said, per file: a readdir and a stat per name of
 * every program directory (some thousands) is most of a call's start,
 * so the answer is kept until a directory changes (its mtime) or the
 * denied names do. */
#define MEMO 32
static struct {
    pthread_mutex_t mu;
    struct {
        dev_t dev;
        ino_t ino;
        uint64_t sig;
        int multi;
    } v[MEMO];
    size_t n, next;
} memo = {.mu = PTHREAD_MUTEX_INITIALIZER};

static uint64_t mix(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ULL; /* FNV-1a */
    return h;
}

static uint64_t signature(const char *own, const char *const *denied, char dirs[][PATH_MAX],
                          size_t nd)
{
    uint64_t h = mix(14695981039346656037ULL, own, strlen(own) + 1);
    for (; denied && *denied; denied++)
        h = mix(h, *denied, strlen(*denied) + 1);
    for (size_t d = 0; d < nd; d++) {
        struct stat ds;
        memset(&ds, 0, sizeof ds);
        if (stat(dirs[d], &ds) != 0)
            ds.st_ino = 0;
        h = mix(h, dirs[d], strlen(dirs[d]) + 1);
        h = mix(h, &ds.st_dev, sizeof ds.st_dev);
        h = mix(h, &ds.st_ino, sizeof ds.st_ino);
        h = mix(h, &ds.st_mtim, sizeof ds.st_mtim);
        h = mix(h, &ds.st_uid, sizeof ds.st_uid);
        h = mix(h, &ds.st_mode, sizeof ds.st_mode);
    }
    return h;
}

static int other_programs(const struct stat *file, const char *own, const char *const *denied,
                          char dirs[][PATH_MAX], size_t nd);

int sandbox_other_programs(const struct stat *file, const char *own, const char *const *denied,
                           char dirs[][PATH_MAX], size_t nd)
{
    uint64_t sig = signature(own, denied, dirs, nd);
    pthread_mutex_lock(&memo.mu);
    for (size_t i = 0; i < memo.n; i++)
        if (memo.v[i].dev == file->st_dev && memo.v[i].ino == file->st_ino &&
            memo.v[i].sig == sig) {
            int multi = memo.v[i].multi;
            pthread_mutex_unlock(&memo.mu);
            return multi;
        }
    pthread_mutex_unlock(&memo.mu);
    int multi = other_programs(file, own, denied, dirs, nd);
    pthread_mutex_lock(&memo.mu);
    size_t i = memo.next;
    memo.v[i].dev = file->st_dev;
    memo.v[i].ino = file->st_ino;
    memo.v[i].sig = sig;
    memo.v[i].multi = multi;
    memo.next = (i + 1) % MEMO;
    if (memo.n < MEMO)
        memo.n++;
    pthread_mutex_unlock(&memo.mu);
    return multi;
}

/* Whether the directory entry `e` is a name of `file`, with as few
 * system calls as the directory allows: a hard link by the inode readdir
 * gives, a symlink only when its text ends in the file's own name (a
 * chain of links through another name is not counted: the file is then
 * taken for fewer programs, and masked). */
static int names_file(int dfd, dev_t ddev, const struct dirent *e, const struct stat *file,
                      const char *own)
{
    struct stat sb;
    if (e->d_type == DT_REG)
        return ddev == file->st_dev && e->d_ino == file->st_ino;
    if (e->d_type == DT_LNK) {
        char t[PATH_MAX];
        ssize_t n = readlinkat(dfd, e->d_name, t, sizeof t - 1);
        if (n <= 0)
            return 0;
        t[n] = '\0';
        const char *base = strrchr(t, '/');
        if (strcmp(base ? base + 1 : t, own) != 0)
            return 0;
    } else if (e->d_type != DT_UNKNOWN) {
        return 0;
    }
    return fstatat(dfd, e->d_name, &sb, 0) == 0 && sb.st_dev == file->st_dev &&
           sb.st_ino == file->st_ino;
}

static int other_programs(const struct stat *file, const char *own, const char *const *denied,
                          char dirs[][PATH_MAX], size_t nd)
{
    int other = 0;
    for (size_t d = 0; d < nd && other <= MULTI_CALL_NAMES; d++) {
        /* a directory someone other than root can write (the
         * workspace's bin/, ~/bin) could have names planted to unmask
         * a program: only the system's say what a file is */
        struct stat ds;
        if (stat(dirs[d], &ds) != 0 || ds.st_uid != 0 || (ds.st_mode & 022))
            continue;
        DIR *dir = opendir(dirs[d]);
        struct dirent *e;
        while (dir && other <= MULTI_CALL_NAMES && (e = readdir(dir))) {
            if (e->d_name[0] == '.' || !strcmp(e->d_name, own) || listed(e->d_name, denied))
                continue;
            other += names_file(dirfd(dir), ds.st_dev, e, file, own);
        }
        if (dir)
            closedir(dir);
    }
    return other > MULTI_CALL_NAMES;
}

/* One denied name found in a program directory: what to cover. */
static int plan_name(sandbox_plan *p, const char *f, const char *name, const char *const *names,
                     char dirs[][PATH_MAX], size_t nd, ident *ids, size_t *nid)
{
    struct stat sb;
    char real[PATH_MAX];
    if (stat(f, &sb) != 0 || !S_ISREG(sb.st_mode) || !realpath(f, real))
        return VT_OK;
    const char *own = strrchr(real, '/');
    own = own ? own + 1 : real;
    int link = strcmp(own, name) != 0; /* python3 -> python3.11, sh -> dash */
    int multi = (link || sb.st_nlink > 1) && sandbox_other_programs(&sb, own, names, dirs, nd);
    if (multi && link)
        return VT_OK; /* the link would mask the other programs: execve check only */
    /* the file itself (a link is mounted over its target), or only the
     * denied name of a multi-call binary's hard links */
    int rc = add_mask(p, link ? real : f);
    int known = 0;
    for (size_t k = 0; k < *nid && !known; k++)
        known = ids[k].dev == sb.st_dev && ids[k].ino == sb.st_ino;
    if (!known && *nid < 64)
        ids[(*nid)++] = (ident){sb.st_dev, sb.st_ino, !multi && sb.st_nlink > 1};
    return rc;
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
            if ((size_t)snprintf(f, sizeof f, "%s/%s", dirs[d], *nm) < sizeof f)
                rc = plan_name(p, f, *nm, names, dirs, nd, ids, &nid);
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
