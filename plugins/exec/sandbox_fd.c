/* The places a command may write, granted by what they are: each is
 * opened once per call, as a descriptor, with no symbolic link followed
 * on the way, and the Landlock rule is made from that descriptor.  A
 * name is what a command can change between two calls ($TMPDIR or a
 * writable root under /tmp swapped for a link to $HOME); an inode
 * reached without a link is what the user named. */
#include "sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vthost/plugin.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static atomic_int no_openat2;

/* `path` without "//", "." and "..", lexically (no component of what
 * is opened is a link, so ".." means the same as for the kernel). */
int sandbox_path_normalize(const char *path, char *out, size_t size)
{
    if (path[0] != '/' || strlen(path) >= size)
        return -EINVAL;
    size_t n = 0;
    out[n++] = '/';
    for (const char *s = path; *s;) {
        while (*s == '/')
            s++;
        size_t len = strcspn(s, "/");
        if (!len)
            break;
        if (len == 1 && s[0] == '.') {
            /* the same directory: nothing to add */
        } else if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (n > 1 && out[n - 1] != '/')
                n--;
            if (n > 1)
                n--;
        } else {
            if (n > 1)
                out[n++] = '/';
            memcpy(out + n, s, len);
            n += len;
        }
        s += len;
    }
    out[n] = '\0';
    return 0;
}

/* One component at a time from "/", none followed when it is a link. */
static int walk_open(const char *norm)
{
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char comp[NAME_MAX + 1];
    for (const char *s = norm + 1; fd >= 0 && *s;) {
        size_t len = strcspn(s, "/");
        if (len > NAME_MAX) {
            close(fd);
            return -ENAMETOOLONG;
        }
        memcpy(comp, s, len);
        comp[len] = '\0';
        int next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        if (next < 0)
            return -e;
        struct stat st;
        if (fstat(next, &st) != 0 || S_ISLNK(st.st_mode)) {
            close(next);
            return -ELOOP;
        }
        fd = next;
        s += len;
        s += *s == '/';
    }
    return fd < 0 ? -errno : fd;
}

int sandbox_fd_open(const char *path, struct stat *st)
{
    char norm[PATH_MAX];
    int fd = sandbox_path_normalize(path, norm, sizeof norm);
    if (fd < 0)
        return fd;
    fd = -1;
    if (!atomic_load(&no_openat2)) {
        struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        long r = syscall(SYS_openat2, AT_FDCWD, norm, &how, sizeof how);
        if (r >= 0)
            fd = (int)r;
        else if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
            atomic_store(&no_openat2, 1); /* too old, or a filter refuses it */
        else
            return -errno;
    }
    if (fd < 0 && (fd = walk_open(norm)) < 0)
        return fd;
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/* `path` opened as the object `id` names: the descriptor; 0 when it is
 * gone, -ESTALE when another object is there, else sandbox_fd_open's. */
static int open_planned(const char *path, const sandbox_ident *id)
{
    struct stat st;
    int fd = sandbox_fd_open(path, &st);
    if (fd == -ENOENT)
        return 0;
    if (fd >= 0 && (st.st_dev != id->dev || st.st_ino != id->ino)) {
        close(fd);
        return -ESTALE;
    }
    return fd;
}

char *sandbox_realpath(const char *path, char *out)
{
    /* A path already in canonical form (absolute, no ".", "..", "//")
     * that the kernel resolves without a symbolic link is its own real
     * path: one openat2 instead of realpath(3)'s readlink per component
     * (a plan resolves some twenty paths). */
    char norm[PATH_MAX];
    if (!atomic_load(&no_openat2) && sandbox_path_normalize(path, norm, sizeof norm) == 0 &&
        !strcmp(norm, path)) {
        struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
        long r = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
        if (r >= 0) {
            close((int)r);
            memcpy(out, norm, strlen(norm) + 1);
            return out;
        }
        /* missing before any link: realpath(3) stops at the same name */
        if (errno == ENOENT)
            return NULL;
    }
    return realpath(path, out);
}

int sandbox_fd_check(const char *path, const sandbox_ident *id)
{
    int fd = open_planned(path, id);
    if (fd <= 0)
        return fd == 0 ? 1 : fd;
    close(fd);
    return 0;
}

int sandbox_fd_bind_ro(const char *path, const sandbox_ident *id)
{
    int fd = open_planned(path, id);
    if (fd <= 0)
        return fd == 0 ? 1 : fd; /* 1: removed since the plan was made */
    int rc = 0;
    int tree = (int)syscall(SYS_open_tree, fd, "",
                            OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
    if (tree < 0) {
        rc = -errno;
    } else {
        struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
        if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
                    sizeof attr) != 0 ||
            syscall(SYS_move_mount, tree, "", fd, "",
                    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
            rc = -errno;
        close(tree);
    }
    close(fd);
    return rc;
}

char *sandbox_fd_refusal(const char *what, const char *path, int err)
{
    if (err == -ELOOP)
        return sandbox_fmt("cannot run the command: %s (%s) is reached through a symbolic link "
                           "now; a command may have replaced it with a link since it was "
                           "granted, and the sandbox grants a place by what it is, never by "
                           "where a link leads. Remove the link (or name the real directory "
                           "instead) and retry",
                           what, path);
    if (err == -ENOTDIR)
        return sandbox_fmt("cannot run the command: %s (%s) is not a directory reached "
                           "without symbolic links now (a component was replaced by a file "
                           "or a link); restore it and retry",
                           what, path);
    return sandbox_fmt("cannot run the command: %s (%s) cannot be opened to grant it: %s", what,
                       path, strerror(-err));
}
