/* Opening and creating beneath a directory descriptor (beneath.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "beneath.h"

int beneath_open(int root, const char *rel, int flags, mode_t mode)
{
    struct open_how how = {.flags = (unsigned long long)(unsigned)flags,
                           .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                           .resolve =
                               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    int fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
        return fd;
    /* No openat2 (or a seccomp filter refusing it): walk the path one
     * component at a time, never following a link. */
    char *copy = strdup(rel);
    if (!copy)
        return -1;
    int dir = dup(root);
    char *save = NULL, *comp = strtok_r(copy, "/", &save);
    while (dir >= 0 && comp) {
        char *next = strtok_r(NULL, "/", &save);
        int f = next ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : flags | O_NOFOLLOW;
        int nd = strcmp(comp, "..") ? openat(dir, comp, f, mode) : (errno = EXDEV, -1);
        int saved = errno;
        close(dir);
        errno = saved;
        dir = nd;
        comp = next;
    }
    free(copy);
    return dir;
}

int beneath_mkdirs(int root, const char *rel, mode_t mode)
{
    char *copy = strdup(rel);
    if (!copy)
        return -1;
    int rc = 0;
    for (char *p = copy; rc == 0 && p;) {
        char *slash = strchr(p + (*p == '/'), '/');
        if (slash)
            *slash = '\0';
        int fd = beneath_open(root, copy, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd < 0 && errno == ENOENT) {
            /* made in its parent, found through the same checks */
            char *last = strrchr(copy, '/');
            int parent =
                last ? (*last = '\0', beneath_open(root, copy, O_PATH | O_DIRECTORY | O_CLOEXEC, 0))
                     : dup(root);
            if (last)
                *last = '/';
            if (parent < 0 ||
                (mkdirat(parent, last ? last + 1 : copy, mode) < 0 && errno != EEXIST))
                rc = -1;
            if (parent >= 0) {
                int e = errno;
                close(parent);
                errno = e;
            }
            if (rc == 0)
                fd = beneath_open(root, copy, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
        }
        if (fd < 0)
            rc = -1;
        else
            close(fd);
        if (slash) {
            *slash = '/';
            p = slash + 1;
        } else {
            p = NULL;
        }
    }
    int e = errno;
    free(copy);
    errno = e;
    return rc;
}
