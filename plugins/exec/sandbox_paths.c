/* What one call protects, decided in the host right before the fork, so
 * that a .git created during a serve run is protected from the next call
 * on: every .git directory and gitfile in the workspace and the writable
 * roots (nested ones included) with the git directories gitfiles point
 * to, .vtcode/ and vtcode.toml; and, with the network off, the host's
 * path unix sockets outside the workspace, masked in the session's mount
 * namespace.  The walk is bounded (depth and directory count) and skips
 * what git itself never holds a repository in (.git's inside). */
#include "sandbox_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/mount.h>
#include <unistd.h>
#include <vthost/plugin.h>

#define WALK_MAX_DIRS 50000
#define WALK_MAX_DEPTH 16
#define MAX_PROTECTED 512
#define MAX_HIDDEN 1024

static unsigned long mount_flags_of(const char *path)
{
    struct statvfs sv;
    unsigned long f = 0;
    if (statvfs(path, &sv) != 0)
        return 0;
    if (sv.f_flag & ST_NOSUID) f |= MS_NOSUID;
    if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
    return f;
}

static int add_ro(sandbox_plan *p, const char *path)
{
    for (size_t i = 0; i < p->nro; i++)
        if (!strcmp(p->ro[i], path))
            return VT_OK;
    if (p->nro == MAX_PROTECTED) {
        if (!p->truncated)
            p->truncated = strdup("more protected paths than the sandbox mounts; the "
                                  "rest are writable");
        return VT_OK;
    }
    if (p->nro % 16 == 0) {
        char **r = realloc(p->ro, (p->nro + 16) * sizeof *r);
        if (r)
            p->ro = r;
        unsigned long *f = r ? realloc(p->ro_flags, (p->nro + 16) * sizeof *f) : NULL;
        if (!f)
            return VT_ERR_NOMEM;
        p->ro_flags = f;
    }
    char *c = strdup(path);
    if (!c)
        return VT_ERR_NOMEM;
    p->ro_flags[p->nro] = mount_flags_of(path);
    p->ro[p->nro++] = c;
    return VT_OK;
}

/* A gitfile ("gitdir: PATH"): the file itself (pointing it elsewhere
 * would swap the repository's hooks) and the git directory it names,
 * with that directory's commondir (a worktree's hooks live there). */
static int add_gitfile(sandbox_plan *p, int dirfd, const char *dir, const char *file)
{
    int rc = add_ro(p, file);
    int fd = openat(dirfd, ".git", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    char buf[4096];
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (rc || n <= 8 || strncmp(buf, "gitdir: ", 8))
        return rc;
    buf[n] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    char target[8192];
    if (buf[8] == '/')
        snprintf(target, sizeof target, "%s", buf + 8);
    else
        snprintf(target, sizeof target, "%s/%s", dir, buf + 8);
    char *real = realpath(target, NULL);
    struct stat st;
    if (real && stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = add_ro(p, real);
        char cd[8200];
        snprintf(cd, sizeof cd, "%s/commondir", real);
        fd = rc ? -1 : open(cd, O_RDONLY | O_CLOEXEC);
        n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n > 0) {
            buf[n] = '\0';
            buf[strcspn(buf, "\r\n")] = '\0';
            if (buf[0] == '/')
                snprintf(target, sizeof target, "%s", buf);
            else
                snprintf(target, sizeof target, "%s/%s", real, buf);
            char *common = realpath(target, NULL);
            if (common && stat(common, &st) == 0 && S_ISDIR(st.st_mode))
                rc = add_ro(p, common);
            free(common);
        }
    }
    free(real);
    return rc;
}

typedef struct walk {
    sandbox_plan *p;
    size_t dirs;
} walk;

