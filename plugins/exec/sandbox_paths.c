/* What one call protects, decided in the host right before the fork, so
 * that a .git created during a serve run is protected from the next call
 * on: every .git directory and gitfile in the workspace and the writable
 * roots (nested ones included) with the git directories gitfiles point
 * to, .vtcode/ and vtcode.toml; and, with the network off, the host's
 * path unix sockets outside the workspace, masked in the session's mount
 * namespace.  The repositories come from the host (its index for the
 * workspace, its bounded walk for the other roots: sandbox_repos.h). */
#include "sandbox_int.h"
#include "sandbox_repos.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

#define MAX_PROTECTED 512
#define MAX_HIDDEN 1024

unsigned long sandbox_mount_flags(unsigned long st_flags)
{
    static const struct {
        unsigned long st, ms;
    } map[] = {{ST_NOSUID, MS_NOSUID},         {ST_NODEV, MS_NODEV},
               {ST_NOEXEC, MS_NOEXEC},         {ST_NOATIME, MS_NOATIME},
               {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME}};
    unsigned long f = 0;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (st_flags & map[i].st)
            f |= map[i].ms;
    return f;
}

/* The mount flags of `path`'s mount; `fd`: that object, opened without
 * a link on the way (sandbox_fd_open), or -1: asked by the path. */
static unsigned long mount_flags_of(const char *path, int fd)
{
    struct statvfs sv;
    int rc = fd >= 0 ? fstatvfs(fd, &sv) : statvfs(path, &sv);
    return rc == 0 ? sandbox_mount_flags(sv.f_flag) : 0;
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
    if (VT_GROW(&p->ro, &p->cap_ro, p->nro + 1) != 0 ||
        VT_GROW(&p->ro_flags, &p->cap_ro_flags, p->nro + 1) != 0 ||
        VT_GROW(&p->ro_id, &p->cap_ro_id, p->nro + 1) != 0)
        return VT_ERR_NOMEM;
    char *c = strdup(path);
    if (!c)
        return VT_ERR_NOMEM;
    /* What it is now: the session leader binds that object, opened
     * again without following links, or refuses to start. */
    struct stat st;
    int fd = sandbox_fd_open(path, &st);
    p->ro_id[p->nro] = (sandbox_ident){fd >= 0 ? st.st_dev : 0, fd >= 0 ? st.st_ino : 0, fd >= 0};
    p->ro_flags[p->nro] = mount_flags_of(path, fd);
    if (fd >= 0)
        close(fd);
    p->ro[p->nro++] = c;
    return VT_OK;
}

/* A gitfile ("gitdir: PATH"): the file itself (pointing it elsewhere
 * would swap the repository's hooks) and the git directory it names,
 * with that directory's commondir (a worktree's hooks live there). */
