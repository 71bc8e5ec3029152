#include "own_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

char *own_file_read(const char *path, mode_t forbidden, size_t min, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
        !(st.st_mode & forbidden) && st.st_size >= (off_t)min && (size_t)st.st_size <= max)
        buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf && got != (size_t)st.st_size) {
        free(buf);
        return NULL;
    }
    if (buf) {
        buf[got] = '\0';
        *len = got;
    }
    return buf;
}
