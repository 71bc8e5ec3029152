/* Writing a whole buffer to a descriptor (fd_write.h). */
#include "fd_write.h"

#include <errno.h>
#include <unistd.h>

int fd_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -ENOSPC;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
