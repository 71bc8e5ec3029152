/* The shell's PATH search, in the session leader: only system calls and
 * string copies (the host is multi-threaded; this runs between fork and
 * exec). */
#include "plainexec.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir + "/" + word (dir empty: the working directory, "./word") in `out`;
 * 0 when it does not fit. */
static int join(char *out, size_t cap, const char *dir, size_t dl, const char *word)
{
    size_t wl = strlen(word);
    if (!dl) {
        dir = ".";
        dl = 1;
    }
    if (dl + wl + 2 > cap)
        return 0;
    memcpy(out, dir, dl);
    out[dl] = '/';
    memcpy(out + dl + 1, word, wl + 1);
    return 1;
}

/* 1: an executable ELF file, opened at fd_at; 0: not there (the search
 * goes on); -1: there, but the shell must decide (a script, unreadable,
 * a directory named with a slash). */
static int candidate(const char *p, int fd_at, int searching)
{
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        return 0;
    /* A directory on PATH it may not look into: the shells go on; a
     * file it may not read: the shell runs it (or says why not). */
    if (fd < 0)
        return searching && errno == EACCES && stat(p, &st) != 0 ? 0 : -1;
    unsigned char head[4] = {0};
    int r = -1;
    if (fstat(fd, &st) != 0)
        r = -1;
    else if (!S_ISREG(st.st_mode) || access(p, X_OK) != 0)
        r = searching ? 0 : -1; /* the shells pass over it on PATH */
    else if (pread(fd, head, 4, 0) == 4 && !memcmp(head, "\177ELF", 4))
        r = dup3(fd, fd_at, O_CLOEXEC) == fd_at ? 1 : -1;
    close(fd);
    return r;
}

static int make_abs(const char *given, const char *workdir, char *abs, size_t cap)
{
    size_t gl = strlen(given);
    if (given[0] != '/')
        return join(abs, cap, workdir, strlen(workdir), given);
    if (gl >= cap)
        return 0;
    memcpy(abs, given, gl + 1);
    return 1;
}

int plain_find(const char *word, const char *path, const char *workdir, int fd_at, char *given,
               char *abs, size_t cap)
{
    if (strchr(word, '/')) {
        if (strlen(word) >= cap)
            return 0;
        memcpy(given, word, strlen(word) + 1);
        if (!make_abs(given, workdir, abs, cap))
            return 0;
        return candidate(given, fd_at, 0) == 1;
    }
    for (const char *p = path;;) {
        const char *e = strchr(p, ':');
        size_t dl = e ? (size_t)(e - p) : strlen(p);
        if (!join(given, cap, p, dl, word))
            return 0;
        int r = candidate(given, fd_at, 1);
        if (r == 1) {
            if (make_abs(given, workdir, abs, cap))
                return 1;
            close(fd_at);
            return 0;
        }
        if (r < 0 || !e)
            return 0;
        p = e + 1;
    }
}

const char *plain_exec_error(int e)
{
    switch (e) {
    case EPERM: return "Operation not permitted";
    case EACCES: return "Permission denied";
    case ENOENT: return "No such file or directory";
    case ENOTDIR: return "Not a directory";
    case ENOEXEC: return "Exec format error";
    case ETXTBSY: return "Text file busy";
    case E2BIG: return "Argument list too long";
    case ENOMEM: return "Cannot allocate memory";
    case ELOOP: return "Too many levels of symbolic links";
    default: return "Input/output error";
    }
}
