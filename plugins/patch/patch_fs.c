/* Workspace-confined file access (see patch_fs.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <vthost/clock.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "patch_buf.h"
#include "patch_fs.h"
#include "patch_sync.h"
#include "patch_text.h"

int fs_path_check(const char *path, char **norm, char **err)
{
    *norm = NULL;
    *err = NULL;
    if (!*path)
        return patch_fail(err, VT_ERR_INVALID, "Invalid path '': a file path is required");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return patch_fail(err, VT_ERR_INVALID,
                              "Invalid path '%s': control characters are not allowed in paths",
                              path);
    if (path[0] == '/')
        return patch_fail(err, VT_ERR_OUTSIDE,
                          "Refused path '%s': absolute paths are not allowed; use a path relative "
                          "to the workspace root",
                          path);
    size_t len = strlen(path);
    char *out = malloc(len + 1);
    if (!out)
        return VT_ERR_NOMEM;
    size_t o = 0;
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* empty or '.' component */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (o == 0) {
                free(out);
                return patch_fail(err, VT_ERR_OUTSIDE,
                                  "Refused path '%s': '..' leaves the workspace", path);
            }
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            if (o)
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
        if (*p == '/')
            p++;
    }
    out[o] = '\0';
    if (o == 0) {
        free(out);
        return patch_fail(err, VT_ERR_INVALID, "Invalid path '%s': it names no file", path);
    }
    *norm = out;
    return 0;
}

/* The fallback: one component at a time, never following a symlink. */
static int walk_open(int root, const char *rel, int flags, mode_t mode)
{
    char *copy = strdup(rel);
    if (!copy) {
        errno = ENOMEM;
        return -1;
    }
    int cur = root;
    char *p = copy;
    int fd = -1;
    for (;;) {
        char *slash = strchr(p, '/');
        if (!slash) {
            fd = openat(cur, p, flags | O_NOFOLLOW | O_CLOEXEC, mode);
            break;
        }
        *slash = '\0';
        int next = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (next >= 0 && (fstat(next, &st) != 0 || !S_ISDIR(st.st_mode))) {
            close(next);
            next = -1;
            errno = ELOOP;
        }
        if (next < 0) {
            int e = errno == ENOTDIR ? ELOOP : errno;
            /* An O_PATH open of a symlink with O_DIRECTORY reports
             * ENOTDIR; tell a real file apart with fstatat. */
            if (errno == ENOTDIR && fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                !S_ISLNK(st.st_mode))
                e = ENOTDIR;
            if (cur != root)
                close(cur);
            free(copy);
            errno = e;
            return -1;
        }
        if (cur != root)
            close(cur);
        cur = next;
        p = slash + 1;
    }
    int e = errno;
    if (cur != root)
        close(cur);
    free(copy);
    errno = e;
    return fd;
}

static atomic_int no_openat2;

void fs_force_walk(int on) { atomic_store(&no_openat2, on); }

int fs_open_beneath(int root, const char *rel, int flags, mode_t mode)
{
    if (!atomic_load(&no_openat2)) {
        struct open_how how = {
            .flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
            .mode = (flags & O_CREAT) ? mode : 0,
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, root, rel, &how, sizeof how);
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd;
        if (errno == EPERM) {
            /* A seccomp filter may refuse openat2 with EPERM; only trust
             * that as "missing" if openat works where openat2 did not. */
            int probe = openat(root, ".", O_PATH | O_CLOEXEC);
            if (probe < 0)
                return -1;
            close(probe);
        }
        atomic_store(&no_openat2, 1);
    }
    return walk_open(root, rel, flags, mode);
}

/* O_NOFOLLOW | O_DIRECTORY on a symlink reports ENOTDIR: tell a
 * symlink apart from a plain file in the way. */
static int refine(int root, const char *rel, int e)
{
    if (e != ENOTDIR)
        return e;
    int fd = fs_open_beneath(root, rel, O_PATH, 0);
    if (fd >= 0) {
        struct stat st;
        int lnk = fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
        close(fd);
        return lnk ? ELOOP : e;
    }
    return errno == ELOOP ? ELOOP : e;
}