static int walk_dir(walk *w, int fd, char *path, size_t len, int depth)
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
        if (len + 1 + nl >= PATH_MAX)
            continue;
        unsigned char type = e->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
        }
        path[len] = '/';
        memcpy(path + len + 1, n, nl + 1);
        if (!strcmp(n, ".git")) {
            if (type == DT_DIR) {
                rc = add_ro(w->p, path);
            } else if (type == DT_LNK) {
                /* git follows a symlinked .git: protect where it leads */
                char *real = realpath(path, NULL);
                struct stat st;
                if (real && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
                    rc = add_ro(w->p, real);
                free(real);
            } else if (type == DT_REG) {
                path[len] = '\0';
                char file[PATH_MAX];
                snprintf(file, sizeof file, "%s/.git", path);
                rc = add_gitfile(w->p, dirfd(d), path, file);
            }
        } else if (type == DT_DIR) {
            if (depth >= WALK_MAX_DEPTH || ++w->dirs > WALK_MAX_DIRS) {
                if (!w->p->truncated)
                    w->p->truncated = strdup("the workspace is too large to look for every "
                                             "nested .git: some deep ones are writable");
                path[len] = '\0';
                continue;
            }
            int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                rc = walk_dir(w, sub, path, len + 1 + nl, depth + 1);
        }
        path[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int protect_root(sandbox_plan *p, walk *w, const char *root, int is_workspace)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", root);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    int rc = VT_OK;
    struct stat st;
    if (is_workspace) {
        static const char *const policy[] = {".vtcode", "vtcode.toml"};
        for (size_t i = 0; rc == VT_OK && i < 2; i++) {
            char f[PATH_MAX + 16];
            snprintf(f, sizeof f, "%s/%s", path, policy[i]);
            if (lstat(f, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
                rc = add_ro(p, f);
        }
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc == VT_OK && fd >= 0)
        return walk_dir(w, fd, path, len == 1 ? 0 : len, 0);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* mkdir -p (0700: the user's configuration). */
static void mkdir_parents(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return;
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(buf, 0700);
            *s = '/';
        }
    mkdir(buf, 0700);
}

static int inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

/* Whether a command of this sandbox may write `path`. */
static int writable(const sandbox *sb, const sandbox_extra *extra, const char *path)
{
    const char *tmpdir = getenv("TMPDIR");
    if (inside(path, "/tmp") || (tmpdir && tmpdir[0] == '/' && inside(path, tmpdir)))
        return sb->mode == SANDBOX_WORKSPACE_WRITE;
    for (size_t r = 0; sb->mode == SANDBOX_WORKSPACE_WRITE && r < sb->nroots; r++)
        if (inside(path, sb->roots[r]))
            return 1;
    for (size_t r = 0; extra && r < extra->nwrite; r++)
        if (inside(path, extra->write[r]))
            return 1;
    return 0;
}

/* The directories above `path` whose own parent is writable (so a
 * command could rename them), kept outermost first. */
static int pin_parents(const sandbox *sb, sandbox_plan *p, const char *path)
{
    char a[PATH_MAX];
    if (snprintf(a, sizeof a, "%s", path) >= (int)sizeof a)
        return VT_OK;
    for (char *s = strchr(a + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        char *slash = strrchr(a, '/');
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%.*s", slash == a ? 1 : (int)(slash - a), a);
        struct stat st;
        int dup = 0;
        for (size_t i = 0; i < p->npin && !dup; i++)
            dup = !strcmp(p->pin[i], a);
        if (!dup && writable(sb, p->extra, parent) && lstat(a, &st) == 0 && S_ISDIR(st.st_mode)) {
            char **r = realloc(p->pin, (p->npin + 1) * sizeof *r);
            if (!r)
                return VT_ERR_NOMEM;
            p->pin = r;
            if (!(r[p->npin] = strdup(a)))
                return VT_ERR_NOMEM;
            p->npin++;
        }
        *s = '/';
    }
    return VT_OK;
}

int sandbox_protect_paths(sandbox *sb, const char *const *paths)
{
    for (size_t i = 0; sb && paths && paths[i]; i++) {
        /* A policy directory outside the workspace (the user's vtcode
         * directory) that does not exist yet, where commands may write:
         * made now, so that it is mounted read-only like .vtcode/. */
        struct stat st;
        if (!inside(paths[i], sb->roots[0]) && writable(sb, NULL, paths[i]) &&
            lstat(paths[i], &st) != 0 && errno == ENOENT)
            mkdir_parents(paths[i]);
        char **r = realloc(sb->policy, (sb->npolicy + 1) * sizeof *r);
        if (!r)
            return VT_ERR_NOMEM;
        sb->policy = r;
        if (!(r[sb->npolicy] = strdup(paths[i])))
            return VT_ERR_NOMEM;
        sb->npolicy++;
    }
    return VT_OK;
}

/* Path sockets bound in this network namespace (/proc/net/unix). */
static int hide_sockets(sandbox_plan *p, const char *workspace)
{
    FILE *f = fopen("/proc/net/unix", "re");
    if (!f)
        return VT_OK;
    char line[PATH_MAX + 128];
    int rc = VT_OK;
    while (rc == VT_OK && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *path = strstr(line, " /");
        if (!path || p->nhide >= MAX_HIDDEN)
            continue;
        path++;
        if (inside(path, workspace))
            continue;
        int dup = 0;
        for (size_t i = 0; i < p->nhide && !dup; i++)
            dup = !strcmp(p->hide[i], path);
        struct stat st;
        if (dup || lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (p->nhide % 32 == 0) {
            char **h = realloc(p->hide, (p->nhide + 32) * sizeof *h);
            if (!h) {
                rc = VT_ERR_NOMEM;
                break;
            }
            p->hide = h;
        }
        if (!(p->hide[p->nhide] = strdup(path)))
            rc = VT_ERR_NOMEM;
        else
            p->nhide++;
    }
    fclose(f);
    return rc;
}

int sandbox_paths_plan(const sandbox *sb, sandbox_plan *p)
{
    int rc = VT_OK;
    if (!sb->namespaces)
        return VT_OK;
    walk w = {.p = p};
    if (sb->mode == SANDBOX_WORKSPACE_WRITE)
        for (size_t i = 0; rc == VT_OK && i < sb->nroots; i++)
            rc = protect_root(p, &w, sb->roots[i], i == 0);
    /* A call's additional writable paths: their repositories stay
     * read-only too. */
    for (size_t i = 0; rc == VT_OK && p->extra && i < p->extra->nwrite; i++)
        rc = protect_root(p, &w, p->extra->write[i], 0);
    /* The host's other policy files (the --config file, the user's
     * vtcode directory) where a command could write them. */
    for (size_t i = 0; rc == VT_OK && i < sb->npolicy; i++) {
        const char *f = sb->policy[i];
        struct stat st;
        if (writable(sb, p->extra, f) && lstat(f, &st) == 0 &&
            (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            rc = add_ro(p, f);
    }
    for (size_t i = 0; rc == VT_OK && i < sb->npolicy; i++)
        rc = pin_parents(sb, p, sb->policy[i]);
    if (rc == VT_OK && !p->network)
        rc = hide_sockets(p, sb->roots[0]);
    return rc;
}