static int add_gitfile(sandbox_plan *p, const char *dir, const char *file)
{
    int rc = add_ro(p, file);
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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

/* A symbolic link named .git: git follows it, so where it leads is
 * protected. */
static int add_gitlink(sandbox_plan *p, const char *path)
{
    char *real = realpath(path, NULL);
    struct stat st;
    int rc = VT_OK;
    if (real && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        rc = add_ro(p, real);
    free(real);
    return rc;
}

typedef struct walk {
    repo_walk w; /* first: the callbacks get it */
    sandbox_plan *p;
} walk;

/* A .git entry, found by the index or the walk: protected with what it
 * leads to. */
static int protect_repo(repo_walk *rw, const char *path, char kind)
{
    sandbox_plan *p = ((walk *)rw)->p;
    if (kind == 'd')
        return add_ro(p, path);
    if (kind == 'l')
        return add_gitlink(p, path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
    return add_gitfile(p, dir[0] ? dir : "/", path);
}

static void protect_cut(repo_walk *rw, int why)
{
    sandbox_plan *p = ((walk *)rw)->p;
    if (p->truncated)
        return;
    p->truncated =
        strdup(why == REPOS_CUT_INDEX ? "the workspace is too deep to index entirely: repositories "
                                        "below the deepest level are writable"
               : why == REPOS_CUT_WALK ? "a writable directory is too large to look for every "
                                         "nested .git: some deep ones are writable"
                                       : "vthost cannot list the repositories below the writable "
                                         "directories (it is older than the exec plugin, or it "
                                         "failed): repositories there are writable; update vthost");
}

/* The names at the workspace root the host's service lists (vthost's
 * policy, IDE and agent configuration); without the service, none. */
static const char *const *protected_names(const sandbox *sb)
{
    static const char *const none[] = {NULL};
    const vt_wsindex_v1 *x = sb->index;
    return x && x->struct_size >= sizeof *x ? x->protected_names() : none;
}

static int protect_root(sandbox_plan *p, walk *w, const char *root, int is_workspace)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", root);
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        path[--len] = '\0';
    int rc = VT_OK;
    if (is_workspace) {
        /* the policy files, then the IDE and agent configuration (which
         * starts programs outside the sandbox just as well) */
        const char *const *names = protected_names(p->sb);
        size_t n = 0;
        while (names[n])
            n++;
        unsigned char *present = malloc(n ? n : 1);
        if (!present)
            return VT_ERR_NOMEM;
        sandbox_names_present(p->sb, path, names, present);
        for (size_t i = 0; rc == VT_OK && i < n; i++) {
            char f[PATH_MAX + 16];
            if (present[i] && snprintf(f, sizeof f, "%s/%s", path, names[i]) < (int)sizeof f)
                rc = add_ro(p, f);
        }
        free(present);
    }
    if (rc != VT_OK)
        return rc;
    if (is_workspace) {
        int r = repos_from_index(p->sb->index, &w->w);
        if (r <= 0)
            return r;
    }
    return repos_below(p->sb->index, path, &w->w);
}

/* mkdir -p (0700: the user's configuration, the host's data). */
void sandbox_mkdir_parents(const char *path)
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

int sandbox_writable(const sandbox *sb, const sandbox_extra *extra, const char *path)
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
        if (!dup && sandbox_writable(sb, p->extra, parent) && lstat(a, &st) == 0 &&
            S_ISDIR(st.st_mode)) {
            if (VT_GROW(&p->pin, &p->cap_pin, p->npin + 1) != 0 || !(p->pin[p->npin] = strdup(a)))
                return VT_ERR_NOMEM;
            p->npin++;
        }
        *s = '/';
    }
    return VT_OK;
}

void sandbox_use_index(sandbox *sb, const struct vt_wsindex_v1 *index)
{
    if (!sb)
        return;
    sb->index = index;
    if (!index || index->struct_size < sizeof *index || sb->mode != SANDBOX_WORKSPACE_WRITE)
        return;
    if (sb->namespaces && !sb->vtcode_dir) {
        char *err = NULL;
        index->prepare(&sb->vtcode_dir, &err); /* a failure refuses each plan */
        free(err);
    }
    char **roots = calloc(sb->nroots + 1, sizeof *roots);
    for (size_t i = 0; roots && i < sb->nroots; i++)
        roots[i] = sb->roots[i];
    if (roots)
        index->arm((const char *const *)roots);
    free(roots);
}

void sandbox_use_host_data(sandbox *sb, const struct vt_host_data_v1 *host_data)
{
    if (sb)
        sb->host_data = host_data;
}

int sandbox_protect_paths(sandbox *sb, const char *const *paths)
{
    for (size_t i = 0; sb && paths && paths[i]; i++) {
        /* A policy directory outside the workspace (the user's vtcode
         * directory) that does not exist yet, where commands may write:
         * made now, so that it is mounted read-only like .vtcode/. */
        struct stat st;
        if (!inside(paths[i], sb->roots[0]) && sandbox_writable(sb, NULL, paths[i]) &&
            lstat(paths[i], &st) != 0 && errno == ENOENT)
            sandbox_mkdir_parents(paths[i]);
        if (VT_GROW(&sb->policy, &sb->cap_policy, sb->npolicy + 1) != 0 ||
            !(sb->policy[sb->npolicy] = strdup(paths[i])))
            return VT_ERR_NOMEM;
        sb->npolicy++;
    }
    return VT_OK;
}

static int add_hide(sandbox_plan *p, const char *path)
{
    for (size_t i = 0; i < p->nhide; i++)
        if (!strcmp(p->hide[i], path))
            return VT_OK;
    if (p->nhide >= MAX_HIDDEN)
        return VT_OK;
    if (VT_GROW(&p->hide, &p->cap_hide, p->nhide + 1) != 0 || !(p->hide[p->nhide] = strdup(path)))
        return VT_ERR_NOMEM;
    p->nhide++;
    return VT_OK;
}