static int open_error(char **err, const char *rel, int e)
{
    switch (e) {
    case ENOENT: return VT_ERR_NOT_FOUND;
    case ELOOP:
        return patch_fail(err, VT_ERR_DENIED,
                          "Refused path '%s': it is or goes through a symbolic link", rel);
    case EXDEV:
        return patch_fail(err, VT_ERR_OUTSIDE, "Refused path '%s': it leaves the workspace", rel);
    case ENOTDIR:
        return patch_fail(err, VT_ERR_INVALID,
                          "Invalid path '%s': a component of it is not a directory", rel);
    default: return patch_fail(err, VT_ERR_IO, "Cannot open '%s': %s", rel, strerror(e));
    }
}

int fs_read(int root, const char *rel, char **data, size_t *len, mode_t *mode, char **err)
{
    *err = NULL;
    *data = NULL;
    int fd = fs_open_beneath(root, rel, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0)
        return open_error(err, rel, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return patch_fail(err, VT_ERR_IO, "Cannot stat '%s': %s", rel, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return patch_fail(err, VT_ERR_INVALID, "'%s' is a directory, not a file", rel);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return patch_fail(err, VT_ERR_INVALID, "'%s' is not a regular file", rel);
    }
    /* Room for the content, the read that finds its end and the NUL: one
     * byte less made every read grow (and copy) the buffer at its end. */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    char *buf = pbuf_alloc(cap);
    for (;;) {
        if (!buf) {
            close(fd);
            return VT_ERR_NOMEM;
        }
        if (n + 1 >= cap) {
            /* the file grew since fstat */
            if (pbuf_grow(&buf, &cap, n, n + 2) != 0) {
                pbuf_free(buf);
                buf = NULL;
            }
            continue;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            pbuf_free(buf);
            close(fd);
            return patch_fail(err, VT_ERR_IO, "Cannot read '%s': %s", rel, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    *mode = st.st_mode & 07777;
    return 0;
}

int fs_absent(int root, const char *rel, char **err)
{
    *err = NULL;
    int fd = fs_open_beneath(root, rel, O_PATH, 0);
    if (fd >= 0) {
        close(fd);
        return VT_ERR_EXISTS;
    }
    int e = errno;
    if (e != ENOENT)
        return open_error(err, rel, e);
    /* Missing: make sure the part of the way that exists has no
     * symlink (the ENOENT could come from a dangling link's target). */
    char *dir = strdup(rel);
    if (!dir)
        return VT_ERR_NOMEM;
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = '\0';
        fd = fs_open_beneath(root, dir, O_PATH, 0);
        if (fd >= 0) {
            close(fd);
            break;
        }
        if (errno != ENOENT) {
            int rc = open_error(err, dir, errno);
            free(dir);
            return rc;
        }
    }
    free(dir);
    return 0;
}

/* Whether `real` is root_real or below it. */
static int is_beneath(const char *root_real, const char *real)
{
    size_t n = strlen(root_real);
    if (n == 1) /* the workspace is "/" */
        return 1;
    return strncmp(real, root_real, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/* The refusal for the symlink at prefix (a component of rel). */
static int link_refusal(int root, const char *root_path, const char *rel, const char *prefix,
                        char **err)
{
    char target[PATH_MAX];
    ssize_t n = readlinkat(root, prefix, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    char *full = NULL, root_real[PATH_MAX], real[PATH_MAX];
    int outside = target[0] == '/';
    if (asprintf(&full, "%s/%s", root_path, prefix) < 0)
        return VT_ERR_NOMEM;
    /* A dangling link is judged by its text: absolute or climbing is out. */
    if (realpath(root_path, root_real) && realpath(full, real))
        outside = !is_beneath(root_real, real);
    else if (strstr(target, ".."))
        outside = 1;
    free(full);
    char *who = NULL; /* "it" or the component, quoted */
    if (strcmp(prefix, rel) == 0 ? !(who = strdup("it")) : asprintf(&who, "'%s'", prefix) < 0)
        return VT_ERR_NOMEM;
    int rc = outside ? patch_fail(err, VT_ERR_OUTSIDE,
                                  "Refused path '%s': %s is a symbolic link to '%s', outside the "
                                  "workspace. apply_patch never writes through symbolic links; "
                                  "nothing was changed and no approval was asked",
                                  rel, who, target)
                     : patch_fail(err, VT_ERR_DENIED,
                                  "Refused path '%s': %s is a symbolic link (to '%s'). apply_patch "
                                  "does not follow symbolic links: patch the path it points to "
                                  "instead",
                                  rel, who, target);
    free(who);
    return rc;
}

int fs_link_check(int root, const char *root_path, const char *rel, char **err)
{
    *err = NULL;
    char *prefix = strdup(rel);
    if (!prefix)
        return VT_ERR_NOMEM;
    /* Each prefix from the top: the ones before were found to be no
     * symlink, so fstatat resolves the prefix through real directories. */
    int rc = 0;
    for (char *p = prefix;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        struct stat st;
        if (fstatat(root, prefix, &st, AT_SYMLINK_NOFOLLOW) != 0)
            break; /* missing (the rest will be created) or unreadable: the write decides */
        if (S_ISLNK(st.st_mode)) {
            rc = link_refusal(root, root_path, rel, prefix, err);
            break;
        }
        if (!saved)
            break;
        *p = saved;
    }
    free(prefix);
    return rc;
}

/* Open (creating when `dirs` is given) the parent directory of rel. */
static int open_parent(int root, const char *rel, fs_created_dirs *dirs, const char **leaf,
                       char **err)
{
    const char *slash = strrchr(rel, '/');
    *leaf = slash ? slash + 1 : rel;
    if (!slash) {
        int fd = fcntl(root, F_DUPFD_CLOEXEC, 0);
        return fd >= 0
                   ? fd
                   : patch_fail(err, VT_ERR_IO, "Cannot open the workspace: %s", strerror(errno));
    }
    char *dir = strndup(rel, (size_t)(slash - rel));
    if (!dir)
        return VT_ERR_NOMEM;
    int fd = fs_open_beneath(root, dir, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0 && errno == ENOENT && dirs) {
        /* Create the missing directories from the top down. */
        for (char *p = dir;; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char saved = *p;
            *p = '\0';
            int d = fs_open_beneath(root, dir, O_PATH | O_DIRECTORY, 0);
            if (d >= 0) {
                close(d);
            } else if (errno == ENOENT) {
                const char *name = strrchr(dir, '/');
                int pfd;
                if (name) {
                    *(char *)name = '\0';
                    pfd = fs_open_beneath(root, dir, O_PATH | O_DIRECTORY, 0);
                    *(char *)name = '/';
                    name++;
                } else {
                    pfd = fcntl(root, F_DUPFD_CLOEXEC, 0);
                    name = dir;
                }
                int ok = pfd >= 0 && mkdirat(pfd, name, 0777) == 0;
                int e = errno;
                if (pfd >= 0)
                    close(pfd);
                if (!ok) {
                    int rc = patch_fail(err, VT_ERR_IO, "Cannot create directory '%s': %s", dir,
                                        strerror(e));
                    free(dir);
                    return rc;
                }
                if (VT_GROW(&dirs->v, &dirs->cap, dirs->n + 1) != 0) {
                    free(dir);
                    return VT_ERR_NOMEM;
                }
                dirs->v[dirs->n] = strdup(dir);
                if (dirs->v[dirs->n])
                    dirs->n++;
            } else {
                int rc = open_error(err, dir, errno);
                free(dir);
                return rc;
            }
            *p = saved;
            if (saved == '\0')
                break;
        }
        fd = fs_open_beneath(root, dir, O_RDONLY | O_DIRECTORY, 0);
    }
    if (fd < 0) {
        int rc = open_error(err, dir, refine(root, dir, errno));
        if (rc == VT_ERR_NOT_FOUND && !*err)
            rc = patch_fail(err, VT_ERR_NOT_FOUND, "Directory '%s' does not exist", dir);
        free(dir);
        return rc;
    }
    free(dir);
    return fd;
}

void fs_dircache_free(fs_dircache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->dir[i]);
        close(c->fd[i]);
    }
    memset(c, 0, sizeof *c);
}

/* open_parent through the cache: the descriptor belongs to the cache
 * (do not close it) when *owned is 0. */
static int cached_parent(int root, const char *rel, fs_created_dirs *dirs, fs_dircache *c,
                         const char **leaf, int *owned, char **err)
{
    *owned = 1;
    if (!c)
        return open_parent(root, rel, dirs, leaf, err);
    const char *slash = strrchr(rel, '/');
    size_t dl = slash ? (size_t)(slash - rel) : 0;
    for (size_t i = 0; i < c->n; i++)
        if (strlen(c->dir[i]) == dl && memcmp(c->dir[i], rel, dl) == 0) {
            *leaf = slash ? slash + 1 : rel;
            *owned = 0;
            return c->fd[i];
        }
    int fd = open_parent(root, rel, dirs, leaf, err);
    char *key = fd >= 0 ? strndup(rel, dl) : NULL;
    if (!key)
        return fd;
    size_t slot;
    if (c->n < 16) {
        slot = c->n++;
    } else {
        slot = c->next++ % 16;
        free(c->dir[slot]);
        close(c->fd[slot]);
    }
    c->dir[slot] = key;
    c->fd[slot] = fd;
    *owned = 0;
    return fd;
}

/* The temporary file is made with the permission bits it must end with
 * (so that it is never more open than that, and usually no chmod
 * follows); a mode the umask or a default ACL changed, and the setuid,
 * setgid and sticky bits (only once the content is whole), are set
 * afterwards. */
static int set_mode(int fd, int mode)
{
    struct stat st;
    if (mode < 0 || (fstat(fd, &st) == 0 && (st.st_mode & 07777) == (mode_t)mode))
        return 0;
    return fchmod(fd, (mode_t)mode);
}

/* Create and fill a temporary file in dfd; *tmp receives its name.
 * `kick`: see fs_writev_all. */
static int write_temp(int dfd, const char *rel, const char *leaf, const struct iovec *iov,
                      size_t niov, int mode, int do_sync, size_t kick, char tmp[256], int *keep,
                      char **err)
{
    static atomic_uint seq;
    int fd = -1;
    for (int tries = 0; tries < 16 && fd < 0; tries++) {
        struct timespec ts;
        vt_clock_now(&ts);
        snprintf(tmp, 256, ".%.180s.vtpatch-%d-%u-%ld", leaf, (int)getpid(),
                 atomic_fetch_add(&seq, 1), ts.tv_nsec);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    mode < 0 ? 0666 : (mode_t)mode & 0777);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return patch_fail(err, VT_ERR_IO, "Cannot create a temporary file next to '%s': %s", rel,
                          strerror(errno));
    int ok = fs_writev_all(fd, iov, niov, kick) == 0 && set_mode(fd, mode) == 0 &&
             (!do_sync || fsync(fd) == 0);
    int e = errno;
    if (ok && keep) {
        *keep = fd; /* the caller syncs and closes it */
        return 0;
    }
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        unlinkat(dfd, tmp, 0);
        return patch_fail(err, VT_ERR_IO, "Cannot write '%s': %s", rel, strerror(e));
    }
    return 0;
}

static int rename_into(int dfd, const char *tmp, const char *leaf, int noreplace)
{
    int r = noreplace ? renameat2(dfd, tmp, dfd, leaf, RENAME_NOREPLACE)
                      : renameat(dfd, tmp, dfd, leaf);
    if (r != 0 && noreplace && errno == EINVAL) { /* filesystem without it */
        r = linkat(dfd, tmp, dfd, leaf, 0);
        if (r == 0)
            unlinkat(dfd, tmp, 0);
    }
    return r;
}

static int rename_error(char **err, const char *rel, int e)
{
    if (e == EEXIST)
        return patch_fail(err, VT_ERR_EXISTS, "'%s' appeared while the patch was applied", rel);
    return patch_fail(err, VT_ERR_IO, "Cannot write '%s': %s", rel, strerror(e));
}

int fs_write(int root, const char *rel, const char *data, size_t len, int mode, int noreplace,
             fs_created_dirs *dirs, char **err)
{
    *err = NULL;
    const char *leaf;
    int dfd = open_parent(root, rel, dirs, &leaf, err);
    if (dfd < 0)
        return dfd;
    char tmp[256];
    struct iovec one = {(void *)data, len};
    int rc = write_temp(dfd, rel, leaf, &one, 1, mode, 1, 0, tmp, NULL, err);
    if (rc == 0 && rename_into(dfd, tmp, leaf, noreplace) != 0) {
        rc = rename_error(err, rel, errno);
        unlinkat(dfd, tmp, 0);
    }
    if (rc == 0)
        fsync(dfd); /* make the rename durable */
    close(dfd);
    return rc;
}

int fs_stage(int root, const char *rel, const struct iovec *iov, size_t niov, int mode, size_t kick,
             fs_created_dirs *dirs, fs_dircache *cache, char **tmp_rel, int *keep_fd, char **err)
{
    *err = NULL;
    *tmp_rel = NULL;
    if (keep_fd)
        *keep_fd = -1;
    const char *leaf;
    int owned;
    int dfd = cached_parent(root, rel, dirs, cache, &leaf, &owned, err);
    if (dfd < 0)
        return dfd;
    char tmp[256];
    int rc = write_temp(dfd, rel, leaf, iov, niov, mode, 0, kick, tmp, keep_fd, err);
    if (rc == 0 && asprintf(tmp_rel, "%.*s%s", (int)(leaf - rel), rel, tmp) < 0) {
        unlinkat(dfd, tmp, 0);
        *tmp_rel = NULL;
        rc = VT_ERR_NOMEM;
        if (keep_fd && *keep_fd >= 0) {
            close(*keep_fd);
            *keep_fd = -1;
        }
    }
    if (owned)
        close(dfd);
    return rc;
}

int fs_publish(int root, const char *tmp_rel, const char *rel, int noreplace, fs_dircache *cache,
               char **err)
{
    *err = NULL;
    const char *leaf;
    int owned;
    int dfd = cached_parent(root, rel, NULL, cache, &leaf, &owned, err);
    if (dfd < 0)
        return dfd;
    const char *slash = strrchr(tmp_rel, '/');
    int rc = 0;
    if (rename_into(dfd, slash ? slash + 1 : tmp_rel, leaf, noreplace) != 0)
        rc = rename_error(err, rel, errno);
    if (owned)
        close(dfd);
    return rc;
}

void fs_discard(int root, const char *tmp_rel)
{
    char *err = NULL;
    const char *leaf;
    int dfd = open_parent(root, tmp_rel, NULL, &leaf, &err);
    free(err);
    if (dfd >= 0) {
        unlinkat(dfd, leaf, 0);
        close(dfd);
    }
}

int fs_unlink(int root, const char *rel, char **err)
{
    *err = NULL;
    const char *leaf;
    int dfd = open_parent(root, rel, NULL, &leaf, err);
    if (dfd < 0)
        return dfd;
    int r = unlinkat(dfd, leaf, 0);
    int e = errno;
    close(dfd);
    if (r != 0)
        return patch_fail(err, VT_ERR_IO, "Cannot delete '%s': %s", rel, strerror(e));
    return 0;
}

void fs_remove_dirs(int root, fs_created_dirs *dirs)
{
    for (size_t i = dirs->n; i-- > 0;) {
        char *err = NULL;
        const char *leaf;
        int dfd = open_parent(root, dirs->v[i], NULL, &leaf, &err);
        free(err);
        if (dfd >= 0) {
            unlinkat(dfd, leaf, AT_REMOVEDIR);
            close(dfd);
        }
    }
}

void fs_created_dirs_free(fs_created_dirs *dirs)
{
    for (size_t i = 0; i < dirs->n; i++)
        free(dirs->v[i]);
    free(dirs->v);
    memset(dirs, 0, sizeof *dirs);
}
