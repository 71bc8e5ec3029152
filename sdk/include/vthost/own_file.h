/*
 * Reading back a file the program itself wrote into the user's own data
 * directories (a cache, an index, a list): only while it is still that
 * user's regular file, with none of the mode bits named that would have
 * let others write (or read) it, and of the size expected.  Anything else
 * at the path (a link, a FIFO, someone else's file, a file others could
 * have written) is refused, never followed, never waited on.
 * Header-only (nothing to link, no host call): the host and plugins share
 * it, and a plugin's static core and its unit tests use it as the plugin
 * does.
 */
#ifndef VTHOST_OWN_FILE_H
#define VTHOST_OWN_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* The whole text of `path` into *text (NUL-terminated; *len, when `len`
 * is not NULL, excludes the NUL; the caller frees it with free()).
 * `forbidden` are the mode bits that make the file untrusted: 022 when
 * others could have written it, 077 when they could read it too.
 * Returns VT_OK; VT_ERR_NOT_FOUND when nothing is at `path`;
 * VT_ERR_DENIED when what is there is not a regular file of the effective
 * user (a symbolic link included), has a forbidden bit, or is smaller
 * than `min` or larger than `max` bytes; VT_ERR_IO when it cannot be read
 * whole; VT_ERR_NOMEM.  *text is NULL on every error. */
static inline int vt_own_file_read(const char *path, mode_t forbidden, size_t min, size_t max,
                                   char **text, size_t *len)
{
    *text = NULL;
    /* O_NONBLOCK: a FIFO planted at the path must not hang the open */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? VT_ERR_NOT_FOUND
               : errno == ELOOP                    ? VT_ERR_DENIED
                                                   : VT_ERR_IO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & forbidden) || st.st_size < (off_t)min || (size_t)st.st_size > max) {
        close(fd);
        return VT_ERR_DENIED;
    }
    size_t size = (size_t)st.st_size, got = 0;
    char *buf = (char *)malloc(size + 1);
    while (buf && got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf)
        return VT_ERR_NOMEM;
    if (got != size) {
        free(buf);
        return VT_ERR_IO;
    }
    buf[got] = '\0';
    if (len)
        *len = got;
    *text = buf;
    return VT_OK;
}

#endif /* VTHOST_OWN_FILE_H */