/* ---- the same objects reached through other mounts ---------------------- */

/* A filesystem mounted more than once (a bind mount of a parent of the
 * workspace, a container's volume seen at two places) reaches the same
 * .git through another path: Landlock allows it (its rules follow the
 * workspace's inode, whichever the path), and the read-only mount covers
 * one path only.  So every other path to a protected object (and to a
 * masked socket) is found in mountinfo and covered too. */
typedef sandbox_mnt mnt;

/* `path` below `prefix` ("/" holds everything): what follows it, else NULL. */
static const char *below(const char *path, const char *prefix)
{
    if (!strcmp(prefix, "/"))
        return path;
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) || (path[n] != '/' && path[n] != '\0'))
        return NULL;
    return path + n;
}

/* Every other path that reaches `path`'s object through a mount of its
 * filesystem: passed to `add`. */
static int add_aliases(sandbox_plan *p, const mnt *m, size_t n, const char *path,
                       int (*add)(sandbox_plan *, const char *))
{
    struct stat want;
    if (lstat(path, &want) != 0)
        return VT_OK;
    /* the mount `path` is on: the longest mount point above it, the
     * later of equal ones (it covers the earlier) */
    const mnt *on = NULL;
    for (size_t i = 0; i < n; i++)
        if (below(path, m[i].point) && (!on || strlen(m[i].point) >= strlen(on->point)))
            on = &m[i];
    if (!on)
        return VT_OK;
    char fs[PATH_MAX];
    const char *rest = below(path, on->point);
    if (snprintf(fs, sizeof fs, "%s%s", strcmp(on->root, "/") ? on->root : "", rest) >=
        (int)sizeof fs)
        return VT_OK;
    int rc = VT_OK;
    for (size_t i = 0; rc == VT_OK && i < n; i++) {
        const char *tail;
        if (&m[i] == on || strcmp(m[i].dev, on->dev) ||
            !(tail = below(fs[0] ? fs : "/", m[i].root)))
            continue;
        char alias[PATH_MAX];
        if (snprintf(alias, sizeof alias, "%s%s", strcmp(m[i].point, "/") ? m[i].point : "",
                     tail) >= (int)sizeof alias ||
            !alias[0] || !strcmp(alias, path))
            continue;
        struct stat st;
        if (lstat(alias, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
            rc = add(p, alias);
    }
    return rc;
}

static int add_ro_cb(sandbox_plan *p, const char *path) { return add_ro(p, path); }

static int protect_aliases(sandbox_plan *p)
{
    size_t n = 0;
    const mnt *m = sandbox_mounts_hold(&n);
    int rc = VT_OK;
    if (n > 1) {
        size_t nro = p->nro, nhide = p->nhide, ndata = p->ndata;
        for (size_t i = 0; rc == VT_OK && i < nro; i++)
            rc = add_aliases(p, m, n, p->ro[i], add_ro_cb);
        for (size_t i = 0; rc == VT_OK && i < nhide; i++)
            rc = add_aliases(p, m, n, p->hide[i], add_hide);
        for (size_t i = 0; rc == VT_OK && i < ndata; i++)
            rc = add_aliases(p, m, n, p->data[i], sandbox_data_add);
    }
    sandbox_mounts_release();
    return rc;
}

/* /proc/net/unix of the host's network namespace, opened once: a read
 * from offset 0 lists the sockets bound at that moment (the table is
 * made by the read, not by the open), so keeping it open saves each
 * call the open and the stdio around it and nothing goes stale. */
static struct unix_table {
    pthread_mutex_t mu;
    int fd; /* -1: not open (yet) */
    char *buf;
    size_t cap;
} unix_table = {PTHREAD_MUTEX_INITIALIZER, -1, NULL, 0};

/* The whole table, read now, into unix_table.buf (NUL-terminated);
 * its length, or -1 when it cannot be read.  Caller holds mu. */
static ssize_t unix_table_read(void)
{
    struct unix_table *t = &unix_table;
    if (t->fd < 0)
        t->fd = open("/proc/net/unix", O_RDONLY | O_CLOEXEC);
    if (t->fd < 0)
        return -1;
    size_t len = 0;
    for (;;) {
        if (len + 4096 > t->cap && VT_GROW(&t->buf, &t->cap, len + 4096) != 0)
            break;
        ssize_t n = pread(t->fd, t->buf + len, t->cap - len - 1, (off_t)len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (!t->buf)
        return -1;
    t->buf[len] = '\0';
    return (ssize_t)len;
}

void sandbox_paths_fini(void)
{
    struct unix_table *t = &unix_table;
    pthread_mutex_lock(&t->mu);
    if (t->fd >= 0)
        close(t->fd);
    free(t->buf);
    t->fd = -1;
    t->buf = NULL;
    t->cap = 0;
    pthread_mutex_unlock(&t->mu);
}

/* Path sockets bound in this network namespace (/proc/net/unix). */
static int hide_sockets(sandbox_plan *p, const char *workspace)
{
    pthread_mutex_lock(&unix_table.mu);
    int rc = VT_OK;
    char *line = unix_table_read() < 0 ? NULL : unix_table.buf;
    while (rc == VT_OK && line && *line) {
        char *end = line + strcspn(line, "\n");
        char *next = *end ? end + 1 : end;
        *end = '\0';
        char *path = strstr(line, " /");
        line = next;
        if (!path || p->nhide >= MAX_HIDDEN)
            continue;
        path++;
        if (inside(path, workspace))
            continue;
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        rc = add_hide(p, path);
    }
    pthread_mutex_unlock(&unix_table.mu);
    return rc;
}

/* The hook directories and included config files the repositories'
 * configuration names (the service's git_config_paths): git runs or
 * reads them, so those a command could write are read-only like .git. */
static int protect_git_config(const sandbox *sb, sandbox_plan *p)
{
    const struct vt_wsindex_v1 *ix = sb->index;
    cJSON *arr = NULL;
    if (!ix ||
        ix->struct_size <
            offsetof(struct vt_wsindex_v1, git_config_paths) + sizeof ix->git_config_paths ||
        !ix->git_config_paths || ix->git_config_paths(NULL, &arr) != VT_OK)
        return VT_OK;
    int rc = VT_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        char real[PATH_MAX];
        struct stat st;
        if (!path || !sandbox_realpath(path, real) || lstat(real, &st) != 0 ||
            !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) || !sandbox_writable(sb, p->extra, real))
            continue;
        if ((rc = add_ro(p, real)) != VT_OK)
            break;
    }
    cJSON_Delete(arr);
    return rc;
}

int sandbox_paths_plan(const sandbox *sb, sandbox_plan *p)
{
    int rc = VT_OK;
    if (!sb->namespaces)
        return VT_OK;
    walk w = {.w = {.found = protect_repo, .cut = protect_cut}, .p = p};
    if (sb->mode == SANDBOX_WORKSPACE_WRITE)
        for (size_t i = 0; rc == VT_OK && i < sb->nroots; i++)
            rc = protect_root(p, &w, sb->roots[i], i == 0);
    if (rc == VT_OK && sb->mode == SANDBOX_WORKSPACE_WRITE)
        rc = protect_git_config(sb, p);
    /* A call's additional writable paths: their repositories stay
     * read-only too. */
    for (size_t i = 0; rc == VT_OK && p->extra && i < p->extra->nwrite; i++)
        if (!(sb->index && sb->mode == SANDBOX_WORKSPACE_WRITE &&
              inside(p->extra->write[i], sb->roots[0])))
            rc = protect_root(p, &w, p->extra->write[i], 0);
    /* The host's other policy files (the --config file, the user's
     * vtcode directory) where a command could write them: judged where
     * they lead, not by their text (~/.config may be a link into /tmp). */
    for (size_t i = 0; rc == VT_OK && i < sb->npolicy; i++) {
        char real[PATH_MAX];
        const char *f = sandbox_realpath(sb->policy[i], real) ? real : sb->policy[i];
        struct stat st;
        if (sandbox_writable(sb, p->extra, f) && lstat(f, &st) == 0 &&
            (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            rc = add_ro(p, f);
        if (rc == VT_OK)
            rc = pin_parents(sb, p, f);
    }
    /* The host's own data: a command that renamed a directory above it
     * would carry the mask away and let the host write the next files
     * at the old path, outside the mask. */
    for (size_t i = 0; rc == VT_OK && i < p->ndata; i++)
        rc = pin_parents(sb, p, p->data[i]);
    if (rc == VT_OK && !p->network)
        rc = hide_sockets(p, sb->roots[0]);
    if (rc == VT_OK)
        rc = protect_aliases(p);
    return rc;
}
